// -O3 does work linear in the length of a let chain. Wall time on a shared
// machine is no oracle (it grew faster than linearly with the cache and
// allocator footprint while callgrind counted exactly 4.0x the instructions
// for 4x the bindings), so this counts the work the passes ask of an op
// instead: every type inference, by any pass, calls the op's type relation.
// A pass that re-typed or re-walked the chain once per binding would make the
// count quadratic.
#include <gtest/gtest.h>

#include <atomic>
#include "o3.h"
#include "weft/op.h"

namespace weft::testing {
namespace {

std::atomic<int64_t> relation_calls{0};

// test.counted_identity(x) = x, injective (FuseOps fuses it with its
// neighbours), counting each time its type is inferred.
void register_counted_identity() {
  auto& reg = OpRegistry::global();
  if (reg.find_loaded("test.counted_identity")) return;
  OpDef def;
  def.name = "test.counted_identity";
  def.inputs = {{"data", "Tensor", "input"}};
  def.pattern = OpPattern::kInjective;
  def.relation = [](std::span<const Type> args, const Attrs&) -> Type {
    relation_calls.fetch_add(1, std::memory_order_relaxed);
    return args[0];
  };
  reg.add(std::move(def));
}

// Relation calls during -O3 of fn (%x) { let %v0 = add(%x, c); let %v1 =
// test.counted_identity(%v0); ... } with `bindings` lets (half of them the
// counted op), the program typed before the count starts.
int64_t relation_calls_at_o3(int bindings) {
  TensorType t = tensor_type({2, 3});
  Var x = var("x", t);
  Expr one = constant(Tensor::zeros({2, 3}, DataType::Float(32)));
  Expr body = let_chain(x, bindings, [&](int i, const Expr& prev) {
    return i % 2 == 0 ? call("add", {prev, one}) : call("test.counted_identity", {prev});
  });
  IRModule typed = infer_type(IRModule::from_function(function({x}, body)));
  relation_calls = 0;
  IRModule after = optimize_o3(typed);
  EXPECT_TRUE(after.main()->checked_type().defined());
  return relation_calls.load();
}

TEST(O3LinearWork, TypingWorkOnALetChainGrowsLinearlyWithItsLength) {
  register_counted_identity();
  constexpr int kShort = 500, kLong = 2000;
  int64_t short_calls = relation_calls_at_o3(kShort), long_calls = relation_calls_at_o3(kLong);
  // Each counted op is typed a bounded number of times (once per InferType the
  // pipeline runs, plus the re-typing of fused functions and of the passes
  // that type what they rewrite), never once per other binding.
  EXPECT_GT(short_calls, 0);
  EXPECT_LE(long_calls, 32 * (kLong / 2)) << "relation calls per counted op: " << long_calls / (kLong / 2.0);
  // 4x the bindings, at most 4x the work (+10% for per-program constants).
  EXPECT_LE(long_calls, short_calls * 4 * 11 / 10) << short_calls << " calls for " << kShort << " bindings, "
                                                   << long_calls << " for " << kLong;
}

}  // namespace
}  // namespace weft::testing

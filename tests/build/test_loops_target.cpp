// `loops`, the TE debug target: each fused group's TE (its ops' te_computes
// chained, injective producers inlined) lowered under the default schedules
// and run by the loop-IR evaluator, checked against the reference kernels on
// the interpreter under several target traits.
#include <gmock/gmock.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/run_config.h"
#include "weft/target.h"
#include "weft/text.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

RunConfig loops_config(int64_t vector_lanes = 8, int64_t cores = 2, bool many_threads = false) {
  RunConfig config;
  config.targets = {"loops"};
  config.fallback = FallbackPolicy::kError;
  config.target_options["loops"] =
      make_attrs({{"vector_lanes", vector_lanes}, {"cores", cores}, {"many_threads", many_threads}});
  return config;
}

/// Element i is start + i * step, as T (float or int32, truncated).
template <typename T>
Tensor ramp(std::vector<int64_t> shape, double start, double step) {
  Tensor t = Tensor::empty(std::move(shape), std::is_same_v<T, float> ? DataType::Float(32) : DataType::Int(32));
  for (int64_t i = 0; i < t.numel(); ++i) t.data_as<T>()[i] = static_cast<T>(start + step * static_cast<double>(i));
  return t;
}

std::vector<double> elements(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

// Broadcasting in both directions, a scalar constant, unary math, and a
// result read twice: fused groups of several ops at -O3.
constexpr const char* kFloatGroup = R"(
def @main(%x: Tensor[(2, 3, 5), float32], %y: Tensor[(3, 1), float32]) {
  %0 = multiply(%x, %y);
  %1 = add(%0, 0.5f);
  %2 = sigmoid(%1);
  %3 = subtract(%2, exp(%y));
  %4 = maximum(%3, tanh(%x));
  %5 = floor_mod(%4, 0.3f);
  (%5, sqrt(abs(%4)))
}
)";

TEST(LoopsTarget, IsBuiltIntoTheCoreWithTraitOptions) {
  const TargetDef* def = TargetRegistry::global().find_loaded("loops");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->plugin, "");
  EXPECT_EQ(def->device_type, kDLCPU);
  EXPECT_NE(def->options.find("vector_lanes"), nullptr);
  EXPECT_NE(def->options.find("cores"), nullptr);
  EXPECT_NE(def->options.find("parallel_work"), nullptr);
  EXPECT_NE(def->options.find("many_threads"), nullptr);
}

TEST(LoopsTarget, ATraitOptionBelowOneIsAnErrorNamingIt) {
  const TargetDef& def = TargetRegistry::global().get("loops");
  for (const char* option : {"vector_lanes", "cores", "parallel_work"}) {
    try {
      def.options.normalize("loops", make_attrs({{option, int64_t{0}}}));
      ADD_FAILURE() << option << ": 0 was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(def.options.normalize("loops", make_attrs({{"parallel_work", int64_t{1}}})));
}

/// An op with a reference kernel (a copy) and no TE compute, registered while
/// it lives.
class OpWithoutTe {
 public:
  static constexpr const char* kName = "build_test.no_te";
  OpWithoutTe() {
    OpDef def;
    def.name = kName;
    def.inputs = {{"data", "Tensor", ""}};
    def.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
    def.kernel = [](std::span<const Tensor> in, std::span<const Tensor> out, const Attrs&) {
      std::memcpy(out[0].data(), in[0].data(), in[0].nbytes());
    };
    OpRegistry::global().add(std::move(def));
  }
  ~OpWithoutTe() { OpRegistry::global().remove(kName); }
};

TEST(LoopsTarget, SupportsStaticCallsOfOpsWithATeComputeOnly) {
  OpWithoutTe no_te_op;
  auto loops = TargetRegistry::global().get("loops").create(make_attrs({{"vector_lanes", 4}, {"cores", 1}}));
  Function with_te = infer_type(parse_module("def @main(%x: Tensor[(4), float32]) { exp(%x) }")).main();
  EXPECT_TRUE(loops->supports(downcast<CallNode>(with_te->body)));
  Function dynamic = infer_type(parse_module("def @main(%x: Tensor[(?), float32]) { exp(%x) }")).main();
  EXPECT_FALSE(loops->supports(downcast<CallNode>(dynamic->body)));
  Function no_te = infer_type(parse_module("def @main(%x: Tensor[(4), float32]) { build_test.no_te(%x) }")).main();
  EXPECT_FALSE(loops->supports(downcast<CallNode>(no_te->body)));
}

TEST(LoopsTarget, AFusedGroupMatchesTheReferenceKernelsUnderEveryTraits) {
  IRModule mod = parse_module(kFloatGroup);
  std::vector<Value> args = {ramp<float>({2, 3, 5}, -1.5, 0.1),
                             ramp<float>({3, 1}, -0.7, 0.6)};
  Value want = Interpreter(mod).run_main(args);
  for (int64_t lanes : {1, 4, 8}) {
    for (int64_t cores : {1, 2, 0}) {  // 0: a GPU's many threads
      auto compiled = build(mod, loops_config(lanes, std::max<int64_t>(cores, 1), cores == 0));
      for (const CompiledGroup& g : compiled->groups) EXPECT_EQ(g.target, "loops") << describe_partition(*compiled);
      std::vector<Tensor> got = GraphExecutor(compiled).run(args).flatten(), expected = want.flatten();
      ASSERT_EQ(got.size(), 2u);
      for (size_t o = 0; o < got.size(); ++o) {
        std::vector<double> g = elements(got[o]), w = elements(expected[o]);
        ASSERT_EQ(g.size(), w.size());
        for (size_t i = 0; i < g.size(); ++i)
          EXPECT_NEAR(g[i], w[i], 1e-6) << "output " << o << " element " << i << " lanes " << lanes << " cores " << cores;
      }
    }
  }
}

TEST(LoopsTarget, IntegerDivisionRoundsAsTheReferenceKernels) {
  // Negative operands: floor_divide and floor_mod round toward minus infinity,
  // divide truncates; sign and negative of an int32.
  IRModule mod = parse_module(R"(
def @main(%a: Tensor[(2, 6), int32], %b: Tensor[(6), int32]) {
  (floor_divide(%a, %b), floor_mod(%a, %b), divide(%a, %b), sign(%a), negative(%b))
})");
  Tensor a = ramp<int32_t>({2, 6}, -7, 1.3), b = Tensor::empty({6}, DataType::Int(32));
  int32_t divisors[] = {2, -3, 4, -5, 1, 3};
  for (int i = 0; i < 6; ++i) b.data_as<int32_t>()[i] = divisors[i];
  std::vector<Value> args = {a, b};
  std::vector<Tensor> want = Interpreter(mod).run_main(args).flatten();
  std::vector<Tensor> got = GraphExecutor(build(mod, loops_config())).run(args).flatten();
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); ++o) EXPECT_EQ(elements(got[o]), elements(want[o])) << "output " << o;
  // Hand-worked: floor_divide(-7, 2) = -4, floor_mod(-7, 2) = 1, divide(-7, 2) = -3.
  EXPECT_EQ(got[0].element_as_double(0), -4);
  EXPECT_EQ(got[1].element_as_double(0), 1);
  EXPECT_EQ(got[2].element_as_double(0), -3);
}

TEST(LoopsTarget, AnOpWithoutATeComputeFailsUnderFallbackErrorNamingIt) {
  OpWithoutTe no_te_op;
  IRModule mod = parse_module("def @main(%x: Tensor[(4), float32]) { exp(build_test.no_te(%x)) }");
  try {
    build(mod, loops_config());
    FAIL() << "built";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("build_test.no_te"));
  }
}

TEST(LoopsTarget, AnOptionBelowOneIsRefusedNamingIt) {
  try {
    check_run_config(loops_config(0, 1));
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("vector_lanes"));
    EXPECT_THAT(e.what(), HasSubstr("an int >= 1"));
  }
}

}  // namespace
}  // namespace weft

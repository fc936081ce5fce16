// add, subtract, multiply, divide, negative and exp against gen_arith.py's
// NumPy oracles, in float32, float64 and int32, through type inference and
// the interpreter; and the integer edge cases C++ leaves undefined (overflow,
// INT_MIN / -1, clip bounds beyond the dtype), exactly as NumPy gives them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "support/op_test.h"

namespace weft::testing {
namespace {

/// Runs the cases of `op` whose names start with `prefix`; integer edge cases
/// must match exactly.
int check_arith(const std::string& op, const std::string& prefix = "") {
  int ran = 0;
  const nlohmann::json cases = read_json(std::string(WEFT_PLUGIN_GOLDEN_DIR) + "/arith.json");
  for (const auto& c : cases) {
    const std::string name = c.at("name");
    if (c.at("op") != op || name.rfind(prefix, 0) != 0) continue;
    SCOPED_TRACE(name);
    std::vector<Tensor> inputs;
    for (const auto& in : c.at("inputs")) inputs.push_back(tensor_from_json(in));
    const Tensor out = run_op(op, inputs, attrs_from_json(c.at("attrs"))).tensor();
    if (name.rfind("int_edge_", 0) == 0) expect_close(out, c.at("output"), 0, 0);
    else expect_close(out, c.at("output"));
    ++ran;
  }
  return ran;
}

TEST(TensorArithGolden, BroadcastingBinaryOpsMatchNumpy) {
  EXPECT_EQ(check_arith("add", "add_"), 3);
  EXPECT_EQ(check_arith("subtract", "subtract_"), 3);
  EXPECT_EQ(check_arith("multiply", "multiply_"), 3);
  EXPECT_EQ(check_arith("divide", "divide_"), 2);
}

TEST(TensorArithGolden, UnaryOpsMatchNumpy) {
  EXPECT_EQ(check_arith("negative", "negative_"), 3);
  EXPECT_EQ(check_arith("exp"), 2);
}

TEST(TensorArithGolden, IntegerOverflowWrapsAsNumpyAndMinOverMinusOneDoesNotTrap) {
  for (const char* op : {"divide", "mod", "floor_divide", "floor_mod", "add", "subtract", "multiply", "negative",
                         "abs"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(check_arith(op, "int_edge_"), 2);  // int32 and int64
  }
}

TEST(TensorArithGolden, IntegerReductionsWrapAsNumpy) {
  EXPECT_EQ(check_arith("sum", "int_edge_"), 1);
  EXPECT_EQ(check_arith("prod", "int_edge_"), 1);
}

TEST(TensorArithGolden, ClipBoundsBeyondAnIntegerDtypeBoundNothing) {
  EXPECT_EQ(check_arith("clip", "int_edge_"), 2);
}

TEST(TensorArithGolden, ClipWithANanBoundOnAnIntegerTensorIsAnError) {
  Tensor x = Tensor::zeros({2}, DataType::Int(32));
  EXPECT_THROW(run_op("clip", {x}, {{"a_min", AttrValue(std::nan(""))}, {"a_max", AttrValue(1.0)}}), Error);
}

TEST(TensorArithGolden, CastOfAFloatOutsideAnIntegerRangeSaturates) {
  // Hand-worked: truncation toward zero, clamped to int32; NaN gives 0.
  const std::vector<float> in = {3e9f, -3e9f, std::nanf(""), 1e30f, -2.5f, 2147483520.0f};
  Tensor x = Tensor::empty({6}, DataType::Float(32));
  std::copy(in.begin(), in.end(), x.data_as<float>());
  const Tensor out = run_op("cast", {x}, {{"dtype", AttrValue(std::string("int32"))}}).tensor();
  const std::vector<int32_t> expected = {2147483647, -2147483647 - 1, 0, 2147483647, -2, 2147483520};
  EXPECT_EQ(std::vector<int32_t>(out.data_as<int32_t>(), out.data_as<int32_t>() + 6), expected);
}

}  // namespace
}  // namespace weft::testing

// add, subtract, multiply, divide, negative and exp against gen_arith.py's
// NumPy oracles, in float32, float64 and int32, through type inference and
// the interpreter.
#include <gtest/gtest.h>

#include <string>

#include "support/op_test.h"

namespace weft::testing {
namespace {

int check_arith(const std::string& op) {
  int ran = 0;
  const nlohmann::json cases = read_json(std::string(WEFT_PLUGIN_GOLDEN_DIR) + "/arith.json");
  for (const auto& c : cases) {
    if (c.at("op") != op) continue;
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::vector<Tensor> inputs;
    for (const auto& in : c.at("inputs")) inputs.push_back(tensor_from_json(in));
    expect_close(run_op(op, inputs, attrs_from_json(c.at("attrs"))).tensor(), c.at("output"));
    ++ran;
  }
  return ran;
}

TEST(TensorArithGolden, BroadcastingBinaryOpsMatchNumpy) {
  EXPECT_EQ(check_arith("add"), 3);
  EXPECT_EQ(check_arith("subtract"), 3);
  EXPECT_EQ(check_arith("multiply"), 3);
  EXPECT_EQ(check_arith("divide"), 2);
}

TEST(TensorArithGolden, UnaryOpsMatchNumpy) {
  EXPECT_EQ(check_arith("negative"), 3);
  EXPECT_EQ(check_arith("exp"), 2);
}

}  // namespace
}  // namespace weft::testing

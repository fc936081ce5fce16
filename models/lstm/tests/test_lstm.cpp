// lstm against relay.testing.lstm: parameters (derived by hand from lstm.py),
// op counts, the required arguments and a run on the interpreter.
#include <cmath>

#include "model_run_util.h"
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

TEST(Lstm, EachStepReadsItsOwnDataAndWeights) {
  // num_hidden 4: the gates are 4 * 4 wide. The function's parameters are its
  // free variables in first use: step 0's input and weights, then step 1's.
  std::vector<TypedParam> expected;
  for (const std::string step : {"0", "1"}) {
    expected.push_back({"data", {2, 4}, "float32"});
    expected.push_back({"i2h_" + step + "_weight", {16, 4}, "float32"});
    expected.push_back({"i2h_" + step + "_bias", {16}, "float32"});
    expected.push_back({"h2h_" + step + "_weight", {16, 4}, "float32"});
    expected.push_back({"h2h_" + step + "_bias", {16}, "float32"});
  }
  EXPECT_EQ(typed_params(typed_model("lstm:iterations=2,num_hidden=4,batch_size=2")), expected);
}

TEST(Lstm, OutputIsTheLastHiddenState) {
  IRModule mod = typed_model("lstm:iterations=3,num_hidden=8");
  auto t = downcast<TensorTypeNode>(mod.main()->body->checked_type());
  ASSERT_TRUE(t);
  EXPECT_EQ(std::vector<int64_t>(t->shape.begin(), t->shape.end()), (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(param_count(mod), 3 * 2 * (32 * 8 + 32));
}

TEST(Lstm, OpCounts) {
  // Per step: two dense + bias_add, add (gates) and add (next_c), split,
  // three sigmoids, two tanh, three multiplies; one zeros for the states.
  std::map<std::string, int> expected = {{"zeros", 1}, {"nn.dense", 6}, {"nn.bias_add", 6}, {"add", 6},
                                         {"split", 3}, {"sigmoid", 9},  {"tanh", 6},        {"multiply", 9}};
  EXPECT_EQ(testing::count_ops(typed_model("lstm:iterations=3,num_hidden=8")), expected);
}

TEST(Lstm, IterationsAndNumHiddenHaveNoDefault) {
  EXPECT_THAT(build_error("lstm"), ::testing::HasSubstr("iterations"));
  EXPECT_THAT(build_error("lstm:iterations=3"), ::testing::HasSubstr("num_hidden"));
  EXPECT_THAT(build_error("lstm:num_hidden=8"), ::testing::HasSubstr("iterations"));
  EXPECT_THAT(build_error("lstm:iterations=0,num_hidden=8"),
              ::testing::HasSubstr("iterations' has an invalid value 0: iterations must be positive, got 0; expected "
                                   "a positive int"));
}

TEST(Lstm, RunsOnTheInterpreter) {
  // next_h = sigmoid(.) * tanh(.) lies in (-1, 1). Every step's input is
  // named `data`, which create_workload leaves unfilled.
  std::vector<double> h = values_of(run_model("lstm:iterations=3,num_hidden=4"));
  ASSERT_EQ(h.size(), 4u);
  for (double v : h) {
    EXPECT_TRUE(std::isfinite(v));
    EXPECT_LT(std::abs(v), 1.0);
  }
}

}  // namespace
}  // namespace weft::model_testing

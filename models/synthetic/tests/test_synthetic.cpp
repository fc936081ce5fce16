// synthetic against relay.testing.synthetic: parameters (derived by hand from
// synthetic.py), op counts, argument checks and a run on the interpreter.
#include <cmath>

#include "model_run_util.h"
#include "model_test_util.h"

namespace weft::model_testing {
namespace {

/// Data, bias and batch norm take dtype; the declared weights take wtype.
std::vector<TypedParam> synthetic_params(std::vector<int64_t> input, const std::string& dtype = "float32",
                                         const std::string& wtype = "float32") {
  const int64_t c = input[1], w = input[3];
  return {{"data", input, dtype},
          {"dense_weight", {w, w}, wtype},
          {"conv_weight", {c, c, 3, 3}, wtype},
          {"bias", {c}, dtype},
          {"batch_norm_gamma", {c}, dtype},
          {"batch_norm_beta", {c}, dtype},
          {"batch_norm_moving_mean", {c}, dtype},
          {"batch_norm_moving_var", {c}, dtype},
          {"dense2_weight", {w, w}, wtype},
          {"conv2_weight", {c, c, 3, 3}, wtype}};
}

TEST(Synthetic, ParametersInReferenceOrderWithInferredShapes) {
  EXPECT_EQ(typed_params(typed_model("synthetic")), synthetic_params({1, 3, 24, 12}));
  EXPECT_EQ(typed_params(typed_model("synthetic:input_shape=2x4x6x5")), synthetic_params({2, 4, 6, 5}));
  EXPECT_EQ(param_count(typed_model("synthetic")), 2 * (12 * 12 + 3 * 3 * 3 * 3) + 3 + 4 * 3);
}

TEST(Synthetic, WeightTypeDefaultsToTheDataType) {
  EXPECT_EQ(typed_params(typed_model("synthetic:dtype=float64")),
            synthetic_params({1, 3, 24, 12}, "float64", "float64"));
  EXPECT_EQ(typed_params(typed_model("synthetic:dtype=float64,wtype=float64")),
            synthetic_params({1, 3, 24, 12}, "float64", "float64"));
}

TEST(Synthetic, OpCounts) {
  std::map<std::string, int> expected = {{"reshape", 2},      {"nn.dense", 2},    {"nn.relu", 2},
                                         {"reshape_like", 2}, {"nn.conv2d", 2},   {"nn.softmax", 2},
                                         {"add", 2},          {"nn.bias_add", 1}, {"nn.batch_norm", 1}};
  EXPECT_EQ(testing::count_ops(typed_model("synthetic")), expected);
}

TEST(Synthetic, BadArgumentsNameTheArgument) {
  EXPECT_THAT(build_error("synthetic:input_shape=1x3x24"), ::testing::HasSubstr("input_shape"));
  EXPECT_THAT(build_error("synthetic:wtype=notatype"), ::testing::HasSubstr("wtype"));
}

TEST(Synthetic, RunsOnTheInterpreterWithTheConstantInitializer) {
  std::vector<double> out = values_of(run_model("synthetic", "constant"));
  ASSERT_EQ(out.size(), 3u * 24 * 12);
  for (double v : out) EXPECT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace weft::model_testing

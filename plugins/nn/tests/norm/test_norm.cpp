// The normalization family: batch_norm, instance_norm, layer_norm,
// group_norm, lrn and l2_normalize against golden values from gen_norm.py
// (NumPy from Relay's definitions, cross-checked with PyTorch), hand-worked
// cases, schemas, and type-relation and attribute errors.
#include <gmock/gmock.h>

#include <cmath>

#include "../op_golden.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

/// Runs every case of `op` in norm.json; returns how many ran.
int check_cases(const std::string& op) {
  return check_golden_cases("norm.json", op, Tolerance{2e-5, 2e-5}, Tolerance{1e-11, 1e-11});
}

std::string type_of(const std::string& op, std::vector<std::vector<int64_t>> shapes, AttrList attrs = {}) {
  std::vector<Type> types;
  for (auto& s : shapes) types.push_back(tensor_type(std::move(s)));
  return infer_op_type(op, types, std::move(attrs));
}

TEST(NormGolden, BatchNormMatchesTorchAndPassesTheMovingStatisticsThrough) {
  EXPECT_EQ(check_cases("nn.batch_norm"), 10);
}
TEST(NormGolden, InstanceNormMatchesTorchOnEachChannelAxis) { EXPECT_EQ(check_cases("nn.instance_norm"), 6); }
TEST(NormGolden, LayerNormMatchesTorchAlongAnyAxis) { EXPECT_EQ(check_cases("nn.layer_norm"), 6); }
TEST(NormGolden, GroupNormMatchesRelaysExpansion) { EXPECT_EQ(check_cases("nn.group_norm"), 8); }
TEST(NormGolden, LrnMatchesTorchInNchwAndNhwc) { EXPECT_EQ(check_cases("nn.lrn"), 6); }
TEST(NormGolden, L2NormalizeMatchesNumpy) { EXPECT_EQ(check_cases("nn.l2_normalize"), 10); }

TEST(NormSchema, OpsCarryTheReferenceAttrsLevelsAndPatterns) {
  for (const char* name : {"nn.batch_norm", "nn.instance_norm", "nn.layer_norm", "nn.group_norm"}) {
    EXPECT_EQ(OpRegistry::global().get(name).support_level, 1) << name;
  }
  EXPECT_EQ(OpRegistry::global().get("nn.batch_norm").pattern, OpPattern::kOutEWiseFusable);
  EXPECT_EQ(OpRegistry::global().get("nn.lrn").support_level, 2);
  EXPECT_EQ(OpRegistry::global().get("nn.lrn").pattern, OpPattern::kOpaque);
  EXPECT_EQ(OpRegistry::global().get("nn.l2_normalize").pattern, OpPattern::kOutEWiseFusable);
  Var x = var("x", tensor_type({2, 3}));
  Call bn = call("nn.batch_norm", {x, x, x, x, x});
  EXPECT_EQ(bn->attrs->at("axis").as_int(), 1);
  EXPECT_EQ(bn->attrs->at("epsilon").as_float(), 1e-5);
  EXPECT_TRUE(bn->attrs->at("center").as_bool());
  EXPECT_EQ(call("nn.layer_norm", {x, x, x})->attrs->at("axis").as_int(), -1);
  Call lrn = call("nn.lrn", {x});
  EXPECT_EQ(lrn->attrs->at("size").as_int(), 5);
  EXPECT_EQ(lrn->attrs->at("alpha").as_float(), 1e-5);
  EXPECT_EQ(lrn->attrs->at("bias").as_float(), 2.0);
  EXPECT_EQ(call("nn.l2_normalize", {x}, {{"eps", 1e-6}, {"axis", 1}})->attrs->at("axis").as_int_list(),
            (std::vector<int64_t>{1}));
  EXPECT_THAT(error_of([&] { call("nn.group_norm", {x, x, x}); }),
              AllOf(HasSubstr("nn.group_norm"), HasSubstr("num_groups")));
  EXPECT_THAT(error_of([&] { call("nn.l2_normalize", {x}); }), AllOf(HasSubstr("nn.l2_normalize"), HasSubstr("eps")));
}

TEST(NormRelation, BatchNormYieldsTheDataAndTwoChannelVectors) {
  EXPECT_EQ(type_of("nn.batch_norm", {{2, 3, 4}, {3}, {3}, {3}, {3}}),
            "(Tensor[(2, 3, 4), float32], Tensor[(3), float32], Tensor[(3), float32])");
  EXPECT_EQ(type_of("nn.batch_norm", {{2, 3, 4}, {4}, {4}, {4}, {4}}, {{"axis", -1}}),
            "(Tensor[(2, 3, 4), float32], Tensor[(4), float32], Tensor[(4), float32])");
}

TEST(NormRelation, ChannelParametersMustMatchTheAxis) {
  EXPECT_THAT(error_of([] { type_of("nn.batch_norm", {{2, 3, 4}, {3}, {3}, {4}, {3}}); }),
              AllOf(HasSubstr("nn.batch_norm"), HasSubstr("moving_mean Tensor[(4), float32]"),
                    HasSubstr("data Tensor[(2, 3, 4), float32]"), HasSubstr("Tensor[(3), float32]")));
  EXPECT_THAT(error_of([] { type_of("nn.layer_norm", {{2, 3, 4}, {3}, {4}}); }),
              AllOf(HasSubstr("nn.layer_norm"), HasSubstr("gamma Tensor[(3), float32]"), HasSubstr("axis 2")));
  EXPECT_THAT(error_of([] { type_of("nn.instance_norm", {{2, 3, 4}, {3, 1}, {3}}); }),
              AllOf(HasSubstr("nn.instance_norm"), HasSubstr("gamma Tensor[(3, 1), float32]")));
  EXPECT_THAT(error_of([] {
                infer_op_type("nn.group_norm",
                              {tensor_type({2, 4}), tensor_type({4}), tensor_type({4}, DataType::Float(64))},
                              {{"num_groups", 2}});
              }),
              AllOf(HasSubstr("nn.group_norm"), HasSubstr("beta Tensor[(4), float64]")));
}

TEST(NormRelation, AxesOutOfRangeAreErrors) {
  // batch_norm accepts -1 but no other negative axis, as Relay's BatchNormRel.
  EXPECT_THAT(error_of([] { type_of("nn.batch_norm", {{2, 3}, {3}, {3}, {3}, {3}}, {{"axis", -2}}); }),
              AllOf(HasSubstr("nn.batch_norm"), HasSubstr("axis -2 is out of range"),
                    HasSubstr("Tensor[(2, 3), float32]")));
  EXPECT_THAT(error_of([] { type_of("nn.batch_norm", {{2, 3}, {3}, {3}, {3}, {3}}, {{"axis", 2}}); }),
              HasSubstr("axis 2 is out of range"));
  EXPECT_THAT(error_of([] { type_of("nn.layer_norm", {{2, 3}, {3}, {3}}, {{"axis", -3}}); }),
              AllOf(HasSubstr("nn.layer_norm"), HasSubstr("axis -3 is out of range"), HasSubstr("[-2, 2)")));
  EXPECT_THAT(error_of([] { type_of("nn.instance_norm", {{2, 3}, {3}, {3}}); }),
              AllOf(HasSubstr("nn.instance_norm"), HasSubstr("at least 3 dimensions")));
  AttrList axis2 = {{"eps", 1e-6}, {"axis", std::vector<int64_t>{2}}};
  EXPECT_THAT(error_of([&] { type_of("nn.l2_normalize", {{2, 3}}, axis2); }),
              AllOf(HasSubstr("nn.l2_normalize"), HasSubstr("axis 2 is out of range")));
}

TEST(NormRelation, GroupsMustDivideTheChannels) {
  EXPECT_EQ(type_of("nn.group_norm", {{2, 6, 3}, {6}, {6}}, {{"num_groups", 3}}), "Tensor[(2, 6, 3), float32]");
  EXPECT_THAT(error_of([] { type_of("nn.group_norm", {{2, 6, 3}, {6}, {6}}, {{"num_groups", 4}}); }),
              AllOf(HasSubstr("nn.group_norm"), HasSubstr("num_groups 4"), HasSubstr("6 channels")));
}

TEST(NormRelation, LrnTakesFourDimensionsAnOddSizeAndAxis1Or3) {
  EXPECT_EQ(type_of("nn.lrn", {{1, 4, 2, 2}}, {{"axis", 3}}), "Tensor[(1, 4, 2, 2), float32]");
  EXPECT_THAT(error_of([] { type_of("nn.lrn", {{1, 4, 2}}); }),
              AllOf(HasSubstr("nn.lrn"), HasSubstr("Tensor[(1, 4, 2), float32] must have 4 dimensions")));
  EXPECT_THAT(error_of([] { type_of("nn.lrn", {{1, 4, 2, 2}}, {{"size", 4}}); }), HasSubstr("odd"));
  EXPECT_THAT(error_of([] { type_of("nn.lrn", {{1, 4, 2, 2}}, {{"axis", 2}}); }), HasSubstr("must be 1 (NCHW) or 3"));
}

TEST(NormKernel, BatchNormByHand) {
  // Channel c of x: (x - mean) / sqrt(var + eps) * gamma + beta with eps = 0.
  Tensor x = tensor_of({1, 3, 10, 20}, {1, 2, 2}, f64);
  Value y = run_op("nn.batch_norm",
                   {x, tensor_of({2, 1}, {2}, f64), tensor_of({0, 5}, {2}, f64), tensor_of({1, 10}, {2}, f64), tensor_of({4, 25}, {2}, f64)},
                   {{"epsilon", 0.0}});
  ASSERT_TRUE(y.is_tuple());
  EXPECT_THAT(elements(y.fields()[0].tensor()), ElementsAre(0, 2, 5, 7));
  EXPECT_THAT(elements(y.fields()[1].tensor()), ElementsAre(1, 10));
  EXPECT_THAT(elements(y.fields()[2].tensor()), ElementsAre(4, 25));
}

TEST(NormKernel, LayerNormByHand) {
  // Rows [1, 3] and [2, 6]: mean 2 and 4, biased variance 1 and 4.
  Tensor x = tensor_of({1, 3, 2, 6}, {2, 2}, f64);
  Tensor ones = tensor_of({1, 1}, {2}, f64), zeros = tensor_of({0, 0}, {2}, f64);
  EXPECT_THAT(elements(run_op("nn.layer_norm", {x, ones, zeros}, {{"epsilon", 0.0}}).tensor()),
              ElementsAre(-1, 1, -1, 1));
}

TEST(NormKernel, L2NormalizeFloorsTheSumOfSquaresAtEps) {
  Tensor x = tensor_of({3, 4}, {1, 2}, f64);
  EXPECT_THAT(elements(run_op("nn.l2_normalize", {x}, {{"eps", 1e-12}}).tensor()),
              ElementsAre(DoubleNear(0.6, 1e-15), DoubleNear(0.8, 1e-15)));
  EXPECT_THAT(elements(run_op("nn.l2_normalize", {x}, {{"eps", 100.0}}).tensor()), ElementsAre(0.3, 0.4));
}

}  // namespace
}  // namespace weft::testing

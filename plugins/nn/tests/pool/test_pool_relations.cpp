// The pooling family's schemas, type relations and errors, and small
// hand-worked kernel cases that pin TVM's conventions (ceil_mode windows in
// the tail padding, count_include_pad, first-max gradients).
#include <gmock/gmock.h>

#include <limits>

#include "support/op_test.h"

namespace weft::testing {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string type_of(const std::string& op, std::vector<int64_t> shape, AttrList attrs = {}) {
  return infer_op_type(op, {tensor_type(std::move(shape))}, std::move(attrs));
}

const AttrValue& attr_of(const Call& c, const std::string& name) { return c->attrs->at(name); }

TEST(PoolSchema, OpsAreRegisteredWithTheReferenceLevelsAndPattern) {
  for (const char* name : {"nn.max_pool1d", "nn.max_pool2d", "nn.max_pool3d", "nn.avg_pool1d", "nn.avg_pool2d",
                           "nn.avg_pool3d", "nn.global_max_pool2d", "nn.global_avg_pool2d", "nn.max_pool2d_grad",
                           "nn.avg_pool2d_grad"}) {
    const OpDef& op = OpRegistry::global().get(name);
    EXPECT_EQ(op.plugin, "nn") << name;
    EXPECT_EQ(op.support_level, 2) << name;
    EXPECT_EQ(op.pattern, OpPattern::kOutEWiseFusable) << name;
    EXPECT_FALSE(op.description.empty()) << name;
  }
  for (const char* name : {"nn.adaptive_max_pool1d", "nn.adaptive_max_pool2d", "nn.adaptive_max_pool3d",
                           "nn.adaptive_avg_pool1d", "nn.adaptive_avg_pool2d", "nn.adaptive_avg_pool3d"}) {
    EXPECT_EQ(OpRegistry::global().get(name).support_level, 10) << name;
  }
}

TEST(PoolSchema, DefaultsFollowRelayNnPy) {
  Var x = var("x", tensor_type({1, 1, 4, 4}));
  Call c = call("nn.avg_pool2d", {x});
  EXPECT_EQ(attr_of(c, "pool_size").as_int_list(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(attr_of(c, "strides").as_int_list(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(attr_of(c, "dilation").as_int_list(), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(attr_of(c, "padding").as_int_list(), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(attr_of(c, "layout").as_string(), "NCHW");
  EXPECT_EQ(attr_of(c, "out_layout").as_string(), "");
  EXPECT_FALSE(attr_of(c, "ceil_mode").as_bool());
  EXPECT_FALSE(attr_of(c, "count_include_pad").as_bool());
  EXPECT_TRUE(attr_of(call("nn.adaptive_avg_pool2d", {x}), "output_size").is_none());
}

TEST(PoolSchema, IntsAndPaddingFormsNormalizeLikeGetPadTuple) {
  Var x2 = var("x", tensor_type({1, 1, 8, 8}));
  EXPECT_EQ(attr_of(call("nn.max_pool2d", {x2}, {{"pool_size", 3}, {"strides", 2}}), "strides").as_int_list(),
            (std::vector<int64_t>{2, 2}));
  auto padding2d = [&](AttrValue p) { return attr_of(call("nn.max_pool2d", {x2}, {{"padding", p}}), "padding"); };
  EXPECT_EQ(padding2d(1).as_int_list(), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(padding2d(std::vector<int64_t>{1, 2}).as_int_list(), (std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(padding2d(std::vector<int64_t>{1, 2, 3, 4}).as_int_list(), (std::vector<int64_t>{1, 2, 3, 4}));
  Var x1 = var("x", tensor_type({1, 1, 8}));
  EXPECT_EQ(attr_of(call("nn.avg_pool1d", {x1}, {{"padding", 2}}), "padding").as_int_list(),
            (std::vector<int64_t>{2, 2}));
  Var x3 = var("x", tensor_type({1, 1, 4, 4, 4}));
  EXPECT_EQ(attr_of(call("nn.max_pool3d", {x3}, {{"padding", std::vector<int64_t>{1, 2, 3}}}), "padding").as_int_list(),
            (std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(attr_of(call("nn.adaptive_avg_pool2d", {x2}, {{"output_size", 3}}), "output_size").as_int_list(),
            (std::vector<int64_t>{3}));
}

TEST(PoolSchema, MalformedWindowAttrsAreRejectedNamingTheAttr) {
  Var x = var("x", tensor_type({1, 1, 8, 8}));
  EXPECT_THAT(error_of([&] { call("nn.max_pool2d", {x}, {{"padding", std::vector<int64_t>{1, 2, 3}}}); }),
              AllOf(HasSubstr("nn.max_pool2d"), HasSubstr("padding"), HasSubstr("1, 2 or 4")));
  EXPECT_THAT(error_of([&] { call("nn.avg_pool2d", {x}, {{"pool_size", 0}}); }),
              AllOf(HasSubstr("nn.avg_pool2d"), HasSubstr("pool_size")));
  EXPECT_THAT(error_of([&] { call("nn.max_pool2d", {x}, {{"strides", std::vector<int64_t>{1, 1, 1}}}); }),
              AllOf(HasSubstr("strides"), HasSubstr("an int or 2 ints")));
  EXPECT_THAT(error_of([&] { call("nn.adaptive_max_pool2d", {x}, {{"output_size", std::vector<int64_t>{1, 2, 3}}}); }),
              AllOf(HasSubstr("nn.adaptive_max_pool2d"), HasSubstr("output_size")));
}

TEST(PoolRelation, OutputExtentsFollowRelaysPoolDimension) {
  EXPECT_EQ(type_of("nn.max_pool2d", {1, 3, 7, 7}, {{"pool_size", 3}, {"strides", 2}, {"padding", 1}}),
            "Tensor[(1, 3, 4, 4), float32]");
  EXPECT_EQ(type_of("nn.avg_pool2d", {1, 7, 7, 3}, {{"pool_size", 3}, {"strides", 2}, {"layout", "NHWC"}}),
            "Tensor[(1, 3, 3, 3), float32]");
  EXPECT_EQ(type_of("nn.max_pool2d", {1, 1, 7, 7}, {{"pool_size", 3}, {"dilation", 2}}),
            "Tensor[(1, 1, 3, 3), float32]");
  EXPECT_EQ(type_of("nn.max_pool1d", {2, 9, 4}, {{"pool_size", 2}, {"strides", 2}, {"layout", "NWC"}}),
            "Tensor[(2, 4, 4), float32]");
  EXPECT_EQ(type_of("nn.avg_pool3d", {1, 2, 5, 6, 7}, {{"pool_size", 2}, {"strides", 2}, {"ceil_mode", true}}),
            "Tensor[(1, 2, 3, 3, 4), float32]");
  // A blocked layout pools H and W and keeps the channel block.
  EXPECT_EQ(type_of("nn.max_pool2d", {1, 2, 6, 6, 4}, {{"pool_size", 2}, {"strides", 2}, {"layout", "NCHW4c"}}),
            "Tensor[(1, 2, 3, 3, 4), float32]");
  EXPECT_EQ(type_of("nn.max_pool2d", {1, 3, kAnyDim, 8}, {{"pool_size", 2}, {"strides", 2}}),
            "Tensor[(1, 3, ?, 4), float32]");
}

TEST(PoolRelation, CeilModeLetsTheLastWindowStartInTheTailPadding) {
  // TVM: ceil((3 + 2 - 2) / 2) + 1 = 3 rows; PyTorch would drop the third.
  AttrList a = {{"pool_size", 2}, {"strides", 2}, {"padding", 1}, {"ceil_mode", true}};
  EXPECT_EQ(type_of("nn.max_pool2d", {1, 1, 3, 4}, a),
            "Tensor[(1, 1, 3, 3), float32]");
}

TEST(PoolRelation, AdaptiveAndGlobalPoolsTakeTheirExtents) {
  EXPECT_EQ(type_of("nn.global_avg_pool2d", {2, 3, 5, 7}), "Tensor[(2, 3, 1, 1), float32]");
  EXPECT_EQ(type_of("nn.global_max_pool2d", {2, 5, 7, 3}, {{"layout", "NHWC"}}), "Tensor[(2, 1, 1, 3), float32]");
  EXPECT_EQ(type_of("nn.adaptive_avg_pool2d", {1, 3, 9, 9}, {{"output_size", std::vector<AttrValue>{AttrValue(), 4}}}),
            "Tensor[(1, 3, 9, 4), float32]");
  EXPECT_EQ(type_of("nn.adaptive_max_pool2d", {1, 3, 9, 8}), "Tensor[(1, 3, 9, 8), float32]");
  EXPECT_EQ(type_of("nn.adaptive_max_pool3d", {1, 3, 4, 5, 6}, {{"output_size", 2}}),
            "Tensor[(1, 3, 2, 2, 2), float32]");
  EXPECT_EQ(type_of("nn.adaptive_avg_pool1d", {1, 6, 3}, {{"output_size", 2}, {"layout", "NWC"}}),
            "Tensor[(1, 2, 3), float32]");
}

TEST(PoolRelation, WindowLargerThanThePaddedInputIsAnError) {
  EXPECT_THAT(error_of([] { type_of("nn.max_pool2d", {1, 1, 2, 5}, {{"pool_size", 3}}); }),
              AllOf(HasSubstr("nn.max_pool2d"), HasSubstr("Tensor[(1, 1, 2, 5), float32]"), HasSubstr("along H"),
                    HasSubstr("spans 3"), HasSubstr("padded input has 2")));
  // ceil_mode's extra tail padding (strides - 1) counts: 2 + 1 fits a window of 3, 2 + 0 does not.
  EXPECT_EQ(type_of("nn.max_pool1d", {1, 1, 2}, {{"pool_size", 3}, {"strides", 2}, {"ceil_mode", true}}),
            "Tensor[(1, 1, 1), float32]");
  EXPECT_THAT(error_of([] { type_of("nn.max_pool1d", {1, 1, 2}, {{"pool_size", 3}, {"ceil_mode", true}}); }),
              AllOf(HasSubstr("spans 3"), HasSubstr("padded input has 2 (2 + padding 0 + 0 + 0 for ceil_mode)")));
  AttrList dilated = {{"pool_size", 3}, {"dilation", 2}};
  EXPECT_THAT(error_of([&] { type_of("nn.avg_pool1d", {1, 1, 4}, dilated); }),
              AllOf(HasSubstr("nn.avg_pool1d"), HasSubstr("spans 5"), HasSubstr("Tensor[(1, 1, 4), float32]")));
}

TEST(PoolRelation, LayoutsMustFitTheDataAndKeepThePooledAxesWhole) {
  EXPECT_THAT(error_of([] { type_of("nn.max_pool2d", {1, 3, 4}); }),
              AllOf(HasSubstr("nn.max_pool2d"), HasSubstr("'NCHW' has 4 axes"),
                    HasSubstr("Tensor[(1, 3, 4), float32]")));
  EXPECT_THAT(error_of([] { type_of("nn.max_pool2d", {1, 3, 4, 4}, {{"layout", "NCDW"}}); }),
              HasSubstr("must have the pooled axes HW"));
  EXPECT_THAT(error_of([] { type_of("nn.avg_pool2d", {1, 3, 4, 4, 2}, {{"layout", "NCHW2w"}}); }),
              HasSubstr("the pooled axis W cannot be split"));
  EXPECT_THAT(error_of([] { type_of("nn.max_pool2d", {1, 3, 4, 4}, {{"out_layout", "NHWC"}}); }),
              AllOf(HasSubstr("out_layout 'NHWC' differs from layout 'NCHW'")));
  EXPECT_EQ(type_of("nn.max_pool2d", {1, 3, 4, 4}, {{"out_layout", "NCHW"}}), "Tensor[(1, 3, 4, 4), float32]");
}

TEST(PoolRelation, GradientsTakeTheDataTypeAndCheckOutGrad) {
  Type x = tensor_type({1, 2, 6, 6});
  AttrList a = {{"pool_size", 2}, {"strides", 2}};
  EXPECT_EQ(infer_op_type("nn.max_pool2d_grad", {tensor_type({1, 2, 3, 3}), x}, a), "Tensor[(1, 2, 6, 6), float32]");
  EXPECT_THAT(error_of([&] { infer_op_type("nn.avg_pool2d_grad", {tensor_type({1, 2, 4, 3}), x}, a); }),
              AllOf(HasSubstr("nn.avg_pool2d_grad"), HasSubstr("out_grad Tensor[(1, 2, 4, 3), float32]"),
                    HasSubstr("expected shape (1, 2, 3, 3)")));
  EXPECT_THAT(error_of([&] {
                infer_op_type("nn.max_pool2d_grad", {tensor_type({1, 2, 2, 2}), x},
                              {{"pool_size", 2}, {"strides", 2}, {"dilation", 2}});
              }),
              HasSubstr("dilation must be 1"));
}

TEST(PoolKernel, MaxPoolTakesEachWindowsLargest) {
  Tensor x = tensor_of({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {1, 1, 4, 4});
  Value y = run_op("nn.max_pool2d", {x}, {{"pool_size", 2}, {"strides", 2}});
  EXPECT_THAT(elements(y.tensor()), ElementsAre(5, 7, 13, 15));
}

TEST(PoolKernel, AvgPoolDivisorCountsPaddingOnlyWhenAsked) {
  Tensor ones = tensor_of(std::vector<double>(9, 1.0), {1, 1, 3, 3}, f64);
  AttrList a = {{"pool_size", 3}, {"padding", 1}};
  EXPECT_THAT(elements(run_op("nn.avg_pool2d", {ones}, a).tensor()), ElementsAre(1, 1, 1, 1, 1, 1, 1, 1, 1));
  a.emplace_back("count_include_pad", true);
  const double c = 4.0 / 9, e = 6.0 / 9;
  EXPECT_THAT(elements(run_op("nn.avg_pool2d", {ones}, a).tensor()), ElementsAre(c, e, c, e, 1, e, c, e, c));
}

TEST(PoolKernel, CeilModeWindowInThePaddingFollowsTopi) {
  // [P, 1, 2, 3, P] plus one more tail element for ceil_mode; windows start at 0, 2 and 4.
  Tensor x = tensor_of({1, 2, 3}, {1, 1, 3});
  AttrList a = {{"pool_size", 2}, {"strides", 2}, {"padding", 1}, {"ceil_mode", true}};
  EXPECT_THAT(elements(run_op("nn.max_pool1d", {x}, a).tensor()),
              ElementsAre(1, 3, std::numeric_limits<float>::lowest()));
  // Without padding counted the first window divides 1 by 1, and the last (no data) 0 by max(0, 1);
  // with it they divide by 2 and by 1 (the padded input, less the ceil extension).
  EXPECT_THAT(elements(run_op("nn.avg_pool1d", {x}, a).tensor()), ElementsAre(1, 2.5, 0));
  a.emplace_back("count_include_pad", true);
  EXPECT_THAT(elements(run_op("nn.avg_pool1d", {x}, a).tensor()), ElementsAre(0.5, 2.5, 0));
}

TEST(PoolKernel, AdaptiveWindowsSpanFloorToCeil) {
  Tensor x = tensor_of({1, 2, 3, 4, 5}, {1, 1, 5}, f64);
  // Windows [0, 2), [1, 4), [3, 5).
  EXPECT_THAT(elements(run_op("nn.adaptive_avg_pool1d", {x}, {{"output_size", 3}}).tensor()),
              ElementsAre(1.5, 3, 4.5));
  EXPECT_THAT(elements(run_op("nn.adaptive_max_pool1d", {x}, {{"output_size", 3}}).tensor()), ElementsAre(2, 4, 5));
}

TEST(PoolKernel, MaxPoolGradientGoesToTheFirstLargest) {
  AttrList a = {{"pool_size", 2}, {"strides", 2}};
  Tensor g = tensor_of({10}, {1, 1, 1, 1});
  EXPECT_THAT(elements(run_op("nn.max_pool2d_grad", {g, tensor_of({1, 4, 3, 2}, {1, 1, 2, 2})}, a).tensor()),
              ElementsAre(0, 10, 0, 0));
  EXPECT_THAT(elements(run_op("nn.max_pool2d_grad", {g, tensor_of({5, 5, 5, 5}, {1, 1, 2, 2})}, a).tensor()),
              ElementsAre(10, 0, 0, 0));
}

TEST(PoolGradient, Pool2dGradientsAreThePoolGradOpsWithTheSameWindow) {
  Var x = var("x", tensor_type({1, 1, 5, 5}));
  Var g = var("g", tensor_type({1, 1, 3, 3}));
  for (const std::string name : {"nn.max_pool2d", "nn.avg_pool2d"}) {
    AttrList a = {{"pool_size", 3}, {"strides", 2}, {"padding", 1}};
    if (name == "nn.avg_pool2d") a.emplace_back("count_include_pad", true);
    std::vector<Expr> grads = OpRegistry::global().get(name).gradient(call(name, {x}, a), g);
    ASSERT_EQ(grads.size(), 1u) << name;
    auto c = grads[0].as<CallNode>();
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->op.as<OpNode>()->name(), name + "_grad");
    EXPECT_TRUE(c->args.at(0).same_as(g));
    EXPECT_TRUE(c->args.at(1).same_as(x));
    EXPECT_EQ(c->attrs->at("padding").as_int_list(), (std::vector<int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(c->attrs->at("strides").as_int_list(), (std::vector<int64_t>{2, 2}));
    if (name == "nn.avg_pool2d") {
      EXPECT_TRUE(c->attrs->at("count_include_pad").as_bool());
    }
  }
  EXPECT_TRUE(OpRegistry::global().get("nn.max_pool3d").gradient);  // built from window matrices, no grad op
}

TEST(PoolKernel, OtherDtypesAreRefusedByTheKernelNotTheRelation) {
  Tensor x = Tensor::zeros({1, 1, 2, 2}, DataType::Int(32));
  EXPECT_EQ(infer_op_type("nn.max_pool2d", {tensor_type({1, 1, 2, 2}, DataType::Int(32))}),
            "Tensor[(1, 1, 2, 2), int32]");
  EXPECT_THAT(error_of([&] { run_op("nn.max_pool2d", {x}); }),
              AllOf(HasSubstr("nn.max_pool2d"), HasSubstr("float32 or float64"), HasSubstr("int32")));
}

}  // namespace
}  // namespace weft::testing

// nn.conv1d, nn.conv2d, nn.conv3d against golden values from gen_conv.py
// (PyTorch, layouts by transposition), hand-worked cases, the attribute
// normalization of Relay's nn.py, and type-relation errors.
#include <gmock/gmock.h>

#include "../op_golden.h"

namespace weft::testing::conv {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(NnConv, Conv2dMatchesTorchInEveryLayoutGroupingAndDtype) {
  EXPECT_EQ(check_golden_cases("conv.json", "nn.conv2d", 1e-5, 1e-5), 27);
}

TEST(NnConv, Conv1dMatchesTorchInNcwAndNwc) {
  EXPECT_EQ(check_golden_cases("conv.json", "nn.conv1d", 1e-5, 1e-5), 7);
}

TEST(NnConv, Conv3dMatchesTorchInNcdhwAndNdhwc) {
  EXPECT_EQ(check_golden_cases("conv.json", "nn.conv3d", 1e-5, 1e-5), 6);
}

TEST(NnConv, GroupedDilatedStridedConv1dAndConv3dMatchNumPy) {
  // gen_conv_windows.py: groups, dilation, strides and asymmetric padding at once.
  EXPECT_EQ(check_golden_cases("conv_windows.json", "nn.conv1d", 1e-5, 1e-5), 2);
  EXPECT_EQ(check_golden_cases("conv_windows.json", "nn.conv3d", 1e-5, 1e-5), 1);
}

TEST(NnConv, HandWorkedConv2dSumsEachWindow) {
  Tensor x = tensor_of({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 1, 3, 3});
  Tensor w = tensor_of({1, 1, 1, 1}, {1, 1, 2, 2});
  expect_close(run_op("nn.conv2d", {x, w}).tensor(), tensor_json({12, 16, 24, 28}, {1, 1, 2, 2}));
  // Padding 1 and stride 2: windows start at -1 and 1 on each axis.
  Value padded = run_op("nn.conv2d", {x, w}, {{"padding", 1}, {"strides", 2}});
  expect_close(padded.tensor(), tensor_json({1, 5, 11, 28}, {1, 1, 2, 2}));
}

TEST(NnConv, HandWorkedInt8ConvAccumulatesInInt32) {
  Tensor x = tensor_of({100, 100, 100}, {1, 1, 3}, DataType::Int(8));
  Tensor w = tensor_of({100, 100}, {1, 1, 2}, DataType::Int(8));
  Value out = run_op("nn.conv1d", {x, w}, {{"out_dtype", "int32"}});
  expect_close(out.tensor(), tensor_json({20000, 20000}, {1, 1, 2}, DataType::Int(32)), 0, 0);
}

TEST(NnConv, Conv2dOutputShapesFollowTheReference) {
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 3, 224, 224}), tensor_type({64, 3, 7, 7})},
                          {{"strides", 2}, {"padding", 3}}),
            "Tensor[(1, 64, 112, 112), float32]");
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 224, 224, 3}), tensor_type({3, 3, 3, 16})},
                          {{"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}, {"padding", 1}}),
            "Tensor[(1, 224, 224, 16), float32]");
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 3, 8, 8}), tensor_type({4, 3, 3, 3})},
                          {{"out_layout", "NHWC"}, {"padding", std::vector<int64_t>{0, 1, 2, 1}}}),
            "Tensor[(1, 8, 8, 4), float32]");
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 32, 8, 8}), tensor_type({32, 1, 3, 3})},
                          {{"groups", 32}, {"dilation", 2}}),
            "Tensor[(1, 32, 4, 4), float32]");
}

TEST(NnConv, Conv2dInt8InputsTakeOutDtype) {
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 3, 4, 4}, DataType::Int(8)),
                                        tensor_type({2, 3, 3, 3}, DataType::Int(8))},
                          {{"out_dtype", "int32"}}),
            "Tensor[(1, 2, 2, 2), int32]");
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 3, 4, 4}, DataType::UInt(8)),
                                        tensor_type({2, 3, 3, 3}, DataType::Int(8))}),
            "Tensor[(1, 2, 2, 2), uint8]");
}

TEST(NnConv, BlockedLayoutsSplitChannels) {
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 2, 8, 8, 8}), tensor_type({4, 2, 3, 3, 8, 8})},
                          {{"data_layout", "NCHW8c"}, {"kernel_layout", "OIHW8i8o"}, {"padding", 1}}),
            "Tensor[(1, 4, 8, 8, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({1, 16, 8, 8}), tensor_type({32, 16, 1, 1})},
                          {{"out_layout", "NCHW16c"}}),
            "Tensor[(1, 2, 8, 8, 16), float32]");
}

TEST(NnConv, DynamicDimsStayDynamic) {
  EXPECT_EQ(infer_op_type("nn.conv2d", {tensor_type({kAnyDim, 3, kAnyDim, 32}), tensor_type({8, 3, 3, 3})}),
            "Tensor[(?, 8, ?, 30), float32]");
}

TEST(NnConv, Conv1dAndConv3dShapes) {
  EXPECT_EQ(infer_op_type("nn.conv1d", {tensor_type({2, 16, 3}), tensor_type({3, 3, 8})},
                          {{"data_layout", "NWC"}, {"kernel_layout", "WIO"}, {"padding", 1}}),
            "Tensor[(2, 16, 8), float32]");
  EXPECT_EQ(infer_op_type("nn.conv3d", {tensor_type({1, 4, 8, 8, 8}, f64), tensor_type({6, 2, 3, 3, 3}, f64)},
                          {{"groups", 2}, {"strides", std::vector<int64_t>{1, 2, 2}}}),
            "Tensor[(1, 6, 6, 3, 3), float64]");
}

TEST(NnConv, AttributesAreNormalizedAsRelayNnPyDoes) {
  Var x = var("x", tensor_type({1, 3, 8, 8})), w = var("w", tensor_type({4, 3, 3, 3}));
  Call c = call("nn.conv2d", {x, w}, {{"padding", std::vector<int64_t>{1, 2}}, {"strides", 2}, {"kernel_size", 3}});
  EXPECT_EQ(c->attrs->at("padding"), AttrValue(std::vector<int64_t>{1, 2, 1, 2}));
  EXPECT_EQ(c->attrs->at("strides"), AttrValue(std::vector<int64_t>{2, 2}));
  EXPECT_EQ(c->attrs->at("kernel_size"), AttrValue(std::vector<int64_t>{3, 3}));
  EXPECT_EQ(c->attrs->at("dilation"), AttrValue(std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(c->attrs->at("channels").is_none());
  EXPECT_EQ(c->attrs->at("out_layout"), AttrValue(""));
  Call one = call("nn.conv2d", {x, w}, {{"padding", 1}});
  EXPECT_EQ(one->attrs->at("padding"), AttrValue(std::vector<int64_t>{1, 1, 1, 1}));
  Var x1 = var("x", tensor_type({1, 3, 8})), w1 = var("w", tensor_type({4, 3, 3}));
  EXPECT_EQ(call("nn.conv1d", {x1, w1}, {{"padding", 2}})->attrs->at("padding"),
            AttrValue(std::vector<int64_t>{2, 2}));
  Var x3 = var("x", tensor_type({1, 3, 8, 8, 8})), w3 = var("w", tensor_type({4, 3, 3, 3, 3}));
  EXPECT_EQ(call("nn.conv3d", {x3, w3}, {{"padding", std::vector<int64_t>{1, 2, 3}}})->attrs->at("padding"),
            AttrValue(std::vector<int64_t>{1, 2, 3, 1, 2, 3}));
}

TEST(NnConv, MalformedAttributesNameTheOpAndAttr) {
  Var x = var("x", tensor_type({1, 3, 8, 8})), w = var("w", tensor_type({4, 3, 3, 3}));
  auto error = [&](AttrList attrs) {
    try {
      call("nn.conv2d", {x, w}, std::move(attrs));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    ADD_FAILURE() << "expected an attribute error";
    return std::string();
  };
  EXPECT_THAT(error({{"padding", std::vector<int64_t>{1, 2, 3}}}), AllOf(HasSubstr("nn.conv2d"), HasSubstr("padding")));
  EXPECT_THAT(error({{"strides", 0}}), AllOf(HasSubstr("nn.conv2d"), HasSubstr("strides")));
  EXPECT_THAT(error({{"dilation", std::vector<int64_t>{1, 1, 1}}}), AllOf(HasSubstr("nn.conv2d"), HasSubstr("dilation")));
  EXPECT_THAT(error({{"kernel_size", "3x3"}}), AllOf(HasSubstr("nn.conv2d"), HasSubstr("kernel_size")));
  EXPECT_THAT(error({{"out_dtype", "fp32"}}), AllOf(HasSubstr("nn.conv2d"), HasSubstr("out_dtype")));
  EXPECT_THAT(error({{"stride", 2}}), AllOf(HasSubstr("nn.conv2d"), HasSubstr("stride")));
}

TEST(NnConv, ChannelsAttrThatDisagreesWithTheWeightNamesShapes) {
  std::string msg = type_error("nn.conv2d", {tensor_type({1, 3, 8, 8}), tensor_type({4, 3, 3, 3})}, {{"channels", 8}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("channels=8"), HasSubstr("(4, 3, 3, 3)"),
                         HasSubstr("(1, 3, 8, 8)")));
  // With kernel_size too, the weight must be the shape the attrs imply (Relay assigns it).
  msg = type_error("nn.conv2d", {tensor_type({1, 3, 8, 8}), tensor_type({4, 3, 3, 3})},
                   {{"channels", 8}, {"kernel_size", 3}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("(8, 3, 3, 3)"), HasSubstr("(4, 3, 3, 3)")));
  msg = type_error("nn.conv2d", {tensor_type({1, 3, 8, 8}), tensor_type({4, 3, 3, 3})}, {{"kernel_size", 5}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("kernel_size=(5, 5)"), HasSubstr("(4, 3, 3, 3)")));
}

TEST(NnConv, DataChannelsThatDisagreeWithTheWeightNameShapes) {
  std::string msg = type_error("nn.conv2d", {tensor_type({1, 3, 8, 8}), tensor_type({4, 5, 3, 3})});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("input channels (3)"), HasSubstr("(4, 5, 3, 3)"),
                         HasSubstr("(1, 3, 8, 8)")));
  msg = type_error("nn.conv2d", {tensor_type({1, 8, 8, 3}), tensor_type({3, 3, 4, 4})},
                   {{"data_layout", "NHWC"}, {"kernel_layout", "HWIO"}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("(1, 8, 8, 3)"), HasSubstr("NHWC"), HasSubstr("HWIO")));
  msg = type_error("nn.conv1d", {tensor_type({1, 2, 8}), tensor_type({4, 3, 3})});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv1d"), HasSubstr("(4, 3, 3)")));
}

TEST(NnConv, GroupsThatDoNotDivideChannelsAreRejected) {
  std::string msg = type_error("nn.conv2d", {tensor_type({1, 6, 8, 8}), tensor_type({4, 1, 3, 3})}, {{"groups", 4}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("groups=4"), HasSubstr("6 input channels")));
  msg = type_error("nn.conv2d", {tensor_type({1, 4, 8, 8}), tensor_type({6, 1, 3, 3})}, {{"groups", 4}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("groups=4"), HasSubstr("6 output channels")));
  msg = type_error("nn.conv3d", {tensor_type({1, 4, 4, 4, 4}), tensor_type({4, 2, 1, 1, 1})}, {{"groups", 0}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv3d"), HasSubstr("groups")));
}

TEST(NnConv, BadLayoutStringsAreRejected) {
  auto layout_error = [](const std::string& attr, const std::string& layout) {
    return type_error("nn.conv2d", {tensor_type({1, 3, 8, 8}), tensor_type({4, 3, 3, 3})}, {{attr, layout}});
  };
  EXPECT_THAT(layout_error("data_layout", "NCHX"),
              AllOf(HasSubstr("nn.conv2d"), HasSubstr("data_layout 'NCHX'"), HasSubstr("NCHW")));
  EXPECT_THAT(layout_error("data_layout", "NCHWW"), AllOf(HasSubstr("nn.conv2d"), HasSubstr("appears twice")));
  EXPECT_THAT(layout_error("kernel_layout", "OIH"), AllOf(HasSubstr("kernel_layout 'OIH'"), HasSubstr("missing")));
  EXPECT_THAT(layout_error("kernel_layout", "OIHWo"), AllOf(HasSubstr("kernel_layout"), HasSubstr("block size")));
  EXPECT_THAT(layout_error("out_layout", "NCHW3c"), AllOf(HasSubstr("nn.conv2d"), HasSubstr("NCHW3c")));
  EXPECT_THAT(layout_error("out_layout", "NCDHW"), AllOf(HasSubstr("out_layout 'NCDHW'"), HasSubstr("'D'")));
  // A well-formed layout whose rank is not the data's.
  std::string msg = type_error("nn.conv2d", {tensor_type({1, 3, 8, 8}), tensor_type({4, 3, 3, 3})},
                               {{"data_layout", "NCHW4c"}});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("rank"), HasSubstr("(1, 3, 8, 8)")));
}

TEST(NnConv, KernelLargerThanThePaddedInputIsAnError) {
  std::string msg = type_error("nn.conv2d", {tensor_type({1, 3, 4, 4}), tensor_type({4, 3, 5, 5})});
  EXPECT_THAT(msg, AllOf(HasSubstr("nn.conv2d"), HasSubstr("larger than the padded input")));
}

TEST(NnConv, WrongArgumentCountOrRankIsAnError) {
  EXPECT_THAT(type_error("nn.conv2d", {tensor_type({1, 3, 4, 4}), tensor_type({4, 3, 3})}),
              AllOf(HasSubstr("nn.conv2d"), HasSubstr("weight"), HasSubstr("rank")));
}

}  // namespace
}  // namespace weft::testing::conv

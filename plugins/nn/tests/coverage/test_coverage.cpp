// Layout and dtype combinations the family golden files lacked, against
// gen_coverage.py's oracles (PyTorch convs and adaptive max pooling, NumPy
// layouts): conv2d in every kernel layout beside NCHW and NHWC data in both
// float dtypes; conv1d/conv3d with mixed channel order and WOI/OWI,
// DHWOI/ODHWI kernels; transposed convs with OIHW-family and channel-last
// kernels; int8/uint8 with int32 accumulation for conv1d, conv3d, the
// transposed convs, the NCHWc convs and batch_matmul; contrib_dense_pack's
// NC4n4c weight in floats; adaptive max pooling channel-last.
#include <gtest/gtest.h>

#include "../op_golden.h"

namespace weft::testing {
namespace {

TEST(NnCoverage, Conv2dEveryKernelLayoutBothDataLayoutsBothFloats) {
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.conv2d", 1e-5, 1e-5), 20);
}

TEST(NnCoverage, Conv1dAndConv3dMixedChannelOrder) {
  // WIO/OIW, WOI/OWI kernels in both floats, and one uint8 -> int32.
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.conv1d", 1e-5, 1e-5), 9);
  // DHWIO/OIDHW, DHWOI/ODHWI kernels in both floats, and one int8 -> int32.
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.conv3d", 1e-5, 1e-5), 9);
}

TEST(NnCoverage, TransposedConvsWithOutputFirstAndChannelLastKernels) {
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.conv1d_transpose", 1e-5, 1e-5), 5);  // one int8 -> int32
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.conv2d_transpose", 1e-5, 1e-5), 5);  // one int8 -> int32
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.conv3d_transpose", 1e-5, 1e-5), 5);  // one int8 -> int32
}

TEST(NnCoverage, Uint8AccumulatesInInt32) {
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.batch_matmul", 0, 0), 1);
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.contrib_conv2d_NCHWc", 0, 0), 1);
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.contrib_depthwise_conv2d_NCHWc", 0, 0), 1);
}

TEST(NnCoverage, DensePackFourDimensionalWeightInFloats) {
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.contrib_dense_pack", 1e-5, 1e-5), 2);
}

TEST(NnCoverage, AdaptiveMaxPoolChannelLast) {
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.adaptive_max_pool1d", 0, 0), 2);
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.adaptive_max_pool2d", 0, 0), 2);
  EXPECT_EQ(check_golden_cases("coverage.json", "nn.adaptive_max_pool3d", 0, 0), 2);
}

}  // namespace
}  // namespace weft::testing

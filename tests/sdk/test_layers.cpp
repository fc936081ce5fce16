// sdk/layers.hpp's conv_kernel_layout, as relay.testing.layers maps layouts.
// (The builders are exercised by the model plugins' tests, which build every
// network through them.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <weft/plugin.hpp>

namespace {

namespace layers = weft::sdk::layers;

TEST(Layers, KernelLayoutFollowsTheDataLayout) {
  EXPECT_EQ(layers::conv_kernel_layout("NCHW"), "OIHW");
  EXPECT_EQ(layers::conv_kernel_layout("NHWC"), "HWIO");
  EXPECT_EQ(layers::conv_kernel_layout("NCHW", true), "OIHW");
  EXPECT_EQ(layers::conv_kernel_layout("NHWC", true), "HWOI");
}

TEST(Layers, UnknownDataLayoutIsAnError) {
  try {
    layers::conv_kernel_layout("NCWH");
    FAIL() << "expected an error";
  } catch (const weft::sdk::Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("Unknown data layout NCWH"));
  }
}

}  // namespace

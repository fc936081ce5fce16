// The pooling family against golden values from gen_pool.py (a NumPy oracle
// written from TOPI, cross-checked with PyTorch where the two agree), in
// float32 and float64 and in every layout the cases use.
#include <gmock/gmock.h>

#include <set>

#include "../op_golden.h"

namespace weft::testing {
namespace {

/// Runs every case of `op` in `file`; returns how many ran.
int check_cases(const std::string& file, const std::string& op) {
  return check_golden_cases(file, op, Tolerance{1e-5, 1e-6}, Tolerance{1e-12, 1e-12});
}

/// The layouts and dtypes the cases of `op` cover, for the coverage checks.
std::set<std::string> covered(const std::string& file, const std::string& op, const std::string& default_layout) {
  std::set<std::string> out;
  // Held by name: a range-for over a temporary's member would read freed memory.
  const nlohmann::json golden = golden_file(file);
  for (const auto& c : golden.at("cases")) {
    if (c.at("op").get<std::string>() != op) continue;
    std::string layout = c.at("attrs").value("layout", default_layout);
    out.insert(layout + "/" + c.at("output").at("dtype").get<std::string>());
  }
  return out;
}

TEST(PoolGolden, MaxPool2dMatchesTopiInNchwAndNhwc) {
  EXPECT_EQ(check_cases("pool.json", "nn.max_pool2d"), 18);
  EXPECT_EQ(covered("pool.json", "nn.max_pool2d", "NCHW"),
            (std::set<std::string>{"NCHW/float32", "NCHW/float64", "NHWC/float32", "NHWC/float64"}));
}

TEST(PoolGolden, AvgPool2dMatchesTopiWithAndWithoutPaddingCounted) {
  EXPECT_EQ(check_cases("pool.json", "nn.avg_pool2d"), 22);
  EXPECT_EQ(covered("pool.json", "nn.avg_pool2d", "NCHW"),
            (std::set<std::string>{"NCHW/float32", "NCHW/float64", "NHWC/float32", "NHWC/float64"}));
}

TEST(PoolGolden, Pool1dMatchesTopiInNcwAndNwc) {
  EXPECT_EQ(check_cases("pool.json", "nn.max_pool1d"), 4);
  EXPECT_EQ(check_cases("pool.json", "nn.avg_pool1d"), 4);
  EXPECT_EQ(covered("pool.json", "nn.avg_pool1d", "NCW"),
            (std::set<std::string>{"NCW/float32", "NCW/float64", "NWC/float32", "NWC/float64"}));
}

TEST(PoolGolden, Pool3dMatchesTopiInNcdhwAndNdhwc) {
  EXPECT_EQ(check_cases("pool.json", "nn.max_pool3d"), 4);
  EXPECT_EQ(check_cases("pool.json", "nn.avg_pool3d"), 4);
  EXPECT_EQ(covered("pool.json", "nn.max_pool3d", "NCDHW"),
            (std::set<std::string>{"NCDHW/float32", "NCDHW/float64", "NDHWC/float32", "NDHWC/float64"}));
}

TEST(PoolGolden, GlobalPoolsMatchTorchInNchwAndNhwc) {
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.global_max_pool2d"), 4);
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.global_avg_pool2d"), 4);
}

TEST(PoolGolden, AdaptivePoolsMatchTorchIncludingNoneEntries) {
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.adaptive_max_pool1d"), 2);
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.adaptive_avg_pool1d"), 4);
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.adaptive_max_pool2d"), 6);
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.adaptive_avg_pool2d"), 8);
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.adaptive_max_pool3d"), 2);
  EXPECT_EQ(check_cases("pool_adaptive.json", "nn.adaptive_avg_pool3d"), 2);
}

TEST(PoolGolden, PoolGradientsMatchTopi) {
  EXPECT_EQ(check_cases("pool_grad.json", "nn.max_pool2d_grad"), 8);
  EXPECT_EQ(check_cases("pool_grad.json", "nn.avg_pool2d_grad"), 8);
  EXPECT_EQ(covered("pool_grad.json", "nn.avg_pool2d_grad", "NCHW"),
            (std::set<std::string>{"NCHW/float32", "NCHW/float64", "NHWC/float32", "NHWC/float64"}));
}

}  // namespace
}  // namespace weft::testing

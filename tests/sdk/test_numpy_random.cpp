// NumpyRandomState against sequences NumPy's legacy RandomState produced
// (tests/golden/numpy_random.json, written by gen_numpy_random.py).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "weft/sdk/numpy_random.hpp"

namespace {

nlohmann::json load_golden() {
  std::ifstream in(WEFT_GOLDEN_DIR "/numpy_random.json");
  EXPECT_TRUE(in.good()) << "missing golden file";
  return nlohmann::json::parse(in);
}

class NumpyRandomStateTest : public ::testing::TestWithParam<int> {
 protected:
  const nlohmann::json& golden_case() {
    static const nlohmann::json golden = load_golden();
    return golden["cases"][GetParam()];
  }
};

// Exact equality throughout: the point is bit-compatibility, not closeness.
TEST_P(NumpyRandomStateTest, RandomSampleMatchesNumpyBitForBit) {
  const auto& c = golden_case();
  weft::sdk::NumpyRandomState rng(c["seed"].get<uint32_t>());
  const auto& expected = c["random_sample"];
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(rng.random_sample(), expected[i].get<double>()) << "draw " << i;
}

TEST_P(NumpyRandomStateTest, UniformMatchesNumpy) {
  const auto& c = golden_case();
  weft::sdk::NumpyRandomState rng(c["seed"].get<uint32_t>());
  for (const auto& v : c["uniform"]) ASSERT_EQ(rng.uniform(c["uniform_low"], c["uniform_high"]), v.get<double>());
}

TEST_P(NumpyRandomStateTest, NormalMatchesNumpyIncludingCachedSecondValue) {
  const auto& c = golden_case();
  weft::sdk::NumpyRandomState rng(c["seed"].get<uint32_t>());
  for (const auto& v : c["normal"]) ASSERT_EQ(rng.normal(c["normal_loc"], c["normal_scale"]), v.get<double>());
}

TEST_P(NumpyRandomStateTest, CachedGaussianSurvivesInterleavedUniformDraws) {
  const auto& c = golden_case();
  const auto& m = c["mixed"];
  weft::sdk::NumpyRandomState rng(c["seed"].get<uint32_t>());
  EXPECT_EQ(rng.standard_normal(), m[0].get<double>());
  EXPECT_EQ(rng.uniform(0, 1), m[1].get<double>());
  EXPECT_EQ(rng.standard_normal(), m[2].get<double>());
  EXPECT_EQ(rng.standard_normal(), m[3].get<double>());
}

TEST(NumpyRandomState, ReseedingRestartsTheSequenceAndDropsTheCachedGaussian) {
  weft::sdk::NumpyRandomState rng(7);
  const double first = rng.standard_normal();
  rng.seed_with(7);
  EXPECT_EQ(rng.standard_normal(), first);
}

INSTANTIATE_TEST_SUITE_P(Seeds, NumpyRandomStateTest, ::testing::Values(0, 1, 2, 3));

}  // namespace

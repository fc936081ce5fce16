// `weft show PROGRAM --seed N --params-out F` writes create_workload's
// parameters: the reference's values (golden/gen_workloads.py) for seed 0.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "workload_golden.h"
#include "workload_program.h"
#include "weft/tensor_io.h"
#include "weft/workload.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

class ShowParamsOut : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(program_) << test_program_text(DataType::Float(32)); }
  testing::CliResult weft(const std::string& args) { return testing::run_cli(WEFT_TEST_CLI, args, dir_.path()); }
  std::string scratch(const std::string& name) const { return (dir_ / name).string(); }

  testing::ScratchDir dir_;
  std::string program_ = scratch("net.relay");
};

TEST_F(ShowParamsOut, WritesTheReferenceParametersForSeedZero) {
  const testing::CliResult r = weft("show " + program_ + " --params-out " + scratch("params.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("def @main"));  // it still shows the program
  const NamedTensors params = load_tensor_file(scratch("params.npz"));
  const auto expected = golden_case("xavier_default").at("expected");
  ASSERT_EQ(params.size(), expected.size());
  for (size_t p = 0; p < params.size(); ++p) {
    EXPECT_EQ(params[p].first, expected[p].at("name").get<std::string>());
    const auto bits = expected[p].at("bits").get<std::vector<uint64_t>>();
    for (int64_t i = 0; i < params[p].second.numel(); ++i)
      EXPECT_EQ(element_bits(params[p].second, i), bits[i]) << params[p].first << " element " << i;
  }
}

TEST_F(ShowParamsOut, SeedSelectsTheStreamAndSafetensorsWorksToo) {
  const testing::CliResult r =
      weft("show --json " + program_ + " --seed 3 --params-out " + scratch("params.safetensors"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const NamedTensors params = load_tensor_file(scratch("params.safetensors"));
  const Workload expected = create_workload(test_program(DataType::Float(32)), "xavier", 3);
  ASSERT_EQ(params.size(), expected.params.size());
  for (size_t p = 0; p < params.size(); ++p) {
    EXPECT_EQ(params[p].first, expected.params[p].first);
    EXPECT_TRUE(params[p].second.bitwise_equal(expected.params[p].second)) << params[p].first;
  }
}

TEST_F(ShowParamsOut, ErrorsExitNonZeroWithTheReason) {
  testing::CliResult r = weft("show " + program_ + " --params-out " + scratch("params.bin"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--params-out " + scratch("params.bin") + ": unknown file type"));

  std::ofstream(scratch("odd.relay")) << "#[version = \"0.0.5\"]\n"
                                         "def @main(%data: Tensor[(4), float32], %conv1_scale: Tensor[(4), float32]) {\n"
                                         "  multiply(%data, %conv1_scale)\n}\n";
  r = weft("show " + scratch("odd.relay") + " --params-out " + scratch("params.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown initialization pattern for conv1_scale"));

  r = weft("show " + program_ + " --seed 4294967296 --params-out " + scratch("params.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("seed 4294967296 is out of range"));
}

}  // namespace
}  // namespace weft

// The onednn target's work at build: each convolution's implementation
// chosen by timing and kept in a cache on disk, the bound weights reordered
// once, and a warm-up run. What oneDNN itself ran is read from its own log
// (dnnl_set_verbose), not from the target's report.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <oneapi/dnnl/dnnl.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <weft/sdk/disk_cache.hpp>

#include "onednn_test_support.h"
#include "support/temp_dir.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"

namespace weft {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
using onednn_test::Built;
using onednn_test::has_avx512;
using onednn_test::build_for_onednn;
using onednn_test::max_error;
using onednn_test::program;
using onednn_test::Program;

namespace fs = std::filesystem;

/// A 3x3 stride-1 convolution with a bound weight, a bias and relu: one
/// primitive, for which oneDNN offers direct and Winograd implementations.
Program conv3x3() {
  return program(R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32], %w: Tensor[(16, 16, 3, 3), float32], %b: Tensor[(16), float32]) {
  nn.relu(nn.bias_add(nn.conv2d(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3]), %b))
}
)",
                 {"w", "b"});
}

/// The lines oneDNN logs (its verbose mode, on stdout) while `body` runs.
template <typename F>
std::vector<std::string> onednn_log(F&& body) {
  std::fflush(stdout);
  ::testing::internal::CaptureStdout();
  dnnl_set_verbose(1);
  try {
    body();
  } catch (...) {
    dnnl_set_verbose(0);
    std::fflush(stdout);
    ::testing::internal::GetCapturedStdout();
    throw;
  }
  dnnl_set_verbose(0);
  std::fflush(stdout);
  std::istringstream text(::testing::internal::GetCapturedStdout());
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  return lines;
}

size_t count_with(const std::vector<std::string>& lines, const std::vector<std::string>& parts) {
  size_t n = 0;
  for (const std::string& line : lines) {
    bool all = true;
    for (const std::string& part : parts) all = all && line.find(part) != std::string::npos;
    n += all;
  }
  return n;
}

std::vector<fs::path> choice_files(const fs::path& dir) {
  std::vector<fs::path> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  return files;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void expect_interpreter_values(const Built& built, const Program& p) {
  Value got = GraphExecutor(built.compiled).run(p.args);
  EXPECT_LE(max_error(got.tensor(), Interpreter(p.mod).run_main(p.args).tensor()), 1e-5);
}

TEST(OnednnBuildTime, ReordersABoundWeightOnceAndWarmsTheGroupUp) {
  // Half a block of input channels (8 with AVX-512's 16, 4 with AVX2's 8):
  // AlterOpLayout keeps the data and the weight plain, so the bound weight
  // reaches compile as OIHW and is reordered there.
  const std::string in = has_avx512() ? "8" : "4";
  const Program p = program(R"(
def @main(%x: Tensor[(1, )" + in + R"(, 10, 10), float32], %w: Tensor[(16, )" + in + R"(, 3, 3), float32]) {
  nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=16, kernel_size=[3, 3]))
}
)",
                            {"w"});
  Built built;
  const std::vector<std::string> log = onednn_log([&] { built = build_for_onednn(p.mod, {{"tune", false}}); });
  // Once, at compile: the capability query (AlterOpLayout's too) plans the
  // call without packing the weight.
  EXPECT_EQ(count_with(log, {"exec,cpu,reorder", "16x" + in + "x3x3"}), 1u) << ::testing::PrintToString(log);
  // Untuned, the only convolution run at build is the warm-up.
  EXPECT_EQ(count_with(log, {"exec,cpu,convolution", "forward_inference"}), 1u) << ::testing::PrintToString(log);
  EXPECT_THAT(built.report, HasSubstr("(untimed)"));
  expect_interpreter_values(built, p);
}

TEST(OnednnBuildTime, ASecondBuildReadsTheChoiceFromTheCacheAndTimesNothing) {
  weft::testing::ScratchDir dir;
  const Program p = conv3x3();
  const std::string cache = (dir / "choices").string();
  Built first;
  const std::vector<std::string> first_log =
      onednn_log([&] { first = build_for_onednn(p.mod, {{"cache_dir", cache}}); });
  EXPECT_THAT(first.report, HasSubstr("(timed "));
  EXPECT_GT(count_with(first_log, {"exec,cpu,convolution"}), 2u) << "each candidate runs twice, then the warm-up";
  const std::vector<fs::path> files = choice_files(cache);
  ASSERT_EQ(files.size(), 1u);
  const std::string record = read_text(files[0]);
  EXPECT_EQ(record.rfind("weft-onednn-choice 1\nkey ", 0), 0u) << record;
  EXPECT_THAT(record, HasSubstr("\nconvolution src 1x16x8x8"));
  EXPECT_THAT(record, ContainsRegex("\nvalue [0-9]+ [0-9a-f]{16}\n(direct|winograd) "));
  const fs::file_time_type written = fs::last_write_time(files[0]);

  Built second;
  const std::vector<std::string> second_log =
      onednn_log([&] { second = build_for_onednn(p.mod, {{"cache_dir", cache}}); });
  EXPECT_THAT(second.report, HasSubstr("(cached)"));
  EXPECT_THAT(second.report, Not(HasSubstr("(timed ")));
  EXPECT_EQ(count_with(second_log, {"exec,cpu,convolution"}), 1u) << "only the warm-up runs";
  EXPECT_EQ(read_text(files[0]), record);
  EXPECT_EQ(fs::last_write_time(files[0]), written);
  expect_interpreter_values(second, p);
}

TEST(OnednnBuildTime, ACorruptOrForeignCacheFileIsIgnoredWithAWarning) {
  weft::testing::ScratchDir dir;
  const Program p = conv3x3();
  const std::string cache = (dir / "choices").string();
  build_for_onednn(p.mod, {{"cache_dir", cache}});
  const std::vector<fs::path> files = choice_files(cache);
  ASSERT_EQ(files.size(), 1u);
  const std::string record = read_text(files[0]);
  // The record up to its value, which names the chosen implementation;
  // records of this layer's key and of another made as the target makes them.
  const std::string keyed = record.substr(0, record.find("\nvalue ") + 1);
  const size_t key_size = std::stoul(record.substr(record.find("\nkey ") + 5));
  const std::string key = record.substr(record.find('\n', record.find("\nkey ") + 1) + 1, key_size);
  auto record_of = [&](const std::string& record_key, const std::string& value) {
    const sdk::DiskCache scratch((dir / "scratch").string(), "onednn-choice");
    scratch.write(record_key, value);
    return read_text(scratch.path_of(record_key));
  };
  const struct {
    std::string text, warning;
  } bad[] = {
      {"\x7f" "ELF garbage\n", "it is not a 'weft-onednn-choice 1' record"},
      {"weft-onednn-choice 1\nkey\n", "it is not a 'weft-onednn-choice 1' record"},
      {record.substr(0, record.size() - 3), "it is not a 'weft-onednn-choice 1' record"},
      {record_of("convolution of another machine", "direct x"), "records another key"},
      {record_of(key, "no such implementation"), "names 'no such implementation', which oneDNN does not offer"},
  };
  for (const auto& [text, warning] : bad) {
    std::ofstream(files[0], std::ios::trunc) << text;
    Built built = build_for_onednn(p.mod, {{"cache_dir", cache}});
    EXPECT_THAT(built.report, HasSubstr("warning: ")) << text;
    EXPECT_THAT(built.report, HasSubstr(warning)) << built.report;
    EXPECT_THAT(built.report, HasSubstr("(timed ")) << text;
    expect_interpreter_values(built, p);
    // Timing again wrote a good record over the bad one.
    EXPECT_EQ(read_text(files[0]).rfind(keyed, 0), 0u);
  }
  EXPECT_THAT(build_for_onednn(p.mod, {{"cache_dir", cache}}).report, HasSubstr("(cached)"));
}

TEST(OnednnBuildTime, AWinogradConvolutionGivesTheInterpretersValues) {
  const Program p = conv3x3();
  Built built = build_for_onednn(p.mod, {{"algorithms", std::string("winograd")}});
  if (built.report.find(" runs winograd") == std::string::npos) {
    GTEST_SKIP() << "oneDNN has no Winograd convolution on this CPU: " << built.report;
  }
  EXPECT_THAT(built.report, HasSubstr("runs winograd forward_inference"));
  EXPECT_THAT(built.report, Not(HasSubstr(" direct ")));
  expect_interpreter_values(built, p);
}

TEST(OnednnBuildTime, TuningOptionsAreChecked) {
  const TargetDef& def = TargetRegistry::global().get("onednn");
  auto create_with = [&](std::vector<std::pair<std::string, AttrValue>> options) {
    try {
      def.create(def.options.normalize("onednn", make_attrs(options)));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_THAT(create_with({{"algorithms", std::string("direct,fft")}}),
              HasSubstr("option algorithms names 'fft'; expected direct, winograd or both"));
  EXPECT_THAT(create_with({{"tune_runs", int64_t{0}}}), HasSubstr("tune_runs must be >= 1, not 0"));
  EXPECT_EQ(create_with({{"algorithms", std::string("winograd,direct")}, {"cache_dir", std::string()}}), "");
}

TEST(OnednnBuildTime, ASmallGroupRunsOnOneThreadALargeOneOnAll) {
  // 16 -> 8 dense: 128 multiply-accumulates, far below a fork and join's worth.
  const Program small = onednn_test::program(R"(
def @main(%x: Tensor[(1, 16), float32], %w: Tensor[(8, 16), float32]) {
  nn.relu(nn.dense(%x, %w, units=8))
}
)",
                                             {"w"});
  Built built = build_for_onednn(small.mod);
  EXPECT_THAT(built.report, HasSubstr("matmul(nn.dense, nn.relu as eltwise)\nonednn: the group is small: it runs on one thread"));
  expect_interpreter_values(built, small);
  // 1x16x32x32 -> 64 channels, 3x3: 64 * 32 * 32 * 16 * 9 = 9.4M.
  const Program large = onednn_test::program(R"(
def @main(%x: Tensor[(1, 16, 32, 32), float32], %w: Tensor[(64, 16, 3, 3), float32]) {
  nn.conv2d(%x, %w, padding=[1, 1], channels=64, kernel_size=[3, 3])
}
)",
                                             {"w"});
  built = build_for_onednn(large.mod, {{"tune", false}});
  EXPECT_THAT(built.report, HasSubstr("compiled a group to convolution(nn.conv2d)\n"));
  EXPECT_THAT(built.report, Not(HasSubstr("convolution(nn.conv2d)\nonednn: the group is small")));
  expect_interpreter_values(built, large);
}

}  // namespace
}  // namespace weft

// `weft run`, `weft show` on .onnx files: the model imported by the onnx
// frontend, --shape for a symbolic input, and the importer's errors as exit 1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {

using ::testing::HasSubstr;

const std::string kData = WEFT_ONNX_DATA_DIR;

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr
};

Result weft(const std::string& arguments) {
  const std::string command = std::string(WEFT_CLI) + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {-1, "popen failed"};
  std::string output;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

TEST(OnnxCli, RunsAnOnnxModelOnATarget) {
  Result r = weft("run " + kData + "/cnn.onnx --target loops --fallback error");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("on loops"));
  EXPECT_THAT(r.output, HasSubstr("output: Tensor[(1, 5), float32]"));
}

TEST(OnnxCli, ShowsTheImportedProgram) {
  Result r = weft("show " + kData + "/cnn.onnx");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("nn.conv2d(%x"));
}

TEST(OnnxCli, ASymbolicInputTakesItsShapeFromTheCommandLine) {
  Result missing = weft("run " + kData + "/symbolic_batch.onnx");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("--shape x=Nx3"));
  Result given = weft("run " + kData + "/symbolic_batch.onnx --shape x=4x3");
  EXPECT_EQ(given.exit_code, 0) << given.output;
  EXPECT_THAT(given.output, HasSubstr("output: Tensor[(4, 3), float32]"));
}

TEST(OnnxCli, AnUnsupportedOperatorIsExitOneNamingIt) {
  Result r = weft("run " + kData + "/unsupported_ops.onnx");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Hardmax (node 'hardmax')"));
}

}  // namespace

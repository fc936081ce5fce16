// `weft run`, `weft show` on .onnx files: the model imported by the onnx
// frontend, --shape for a symbolic input, and the importer's errors as exit 1;
// `weft import` writing Relay text, its weights in a file of their own or in
// the text's metadata.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include "weft/tensor_io.h"
#include "weft/testing/gtest_helpers.h"

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

/// A folder of its own for one test's files, removed after it.
struct TempDir {
  TempDir() : path(std::filesystem::temp_directory_path() / ("weft_onnx_cli_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  std::filesystem::path path;
};

/// The tensor `name` of tests/data/FILE.npz (undefined when it has none).
weft::Tensor data_tensor(const std::string& file, const std::string& name) {
  for (const auto& [key, t] : weft::load_npz(kData + "/" + file + ".npz"))
    if (key == name) return t;
  return {};
}

/// cnn.npz's input x saved as x.npz in `dir`; its expected output.
weft::Tensor cnn_input(const TempDir& dir) {
  weft::save_npz(dir / "x.npz", {{"x", data_tensor("cnn", "in_x")}});
  return data_tensor("cnn", "out_0");
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

TEST(OnnxCli, ASymbolicInputTakesItsShapeFromTheTensorGivenForIt) {
  TempDir dir;
  const weft::Tensor x = data_tensor("symbolic_batch", "in_x");
  weft::save_npz(dir / "x.npz", {{"x", x}, {"unused", x}});  // a tensor naming no input binds nothing
  Result r = weft("run " + kData + "/symbolic_batch.onnx --inputs " + (dir / "x.npz"));
  EXPECT_EQ(r.exit_code, 1) << r.output;  // the run refuses the unused tensor, after the import took x's shape
  EXPECT_THAT(r.output, HasSubstr("unused"));
  weft::save_npz(dir / "x.npz", {{"x", x}});
  r = weft("run " + kData + "/symbolic_batch.onnx --inputs " + (dir / "x.npz"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("output: Tensor[(2, 3), float32]"));
}

TEST(OnnxCli, AnUnsupportedOperatorIsExitOneNamingIt) {
  Result r = weft("run " + kData + "/unsupported_ops.onnx");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Hardmax (node 'hardmax')"));
}

TEST(OnnxCli, ImportWritesRelayTextWhoseWeightsGoToTheParamsFileUnderTheirNames) {
  TempDir dir;
  const weft::Tensor want = cnn_input(dir);
  Result r = weft("import " + kData + "/cnn.onnx -o " + (dir / "cnn.relay") + " --params-out " + (dir / "w.safetensors"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream text(dir / "cnn.relay");
  std::stringstream program;
  program << text.rdbuf();
  EXPECT_THAT(program.str(), HasSubstr("def @main(%x: Tensor[(1, 3, 9, 9), float32], %w: Tensor[(4, 3, 3, 3), float32]"));
  EXPECT_THAT(program.str(), ::testing::Not(HasSubstr("#[metadata]")));
  weft::NamedTensors weights = weft::load_tensor_file(dir / "w.safetensors");
  std::vector<std::string> names;
  for (const auto& [name, t] : weights) names.push_back(name);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("w", "b", "gamma", "beta", "mean", "var", "fc_w", "fc_b"));

  r = weft("run " + (dir / "cnn.relay") + " --params " + (dir / "w.safetensors") + " --inputs " + (dir / "x.npz") +
           " --output " + (dir / "y.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(weft::testing::tensors_near(weft::load_npy(dir / "y.npy"), want, 1e-5, 1e-6));
}

TEST(OnnxCli, ImportWithoutParamsOutKeepsTheWeightsInTheTextsMetadata) {
  TempDir dir;
  const weft::Tensor want = cnn_input(dir);
  Result r = weft("import " + kData + "/cnn.onnx -o " + (dir / "cnn.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = weft("run " + (dir / "cnn.relay") + " --inputs " + (dir / "x.npz") + " --output " + (dir / "y.npy"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(weft::testing::tensors_near(weft::load_npy(dir / "y.npy"), want, 1e-5, 1e-6));
}

TEST(OnnxCli, AParamsFileOfAnUnknownFormatIsExitOneListingTheFormats) {
  TempDir dir;
  Result r = weft("import " + kData + "/cnn.onnx -o " + (dir / "cnn.relay") + " --params-out " + (dir / "w.txt"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("w.txt"));
  EXPECT_THAT(r.output, HasSubstr(".safetensors"));
}

TEST(OnnxCli, ImportOfWhatNoFrontendReadsIsExitOne) {
  TempDir dir;
  std::ofstream(dir / "m.relay") << "#[version = \"0.0.5\"]\ndef @main(%x: float32) { %x }\n";
  Result relay = weft("import " + (dir / "m.relay"));
  EXPECT_EQ(relay.exit_code, 1) << relay.output;
  EXPECT_THAT(relay.output, HasSubstr("weft import reads model files a frontend reads"));
  Result params = weft("import " + (dir / "m.relay") + " --params-out " + (dir / "p.npz"));
  EXPECT_EQ(params.exit_code, 1) << params.output;
  EXPECT_THAT(params.output, HasSubstr("--params-out applies to a model a frontend imports"));
  Result model = weft("import resnet-18");
  EXPECT_EQ(model.exit_code, 1) << model.output;
}

}  // namespace

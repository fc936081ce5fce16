// `weft grad-check` and `weft run --gradient` end to end: the table, the exit
// code, the gradients against NumPy, and the errors.
#include <fstream>

#include "cli_test_util.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class GradCheckCommandTest : public CliCommandTest {
 protected:
  std::string program(const std::string& name, const std::string& text) {
    std::ofstream(scratch(name)) << "#[version = \"0.0.5\"]\n" << text;
    return scratch(name);
  }
  static Tensor zeros(std::vector<int64_t> shape) { return Tensor::zeros(std::move(shape), DataType::Float(64)); }
};

TEST_F(GradCheckCommandTest, PrintsOneRowPerParameterAndExitsZeroWhenAllMatch) {
  std::string file = program("dense.relay",
                             "def @main(%x: Tensor[(2, 3), float64], %w: Tensor[(4, 3), float64]) {\n"
                             "  tanh(nn.dense(%x, %w))\n}\n");
  for (const char* mode : {"first_order", "higher_order"}) {
    CliResult r = weft("grad-check " + file + " --mode " + mode);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("parameter"));
    EXPECT_THAT(r.out, ::testing::ContainsRegex("%x +6 +0 .* ok"));
    EXPECT_THAT(r.out, ::testing::ContainsRegex("%w +12 +0 .* ok"));
    EXPECT_THAT(r.out, HasSubstr(std::string("all gradients match (") + mode));
  }
}

TEST_F(GradCheckCommandTest, MainMayCallTheModulesOtherFunctions) {
  // @cube calls @square; @pow calls itself: x^3 * tanh(y)^4 through three global functions.
  std::string file = program("globals.relay",
                             "def @square(%a: Tensor[(3), float64]) -> Tensor[(3), float64] {\n  multiply(%a, %a)\n}\n"
                             "def @cube(%a: Tensor[(3), float64]) -> Tensor[(3), float64] {\n"
                             "  multiply(@square(%a), %a)\n}\n"
                             "def @pow(%a: Tensor[(3), float64], %n: float64) -> Tensor[(3), float64] {\n"
                             "  if (greater(%n, 1f64)) { multiply(%a, @pow(%a, subtract(%n, 1f64))) } else { %a }\n}\n"
                             "def @main(%x: Tensor[(3), float64], %y: Tensor[(3), float64]) {\n"
                             "  multiply(@cube(%x), @pow(tanh(%y), 4f64))\n}\n");
  CliResult r = weft("grad-check " + file + " --mode higher_order");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("%x +3 +0 .* ok"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("%y +3 +0 .* ok"));
}

TEST_F(GradCheckCommandTest, AMismatchExitsOneAndSaysWhere) {
  // abs at 0: the gradient pass gives 1 (Relay's convention), differences give 0.
  std::string file = program("abs.relay", "def @main(%x: Tensor[(3), float64]) {\n  abs(%x)\n}\n");
  save_npz(scratch("zeros.npz"), {{"x", zeros({3})}});
  CliResult r = weft("grad-check " + file + " --inputs " + scratch("zeros.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, ::testing::ContainsRegex("%x +3 +3 +1 +MISMATCH"));
  EXPECT_THAT(r.err, HasSubstr("gradient of %x at index (0,): analytic 1, numeric 0 (3 of 3 elements differ"));
}

TEST_F(GradCheckCommandTest, InputsNamingNoParameterAreAnError) {
  std::string file = program("neg.relay", "def @main(%x: Tensor[(3), float64]) {\n  negative(%x)\n}\n");
  save_npz(scratch("in.npz"), {{"y", zeros({3})}});
  CliResult r = weft("grad-check " + file + " --inputs " + scratch("in.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("has tensor 'y', which is no parameter of main; expected one of %x"));
}

TEST_F(GradCheckCommandTest, AnOpWithoutGradientIsNamed) {
  std::string file = program("correlation.relay",
                             "def @main(%a: Tensor[(1, 1, 3, 3), float64], %b: Tensor[(1, 1, 3, 3), float64]) {\n"
                             "  nn.correlation(%a, %b)\n}\n");
  CliResult r = weft("grad-check " + file);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("op nn.correlation: the gradient pass needs the gradient of this op"));
}

TEST_F(GradCheckCommandTest, RunGradientWritesTheOutputAndEachParametersGradient) {
  std::string file = program("dense.relay",
                             "def @main(%x: Tensor[(2, 3), float64], %w: Tensor[(4, 3), float64]) {\n"
                             "  tanh(nn.dense(%x, %w))\n}\n");
  CliResult r = weft("run " + file + " --gradient --inputs " + data_file("gradient_inputs.npz") + " --output " +
                     scratch("grads.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ran the gradient of main"));
  EXPECT_THAT(r.out, HasSubstr("grad_w: Tensor[(4, 3), float64]"));
  expect_tensor_files_near(scratch("grads.npz"), data_file("gradient_expected.npz"));
}

TEST_F(GradCheckCommandTest, RunGradientNamesAnOpWithoutGradient) {
  std::string file = program("correlation.relay",
                             "def @main(%a: Tensor[(1, 1, 3, 3), float64], %b: Tensor[(1, 1, 3, 3), float64]) {\n"
                             "  nn.correlation(%a, %b)\n}\n");
  CliResult r = weft("run " + file + " --gradient");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("op nn.correlation: the gradient pass needs the gradient of this op"));
}

}  // namespace
}  // namespace weft::testing

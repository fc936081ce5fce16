// `weft opt`: the -O pipeline or named passes on a program, parameters bound
// from a tensor file, Relay text out (with #[metadata]) that `weft show` and
// `weft run` read back; instrument flags; with --config / --print-partition
// the program built for a run config's targets; errors exit 1 with clear messages.
#include <fstream>

#include "cli_test_util.h"

namespace weft::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class OptCommandTest : public CliCommandTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(scratch(name)) << text;
    return scratch(name);
  }
};

// relu(x) twice, added: one common subexpression, and an unused function.
const char* const kTwiceRelu = R"(#[version = "0.0.5"]
def @unused(%a: Tensor[(2), float32]) { %a }
def @main(%x: Tensor[(2), float32]) {
  add(nn.relu(%x), nn.relu(%x))
}
)";

TEST_F(OptCommandTest, O3RunsThePipelineAndPrintsAProgramThatShowsBackTheSame) {
  CliResult r = weft("opt -O3 " + write("twice.relay", kTwiceRelu));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("#[version = \"0.0.5\"]"));
  EXPECT_THAT(r.out, Not(HasSubstr("@unused")));  // RemoveUnusedFunctions
  EXPECT_THAT(r.out, HasSubstr("Primitive=1"));  // FuseOps
  EXPECT_THAT(r.out, HasSubstr("%0 = nn.relu(%p0)"));
  // EliminateCommonSubexpr at -O3 leaves add(%0, %0), which SimplifyExpr doubles.
  EXPECT_THAT(r.out, HasSubstr("multiply(%0, 2f"));
  std::ofstream(scratch("again.relay")) << r.out;
  CliResult shown = weft("show " + scratch("again.relay"));
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out, r.out);
  // -O2 (the default) has no EliminateCommonSubexpr (opt level 3).
  r = weft("opt " + scratch("twice.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("%1 = nn.relu(%p0)"));
  EXPECT_THAT(r.out, HasSubstr("add(%0, %1)"));
}

TEST_F(OptCommandTest, PassesRunsTheNamedPassesWhateverTheirOptLevel) {
  CliResult r = weft("opt --passes EliminateCommonSubexpr " + write("twice.relay", kTwiceRelu));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("add(%0, %0)"));
  EXPECT_THAT(r.out, HasSubstr("@unused"));  // not asked for
}

TEST_F(OptCommandTest, BoundParametersBecomeMetadataConstantsAndRunToTheSameOutputs) {
  const std::string out = scratch("bound.relay");
  CliResult r = weft("opt -O3 " + data_file("dense_softmax.relay") + " --params " + data_file("dense_params.npz") +
                     " -o " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr("def @main(%data: Tensor[(2, 4), float32]"));
  EXPECT_THAT(text, Not(HasSubstr("%dense_weight")));
  EXPECT_THAT(text, HasSubstr("meta[relay.Constant][0]"));
  EXPECT_THAT(text, HasSubstr("#[metadata]"));
  r = weft("run " + out + " --inputs " + data_file("dense_inputs.npz") + " --output " + scratch("opt.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_tensor_files_near(scratch("opt.npz"), data_file("dense_expected.npz"));  // NumPy's outputs
}

TEST_F(OptCommandTest, InstrumentFlagsReportOnStderr) {
  const std::string program = write("twice.relay", kTwiceRelu);
  CliResult r = weft("opt -O3 --time-passes --stats " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("pass timing:\nOptimizationPipeline: "));
  EXPECT_THAT(r.err, HasSubstr("\n  EliminateCommonSubexpr: "));
  EXPECT_THAT(r.err, HasSubstr("pass statistics:\n  EliminateCommonSubexpr: expressions merged = 1\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("pass timing")));  // stdout holds only the program

  r = weft("opt -O3 --print-after-all " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("// IR after RemoveUnusedFunctions\n"));
  EXPECT_THAT(r.err, HasSubstr("// IR after InferType\n"));
  // After change: RemoveUnusedFunctions and EliminateCommonSubexpr (which
  // changes only sharing) changed it.
  r = weft("opt -O3 --print-after-change " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("// IR after RemoveUnusedFunctions\n"));
  EXPECT_THAT(r.err, HasSubstr("// IR after EliminateCommonSubexpr\n"));
  // The first InferType gives main its return type; the second changes nothing.
  r = weft("opt --passes InferType,InferType --print-after-change " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t first = r.err.find("// IR after InferType\n");
  ASSERT_NE(first, std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("// IR after InferType\n", first + 1), std::string::npos) << r.err;
}

TEST_F(OptCommandTest, BadPassListsAndOptLevelsAreErrors) {
  const std::string program = write("twice.relay", kTwiceRelu);
  CliResult r = weft("opt --passes InferType,FoldEverything " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown pass 'FoldEverything'"));
  EXPECT_THAT(r.err, HasSubstr("EliminateCommonSubexpr"));  // the known passes are listed
  r = weft("opt --passes InferType,,DeadCodeElimination " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("an empty pass name"));
  for (const char* level : {"4", "-1"}) {
    r = weft(std::string("opt -O ") + level + " " + program);
    EXPECT_EQ(r.exit_code, 1) << level;
    EXPECT_THAT(r.err, HasSubstr("is not an opt level")) << level;
  }
  r = weft("opt -O3 --passes InferType " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("-O and --passes exclude each other"));
}

// One NCHW conv and a relu, for --desired-layouts.
const char* const kNchwConv = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w: Tensor[(4, 3, 3, 3), float32]) {
  nn.relu(nn.conv2d(%x, %w, padding=[1, 1], channels=4, kernel_size=[3, 3]))
}
)";

TEST_F(OptCommandTest, DesiredLayoutsRunConvertLayoutInEitherSpelling) {
  const std::string program = write("conv.relay", kNchwConv);
  const std::string converted =
      "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
      "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
      "  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", "
      "kernel_layout=\"HWIO\");\n"
      "  %3 = nn.relu(%2);\n"
      "  layout_transform(%3, src_layout=\"NHWC\", dst_layout=\"NCHW\")";
  for (const char* spec : {"nn.conv2d=NHWC,default", "'{\"nn.conv2d\": [\"NHWC\", \"default\"]}'"}) {
    CliResult r = weft("opt --passes ConvertLayout --desired-layouts " + std::string(spec) + " " + program);
    ASSERT_EQ(r.exit_code, 0) << spec << "\n" << r.err;
    EXPECT_THAT(r.out, HasSubstr(converted)) << spec;
  }
  // With -O, ConvertLayout runs first, whatever the level; the fused conv stays NHWC.
  CliResult r = weft("opt -O1 --desired-layouts 'nn.conv2d=NHWC,default' " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("data_layout=\"NHWC\", kernel_layout=\"HWIO\""));
  EXPECT_THAT(r.out, HasSubstr("Primitive=1"));
}

TEST_F(OptCommandTest, BadDesiredLayoutsAreErrorsNamingTheOption) {
  const std::string program = write("conv.relay", kNchwConv);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nn.conv2d", "is not OP=LAYOUTS"},
      {"nn.conv2d=", "no layout given for nn.conv2d"},
      {"'nn.conv2d=NH-C'", "'NH-C' is not an op name or a layout"},
      {"nn.conv9d=NHWC", "no op named 'nn.conv9d'"},
      {"nn.conv2d=NHWC4", "ends with a block size"},
      {"'{\"nn.conv2d\": \"NHWC\"}'", "are not a list"},
  };
  for (const auto& [spec, message] : cases) {
    CliResult r = weft("opt --desired-layouts " + spec + " " + program);
    EXPECT_EQ(r.exit_code, 1) << spec;
    EXPECT_THAT(r.err, HasSubstr(message)) << spec;
    EXPECT_THAT(r.err, HasSubstr("--desired-layouts")) << spec;
  }
  CliResult r = weft("opt --passes InferType --desired-layouts nn.conv2d=NHWC " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("which --passes InferType does not run"));
}

// Two NCHW convs, each followed by a relu.
const char* const kTwoNchwConvs = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 6, 6), float32], %w1: Tensor[(4, 3, 3, 3), float32], %w2: Tensor[(4, 4, 3, 3), float32]) {
  %0 = nn.relu(nn.conv2d(%x, %w1, padding=[1, 1], channels=4, kernel_size=[3, 3]));
  nn.relu(nn.conv2d(%0, %w2, padding=[1, 1], channels=4, kernel_size=[3, 3]))
}
)";

TEST_F(OptCommandTest, SkipLayersKeepsTheNumberedConvsInTheirLayout) {
  const std::string program = write("convs.relay", kTwoNchwConvs);
  // Layer 0 stays NCHW; layer 1 moves to NHWC, the first relu's output moved in front of it.
  CliResult r = weft("opt --passes ConvertLayout --desired-layouts nn.conv2d=NHWC,default --skip-layers 0 " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("%0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]) /*"));
  EXPECT_THAT(r.out, HasSubstr("%2 = layout_transform(%1, src_layout=\"NCHW\", dst_layout=\"NHWC\");"));
  EXPECT_THAT(r.out, HasSubstr("data_layout=\"NHWC\", kernel_layout=\"HWIO\""));
  r = weft("opt --passes ConvertLayout --desired-layouts nn.conv2d=NHWC,default --skip-layers 0,1 " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("layout_transform")));
}

TEST_F(OptCommandTest, BadSkipLayersAreErrorsNamingTheOption) {
  const std::string program = write("convs.relay", kTwoNchwConvs);
  for (const char* list : {"0,,1", "0,-1", "one", "2x"}) {
    CliResult r = weft("opt --passes ConvertLayout --desired-layouts nn.conv2d=NHWC,default --skip-layers " +
                       std::string(list) + " " + program);
    EXPECT_EQ(r.exit_code, 1) << list;
    EXPECT_THAT(r.err, HasSubstr("--skip-layers " + std::string(list) + ": ")) << list;
    EXPECT_THAT(r.err, HasSubstr("is not a layer number")) << list;
  }
  CliResult r = weft("opt --passes ConvertLayout --skip-layers 0 " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no --desired-layouts is given"));
}

TEST_F(OptCommandTest, APassWhosePreconditionFailsIsAnErrorNamingIt) {
  CliResult r = weft("opt -O3 " + data_file("type_error.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("do not broadcast"));
  EXPECT_THAT(r.err, HasSubstr("in pass InferType"));
}

TEST_F(OptCommandTest, BadParamsAreErrorsNamingTheFileAndParameter) {
  const std::string program = data_file("dense_softmax.relay");
  save_tensor_file(scratch("unknown.npz"), {{"weight", Tensor::zeros({3, 4}, DataType::Float(32))}});
  CliResult r = weft("opt " + program + " --params " + scratch("unknown.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'weight' is not a parameter of main"));
  EXPECT_THAT(r.err, HasSubstr("--params " + scratch("unknown.npz")));

  save_tensor_file(scratch("shape.npz"), {{"dense_bias", Tensor::zeros({4}, DataType::Float(32))}});
  r = weft("opt " + program + " --params " + scratch("shape.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'dense_bias' in --params " + scratch("shape.npz")));
  EXPECT_THAT(r.err, HasSubstr("Tensor[(3), float32]"));

  std::ofstream(scratch("cut.npz")) << "PK\x03\x04 truncated";
  r = weft("opt " + program + " --params " + scratch("cut.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cut.npz"));
}

TEST_F(OptCommandTest, PrintPartitionShowsWhichTargetRunsEachGroupOnTheDefaultConfig) {
  // The default config runs on onednn where it is installed, else on ref.
  const std::string target = target_available("onednn") ? "onednn" : "ref";
  // dense absorbs the bias add (as an add) at -O3; softmax is a group of its own.
  CliResult r = weft("opt --print-partition " + data_file("dense_softmax.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "0  " + target + "  nn.dense, add\n"
            "1  " + target + "  nn.softmax\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(OptCommandTest, ConfigGivesTheBuildsOptLevelWhichDashOOverrides) {
  const std::string config = write("o0.yaml", "targets: []\nopt_level: 0\n");
  CliResult r = weft("opt --config " + config + " --print-partition " + data_file("dense_softmax.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0  ref  nn.dense\n1  ref  nn.bias_add\n2  ref  nn.softmax\n");
  r = weft("opt --config " + config + " -O3 --print-partition " + data_file("dense_softmax.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0  ref  nn.dense, add\n1  ref  nn.softmax\n");
}

TEST_F(OptCommandTest, ConfigAlonePrintsThePartitionedProgramWhichShowsBackTheSame) {
  CliResult r = weft("opt --config default " + data_file("dense_softmax.relay"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Primitive=1"));
  EXPECT_THAT(r.out, HasSubstr("nn.softmax(%p0, axis=1)"));
  std::ofstream(scratch("built.relay")) << r.out;
  CliResult shown = weft("show " + scratch("built.relay"));
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out, r.out);
}

TEST_F(OptCommandTest, BadConfigsAndFlagsTheBuildCannotHonourAreErrors) {
  const std::string config = write("bad.yaml", "targets: [nosuch]\n");
  CliResult r = weft("opt --config " + config + " --print-partition " + data_file("dense_softmax.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(config + ":1:11: unknown target 'nosuch'"));
  r = weft("opt --config no_such_config " + data_file("dense_softmax.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no run config named 'no_such_config'"));
  r = weft("opt --passes FuseOps --print-partition " + data_file("dense_softmax.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error: --passes cannot be combined with --config, --print-partition or --emit; expected the build's passes "
            "from the run config (opt_level, passes) and -O\n");
}

// A broadcast multiply, a scalar add and a sigmoid: one fused group whose ops
// have TE computes; and nn.nll_loss, which has none (it reads at the targets'
// indices, and fails on one out of range).
const char* const kTeGroups = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3, 4), float32], %y: Tensor[(3, 1), float32], %p: Tensor[(2, 5), float32],
          %t: Tensor[(2), int32], %w: Tensor[(5), float32]) {
  %0 = sigmoid(add(multiply(%x, %y), 0.5f));
  (%0, nn.nll_loss(%p, %t, %w))
}
)";

TEST_F(OptCommandTest, EmitTePrintsEachGroupsTensorExpressions) {
  CliResult r = weft("opt --emit te " + write("groups.relay", kTeGroups));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# group 0 on "));
  EXPECT_THAT(r.out, HasSubstr(": multiply, add, sigmoid\n"));
  EXPECT_THAT(r.out, HasSubstr("p0 = placeholder((2, 3, 4), float32)"));
  // y broadcast along the last axis reads index 0; the scalar constant is an
  // immediate (which the loops inline).
  EXPECT_THAT(r.out, HasSubstr("p1[i1, 0]"));
  EXPECT_THAT(r.out, HasSubstr("constant = compute((), []): 0.5f"));
  EXPECT_THAT(r.out, HasSubstr("sigmoid = compute((2, 3, 4)"));
  EXPECT_THAT(r.out, HasSubstr(": nn.nll_loss\n# no TE: op nn.nll_loss: the op has no TE compute\n"));
}

TEST_F(OptCommandTest, EmitLoopsLowersUnderTheConfigsLoopsTraits) {
  const std::string program = write("groups.relay", kTeGroups);
  // parallel_work 1: its 24 elements run in parallel, whatever their work.
  std::ofstream(scratch("loops.yaml"))
      << "targets: [loops]\ntarget_options:\n  loops: {vector_lanes: 4, cores: 2, parallel_work: 1}\n";
  CliResult r = weft("opt --emit loops --config " + scratch("loops.yaml") + " " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("# group 0 on loops: multiply, add, sigmoid"));
  EXPECT_THAT(r.out, HasSubstr("sigmoid: float32(2, 3, 4))"));  // the output parameter
  // 24 elements in one loop: 6 parallel iterations of a 4-lane vector.
  EXPECT_THAT(r.out, HasSubstr("parallel for"));
  EXPECT_THAT(r.out, HasSubstr("in range(6):"));
  EXPECT_THAT(r.out, HasSubstr("vectorized for"));
  EXPECT_THAT(r.out, HasSubstr("in range(4):"));
  r = weft("opt --emit spirv " + program);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("--emit: spirv not in {te,loops,llvm,asm}"));
  r = weft("opt --emit te --print-partition " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--print-partition and --emit exclude each other"));
}

TEST_F(OptCommandTest, EmitLlvmOrAsmHasTheLlvmTargetPrintEachKernelsCode) {
  const std::string program = write("groups.relay", kTeGroups);
  std::ofstream(scratch("loops.yaml")) << "targets: [loops]\n";
  CliResult r = weft("opt --emit llvm --config " + scratch("loops.yaml") + " " + program);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("--emit llvm: no target of the run config prints its kernels' code"));
  if (weft("targets").out.find("llvm") == std::string::npos) GTEST_SKIP() << "the llvm target is not built here";
  r = weft("opt --emit llvm --config llvm " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ContainsRegex("define (noundef )?i32 @weft_fused_multiply_add_sigmoid_"));
  EXPECT_THAT(r.out, HasSubstr("llvm  multiply, add, sigmoid"));  // then which group went where
  r = weft("opt --emit asm --config llvm " + program);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr(".globl\tweft_fused_multiply_add_sigmoid_"));
}

}  // namespace
}  // namespace weft::testing

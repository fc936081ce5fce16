// `weft run`: outputs of hand-written and TVM-printed programs and of the lstm
// model against NumPy (expected files from gen_cli_data.py, gen_lstm_data.py
// and gen_tvm_split_data.py), random inputs drawn as documented, and clear
// errors for wrong input names, shapes, dtypes and files.
#include "cli_test_util.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class RunCommandTest : public CliCommandTest {};

TEST_F(RunCommandTest, InputsFromNpzGiveNumPysOutput) {
  CliResult r = weft("run " + data_file("add_relu.relay") + " --inputs " + data_file("add_relu_inputs.npz") +
                     " --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // every input given: nothing drawn
  EXPECT_THAT(r.out, HasSubstr("ran main of "));
  EXPECT_THAT(r.out, HasSubstr(" ms\noutput: Tensor[(2, 3), float32] ["));
  EXPECT_THAT(r.out, HasSubstr("saved 1 output to "));
  expect_tensor_files_near(scratch("out.npz"), data_file("add_relu_expected.npz"));
}

TEST_F(RunCommandTest, MissingInputsAreDrawnLikeNumPyAndNamed) {
  CliResult r = weft("run " + data_file("add_relu.relay") + " --seed 3 --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("weft: 'x' not given: filled with random Tensor[(2, 3), float32] (seed 3)"));
  EXPECT_THAT(r.err, HasSubstr("weft: 'y' not given: filled with random Tensor[(3), float32] (seed 3)"));
  expect_tensor_files_near(scratch("out.npz"), data_file("add_relu_seed3_expected.npz"));

  r = weft("run " + data_file("add_relu.relay") + " --inputs " + data_file("add_relu_y_only_inputs.npz") +
           " --output " + scratch("out2.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("'x' not given"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("'y' not given")));
  expect_tensor_files_near(scratch("out2.npz"), data_file("add_relu_y_only_expected.npz"));
}

TEST_F(RunCommandTest, ManyParametersDrawnAreNamedOnOneLine) {
  // The lstm's twelve per-step inputs: the first eight named, the rest counted.
  CliResult r = weft("run lstm:iterations=12,num_hidden=8");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string line = "weft: 12 parameters not given: filled with random data (seed 0):";
  for (const char* name : {"data", "data1", "data2", "data3", "data4", "data5", "data6", "data7"})
    line += std::string(" '") + name + "' Tensor[(1, 8), float32],";
  EXPECT_THAT(r.err, HasSubstr(line + " and 4 more\n"));
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("' not given")));
}

TEST_F(RunCommandTest, IntBoolAndHalfInputsAreDrawnAsDocumented) {
  CliResult r = weft("run " + data_file("mixed_dtypes.relay") + " --seed 5 --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_tensor_files_near(scratch("out.npz"), data_file("mixed_seed5_expected.npz"));
}

TEST_F(RunCommandTest, NestedTuplesAreFlattenedInOrder) {
  CliResult r = weft("run " + data_file("nested_tuple.relay") + " --inputs " + data_file("nested_tuple_inputs.npz") +
                     " --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output_0: Tensor[(2, 3), float32]"));
  EXPECT_THAT(r.out, HasSubstr("output_2: Tensor[(2), float32]"));
  EXPECT_THAT(r.out, HasSubstr("saved 3 outputs"));
  expect_tensor_files_near(scratch("out.npz"), data_file("nested_tuple_expected.npz"));
}

TEST_F(RunCommandTest, ParamsFromNpzOrSafetensors) {
  std::string common = "run " + data_file("dense_softmax.relay") + " --inputs " + data_file("dense_inputs.npz");
  CliResult r = weft(common + " --params " + data_file("dense_params.npz") + " --output " + scratch("a.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  expect_tensor_files_near(scratch("a.npz"), data_file("dense_expected.npz"));

  save_safetensors(scratch("params.safetensors"), load_npz(data_file("dense_params.npz")));
  r = weft(common + " --params " + scratch("params.safetensors") + " --output " + scratch("b.safetensors"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_tensor_files_near(scratch("b.safetensors"), data_file("dense_expected.npz"));
}

TEST_F(RunCommandTest, WrongInputsAreClearErrors) {
  std::string program = "run " + data_file("add_relu.relay");
  save_npz(scratch("z.npz"), {{"z", Tensor::zeros({2, 3}, DataType::Float(32))}});
  CliResult r = weft(program + " --inputs " + scratch("z.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: 'z' in --inputs " + scratch("z.npz") +
                               " is not a parameter of main; expected one of: x, y"));

  save_npz(scratch("shape.npz"), {{"x", Tensor::zeros({3, 2}, DataType::Float(32))}});
  r = weft(program + " --inputs " + scratch("shape.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'x' in --inputs " + scratch("shape.npz") +
                               " is Tensor[(3, 2), float32], not main's parameter type; expected Tensor[(2, 3), float32]"));

  save_npz(scratch("dtype.npz"), {{"y", Tensor::zeros({3}, DataType::Int(64))}});
  r = weft(program + " --inputs " + scratch("dtype.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'y' in --inputs " + scratch("dtype.npz") + " is Tensor[(3), int64]"));
  EXPECT_THAT(r.err, HasSubstr("expected Tensor[(3), float32]"));

  r = weft(program + " --inputs " + data_file("add_relu_inputs.npz") + " --params " + data_file("add_relu_inputs.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'x' is given twice, in --params "));
}

TEST_F(RunCommandTest, LstmStepsReadTheirOwnInputsUnderTheNamesTvmPrints) {
  // Every step's input is named `data`; TVM's text shows them as %data,
  // %data1, %data2, and they bind under those names, one tensor each.
  // Expected: gen_lstm_data.py's NumPy LSTM on the same weights and inputs.
  const std::string lstm = "run lstm:iterations=3,num_hidden=8 --params " + data_file("lstm_params.npz");
  CliResult r = weft(lstm + " --inputs " + data_file("lstm_inputs.npz") + " --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("not given")));  // every parameter given
  expect_tensor_files_near(scratch("out.npz"), data_file("lstm_expected.npz"));

  // `data` alone is step 0's input: the others are drawn, each named.
  save_npz(scratch("data.npz"), {{"data", Tensor::zeros({1, 8}, DataType::Float(32))}});
  r = weft(lstm + " --inputs " + scratch("data.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("'data' not given")));
  EXPECT_THAT(r.err, HasSubstr("weft: 'data1' not given: filled with random Tensor[(1, 8), float32] (seed 0)"));
  EXPECT_THAT(r.err, HasSubstr("weft: 'data2' not given: filled with random Tensor[(1, 8), float32] (seed 0)"));

  save_npz(scratch("data3.npz"), {{"data3", Tensor::zeros({1, 8}, DataType::Float(32))}});
  r = weft(lstm + " --inputs " + scratch("data3.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'data3' in --inputs " + scratch("data3.npz") + " is not a parameter of main; "
                               "expected one of: data, i2h_0_weight, i2h_0_bias, h2h_0_weight, h2h_0_bias, data1, "));

  save_npz(scratch("wide.npz"), {{"data1", Tensor::zeros({1, 5}, DataType::Float(32))}});
  r = weft(lstm + " --inputs " + scratch("wide.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'data1' in --inputs " + scratch("wide.npz") + " is Tensor[(1, 5), float32]"));
}

TEST_F(RunCommandTest, DeepRecursionRunsAndRunawayRecursionIsAnError) {
  // 6,000 nested calls: more than the native stack holds (8 MiB, several KiB a level).
  std::ofstream(scratch("count.relay")) << R"(#[version = "0.0.5"]
def @count(%n: float32) -> float32 {
  if (greater(%n, 0f)) { @count(subtract(%n, 1f)) } else { %n }
}
def @main() -> float32 { @count(6000f) }
)";
  CliResult r = weft("run " + scratch("count.relay"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("output: Tensor[(), float32] [0]"));

  std::ofstream(scratch("spin.relay")) << R"(#[version = "0.0.5"]
def @spin(%n: float32) -> float32 { @spin(subtract(%n, 1f)) }
def @main() -> float32 { @spin(1f) }
)";
  r = weft("run " + scratch("spin.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("function calls nest deeper than 10000 levels"));
  EXPECT_THAT(r.err, HasSubstr("@spin("));

  r = run_cli(WEFT_TEST_CLI, "run " + scratch("spin.relay"), dir_.path(), "WEFT_MAX_CALL_DEPTH=100");
  EXPECT_THAT(r.err, HasSubstr("deeper than 100 levels"));
  r = run_cli(WEFT_TEST_CLI, "run " + scratch("spin.relay"), dir_.path(), "WEFT_MAX_CALL_DEPTH=lots");
  EXPECT_THAT(r.err, HasSubstr("WEFT_MAX_CALL_DEPTH='lots' is not a positive integer"));
}

TEST_F(RunCommandTest, ATvmPrintedProgramWithBoxedIntsAndSharedNamesRunsAsTvmReadsIt) {
  // tvm_split_data.relay as TVM prints it without its metadata section: two
  // inputs named `data` (%data, %data1) and split's 4 as meta[runtime.BoxInt][0].
  CliResult r = weft("run " + data_file("tvm_split_data.relay") + " --inputs " +
                     data_file("tvm_split_data_inputs.npz") + " --output " + scratch("out.npz"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, ::testing::Not(HasSubstr("not given")));  // both inputs bound by their TVM names
  expect_tensor_files_near(scratch("out.npz"), data_file("tvm_split_data_expected.npz"));
}

TEST_F(RunCommandTest, TensorsPastInt64OrTheSizeLimitAreRefusedNamingShapeAndSize) {
  // (2^32, 2^32, 4) elements wrap to 0 in int64: this used to "run" and print an empty output.
  std::ofstream(scratch("huge.relay")) << R"(#[version = "0.0.5"]
def @main(%x: Tensor[(4294967296, 4294967296, 4), float32]) { negative(%x) }
)";
  CliResult r = weft("run " + scratch("huge.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Tensor[(4294967296, 4294967296, 4), float32] has more bytes than"));

  r = weft("show mlp:num_classes=4611686018427387904");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("4611686018427387904"));

  std::ofstream(scratch("big.relay")) << R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1000), float32]) { negative(%x) }
)";
  r = run_cli(WEFT_TEST_CLI, "run " + scratch("big.relay"), dir_.path(), "WEFT_MAX_TENSOR_BYTES=1000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Tensor[(1000), float32] takes 4000 bytes, more than the limit of 1000"));
  r = run_cli(WEFT_TEST_CLI, "run " + scratch("big.relay"), dir_.path(), "WEFT_MAX_TENSOR_BYTES=4000");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(RunCommandTest, BadFilesAndProgramsAreClearErrors) {
  CliResult r = weft("run " + scratch("nope.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: "));
  EXPECT_THAT(r.err, HasSubstr("'" + scratch("nope.relay") + "'"));
  EXPECT_THAT(r.err, HasSubstr("program file"));

  r = weft("run " + data_file("syntax_error.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("syntax_error.relay:"));

  r = weft("run " + data_file("type_error.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("do not broadcast"));

  std::ofstream(scratch("cut.npz")) << "PK\x03\x04 truncated";
  r = weft("run " + data_file("add_relu.relay") + " --inputs " + scratch("cut.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: " + scratch("cut.npz") + ": not a valid .npz (zip) archive"));

  r = weft("run " + data_file("add_relu.relay") + " --inputs " + scratch("inputs.pt"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown tensor file extension '.pt'"));

  r = weft("run " + data_file("dynamic_input.relay"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("parameter 'x' of type Tensor[(?, 3), float32] is not given and cannot be drawn"));

  r = weft("run " + data_file("nested_tuple.relay") + " --output " + scratch("out.npy"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("a .npy file holds one tensor, not 3"));

  r = weft("run " + data_file("add_relu.relay") + " --seed -1");
  EXPECT_NE(r.exit_code, 0);
}

TEST_F(RunCommandTest, QuestionMarkExtentsTakeTheShapesOfTheGivenInputs) {
  // One program, two batch sizes: types are inferred again for each run's shapes.
  for (const std::string batch : {"5", "1"}) {
    CliResult r = weft("run " + data_file("dynamic_dense.relay") + " --inputs " +
                       data_file("dynamic_dense_inputs_" + batch + ".npz") + " --params " +
                       data_file("dense_params.npz") + " --output " + scratch("out.npz"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, HasSubstr("output: Tensor[(" + batch + ", 3), float32]"));
    expect_tensor_files_near(scratch("out.npz"), data_file("dynamic_dense_expected_" + batch + ".npz"));
  }
  // The extents that are given still have to match.
  save_npz(scratch("x.npz"), {{"data", Tensor::zeros({5, 3}, DataType::Float(32))}});
  CliResult r = weft("run " + data_file("dynamic_dense.relay") + " --inputs " + scratch("x.npz") + " --params " +
                     data_file("dense_params.npz"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("not main's parameter type; expected Tensor[(?, 4), float32]"));
}

}  // namespace
}  // namespace weft::testing

// ONNX models imported through the onnx frontend and run on the interpreter,
// against the outputs NumPy computed for them (tests/make_models.py wrote
// both, from the ONNX operators' definitions), and the importer's errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "weft/frontend.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/tensor_io.h"
#include "weft/testing/gtest_helpers.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

const std::string kData = WEFT_ONNX_DATA_DIR;

IRModule import_onnx(const std::string& path, const std::string& shapes = "") {
  const FrontendDef& onnx = FrontendRegistry::global().get("onnx");
  return onnx.import_file(path, onnx.options.normalize("onnx", make_attrs({{"shapes", shapes}})));
}

/// Imports tests/data/NAME.onnx, runs it on NAME.npz's in_* tensors and
/// checks it against the out_* ones.
void expect_numpy_outputs(const std::string& name, const std::string& shapes = "") {
  IRModule mod = import_onnx(kData + "/" + name + ".onnx", shapes);
  NamedTensors data = load_npz(kData + "/" + name + ".npz");
  std::vector<Value> inputs;
  for (const Var& param : mod.main()->params) {
    auto it = std::find_if(data.begin(), data.end(), [&](const auto& d) { return d.first == "in_" + param->name_hint; });
    ASSERT_NE(it, data.end()) << "no input for " << param->name_hint;
    inputs.push_back(it->second);
  }
  std::vector<Tensor> got = Interpreter(mod).run_main(inputs).flatten();
  size_t compared = 0;
  for (const auto& [key, want] : data) {
    if (key.rfind("out_", 0) != 0) continue;
    const size_t index = std::stoul(key.substr(4));
    ASSERT_LT(index, got.size());
    EXPECT_TRUE(testing::tensors_near(got[index], want, 1e-5, 1e-6)) << name << " output " << index;
    ++compared;
  }
  EXPECT_EQ(compared, got.size());
}

TEST(OnnxImport, AConvNetRunsAsNumpyComputesIt) { expect_numpy_outputs("cnn"); }

TEST(OnnxImport, ElementwiseOpsAndFoldedShapeArithmeticRunAsNumpyComputesThem) {
  expect_numpy_outputs("elementwise_and_shapes");
}

TEST(OnnxImport, AnOpset9ModelIsConvertedAndSamePaddingIsWorkedOut) { expect_numpy_outputs("opset9_same_padding"); }

TEST(OnnxImport, SlicingSplittingReductionsAndTheLogicalOpsRunAsNumpyComputesThem) {
  expect_numpy_outputs("more_ops");
}

TEST(OnnxImport, TransposedConvolutionPaddingPoolingOfEveryRankAndBatchedMatMulRunAsNumpyComputesThem) {
  expect_numpy_outputs("nn_ops");
}

TEST(OnnxImport, AnAveragePoolOfAnExplicitZeroPadIsOnePaddedPoolAndAPadOfNothingIsNoOp) {
  const std::string text = to_text(import_onnx(kData + "/nn_ops.onnx"));
  EXPECT_THAT(text, HasSubstr("nn.avg_pool2d(%x, pool_size=[3, 3], padding=[1, 1, 1, 1], count_include_pad=True)"));
  EXPECT_THAT(text, HasSubstr("nn.relu(%x)"));
}

TEST(OnnxImport, AnOpset17EncoderBlockWithLayerNormalizationRunsAsNumpyComputesIt) {
  expect_numpy_outputs("opset17_encoder_block");
}

TEST(OnnxImport, ResizeInEachModePyTorchExportsRunsAsNumpyComputesIt) { expect_numpy_outputs("resize"); }

TEST(OnnxImport, AnOpset9UpsampleIsConvertedToAResize) { expect_numpy_outputs("upsample_opset9"); }

TEST(OnnxImport, MoreActivationsCompositeReductionsRangeAndDepthToSpaceRunAsNumpyComputesThem) {
  expect_numpy_outputs("activations_and_reductions");
}

TEST(OnnxImport, GraphInputsKeepTheirNames) {
  IRModule mod = import_onnx(kData + "/elementwise_and_shapes.onnx");
  std::vector<std::string> names;
  for (const Var& p : mod.main()->params) names.push_back(p->name_hint);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "m"}));
}

TEST(OnnxImport, ASymbolicDimensionNeedsItsShapeAndIsAnErrorNamingTheInputOtherwise) {
  try {
    import_onnx(kData + "/symbolic_batch.onnx");
    FAIL() << "a symbolic batch imported without its shape";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("value x has a symbolic dimension 0 ('N')"));
    EXPECT_THAT(e.what(), HasSubstr("--shape x="));
  }
  expect_numpy_outputs("symbolic_batch", "x=2x3");
  EXPECT_THROW(import_onnx(kData + "/symbolic_batch.onnx", "y=2x3"), Error);      // not an input
  EXPECT_THROW(import_onnx(kData + "/symbolic_batch.onnx", "x=2x0"), Error);      // not a dimension
  EXPECT_THROW(import_onnx(kData + "/symbolic_batch.onnx", "x=2x3x4"), Error);    // not its rank
}

TEST(OnnxImport, EveryUnsupportedOperatorIsListedOnceWithItsNodes) {
  try {
    import_onnx(kData + "/unsupported_ops.onnx");
    FAIL() << "unsupported operators imported";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("weft does not map these ONNX operators"));
    EXPECT_THAT(e.what(), HasSubstr("Det (node 'det1' 'det2')"));
    EXPECT_THAT(e.what(), HasSubstr("Hardmax (node 'hardmax')"));
    EXPECT_THAT(e.what(), ::testing::Not(HasSubstr("Relu")));
  }
}

TEST(OnnxImport, AFileThatIsNotAModelIsAnErrorNamingIt) {
  const std::string path = ::testing::TempDir() + "/not_a_model.onnx";
  std::ofstream(path) << "this is not a protobuf";
  try {
    import_onnx(path);
    FAIL() << "text imported as a model";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
  }
  EXPECT_THROW(import_onnx(kData + "/no_such_model.onnx"), Error);
}

/// The error importing tests/data/NAME.onnx (a failure when it imports).
std::string import_error(const std::string& name) {
  try {
    import_onnx(kData + "/" + name + ".onnx");
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << name << " imported";
  return "";
}

TEST(OnnxImport, AModelTheOnnxLibraryTripsOverIsAnErrorNotACrash) {
  EXPECT_THAT(import_error("malformed_orphan_output"),
              HasSubstr("graph output 'z' is no input, initializer or node output"));
  // ONNX's shape inference dereferences the missing kernel dimensions: in its child process.
  EXPECT_THAT(import_error("malformed_flat_kernel"), HasSubstr("the ONNX library crashed on this model"));
}

TEST(OnnxImport, WeightsInAFileBesideTheModelAreReadAndOnesOutsideItsFolderRefused) {
  expect_numpy_outputs("external_data");
  EXPECT_THAT(import_error("malformed_escaping_data"),
              HasSubstr("tensor w has its data at '../tests/data/external_weights.bin', which is not a file beside "
                        "the model"));
}

TEST(OnnxImport, AnUnknownInitializersOptionIsAnErrorSayingWhatItTakes) {
  const FrontendDef& onnx = FrontendRegistry::global().get("onnx");
  try {
    onnx.import_file(kData + "/cnn.onnx", onnx.options.normalize("onnx", make_attrs({{"initializers", "params"}})));
    FAIL() << "initializers: params was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("initializers is 'params'; expected constants or let"));
  }
}

TEST(OnnxImport, OutOfRangeAttributesAreErrorsNamingTheNode) {
  EXPECT_THAT(import_error("bad_attributes"), HasSubstr("node 'pad' (Pad): mode is 'wrap'"));
  EXPECT_THAT(import_error("malformed_zero_stride"), HasSubstr("the ONNX library crashed on this model"));
}

TEST(OnnxImport, ShapesThatDoNotBroadcastAreAnErrorNamingTheOp) {
  // The import maps the node; type inference of the program (as every command runs it) refuses it.
  try {
    InferType()(import_onnx(kData + "/malformed_shapes.onnx"));
    FAIL() << "add of 2x3 and 4 type-checked";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op add: shapes Tensor[(2, 3), float32] and Tensor[(4), float32] do not broadcast"));
  }
}

}  // namespace
}  // namespace weft

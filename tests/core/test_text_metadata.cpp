// The `#[metadata]` section: TVM's JSON object graph with base64 NDArrays.
// The base64 strings are TVM's NDArray layout, packed with Python's struct.
#include <gtest/gtest.h>

#include "support/op_test.h"
#include "test_ops.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

// float32 [2] = {1, 2}
const char* const kTwoFloats = "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPwAAAEA=";

class TextMetadataTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

// A module adding meta[relay.Constant][index] to %x, with the given section.
std::string program(const std::string& metadata, int index = 0) {
  return "#[version = \"0.0.5\"]\n"
         "def @main(%x: Tensor[(2), float32]) {\n"
         "  test.add(%x, meta[relay.Constant][" +
         std::to_string(index) +
         "])\n"
         "}\n"
         "\n"
         "#[metadata]\n" +
         metadata;
}

// TVM's usual layout with one constant whose array is `b64`.
std::string section(const std::string& b64) {
  return "{\n"
         "  \"root\": 1, \n"
         "  \"nodes\": [\n"
         "    {\"type_key\": \"\"}, \n"
         "    {\"type_key\": \"Map\", \"keys\": [\"relay.Constant\"], \"data\": [2]}, \n"
         "    {\"type_key\": \"Array\", \"data\": [3]}, \n"
         "    {\"type_key\": \"relay.Constant\", \"attrs\": {\"_checked_type_\": \"0\", \"data\": \"0\", \"span\": \"0\"}}\n"
         "  ], \n"
         "  \"b64ndarrays\": [\"" +
         b64 +
         "\"], \n"
         "  \"attrs\": {\"tvm_version\": \"0.19.0\"}\n"
         "}\n";
}

const Tensor& constant_arg(const IRModule& mod) {
  auto& call = static_cast<const CallNode&>(*mod.main()->body);
  return static_cast<const ConstantNode&>(*call.args[1]).data;
}

TEST_F(TextMetadataTest, ConstantsComeWithDtypeShapeAndData) {
  IRModule mod = parse_module(program(section(kTwoFloats)));
  const Tensor& t = constant_arg(mod);
  EXPECT_EQ(t.dtype(), DataType::Float(32));
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(t.data_as<float>()[0], 1.0f);
  EXPECT_EQ(t.data_as<float>()[1], 2.0f);
}

TEST_F(TextMetadataTest, ASectionAsTvmPrintsItReads) {
  // Laid out exactly as TVM 0.8's astext() writes a float32 [2, 3] constant
  // holding 1..6 (dmlc JSON: ", " line endings, one-line "data" arrays).
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 2, 3), float32]) {\n"
      "  meta[relay.Constant][0]\n"
      "}\n"
      "\n"
      "#[metadata]\n"
      "{\n"
      "  \"root\": 1, \n"
      "  \"nodes\": [\n"
      "    {\n"
      "      \"type_key\": \"\"\n"
      "    }, \n"
      "    {\n"
      "      \"type_key\": \"Map\", \n"
      "      \"keys\": [\n"
      "        \"relay.Constant\"\n"
      "      ], \n"
      "      \"data\": [2]\n"
      "    }, \n"
      "    {\n"
      "      \"type_key\": \"Array\", \n"
      "      \"data\": [3]\n"
      "    }, \n"
      "    {\n"
      "      \"type_key\": \"relay.Constant\", \n"
      "      \"attrs\": {\n"
      "        \"_checked_type_\": \"0\", \n"
      "        \"data\": \"0\", \n"
      "        \"span\": \"0\"\n"
      "      }\n"
      "    }\n"
      "  ], \n"
      "  \"b64ndarrays\": [\n"
      "    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/AAAAQAAAQEAAAIBAAACgQAAAwEA=\"\n"
      "  ], \n"
      "  \"attrs\": {\"tvm_version\": \"0.8.0\"}\n"
      "}");
  const Tensor& t = static_cast<const ConstantNode&>(*mod.main()->body).data;
  EXPECT_EQ(t.dtype(), DataType::Float(32));
  EXPECT_EQ(t.shape(), (std::vector<int64_t>{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data_as<float>()[i], static_cast<float>(i + 1));
}

TEST_F(TextMetadataTest, TheOlderInterleavedMapLayoutReadsToo) {
  std::string old_layout =
      "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, "
      "{\"type_key\": \"Map\", \"data\": [2, 3]}, "
      "{\"type_key\": \"runtime.String\", \"repr_str\": \"relay.Constant\"}, "
      "{\"type_key\": \"Array\", \"data\": [4]}, "
      "{\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"0\"}}], "
      "\"b64ndarrays\": [\"" +
      std::string(kTwoFloats) + "\"]}";
  EXPECT_EQ(constant_arg(parse_module(program(old_layout))).data_as<float>()[1], 2.0f);
}

TEST_F(TextMetadataTest, PrintedConstantsReadBackBitForBit) {
  Var x = var("x", tensor_type({2, 2}));
  Tensor w = Tensor::empty({2, 2}, DataType::Float(32));
  float values[] = {0.1f, -3.5e-7f, 1e30f, -0.0f};
  std::copy(values, values + 4, w.data_as<float>());
  IRModule mod = IRModule::from_function(function({x}, call("test.add", {x, constant(w)})));
  IRModule parsed = parse_module(to_text(mod));
  EXPECT_TRUE(structural_equal(mod, parsed));
  EXPECT_TRUE(constant_arg(parsed).bitwise_equal(w));
}

TEST_F(TextMetadataTest, NonCanonicalNaNScalarsTravelInTheMetadata) {
  Tensor nan = Tensor::empty({}, DataType::Float(32));
  *nan.data_as<uint32_t>() = 0xFFC00001u;  // a negative NaN with a payload
  Expr e = call("test.add", {constant(Tensor::scalar(1, DataType::Float(32))), constant(nan)});
  std::string text = to_text(e, {.show_types = false});
  EXPECT_NE(text.find("test.add(1f, meta[relay.Constant][0])"), std::string::npos) << text;
  EXPECT_TRUE(structural_equal(parse_expr(text), e)) << text;
}

TEST_F(TextMetadataTest, BrokenSectionsAreErrorsAtTheMetadataLine) {
  EXPECT_EQ(testing::parse_error(program("{ not json")).rfind("m.relay:6:1: malformed metadata JSON: ", 0), 0u);
  EXPECT_EQ(testing::parse_error(program("[]")), "m.relay:6:1: the metadata section is not a JSON object");
  EXPECT_EQ(testing::parse_error(program("{\"root\": 9, \"nodes\": []}")),
            "m.relay:6:1: metadata node index 9 is out of range (0 nodes)");
  EXPECT_EQ(testing::parse_error(program("{\"root\": 0, \"nodes\": [{\"type_key\": \"Array\"}]}")),
            "m.relay:6:1: the metadata root is a Array, expected a Map");
  std::string wrong_index = section(kTwoFloats);
  wrong_index.replace(wrong_index.find("\"data\": \"0\""), 11, "\"data\": \"1\"");
  EXPECT_EQ(testing::parse_error(program(wrong_index)),
            "m.relay:6:1: metadata constant refers to tensor 1, which b64ndarrays does not hold");
  EXPECT_EQ(testing::parse_error(program(section("P6G0lvBAXt0*"))), "m.relay:6:1: metadata b64ndarrays holds invalid base64");
  EXPECT_EQ(testing::parse_error(program(section("AAAAAAAAAAAAAAAA"))),
            "m.relay:6:1: metadata tensor 0 does not start with the NDArray magic number");
  EXPECT_EQ(testing::parse_error(program(section("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPw=="))),
            "m.relay:6:1: metadata tensor 0 is truncated");
  EXPECT_EQ(testing::parse_error(program(section("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAEBAQACAAAAAAAAAAIAAAAAAAAAAQI="))),
            "m.relay:6:1: metadata tensor 0 is a bool array holding a byte other than 0 or 1");
  // Two dims of 2^40 elements with no data: rejected before anything is allocated.
  EXPECT_EQ(testing::parse_error(program(section("P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQAAAAAAAAEAAAAAAAAAAQAAAAAAAAAAAAA="))),
            "m.relay:6:1: metadata tensor 0 has more elements than its bytes can hold");
}

TEST_F(TextMetadataTest, BadReferencesSayWhatTheSectionHolds) {
  EXPECT_EQ(testing::parse_error(program(section(kTwoFloats), 3)),
            "m.relay:3:16: `meta[relay.Constant][3]` is out of range: the metadata section holds 1 constants");
  EXPECT_EQ(testing::parse_error("def @main(%x) {\n  test.add(%x, meta[relay.Constant][0])\n}\n"),
            "m.relay:2:16: `meta[relay.Constant][0]` refers to a metadata section the text does not have; expected "
            "`#[metadata]` at the end");
  EXPECT_EQ(testing::parse_error("def @main(%x) {\n  test.add(%x, meta[relay.Function][0])\n}\n"),
            "m.relay:2:16: unsupported meta reference `meta[relay.Function][0]`; expected meta[relay.Constant][N]");
}

}  // namespace
}  // namespace weft

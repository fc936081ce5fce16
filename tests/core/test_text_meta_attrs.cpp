// Call attributes printed as `meta[relay.attrs.XAttrs][N]`: TVM v0.19's
// printer writes a call's attrs so, into the `#[metadata]` section, when their
// type is not the one its op registers (nn.avg_pool2d_grad registers
// MaxPool2DAttrs but builds AvgPool2DAttrs; nn.dilate registers none). The
// section is SaveJSON's node graph: the attrs node lists every field of its
// struct as a string, scalars as text and objects as node indices. Each call
// must read as the same call with its attributes inline.
#include <gtest/gtest.h>

#include "support/op_test.h"
#include "weft/passes.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

// relay.nn.conv2d(x, w, channels=4, kernel_size=(3, 3), padding=(1, 1)) as
// astext() lays its attrs out in the section (node order as NodeIndexer
// visits the fields; IntImms of int64 as Python builds them).
const char* const kConv2dSection = R"({
  "root": 1, 
  "nodes": [
    {
      "type_key": ""
    }, 
    {
      "type_key": "Map", 
      "keys": [
        "relay.attrs.Conv2DAttrs"
      ], 
      "data": [2]
    }, 
    {
      "type_key": "Array", 
      "data": [3]
    }, 
    {
      "type_key": "relay.attrs.Conv2DAttrs", 
      "attrs": {
        "channels": "15", 
        "data_layout": "19", 
        "dilation": "12", 
        "groups": "1", 
        "kernel_layout": "20", 
        "kernel_size": "16", 
        "out_dtype": "", 
        "out_layout": "21", 
        "padding": "7", 
        "strides": "4"
      }
    }, 
    {
      "type_key": "Array", 
      "data": [5, 6]
    }, 
    {
      "type_key": "IntImm", 
      "attrs": {
        "dtype": "int64", 
        "span": "0", 
        "value": "1"
      }
    }, 
    {
      "type_key": "IntImm", 
      "attrs": {
        "dtype": "int64", 
        "span": "0", 
        "value": "1"
      }
    }, 
    {
      "type_key": "Array", 
      "data": [8, 9, 10, 11]
    }, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "1"}}, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "1"}}, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "1"}}, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "1"}}, 
    {
      "type_key": "Array", 
      "data": [13, 14]
    }, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "1"}}, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "1"}}, 
    {"type_key": "IntImm", "attrs": {"dtype": "int32", "span": "0", "value": "4"}}, 
    {
      "type_key": "Array", 
      "data": [17, 18]
    }, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "3"}}, 
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "3"}}, 
    {
      "type_key": "runtime.String", 
      "repr_str": "NCHW"
    }, 
    {
      "type_key": "runtime.String", 
      "repr_str": "OIHW"
    }, 
    {
      "type_key": "runtime.String"
    }
  ], 
  "b64ndarrays": [], 
  "attrs": {"tvm_version": "0.19.0"}
})";

const char* const kConv2dParams = "%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(4, 2, 3, 3), float32]";

std::string program(const std::string& params, const std::string& body, const std::string& section = "") {
  std::string text = "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + body + "\n}\n";
  return section.empty() ? text : text + "\n#[metadata]\n" + section;
}

IRModule typed(const std::string& text) { return infer_type(parse_module(text, "m.relay")); }

void expect_same_as_inline(const std::string& with_meta, const std::string& with_inline) {
  try {
    IRModule a = typed(with_meta);
    IRModule b = typed(with_inline);
    EXPECT_TRUE(structural_equal(a, b)) << with_meta;
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
  }
}

/// A section listing one attrs node of `type_key` with `fields`, and the
/// `objects` its fields refer to, numbered from 4 (TVM's layout: the null
/// node, the root Map, the Array of the key, the attrs node).
std::string attrs_section(const std::string& type_key, const std::string& fields,
                          const std::vector<std::string>& objects = {}) {
  std::string out = "{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": \"Map\", \"keys\": [\"" + type_key +
                    "\"], \"data\": [2]}, {\"type_key\": \"Array\", \"data\": [3]}, {\"type_key\": \"" + type_key +
                    "\", \"attrs\": {" + fields + "}}";
  for (const std::string& o : objects) out += ", " + o;
  return out + "], \"b64ndarrays\": [], \"attrs\": {\"tvm_version\": \"0.19.0\"}}";
}

std::string int_imm(int64_t v, const std::string& dtype = "int64") {
  return "{\"type_key\": \"IntImm\", \"attrs\": {\"dtype\": \"" + dtype + "\", \"span\": \"0\", \"value\": \"" +
         std::to_string(v) + "\"}}";
}
std::string array(const std::string& elements) { return "{\"type_key\": \"Array\", \"data\": [" + elements + "]}"; }
std::string string_obj(const std::string& s) {
  return s.empty() ? "{\"type_key\": \"runtime.String\"}" : "{\"type_key\": \"runtime.String\", \"repr_str\": \"" + s + "\"}";
}

TEST(TextMetaAttrs, Conv2dAttrsInTheSectionReadAsInline) {
  expect_same_as_inline(
      program(kConv2dParams, "nn.conv2d(%x, %w, meta[relay.attrs.Conv2DAttrs][0])", kConv2dSection),
      program(kConv2dParams, "nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])"));
}

// MakeAvgPool2DGrad builds AvgPool2DAttrs for an op registering MaxPool2DAttrs,
// so TVM prints its attrs only this way.
TEST(TextMetaAttrs, AvgPool2dGradAttrsAsTvmPrintsThem) {
  std::string fields =
      "\"ceil_mode\": \"0\", \"count_include_pad\": \"1\", \"dilation\": \"10\", \"layout\": \"13\", "
      "\"out_layout\": \"14\", \"padding\": \"7\", \"pool_size\": \"4\", \"strides\": \"4\"";
  std::string section = attrs_section("relay.attrs.AvgPool2DAttrs", fields,
                                      {array("5, 6"), int_imm(2), int_imm(2), array("8, 9"), int_imm(0), int_imm(0),
                                       array("11, 12"), int_imm(1), int_imm(1), string_obj("NCHW"), string_obj("")});
  const std::string params = "%g: Tensor[(1, 1, 2, 2), float32], %x: Tensor[(1, 1, 4, 4), float32]";
  expect_same_as_inline(
      program(params, "nn.avg_pool2d_grad(%g, %x, meta[relay.attrs.AvgPool2DAttrs][0])", section),
      program(params, "nn.avg_pool2d_grad(%g, %x, pool_size=[2, 2], strides=[2, 2], padding=[0, 0], "
                      "count_include_pad=True)"));
}

// nn.dilate registers no attrs type; a double field is written with 17 digits.
TEST(TextMetaAttrs, DilateAttrsWithADoubleField) {
  std::string section = attrs_section("relay.attrs.DilateAttrs",
                                      "\"dilation_value\": \"0.10000000000000001\", \"strides\": \"4\"",
                                      {array("5, 6, 7, 8"), int_imm(1), int_imm(1), int_imm(2), int_imm(2)});
  const std::string params = "%x: Tensor[(1, 1, 3, 3), float32]";
  expect_same_as_inline(program(params, "nn.dilate(%x, meta[relay.attrs.DilateAttrs][0])", section),
                        program(params, "nn.dilate(%x, strides=[1, 1, 2, 2], dilation_value=0.1f)"));
}

TEST(TextMetaAttrs, BoxedIntsNestedArraysAndStringsRead) {
  const std::string x = "%x: Tensor[(2, 6), float32]";
  expect_same_as_inline(
      program(x, "split(%x, meta[relay.attrs.SplitAttrs][0])",
              attrs_section("relay.attrs.SplitAttrs", "\"axis\": \"1\", \"indices_or_sections\": \"4\"",
                            {"{\"type_key\": \"runtime.BoxInt\", \"repr_str\": \"3\"}"})),
      program(x, "split(%x, indices_or_sections=3, axis=1)"));
  expect_same_as_inline(
      program(x, "split(%x, meta[relay.attrs.SplitAttrs][0])",
              attrs_section("relay.attrs.SplitAttrs", "\"axis\": \"-1\", \"indices_or_sections\": \"4\"",
                            {array("5, 6"), "{\"type_key\": \"runtime.BoxInt\", \"repr_str\": \"1\"}",
                             "{\"type_key\": \"runtime.BoxInt\", \"repr_str\": \"4\"}"})),
      program(x, "split(%x, indices_or_sections=[1, 4], axis=-1)"));
  // PadAttrs: pad_width an Array of Arrays of Integers, pad_mode a String.
  expect_same_as_inline(
      program(x + ", %v: float32", "nn.pad(%x, %v, meta[relay.attrs.PadAttrs][0])",
              attrs_section("relay.attrs.PadAttrs", "\"pad_mode\": \"10\", \"pad_width\": \"4\"",
                            {array("5, 6"), array("7, 7"), array("8, 9"), int_imm(0, "int32"), int_imm(1, "int32"),
                             int_imm(2, "int32"), string_obj("reflect")})),
      program(x + ", %v: float32", "nn.pad(%x, %v, pad_width=[[0, 0], [1, 2]], pad_mode=\"reflect\")"));
}

std::string float_imm(const std::string& value, const std::string& dtype = "float32") {
  return "{\"type_key\": \"FloatImm\", \"attrs\": {\"dtype\": \"" + dtype + "\", \"span\": \"0\", \"value\": \"" +
         value + "\"}}";
}
/// A DictAttrs node whose `__dict__` is the Map at node 4 with `keys` and
/// `values` (node indices), followed by the `objects` from node 5.
std::string dict_attrs_section(const std::string& keys, const std::string& values,
                               const std::vector<std::string>& objects = {}) {
  std::vector<std::string> nodes = {"{\"type_key\": \"Map\", \"keys\": [" + keys + "], \"data\": [" + values + "]}"};
  nodes.insert(nodes.end(), objects.begin(), objects.end());
  return attrs_section("DictAttrs", "\"__dict__\": \"4\"", nodes);
}

// Attrs built as a dictionary (tvm.ir.make_node("DictAttrs", ...), the attrs
// of a call to an op that registers no attrs type) print as meta[DictAttrs][N];
// each entry is the attribute of its name.
TEST(TextMetaAttrs, DictAttrsEntriesReadAsTheAttributesTheyName) {
  const std::string x = "%x: Tensor[(2, 3), float32]";
  expect_same_as_inline(program(x, "nn.leaky_relu(%x, meta[DictAttrs][0])",
                                dict_attrs_section("\"alpha\"", "5", {float_imm("0.20000000000000001")})),
                        program(x, "nn.leaky_relu(%x, alpha=0.2f)"));
  expect_same_as_inline(
      program(x, "sum(%x, meta[DictAttrs][0])",
              dict_attrs_section("\"axis\", \"keepdims\"", "5, 7",
                                 {array("6"), int_imm(1, "int32"), int_imm(1, "bool")})),
      program(x, "sum(%x, axis=[1], keepdims=True)"));
  // An empty dictionary, and a null one, are no attributes at all.
  expect_same_as_inline(program(x, "nn.relu(%x, meta[DictAttrs][0])", dict_attrs_section("", "")),
                        program(x, "nn.relu(%x)"));
  expect_same_as_inline(program(x, "nn.relu(%x, meta[DictAttrs][0])", attrs_section("DictAttrs", "\"__dict__\": \"0\"")),
                        program(x, "nn.relu(%x)"));
}

TEST(TextMetaAttrs, MalformedDictAttrsAreErrorsNamingTheOp) {
  const std::string x = "%x: Tensor[(2, 3), float32]";
  EXPECT_EQ(testing::parse_error(program(x, "nn.leaky_relu(%x, meta[DictAttrs][0])", attrs_section("DictAttrs", ""))),
            "m.relay:3:21: op nn.leaky_relu: `meta[DictAttrs][0]`: the DictAttrs node has no field `__dict__`; "
            "expected a `__dict__` field holding the index of a Map");
  EXPECT_EQ(testing::parse_error(program(x, "nn.leaky_relu(%x, meta[DictAttrs][1])", dict_attrs_section("", ""))),
            "m.relay:3:21: op nn.leaky_relu: `meta[DictAttrs][1]` is out of range: the metadata section holds 1 "
            "DictAttrs nodes; expected an index below 1");
  EXPECT_EQ(testing::parse_error(program(x, "nn.leaky_relu(%x, meta[DictAttrs][0])",
                                         attrs_section("DictAttrs", "\"__dict__\": \"4\"", {array("")}))),
            "m.relay:3:21: op nn.leaky_relu, attr __dict__: metadata field `__dict__` holds a Array node; expected "
            "what SaveJSON writes for a member of type Map<String, ObjectRef>");
  EXPECT_EQ(testing::parse_error(program(x, "nn.leaky_relu(%x, meta[DictAttrs][0])",
                                         attrs_section("DictAttrs", "\"__dict__\": \"4\"",
                                                       {"{\"type_key\": \"Map\", \"data\": [5, 6]}",
                                                        string_obj("alpha"), float_imm("0.5")}))),
            "m.relay:3:21: op nn.leaky_relu, attr __dict__: metadata field `__dict__` holds a Map whose keys are not "
            "all strings; expected what SaveJSON writes for a member of type Map<String, ObjectRef>");
  EXPECT_EQ(testing::parse_error(program(x, "nn.leaky_relu(%x, meta[DictAttrs][0])",
                                         dict_attrs_section("\"alpha\"", "9"))),
            "m.relay:3:21: op nn.leaky_relu, attr alpha: metadata field `alpha` holds a value that is no node index of "
            "the section; expected what SaveJSON writes for a member of type ObjectRef");
  // An entry the op has no attribute for: the schema's own error, as inline.
  std::string error = testing::parse_error(program(x, "nn.leaky_relu(%x, meta[DictAttrs][0])",
                                                   dict_attrs_section("\"beta\"", "5", {float_imm("0.5")})));
  EXPECT_EQ(error, testing::parse_error(program(x, "nn.leaky_relu(%x, beta=0.5f)")));
  EXPECT_NE(error.find("beta"), std::string::npos) << error;
}

// A section listing the node `fields` as `type_key`'s, for the errors below.
std::string conv2d_with(const std::string& type_key, const std::string& fields,
                        const std::vector<std::string>& objects = {}, int index = 0) {
  return program(kConv2dParams,
                 "nn.conv2d(%x, %w, meta[" + type_key + "][" + std::to_string(index) + "])",
                 attrs_section(type_key, fields, objects));
}

TEST(TextMetaAttrs, BadReferencesAreErrorsNamingTheOp) {
  EXPECT_EQ(testing::parse_error(conv2d_with("relay.attrs.NoSuchAttrs", "")),
            "m.relay:3:21: op nn.conv2d: `meta[relay.attrs.NoSuchAttrs][0]`: TVM v0.19 has no attrs type "
            "relay.attrs.NoSuchAttrs; expected relay.attrs.Conv2DAttrs");
  EXPECT_EQ(testing::parse_error(conv2d_with("relay.attrs.DenseAttrs", "\"out_dtype\": \"\", \"units\": \"0\"")),
            "m.relay:3:21: op nn.conv2d: `meta[relay.attrs.DenseAttrs][0]` holds relay.attrs.DenseAttrs, which is not "
            "nn.conv2d's attrs type; expected relay.attrs.Conv2DAttrs");
  EXPECT_EQ(testing::parse_error(conv2d_with("relay.attrs.Conv2DAttrs", "\"groups\": \"1\"", {}, 1)),
            "m.relay:3:21: op nn.conv2d: `meta[relay.attrs.Conv2DAttrs][1]` is out of range: the metadata section holds "
            "1 relay.attrs.Conv2DAttrs nodes; expected an index below 1");
  EXPECT_EQ(testing::parse_error(program("%x: Tensor[(2), float32]", "nn.relu(%x, meta[relay.attrs.Conv2DAttrs][0])",
                                         attrs_section("relay.attrs.Conv2DAttrs", ""))),
            "m.relay:3:15: op nn.relu: `meta[relay.attrs.Conv2DAttrs][0]`: nn.relu takes no attrs type in TVM v0.19; "
            "expected the attributes inline, as key=value");
  EXPECT_EQ(testing::parse_error(program(kConv2dParams, "nn.conv2d(%x, %w, meta[relay.attrs.Conv2DAttrs][0])")),
            "m.relay:3:21: op nn.conv2d: `meta[relay.attrs.Conv2DAttrs][0]` refers to a metadata section the text does "
            "not have; expected `#[metadata]` at the end (astext(show_meta_data=True))");
  EXPECT_EQ(testing::parse_error(program("%x: Tensor[(2), float32]", "(meta[relay.attrs.Conv2DAttrs][0], %x)",
                                         attrs_section("relay.attrs.Conv2DAttrs", ""))),
            "m.relay:3:4: `meta[relay.attrs.Conv2DAttrs][0]` is a call's attributes; expected it as the last argument "
            "of an operator call");
}

TEST(TextMetaAttrs, FieldsNotInTheirMemberTypesFormAreErrorsNamingTheField) {
  const std::string conv = "relay.attrs.Conv2DAttrs";
  EXPECT_EQ(testing::parse_error(conv2d_with(conv, "\"groups\": \"one\"")),
            "m.relay:3:21: op nn.conv2d, attr groups: metadata field `groups` holds \"one\", which is not a 64-bit "
            "integer; expected what SaveJSON writes for a member of type int");
  EXPECT_EQ(testing::parse_error(conv2d_with(conv, "\"strides\": \"4\"", {string_obj("NCHW")})),
            "m.relay:3:21: op nn.conv2d, attr strides: metadata field `strides` holds a runtime.String node; expected "
            "what SaveJSON writes for a member of type Array<IndexExpr>");
  EXPECT_EQ(testing::parse_error(conv2d_with(conv, "\"strides\": \"40\"")),
            "m.relay:3:21: op nn.conv2d, attr strides: metadata field `strides` holds \"40\", which is no node index "
            "(the section has 4 nodes); expected what SaveJSON writes for a member of type Array<IndexExpr>");
  EXPECT_EQ(testing::parse_error(conv2d_with(conv, "\"strides\": \"4\"", {array("4")})),
            "m.relay:3:21: op nn.conv2d, attr strides: metadata field `strides` holds Arrays nested deeper than 8 "
            "levels; expected what SaveJSON writes for a member of type Array<IndexExpr>");
  EXPECT_EQ(testing::parse_error(conv2d_with(conv, "\"bogus\": \"1\"")),
            "m.relay:3:21: op nn.conv2d, attr bogus: `meta[relay.attrs.Conv2DAttrs][0]`: relay.attrs.Conv2DAttrs has no "
            "field `bogus`; expected one of: strides, padding, dilation, groups, channels, kernel_size, data_layout, "
            "kernel_layout, out_layout, out_dtype");
  EXPECT_EQ(testing::parse_error(program("%x: Tensor[(2, 2), float32]", "nn.avg_pool2d_grad(%x, %x, "
                                         "meta[relay.attrs.AvgPool2DAttrs][0])",
                                         attrs_section("relay.attrs.AvgPool2DAttrs", "\"ceil_mode\": \"2\""))),
            "m.relay:3:30: op nn.avg_pool2d_grad, attr ceil_mode: metadata field `ceil_mode` holds \"2\", not \"0\" or "
            "\"1\"; expected what SaveJSON writes for a member of type bool");
  // A value of the right form that the op's schema refuses: the schema's own error.
  std::string error = testing::parse_error(conv2d_with(conv, "\"padding\": \"4\"",
                                                       {array("5, 5, 5"), int_imm(1)}));
  EXPECT_EQ(error.rfind("m.relay:3:3: op nn.conv2d, attr padding: ", 0), 0u) << error;
}

}  // namespace
}  // namespace weft

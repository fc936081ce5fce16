// Attrs of calls read from Relay text, checked against the reference's own
// attrs definitions (tests/golden/tvm_attrs/tvm_attr_defaults.json, generated
// from TVM v0.19's include/tvm/relay/attrs/*.h and src/relay/op): TVM prints
// only the fields that differ from its C++ attrs defaults, prints every field
// of the attrs struct the op registers (also those the op ignores), and prints
// what its Make function leaves unset in default-constructed form
// (`dilation=[]`). Reading such text must give what TVM reads.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "support/op_test.h"
#include "weft/plugin_loader.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {

namespace {

struct ReferenceField {
  std::string op, field;
  const nlohmann::json* spec;  // {"default": v} | {"required": true}, maybe "unset_by_make"
};

/// Every field of every reference op the tensor and nn plugins register.
std::vector<ReferenceField> reference_fields() {
  static const nlohmann::json doc =
      testing::read_json(std::string(WEFT_GOLDEN_DIR) + "/tvm_attrs/tvm_attr_defaults.json");
  PluginLoader::global().load("tensor");
  PluginLoader::global().load("nn");
  std::vector<ReferenceField> out;
  for (const auto& [op, entry] : doc.at("ops").items()) {
    const OpDef* def = OpRegistry::global().find_loaded(op);
    if (!def || (def->plugin != "tensor" && def->plugin != "nn")) continue;
    for (const auto& [field, spec] : entry.at("fields").items()) out.push_back({op, field, &spec});
  }
  return out;
}

/// `field` of `op` normalized alone: given `value`, or (nullopt) left out of a
/// call read from text.
AttrValue read_field(const ReferenceField& f, const std::optional<AttrValue>& value) {
  const AttrField* field = OpRegistry::global().get(f.op).attrs.find(f.field);
  AttrSchema alone({*field});
  std::vector<std::pair<std::string, AttrValue>> given;
  if (value) given.emplace_back(f.field, *value);
  return alone.normalize(f.op, make_attrs(std::move(given)), AttrDefaults::kText)->at(f.field);
}

TEST(TextAttrDefaults, TheReferenceOpsAreCovered) {
  // A guard against an empty or misread table: nn.conv2d and sum are in it.
  std::set<std::string> ops;
  for (const ReferenceField& f : reference_fields()) ops.insert(f.op);
  EXPECT_TRUE(ops.count("nn.conv2d") && ops.count("sum") && ops.count("nn.batch_matmul"));
  EXPECT_GT(ops.size(), 90u);
}

TEST(TextAttrDefaults, EveryFieldOfTheReferenceAttrsStructIsAccepted) {
  for (const ReferenceField& f : reference_fields()) {
    EXPECT_NE(OpRegistry::global().get(f.op).attrs.find(f.field), nullptr)
        << f.op << " does not accept the reference's attr " << f.field;
  }
}

/// Reference defaults that no program can use, where weft keeps the Python
/// wrapper's default (docs/ops.md lists them): TVM's own relations fail or
/// build a void-typed tensor on them, and TVM's printer never leaves them out
/// of what its Python API built.
const std::map<std::pair<std::string, std::string>, std::string> kUnusableReferenceDefaults = {
    {{"nn.bitpack", "pack_type"}, "void dtype"},
    {{"nn.bitserial_conv2d", "pack_dtype"}, "void dtype"},
    {{"nn.bitserial_conv2d", "out_dtype"}, "void dtype"},
    {{"nn.bitserial_dense", "pack_dtype"}, "void dtype"},
    {{"nn.bitserial_dense", "out_dtype"}, "void dtype"},
    {{"zeros", "dtype"}, "void dtype"},
    {{"ones", "dtype"}, "void dtype"},
    {{"nn.group_norm", "num_groups"}, "0 groups: the reference divides by it"},
    {{"repeat", "axis"}, "None: the reference's relation reads it as an int"},
};

TEST(TextAttrDefaults, AnAttrLeftOutOfTextGetsTheReferenceCppDefault) {
  int checked = 0;
  for (const ReferenceField& f : reference_fields()) {
    if (!f.spec->contains("default") || !OpRegistry::global().get(f.op).attrs.find(f.field)) continue;
    if (kUnusableReferenceDefaults.count({f.op, f.field})) continue;
    SCOPED_TRACE(f.op + " " + f.field + " = " + f.spec->at("default").dump());
    try {
      AttrValue left_out = read_field(f, std::nullopt);
      AttrValue given = read_field(f, testing::attr_from_json(f.spec->at("default")));
      EXPECT_TRUE(left_out == given) << "left out reads " << left_out.str() << ", the default given reads " << given.str();
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
    ++checked;
  }
  EXPECT_GT(checked, 300);
}

TEST(TextAttrDefaults, WhatAMakeFunctionLeavesUnsetReadsAsTheDefault) {
  // e.g. nn.max_pool2d_grad's Make never sets dilation: TVM prints `dilation=[]`.
  int checked = 0;
  for (const ReferenceField& f : reference_fields()) {
    if (!f.spec->contains("unset_by_make") || !OpRegistry::global().get(f.op).attrs.find(f.field)) continue;
    SCOPED_TRACE(f.op + " " + f.field + " = " + f.spec->at("unset_by_make").dump());
    try {
      AttrValue unset = read_field(f, testing::attr_from_json(f.spec->at("unset_by_make")));
      AttrValue left_out = read_field(f, std::nullopt);
      EXPECT_TRUE(unset == left_out) << "unset reads " << unset.str() << ", left out reads " << left_out.str();
    } catch (const Error& e) {
      ADD_FAILURE() << e.what();
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

/// A call as TVM v0.19 prints it, with one attr's value as TVM reads it and
/// the output type TVM infers.
struct PrintedCall {
  std::string params, call, attr;
  AttrValue value;
  std::string type;
};

void PrintTo(const PrintedCall& c, std::ostream* os) { *os << c.call; }

class PrintedByTvm : public ::testing::TestWithParam<PrintedCall> {};

TEST_P(PrintedByTvm, ReadsAsTvmReadsIt) {
  const PrintedCall& c = GetParam();
  try {
    IRModule mod = infer_type(parse_module("def @main(" + c.params + ") {\n  " + c.call + "\n}\n"));
    const auto* body = mod.main()->body.as<CallNode>();
    ASSERT_NE(body, nullptr);
    EXPECT_EQ(body->attrs->at(c.attr), c.value) << c.attr;
    EXPECT_EQ(type_to_text(body->checked_type()), c.type);
  } catch (const Error& e) {
    ADD_FAILURE() << e.what();
  }
}

// Ops whose Python wrapper default differs from the C++ attrs struct's: the
// text leaves the attr out exactly when it has the struct's default.
INSTANTIATE_TEST_SUITE_P(
    DefaultsThatDiffer, PrintedByTvm,
    ::testing::Values(
        // BatchMatmulAttrs: transpose_b = false (the wrapper's True is printed).
        PrintedCall{"%x: Tensor[(2, 3, 4), float32], %y: Tensor[(2, 4, 5), float32]", "nn.batch_matmul(%x, %y)",
                    "transpose_b", false, "Tensor[(2, 3, 5), float32]"},
        PrintedCall{"%x: Tensor[(2, 3, 4), float32], %y: Tensor[(2, 5, 4), float32]",
                    "nn.batch_matmul(%x, %y, transpose_b=True)", "transpose_b", true, "Tensor[(2, 3, 5), float32]"},
        // LeakyReluAttrs: alpha = 0.25 (the wrapper's 0.01 is printed).
        PrintedCall{"%x: Tensor[(4), float32]", "nn.leaky_relu(%x)", "alpha", 0.25, "Tensor[(4), float32]"},
        PrintedCall{"%x: Tensor[(4), float32]", "nn.leaky_relu(%x, alpha=0.01f)", "alpha", 0.01,
                    "Tensor[(4), float32]"},
        // LRNAttrs: alpha = 0.0001 (the wrapper's 1e-05 is printed).
        PrintedCall{"%x: Tensor[(1, 6, 2, 2), float32]", "nn.lrn(%x)", "alpha", 1e-4, "Tensor[(1, 6, 2, 2), float32]"},
        // BitPackAttrs: bit_axis = -1 (the wrapper's 2 is printed).
        PrintedCall{"%x: Tensor[(1, 32, 4), int32]", "nn.bitpack(%x, bit_axis=2)", "bit_axis", int64_t{2},
                    "Tensor[(1, 1, 1, 4), uint32]"}));

// Fields TVM prints although the op ignores them or its Make left them unset,
// and the None it prints for fields without a C++ default.
INSTANTIATE_TEST_SUITE_P(
    FieldsTvmPrints, PrintedByTvm,
    ::testing::Values(
        // MakeMaxPool2DGrad never sets MaxPool2DAttrs' dilation.
        PrintedCall{"%g: Tensor[(1, 1, 2, 2), float32], %x: Tensor[(1, 1, 4, 4), float32]",
                    "nn.max_pool2d_grad(%g, %x, pool_size=[2, 2], strides=[2, 2], dilation=[])", "dilation",
                    AttrValue({1, 1}), "Tensor[(1, 1, 4, 4), float32]"},
        PrintedCall{"%g: Tensor[(1, 1, 2, 2), float32], %x: Tensor[(1, 1, 4, 4), float32]",
                    "nn.avg_pool2d_grad(%g, %x, pool_size=[2, 2], strides=[2, 2], dilation=[])", "dilation",
                    AttrValue({1, 1}), "Tensor[(1, 1, 4, 4), float32]"},
        // MakeSpaceToDepth never sets SubPixelAttrs' mode, which space_to_depth ignores.
        PrintedCall{"%x: Tensor[(1, 1, 4, 4), float32]", "nn.space_to_depth(%x, block_size=2, mode=\"\")", "mode",
                    "DCR", "Tensor[(1, 4, 2, 2), float32]"},
        // AdaptivePool2DAttrs' default [] and the wrapper's None keep the extents.
        PrintedCall{"%x: Tensor[(1, 3, 5, 5), float32]", "nn.adaptive_avg_pool2d(%x)", "output_size", AttrValue(),
                    "Tensor[(1, 3, 5, 5), float32]"},
        PrintedCall{"%x: Tensor[(1, 3, 5, 5), float32]", "nn.adaptive_max_pool2d(%x, output_size=None)",
                    "output_size", AttrValue(), "Tensor[(1, 3, 5, 5), float32]"},
        // Fields without a C++ default are always printed, None included.
        PrintedCall{"%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]", "nn.dense(%x, %w, units=None)",
                    "units", AttrValue(), "Tensor[(2, 4), float32]"},
        PrintedCall{"%x: Tensor[(2, 3, 4), float32]", "transpose(%x, axes=None)", "axes", AttrValue(),
                    "Tensor[(4, 3, 2), float32]"},
        PrintedCall{"%x: Tensor[(3, 4), float32]", "strided_slice(%x, begin=[0, 1], end=[2, 3], strides=[1], axes=None)",
                    "axes", AttrValue(), "Tensor[(2, 2), float32]"}));

/// `op` over `args` built with the C++ builder: its attrs keep the Python
/// wrapper's defaults, print where they differ from the struct's, and read back.
void expect_builder_default(const std::string& op, const std::vector<Type>& arg_types, const std::string& attr,
                            const AttrValue& wrapper_default) {
  std::vector<Var> params;
  std::vector<Expr> args;
  for (size_t i = 0; i < arg_types.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), arg_types[i]));
    args.push_back(params.back());
  }
  Call c = call(op, args);
  EXPECT_EQ(c->attrs->at(attr), wrapper_default) << op;
  IRModule mod = infer_type(IRModule::from_function(function(params, c)));
  std::string text = to_text(mod);
  EXPECT_NE(text.find(attr + "=" + wrapper_default.str()), std::string::npos) << text;
  EXPECT_TRUE(structural_equal(mod, parse_module(text))) << text;
}

TEST(BuilderAttrDefaults, CallsBuiltInCppKeepThePythonWrappersDefaults) {
  expect_builder_default("nn.batch_matmul", {tensor_type({2, 3, 4}), tensor_type({2, 5, 4})}, "transpose_b", true);
  expect_builder_default("nn.leaky_relu", {tensor_type({4})}, "alpha", 0.01);
  expect_builder_default("nn.lrn", {tensor_type({1, 6, 2, 2})}, "alpha", 1e-5);
  expect_builder_default("nn.bitpack", {tensor_type({1, 32, 4}, DataType::Int(32))}, "bit_axis", int64_t{2});
}

TEST(TextAttrDefaults, ABitpackWithoutBitAxisIsTheReferencesMinusOneAndRejected) {
  // TVM reads bit_axis -1, which its own relation turns into no bit-plane axis
  // at all; weft names the attr instead of guessing.
  try {
    infer_type(parse_module("def @main(%x: Tensor[(1, 32, 4), int32]) {\n  nn.bitpack(%x)\n}\n"));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bit_axis"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace weft

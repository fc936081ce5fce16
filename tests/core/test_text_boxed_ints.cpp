// Boxed integers in attrs: TVM 0.19 keeps split's indices_or_sections as a
// runtime.Box<int64_t> (SplitAttrs' Variant<runtime::Int, Array<runtime::Int>>),
// which its printer writes as meta[runtime.BoxInt][N] with the value in the
// metadata section (a node {"type_key": "runtime.BoxInt", "repr_str": "4"}),
// or, with show_meta_data=False, nowhere but in what the program implies.
// The texts below are laid out as TVM prints them after InferType.
#include <gtest/gtest.h>

#include "support/op_test.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

const char* const kOmittedNote =
    "/* For debugging purposes the metadata section has been omitted.\n"
    " * If you would like to see the full metadata section you can set the \n"
    " * option to `True` when invoking `astext`. \n"
    " */";

// relay.split(x, 4, axis=1), parts 0 and 3 added.
std::string four_sections(const std::string& tail) {
  return "#[version = \"0.0.5\"]\n"
         "def @main(%x: Tensor[(1, 8), float32] /* ty=Tensor[(1, 8), float32] */) -> Tensor[(1, 2), float32] {\n"
         "  %0 = split(%x, indices_or_sections=meta[runtime.BoxInt][0], axis=1) /* ty=(Tensor[(1, 2), float32], "
         "Tensor[(1, 2), float32], Tensor[(1, 2), float32], Tensor[(1, 2), float32]) */;\n"
         "  %1 = %0.0 /* ty=Tensor[(1, 2), float32] */;\n"
         "  %2 = %0.3 /* ty=Tensor[(1, 2), float32] */;\n"
         "  add(%1, %2) /* ty=Tensor[(1, 2), float32] */\n"
         "}\n"
         "\n" +
         tail;
}

// relay.split(x, (2, 5), axis=-1), all three parts returned.
std::string cut_at_indices(const std::string& annotation, const std::string& tail) {
  return "#[version = \"0.0.5\"]\n"
         "def @main(%x: Tensor[(1, 8), float32] /* ty=Tensor[(1, 8), float32] */) {\n"
         "  split(%x, indices_or_sections=[meta[runtime.BoxInt][0], meta[runtime.BoxInt][1]], axis=-1)" +
         annotation +
         "\n"
         "}\n"
         "\n" +
         tail;
}

const char* const kIndicesType =
    " /* ty=(Tensor[(1, 2), float32], Tensor[(1, 3), float32], Tensor[(1, 3), float32]) */";

// The section SaveJSON writes for boxed integers holding `values`, in dmlc's layout.
std::string boxed_int_section(const std::vector<std::string>& values) {
  std::string items, nodes;
  for (size_t i = 0; i < values.size(); ++i) {
    items += (i ? ", " : "") + std::to_string(3 + i);
    nodes += ", \n    {\n      \"type_key\": \"runtime.BoxInt\", \n      \"repr_str\": \"" + values[i] + "\"\n    }";
  }
  return "#[metadata]\n"
         "{\n"
         "  \"root\": 1, \n"
         "  \"nodes\": [\n"
         "    {\n"
         "      \"type_key\": \"\"\n"
         "    }, \n"
         "    {\n"
         "      \"type_key\": \"Map\", \n"
         "      \"keys\": [\n"
         "        \"runtime.BoxInt\"\n"
         "      ], \n"
         "      \"data\": [2]\n"
         "    }, \n"
         "    {\n"
         "      \"type_key\": \"Array\", \n"
         "      \"data\": [" +
         items + "]\n    }" + nodes +
         "\n"
         "  ], \n"
         "  \"b64ndarrays\": [], \n"
         "  \"attrs\": {\"tvm_version\": \"0.19.0\"}\n"
         "}";
}

// indices_or_sections of main's split: its body, or the call its body's first
// argument projects from.
const AttrValue& split_sections(const IRModule& mod) {
  const auto* call = static_cast<const CallNode*>(mod.main()->body.get());
  if (call->args[0]->kind == ExprKind::kTupleGetItem)
    call = static_cast<const CallNode*>(static_cast<const TupleGetItemNode&>(*call->args[0]).tuple.get());
  return call->attrs->at("indices_or_sections");
}

std::vector<Tensor> run_on_0_to_7(const IRModule& mod) {
  Tensor x = Tensor::empty({1, 8}, DataType::Float(32));
  for (int i = 0; i < 8; ++i) x.data_as<float>()[i] = static_cast<float>(i);
  return Interpreter(mod).run_main({Value(x)}).flatten();
}

TEST(TextBoxedInts, ABoxedIntReadsFromTheMetadataSection) {
  IRModule mod = parse_module(four_sections(boxed_int_section({"4"})));
  EXPECT_EQ(split_sections(mod), AttrValue(int64_t{4}));
  std::vector<Tensor> out = run_on_0_to_7(mod);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(out[0].data_as<float>()[0], 0.0f + 6.0f);  // x[0, 0] + x[0, 6]
  EXPECT_EQ(out[0].data_as<float>()[1], 1.0f + 7.0f);
}

TEST(TextBoxedInts, WithoutTheSectionSplitsSectionsComeFromItsAnnotatedParts) {
  IRModule with_section = parse_module(four_sections(boxed_int_section({"4"})));
  IRModule without = parse_module(four_sections(kOmittedNote));
  EXPECT_EQ(split_sections(without), AttrValue(int64_t{4}));
  EXPECT_TRUE(structural_equal(without, with_section));
  EXPECT_EQ(run_on_0_to_7(without)[0].data_as<float>()[1], 8.0f);
}

TEST(TextBoxedInts, BoxedIndicesReadFromTheSectionOrFromWhereEachPartEnds) {
  IRModule with_section = parse_module(cut_at_indices(kIndicesType, boxed_int_section({"2", "5"})));
  EXPECT_EQ(split_sections(with_section).as_int_list(), (std::vector<int64_t>{2, 5}));
  IRModule without = parse_module(cut_at_indices(kIndicesType, kOmittedNote));
  EXPECT_TRUE(structural_equal(without, with_section));
  std::vector<Tensor> parts = run_on_0_to_7(without);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(parts[1].data_as<float>()[0], 2.0f);  // x[:, 2:5]
  EXPECT_EQ(parts[2].data_as<float>()[0], 5.0f);  // x[:, 5:]
}

TEST(TextBoxedInts, WhatTheProgramDoesNotDetermineIsAnErrorNamingTheAttr) {
  // No annotation (the text was printed before type inference).
  EXPECT_EQ(testing::parse_error(cut_at_indices("", kOmittedNote)),
            "m.relay:3:34: op split, attr indices_or_sections: `meta[runtime.BoxInt][0]` refers to the metadata "
            "section, which this text does not have (TVM printed it with show_meta_data=False), and the program does "
            "not determine its value (the call has no `/* ty=... */` annotation); expected the text with its "
            "`#[metadata]` section (astext(show_meta_data=True))");
  // Unequal parts cannot come from a number of sections.
  std::string unequal = four_sections(kOmittedNote);
  unequal.replace(unequal.find("(Tensor[(1, 2), float32], Tensor[(1, 2)"), 17, "(Tensor[(1, 1), float32]");
  EXPECT_NE(testing::parse_error(unequal).find("op split, attr indices_or_sections: `meta[runtime.BoxInt][0]` refers to the "
                                   "metadata section, which this text does not have"),
            std::string::npos)
      << testing::parse_error(unequal);
  // A boxed integer that no result type determines.
  EXPECT_EQ(testing::parse_error("#[version = \"0.0.5\"]\n"
                     "def @main(%x: Tensor[(1, 8), float32]) {\n"
                     "  nn.dense(%x, %x, units=meta[runtime.BoxInt][0]) /* ty=Tensor[(1, 1), float32] */\n"
                     "}\n" +
                     std::string(kOmittedNote)),
            "m.relay:3:26: op nn.dense, attr units: `meta[runtime.BoxInt][0]` refers to the metadata section, which "
            "this text does not have (TVM printed it with show_meta_data=False), and the program does not determine "
            "its value; expected the text with its `#[metadata]` section (astext(show_meta_data=True))");
}

TEST(TextBoxedInts, BadBoxedIntsInTheSectionAreErrors) {
  EXPECT_EQ(testing::parse_error(four_sections(boxed_int_section({"four"}))),
            "m.relay:9:1: metadata runtime.BoxInt value \"four\" is not a 64-bit integer");
  EXPECT_EQ(testing::parse_error(four_sections(boxed_int_section({"99999999999999999999"}))),
            "m.relay:9:1: metadata runtime.BoxInt value \"99999999999999999999\" is not a 64-bit integer");
  std::string index_1 = four_sections(boxed_int_section({"4"}));
  index_1.replace(index_1.find("BoxInt][0]"), 10, "BoxInt][1]");
  EXPECT_EQ(testing::parse_error(index_1),
            "m.relay:3:38: `meta[runtime.BoxInt][1]` is out of range: the metadata section holds 1 boxed integers");
  std::string other_key = four_sections(boxed_int_section({"4"}));
  other_key.replace(other_key.find("runtime.BoxInt][0]"), 14, "runtime.BoxFloat");
  EXPECT_EQ(testing::parse_error(other_key),
            "m.relay:3:38: unsupported meta reference `meta[runtime.BoxFloat][0]` in attribute `indices_or_sections`; "
            "expected meta[runtime.BoxInt][N]");
}

TEST(TextBoxedInts, WeftPrintsTheRecoveredValueAsAPlainInt) {
  IRModule mod = infer_type(parse_module(four_sections(kOmittedNote)));
  std::string text = to_text(mod);
  EXPECT_NE(text.find("split(%x, indices_or_sections=4, axis=1)"), std::string::npos) << text;
  EXPECT_TRUE(structural_equal(parse_module(text), mod));
}

}  // namespace
}  // namespace weft

// Attribute values, dictionaries and schema normalization.
#include <gtest/gtest.h>

#include "test_ops.h"
#include "weft/attrs.h"
#include "weft/error.h"
#include "weft/expr.h"

namespace weft {
namespace {

TEST(AttrValue, KindsFollowTheConstructor) {
  EXPECT_EQ(AttrValue().type(), AttrType::kNone);
  EXPECT_EQ(AttrValue(1).type(), AttrType::kInt);
  EXPECT_EQ(AttrValue(int64_t{1}).type(), AttrType::kInt);
  EXPECT_EQ(AttrValue(1.0).type(), AttrType::kFloat);
  EXPECT_EQ(AttrValue(true).type(), AttrType::kBool);
  EXPECT_EQ(AttrValue("NCHW").type(), AttrType::kString);
  EXPECT_EQ(AttrValue(DataType::Int(8)).type(), AttrType::kDType);
  EXPECT_EQ(AttrValue({1, 2}).type(), AttrType::kIntList);
  EXPECT_EQ(AttrValue(std::vector<double>{0.5}).type(), AttrType::kFloatList);
  EXPECT_EQ(AttrValue(std::vector<AttrValue>{1, "a"}).type(), AttrType::kList);
}

TEST(AttrValue, AccessorsReadTheirKindAndCatchMismatchesAsBugs) {
  EXPECT_EQ(AttrValue(3).as_int(), 3);
  EXPECT_EQ(AttrValue(3).as_float(), 3.0);  // ints read as floats
  EXPECT_EQ(AttrValue("x").as_string(), "x");
  EXPECT_THROW(AttrValue("x").as_int(), InternalError);
  EXPECT_THROW(AttrValue(1.5).as_int_list(), InternalError);
}

TEST(AttrValue, CoercesOnlyWithoutLoss) {
  EXPECT_EQ(AttrValue(2).coerce(AttrType::kFloat), AttrValue(2.0));
  EXPECT_EQ(AttrValue("float16").coerce(AttrType::kDType), AttrValue(DataType::Float(16)));
  EXPECT_EQ(AttrValue(DataType::Int(8)).coerce(AttrType::kString), AttrValue("int8"));
  EXPECT_EQ(AttrValue(std::vector<AttrValue>{1, 2}).coerce(AttrType::kIntList), AttrValue({1, 2}));
  EXPECT_EQ(AttrValue({1, 2}).coerce(AttrType::kFloatList), AttrValue(std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(AttrValue(std::vector<AttrValue>{1, 2.5}).coerce(AttrType::kFloatList),
            AttrValue(std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(AttrValue(7).coerce(AttrType::kAny), AttrValue(7));
  EXPECT_FALSE(AttrValue(2.5).coerce(AttrType::kInt));
  EXPECT_FALSE(AttrValue("fp32").coerce(AttrType::kDType));
  EXPECT_FALSE(AttrValue(1).coerce(AttrType::kBool));
  EXPECT_FALSE(AttrValue(std::vector<AttrValue>{1, 2.5}).coerce(AttrType::kIntList));
  EXPECT_FALSE(AttrValue(1).coerce(AttrType::kIntList));
}

TEST(AttrValue, PrintsAsRelayText) {
  EXPECT_EQ(AttrValue(1).str(), "1");
  EXPECT_EQ(AttrValue(2e-05).str(), "2e-05f");
  EXPECT_EQ(AttrValue(0.5).str(), "0.5f");
  EXPECT_EQ(AttrValue(1.0).str(), "1f");
  EXPECT_EQ(AttrValue(true).str(), "True");
  EXPECT_EQ(AttrValue(false).str(), "False");
  EXPECT_EQ(AttrValue("NCHW").str(), "\"NCHW\"");
  EXPECT_EQ(AttrValue("say \"hi\"").str(), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(AttrValue({1, 1}).str(), "[1, 1]");
  EXPECT_EQ(AttrValue(std::vector<int64_t>{}).str(), "[]");
  EXPECT_EQ(AttrValue(std::vector<double>{0.5, 1.0}).str(), "[0.5f, 1f]");
  EXPECT_EQ(AttrValue().str(), "None");
  EXPECT_EQ(AttrValue(DataType::Float(32)).str(), "\"float32\"");
  EXPECT_EQ(AttrValue(std::vector<AttrValue>{AttrValue({0, 0}), AttrValue({1, 1})}).str(), "[[0, 0], [1, 1]]");
}

TEST(AttrValue, EqualValuesHashEqually) {
  EXPECT_EQ(AttrValue({1, 2}).hash(), AttrValue({1, 2}).hash());
  EXPECT_EQ(AttrValue("a").hash(), AttrValue(std::string("a")).hash());
  EXPECT_NE(AttrValue({1, 2}).hash(), AttrValue({2, 1}).hash());
  EXPECT_NE(AttrValue(1), AttrValue(1.0));  // different kinds are different values
}

TEST(Attrs, DictionariesCompareIgnoringOrder) {
  Attrs a = make_attrs({{"x", 1}, {"y", "s"}});
  Attrs b = make_attrs({{"y", "s"}, {"x", 1}});
  EXPECT_TRUE(attrs_equal(a, b));
  EXPECT_EQ(attrs_hash(a), attrs_hash(b));
  EXPECT_FALSE(attrs_equal(a, make_attrs({{"x", 2}, {"y", "s"}})));
  EXPECT_FALSE(attrs_equal(a, make_attrs({{"x", 1}})));
  EXPECT_TRUE(attrs_equal(nullptr, empty_attrs()));
  EXPECT_EQ(attrs_hash(nullptr), attrs_hash(nullptr));
  EXPECT_TRUE(empty_attrs().same_as(make_attrs({})));
}

TEST(Attrs, FindAndAt) {
  Attrs a = make_attrs({{"axis", 1}});
  ASSERT_NE(a->find("axis"), nullptr);
  EXPECT_EQ(a->at("axis").as_int(), 1);
  EXPECT_EQ(a->find("other"), nullptr);
  EXPECT_THROW(a->at("other"), InternalError);
}

class AttrSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
  const AttrSchema& conv() { return OpRegistry::global().get("test.conv").attrs; }
  const AttrSchema& split() { return OpRegistry::global().get("test.split").attrs; }

  // Runs normalize expecting a weft::Error; returns it.
  Error normalize_error(const AttrSchema& schema, const char* op, Attrs given) {
    try {
      schema.normalize(op, given);
    } catch (const Error& e) {
      return e;
    }
    ADD_FAILURE() << "normalize accepted the attrs";
    return Error("");
  }
};

TEST_F(AttrSchemaTest, FillsDefaultsInSchemaOrder) {
  Attrs out = conv().normalize("test.conv", nullptr);
  ASSERT_EQ(out->entries.size(), 2u);
  EXPECT_EQ(out->entries[0].first, "strides");
  EXPECT_EQ(out->entries[0].second, AttrValue({1, 1}));
  EXPECT_EQ(out->entries[1].first, "padding");
  EXPECT_EQ(out->entries[1].second, AttrValue({0, 0, 0, 0}));
}

TEST_F(AttrSchemaTest, NormalizesAnIntPaddingToFourInts) {
  Attrs out = conv().normalize("test.conv", make_attrs({{"padding", 1}}));
  EXPECT_EQ(out->at("padding"), AttrValue({1, 1, 1, 1}));
  out = conv().normalize("test.conv", make_attrs({{"padding", AttrValue({1, 2})}, {"strides", 2}}));
  EXPECT_EQ(out->at("padding"), AttrValue({1, 2, 1, 2}));
  EXPECT_EQ(out->at("strides"), AttrValue({2, 2}));
  // A generic list of ints (as a parser produces) is accepted too.
  out = conv().normalize("test.conv", make_attrs({{"padding", std::vector<AttrValue>{0, 1, 2, 3}}}));
  EXPECT_EQ(out->at("padding"), AttrValue({0, 1, 2, 3}));
}

TEST_F(AttrSchemaTest, UnknownAttrNamesOpAttrAndTheKnownOnes) {
  Error e = normalize_error(conv(), "test.conv", make_attrs({{"pad", 1}}));
  EXPECT_EQ(e.op_name(), "test.conv");
  EXPECT_EQ(e.attr_name(), "pad");
  EXPECT_EQ(e.expected_form(), "one of: strides, padding");
  EXPECT_NE(std::string(e.what()).find("unknown attribute 'pad'"), std::string::npos) << e.what();
}

TEST_F(AttrSchemaTest, MissingRequiredAttrNamesIt) {
  Error e = normalize_error(split(), "test.split", make_attrs({{"axis", 1}}));
  EXPECT_EQ(e.op_name(), "test.split");
  EXPECT_EQ(e.attr_name(), "sections");
  EXPECT_EQ(e.expected_form(), "a positive int");
  EXPECT_NE(std::string(e.what()).find("missing required attribute"), std::string::npos) << e.what();
}

TEST_F(AttrSchemaTest, WrongTypeNamesWhatWasGivenAndWhatIsExpected) {
  Error e = normalize_error(split(), "test.split", make_attrs({{"sections", 2}, {"axis", "first"}}));
  EXPECT_EQ(e.op_name(), "test.split");
  EXPECT_EQ(e.attr_name(), "axis");
  EXPECT_EQ(e.expected_form(), "an int");
  EXPECT_NE(std::string(e.what()).find("got string \"first\""), std::string::npos) << e.what();
}

TEST_F(AttrSchemaTest, NormalizerRejectionNamesTheAcceptedForms) {
  Error e = normalize_error(conv(), "test.conv", make_attrs({{"padding", AttrValue({1, 2, 3})}}));
  EXPECT_EQ(e.op_name(), "test.conv");
  EXPECT_EQ(e.attr_name(), "padding");
  EXPECT_EQ(e.expected_form(), "an int, or 1, 2 or 4 ints");
  EXPECT_NE(std::string(e.what()).find("[1, 2, 3]"), std::string::npos) << e.what();
  Error s = normalize_error(split(), "test.split", make_attrs({{"sections", 0}}));
  EXPECT_EQ(s.attr_name(), "sections");
  EXPECT_EQ(s.expected_form(), "a positive int");
}

TEST_F(AttrSchemaTest, NoneIsOnlyAcceptedForOptionalAttrs) {
  Error e = normalize_error(split(), "test.split", make_attrs({{"sections", AttrValue()}}));
  EXPECT_EQ(e.attr_name(), "sections");
  AttrSchema units({AttrField{.name = "units", .type = AttrType::kInt, .default_value = AttrValue(),
                              .text_default = std::nullopt, .doc = "", .normalize = {}, .expected = "an int or None"}});
  EXPECT_TRUE(units.normalize("nn.dense", nullptr)->at("units").is_none());
  EXPECT_TRUE(units.normalize("nn.dense", make_attrs({{"units", AttrValue()}}))->at("units").is_none());
  EXPECT_EQ(units.normalize("nn.dense", make_attrs({{"units", 8}}))->at("units"), AttrValue(8));
}

TEST_F(AttrSchemaTest, CoercesToTheFieldType) {
  AttrSchema schema;
  schema.add({.name = "epsilon", .type = AttrType::kFloat, .default_value = AttrValue(1e-5),
              .text_default = std::nullopt, .doc = "", .normalize = {}, .expected = ""});
  schema.add({.name = "out_dtype", .type = AttrType::kDType, .default_value = AttrValue(DataType::Float(32)),
              .text_default = std::nullopt, .doc = "", .normalize = {}, .expected = ""});
  Attrs out = schema.normalize("nn.batch_norm", make_attrs({{"epsilon", 1}, {"out_dtype", "int8"}}));
  EXPECT_EQ(out->at("epsilon"), AttrValue(1.0));
  EXPECT_EQ(out->at("out_dtype"), AttrValue(DataType::Int(8)));
  // Without a description the expected form is the field's type.
  try {
    schema.normalize("nn.batch_norm", make_attrs({{"out_dtype", "fp32"}}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.expected_form(), "a value of type dtype");
  }
}

TEST_F(AttrSchemaTest, AnOpWithoutAttrsRejectsAnyAttr) {
  const AttrSchema& relu = OpRegistry::global().get("test.relu").attrs;
  Error e = normalize_error(relu, "test.relu", make_attrs({{"alpha", 0.1}}));
  EXPECT_EQ(e.expected_form(), "no attributes");
  EXPECT_TRUE(relu.normalize("test.relu", nullptr)->empty());
}

TEST_F(AttrSchemaTest, TextCallsGetTheTextDefaultBuilderCallsTheOrdinaryOne) {
  // As nn.batch_matmul: the reference's C++ struct and its Python wrapper differ.
  AttrSchema schema({AttrField{.name = "transpose_b", .type = AttrType::kBool, .default_value = AttrValue(true),
                               .text_default = AttrValue(false), .doc = "", .normalize = {}, .expected = ""},
                     AttrField{.name = "transpose_a", .type = AttrType::kBool, .default_value = AttrValue(false),
                               .text_default = std::nullopt, .doc = "", .normalize = {}, .expected = ""}});
  EXPECT_EQ(schema.normalize("op", nullptr)->at("transpose_b"), AttrValue(true));
  EXPECT_EQ(schema.normalize("op", nullptr, AttrDefaults::kText)->at("transpose_b"), AttrValue(false));
  // Without a text default, text reads the ordinary one.
  EXPECT_EQ(schema.normalize("op", nullptr, AttrDefaults::kText)->at("transpose_a"), AttrValue(false));
  // A given value wins either way.
  EXPECT_EQ(schema.normalize("op", make_attrs({{"transpose_b", true}}), AttrDefaults::kText)->at("transpose_b"),
            AttrValue(true));
}

TEST_F(AttrSchemaTest, AnEmptyListInTextMeansANonEmptyListDefault) {
  Attrs empty = make_attrs({{"strides", AttrValue(std::vector<AttrValue>{})}});
  EXPECT_EQ(conv().normalize("test.conv", empty, AttrDefaults::kText)->at("strides"), AttrValue({1, 1}));
  // Builder calls get no such reading: [] is a value the normalizer judges.
  EXPECT_EQ(normalize_error(conv(), "test.conv", empty).attr_name(), "strides");
}

TEST_F(AttrSchemaTest, DuplicateGivenAttrIsAnError) {
  Error e = normalize_error(split(), "test.split", make_attrs({{"sections", 2}, {"sections", 3}}));
  EXPECT_EQ(e.attr_name(), "sections");
}

}  // namespace
}  // namespace weft

// Model names as users write them (model_spec.h), against in-process model
// families: variants declared as data, key=value arguments read as each
// parameter's type, and the errors for each kind of mistake.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "weft/error.h"
#include "weft/model_spec.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

/// spec_net: depth (int, default 18), wide (bool), image_shape (int list),
/// rate (float), layout (string), dtype, and a required `steps`-free form.
/// spec_version: version (string "1.0"); spec_rnn: required `iterations`.
void register_spec_models() {
  auto& reg = ModelRegistry::global();
  if (reg.find_loaded("spec_net")) return;
  auto trivial = [](const Attrs&) { return function({}, tuple({})); };

  ModelDef net;
  net.name = "spec_net";
  net.params.add({.name = "depth", .type = AttrType::kInt, .default_value = AttrValue(18)});
  net.params.add({.name = "wide", .type = AttrType::kBool, .default_value = AttrValue(false)});
  net.params.add({.name = "image_shape", .type = AttrType::kIntList,
                  .default_value = AttrValue(std::vector<int64_t>{3, 224, 224})});
  net.params.add({.name = "rate", .type = AttrType::kFloat, .default_value = AttrValue(0.5)});
  net.params.add({.name = "layout", .type = AttrType::kString, .default_value = AttrValue("NCHW")});
  net.params.add({.name = "dtype", .type = AttrType::kDType, .default_value = AttrValue(DataType::Float(32))});
  net.variants = {{"{depth}", nullptr, "depth"}, {"{depth}-wide", make_attrs({{"wide", true}}), "wide"}};
  net.build = trivial;
  reg.add(std::move(net));

  ModelDef version;
  version.name = "spec_version";
  version.params.add({.name = "version", .type = AttrType::kString, .default_value = AttrValue("1.0")});
  version.variants = {{"{version}", nullptr, "1.0 or 1.1"}};
  version.build = trivial;
  reg.add(std::move(version));

  ModelDef rnn;
  rnn.name = "spec_rnn";
  rnn.params.add({.name = "iterations", .type = AttrType::kInt});
  rnn.params.add({.name = "num_hidden", .type = AttrType::kInt});
  rnn.build = trivial;
  reg.add(std::move(rnn));
}

const AttrValue& param(const ModelSpec& spec, const char* name) { return spec.params->at(name); }

std::string error_of(const std::string& text) {
  try {
    parse_model_spec(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ModelSpec, FamilyAloneTakesEveryDefault) {
  register_spec_models();
  ModelSpec spec = parse_model_spec("spec_net");
  EXPECT_EQ(spec.family, "spec_net");
  EXPECT_EQ(param(spec, "depth").as_int(), 18);
  EXPECT_FALSE(param(spec, "wide").as_bool());
  EXPECT_EQ(param(spec, "image_shape").as_int_list(), (std::vector<int64_t>{3, 224, 224}));
}

TEST(ModelSpec, VariantPlaceholderSetsItsParameter) {
  register_spec_models();
  EXPECT_EQ(param(parse_model_spec("spec_net-50"), "depth").as_int(), 50);
  ModelSpec wide = parse_model_spec("spec_net-16-wide");
  EXPECT_EQ(param(wide, "depth").as_int(), 16);
  EXPECT_TRUE(param(wide, "wide").as_bool());
  // A string placeholder keeps the text as written.
  EXPECT_EQ(param(parse_model_spec("spec_version-1.1"), "version").as_string(), "1.1");
}

TEST(ModelSpec, KeyValueArgumentsAreReadAsTheParametersTypes) {
  register_spec_models();
  ModelSpec spec = parse_model_spec("spec_net:depth=20,wide=true,image_shape=3x32x32,rate=0.25,layout=NHWC,dtype=float16");
  EXPECT_EQ(param(spec, "depth").as_int(), 20);
  EXPECT_TRUE(param(spec, "wide").as_bool());
  EXPECT_EQ(param(spec, "image_shape").as_int_list(), (std::vector<int64_t>{3, 32, 32}));
  EXPECT_DOUBLE_EQ(param(spec, "rate").as_float(), 0.25);
  EXPECT_EQ(param(spec, "layout").as_string(), "NHWC");
  EXPECT_EQ(param(spec, "dtype").as_dtype(), DataType::Float(16));
  // A variant and arguments together.
  ModelSpec both = parse_model_spec("spec_net-34:layout=NHWC");
  EXPECT_EQ(param(both, "depth").as_int(), 34);
  EXPECT_EQ(param(both, "layout").as_string(), "NHWC");
}

TEST(ModelSpec, UnknownFamilyListsTheKnownOnes) {
  register_spec_models();
  std::string err = error_of("spec_nett-18");
  EXPECT_THAT(err, HasSubstr("unknown model 'spec_nett-18'"));
  EXPECT_THAT(err, HasSubstr("spec_net, spec_rnn, spec_version"));
}

TEST(ModelSpec, UnknownVariantListsTheFamilysVariants) {
  register_spec_models();
  std::string err = error_of("spec_net-16-narrow");
  EXPECT_THAT(err, HasSubstr("not a variant of spec_net"));
  EXPECT_THAT(err, HasSubstr("spec_net-{depth}, spec_net-{depth}-wide"));
  EXPECT_THAT(error_of("spec_rnn-3"), HasSubstr("it has none; use spec_rnn:key=value"));
}

TEST(ModelSpec, ArgumentMistakesNameTheArgument) {
  register_spec_models();
  EXPECT_THAT(error_of("spec_net:depht=3"), HasSubstr("spec_net has no argument 'depht'"));
  EXPECT_THAT(error_of("spec_net:depht=3"), HasSubstr("depth, wide, image_shape, rate, layout, dtype"));
  EXPECT_THAT(error_of("spec_net:depth=3,depth=4"), HasSubstr("argument 'depth' is given twice"));
  EXPECT_THAT(error_of("spec_net-18:depth=4"), HasSubstr("the name spec_net-18 already sets it"));
  EXPECT_THAT(error_of("spec_net:depth=3.5"), HasSubstr("argument 'depth' has the malformed value '3.5'"));
  EXPECT_THAT(error_of("spec_net:wide=yes"), HasSubstr("true or false"));
  EXPECT_THAT(error_of("spec_net:image_shape=3x32xx"), HasSubstr("integers joined by 'x'"));
  EXPECT_THAT(error_of("spec_net:rate=fast"), HasSubstr("argument 'rate'"));
  EXPECT_THAT(error_of("spec_net:depth"), HasSubstr("'depth' is not key=value"));
  EXPECT_THAT(error_of("spec_net:"), HasSubstr("nothing after ':'"));
  EXPECT_THAT(error_of("spec_net:dtype=float33"), HasSubstr("dtype"));
}

TEST(ModelSpec, MissingRequiredArgumentIsNamed) {
  register_spec_models();
  EXPECT_THAT(error_of("spec_rnn:iterations=3"), HasSubstr("model spec_rnn: missing required argument 'num_hidden'"));
  EXPECT_THAT(error_of("spec_rnn"), HasSubstr("missing required argument 'iterations'"));
  ModelSpec spec = parse_model_spec("spec_rnn:iterations=3,num_hidden=8");
  EXPECT_EQ(param(spec, "num_hidden").as_int(), 8);
}

TEST(ModelSpec, VariantNamesSpellThePlaceholder) {
  EXPECT_EQ(variant_name("vgg", ModelVariant{"{num_layers}-bn", nullptr, ""}), "vgg-{num_layers}-bn");
}

}  // namespace
}  // namespace weft

// create_workload's contract beyond the golden values: what it fills, what it
// skips, and the errors for what it cannot fill.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "workload_program.h"
#include "weft/error.h"
#include "weft/tensor_io.h"
#include "weft/text.h"
#include "weft/workload.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

Function program(const std::string& params, const std::string& body) {
  return parse_module("#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  " + body + "\n}\n", "test").main();
}

TEST(CreateWorkload, TypesTheModuleAndSkipsData) {
  const Workload w = create_workload(test_program(DataType::Float(32)));
  EXPECT_TRUE(w.mod.main()->body->has_type());
  std::vector<std::string> names;
  for (const auto& [name, t] : w.params) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"conv1_weight", "conv1_bias", "bn1_gamma", "bn1_beta", "bn1_moving_mean",
                                             "bn1_moving_var", "depthwise_conv_weight", "fc_weight", "fc_bias"}));
  // Unannotated parameters get their inferred types.
  EXPECT_EQ(w.params[1].second.shape(), (std::vector<int64_t>{4}));
  EXPECT_EQ(w.params[8].second.shape(), (std::vector<int64_t>{10}));
}

TEST(CreateWorkload, SameSeedSameParametersOtherSeedOthers) {
  const Function fn = test_program(DataType::Float(32));
  const Workload a = create_workload(fn, "xavier", 5), b = create_workload(fn, "xavier", 5);
  const Workload c = create_workload(fn, "xavier", 6);
  EXPECT_TRUE(a.params[0].second.bitwise_equal(b.params[0].second));
  EXPECT_FALSE(a.params[0].second.bitwise_equal(c.params[0].second));
}

TEST(CreateWorkload, ModuleOverloadKeepsOtherFunctions) {
  IRModule mod = parse_module(R"(#[version = "0.0.5"]
def @twice(%x: Tensor[(2, 2), float32]) { add(%x, %x) }
def @main(%data: Tensor[(2, 2), float32], %w_weight: Tensor[(2, 2), float32]) { @twice(multiply(%data, %w_weight)) }
)");
  const Workload w = create_workload(mod, "ones");
  EXPECT_TRUE(w.mod.contains("twice"));
  ASSERT_EQ(w.params.size(), 1u);
  EXPECT_EQ(w.params[0].second.element_as_double(3), 1.0);
}

TEST(CreateWorkload, UnknownSuffixIsAnErrorNamingTheParameter) {
  const Function fn = program("%data: Tensor[(4), float32], %conv1_scale: Tensor[(4), float32]",
                              "multiply(%data, %conv1_scale)");
  EXPECT_THAT([&] { create_workload(fn); },
              ThrowsMessage<Error>(HasSubstr("unknown initialization pattern for conv1_scale")));
}

TEST(CreateWorkload, XavierNeedsAtLeastTwoDimensions) {
  const Function fn = program("%data: Tensor[(4), float32], %scale_weight: Tensor[(4), float32]",
                              "multiply(%data, %scale_weight)");
  EXPECT_THAT([&] { create_workload(fn); },
              ThrowsMessage<Error>(HasSubstr("Xavier initializer cannot be applied to vector scale_weight")));
}

TEST(CreateWorkload, BadInitializerParametersAreErrors) {
  const Function fn = test_program(DataType::Float(32));
  EXPECT_THAT([&] { create_workload(fn, "xavier", 0, make_attrs({{"rnd_type", "cauchy"}})); },
              ThrowsMessage<Error>(HasSubstr("rnd_type must be \"uniform\" or \"gaussian\", got \"cauchy\"")));
  EXPECT_THAT([&] { create_workload(fn, "xavier", 0, make_attrs({{"factor_type", "sum"}})); },
              ThrowsMessage<Error>(HasSubstr("factor_type must be \"avg\", \"in\" or \"out\", got \"sum\"")));
  EXPECT_THAT([&] { create_workload(fn, "xavier", 0, make_attrs({{"sigma", 1.0}})); },
              ThrowsMessage<Error>(HasSubstr("sigma")));
  EXPECT_THAT([&] { create_workload(fn, "no_such_initializer"); },
              ThrowsMessage<Error>(HasSubstr("no_such_initializer")));
}

TEST(CreateWorkload, SeedMustFitNumpysRange) {
  const Function fn = test_program(DataType::Float(32));
  EXPECT_NO_THROW(create_workload(fn, "xavier", 0xffffffffULL));
  EXPECT_THAT([&] { create_workload(fn, "xavier", 0x100000000ULL); },
              ThrowsMessage<Error>(HasSubstr("seed 4294967296 is out of range")));
}

TEST(CreateWorkload, DynamicOrNonTensorParametersCannotBeFilled) {
  EXPECT_THAT([&] { create_workload(program("%fc_weight: Tensor[(?, 4), float32]", "%fc_weight")); },
              ThrowsMessage<Error>(HasSubstr("cannot fill parameter 'fc_weight' of type Tensor[(?, 4), float32]")));
  EXPECT_THAT([&] {
    create_workload(program("%pair_weight: (Tensor[(2), float32], Tensor[(2), float32])", "%pair_weight.0"));
  }, ThrowsMessage<Error>(HasSubstr("cannot fill parameter 'pair_weight'")));
}

TEST(CreateWorkload, ParametersSharingANameAreSavedUnderTheirUniqueNames) {
  // Saved as TVM's printer names them (w_weight, w_weight1); the initializer
  // gets the name hint, whose `weight` suffix xavier goes by.
  const Var a = var("w_weight", tensor_type({2, 2})), b = var("w_weight", tensor_type({2, 2}));
  const Workload w = create_workload(function({a, b}, call("add", {a, b})));
  ASSERT_EQ(w.params.size(), 2u);
  EXPECT_EQ(w.params[0].first, "w_weight");
  EXPECT_EQ(w.params[1].first, "w_weight1");
  EXPECT_FALSE(w.params[0].second.bitwise_equal(w.params[1].second));  // two draws, not one tensor bound twice
}

TEST(CreateWorkload, RepeatedDataInputsAreLeftUnfilled) {
  // lstm names every step's input `data`, as the reference does.
  const Var d0 = var("data", tensor_type({2, 2})), d1 = var("data", tensor_type({2, 2}));
  const Var w = var("w_weight", tensor_type({2, 2}));
  const Workload workload = create_workload(function({d0, w, d1}, call("add", {call("add", {d0, d1}), w})));
  ASSERT_EQ(workload.params.size(), 1u);
  EXPECT_EQ(workload.params[0].first, "w_weight");
}

TEST(CreateWorkload, RandomInitializersRejectIntegerWeightsFixedOnesFillThem) {
  const Function fn = program("%idx_weight: Tensor[(2, 3), int32]", "%idx_weight");
  EXPECT_THAT([&] { create_workload(fn); },
              ThrowsMessage<Error>(HasSubstr("xavier draws floating-point weights; idx_weight is int32")));
  const Workload w = create_workload(fn, "ones");
  EXPECT_EQ(w.params[0].second.element_as_double(5), 1.0);
}

TEST(CreateWorkload, ParamsRoundTripThroughNpzAndSafetensors) {
  const Workload w = create_workload(test_program(DataType::Float(32)));
  const testing::ScratchDir dir;
  for (const char* file : {"params.npz", "params.safetensors"}) {
    save_tensor_file(dir / file, w.params);
    const NamedTensors back = load_tensor_file(dir / file);
    ASSERT_EQ(back.size(), w.params.size()) << file;
    for (size_t i = 0; i < back.size(); ++i) {
      EXPECT_EQ(back[i].first, w.params[i].first) << file;
      EXPECT_TRUE(back[i].second.bitwise_equal(w.params[i].second)) << file << " " << back[i].first;
    }
  }
}

}  // namespace
}  // namespace weft

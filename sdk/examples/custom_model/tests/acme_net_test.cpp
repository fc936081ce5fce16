// acme_net and acme_uniform, tested with weft::testing against the installed
// weft: the model's layers, variants and parameter errors, and the
// initializer's values against NumPy's (np.random.seed(7);
// np.random.uniform(-0.1, 0.1, 4), as float32).
#include <gtest/gtest.h>

#include <string>

#include <weft/interpreter.h>
#include <weft/model.h>
#include <weft/model_spec.h>
#include <weft/testing/count_ops.h>
#include <weft/workload.h>

namespace {

using namespace weft;

TEST(AcmeNet, HasItsDepthOfHiddenLayersAndAVariantPerDepth) {
  Function net = build_model("acme_net", make_attrs({{"depth", int64_t{3}}}));
  EXPECT_EQ(weft::testing::count_ops(net).at("nn.dense"), 4);  // three hidden layers and the classifier
  EXPECT_EQ(weft::testing::count_ops(net).at("nn.relu"), 3);
  Function variant = build_model(parse_model_spec("acme_net-3"));
  EXPECT_EQ(weft::testing::count_ops(variant).at("nn.dense"), 4);
}

TEST(AcmeNet, ADepthOutOfRangeIsAnErrorSayingWhatIsAccepted) {
  try {
    build_model("acme_net", make_attrs({{"depth", int64_t{9}}}));
    FAIL() << "depth 9 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("an int in 1..4"), std::string::npos) << e.what();
  }
}

TEST(AcmeUniform, FillsWeightsAsNumpyDrawsThemAndBiasesWithZero) {
  Function net = build_model("acme_net", make_attrs({{"depth", int64_t{1}}}));
  Workload w = create_workload(net, "acme_uniform", 7);
  ASSERT_EQ(w.params[0].first, "hidden0_weight");
  const float* weight = w.params[0].second.data_as<float>();
  const float numpy[] = {-0.0847383439540863f, 0.055983759462833405f, -0.012318153865635395f, 0.04469303414225578f};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(weight[i], numpy[i]) << "element " << i;
  for (const auto& [name, tensor] : w.params) {
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      const float v = tensor.data_as<float>()[i];
      if (name.size() > 5 && name.substr(name.size() - 5) == "_bias")
        ASSERT_EQ(v, 0.0f) << name;
      else
        ASSERT_LE(std::abs(v), 0.1f) << name;
    }
  }
  // The model's own initializer is acme_uniform: its workload is the same.
  EXPECT_EQ(ModelRegistry::global().get("acme_net").initializer, "acme_uniform");
}

}  // namespace

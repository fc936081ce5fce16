// acme_cpu's tests, written with weft::testing against the installed weft:
// its kernels on values worked by hand, through weft::build and the graph
// executor with `fallback: error` (every op must run on acme_cpu), and what
// it does not run going to the reference kernels.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <weft/build.h>
#include <weft/graph_executor.h>
#include <weft/passes.h>
#include <weft/target.h>
#include <weft/testing/gtest_helpers.h>
#include <weft/text.h>

namespace {

using namespace weft;

Tensor f32(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  for (size_t i = 0; i < values.size(); ++i) t.data_as<float>()[i] = values[i];
  return t;
}

IRModule program(const std::string& text) { return infer_type(parse_module("#[version = \"0.0.5\"]\n" + text)); }

RunConfig on_acme(FallbackPolicy fallback = FallbackPolicy::kError) {
  RunConfig config;
  config.targets = {"acme_cpu"};
  config.fallback = fallback;
  return config;
}

TEST(AcmeCpu, ADenseLayerWithItsBiasRunsOnTheDevice) {
  IRModule mod = program(R"(
    def @main(%x: Tensor[(2, 2), float32], %w: Tensor[(3, 2), float32], %b: Tensor[(3), float32]) {
      add(nn.dense(%x, %w), %b)
    })");
  auto compiled = build(mod, on_acme());
  for (const CompiledGroup& g : compiled->groups) EXPECT_EQ(g.target, "acme_cpu");
  Value got = GraphExecutor(compiled).run(
      {f32({2, 2}, {1, 2, 3, 4}), f32({3, 2}, {1, 0, 1, 1, 0.5f, -1}), f32({3}, {0.5f, 0, -1})});
  // Row 0: [1 + 0.5, 1 + 2, 0.5 - 2 - 1]; row 1: [3 + 0.5, 3 + 4, 1.5 - 4 - 1].
  EXPECT_TENSOR_EQ(got.tensor(), f32({2, 3}, {1.5f, 3, -2.5f, 3.5f, 7, -3.5f}));
}

TEST(AcmeCpu, AGlobalAveragePoolTakesEachChannelsMean) {
  IRModule mod = program(R"(def @main(%x: Tensor[(1, 2, 2, 2), float32]) { nn.global_avg_pool2d(%x) })");
  Value got = GraphExecutor(build(mod, on_acme())).run({f32({1, 2, 2, 2}, {1, 2, 3, 6, -1, -1, 0, 2})});
  EXPECT_TENSOR_EQ(got.tensor(), f32({1, 2, 1, 1}, {3, 0}));
}

TEST(AcmeCpu, WhatItDoesNotRunGoesToTheReferenceKernelsOrFailsUnderFallbackError) {
  IRModule mod = program(R"(def @main(%x: Tensor[(4), float32]) { nn.relu(%x) })");
  auto compiled = build(mod, on_acme(FallbackPolicy::kWarn));
  EXPECT_EQ(compiled->groups.at(0).target, "ref");
  try {
    build(mod, on_acme());
    FAIL() << "nn.relu ran on acme_cpu";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nn.relu"), std::string::npos) << e.what();
  }
}

TEST(AcmeCpu, DeclaresItsOptionAndItsOwnMemory) {
  const TargetDef& def = TargetRegistry::global().get("acme_cpu");
  EXPECT_NE(def.options.find("accumulate_in_double"), nullptr);
  auto target = def.create(def.options.normalize("acme_cpu", make_attrs({{"accumulate_in_double", true}})));
  EXPECT_FALSE(target->host_addressable());
  EXPECT_EQ(target->devices().at(0).name, "acme0");
}

}  // namespace

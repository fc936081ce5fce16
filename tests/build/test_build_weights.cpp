// The weights a build is given are held once: a constant the pipeline leaves
// as it is reaches the compiled module as the same bytes (shared, not
// copied), and one the pipeline folds into a new constant is let go with the
// caller's module, or, when the caller moves its module in, as soon as the pass
// that folded it returns, so a run does not hold a model's weights twice.
#include <gtest/gtest.h>

#include <memory>

#include "weft/build.h"
#include "weft/functor.h"
#include "weft/graph_executor.h"
#include "weft/pass.h"
#include "weft/passes.h"

namespace weft {
namespace {

/// A 1 MiB weight whose bytes record when their last holder lets them go.
struct TrackedWeight {
  Tensor tensor;
  std::shared_ptr<bool> released = std::make_shared<bool>(false);

  TrackedWeight() {
    Tensor storage = Tensor::zeros({512, 512}, DataType::Float(32));
    storage.data_as<float>()[7] = 0.25f;
    auto owner = std::shared_ptr<void>(new Tensor(storage), [flag = released](void* p) {
      delete static_cast<Tensor*>(p);
      *flag = true;
    });
    tensor = Tensor::from_dlpack(storage.dlpack_view(), std::move(owner));
  }
};

/// main(%x: (1, 512)) = nn.dense(%x, weight), the weight a constant.
IRModule dense_module(Expr weight) {
  Var x = var("x", tensor_type({1, 512}));
  return infer_type(IRModule::from_function(function({x}, call("nn.dense", {x, std::move(weight)}))));
}

/// The constants the compiled main passes to its groups.
std::vector<Tensor> compiled_constants(const CompiledModule& compiled) {
  std::vector<Tensor> constants;
  post_order_visit(compiled.main->body, [&](const Expr& e) {
    if (auto* c = e.as<ConstantNode>()) constants.push_back(c->data);
  });
  return constants;
}

TEST(BuildWeights, AWeightThePipelineKeepsIsTheCallersBytesHeldOnlyByTheBuild) {
  TrackedWeight weight;
  const void* bytes = weight.tensor.data();
  IRModule mod = dense_module(constant(weight.tensor));
  weight.tensor = Tensor();
  auto compiled = build(mod, RunConfig{});
  mod = IRModule();

  std::vector<Tensor> constants = compiled_constants(*compiled);
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_EQ(constants[0].data(), bytes);  // shared, not copied
  constants.clear();
  auto executor = std::make_unique<GraphExecutor>(compiled);
  EXPECT_EQ(executor->memory().param_bytes, 512u * 512u * 4u);
  EXPECT_FALSE(*weight.released);
  // Nothing else (a cache, a registry) keeps them: they go with the build.
  executor.reset();
  compiled.reset();
  EXPECT_TRUE(*weight.released);
}

TEST(BuildWeights, AWeightThePipelineFoldsIsLetGoWithTheCallersModule) {
  TrackedWeight weight;
  Expr doubled = call("multiply", {constant(weight.tensor), constant(Tensor::scalar(2.0, DataType::Float(32)))});
  IRModule mod = dense_module(doubled);
  weight.tensor = Tensor();
  doubled = Expr();
  auto compiled = build(mod, RunConfig{});  // opt_level 3: FoldConstant makes 2 * weight
  mod = IRModule();

  std::vector<Tensor> constants = compiled_constants(*compiled);
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_EQ(constants[0].element_as_double(7), 0.5);
  EXPECT_TRUE(*weight.released);  // only the folded weight is held, by the build
}

/// main's weight as 2 * weight, for FoldConstant to fold into a new constant.
IRModule doubled_weight_module(TrackedWeight& weight) {
  IRModule mod =
      dense_module(call("multiply", {constant(weight.tensor), constant(Tensor::scalar(2.0, DataType::Float(32)))}));
  weight.tensor = Tensor();
  return mod;
}

TEST(BuildWeights, ABuildGivenTheOnlyHandleLetsAFoldedWeightGoBeforeItReturns) {
  TrackedWeight weight;
  IRModule mod = doubled_weight_module(weight);
  auto compiled = build(std::move(mod), RunConfig{});
  EXPECT_TRUE(*weight.released);  // the build held the original, and dropped it
  EXPECT_EQ(compiled_constants(*compiled).at(0).element_as_double(7), 0.5);
}

TEST(BuildWeights, ABuildGivenTheOnlyHandleFoldsAWeightWeftAllocatedIntoItsOwnBytes) {
  Tensor weight = Tensor::zeros({512, 512}, DataType::Float(32));
  weight.data_as<float>()[7] = 0.25f;
  const void* bytes = weight.data();
  IRModule mod = dense_module(call("multiply", {constant(weight), constant(Tensor::scalar(2.0, DataType::Float(32)))}));
  weight = Tensor();
  auto compiled = build(std::move(mod), RunConfig{});
  std::vector<Tensor> constants = compiled_constants(*compiled);
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_EQ(constants[0].data(), bytes);  // 2 * weight computed where the weight was
  EXPECT_EQ(constants[0].element_as_double(7), 0.5);
}

TEST(BuildWeights, ABuildGivenTheOnlyHandleNeverWritesMemoryLentThroughDLPack) {
  // The lender's bytes, kept alive here without a handle on the wrapping tensor.
  Tensor lent = Tensor::zeros({512, 512}, DataType::Float(32));
  lent.data_as<float>()[7] = 0.25f;
  Tensor wrapped = Tensor::from_dlpack(lent.dlpack_view(), std::make_shared<Tensor>(lent));
  IRModule mod = dense_module(call("multiply", {constant(wrapped), constant(Tensor::scalar(2.0, DataType::Float(32)))}));
  wrapped = Tensor();
  auto compiled = build(std::move(mod), RunConfig{});
  std::vector<Tensor> constants = compiled_constants(*compiled);
  ASSERT_EQ(constants.size(), 1u);
  EXPECT_NE(constants[0].data(), lent.data());
  EXPECT_EQ(constants[0].element_as_double(7), 0.5);
  EXPECT_EQ(lent.element_as_double(7), 0.25);  // read, never written
}

TEST(BuildWeights, AWeightTheKernelPackedIsLetGoByTheBuildAndNotPassedAtLaunch) {
  // The null target copies a constant dense weight at compile and marks it
  // packed: the build drops the graph's copy before it returns, main's call
  // of the group omits it, and the result is still x . W^T.
  TrackedWeight weight;
  IRModule mod = dense_module(constant(weight.tensor));
  weight.tensor = Tensor();
  RunConfig config;
  config.targets = {"null"};
  auto compiled = build(std::move(mod), config);
  EXPECT_TRUE(*weight.released);
  ASSERT_EQ(compiled->groups.size(), 1u);
  EXPECT_EQ(compiled->groups[0].target, "null");
  EXPECT_EQ(compiled->groups[0].packed_params, (std::vector<bool>{false, true}));
  EXPECT_EQ(compiled->groups[0].packed_bytes, 512u * 512u * 4u);
  EXPECT_TRUE(compiled_constants(*compiled).empty());

  GraphExecutor executor(compiled);
  EXPECT_EQ(executor.memory().param_bytes, 512u * 512u * 4u);  // held by the kernel now
  Tensor x = Tensor::zeros({1, 512}, DataType::Float(32));
  x.data_as<float>()[7] = 2.0f;
  Tensor out = executor.run({Value(x)}).tensor();
  // Row 0 of W is 0.25 at column 7 and 0 elsewhere; the other rows are 0.
  EXPECT_EQ(out.element_as_double(0), 0.5);
  EXPECT_EQ(out.element_as_double(1), 0.0);
}

TEST(BuildWeights, ASequentialLetsAFoldedWeightGoWhenTheFoldingPassReturns) {
  TrackedWeight weight;
  IRModule mod = doubled_weight_module(weight);
  // The pass after FoldConstant sees whether anything (the Sequential's own
  // input, kept for instruments that are not there) still holds the original.
  bool released_after_fold = false;
  Pass look = create_module_pass({"LookAtTheWeight", 0, {}}, [&](IRModule m, const PassContext&) {
    released_after_fold = *weight.released;
    return m;
  });
  IRModule folded = sequential({FoldConstant(), look})(std::move(mod));
  EXPECT_TRUE(released_after_fold);
}

}  // namespace
}  // namespace weft

// A plugin written in C against plugin.h alone registers an op that type-checks,
// runs its reference kernel through the registry and builds its gradient as IR.
#include <gmock/gmock.h>

#include <cstring>

#include "plugin_test_util.h"
#include "weft/passes.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

Tensor float_tensor(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

std::vector<float> values_of(const Tensor& t) {
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}

class CPluginTest : public PluginTest {
 protected:
  void SetUp() override {
    add_plugin(root(), "scale", "c_scale", "ctest.scale");
    loader().install_resolvers();
  }
};

TEST_F(CPluginTest, RegistersTheOpWithItsSchema) {
  const OpDef& op = OpRegistry::global().get("ctest.scale");  // loads the plugin on demand
  EXPECT_EQ(op.plugin, "scale");
  EXPECT_EQ(op.description, "Multiplies a tensor by a constant factor.");
  ASSERT_EQ(op.inputs.size(), 1u);
  EXPECT_EQ(op.inputs[0].name, "data");
  EXPECT_EQ(op.pattern, OpPattern::kElemWise);
  EXPECT_EQ(op.support_level, 2);
  ASSERT_EQ(op.attrs.fields().size(), 1u);
  const AttrField& f = op.attrs.fields()[0];
  EXPECT_EQ(f.name, "factor");
  EXPECT_EQ(f.type, AttrType::kFloat);
  EXPECT_EQ(f.default_value, AttrValue(2.0));
  EXPECT_TRUE(op.kernel);
  EXPECT_TRUE(op.gradient);
}

TEST_F(CPluginTest, TypeRelationRunsInInference) {
  Var x = var("x", tensor_type({2, 3}, DataType::Float(32)));
  Expr y = infer_type(Expr(call("ctest.scale", {x}, {{"factor", 3.0}})));
  EXPECT_EQ(type_to_text(y->checked_type()), "Tensor[(2, 3), float32]");
}

TEST_F(CPluginTest, TypeRelationErrorsCarryThePluginsMessageAndTheOp) {
  Var x = var("x", tensor_type({2}, DataType::Int(32)));
  try {
    infer_type(Expr(call("ctest.scale", {x})));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("ctest.scale expects a float32 tensor"));
    EXPECT_THAT(e.what(), HasSubstr("ctest.scale"));
  }
}

TEST_F(CPluginTest, AttrsAreValidatedAgainstThePluginsSchema) {
  Var x = var("x", tensor_type({2}));
  Call c = call("ctest.scale", {x});
  EXPECT_EQ(c->attrs->at("factor"), AttrValue(2.0));  // the plugin's default
  EXPECT_THROW(call("ctest.scale", {x}, {{"factor", "big"}}), Error);
  EXPECT_THROW(call("ctest.scale", {x}, {{"fator", 1.0}}), Error);
}

TEST_F(CPluginTest, KernelRunsThroughTheRegistry) {
  const OpDef& op = OpRegistry::global().get("ctest.scale");
  Tensor in = float_tensor({2, 2}, {1, -2, 0.5f, 4});
  Tensor out = Tensor::empty({2, 2}, DataType::Float(32));
  op.kernel(std::vector<Tensor>{in}, std::vector<Tensor>{out}, make_attrs({{"factor", 3.0}}));
  EXPECT_EQ(values_of(out), (std::vector<float>{3, -6, 1.5f, 12}));
}

// The plan holds the factor read when the call site was prepared; each run
// reads the plan, whatever attrs it is handed.
TEST_F(CPluginTest, APreparedKernelReadsItsAttrsOnceIntoItsPlan) {
  Var x = var("x", tensor_type({3}, DataType::Float(32)));
  Call c = downcast<CallNode>(infer_type(Expr(call("ctest.scale", {x}, {{"factor", 4.0}}))));
  ReferenceKernel prepared = OpRegistry::global().get("ctest.scale").kernel_for(c);
  Tensor in = float_tensor({3}, {1, 2, -1});
  for (double other : {0.0, 10.0}) {
    Tensor out = Tensor::empty({3}, DataType::Float(32));
    prepared(std::vector<Tensor>{in}, std::vector<Tensor>{out}, make_attrs({{"factor", other}}));
    EXPECT_EQ(values_of(out), (std::vector<float>{4, 8, -4}));
  }
}

TEST_F(CPluginTest, KernelErrorsBecomeWeftErrors) {
  const OpDef& op = OpRegistry::global().get("ctest.scale");
  Tensor in = float_tensor({1}, {1});
  Tensor out = Tensor::empty({1}, DataType::Float(32));
  try {
    op.kernel(std::vector<Tensor>{in}, std::vector<Tensor>{out}, empty_attrs());  // no factor given
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op ctest.scale: no attribute 'factor'"));
  }
}

TEST_F(CPluginTest, GradientIsBuiltAsIR) {
  const OpDef& op = OpRegistry::global().get("ctest.scale");
  Var x = var("x", tensor_type({3}));
  Var g = var("g", tensor_type({3}));
  Call c = call("ctest.scale", {x}, {{"factor", 5.0}});
  std::vector<Expr> grads = op.gradient(c, g);
  ASSERT_EQ(grads.size(), 1u);
  auto gc = grads[0].as<CallNode>();
  ASSERT_NE(gc, nullptr);
  EXPECT_EQ(gc->op.as<OpNode>()->name(), "ctest.scale");
  EXPECT_TRUE(gc->args[0].same_as(g));
  EXPECT_EQ(gc->attrs->at("factor"), AttrValue(5.0));
}

/// ctest.scale(x) with x of `shape` as the typed Primitive function a build
/// would give the loops target, compiled by it.
std::unique_ptr<TargetKernel> compile_on_loops(std::vector<Dim> shape, double factor) {
  Var x = var("x", tensor_type(std::move(shape)));
  Function fn = downcast<FunctionNode>(infer_type(Expr(function({x}, call("ctest.scale", {x}, {{"factor", factor}})))));
  return TargetRegistry::global().get("loops").create(empty_attrs())->compile(fn, std::vector<Tensor>(1));
}

TEST_F(CPluginTest, ATeComputeBuiltInCRunsOnTheLoopsTarget) {
  std::unique_ptr<TargetKernel> kernel = compile_on_loops({2, 3}, -1.5);
  Tensor x = float_tensor({2, 3}, {1, 2, 3, -4, 0.5f, 0}), out = Tensor::empty({2, 3}, DataType::Float(32));
  std::vector<DLTensor> args = {x.dlpack_view(), out.dlpack_view()};
  kernel->launch(nullptr, args);
  EXPECT_EQ(values_of(out), (std::vector<float>{-1.5f, -3, -4.5f, 6, -0.75f, -0.0f}));
}

TEST_F(CPluginTest, AStatusFromATeComputeIsAnErrorNamingTheOp) {
  try {
    compile_on_loops({1, 1, 1, 1, 1, 1, 1, 1, 2}, 2);  // more dimensions than the C compute takes
    FAIL() << "compiled";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("ctest.scale"));
    EXPECT_THAT(e.what(), HasSubstr("up to 8 dimensions"));
  }
}

}  // namespace
}  // namespace weft::testing

// The tensor plugin's ops, through the registry: broadcasting relations and
// reference kernels against hand-computed values.
#include <gmock/gmock.h>

#include <cmath>
#include <cstring>

#include "plugin_test_util.h"
#include "weft/passes.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

template <typename T>
Tensor tensor_of(std::vector<int64_t> shape, std::vector<T> values) {
  Tensor t = Tensor::empty(std::move(shape), sizeof(T) == 4 ? DataType::Float(32) : DataType::Float(64));
  std::memcpy(t.data(), values.data(), values.size() * sizeof(T));
  return t;
}

template <typename T>
std::vector<T> values_of(const Tensor& t) {
  return std::vector<T>(t.data_as<T>(), t.data_as<T>() + t.numel());
}

class TensorPluginTest : public PluginTest {
 protected:
  void SetUp() override { loader({{WEFT_TEST_BUILD_PLUGIN_DIR}, {}}).install_resolvers(); }

  /// Runs op on inputs into an output of `out_shape` (dtype of the first input).
  Tensor run(const std::string& name, std::vector<Tensor> inputs, std::vector<int64_t> out_shape) {
    Tensor out = Tensor::empty(std::move(out_shape), inputs[0].dtype());
    OpRegistry::global().get(name).kernel(inputs, std::vector<Tensor>{out}, empty_attrs());
    return out;
  }

  std::string result_type(const std::string& name, std::vector<Type> arg_types) {
    std::vector<Expr> args;
    for (size_t i = 0; i < arg_types.size(); ++i) args.push_back(var("a" + std::to_string(i), arg_types[i]));
    return type_to_text(infer_type(Expr(call(name, args)))->checked_type());
  }
};

TEST_F(TensorPluginTest, ProvidesItsOpsWithDocs) {
  for (const char* name : {"add", "subtract", "multiply", "divide", "negative", "exp"}) {
    const OpDef& op = OpRegistry::global().get(name);
    EXPECT_EQ(op.plugin, "tensor") << name;
    EXPECT_FALSE(op.description.empty()) << name;
    EXPECT_TRUE(op.kernel) << name;
  }
  EXPECT_EQ(OpRegistry::global().get("add").pattern, OpPattern::kBroadcast);
  EXPECT_EQ(OpRegistry::global().get("exp").pattern, OpPattern::kElemWise);
}

// Relay's TReshapeOp ops, which the graph executor runs as views of their input.
TEST_F(TensorPluginTest, MarksTheOpsWhoseOutputIsTheInputsBytesAsReshapes) {
  for (const char* name : {"reshape", "squeeze", "expand_dims", "nn.batch_flatten"})
    EXPECT_TRUE(OpRegistry::global().get(name).is_reshape) << name;
  // reshape_like is not one in the reference; transpose moves the bytes.
  for (const char* name : {"reshape_like", "transpose", "add", "copy"})
    EXPECT_FALSE(OpRegistry::global().get(name).is_reshape) << name;
}

TEST_F(TensorPluginTest, BroadcastRelationFollowsNumpy) {
  EXPECT_EQ(result_type("add", {tensor_type({2, 1, 3}), tensor_type({4, 3})}), "Tensor[(2, 4, 3), float32]");
  EXPECT_EQ(result_type("multiply", {tensor_type({5}), tensor_type({})}), "Tensor[(5), float32]");
  EXPECT_EQ(result_type("subtract", {tensor_type({kAnyDim, 3}), tensor_type({1, 3})}), "Tensor[(?, 3), float32]");
  EXPECT_EQ(result_type("exp", {tensor_type({2}, DataType::Float(64))}), "Tensor[(2), float64]");
}

TEST_F(TensorPluginTest, IncompatibleShapesAreNamed) {
  try {
    result_type("add", {tensor_type({2, 3}), tensor_type({4})});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("Tensor[(2, 3), float32] and Tensor[(4), float32] do not broadcast"));
  }
  try {
    result_type("divide", {tensor_type({2}), tensor_type({2}, DataType::Float(64))});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("dtypes differ"));
  }
}

TEST_F(TensorPluginTest, AddBroadcastsARowOverAMatrix) {
  Tensor out = run("add", {tensor_of<float>({2, 3}, {1, 2, 3, 4, 5, 6}), tensor_of<float>({3}, {10, 20, 30})}, {2, 3});
  EXPECT_EQ(values_of<float>(out), (std::vector<float>{11, 22, 33, 14, 25, 36}));
}

TEST_F(TensorPluginTest, SubtractBroadcastsAColumnAgainstARow) {
  Tensor out = run("subtract", {tensor_of<float>({2, 1}, {1, 2}), tensor_of<float>({1, 3}, {10, 20, 30})}, {2, 3});
  EXPECT_EQ(values_of<float>(out), (std::vector<float>{-9, -19, -29, -8, -18, -28}));
}

TEST_F(TensorPluginTest, MultiplyByAScalarInFloat64) {
  Tensor out = run("multiply", {tensor_of<double>({3}, {1.5, -2, 4}), tensor_of<double>({}, {2})}, {3});
  EXPECT_EQ(values_of<double>(out), (std::vector<double>{3, -4, 8}));
}

TEST_F(TensorPluginTest, DivideFollowsIeee) {
  Tensor out = run("divide", {tensor_of<float>({2}, {1, -3}), tensor_of<float>({2}, {4, 0})}, {2});
  EXPECT_EQ(values_of<float>(out)[0], 0.25f);
  EXPECT_EQ(values_of<float>(out)[1], -INFINITY);
}

TEST_F(TensorPluginTest, IntegerArithmeticTruncatesAndRefusesDivisionByZero) {
  auto ints = [](std::vector<int32_t> v) {
    Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DataType::Int(32));
    std::memcpy(t.data(), v.data(), v.size() * sizeof(int32_t));
    return t;
  };
  EXPECT_EQ(values_of<int32_t>(run("divide", {ints({7, -7}), ints({2, 2})}, {2})), (std::vector<int32_t>{3, -3}));
  EXPECT_EQ(values_of<int32_t>(run("add", {ints({7, -7}), ints({2, 2})}, {2})), (std::vector<int32_t>{9, -5}));
  EXPECT_THROW(run("divide", {ints({1}), ints({0})}, {1}), Error);
}

TEST_F(TensorPluginTest, NegativeAndExp) {
  EXPECT_EQ(values_of<float>(run("negative", {tensor_of<float>({3}, {1, -2, 0.5f})}, {3})),
            (std::vector<float>{-1, 2, -0.5f}));
  std::vector<double> e = values_of<double>(run("exp", {tensor_of<double>({3}, {0, 1, -1})}, {3}));
  EXPECT_EQ(e[0], 1.0);
  EXPECT_DOUBLE_EQ(e[1], 2.718281828459045);
  EXPECT_DOUBLE_EQ(e[2], 0.36787944117144233);
}

TEST_F(TensorPluginTest, KernelsRefuseOtherDtypesClearly) {
  Tensor i = Tensor::zeros({2}, DataType::Int(8));
  try {
    run("add", {i, i}, {2});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op add: add: the reference kernel supports float32, float64, int32 and int64"));
    EXPECT_THAT(e.what(), HasSubstr("got int8"));
  }
}

TEST_F(TensorPluginTest, UnaryGradientsAreIR) {
  Var x = var("x", tensor_type({2}));
  Var g = var("g", tensor_type({2}));
  Call e = call("exp", {x});
  std::vector<Expr> grads = OpRegistry::global().get("exp").gradient(e, g);
  ASSERT_EQ(grads.size(), 1u);
  auto m = grads[0].as<CallNode>();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->op.as<OpNode>()->name(), "multiply");
  EXPECT_TRUE(m->args[0].same_as(g));
  EXPECT_TRUE(m->args[1].same_as(e));
  std::vector<Expr> neg = OpRegistry::global().get("negative").gradient(call("negative", {x}), g);
  auto n = neg.at(0).as<CallNode>();
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op.as<OpNode>()->name(), "negative");
}

}  // namespace
}  // namespace weft::testing

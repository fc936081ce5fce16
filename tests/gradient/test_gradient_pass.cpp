// The gradient pass itself: what it returns, how gradients accumulate, what
// each mode accepts, and how it fails.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/small_stack.h"
#include "weft/gradient.h"
#include "weft/interpreter.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/testing/check_grad.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

Type vec3() { return tensor_type({3}, DataType::Float(64)); }

Tensor values(std::vector<double> v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DataType::Float(64));
  for (size_t i = 0; i < v.size(); ++i) t.data_as<double>()[i] = v[i];
  return t;
}

std::vector<double> read(const Value& v) {
  const Tensor& t = v.tensor();
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(t.element_as_double(i));
  return out;
}

/// Runs gradient(fn) on the interpreter: (output, gradients).
std::pair<Value, std::vector<Value>> run_gradient(const Function& fn, const std::vector<Tensor>& inputs,
                                                  GradientMode mode) {
  std::vector<Value> args(inputs.begin(), inputs.end());
  Value result = Interpreter(IRModule::from_function(gradient(fn, {}, mode))).run_main(args);
  return {result.fields().at(0), result.fields().at(1).fields()};
}

const std::vector<GradientMode> kModes = {GradientMode::kFirstOrder, GradientMode::kHigherOrder};

/// check_grad on a module's main (which calls its other functions), inputs drawn around 0.5.
::testing::AssertionResult check_grad_of_module(const IRModule& mod) {
  CheckGradOptions o;
  o.mean = 0.5;
  o.scale = 0.1;
  GradCheckReport report = gradient_check(mod, {}, {}, o);
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report.message();
}

TEST(GradientPass, ReturnsOutputAndOneGradientPerParameter) {
  Var x = var("x", vec3()), y = var("y", vec3());
  Function fn = function({x, y}, call("multiply", {x, y}));
  for (GradientMode mode : kModes) {
    Function typed = downcast<FunctionNode>(infer_type(Expr(gradient(fn, {}, mode))));
    EXPECT_EQ(type_to_text(typed->body->checked_type()),
              "(Tensor[(3), float64], (Tensor[(3), float64], Tensor[(3), float64]))")
        << gradient_mode_name(mode);
    EXPECT_EQ(typed->params.size(), 2u);
    auto [out, grads] = run_gradient(fn, {values({1, 2, 3}), values({4, 5, 6})}, mode);
    EXPECT_EQ(read(out), (std::vector<double>{4, 10, 18}));
    EXPECT_EQ(read(grads[0]), (std::vector<double>{4, 5, 6}));  // d(xy)/dx = y, seeded with ones
    EXPECT_EQ(read(grads[1]), (std::vector<double>{1, 2, 3}));
  }
}

TEST(GradientPass, AddsTheGradientsOfEveryUse) {
  // let t = x * x in t + t: 4x.
  Var x = var("x", vec3()), t = var("t");
  Function fn = function({x}, let(t, call("multiply", {x, x}), call("add", {t, t})));
  for (GradientMode mode : kModes) {
    auto [out, grads] = run_gradient(fn, {values({1, -2, 0.5})}, mode);
    EXPECT_EQ(read(out), (std::vector<double>{2, 8, 0.5}));
    EXPECT_EQ(read(grads[0]), (std::vector<double>{4, -8, 2})) << gradient_mode_name(mode);
  }
}

TEST(GradientPass, SeedsEveryTensorOfATupleOutput) {
  // (x, x * x): 1 + 2x.
  Var x = var("x", vec3());
  Function fn = function({x}, tuple({x, call("multiply", {x, x})}));
  for (GradientMode mode : kModes) {
    auto [out, grads] = run_gradient(fn, {values({1, 2, 3})}, mode);
    EXPECT_EQ(read(grads[0]), (std::vector<double>{3, 5, 7})) << gradient_mode_name(mode);
  }
}

TEST(GradientPass, AParameterOutsideThePathGetsZeros) {
  Var x = var("x", vec3()), unused = var("unused", vec3());
  Function fn = function({x, unused}, call("negative", {x}));
  for (GradientMode mode : kModes) {
    auto [out, grads] = run_gradient(fn, {values({1, 2, 3}), values({7, 7, 7})}, mode);
    EXPECT_EQ(read(grads[0]), (std::vector<double>{-1, -1, -1}));
    EXPECT_EQ(read(grads[1]), (std::vector<double>{0, 0, 0})) << gradient_mode_name(mode);
  }
}

TEST(GradientPass, HigherOrderDifferentiatesThroughClosures) {
  // let sq = fn(z) { z * z } in sq(x) + sq(y) * x: d/dx = 2x + y^2, d/dy = 2xy.
  Var x = var("x", vec3()), y = var("y", vec3()), z = var("z", vec3()), sq = var("sq");
  Expr body = call("add", {call_function(sq, {x}), call("multiply", {call_function(sq, {y}), x})});
  Function fn = function({x, y}, let(sq, function({z}, call("multiply", {z, z})), body));
  auto [out, grads] = run_gradient(fn, {values({1, 2, 3}), values({2, 1, -1})}, GradientMode::kHigherOrder);
  EXPECT_EQ(read(out), (std::vector<double>{5, 6, 12}));
  EXPECT_EQ(read(grads[0]), (std::vector<double>{6, 5, 7}));
  EXPECT_EQ(read(grads[1]), (std::vector<double>{4, 4, -6}));
}

TEST(GradientPass, HigherOrderFollowsCapturedValues) {
  // let k = x * y; let f = fn(z) { k * z } in f(x): x^2 y, so 2xy and x^2.
  Var x = var("x", vec3()), y = var("y", vec3()), z = var("z", vec3()), k = var("k"), f = var("f");
  Function fn = function(
      {x, y}, let(k, call("multiply", {x, y}), let(f, function({z}, call("multiply", {k, z})), call_function(f, {x}))));
  auto [out, grads] = run_gradient(fn, {values({1, 2, 3}), values({2, 1, -1})}, GradientMode::kHigherOrder);
  EXPECT_EQ(read(grads[0]), (std::vector<double>{4, 4, -6}));
  EXPECT_EQ(read(grads[1]), (std::vector<double>{1, 4, 9}));
}

TEST(GradientPass, HigherOrderTakesTheBranchThatRan) {
  // if (sum(c) > 0) x * x else -x.
  Var c = var("c", vec3()), x = var("x", vec3());
  Expr cond = call("greater", {call("sum", {c}), call("zeros_like", {call("sum", {c})})});
  Function fn = function({c, x}, if_then_else(cond, call("multiply", {x, x}), call("negative", {x})));
  auto taken = run_gradient(fn, {values({1, 1, 1}), values({1, 2, 3})}, GradientMode::kHigherOrder);
  EXPECT_EQ(read(taken.second[1]), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(read(taken.second[0]), (std::vector<double>{0, 0, 0}));
  auto other = run_gradient(fn, {values({-1, -1, -1}), values({1, 2, 3})}, GradientMode::kHigherOrder);
  EXPECT_EQ(read(other.second[1]), (std::vector<double>{-1, -1, -1}));
}

TEST(GradientPass, HigherOrderDifferentiatesThroughARecursiveClosure) {
  // let f = fn(n, x) { if n > 0 then f(n - 1, x * x) else x } in f(2, x): x^4, so 4x^3.
  Type scalar = tensor_type({}, DataType::Float(64));
  Var n = var("n", scalar), x = var("x", vec3()), m = var("m", scalar), y = var("y", vec3()), f = var("f");
  Expr one = constant(Tensor::scalar(1.0, DataType::Float(64)));
  Expr body = if_then_else(call("greater", {m, call("zeros_like", {m})}),
                           call_function(f, {call("subtract", {m, one}), call("multiply", {y, y})}), y);
  Function fn = function({n, x}, let(f, function({m, y}, body), call_function(f, {n, x})));
  Tensor two = Tensor::scalar(2.0, DataType::Float(64));
  auto [out, grads] = run_gradient(fn, {two, values({1, 2, -1})}, GradientMode::kHigherOrder);
  EXPECT_EQ(read(out), (std::vector<double>{1, 16, 1}));
  EXPECT_EQ(read(grads[1]), (std::vector<double>{4, 32, -4}));
  EXPECT_EQ(grads[0].tensor().element_as_double(0), 0.0);
}

TEST(GradientPass, HigherOrderDifferentiatesThroughGlobalFunctions) {
  // @sq(z) = z * z; @pow(y, m) = if m > 1 then y * @pow(y, m - 1) else y (calls itself);
  // main(x) = @sq(x) + @pow(x, 3): x^2 + x^3, so 2x + 3x^2.
  Type scalar = tensor_type({}, DataType::Float(64));
  Expr one = constant(Tensor::scalar(1.0, DataType::Float(64)));
  Var z = var("z", vec3()), y = var("y", vec3()), m = var("m", scalar), x = var("x", vec3());
  IRModule mod;
  GlobalVar sq = mod.add("sq", function({z}, call("multiply", {z, z}), vec3()));
  GlobalVar pow = global_var("pow");
  Expr recurse = call("multiply", {y, call_function(pow, {y, call("subtract", {m, one})})});
  mod.add(pow, function({y, m}, if_then_else(call("greater", {m, one}), recurse, y), vec3()));
  Expr three = constant(Tensor::scalar(3.0, DataType::Float(64)));
  mod.add("main", function({x}, call("add", {call_function(sq, {x}), call_function(pow, {x, three})})));

  IRModule grad_mod = infer_type(mod);
  grad_mod.add(grad_mod.global_var("main"), gradient(grad_mod.main(), grad_mod, GradientMode::kHigherOrder));
  Value result = Interpreter(grad_mod).run_main({values({1, 2, -1})});
  EXPECT_EQ(read(result.fields().at(0)), (std::vector<double>{2, 12, 0}));
  EXPECT_EQ(read(result.fields().at(1).fields().at(0)), (std::vector<double>{5, 16, 1}));
  EXPECT_TRUE(check_grad_of_module(mod));
}

TEST(GradientPass, HigherOrderNamesMutuallyRecursiveGlobals) {
  Var a = var("a", vec3()), b = var("b", vec3()), x = var("x", vec3());
  IRModule mod;
  GlobalVar ping = global_var("ping"), pong = global_var("pong");
  mod.add(ping, function({a}, call_function(pong, {a}), vec3()));
  mod.add(pong, function({b}, call_function(ping, {b}), vec3()));
  mod.add("main", function({x}, call_function(ping, {x})));
  IRModule typed = infer_type(mod);
  try {
    gradient(typed.main(), typed, GradientMode::kHigherOrder);
    FAIL() << "mutual recursion was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("mutually recursive global functions (@ping -> @pong -> @ping)"));
  }
}

TEST(GradientPass, HigherOrderMatchesCentralDifferencesWithClosuresAndIf) {
  Var x = var("x", vec3()), z = var("z", vec3()), sq = var("sq");
  Expr cond = call("greater", {call("sum", {x}), call("zeros_like", {call("sum", {x})})});
  Expr body = if_then_else(cond, call_function(sq, {call("tanh", {x})}), call("exp", {call_function(sq, {x})}));
  Function fn = function({x}, let(sq, function({z}, call("multiply", {z, z})), body));
  CheckGradOptions o;
  o.mean = 0.5;
  o.scale = 0.1;
  EXPECT_TRUE(check_grad(fn, {}, {}, o));
  o.mean = -0.5;
  EXPECT_TRUE(check_grad(fn, {}, {}, o));
}

TEST(GradientPass, FirstOrderNamesTheConstructItCannotHandle) {
  Var x = var("x", vec3()), z = var("z", vec3()), f = var("f");
  Expr cond = call("greater", {call("sum", {x}), call("zeros_like", {call("sum", {x})})});
  Function with_if = function({x}, if_then_else(cond, x, call("negative", {x})));
  Function with_closure = function({x}, let(f, function({z}, call("negative", {z})), call_function(f, {x})));
  try {
    gradient(with_if, {}, GradientMode::kFirstOrder);
    FAIL() << "an if was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("first_order gradient does not support if"));
  }
  try {
    gradient(with_closure, {}, GradientMode::kFirstOrder);
    FAIL() << "a closure was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("first_order gradient does not support closures"));
    EXPECT_THAT(e.what(), HasSubstr("higher_order"));
  }
}

/// Test-only ops: test.grad.square (x^2) with a wrong gradient (g * x instead
/// of 2 g x), and test.grad.cube (x^3) with none.
void register_square_and_cube() {
  auto& registry = OpRegistry::global();
  for (const char* name : {"test.grad.square", "test.grad.cube"}) {
    if (registry.find_loaded(name)) continue;
    OpDef def;
    def.name = name;
    def.inputs = {{"data", "Tensor", ""}};
    def.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
    int power = std::string(name) == "test.grad.square" ? 2 : 3;
    def.kernel = [power](std::span<const Tensor> in, std::span<const Tensor> out, const Attrs&) {
      for (int64_t i = 0; i < in[0].numel(); ++i) {
        double v = in[0].data_as<double>()[i];
        out[0].data_as<double>()[i] = power == 2 ? v * v : v * v * v;
      }
    };
    if (power == 2) {
      def.gradient = [](const Call& c, const Expr& g) { return std::vector<Expr>{call("multiply", {g, c->args[0]})}; };
    }
    registry.add(std::move(def));
  }
}

TEST(CheckGrad, CatchesAWrongGradientWithTheParameterIndexAndValues) {
  register_square_and_cube();
  Var x = var("x", vec3());
  Function fn = function({x}, call("test.grad.square", {x}));
  for (GradientMode mode : kModes) {
    CheckGradOptions o;
    o.mode = mode;
    GradCheckReport report = gradient_check(fn, {values({1, 2, 3})}, {}, o);
    ASSERT_FALSE(report.ok());
    ASSERT_EQ(report.params.size(), 1u);
    EXPECT_EQ(report.params[0].mismatches, 3);
    ASSERT_TRUE(report.params[0].first_mismatch);
    EXPECT_EQ(report.params[0].first_mismatch->index, std::vector<int64_t>{0});
    EXPECT_DOUBLE_EQ(report.params[0].first_mismatch->analytic, 1.0);
    EXPECT_NEAR(report.params[0].first_mismatch->numeric, 2.0, 1e-6);
    EXPECT_THAT(report.message(), HasSubstr("gradient of %x at index (0,): analytic 1, numeric 2"));
    EXPECT_THAT(report.message(), HasSubstr("(3 of 3 elements differ, max |error| 3"));
    EXPECT_FALSE(check_grad(fn, {values({1, 2, 3})}, {}, o));
  }
}

TEST(CheckGrad, PassesTheRightGradientOfTheSameFunction) {
  Var x = var("x", vec3());
  EXPECT_TRUE(check_grad(function({x}, call("multiply", {x, x})), {values({1, 2, 3})}));
}

TEST(CheckGrad, ComparesOnlyTheRequestedParameters) {
  register_square_and_cube();
  Var x = var("x", vec3()), y = var("y", vec3());
  Function fn = function({x, y}, call("add", {call("test.grad.square", {x}), call("multiply", {y, y})}));
  GradCheckReport report = gradient_check(fn, {values({1, 2, 3}), values({1, 2, 3})}, {1});
  ASSERT_EQ(report.params.size(), 1u);
  EXPECT_EQ(report.params[0].name, "y");
  EXPECT_TRUE(report.ok());
}

TEST(CheckGrad, ANaNForwardValueShowsAsTheLargestError) {
  // sqrt of a negative input: a NaN gradient and NaN sums, reported as NaN rather than an error of 0.
  Var x = var("x", vec3());
  GradCheckReport report = gradient_check(function({x}, call("sqrt", {x})), {values({-1, 4, 9})});
  ASSERT_EQ(report.params.size(), 1u);
  EXPECT_EQ(report.params[0].mismatches, 3);
  EXPECT_TRUE(std::isnan(report.params[0].max_abs_error));
  EXPECT_THAT(report.message(), HasSubstr("nan)"));
}

TEST(CheckGrad, DrawsInputsOnTheScaleOfEps) {
  // With no inputs given, they are drawn as 10 * eps * randn: tiny, so even a
  // strongly curved function is checked near its linear regime.
  Var x = var("x", tensor_type({2, 2}, DataType::Float(64)));
  EXPECT_TRUE(check_grad(function({x}, call("exp", {call("multiply", {x, x})}))));
}

TEST(GradientPass, FailsNamingAnOpWithoutGradient) {
  register_square_and_cube();
  Var x = var("x", vec3());
  Function fn = function({x}, call("negative", {call("test.grad.cube", {x})}));
  for (GradientMode mode : kModes) {
    try {
      gradient(fn, {}, mode);
      FAIL() << "no error in " << gradient_mode_name(mode);
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("op test.grad.cube: the gradient pass needs the gradient of this op"));
    }
  }
}

TEST(GradientPass, OpsWithIntegerOutputsNeedNoGradient) {
  // argmax has no gradient; nothing flows back through an index.
  Var x = var("x", vec3());
  Expr scaled = call("multiply", {x, call("cast", {call("argmax", {x})}, {{"dtype", DataType::Float(64)}})});
  for (GradientMode mode : kModes) {
    auto [out, grads] = run_gradient(function({x}, scaled), {values({1, 5, 3})}, mode);
    EXPECT_EQ(read(out), (std::vector<double>{1, 5, 3}));
    EXPECT_EQ(read(grads[0]), (std::vector<double>{1, 1, 1})) << gradient_mode_name(mode);
  }
}

TEST(GradientPass, RunsAsARegisteredPassWithTheModeFromTheContext) {
  Var x = var("x", vec3());
  IRModule mod = IRModule::from_function(function({x}, call("exp", {x})));
  PassContext ctx;
  ctx.set_config("weft.gradient.mode", "first_order");
  PassContext::Scope scope(ctx);
  IRModule out = PassRegistry::global().create("Gradient")(mod);
  Value result = Interpreter(out).run_main({values({0, 0, 0})});
  EXPECT_EQ(read(result.fields().at(1).fields().at(0)), (std::vector<double>{1, 1, 1}));
}

TEST(GradientPass, UnknownModeIsAnError) {
  EXPECT_THROW(parse_gradient_mode("second_order"), Error);
  EXPECT_EQ(parse_gradient_mode("higher_order"), GradientMode::kHigherOrder);
}

TEST(GradientPass, TransformsA10000OpChainOnASmallStackInBothModes) {
  Var x = var("x", vec3());
  Expr e = x;
  for (int i = 0; i < 10000; ++i) e = call("negative", {e});
  Function fn = function({x}, e);
  run_with_stack(512 * 1024, [&] {
    for (GradientMode mode : kModes) {
      Function g = gradient(fn, {}, mode);
      EXPECT_EQ(g->params.size(), 1u) << gradient_mode_name(mode);
    }
  });
}

}  // namespace
}  // namespace weft::testing

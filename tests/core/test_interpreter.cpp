// The interpreter against hand-worked results: dataflow, tuples, lets, lazy
// ifs, closures, global and recursive calls, deep chains, and its errors.
#include <gtest/gtest.h>

#include <cstring>
#include <new>
#include <vector>

#include "small_stack.h"
#include "test_ops.h"
#include "weft/interpreter.h"
#include "weft/limits.h"
#include "weft/module.h"

namespace weft {
namespace {

Tensor f32(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

std::vector<float> values_of(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}

// Ops local to these tests: scalar countdown helpers with kernels.
void register_countdown_ops() {
  auto& reg = OpRegistry::global();
  if (reg.find_loaded("interp.dec")) return;
  OpDef dec;
  dec.name = "interp.dec";
  dec.inputs = {{"n", "Tensor", "float32 scalar"}};
  dec.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  dec.kernel = [](std::span<const Tensor> in, std::span<const Tensor> out, const Attrs&) {
    out[0].data_as<float>()[0] = in[0].data_as<float>()[0] - 1.0f;
  };
  reg.add(std::move(dec));
  OpDef positive;
  positive.name = "interp.positive";
  positive.inputs = {{"n", "Tensor", "float32 scalar"}};
  positive.relation = [](std::span<const Type>, const Attrs&) -> Type { return scalar_type(DataType::Bool()); };
  positive.kernel = [](std::span<const Tensor> in, std::span<const Tensor> out, const Attrs&) {
    out[0].data_as<uint8_t>()[0] = in[0].data_as<float>()[0] > 0.0f;
  };
  reg.add(std::move(positive));
  OpDef picky;
  picky.name = "interp.picky";
  picky.inputs = {{"data", "Tensor", "anything"}};
  picky.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  picky.kernel = [](std::span<const Tensor>, std::span<const Tensor>, const Attrs&) {
    throw Error("this kernel accepts nothing");
  };
  reg.add(std::move(picky));
  OpDef hungry;
  hungry.name = "interp.hungry";
  hungry.inputs = {{"data", "Tensor", "anything"}};
  hungry.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  hungry.kernel = [](std::span<const Tensor>, std::span<const Tensor>, const Attrs&) { throw std::bad_alloc(); };
  reg.add(std::move(hungry));
}

class InterpreterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::register_test_ops();
    register_countdown_ops();
  }
  const TensorType t2 = tensor_type({2}, DataType::Float(32));
};

TEST_F(InterpreterTest, RunsOpCallsOnReferenceKernels) {
  Var x = var("x", t2), y = var("y", t2);
  Function f = function({x, y}, call("test.relu", {call("test.add", {x, y})}));
  Interpreter interp(IRModule::from_function(f));
  Value out = interp.run_main({f32({2}, {1.5f, -4.0f}), f32({2}, {2.0f, 1.0f})});
  EXPECT_EQ(values_of(out), (std::vector<float>{3.5f, 0.0f}));
}

TEST_F(InterpreterTest, TuplesLetsAndTupleAccess) {
  Var x = var("x", t2), p = var("p");
  // let %p = (x, relu(x)); %p.1 + %p.0
  Expr body = let(p, tuple({x, call("test.relu", {x})}),
                  call("test.add", {get_item(p, 1), get_item(p, 0)}));
  Interpreter interp(IRModule::from_function(function({x}, body)));
  EXPECT_EQ(values_of(interp.run_main({f32({2}, {-1.0f, 3.0f})})), (std::vector<float>{-1.0f, 6.0f}));
}

TEST_F(InterpreterTest, TupleResultFlattensInOrder) {
  Var x = var("x", t2);
  Expr body = tuple({call("test.relu", {x}), tuple({x, x})});
  Interpreter interp(IRModule::from_function(function({x}, body)));
  Value out = interp.run_main({f32({2}, {-2.0f, 2.0f})});
  auto flat = out.flatten();
  ASSERT_EQ(flat.size(), 3u);
  EXPECT_EQ(flat[0].data_as<float>()[0], 0.0f);
  EXPECT_EQ(flat[1].data_as<float>()[0], -2.0f);
}

TEST_F(InterpreterTest, IfEvaluatesOnlyTheTakenBranch) {
  // The else branch calls test.conv, which has no kernel: evaluating it would fail.
  Var x = var("x", tensor_type({1, 1, 1, 1}));
  Expr conv = call("test.conv", {x, x});
  for (bool taken : {true, false}) {
    Tensor cond = Tensor::scalar(taken ? 1.0 : 0.0, DataType::Bool());
    Expr body = taken ? if_then_else(constant(cond), call("test.relu", {x}), conv)
                      : if_then_else(constant(cond), conv, call("test.relu", {x}));
    Interpreter interp(IRModule::from_function(function({x}, body)));
    EXPECT_EQ(values_of(interp.run_main({f32({1, 1, 1, 1}, {-3.0f})})), std::vector<float>{0.0f});
  }
}

TEST_F(InterpreterTest, ClosuresCaptureTheirEnvironment) {
  // let %f = fn (%y) { %x + %y }; %f(%f(%x))  ==  3x
  Var x = var("x", t2), y = var("y", t2), f = var("f");
  Expr body = let(f, function({y}, call("test.add", {x, y})),
                  call_function(f, {call_function(f, {x})}));
  Interpreter interp(IRModule::from_function(function({x}, body)));
  EXPECT_EQ(values_of(interp.run_main({f32({2}, {1.0f, -2.0f})})), (std::vector<float>{3.0f, -6.0f}));
}

TEST_F(InterpreterTest, CallsGlobalFunctions) {
  IRModule mod;
  Var a = var("a", t2);
  GlobalVar twice = mod.add("twice", function({a}, call("test.add", {a, a})));
  Var x = var("x", t2);
  mod.add("main", function({x}, call_function(twice, {call_function(twice, {x})})));
  Interpreter interp(mod);
  EXPECT_EQ(values_of(interp.run_main({f32({2}, {0.5f, 1.0f})})), (std::vector<float>{2.0f, 4.0f}));
}

/// @count(%n) = if (positive(%n)) { @count(dec(%n)) } else { %n }, called by main.
IRModule countdown_module() {
  IRModule mod;
  TensorType scalar = scalar_type(DataType::Float(32));
  GlobalVar count = global_var("count");
  Var n = var("n", scalar);
  mod.add(count, function({n},
                          if_then_else(call("interp.positive", {n}),
                                       call_function(count, {call("interp.dec", {n})}), n),
                          scalar));
  Var m = var("m", scalar);
  mod.add("main", function({m}, call_function(count, {m})));
  return mod;
}

TEST_F(InterpreterTest, RecursiveGlobalCountsDown) {
  Interpreter interp(countdown_module());
  EXPECT_EQ(values_of(interp.run_main({Tensor::scalar(5.0, DataType::Float(32))})), std::vector<float>{0.0f});
  EXPECT_EQ(values_of(interp.run_main({Tensor::scalar(-2.5, DataType::Float(32))})), std::vector<float>{-2.5f});
}

/// The limit in force for one test, restored after it.
class CallDepthLimit {
 public:
  explicit CallDepthLimit(int64_t depth) : saved_(max_call_depth()) { set_max_call_depth(depth); }
  ~CallDepthLimit() { set_max_call_depth(saved_); }

 private:
  int64_t saved_;
};

TEST_F(InterpreterTest, DeepTerminatingRecursionContinuesOnHeapStacks) {
  // 8,000 nested calls need far more than the 2 MiB stack this runs on.
  testing::run_with_stack(testing::kSmallStack, [&] {
    Interpreter interp(countdown_module());
    EXPECT_EQ(values_of(interp.run_main({Tensor::scalar(8000.0, DataType::Float(32))})),
              std::vector<float>{0.0f});
  });
}

TEST_F(InterpreterTest, RecursionWithoutABaseCaseIsAnErrorNamingTheLimit) {
  // @spin(%n) = @spin(dec(%n)): never returns.
  IRModule mod;
  TensorType scalar = scalar_type(DataType::Float(32));
  GlobalVar spin = global_var("spin");
  Var n = var("n", scalar);
  mod.add(spin, function({n}, call_function(spin, {call("interp.dec", {n})}), scalar));
  Var m = var("m", scalar);
  mod.add("main", function({m}, call_function(spin, {m})));
  Interpreter interp(mod);
  try {
    interp.run_main({Tensor::scalar(1.0, DataType::Float(32))});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("deeper than " + std::to_string(max_call_depth()) + " levels"), std::string::npos) << what;
    EXPECT_NE(what.find("@spin("), std::string::npos) << what;
    EXPECT_NE(what.find("WEFT_MAX_CALL_DEPTH"), std::string::npos) << what;
  }
}

TEST_F(InterpreterTest, CallDepthLimitIsConfigurable) {
  CallDepthLimit limit(50);
  Interpreter interp(countdown_module());
  // main -> count(49) ... count(0): 50 nested calls fit, 51 do not.
  EXPECT_EQ(values_of(interp.run_main({Tensor::scalar(49.0, DataType::Float(32))})), std::vector<float>{0.0f});
  EXPECT_THROW(interp.run_main({Tensor::scalar(50.0, DataType::Float(32))}), Error);
  EXPECT_THROW(set_max_call_depth(0), Error);
}

TEST_F(InterpreterTest, LetBoundFunctionCallsItself) {
  // let %loop = fn (%n) { if (positive(%n)) { %loop(dec(%n)) } else { %n } }; %loop(%m)
  TensorType scalar = scalar_type(DataType::Float(32));
  Var loop = var("loop", func_type({scalar}, scalar)), n = var("n", scalar), m = var("m", scalar);
  Function body = function({n},
                           if_then_else(call("interp.positive", {n}),
                                        call_function(loop, {call("interp.dec", {n})}), n),
                           scalar);
  Interpreter interp(IRModule::from_function(function({m}, let(loop, body, call_function(loop, {m})))));
  EXPECT_EQ(values_of(interp.run_main({Tensor::scalar(3.0, DataType::Float(32))})), std::vector<float>{0.0f});
}

TEST_F(InterpreterTest, HundredThousandCallChainDoesNotRecurse) {
  testing::run_with_stack(2 << 20, [&] {
    Var x = var("x", t2);
    Expr e = x;
    for (int i = 0; i < 100000; ++i) e = call("test.add", {e, x});
    Interpreter interp(IRModule::from_function(function({x}, e)));
    EXPECT_EQ(values_of(interp.run_main({f32({2}, {1.0f, -1.0f})})), (std::vector<float>{100001.0f, -100001.0f}));
  });
}

TEST_F(InterpreterTest, LongLetChainDoesNotRecurse) {
  testing::run_with_stack(2 << 20, [&] {
    Var x = var("x", t2);
    // Built from the inside out: let %v0 = x + x; let %v1 = %v0 + x; ...; %v_last
    std::vector<Var> vars;
    for (int i = 0; i < 20000; ++i) vars.push_back(var("v" + std::to_string(i)));
    Expr body = vars.back();
    for (int i = 19999; i >= 0; --i) body = let(vars[i], call("test.add", {i == 0 ? Expr(x) : Expr(vars[i - 1]), x}), body);
    Interpreter interp(IRModule::from_function(function({x}, body)));
    EXPECT_EQ(values_of(interp.run_main({f32({2}, {1.0f, 2.0f})})), (std::vector<float>{20001.0f, 40002.0f}));
  });
}

TEST_F(InterpreterTest, OpWithoutKernelIsAnErrorNamingIt) {
  Var x = var("x", tensor_type({1, 1, 1, 1}));
  Interpreter interp(IRModule::from_function(function({x}, call("test.conv", {x, x}))));
  try {
    interp.run_main({f32({1, 1, 1, 1}, {1.0f})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "test.conv");
    EXPECT_NE(std::string(e.what()).find("no reference kernel"), std::string::npos) << e.what();
  }
}

TEST_F(InterpreterTest, KernelErrorsNameTheOpAndTheCall) {
  Var x = var("x", t2);
  Interpreter interp(IRModule::from_function(function({x}, call("interp.picky", {x}))));
  try {
    interp.run_main({f32({2}, {1.0f, 2.0f})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_EQ(e.op_name(), "interp.picky");
    EXPECT_NE(what.find("accepts nothing"), std::string::npos) << what;
    EXPECT_NE(what.find("interp.picky(%x)"), std::string::npos) << what;
  }
}

TEST_F(InterpreterTest, AKernelOutOfMemoryIsAnErrorNamingTheOpAndItsSizes) {
  // A bare std::bad_alloc used to reach the user with nothing else.
  Var x = var("x", t2);
  Interpreter interp(IRModule::from_function(function({x}, call("interp.hungry", {x}))));
  try {
    interp.run_main({f32({2}, {1.0f, 2.0f})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string what = e.what();
    EXPECT_EQ(e.op_name(), "interp.hungry");
    EXPECT_NE(what.find("out of memory in the op's kernel, which works on 16 bytes of inputs and outputs "
                        "(Tensor[(2), float32])"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("interp.hungry(%x)"), std::string::npos) << what;
  }
}

TEST_F(InterpreterTest, ArgumentsAreCheckedAgainstParameterTypes) {
  Var x = var("x", t2);
  Interpreter interp(IRModule::from_function(function({x}, call("test.relu", {x}))));
  EXPECT_THROW(interp.run_main({f32({3}, {1, 2, 3})}), Error);                        // shape
  EXPECT_THROW(interp.run_main({Tensor::zeros({2}, DataType::Float(64))}), Error);    // dtype
  EXPECT_THROW(interp.run_main({}), Error);                                           // count
  EXPECT_THROW(interp.run_main({Value::tuple({f32({2}, {1, 2})})}), Error);           // kind
}

TEST_F(InterpreterTest, QuestionMarkExtentsTakeTheArgumentsShapesOnEachRun) {
  TensorType any = tensor_type({kAnyDim}, DataType::Float(32));
  Var x = var("x", any), p = var("p", tuple_type({any, t2}));
  // main(x: (?), p: ((?), (2))) -> (?) { relu(x + p.0) }: no kernel output has a static type until bound.
  Function f = function({x, p}, call("test.relu", {call("test.add", {x, get_item(p, 0)})}), any);
  Interpreter interp(IRModule::from_function(f));
  Value three = interp.run_main({f32({3}, {1, -5, 2}), Value::tuple({f32({3}, {1, 1, 1}), f32({2}, {0, 0})})});
  EXPECT_EQ(values_of(three), (std::vector<float>{2, 0, 3}));
  Value one = interp.run_main({f32({1}, {-2}), Value::tuple({f32({1}, {7}), f32({2}, {0, 0})})});
  EXPECT_EQ(values_of(one), (std::vector<float>{5}));
  // Bound shapes that do not fit the program fail type inference, naming the op.
  try {
    interp.run_main({f32({3}, {1, 2, 3}), Value::tuple({f32({1}, {7}), f32({2}, {0, 0})})});
    FAIL() << "expected a type error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("test.add"), std::string::npos) << e.what();
  }
}

TEST_F(InterpreterTest, EvaluateRunsAClosedExpression) {
  Expr e = call("test.add", {constant(f32({2}, {1, 2})), constant(f32({2}, {10, 20}))});
  EXPECT_EQ(values_of(evaluate(e)), (std::vector<float>{11.0f, 22.0f}));
  EXPECT_THROW(evaluate(call("test.relu", {var("free", t2)})), Error);
}

}  // namespace
}  // namespace weft

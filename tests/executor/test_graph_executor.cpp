// The graph executor on hand-compiled modules over the fake targets: launches
// in order, values crossing into a device the host cannot address copied there
// (and between two such devices through the host), constants uploaded once,
// outputs back on the host, concurrent runs, profiles, memory figures and the
// messages for inputs and programs it refuses. Results against hand-worked
// values and the interpreter (by value: the fakes' relu gives +0 where the
// reference kernel gives -0).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <thread>

#include "fake_targets.h"
#include "hand_compiled.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"

namespace weft::testing {
namespace {

Expr add(Expr a, Expr b) { return call("add", {std::move(a), std::move(b)}); }
Expr relu(Expr a) { return call("nn.relu", {std::move(a)}); }

Function primitive(std::vector<Var> params, Expr body) {
  return function(std::move(params), std::move(body), nullptr, make_attrs({{"Primitive", int64_t{1}}}));
}

Tensor floats(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

std::vector<float> contents(const Tensor& t) {
  return {t.data_as<float>(), t.data_as<float>() + t.numel()};
}

const TensorType kVec4 = tensor_type({4});

/// fn(%p0, %p1) { add(%p0, %p1) }, fn(%p0) { nn.relu(%p0) }, fn(%p0, %p1) { (add(%p0, %p1), nn.relu(%p0)) }.
Function add_group() {
  Var a = var("p0", kVec4), b = var("p1", kVec4);
  return primitive({a, b}, add(a, b));
}
Function relu_group() {
  Var a = var("p0", kVec4);
  return primitive({a}, relu(a));
}
Function add_and_relu_group() {
  Var a = var("p0", kVec4), b = var("p1", kVec4);
  return primitive({a, b}, tuple({add(a, b), relu(a)}));
}

/// main(%x, %y) = relu(add(x, y) + c) and add(x, y) as a pair, in four groups:
///   %0 = add(%x, %y); %1 = add_and_relu(%0, c) -> (s, r); %2 = relu(%1.0); (add(%2, %1.1), %0)
Function mixed_main(const Tensor& c) {
  Var x = var("x", kVec4), y = var("y", kVec4);
  Expr sum = call_function(add_group(), {x, y});
  Expr pair = call_function(add_and_relu_group(), {sum, constant(c)});
  Expr r = call_function(relu_group(), {get_item(pair, 0)});
  Expr out = call_function(add_group(), {r, get_item(pair, 1)});
  return function({x, y}, tuple({out, sum}));
}

struct Targets {
  std::shared_ptr<HostTarget> host = std::make_shared<HostTarget>();
  std::shared_ptr<DeviceTarget> dev = std::make_shared<DeviceTarget>();
  std::shared_ptr<DeviceTarget> dev2 = std::make_shared<DeviceTarget>();
  std::shared_ptr<HostTarget> host2 = std::make_shared<HostTarget>();
  std::map<std::string, std::shared_ptr<Target>> all() const {
    return {{"host", host}, {"dev", dev}, {"dev2", dev2}, {"host2", host2}};
  }
};

std::shared_ptr<const CompiledModule> compile(const Function& main, const Targets& t, std::vector<std::string> order) {
  return compile_by_hand(main, t.all(), [order](size_t g) { return order.at(g % order.size()); });
}

const Tensor kC = floats({4}, {10, -20, 30, -40});
const Tensor kX = floats({4}, {1, -2, 3, -4});
const Tensor kY = floats({4}, {-5, 1, 2, 0.5});

/// Worked by hand: sum = x + y = (-4, -1, 5, -3.5); s = sum + c = (6, -21, 35, -43.5);
/// r = relu(sum) = (0, 0, 5, 0); out = relu(s) + r = (6, 0, 40, 0).
const std::vector<float> kOut = {6, 0, 40, 0}, kSum = {-4, -1, 5, -3.5};

void expect_mixed_result(const Value& v) {
  ASSERT_TRUE(v.is_tuple());
  ASSERT_EQ(v.fields().size(), 2u);
  EXPECT_EQ(contents(v.fields()[0].tensor()), kOut);
  EXPECT_EQ(contents(v.fields()[1].tensor()), kSum);
}

TEST(GraphExecutor, RunsTheGroupsOfOneHostTargetInOrder) {
  Targets t;
  {
    GraphExecutor exec(compile(mixed_main(kC), t, {"host"}));
    EXPECT_EQ(exec.num_launches(), 4u);
    expect_mixed_result(exec.run({kX, kY}));
    // Everything is host memory: no copies.
    EXPECT_EQ(t.host->uploads + t.host->downloads + t.host->buffer_copies, 0);
    // The next run reuses the first's buffers rather than allocating its own.
    const int allocs = t.host->allocs;
    EXPECT_GT(allocs, 0);
    expect_mixed_result(exec.run({kX, kY}));
    EXPECT_EQ(t.host->allocs, allocs);
  }
  EXPECT_EQ(t.host->allocs, t.host->frees);  // returned with the executor
}

TEST(GraphExecutor, GivesTheInterpretersResultOnEveryMixOfTargets) {
  Value expected = Interpreter(IRModule::from_function(mixed_main(kC))).run_main({kX, kY});
  for (std::vector<std::string> order : std::vector<std::vector<std::string>>{
           {"dev"}, {"host", "dev"}, {"dev", "host"}, {"dev", "dev2"}, {"host", "dev", "dev2"}, {"dev2", "host", "dev"}}) {
    Targets t;
    GraphExecutor exec(compile(mixed_main(kC), t, order));
    Value got = exec.run({kX, kY});
    ASSERT_TRUE(got.is_tuple());
    for (size_t i = 0; i < 2; ++i)
      EXPECT_EQ(contents(got.fields()[i].tensor()), contents(expected.fields()[i].tensor())) << "order " << order[0];
    expect_mixed_result(got);
  }
}

TEST(GraphExecutor, CopiesAValueOnceIntoEachDeviceThatReadsIt) {
  // %0 = add(x, y) on the host, read by two relus on the device: one upload of %0 (plus x and y
  // for nothing: they stay on the host), and each result downloaded once as an output.
  Var x = var("x", kVec4), y = var("y", kVec4);
  Expr sum = call_function(add_group(), {x, y});
  Function main = function({x, y}, tuple({call_function(relu_group(), {sum}), call_function(relu_group(), {sum})}));
  Targets t;
  {
    GraphExecutor exec(compile(main, t, {"host", "dev", "dev"}));
    Value v = exec.run({kX, kY});
    EXPECT_EQ(contents(v.fields()[0].tensor()), (std::vector<float>{0, 0, 5, 0}));
    EXPECT_EQ(contents(v.fields()[1].tensor()), (std::vector<float>{0, 0, 5, 0}));
    EXPECT_EQ(t.dev->uploads, 1);
    EXPECT_EQ(t.dev->downloads, 2);
    EXPECT_EQ(t.host->uploads + t.host->downloads, 0);
  }
  EXPECT_EQ(t.dev->live_buffers(), 0u);
}

TEST(GraphExecutor, PassesThroughTheHostBetweenTwoDevicesItCannotAddress) {
  Var x = var("x", kVec4), y = var("y", kVec4);
  Function main = function({x, y}, call_function(relu_group(), {call_function(add_group(), {x, y})}));
  Targets t;
  GraphExecutor exec(compile(main, t, {"dev", "dev2"}));
  EXPECT_EQ(contents(exec.run({kX, kY}).tensor()), (std::vector<float>{0, 0, 5, 0}));
  EXPECT_EQ(t.dev->uploads, 2);     // x, y
  EXPECT_EQ(t.dev->downloads, 1);   // the sum, into host staging
  EXPECT_EQ(t.dev2->uploads, 1);    // the sum, from staging
  EXPECT_EQ(t.dev2->downloads, 1);  // the result
  EXPECT_EQ(exec.memory().arena_bytes_by_target.at("host"), 64u);  // the staged sum, 64-byte aligned
}

TEST(GraphExecutor, UploadsConstantsOnceWhenConstructed) {
  Targets t;
  GraphExecutor exec(compile(mixed_main(kC), t, {"dev"}));
  EXPECT_EQ(t.dev->uploads, 1);  // c
  EXPECT_EQ(t.dev->live_buffers(), 1u);
  exec.run({kX, kY});
  const size_t kept = t.dev->live_buffers();  // c, and the run's buffers kept for the next
  exec.run({kX, kY});
  EXPECT_EQ(t.dev->uploads, 1 + 2 * 2);  // then x and y on each run
  EXPECT_EQ(t.dev->live_buffers(), kept);
}

TEST(GraphExecutor, FreesItsDeviceConstantsWithIt) {
  Targets t;
  { GraphExecutor exec(compile(mixed_main(kC), t, {"dev"})); }
  EXPECT_EQ(t.dev->live_buffers(), 0u);
}

TEST(GraphExecutor, ReturnsInputsAndConstantsAsCopiesOnTheHost) {
  Var x = var("x", kVec4);
  Function main = function({x}, tuple({x, constant(kC), call_function(relu_group(), {x})}));
  Targets t;
  GraphExecutor exec(compile(main, t, {"dev"}));
  Value v = exec.run({kX});
  EXPECT_EQ(contents(v.fields()[0].tensor()), contents(kX));
  EXPECT_NE(v.fields()[0].tensor().data(), kX.data());
  EXPECT_EQ(contents(v.fields()[1].tensor()), contents(kC));
  EXPECT_EQ(contents(v.fields()[2].tensor()), (std::vector<float>{1, 0, 3, 0}));
}

TEST(GraphExecutor, ReportsParameterAndIntermediateBytes) {
  Targets t;
  GraphExecutor host(compile(mixed_main(kC), t, {"host"}));
  // c (16 bytes); five intermediates of 16 bytes (sum, s, r, relu(s), out). In one arena, 64 bytes
  // each: sum (an output) at 0; relu(s) in place over s, out in place over relu(s), all at 64; r,
  // alive with both, at 128.
  EXPECT_EQ(host.memory().param_bytes, 16u);
  EXPECT_EQ(host.memory().intermediate_bytes, 80u);
  EXPECT_EQ(host.memory().arena_bytes, 192u);
  GraphExecutor dev(compile(mixed_main(kC), t, {"dev"}));
  // c on the host and its device copy; x and y uploaded into the run's arena (at 0 and 64, dead once
  // sum is computed, at 128); s and its in-place successors then take 0, and r 64.
  EXPECT_EQ(dev.memory().param_bytes, 32u);
  EXPECT_EQ(dev.memory().intermediate_bytes, 80u);
  EXPECT_EQ(dev.memory().arena_bytes, 192u);
  EXPECT_EQ(dev.memory().arena_bytes_by_target.at("dev"), 192u);
}

TEST(GraphExecutor, FreesABufferReadOnAnotherStreamAtThatStreamsNextSynchronize) {
  // x + 1, six times, alternating the streams of host and host2: each sum is read on the other
  // stream, which is synchronized before the writer's stream reads the next sum, so the sums of
  // each stream die two steps later and take turns in one 64-byte block per stream (the last is
  // the output); kept alive to the end, they took 3 blocks each. The fakes run their queues only
  // at synchronize, so an early reuse would change the result.
  Var x = var("x", kVec4);
  const Tensor one = floats({4}, {1, 1, 1, 1});
  Expr chain = x;
  for (int i = 0; i < 6; ++i) chain = call_function(add_group(), {chain, constant(one)});
  Targets t;
  GraphExecutor exec(compile(function({x}, chain), t, {"host", "host2"}));
  EXPECT_EQ(exec.memory().arena_bytes_by_target.at("host"), 64u);
  EXPECT_EQ(exec.memory().arena_bytes_by_target.at("host2"), 64u);
  EXPECT_EQ(contents(exec.run({kX}).tensor()), (std::vector<float>{7, 4, 9, 2}));
}

TEST(GraphExecutor, KeepsABufferReadOnAStreamNeverSynchronizedAgainToTheEnd) {
  // %0 = x + 1 on host, read by %0 + 1 on host2, whose stream no later step synchronizes; x + x on
  // host after it must not take %0's block, which only the run's end frees: 128 bytes on host.
  Var x = var("x", kVec4);
  const Tensor one = floats({4}, {1, 1, 1, 1});
  Expr first = call_function(add_group(), {x, constant(one)});
  Function main = function({x}, tuple({call_function(add_group(), {first, constant(one)}),
                                       call_function(add_group(), {x, x})}));
  Targets t;
  GraphExecutor exec(compile(main, t, {"host", "host2", "host"}));
  EXPECT_EQ(exec.memory().arena_bytes_by_target.at("host"), 128u);
  EXPECT_EQ(exec.memory().arena_bytes_by_target.at("host2"), 64u);
  Value v = exec.run({kX});
  EXPECT_EQ(contents(v.fields()[0].tensor()), (std::vector<float>{3, 0, 5, -2}));
  EXPECT_EQ(contents(v.fields()[1].tensor()), (std::vector<float>{2, -4, 6, -8}));
}

TEST(GraphExecutor, ProfilesEachLaunchInOrder) {
  Targets t;
  GraphExecutor exec(compile(mixed_main(kC), t, {"host", "dev"}));
  std::vector<KernelProfile> profile;
  expect_mixed_result(exec.run_profiled({kX, kY}, profile));
  ASSERT_EQ(profile.size(), 4u);
  for (size_t i = 0; i < profile.size(); ++i) {
    EXPECT_EQ(profile[i].group, i);
    EXPECT_GE(profile[i].ms, 0);
  }
}

TEST(GraphExecutor, RunsConcurrentlyFromEightThreadsOnDifferentInputs) {
  Targets t;
  auto compiled = compile(mixed_main(kC), t, {"host", "dev", "dev2"});
  auto exec_holder = std::make_unique<GraphExecutor>(compiled);
  GraphExecutor& exec = *exec_holder;
  exec.run({kX, kY});
  const int allocs_of_one_run = t.host->allocs;
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int k = 0; k < 8; ++k) {
    threads.emplace_back([&, k] {
      const Tensor x = floats({4}, {float(k), -float(k), 2.f * k, 1}), y = floats({4}, {1, 2, -3.f * k, float(k)});
      Value want = Interpreter(IRModule::from_function(mixed_main(kC))).run_main({x, y});
      for (int i = 0; i < 50; ++i) {
        Value got = exec.run({x, y});
        for (size_t f = 0; f < 2; ++f)
          if (contents(got.fields()[f].tensor()) != contents(want.fields()[f].tensor())) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, 0);
  // Each concurrent run had buffers of its own, kept for later runs: at most
  // one set per thread, all returned with the executor.
  EXPECT_LE(t.host->allocs, 8 * allocs_of_one_run);
  exec_holder.reset();
  EXPECT_EQ(t.dev->live_buffers(), 0u);
  EXPECT_EQ(t.host->allocs, t.host->frees);
}

class GraphExecutorInputs : public ::testing::Test {
 protected:
  Targets t;
  GraphExecutor exec{compile(mixed_main(kC), t, {"host"})};

  std::string error_of(const std::vector<Value>& inputs) {
    try {
      exec.run(inputs);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(GraphExecutorInputs, AWrongCountIsAnError) {
  EXPECT_EQ(error_of({kX}), "main takes 2 arguments, got 1");
}

TEST_F(GraphExecutorInputs, AWrongShapeNamesTheParameter) {
  EXPECT_EQ(error_of({kX, floats({2, 2}, {1, 2, 3, 4})}),
            "argument %y is Tensor[(2, 2), float32]; expected Tensor[(4), float32]");
}

TEST_F(GraphExecutorInputs, AWrongDtypeNamesTheParameter) {
  EXPECT_EQ(error_of({Tensor::zeros({4}, DataType::Int(32)), kY}),
            "argument %x is Tensor[(4), int32]; expected Tensor[(4), float32]");
}

TEST_F(GraphExecutorInputs, ATupleForATensorNamesTheParameter) {
  EXPECT_THAT(error_of({Value::tuple({kX}), kY}), ::testing::HasSubstr("argument %x"));
}

std::string construction_error(const Function& main) {
  Targets t;
  try {
    GraphExecutor exec(compile(main, t, {"host"}));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

const std::string kDataflow =
    "; it runs a dataflow main: calls of its compiled groups, tuples, projections, lets, parameters and constants";

TEST(GraphExecutorPrograms, AnOpCalledOutsideAGroupIsRefused) {
  Var x = var("x", kVec4);
  EXPECT_EQ(construction_error(function({x}, relu(x))), "the graph executor cannot run a call of nn.relu in main" + kDataflow);
}

TEST(GraphExecutorPrograms, AnIfIsRefused) {
  Var x = var("x", kVec4), c = var("c", tensor_type({}, DataType::Bool()));
  EXPECT_EQ(construction_error(function({x, c}, if_then_else(c, x, call_function(relu_group(), {x})))),
            "the graph executor cannot run a node of kind if in main" + kDataflow);
}

TEST(GraphExecutorPrograms, LetsBindValuesWithoutCopies) {
  // let %s = add(x, y); let %r = relu(%s); (%r, %s)
  Var x = var("x", kVec4), y = var("y", kVec4), sv = var("s"), rv = var("r");
  Function main = function({x, y}, let(sv, call_function(add_group(), {x, y}),
                                       let(rv, call_function(relu_group(), {sv}), tuple({rv, sv}))));
  Targets t;
  GraphExecutor exec(compile(main, t, {"host"}));
  EXPECT_EQ(exec.num_launches(), 2u);
  EXPECT_EQ(exec.memory().intermediate_bytes, 32u);
  Value v = exec.run({kX, kY});
  EXPECT_EQ(contents(v.fields()[0].tensor()), (std::vector<float>{0, 0, 5, 0}));
  EXPECT_EQ(contents(v.fields()[1].tensor()), kSum);
}

TEST(GraphExecutorPrograms, ALocalFunctionIsInlinedAtEachCall) {
  // let %f = fn (%a) { relu(add(%a, %a)) }; (%f(x), %f(y)): lstm's cells are such functions.
  Var x = var("x", kVec4), y = var("y", kVec4), a = var("a", kVec4), f = var("f");
  Function cell = function({a}, call_function(relu_group(), {call_function(add_group(), {a, a})}));
  Function main = function({x, y}, let(f, cell, tuple({call_function(f, {x}), call_function(f, {y})})));
  Targets t;
  GraphExecutor exec(compile(main, t, {"host", "dev"}));
  EXPECT_EQ(exec.num_launches(), 4u);
  Value v = exec.run({kX, kY});
  EXPECT_EQ(contents(v.fields()[0].tensor()), (std::vector<float>{2, 0, 6, 0}));
  EXPECT_EQ(contents(v.fields()[1].tensor()), (std::vector<float>{0, 2, 4, 1}));
}

TEST(GraphExecutorPrograms, ChainsOfTenThousandGroupsScheduleWithoutRecursion) {
  // x + 1 ten thousand times, as nested calls and as a let chain: either recursing on depth would
  // overflow a small stack long before.
  Var x = var("x", kVec4);
  const Tensor one = floats({4}, {1, 1, 1, 1});
  Expr nested = x;
  for (int i = 0; i < 10000; ++i) nested = call_function(add_group(), {nested, constant(one)});
  std::vector<Var> vars;
  for (int i = 0; i < 10000; ++i) vars.push_back(var("v" + std::to_string(i)));
  Expr chain = vars.back();
  for (int i = 9999; i >= 0; --i) chain = let(vars[i], call_function(add_group(), {i ? Expr(vars[i - 1]) : Expr(x), constant(one)}), chain);
  for (const Expr& body : {nested, chain}) {
    Targets t;
    GraphExecutor exec(compile(function({x}, body), t, {"host"}));
    EXPECT_EQ(exec.num_launches(), 10000u);
    EXPECT_EQ(contents(exec.run({kX}).tensor()), (std::vector<float>{10001, 9998, 10003, 9996}));
  }
}

TEST(GraphExecutorPrograms, AGroupOnATargetTheModuleLacksIsRefused) {
  Var x = var("x", kVec4);
  auto compiled = std::make_shared<CompiledModule>(*compile(function({x}, call_function(relu_group(), {x})), Targets(), {"host"}));
  compiled->targets.erase("host");
  try {
    GraphExecutor exec(compiled);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "group 0 runs on target 'host', which the compiled module does not hold");
  }
}

}  // namespace
}  // namespace weft::testing

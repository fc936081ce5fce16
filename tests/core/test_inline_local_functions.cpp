// InlineLocalFunctions: a call of a function literal that nothing else refers
// to becomes its body with the parameters bound to the arguments (hand-worked
// programs, compared structurally); one called twice, a Primitive group and a
// function passed as a value stay as they are. Through the build, constants
// passed into a local function are folded at build, as an lstm cell's
// weights must be.
#include <gtest/gtest.h>

#include <span>
#include <string>

#include "test_ops.h"
#include "weft/build.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

class InlineLocalFunctionsTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }

  static IRModule run(const std::string& text) {
    PassContext ctx;
    ctx.instruments = {std::make_shared<WellFormedInstrument>()};
    return infer_type(InlineLocalFunctions()(parse_module(text), ctx));
  }
  static void expect_program(const IRModule& got, const std::string& want) {
    EXPECT_TRUE(structural_equal(got, infer_type(parse_module(want)))) << to_text(got);
  }
};

TEST_F(InlineLocalFunctionsTest, AFunctionCalledOnceBecomesItsBodyOnTheArguments) {
  expect_program(run(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) {
  %0 = fn (%a: Tensor[(2), float32], %b: Tensor[(2), float32]) {
    test.relu(test.add(%a, %b))
  };
  %0(%x, test.relu(%y))
})"),
                 R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) {
  test.relu(test.add(%x, test.relu(%y)))
})");
}

TEST_F(InlineLocalFunctionsTest, NestedFunctionsAndLetsInsideAreInlinedToo) {
  expect_program(run(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  %1 = fn (%a: Tensor[(2), float32]) {
    %0 = fn (%b: Tensor[(2), float32]) { test.relu(%b) };
    let %c = %0(%a);
    test.add(%c, %a)
  };
  %1(%x)
})"),
                 R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  let %c = test.relu(%x);
  test.add(%c, %x)
})");
}

TEST_F(InlineLocalFunctionsTest, SharedPrimitiveAndEscapingFunctionsStay) {
  const std::string shared = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  %0 = fn (%a: Tensor[(2), float32]) { test.relu(%a) };
  %1 = %0(%x);
  %0(%1)
})";
  expect_program(run(shared), shared);
  const std::string primitive = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  %0 = fn (%a: Tensor[(2), float32], Primitive=1) { test.relu(%a) };
  %0(%x)
})";
  expect_program(run(primitive), primitive);
  const std::string escaping = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  %0 = fn (%a: Tensor[(2), float32]) { test.relu(%a) };
  (%0(%x), %0)
})";
  expect_program(run(escaping), escaping);
}

TEST_F(InlineLocalFunctionsTest, TheBuildFoldsAConstantPassedIntoALocalFunction) {
  // The weight is a constant the function's parameter stands for: inlined
  // first, relu(weight) folds at build and only the add runs.
  IRModule mod = infer_type(parse_module(R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32]) {
  %0 = fn (%a: Tensor[(2), float32], %b: Tensor[(2), float32]) { test.add(%a, test.relu(%b)) };
  %0(%x, %w)
})"));
  const float values[] = {1.0f, -2.0f};
  const Tensor weight = Tensor::from_bytes({2}, DataType::Float(32), std::as_bytes(std::span(values)));
  mod = bind_params(mod, {{"w", weight}});
  RunConfig config;
  config.targets = {"ref"};
  const std::shared_ptr<const CompiledModule> compiled = build(mod, config);
  ASSERT_EQ(compiled->groups.size(), 1u) << describe_partition(*compiled);
  EXPECT_EQ(compiled->groups[0].ops, std::vector<std::string>{"test.add"});
}

}  // namespace
}  // namespace weft

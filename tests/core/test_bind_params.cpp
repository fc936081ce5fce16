// BindParams: named parameters of main become constants (relay.build(params=...),
// bind_params_by_name); unknown names and values that do not fit are errors
// naming the parameter.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "support/op_test.h"
#include "test_ops.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

using testing::elements;
using testing::error_of;
using testing::tensor_of;

class BindParamsTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }

  static IRModule run(const std::string& text, std::map<std::string, Tensor> params) {
    PassContext ctx;
    ctx.instruments = {std::make_shared<WellFormedInstrument>()};
    return BindParams(std::move(params))(parse_module(text), ctx);
  }
  static void expect_equal(const Function& got, const Function& want) {
    EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(want);
  }
};

const char* const kThreeParams = R"(
def @main(%x: Tensor[(2), float32], %w: Tensor[(2), float32], %b: Tensor[(2), float32]) {
  test.add(test.add(%x, %w), %b)
}
)";

TEST_F(BindParamsTest, BoundParametersBecomeConstantsAndLeaveTheParameterList) {
  Tensor w = tensor_of({1, 2}, {2});
  IRModule out = run(kThreeParams, {{"w", w}});
  Var x = var("x", tensor_type({2})), b = var("b", tensor_type({2}));
  expect_equal(out.main(), function({x, b}, call("test.add", {call("test.add", {x, constant(w)}), b})));
  // Bound or given as an argument, the program computes the same.
  Tensor xv = tensor_of({10, 20}, {2}), bv = tensor_of({0.5, -4}, {2});
  Value bound = Interpreter(out).run_main({xv, bv});
  Value unbound = Interpreter(parse_module(kThreeParams)).run_main({xv, w, bv});
  EXPECT_EQ(elements(bound.tensor()), elements(unbound.tensor()));
  EXPECT_EQ(elements(bound.tensor()), (std::vector<double>{11.5, 18}));
}

TEST_F(BindParamsTest, EveryParameterCanBeBoundAndUsesInClosuresAreReplacedToo) {
  Tensor x = tensor_of({3, 4}, {2});
  IRModule out = run(R"(
def @main(%x: Tensor[(2), float32]) {
  let %f = fn (%y: Tensor[(2), float32]) { test.add(%x, %y) };
  %f(%x)
}
)", {{"x", x}});
  EXPECT_TRUE(out.main()->params.empty());
  Var f = var("f"), y = var("y", tensor_type({2}));
  Constant c = constant(x);
  expect_equal(out.main(), function({}, let(f, function({y}, call("test.add", {c, y})), call_function(f, {c}))));
}

TEST_F(BindParamsTest, NoParamsLeaveTheModuleAsItIs) {
  IRModule in = parse_module(kThreeParams);
  EXPECT_TRUE(BindParams({})(in).main().same_as(in.main()));
}

TEST_F(BindParamsTest, ParametersBindByTheirUserFacingNames) {
  // Two parameters named data print as %data and %data1 and bind so.
  Var d0 = var("data", tensor_type({2})), d1 = var("data", tensor_type({2}));
  IRModule in = IRModule::from_function(function({d0, d1}, call("test.add", {d0, d1})));
  Tensor v = tensor_of({7, 8}, {2});
  IRModule out = bind_params(in, {{"data1", v}});
  ASSERT_EQ(out.main()->params.size(), 1u);
  EXPECT_TRUE(out.main()->params[0].same_as(d0));
  expect_equal(out.main(), function({d0}, call("test.add", {d0, constant(v)})));
}

TEST_F(BindParamsTest, AnUnknownNameIsAnErrorListingTheParameters) {
  std::string msg = error_of([] { run(kThreeParams, {{"weight", tensor_of({1, 2}, {2})}}); });
  EXPECT_NE(msg.find("'weight' is not a parameter of main"), std::string::npos) << msg;
  EXPECT_NE(msg.find("x, w, b"), std::string::npos) << msg;
}

TEST_F(BindParamsTest, AValueOfTheWrongShapeOrDtypeIsAnErrorNamingTheParameter) {
  std::string shape = error_of([] { run(kThreeParams, {{"w", tensor_of({1, 2, 3}, {3})}}); });
  EXPECT_NE(shape.find("parameter 'w' of main is Tensor[(3), float32]"), std::string::npos) << shape;
  EXPECT_NE(shape.find("Tensor[(2), float32]"), std::string::npos) << shape;  // what was expected
  std::string dtype = error_of([] { run(kThreeParams, {{"b", tensor_of({1, 2}, {2}, DataType::Int(32))}}); });
  EXPECT_NE(dtype.find("parameter 'b' of main is Tensor[(2), int32]"), std::string::npos) << dtype;
  std::string tuple = error_of([] {
    run("def @main(%t: (Tensor[(2), float32], Tensor[(2), float32])) { %t.0 }", {{"t", tensor_of({1, 2}, {2})}});
  });
  EXPECT_NE(tuple.find("parameter 't' of main has type"), std::string::npos) << tuple;
  EXPECT_NE(tuple.find("not a tensor type"), std::string::npos) << tuple;
}

TEST_F(BindParamsTest, AnAnyExtentFitsEveryExtent) {
  Tensor w = tensor_of({1, 2, 3}, {3});
  IRModule out = run("def @main(%w: Tensor[(?), float32]) { test.relu(%w) }", {{"w", w}});
  expect_equal(out.main(), function({}, call("test.relu", {constant(w)})));
}

}  // namespace
}  // namespace weft

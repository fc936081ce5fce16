// The Relay text parser on texts written the way TVM's astext() writes them,
// with the core's test ops (test_ops.h).
#include <gtest/gtest.h>

#include "small_stack.h"
#include "test_ops.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

class TextParserTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST_F(TextParserTest, ModuleWithTypeCommentsParsesToTheBuiltProgram) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(1, 3), float32]) -> Tensor[(1, 3), float32] {\n"
      "  %0 = test.relu(%x) /* ty=Tensor[(1, 3), float32] */;\n"
      "  test.relu(%0) /* ty=Tensor[(1, 3), float32] */\n"
      "}\n");
  Var x = var("x", tensor_type({1, 3}));
  Function expected = function({x}, call("test.relu", {call("test.relu", {x})}), tensor_type({1, 3}));
  EXPECT_TRUE(structural_equal(mod, IRModule::from_function(expected)));
}

TEST_F(TextParserTest, AttrsAreNormalizedThroughTheSchema) {
  Expr e = parse_expr(
      "free_var %x: Tensor[(1, 3, 8, 8), float32];\n"
      "free_var %w: Tensor[(4, 3, 3, 3), float32];\n"
      "test.conv(%x, %w, strides=[2, 2], padding=1)");
  auto& c = static_cast<const CallNode&>(*e);
  EXPECT_EQ(c.attrs->at("padding").as_int_list(), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(c.attrs->at("strides").as_int_list(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(free_vars(e).size(), 2u);
}

TEST_F(TextParserTest, TuplesProjectionsLetsAndIfs) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%c: bool, %x: Tensor[(4), float32]) {\n"
      "  %0 = test.split(%x, sections=2);\n"
      "  %1 = %0.0;\n"
      "  let %y = (%1, %0.1,);\n"
      "  if (%c) {\n"
      "    %y.1\n"
      "  } else {\n"
      "    test.relu(%1)\n"
      "  }\n"
      "}\n");
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", tensor_type({4})), y = var("y");
  Expr s = call("test.split", {x}, {{"sections", 2}});
  Expr first = get_item(s, 0);
  Expr body = let(y, tuple({first, get_item(s, 1)}), if_then_else(c, get_item(y, 1), call("test.relu", {first})));
  EXPECT_TRUE(structural_equal(mod, IRModule::from_function(function({c, x}, body))));
}

TEST_F(TextParserTest, AModuleTextMayHoldOneFunctionOrExpressionAsMain) {
  // astext() of a relay.Function, and of an expression with free variables.
  IRModule from_fn = parse_module(
      "#[version = \"0.0.5\"]\n"
      "fn (%x: Tensor[(2), float32]) -> Tensor[(2), float32] {\n"
      "  test.relu(%x)\n"
      "}\n");
  IRModule from_expr = parse_module(
      "#[version = \"0.0.5\"]\n"
      "free_var %x: Tensor[(2), float32];\n"
      "test.relu(%x)\n");
  Var x = var("x", tensor_type({2}));
  EXPECT_TRUE(structural_equal(from_fn, IRModule::from_function(function({x}, call("test.relu", {x}), tensor_type({2})))));
  EXPECT_TRUE(structural_equal(from_expr, IRModule::from_function(function({x}, call("test.relu", {x})))));
  EXPECT_EQ(error_of([] { parse_module("fn () { @g() }", "e.relay"); }),
            "e.relay:1:9: undefined function @g; expected a `def @g`");
}

TEST_F(TextParserTest, SeveralFunctionsCallEachOther) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @f(%y: Tensor[(2), float32]) {\n"
      "  test.relu(%y)\n"
      "}\n"
      "\n"
      "def @main(%x: Tensor[(2), float32]) {\n"
      "  %0 = @f(%x);\n"
      "  @f(%0)\n"
      "}\n");
  ASSERT_EQ(mod.functions().size(), 2u);
  IRModule typed = infer_type(mod);
  EXPECT_TRUE(type_equal(typed.main()->body->checked_type(), tensor_type({2})));
}

TEST_F(TextParserTest, ClosuresWithAttrsAndScalarConstants) {
  Expr e = parse_expr(
      "free_var %x: Tensor[(2), float32];\n"
      "%0 = fn (%p0: Tensor[(2), float32], Primitive=1) {\n"
      "  test.add(%p0, -1.5f)\n"
      "};\n"
      "%0(%x)");
  auto& c = static_cast<const CallNode&>(*e);
  auto& fn = static_cast<const FunctionNode&>(*c.op);
  EXPECT_EQ(fn.attrs->at("Primitive").as_int(), 1);
  auto& add = static_cast<const CallNode&>(*fn.body);
  auto& k = static_cast<const ConstantNode&>(*add.args[1]);
  EXPECT_EQ(k.data.dtype(), DataType::Float(32));
  EXPECT_EQ(k.data.element_as_double(0), -1.5);
}

TEST_F(TextParserTest, ALetBoundFunctionMayCallItself) {
  Expr e = parse_expr(
      "free_var %x: Tensor[(2), float32];\n"
      "let %f = fn (%y: Tensor[(2), float32]) {\n"
      "  %f(%y)\n"
      "};\n"
      "%f(%x)");
  auto& l = static_cast<const LetNode&>(*e);
  auto& fn = static_cast<const FunctionNode&>(*l.value);
  EXPECT_EQ(static_cast<const CallNode&>(*fn.body).op.get(), l.var.get());
  EXPECT_TRUE(structural_equal(parse_expr(to_text(e)), e, /*map_free_vars=*/true));
}

TEST_F(TextParserTest, ALetOfAnythingButAFunctionShadowsTheOuterName) {
  Expr e = parse_expr(
      "free_var %x: Tensor[(2), float32];\n"
      "let %x = test.relu(%x);\n"
      "%x");
  auto& l = static_cast<const LetNode&>(*e);
  Expr arg = static_cast<const CallNode&>(*l.value).args[0];
  EXPECT_NE(arg.get(), l.var.get());                 // the free %x
  EXPECT_EQ(l.body.get(), l.var.get());              // the let's %x
  EXPECT_EQ(free_vars(e).size(), 1u);
}

// TVM's printer declares a free variable where it is first used, so a lone
// `if` prints `free_var %x` inside the branch that uses it first, and the other
// branch and the code after the `if` refer to it (TVM's parser keeps free
// variables for the rest of the text). These are the texts TVM 0.19 prints for
// relay.If(c, relu(x), x) after InferType, and for add(If(c, relu(x), x), x).
TEST_F(TextParserTest, AFreeVarDeclaredInsideABranchIsVisibleToTheRestOfTheTextAsInTvm) {
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", tensor_type({2}));
  Expr lone_if = parse_expr(
      "#[version = \"0.0.5\"]\n"
      "free_var %c: bool /* ty=bool */;\n"
      "if (%c) {\n"
      "  free_var %x: Tensor[(2), float32] /* ty=Tensor[(2), float32] */;\n"
      "  test.relu(%x) /* ty=Tensor[(2), float32] */\n"
      "} else {\n"
      "  %x\n"
      "}\n");
  EXPECT_TRUE(structural_equal(lone_if, if_then_else(c, call("test.relu", {x}), x), /*map_free_vars=*/true));
  EXPECT_EQ(free_vars(lone_if).size(), 2u);

  Expr used_after = parse_expr(
      "free_var %c: bool;\n"
      "%0 = if (%c) {\n"
      "  free_var %x: Tensor[(2), float32];\n"
      "  test.relu(%x)\n"
      "} else {\n"
      "  %x\n"
      "};\n"
      "test.add(%0, %x)\n");
  Expr expected = call("test.add", {if_then_else(c, call("test.relu", {x}), x), x});
  EXPECT_TRUE(structural_equal(used_after, expected, /*map_free_vars=*/true));
  EXPECT_EQ(free_vars(used_after).size(), 2u);
}

// weft prints every free variable before the expression, never inside a
// branch, and what it prints reads back as the same program.
TEST_F(TextParserTest, ALoneIfWithFreeVariablesRoundTripsWithItsDeclarationsFirst) {
  Var c = var("c", scalar_type(DataType::Bool())), d = var("d", scalar_type(DataType::Bool()));
  Var x = var("x", tensor_type({2})), y = var("y", tensor_type({2}));
  // %y is first used in the inner if's else branch, %x only in branches.
  Expr inner = if_then_else(d, x, call("test.relu", {y}));
  Expr e = if_then_else(c, call("test.relu", {x}), inner);
  const std::string text = to_text(e, {.show_types = false});
  EXPECT_EQ(text,
            "free_var %c: bool;\n"
            "free_var %x: Tensor[(2), float32];\n"
            "free_var %d: bool;\n"
            "free_var %y: Tensor[(2), float32];\n"
            "if (%c) {\n"
            "  test.relu(%x)\n"
            "} else {\n"
            "  if (%d) {\n"
            "    %x\n"
            "  } else {\n"
            "    test.relu(%y)\n"
            "  }\n"
            "}");
  Expr back = parse_expr(text);
  EXPECT_TRUE(structural_equal(back, e, /*map_free_vars=*/true));
  EXPECT_EQ(to_text(back, {.show_types = false}), text);
  // With types: inference annotates the branches; the text still reads back.
  IRModule typed = infer_type(parse_module(to_text(e)));
  EXPECT_TRUE(structural_equal(parse_module(to_text(typed)), typed)) << to_text(typed);
}

TEST_F(TextParserTest, AFreeVarDeclaredTwiceIsOneVariableUnlessTheTypesDiffer) {
  Expr e = parse_expr(
      "free_var %x: Tensor[(2), float32];\n"
      "%0 = test.relu(%x);\n"
      "free_var %x: Tensor[(2), float32];\n"
      "test.add(%0, %x)");
  EXPECT_EQ(free_vars(e).size(), 1u);
  EXPECT_EQ(error_of([] {
              parse_expr("free_var %x: Tensor[(2), float32];\nfree_var %x: Tensor[(3), float32];\n%x", "a.relay");
            }),
            "a.relay:2:10: free variable %x is declared again with another type; expected Tensor[(2), float32] as at "
            "a.relay:1:10");
}

TEST_F(TextParserTest, ScalarLiteralsKeepTheirDtypes) {
  auto dtype_and_value = [](const std::string& text) {
    Expr e = parse_expr(text);
    auto& c = static_cast<const ConstantNode&>(*e);
    return std::make_pair(c.data.dtype().str(), c.data.element_as_double(0));
  };
  EXPECT_EQ(dtype_and_value("1f"), std::make_pair(std::string("float32"), 1.0));
  EXPECT_EQ(dtype_and_value("2e-05f").first, "float32");
  EXPECT_EQ(dtype_and_value("0.5f64"), std::make_pair(std::string("float64"), 0.5));
  EXPECT_EQ(dtype_and_value("1.5f16"), std::make_pair(std::string("float16"), 1.5));
  EXPECT_EQ(dtype_and_value("0i64"), std::make_pair(std::string("int64"), 0.0));
  EXPECT_EQ(dtype_and_value("-3"), std::make_pair(std::string("int32"), -3.0));
  EXPECT_EQ(dtype_and_value("7i16"), std::make_pair(std::string("int16"), 7.0));
  EXPECT_EQ(dtype_and_value("True"), std::make_pair(std::string("bool"), 1.0));
  EXPECT_EQ(dtype_and_value("4294967296"), std::make_pair(std::string("int64"), 4294967296.0));
  Expr big = parse_expr("9007199254740993i64");  // not representable as a double
  EXPECT_EQ(*static_cast<const ConstantNode&>(*big).data.data_as<int64_t>(), 9007199254740993LL);
}

TEST_F(TextParserTest, CommentsOfBothKindsAreSkipped) {
  Expr e = parse_expr(
      "// a line comment\n"
      "free_var %x: /* nested /* block */ comment */ Tensor[(2), float32];\n"
      "test.relu(%x) // trailing\n");
  EXPECT_EQ(e->kind, ExprKind::kCall);
}

TEST_F(TextParserTest, ParsedExpressionsRecordWhereTheyStart) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(2), float32]) {\n"
      "  %0 = test.relu(%x);\n"
      "  test.add(%0, %0)\n"
      "}\n",
      "prog.relay");
  const Expr& body = mod.main()->body;
  ASSERT_TRUE(body->span);
  EXPECT_EQ(body->span->str(), "prog.relay:4:3");
  EXPECT_EQ(static_cast<const CallNode&>(*body).args[0]->span->str(), "prog.relay:3:8");
}

TEST_F(TextParserTest, TypeErrorsPointAtTheParsedCall) {
  IRModule mod = parse_module(
      "#[version = \"0.0.5\"]\n"
      "def @main(%x: Tensor[(2), float32], %y: Tensor[(3), float32]) {\n"
      "  test.add(%x, %y)\n"
      "}\n",
      "bad.relay");
  std::string message = error_of([&] { infer_type(mod); });
  EXPECT_EQ(message.rfind("bad.relay:3:3: ", 0), 0u) << message;
}

TEST_F(TextParserTest, TypesOfEveryForm) {
  Expr e = parse_expr(
      "free_var %a: (Tensor[(1, ?), float32], int64);\n"
      "free_var %b: fn (Tensor[(2), float32]) -> Tensor[(2), float32];\n"
      "free_var %c: (float32,);\n"
      "free_var %d: _;\n"
      "free_var %e: Tensor[(), uint8];\n"
      "(%a, %b, %c, %d, %e)");
  auto& t = static_cast<const TupleNode&>(*e);
  auto type_of = [&](int i) { return static_cast<const VarNode&>(*t.fields[i]).type_annotation; };
  EXPECT_EQ(type_to_text(type_of(0)), "(Tensor[(1, ?), float32], int64)");
  EXPECT_EQ(type_to_text(type_of(1)), "fn (Tensor[(2), float32]) -> Tensor[(2), float32]");
  EXPECT_EQ(type_to_text(type_of(2)), "(float32,)");
  EXPECT_EQ(type_of(3)->kind, TypeKind::kIncomplete);
  EXPECT_EQ(type_to_text(type_of(4)), "uint8");
}

TEST_F(TextParserTest, ALetChainOfAHundredThousandParsesOnASmallStack) {
  std::string text = "free_var %x: Tensor[(2), float32];\nlet %v0 = test.relu(%x);\n";
  for (int i = 1; i < 100000; ++i)
    text += "let %v" + std::to_string(i) + " = test.relu(%v" + std::to_string(i - 1) + ");\n";
  text += "%v99999";
  testing::run_with_stack(testing::kSmallStack, [&] {
    Expr e = parse_expr(text);
    int depth = 0;
    for (Expr cur = e; cur->kind == ExprKind::kLet; cur = static_cast<const LetNode&>(*cur).body) ++depth;
    EXPECT_EQ(depth, 100000);
  });
}

TEST_F(TextParserTest, AHundredThousandBindingsParseOnASmallStack) {
  std::string text = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  %0 = test.relu(%x);\n";
  for (int i = 1; i < 100000; ++i)
    text += "  %" + std::to_string(i) + " = test.relu(%" + std::to_string(i - 1) + ");\n";
  text.erase(text.rfind("  %99999 = "));
  text += "  test.relu(%99998)\n}\n";
  testing::run_with_stack(testing::kSmallStack, [&] {
    IRModule mod = parse_module(text);
    EXPECT_EQ(to_text(mod, {.show_types = false}), text);
  });
}

// ---- errors -----------------------------------------------------------------

TEST_F(TextParserTest, ErrorsSayWhereAndWhatWasExpected) {
  auto module_error = [](const std::string& text) { return error_of([&] { parse_module(text, "m.relay"); }); };
  EXPECT_EQ(module_error("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32] {\n  %x\n}\n"),
            "m.relay:2:36: expected `,` or `)`, found `{`");
  EXPECT_EQ(module_error("def @main(%x) {\n  %0 = test.relu(%x)\n  %0\n}\n"),
            "m.relay:3:3: expected `;`, found `%0`");
  EXPECT_EQ(module_error("def @main(%x) {\n  test.relu(%y)\n}\n"), "m.relay:2:13: undefined variable %y");
  EXPECT_EQ(module_error("def @main(%x) {\n  %3\n}\n"),
            "m.relay:2:3: undefined binding %3; expected `%3 = ...;` before it");
  EXPECT_EQ(module_error("def @main(%x) {\n  nn.nonexistent(%x)\n}\n"),
            "m.relay:2:3: unknown operator `nn.nonexistent`; expected an op a plugin provides");
  EXPECT_EQ(module_error("def @main(%x) {\n  @g(%x)\n}\n"), "m.relay:2:3: undefined function @g; expected a `def @g`");
  EXPECT_EQ(module_error("def @main(%x: Tensor[(2, -1), float32]) {\n  %x\n}\n"),
            "m.relay:1:26: expected a dimension (a non-negative integer or `?`), found `-1`");
  EXPECT_EQ(module_error("def @main(%x: tensor32) {\n  %x\n}\n"),
            "m.relay:1:15: expected a type (`Tensor[...]`, a dtype, a tuple or `fn`), found identifier `tensor32`");
  EXPECT_EQ(module_error("def @main() {\n  1x\n}\n"),
            "m.relay:2:3: invalid number `1`: unexpected `x`; expected a suffix f, f16, f32, f64, i8, i16, i32 or i64");
  EXPECT_EQ(module_error("def @main() {\n  \"open\n}\n"),
            "m.relay:2:3: unterminated string: expected `\"`, found end of input");
  EXPECT_EQ(module_error("def @main() {\n  /* open\n}\n"),
            "m.relay:2:3: unterminated comment: expected `*/`, found end of input");
  EXPECT_EQ(module_error("#[version = \"0.0.4\"]\n"),
            "m.relay:1:1: unsupported text format version \"0.0.4\"; expected \"0.0.5\"");
  EXPECT_EQ(module_error("def @main() { 1 }\ndef @main() { 2 }\n"), "m.relay:2:5: function @main is defined twice");
  EXPECT_EQ(module_error("def @main() { 1 } %x"), "m.relay:1:19: expected `def` or end of input, found `%x`");
  EXPECT_EQ(module_error("fn () { 1 } %x"), "m.relay:1:13: expected end of input, found `%x`");
  EXPECT_EQ(module_error("def @main() { 1i9 }"),
            "m.relay:1:15: invalid integer suffix `i9`; expected i8, i16, i32 or i64");
  EXPECT_EQ(module_error("def @main() { 300i8 }"), "m.relay:1:15: integer `300` does not fit in int8");
  EXPECT_EQ(module_error("def @main() { $ }"), "m.relay:1:15: unexpected character `$`");
  EXPECT_EQ(module_error("def @main(%x) {\n  let %y = test.add(%y, %x);\n  %y\n}\n"),
            "m.relay:2:21: undefined variable %y");
}

TEST_F(TextParserTest, AttrErrorsNameTheCallSiteOpAndAttr) {
  std::string message = error_of([] {
    parse_expr("free_var %x: Tensor[(4), float32];\ntest.split(%x, sections=\"two\")", "a.relay");
  });
  EXPECT_EQ(message.rfind("a.relay:2:1: op test.split, attr sections: ", 0), 0u) << message;
  EXPECT_EQ(error_of([] { parse_expr("free_var %x;\ntest.relu(%x, alpha=1, alpha=2)", "a.relay"); }),
            "a.relay:2:24: attribute `alpha` is given twice");
  EXPECT_EQ(error_of([] { parse_expr("free_var %x;\nfn (%y) { %y }(%x, k=1)", "a.relay"); }),
            "a.relay:2:1: only operator calls take attributes (`key=value`)");
}

TEST_F(TextParserTest, DeepNestingIsAnErrorNotACrash) {
  // The cap keeps recursion within a default 8 MiB thread stack, sanitizers included.
  testing::run_with_stack(size_t{8} << 20, [] {
    std::string deep(100000, '(');
    EXPECT_EQ(error_of([&] { parse_expr(deep + "1"); }), "<string>:1:101: nesting deeper than 100 levels");
    std::string deep_types = "free_var %x: " + std::string(100000, '(');
    EXPECT_NE(error_of([&] { parse_expr(deep_types); }).find("nesting deeper than 100 levels"), std::string::npos);
  });
}

TEST_F(TextParserTest, UnreadableFilesNameThePath) {
  std::string message = error_of([] { parse_module_file("/nonexistent/prog.relay"); });
  EXPECT_EQ(message, "cannot read Relay text file /nonexistent/prog.relay; expected a readable file");
  EXPECT_EQ(error_of([] { parse_module_file(WEFT_GOLDEN_DIR); }),
            std::string("cannot read Relay text file ") + WEFT_GOLDEN_DIR + "; expected a readable file");
}

}  // namespace
}  // namespace weft

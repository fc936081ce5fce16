// The Relay text printer, against text written the way TVM's astext() writes it.
#include <gtest/gtest.h>

#include "small_stack.h"
#include "test_ops.h"
#include "weft/printer.h"

namespace weft {
namespace {

class PrinterTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

Type t13() { return tensor_type({1, 3}); }

TEST_F(PrinterTest, ModuleWithTypesMatchesTvmLayout) {
  Var x = var("x", t13());
  Call r0 = call("test.relu", {x});
  Call r1 = call("test.relu", {r0});
  r0->set_checked_type(t13());
  r1->set_checked_type(t13());
  IRModule mod = IRModule::from_function(function({x}, r1, t13()));
  EXPECT_EQ(to_text(mod),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 3), float32]) -> Tensor[(1, 3), float32] {\n"
            "  %0 = test.relu(%x) /* ty=Tensor[(1, 3), float32] */;\n"
            "  test.relu(%0) /* ty=Tensor[(1, 3), float32] */\n"
            "}\n");
}

TEST_F(PrinterTest, TypedParamsCarryTheirTypeComment) {
  // After type inference a parameter has a checked type too; TVM prints both.
  Var x = var("x", t13());
  x->set_checked_type(t13());
  IRModule mod = IRModule::from_function(function({x}, x));
  EXPECT_EQ(to_text(mod),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 3), float32] /* ty=Tensor[(1, 3), float32] */) {\n"
            "  %x\n"
            "}\n");
}

TEST_F(PrinterTest, OptionsDropTypesAndHeader) {
  Var x = var("x", t13());
  Call r = call("test.relu", {x});
  r->set_checked_type(t13());
  EXPECT_EQ(to_text(IRModule::from_function(function({x}, r)), {.show_types = false, .header = false}),
            "def @main(%x: Tensor[(1, 3), float32]) {\n"
            "  test.relu(%x)\n"
            "}\n");
}

TEST_F(PrinterTest, AttrsPrintAsKeyValueLeavingOutDefaults) {
  Var x = var("x", tensor_type({1, 3, 8, 8})), w = var("w", tensor_type({4, 3, 3, 3}));
  Expr c = call("test.conv", {x, w}, {{"padding", 1}});
  EXPECT_EQ(to_text(IRModule::from_function(function({x, w}, c))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {\n"
            "  test.conv(%x, %w, padding=[1, 1, 1, 1])\n"
            "}\n");
  Expr s = call("test.conv", {x, w}, {{"strides", 2}, {"padding", 0}});
  EXPECT_EQ(to_text(s, {.show_types = true, .header = false}),
            "free_var %x: Tensor[(1, 3, 8, 8), float32];\n"
            "free_var %w: Tensor[(4, 3, 3, 3), float32];\n"
            "test.conv(%x, %w, strides=[2, 2])");
}

TEST_F(PrinterTest, SharedNodesAreBoundOnceAndReused) {
  Var x = var("x", tensor_type({2}));
  Expr r = call("test.relu", {x});
  IRModule mod = IRModule::from_function(function({x}, call("test.add", {r, r})));
  EXPECT_EQ(to_text(mod),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2), float32]) {\n"
            "  %0 = test.relu(%x);\n"
            "  test.add(%0, %0)\n"
            "}\n");
}

TEST_F(PrinterTest, TuplesAndProjections) {
  Var x = var("x", tensor_type({4}));
  Expr s = call("test.split", {x}, {{"sections", 2}});
  Expr body = tuple({get_item(s, 0), get_item(s, 1)});
  EXPECT_EQ(to_text(IRModule::from_function(function({x}, body))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(4), float32]) {\n"
            "  %0 = test.split(%x, sections=2);\n"
            "  %1 = %0.0;\n"
            "  %2 = %0.1;\n"
            "  (%1, %2)\n"
            "}\n");
  EXPECT_EQ(to_text(tuple({x}), {.show_types = false, .header = false}),
            "free_var %x: Tensor[(4), float32];\n"
            "(%x,)");
}

TEST_F(PrinterTest, LetBindingsPrintFlat) {
  Var x = var("x", tensor_type({2}));
  Var y = var("y"), z = var("z");
  Expr e = let(y, call("test.relu", {x}), let(z, call("test.add", {y, y}), z));
  EXPECT_EQ(to_text(e, {.show_types = false, .header = false}),
            "free_var %x: Tensor[(2), float32];\n"
            "let %y = test.relu(%x);\n"
            "let %z = test.add(%y, %y);\n"
            "%z");
}

TEST_F(PrinterTest, ALetUsedAsAnArgumentIsBoundInParentheses) {
  Var x = var("x", tensor_type({2})), y = var("y");
  Expr e = call("test.add", {let(y, call("test.relu", {x}), y), x});
  EXPECT_EQ(to_text(e, {.show_types = false, .header = false}),
            "free_var %x: Tensor[(2), float32];\n"
            "%0 = (\n"
            "  let %y = test.relu(%x);\n"
            "  %y\n"
            ");\n"
            "test.add(%0, %x)");
}

TEST_F(PrinterTest, ALetBoundToALetKeepsTheInnerScopeInParentheses) {
  // Found by fuzz_parser: printed flat, the inner let's body would read back
  // as the rest of the outer chain.
  Var x = var("x", tensor_type({2})), v = var("v"), y = var("y");
  Expr e = let(y, let(v, x, call("test.relu", {v})), call("test.add", {y, x}));
  std::string text = to_text(e, {.show_types = false, .header = false});
  EXPECT_EQ(text,
            "free_var %x: Tensor[(2), float32];\n"
            "let %y = (\n"
            "  let %v = %x;\n"
            "  test.relu(%v)\n"
            ");\n"
            "test.add(%y, %x)");
}

TEST_F(PrinterTest, IfBranchesAreIndentedBodies) {
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", tensor_type({2}));
  Expr body = if_then_else(c, call("test.relu", {x}), x);
  EXPECT_EQ(to_text(IRModule::from_function(function({c, x}, body))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%c: bool, %x: Tensor[(2), float32]) {\n"
            "  if (%c) {\n"
            "    test.relu(%x)\n"
            "  } else {\n"
            "    %x\n"
            "  }\n"
            "}\n");
}

TEST_F(PrinterTest, InnerFunctionsWithAttrsAreBoundAndCalled) {
  Var x = var("x", tensor_type({2})), p = var("p0", tensor_type({2}));
  Function fused = function({p}, call("test.relu", {p}), nullptr, make_attrs({{"Primitive", 1}}));
  IRModule mod = IRModule::from_function(function({x}, call_function(fused, {x})));
  EXPECT_EQ(to_text(mod),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2), float32]) {\n"
            "  %0 = fn (%p0: Tensor[(2), float32], Primitive=1) {\n"
            "    test.relu(%p0)\n"
            "  };\n"
            "  %0(%x)\n"
            "}\n");
}

TEST_F(PrinterTest, FunctionsPrintAlphabeticallyAndTempsKeepCounting) {
  Var y = var("y", tensor_type({2})), x = var("x", tensor_type({2}));
  IRModule mod;
  GlobalVar main = mod.add("main", function({x}, x));
  GlobalVar f = mod.add("f", function({y}, call("test.relu", {call("test.relu", {y})})));
  mod.add(main, function({x}, call("test.relu", {call_function(f, {x})})));
  EXPECT_EQ(to_text(mod),
            "#[version = \"0.0.5\"]\n"
            "def @f(%y: Tensor[(2), float32]) {\n"
            "  %0 = test.relu(%y);\n"
            "  test.relu(%0)\n"
            "}\n"
            "\n"
            "def @main(%x: Tensor[(2), float32]) {\n"
            "  %1 = @f(%x);\n"
            "  test.relu(%1)\n"
            "}\n");
}

TEST_F(PrinterTest, VariableNamesAreMadeUniqueAndStartWithALetter) {
  Var a = var("x"), b = var("x"), c = var(""), d = var("0d");
  Expr e = tuple({a, b, c, d});
  EXPECT_EQ(to_text(e, {.show_types = false, .header = false}),
            "free_var %x;\n"
            "free_var %x1;\n"
            "free_var %v;\n"
            "free_var %v0d;\n"
            "(%x, %x1, %v, %v0d)");
}

TEST_F(PrinterTest, ScalarConstantsPrintInline) {
  auto text = [](double v, DataType t) {
    return to_text(constant(Tensor::scalar(v, t)), {.show_types = false, .header = false});
  };
  EXPECT_EQ(text(1, DataType::Float(32)), "1f");
  EXPECT_EQ(text(2e-05, DataType::Float(32)), "2e-05f");
  EXPECT_EQ(text(0.5, DataType::Float(64)), "0.5f64");
  EXPECT_EQ(text(1.5, DataType::Float(16)), "1.5f16");
  EXPECT_EQ(text(0, DataType::Int(64)), "0i64");
  EXPECT_EQ(text(-3, DataType::Int(32)), "-3");
  EXPECT_EQ(text(7, DataType::Int(16)), "7i16");
  EXPECT_EQ(text(1, DataType::Bool()), "True");
}

TEST_F(PrinterTest, ScalarConstantWithTypeGetsTheComment) {
  Var x = var("x", scalar_type(DataType::Float(32)));
  Constant two = constant(Tensor::scalar(2, DataType::Float(32)));
  two->set_checked_type(scalar_type(DataType::Float(32)));
  EXPECT_EQ(to_text(IRModule::from_function(function({x}, call("test.add", {x, two})))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: float32) {\n"
            "  test.add(%x, 2f /* ty=float32 */)\n"
            "}\n");
}

TEST_F(PrinterTest, LargerConstantsAreMetaReferencesWithANote) {
  Var x = var("x", tensor_type({2, 2}));
  Constant w = constant(Tensor::zeros({2, 2}, DataType::Float(32)));
  Constant b = constant(Tensor::zeros({2, 2}, DataType::Float(32)));
  Expr body = call("test.add", {call("test.add", {x, w}), call("test.add", {b, w})});
  EXPECT_EQ(to_text(IRModule::from_function(function({x}, body)), {.show_meta_data = false}),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2, 2), float32]) {\n"
            "  %0 = test.add(%x, meta[relay.Constant][0]);\n"
            "  %1 = test.add(meta[relay.Constant][1], meta[relay.Constant][0]);\n"
            "  test.add(%0, %1)\n"
            "}\n"
            "\n"
            "/* For debugging purposes the metadata section has been omitted.\n"
            " * If you would like to see the full metadata section you can set the \n"
            " * option to `True` when invoking `astext`. \n"
            " */");
}

TEST_F(PrinterTest, TheMetadataSectionHoldsConstantsAsTvmWritesThem) {
  // The JSON object graph and NDArray bytes of TVM's SaveJSON; the base64 is
  // TVM's NDArray layout for a float32 [2] tensor holding 1 and 2.
  float values[] = {1, 2};
  Tensor t = Tensor::from_bytes({2}, DataType::Float(32), std::as_bytes(std::span(values)));
  Var x = var("x", tensor_type({2}));
  EXPECT_EQ(to_text(IRModule::from_function(function({x}, call("test.add", {x, constant(t)})))),
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(2), float32]) {\n"
            "  test.add(%x, meta[relay.Constant][0])\n"
            "}\n"
            "\n"
            "#[metadata]\n"
            "{\n"
            "  \"attrs\": {\n"
            "    \"tvm_version\": \"0.19.0\"\n"
            "  },\n"
            "  \"b64ndarrays\": [\n"
            "    \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQACAAAAAAAAAAgAAAAAAAAAAACAPwAAAEA=\"\n"
            "  ],\n"
            "  \"nodes\": [\n"
            "    {\n"
            "      \"type_key\": \"\"\n"
            "    },\n"
            "    {\n"
            "      \"data\": [\n"
            "        2\n"
            "      ],\n"
            "      \"keys\": [\n"
            "        \"relay.Constant\"\n"
            "      ],\n"
            "      \"type_key\": \"Map\"\n"
            "    },\n"
            "    {\n"
            "      \"data\": [\n"
            "        3\n"
            "      ],\n"
            "      \"type_key\": \"Array\"\n"
            "    },\n"
            "    {\n"
            "      \"attrs\": {\n"
            "        \"_checked_type_\": \"0\",\n"
            "        \"data\": \"0\",\n"
            "        \"span\": \"0\",\n"
            "        \"virtual_device_\": \"0\"\n"
            "      },\n"
            "      \"type_key\": \"relay.Constant\"\n"
            "    }\n"
            "  ],\n"
            "  \"root\": 1\n"
            "}\n");
}

TEST_F(PrinterTest, FreeVariablesAreDeclaredOnceBeforeNestedScopes) {
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", tensor_type({2}));
  Expr e = if_then_else(c, call("test.relu", {x}), x);
  EXPECT_EQ(to_text(e, {.show_types = false}),
            "free_var %c: bool;\n"
            "free_var %x: Tensor[(2), float32];\n"
            "if (%c) {\n"
            "  test.relu(%x)\n"
            "} else {\n"
            "  %x\n"
            "}");
}

TEST_F(PrinterTest, AFreeVariableOfADefinitionIsDeclaredAtTheTopOfItsBody) {
  Var c = var("c", scalar_type(DataType::Bool())), x = var("x", tensor_type({2}));
  IRModule mod = IRModule::from_function(function({c}, if_then_else(c, call("test.relu", {x}), x)));
  EXPECT_EQ(to_text(mod, {.show_types = false, .header = false}),
            "def @main(%c: bool) {\n"
            "  free_var %x: Tensor[(2), float32];\n"
            "  if (%c) {\n"
            "    test.relu(%x)\n"
            "  } else {\n"
            "    %x\n"
            "  }\n"
            "}\n");
}

TEST_F(PrinterTest, FloatsPrintTheShortestTextThatReadsBackExactly) {
  auto text = [](double v, DataType t) {
    return to_text(constant(Tensor::scalar(v, t)), {.show_types = false, .header = false});
  };
  EXPECT_EQ(text(0.1, DataType::Float(32)), "0.1f");
  EXPECT_EQ(text(1234567, DataType::Float(32)), "1234567f");
  EXPECT_EQ(text(0.123456789, DataType::Float(64)), "0.123456789f64");
  Var x = var("x");
  Function f = function({x}, x, nullptr, make_attrs({{"alpha", 0.123456789}}));
  EXPECT_EQ(to_text(f, {.show_types = false}), "fn (%x, alpha=0.123456789f) {\n  %x\n}");
}

TEST_F(PrinterTest, FloatStringAndBoolAttrsOnFunctions) {
  Var x = var("x");
  Function f = function({x}, x, nullptr, make_attrs({{"Compiler", "ext"}, {"eps", 1e-05}, {"flag", true}}));
  EXPECT_EQ(to_text(f, {.show_types = false, .header = false}),
            "fn (%x, Compiler=\"ext\", eps=1e-05f, flag=True) {\n"
            "  %x\n"
            "}");
}

TEST_F(PrinterTest, A100000CallChainPrintsWithoutDeepRecursion) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Var x = var("x", tensor_type({2}));
    Expr e = x;
    for (int i = 0; i < 100000; ++i) e = call("test.relu", {e});
    std::string text = to_text(IRModule::from_function(function({x}, e)));
    EXPECT_EQ(text.rfind("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2), float32]) {\n  %0 = test.relu(%x);\n", 0), 0u);
    EXPECT_NE(text.find("  %50000 = test.relu(%49999);\n"), std::string::npos);
    const std::string tail = "  %99998 = test.relu(%99997);\n  test.relu(%99998)\n}\n";
    EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
  });
}

TEST_F(PrinterTest, ALongLetChainPrintsWithoutDeepRecursion) {
  testing::run_with_stack(testing::kSmallStack, [] {
    Var x = var("x");
    std::vector<Var> vars;
    for (int i = 0; i < 20000; ++i) vars.push_back(var("v"));
    Expr body = vars.back();
    for (int i = static_cast<int>(vars.size()) - 1; i >= 0; --i)
      body = let(vars[i], call("test.relu", {i == 0 ? Expr(x) : Expr(vars[i - 1])}), body);
    std::string text = to_text(body, {.show_types = false, .header = false});
    EXPECT_EQ(text.rfind("free_var %x;\nlet %v = test.relu(%x);\nlet %v1 = test.relu(%v);\n", 0), 0u);
    EXPECT_NE(text.find("let %v19999 = test.relu(%v19998);\n%v19999"), std::string::npos);
  });
}

}  // namespace
}  // namespace weft

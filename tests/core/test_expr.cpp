// Expression builders, arity checks and the op registry.
#include <gtest/gtest.h>

#include "test_ops.h"
#include "weft/expr.h"
#include "weft/op.h"

namespace weft {
namespace {

class ExprTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_test_ops(); }
};

TEST_F(ExprTest, BuildersMakeTheNodesTheyName) {
  Var x = var("x", tensor_type({2}));
  EXPECT_EQ(x->kind, ExprKind::kVar);
  EXPECT_EQ(x->name_hint, "x");
  EXPECT_TRUE(type_equal(x->type_annotation, tensor_type({2})));
  EXPECT_FALSE(x->has_type());

  Call r = call("test.relu", {x});
  EXPECT_EQ(r->op->kind, ExprKind::kOp);
  EXPECT_EQ(downcast<OpNode>(r->op)->name(), "test.relu");
  ASSERT_EQ(r->args.size(), 1u);
  EXPECT_TRUE(r->args[0].same_as(x));
  EXPECT_TRUE(r->attrs->empty());

  Tuple t = tuple({x, r});
  TupleGetItem g = get_item(t, 1);
  EXPECT_EQ(g->index, 1);
  Var y = var("y");
  Let l = let(y, r, tuple({y}));
  EXPECT_TRUE(l->var.same_as(y));
  Function f = function({x}, l, tensor_type({2}));
  EXPECT_EQ(f->params.size(), 1u);
  EXPECT_TRUE(f->attrs->empty());
  If i = if_then_else(constant(Tensor::scalar(1, DataType::Bool())), x, r);
  EXPECT_EQ(i->kind, ExprKind::kIf);
  Call fc = call_function(f, {x});
  EXPECT_TRUE(fc->op.same_as(f));
  EXPECT_EQ(global_var("main")->name, "main");
}

TEST_F(ExprTest, VarsAreDistinctByIdentityNotName) {
  Var a = var("x");
  Var b = var("x");
  EXPECT_FALSE(a.same_as(b));
}

TEST_F(ExprTest, OpReturnsOneNodePerDefinition) {
  EXPECT_TRUE(op("test.add").same_as(op("test.add")));
  EXPECT_TRUE(op("test.add").same_as(OpRegistry::global().get("test.add").expr()));
  EXPECT_FALSE(op("test.add").same_as(op("test.relu")));
}

TEST_F(ExprTest, CallNormalizesAttrsThroughTheSchema) {
  Var x = var("x"), w = var("w");
  Call c = call("test.conv", {x, w}, {{"padding", 1}});
  EXPECT_EQ(c->attrs->at("padding"), AttrValue({1, 1, 1, 1}));
  EXPECT_EQ(c->attrs->at("strides"), AttrValue({1, 1}));
  Call d = call(op("test.conv"), {x, w}, make_attrs({{"strides", 2}}));
  EXPECT_EQ(d->attrs->at("strides"), AttrValue({2, 2}));
}

TEST_F(ExprTest, CallWithABadAttrNamesTheOp) {
  Var x = var("x"), w = var("w");
  try {
    call("test.conv", {x, w}, {{"padding", "same"}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "test.conv");
    EXPECT_EQ(e.attr_name(), "padding");
  }
}

TEST_F(ExprTest, WrongArityIsAnErrorNamingOpAndInputs) {
  Var x = var("x");
  try {
    call("test.add", {x});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "test.add");
    EXPECT_STREQ(e.what(), "op test.add: takes 2 inputs (lhs, rhs), got 1");
  }
  EXPECT_THROW(call("test.relu", {x, x}), Error);
}

TEST_F(ExprTest, VariadicOpsTakeAnyNumberOfInputs) {
  if (!OpRegistry::global().find_loaded("test.variadic_concat")) {
    OpDef def;
    def.name = "test.variadic_concat";
    def.variadic = true;
    def.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
    OpRegistry::global().add(std::move(def));
  }
  Var x = var("x");
  EXPECT_EQ(call("test.variadic_concat", {x, x, x})->args.size(), 3u);
  EXPECT_EQ(call("test.variadic_concat", {x})->args.size(), 1u);
}

TEST_F(ExprTest, UnknownOpIsAnErrorNamingIt) {
  try {
    op("test.no_such_op");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "test.no_such_op");
    EXPECT_NE(std::string(e.what()).find("unknown operator"), std::string::npos);
  }
}

TEST_F(ExprTest, NullPiecesAreErrors) {
  EXPECT_THROW(call("test.relu", {Expr()}), Error);
  EXPECT_THROW(function({}, nullptr), Error);
  EXPECT_THROW(tuple({nullptr}), Error);
  EXPECT_THROW(get_item(var("t"), -1), Error);
  EXPECT_THROW(constant(Tensor()), Error);
  EXPECT_THROW(call_function(op("test.relu"), {var("x")}), Error);
}

TEST_F(ExprTest, ExprKindNames) {
  EXPECT_EQ(expr_kind_name(ExprKind::kCall), "call");
  EXPECT_EQ(expr_kind_name(ExprKind::kTupleGetItem), "tuple get item");
}

TEST(OpRegistry, DuplicateRegistrationNamesTheOwningPlugin) {
  OpDef def;
  def.name = "test.registry_dup";
  def.plugin = "first";
  def.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  OpDef again = def;
  again.plugin = "second";
  auto& reg = OpRegistry::global();
  reg.add(std::move(def));
  try {
    reg.add(std::move(again));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "test.registry_dup");
    EXPECT_NE(std::string(e.what()).find("'first'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'second'"), std::string::npos) << e.what();
  }
  reg.remove("test.registry_dup");
}

TEST(OpRegistry, DefinitionWithoutARelationIsRejected) {
  OpDef def;
  def.name = "test.no_relation";
  EXPECT_THROW(OpRegistry::global().add(std::move(def)), Error);
  EXPECT_EQ(OpRegistry::global().find_loaded("test.no_relation"), nullptr);
}

TEST(OpRegistry, FindAsksTheResolverOnAMissAndOnlyThen) {
  auto& reg = OpRegistry::global();
  OpRegistry::Resolver previous = reg.resolver();  // the plugin loader's
  std::vector<std::string> asked;
  reg.set_resolver([&](std::string_view name) {
    asked.emplace_back(name);
    if (name != "test.lazy") return false;
    OpDef def;
    def.name = "test.lazy";
    def.plugin = "lazy_plugin";
    def.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
    OpRegistry::global().add(std::move(def));
    return true;
  });
  const OpDef* lazy = reg.find("test.lazy");
  ASSERT_NE(lazy, nullptr);
  EXPECT_EQ(lazy->plugin, "lazy_plugin");
  EXPECT_EQ(reg.find("test.lazy"), lazy);  // now loaded: no second question
  EXPECT_EQ(reg.find("test.nobody"), nullptr);
  EXPECT_EQ(asked, (std::vector<std::string>{"test.lazy", "test.nobody"}));
  EXPECT_EQ(reg.find_loaded("test.nobody"), nullptr);
  reg.set_resolver(previous);
  reg.remove("test.lazy");
}

TEST(OpRegistry, RemovedOpsLeaveExistingOpNodesValid) {
  auto& reg = OpRegistry::global();
  OpDef def;
  def.name = "test.temporary";
  def.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  Op o = reg.add(std::move(def)).expr();
  reg.remove("test.temporary");
  EXPECT_EQ(reg.find_loaded("test.temporary"), nullptr);
  EXPECT_EQ(o->name(), "test.temporary");
}

TEST(OpRegistry, ListsRegisteredOpsByName) {
  testing::register_test_ops();
  testing::register_test_ops();  // idempotent
  std::vector<std::string> names;
  for (const OpDef* d : OpRegistry::global().list()) names.push_back(d->name);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* n : {"test.add", "test.conv", "test.relu", "test.split"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  EXPECT_EQ(op_pattern_name(OpRegistry::global().get("test.conv").pattern), "out_elemwise_fusable");
}

}  // namespace
}  // namespace weft

// Type inference filling in argument types an op derives from the others
// (OpDef::infer_inputs), as Relay's relations type an untyped conv weight.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "weft/error.h"
#include "weft/module.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/type.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

/// test.scale_by(data (N, C), scale (C,)) -> data's type. infer_inputs gives
/// scale (C,) from data; test.scale_by_untyped has no infer_inputs.
void register_scale_ops() {
  auto& reg = OpRegistry::global();
  for (const char* name : {"test.scale_by", "test.scale_by_untyped"}) {
    if (reg.find_loaded(name)) continue;
    OpDef def;
    def.name = name;
    def.inputs = {{"data", "Tensor", "(N, C)"}, {"scale", "Tensor", "(C,)"}};
    def.relation = [](std::span<const Type> args, const Attrs&) -> Type {
      auto data = args[0].as<TensorTypeNode>();
      auto scale = args[1].as<TensorTypeNode>();
      if (!data || !scale || data->ndim() != 2 || scale->ndim() != 1 || scale->shape[0] != data->shape[1])
        throw Error("scale must be (C,) for data (N, C)");
      return args[0];
    };
    if (std::string(name) == "test.scale_by") {
      def.infer_inputs = [](std::span<const Type> args, const Attrs&) -> std::vector<Type> {
        auto data = args[0].as<TensorTypeNode>();
        if (!data) return {};
        if (data->ndim() != 2) throw Error("data must be 2-d to derive the scale");
        return {Type(), tensor_type({data->shape[1]}, data->dtype)};
      };
    }
    reg.add(std::move(def));
  }
}

Type t(std::vector<int64_t> shape) { return tensor_type(std::move(shape), DataType::Float(32)); }

Function typed_main(const Expr& body) { return infer_type(IRModule::from_expr(body)).main(); }

TEST(InferInputs, GivesAnUntypedArgumentTheTypeTheOpDerives) {
  register_scale_ops();
  Var x = var("x", t({2, 3})), w = var("w");
  Function main = typed_main(call("test.scale_by", {x, w}));
  ASSERT_EQ(main->params.size(), 2u);
  EXPECT_EQ(type_to_text(main->params[1]->checked_type()), "Tensor[(3), float32]");
  // As Relay's resolver, the missing annotation is filled in.
  ASSERT_TRUE(main->params[1]->type_annotation);
  EXPECT_EQ(type_to_text(main->params[1]->type_annotation), "Tensor[(3), float32]");
}

TEST(InferInputs, ChainsThroughLetBoundValues) {
  register_scale_ops();
  // y's type comes from the let's value, itself typed through w0's inference.
  Var x = var("x", t({4, 5})), w = var("w"), y = var("y");
  Expr body = let(y, call("test.scale_by", {x, var("w0")}), call("test.scale_by", {y, w}));
  Function main = typed_main(body);
  for (const Var& p : main->params) EXPECT_EQ(type_to_text(p->checked_type()), p == x ? "Tensor[(4, 5), float32]"
                                                                                   : "Tensor[(5), float32]");
}

TEST(InferInputs, ASecondUseThatDisagreesIsTheRelationsError) {
  // w is typed (3) by its first use; the second call then checks it as given.
  register_scale_ops();
  Var w = var("w");
  Expr conflict = tuple({call("test.scale_by", {var("a", t({1, 3})), w}), call("test.scale_by", {var("c", t({1, 4})), w})});
  try {
    typed_main(conflict);
    FAIL() << "expected a type error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("test.scale_by"));
    EXPECT_THAT(e.what(), HasSubstr("argument types: Tensor[(1, 4), float32], Tensor[(3), float32]"));
  }
}

TEST(InferInputs, AnOpWithoutItLeavesTheArgumentUntyped) {
  register_scale_ops();
  EXPECT_THROW(typed_main(call("test.scale_by_untyped", {var("x", t({2, 3})), var("w")})), Error);
}

TEST(InferInputs, ItsErrorsNameTheOp) {
  register_scale_ops();
  try {
    typed_main(call("test.scale_by", {var("x", t({2, 3, 4})), var("w")}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("data must be 2-d"));
    EXPECT_THAT(e.what(), HasSubstr("test.scale_by"));
  }
}

}  // namespace
}  // namespace weft

// Whole programs in the Relay text format: TVM-style texts (tests/golden/text,
// outputs from NumPy) parse, type-check and run on the interpreter; and
// modules with every construct print and parse back unchanged.
#include <gtest/gtest.h>

#include "support/op_test.h"
#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

const std::string kTextGoldenDir = std::string(WEFT_GOLDEN_DIR) + "/text/";

TEST(TextPrograms, TvmStyleProgramsParseTypeCheckAndRunToNumPysOutputs) {
  nlohmann::json golden = testing::read_json(kTextGoldenDir + "golden.json");
  int ran = 0;
  for (const auto& c : golden.at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    IRModule mod = parse_module_file(kTextGoldenDir + c.at("program").get<std::string>());
    std::vector<Value> inputs;
    for (const auto& t : c.at("inputs")) inputs.emplace_back(testing::tensor_from_json(t));
    std::vector<Tensor> outputs = Interpreter(mod).run_main(inputs).flatten();
    ASSERT_EQ(outputs.size(), c.at("outputs").size());
    for (size_t i = 0; i < outputs.size(); ++i) testing::expect_close(outputs[i], c.at("outputs")[i], 1e-5, 1e-6);
    // What weft prints for it reads back as the same program.
    IRModule typed = infer_type(mod);
    EXPECT_TRUE(structural_equal(parse_module(to_text(typed)), typed)) << to_text(typed);
    ++ran;
  }
  EXPECT_EQ(ran, 5);
}

TEST(TextPrograms, TheMetadataSectionCarriesDtypeShapeAndBytes) {
  IRModule mod = parse_module_file(kTextGoldenDir + "metadata_constants.relay");
  std::vector<const ConstantNode*> constants;
  post_order_visit(mod.main(), [&](const Expr& e) {
    if (e->kind == ExprKind::kConstant) constants.push_back(static_cast<const ConstantNode*>(e.get()));
  });
  ASSERT_EQ(constants.size(), 4u);  // 2f and the three meta constants
  const Tensor& offsets = constants[3]->data;
  EXPECT_EQ(offsets.dtype(), DataType::Int(32));
  EXPECT_EQ(offsets.shape(), (std::vector<int64_t>{2}));
  EXPECT_EQ(offsets.data_as<int32_t>()[0], 3);
  EXPECT_EQ(offsets.data_as<int32_t>()[1], -2);
  EXPECT_EQ(constants[2]->data.shape(), (std::vector<int64_t>{2, 3}));
}

Tensor filled(std::vector<int64_t> shape, DataType dtype) {
  Tensor t = Tensor::zeros(shape, dtype);
  auto* bytes = static_cast<unsigned char*>(t.data());
  for (size_t i = 0; i < t.nbytes(); ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  if (dtype == DataType::Bool())
    for (size_t i = 0; i < t.nbytes(); ++i) bytes[i] &= 1;
  return t;
}

TEST(TextPrograms, ModulesWithEveryConstructRoundTrip) {
  // Constants of every dtype the metadata carries, plus inline scalars.
  std::vector<Expr> consts;
  for (DataType d : {DataType::Float(32), DataType::Float(16), DataType::Float(64), DataType::BFloat(16),
                     DataType::Int(8), DataType::Int(16), DataType::Int(32), DataType::Int(64), DataType::UInt(8),
                     DataType::UInt(16), DataType::UInt(32), DataType::UInt(64), DataType::Bool()})
    consts.push_back(constant(filled({2, 3}, d)));
  consts.push_back(constant(filled({}, DataType::UInt(8))));   // 0-d but not inline in TVM's text
  consts.push_back(constant(filled({0, 4}, DataType::Float(32))));
  for (DataType d : {DataType::Float(32), DataType::Float(16), DataType::Float(64), DataType::Int(16),
                     DataType::Int(32), DataType::Int(64), DataType::Bool()})
    consts.push_back(constant(Tensor::scalar(-2.75, d)));
  consts.push_back(constant(Tensor::scalar(std::numeric_limits<double>::infinity(), DataType::Float(32))));

  IRModule mod;
  Var a = var("a", tensor_type({kAnyDim, 3})), b = var("b");
  GlobalVar helper = mod.add("helper", function({a, b}, tuple({b, a}), nullptr, make_attrs({{"Inline", 1}})));
  Var x = var("x", tensor_type({2, 3})), c = var("c", scalar_type(DataType::Bool()));
  Var f = var("f", func_type({tensor_type({2, 3})}, tensor_type({2, 3}))), p = var("p"), q = var("q");
  Var shadow = var("x");  // same name as the parameter: printed as %x1
  Expr closure = function({p}, let(shadow, p, tuple({shadow})), nullptr);
  Var r = var("r"), s = var("s");  // r is bound to a let: its scope must not swallow the body
  Expr body = let(f, closure,
                  let(r, let(s, x, tuple({s})),
                      let(q, if_then_else(c, call_function(f, {x}), tuple({x})),
                          tuple({get_item(q, 0), call_function(helper, {x, tuple(consts)}), tuple({}), r}))));
  mod.add("main", function({x, c}, body, nullptr));
  std::string text = to_text(mod);
  IRModule parsed = parse_module(text);
  EXPECT_TRUE(structural_equal(mod, parsed)) << text << "\nreads back as\n" << to_text(parsed);
  EXPECT_EQ(to_text(parsed), text);
}

}  // namespace
}  // namespace weft

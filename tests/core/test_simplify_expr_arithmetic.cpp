// SimplifyExpr's rewrites of sums and products with constants: the reference's
// SimplifyAdjacentMultiplyOrAdd, SwitchAddMultiply (test_simplify_mul_add) and
// SimplifyBinomial (test_binomials) in tests/python/relay/test_pass_simplify_expr.py,
// with the constants a rewrite combines folded as it builds them, and rewrites
// that a rewrite's own output enables firing in the same pass.
// Each result also computes what the original did on the interpreter.
#include <gmock/gmock.h>

#include <random>
#include <string>
#include <vector>

#include "small_stack.h"
#include "support/pass_test.h"

namespace weft {
namespace {

using testing::run_checked;

void check(const std::string& params, const std::string& in_body, const std::string& want_body) {
  testing::check_main(SimplifyExpr(), params, in_body, want_body);
}

void check_unchanged(const std::string& params, const std::string& body) { check(params, body, body); }

const std::string kX = "%x: Tensor[(2, 3), float32]";

TEST(SimplifyExprArithmetic, AdjacentAddsOrMultipliesOfConstantsAddOrMultiplyTheConstantsFirst) {
  for (const std::string& in : {"add(add(%x, 1f), 2f)", "add(add(1f, %x), 2f)", "add(2f, add(%x, 1f))"})
    check(kX, in, "add(%x, 3f)");
  for (const std::string& in : {"multiply(multiply(%x, 2f), 3f)", "multiply(multiply(2f, %x), 3f)"})
    check(kX, in, "multiply(%x, 6f)");
  // Integers wrap alike either way.
  check("%x: Tensor[(4), int32]", "multiply(multiply(%x, 65536), 65536)", "multiply(%x, 0)");
  // A non-constant operand, other ops, or an operand that is itself constant.
  check_unchanged(kX + ", %y: Tensor[(2, 3), float32]", "add(add(%x, %y), 2f)");
  check_unchanged(kX, "subtract(subtract(%x, 1f), 2f)");
  check_unchanged(kX, "add(multiply(%x, 2f), 3f)");
  check_unchanged(kX, "add(add(1f, 2f), %x)");
}

TEST(SimplifyExprArithmetic, AnAddBeforeAMultiplyByAConstantBecomesAMultiplyBeforeAnAdd) {
  for (const std::string& in : {"multiply(add(%x, 1f), 2f)", "multiply(add(1f, %x), 2f)",
                                "multiply(2f, add(%x, 1f))", "multiply(2f, add(1f, %x))"})
    check(kX, in, "add(multiply(%x, 2f), 2f)");
  check("%x: Tensor[(4), int32]", "multiply(add(%x, 3), 5)", "add(multiply(%x, 5), 15)");
  check_unchanged(kX + ", %y: Tensor[(2, 3), float32]", "multiply(add(%x, %y), 2f)");
}

TEST(SimplifyExprArithmetic, RewritesThatARewriteEnablesFireInTheSamePass) {
  // add-mul-add: the switched add meets the outer one.
  for (const std::string& in : {"add(multiply(add(%x, 1f), 2f), 3f)", "add(3f, multiply(2f, add(1f, %x)))"})
    check(kX, in, "add(multiply(%x, 2f), 5f)");
  // mul-add-mul: the switch builds (x * 2) * 3 below its root, which becomes x * 6.
  for (const std::string& in : {"multiply(add(multiply(%x, 2f), 1f), 3f)", "multiply(3f, add(1f, multiply(2f, %x)))"})
    check(kX, in, "add(multiply(%x, 6f), 3f)");
}

// The reference's test_simplify_mul_add with its 32-element random constants:
// the folded constants are the float32 products and sums NumPy computes.
TEST(SimplifyExprArithmetic, TensorConstantsAreFoldedElementwise) {
  constexpr int64_t n = 32;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(0.f, 1.f);
  auto random_tensor = [&] {
    Tensor t = Tensor::empty({n}, DataType::Float(32));
    for (int64_t i = 0; i < n; ++i) t.data_as<float>()[i] = uniform(rng);
    return t;
  };
  auto elementwise = [&](const Tensor& a, const Tensor& b, auto f) {
    Tensor t = Tensor::empty({n}, DataType::Float(32));
    for (int64_t i = 0; i < n; ++i) t.data_as<float>()[i] = f(a.data_as<float>()[i], b.data_as<float>()[i]);
    return t;
  };
  auto times = [](float a, float b) { return a * b; };
  auto plus = [](float a, float b) { return a + b; };
  Tensor v1 = random_tensor(), v2 = random_tensor(), v3 = random_tensor();
  Var x = var("x", tensor_type({n}));
  Constant c1 = constant(v1), c2 = constant(v2), c3 = constant(v3);
  auto simplified = [&](const Expr& body) {
    IRModule in = infer_type(IRModule::from_function(function({x}, body)));
    IRModule out = run_checked(SimplifyExpr(), in);
    testing::expect_same_outputs(in, out);
    return out;
  };
  auto expect = [&](const IRModule& got, const Expr& want_body) {
    IRModule want = infer_type(IRModule::from_function(function({x}, want_body)));
    EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(want);
  };
  auto add = [](Expr a, Expr b) { return call("add", {a, b}); };
  auto mul = [](Expr a, Expr b) { return call("multiply", {a, b}); };

  expect(simplified(add(add(c1, x), c2)), add(x, constant(elementwise(v1, v2, plus))));
  expect(simplified(mul(c2, mul(x, c1))), mul(x, constant(elementwise(v1, v2, times))));
  expect(simplified(mul(c2, add(c1, x))), add(mul(x, c2), constant(elementwise(v1, v2, times))));
  expect(simplified(add(c3, mul(add(x, c1), c2))),
         add(mul(x, c2), constant(elementwise(elementwise(v1, v2, times), v3, plus))));
  expect(simplified(mul(add(c2, mul(c1, x)), c3)),
         add(mul(x, constant(elementwise(v1, v3, times))), constant(elementwise(v2, v3, times))));
}

const std::string kXY = "%x: Tensor[(5), float32], %y: Tensor[(5), float32]";

TEST(SimplifyExprArithmetic, ABinomialWithAPerfectSquareBecomesTheSquare) {
  // x^2 + 2xy + y^2 = (x + y)^2: the multiplies by 1 go too.
  for (const std::string& in : {"add(add(multiply(%x, %x), multiply(multiply(2f, %x), %y)), multiply(%y, %y))",
                                "add(multiply(%y, %y), add(multiply(%x, multiply(2f, %y)), multiply(%x, %x)))"})
    check(kXY, in, "%0 = add(%x, %y);\n  multiply(%0, %0)");
  // x^2 + 4xy + 4y^2 = (x + 2y)^2.
  check(kXY, "add(add(multiply(%x, %x), multiply(%y, multiply(4f, %x))), multiply(4f, multiply(%y, %y)))",
        "%0 = add(%x, multiply(%y, 2f));\n  multiply(%0, %0)");
}

TEST(SimplifyExprArithmetic, ABinomialFactorsIntoItsRoots) {
  // 6x^2 + 5xy + y^2 = (y + 3x)(y + 2x): x and y swap, as the reference, so
  // that the leading coefficient is 1; in every order of terms and factors.
  const std::string want = "multiply(add(%y, multiply(%x, 3f)), add(%y, multiply(%x, 2f)))";
  for (const std::string& in :
       {"add(add(multiply(6f, multiply(%x, %x)), multiply(%x, multiply(5f, %y))), multiply(%y, %y))",
        "add(multiply(%y, %y), add(multiply(multiply(%x, 5f), %y), multiply(multiply(%x, 6f), %x)))",
        "add(add(multiply(%y, %y), multiply(%x, multiply(%x, 6f))), multiply(%y, multiply(%x, 5f)))"})
    check(kXY, in, want);
  check("%x: Tensor[(5), int32], %y: Tensor[(5), int32]",
        "add(add(multiply(6, multiply(%x, %x)), multiply(5, multiply(%x, %y))), multiply(%y, %y))",
        "multiply(add(%y, multiply(%x, 3)), add(%y, multiply(%x, 2)))");
  // 2x^2 + 5xy + 2y^2 = 2 (x + 2y)(x + y / 2), whose root 1/2 an int32 cannot hold.
  const std::string two_five_two =
      "add(add(multiply(2f, multiply(%x, %x)), multiply(5f, multiply(%x, %y))), multiply(2f, multiply(%y, %y)))";
  check(kXY, two_five_two, "multiply(2f, multiply(add(%x, multiply(%y, 2f)), add(%x, multiply(%y, 0.5f))))");
  std::string as_int = two_five_two;
  for (size_t at; (at = as_int.find("f,")) != std::string::npos;) as_int.erase(at, 1);
  check_unchanged("%x: Tensor[(5), int32], %y: Tensor[(5), int32]", as_int);
}

TEST(SimplifyExprArithmetic, ABinomialWithoutRealRootsOrOfAnotherShapeStays) {
  // x^2 + xy + y^2: a negative discriminant.
  check_unchanged(kXY, "add(add(multiply(%x, %x), multiply(%x, %y)), multiply(%y, %y))");
  // Not the squares of the mixed term's factors.
  check_unchanged(kXY + ", %z: Tensor[(5), float32]",
                  "add(add(multiply(%x, %x), multiply(multiply(2f, %x), %z)), multiply(%y, %y))");
  // x broadcasts to the sum's shape: (x + y)^2 would have x's.
  check_unchanged("%x: Tensor[(5), float32], %y: Tensor[(1), float32]",
                  "add(add(multiply(%x, %x), multiply(multiply(2f, %x), %y)), multiply(%y, %y))");
}

TEST(SimplifyExprArithmetic, AChainOfAddedConstantsBecomesOneAddWithoutRecursion) {
  // 30,000 nested calls overflow the small stack where a walk recurses per node.
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kLength = 30000;
    Var x = var("x", tensor_type({2, 3}));
    Expr e = x;
    for (int i = 0; i < kLength; ++i) e = call("add", {e, constant(Tensor::scalar(1, DataType::Float(32)))});
    IRModule out = run_checked(SimplifyExpr(), infer_type(IRModule::from_function(function({x}, e))));
    testing::expect_program(out, "def @main(%x: Tensor[(2, 3), float32]) {\n  add(%x, 30000f)\n}\n");
  });
}

}  // namespace
}  // namespace weft

// The rewrites that regroup constants in sums and products and factor
// binomials (see constant_arithmetic.h).
#include "constant_arithmetic.h"

#include <array>
#include <cmath>
#include <optional>
#include <utility>

#include "rewrite_match.h"

namespace weft_tensor {

using namespace weft::sdk;

namespace {

bool is_constant(const Expr& e) { return e.kind() == WEFT_EXPR_CONSTANT; }

/// The (non-constant x, constant k) operands of `e` when it is a call of `op`
/// with one of each, in either order.
std::optional<std::pair<Expr, Expr>> operand_and_constant(const Expr& e, const char* op) {
  if (!is_call_of(e, op)) return std::nullopt;
  for (size_t k = 0; k < 2; ++k) {
    Expr constant = e.arg(k), operand = e.arg(1 - k);
    if (is_constant(constant) && !is_constant(operand)) return std::pair{operand, constant};
  }
  return std::nullopt;
}

/// The operands (inner, c2) of a binary call `c` where c2 is a constant and
/// inner a call of `op` on a non-constant x and a constant c1: {x, c1, c2}.
std::optional<std::array<Expr, 3>> constant_after_constant(const Expr& c, const char* op) {
  for (size_t k = 0; k < 2; ++k) {
    if (!is_constant(c.arg(k))) continue;
    if (auto inner = operand_and_constant(c.arg(1 - k), op)) return std::array{inner->first, inner->second, c.arg(k)};
  }
  return std::nullopt;
}

/// One term of a binomial: coefficient * f1 * f2, the coefficient null for 1.
struct Term {
  Expr f1, f2, coefficient;
};

/// `e` as a term: f1 * f2, k * (f1 * f2) or f1 * (k * f2), with each
/// multiply's operands in either order and k a constant.
std::optional<Term> as_term(const Expr& e) {
  if (!is_call_of(e, "multiply")) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    Expr s = e.arg(i), t = e.arg(1 - i);
    if (is_constant(s) && is_call_of(t, "multiply") && !is_constant(t.arg(0)) && !is_constant(t.arg(1)))
      return Term{t.arg(0), t.arg(1), s};
    if (!is_constant(s))
      if (auto scaled = operand_and_constant(t, "multiply")) return Term{s, scaled->first, scaled->second};
  }
  if (is_constant(e.arg(0)) || is_constant(e.arg(1))) return std::nullopt;
  return Term{e.arg(0), e.arg(1), {}};
}

bool same_node(const Expr& a, const Expr& b) { return a.get() == b.get(); }

/// The coefficient's value (1 when absent); nullopt when it is not one number.
std::optional<double> coefficient_value(const Term& t) { return t.coefficient ? single_value(t.coefficient) : 1.0; }

/// x^2, x y and y^2 among three terms, in that order, when they are so; x is
/// the first square in the terms' order.
std::optional<std::array<Term, 3>> binomial_terms(const std::array<Term, 3>& terms) {
  for (size_t m = 0; m < 3; ++m) {
    const Term& mixed = terms[m];
    const Term& sx = terms[m == 0 ? 1 : 0];
    const Term& sy = terms[m == 2 ? 1 : 2];
    if (!same_node(sx.f1, sx.f2) || !same_node(sy.f1, sy.f2)) continue;
    const Expr &x = sx.f1, &y = sy.f1;
    if ((same_node(mixed.f1, x) && same_node(mixed.f2, y)) || (same_node(mixed.f1, y) && same_node(mixed.f2, x)))
      return std::array{sx, mixed, sy};
  }
  return std::nullopt;
}

/// The three terms of (t1 + t2) + t3, with either sum's operands in either order.
std::optional<std::array<Term, 3>> three_terms(const Expr& c) {
  for (size_t i = 0; i < 2; ++i) {
    Expr pair = c.arg(i);
    if (!is_call_of(pair, "add")) continue;
    auto t1 = as_term(pair.arg(0)), t2 = as_term(pair.arg(1)), t3 = as_term(c.arg(1 - i));
    if (t1 && t2 && t3) return std::array{*t1, *t2, *t3};
  }
  return std::nullopt;
}

bool is_integer(double v) { return std::nearbyint(v) == v; }  // false for NaN

}  // namespace

Expr adjacent_constants(const Expr& c) {
  const std::string op = c.callee().name();
  auto operands = constant_after_constant(c, op.c_str());
  if (!operands) return {};
  auto [x, c1, c2] = *operands;
  return call(op, {x, call(op, {c1, c2})});
}

Expr multiply_before_add(const Expr& c) {
  auto operands = constant_after_constant(c, "add");
  if (!operands) return {};
  auto [x, c1, c2] = *operands;
  return call("add", {call("multiply", {x, c2}), call("multiply", {c1, c2})});
}

Expr binomial_factored(const Expr& c) {
  std::optional<std::array<Term, 3>> found = three_terms(c);
  if (found) found = binomial_terms(*found);
  if (!found) return {};
  auto& [sx, mixed, sy] = *found;
  Expr x = sx.f1, y = sy.f1;
  std::optional<double> a = coefficient_value(sx), b = coefficient_value(mixed), cc = coefficient_value(sy);
  if (!a || !b || !cc || *a == 0) return {};
  if (!same_type(x.type(), c.type()) || !same_type(y.type(), c.type())) return {};
  if (*cc == 1 && *a > 1) {
    std::swap(x, y);
    std::swap(a, cc);
  }
  const double discriminant = *b * *b - 4 * *a * *cc;
  if (discriminant < 0) return {};
  const double root = std::sqrt(discriminant);
  const double p = (*b + root) / (2 * *a), q = (*b - root) / (2 * *a);
  DLDataType dt = c.type().dtype();
  if (std::optional<IntegerRange> range = integer_range(dt)) {
    for (double v : {*a, p, q})
      if (!is_integer(v) || v < range->lo || v > range->hi) return {};
  }
  Expr a_constant = scalar_constant(*a, dt);
  if (!a_constant) return {};
  Expr first = call("add", {x, call("multiply", {y, scalar_constant(p, dt)})});
  Expr second = p == q ? first : call("add", {x, call("multiply", {y, scalar_constant(q, dt)})});
  return call("multiply", {a_constant, call("multiply", {first, second})});
}

}  // namespace weft_tensor

// The "simplify_expr" rewrites of add and multiply that regroup constants and
// factor binomials (the reference's SimplifyAdjacentMultiplyOrAdd,
// SwitchAddMultiply and SimplifyBinomial). The constants they combine are
// built as calls on constants alone, which SimplifyExpr folds as they appear.
#pragma once

#include <weft/plugin.hpp>

namespace weft_tensor {

/// (x op c1) op c2 -> x op (c1 op c2) for op add or multiply (the call's
/// own op), in either argument order, when c1 and c2 are constants and x is not.
weft::sdk::Expr adjacent_constants(const weft::sdk::Expr& c);

/// (x + c1) * c2 -> x * c2 + c1 * c2, in either argument order, when c1 and
/// c2 are constants and x is not: a multiply next to its operand is what
/// FoldScaleAxis folds.
weft::sdk::Expr multiply_before_add(const weft::sdk::Expr& c);

/// a x x + b x y + c y y -> a (x + p y) (x + q y) with p, q the roots of
/// a t^2 - b t + c (one multiplicand when they coincide), for scalar constants
/// a, b, c (each may be absent, meaning 1) and the three terms summed in any
/// order and grouping of factors. As the reference, x and y swap when c is 1
/// and a above 1, and a negative discriminant leaves the sum alone. Unlike the
/// reference, an integer sum is factored only where a, p and q are integers
/// its dtype holds (the reference truncates them), and x and y must have the
/// sum's type.
weft::sdk::Expr binomial_factored(const weft::sdk::Expr& c);

}  // namespace weft_tensor

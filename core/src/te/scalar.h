// Scalar arithmetic in a dtype, shared by constant folding and the loop-IR
// evaluator so both compute exactly what the reference kernels do: float32 in
// float, float64 in double, float16/bfloat16 in float rounded back to their
// format after every operation, integers with two's-complement wrap-around.
#pragma once

#include <cstdint>
#include <span>

#include "weft/dtype.h"
#include "weft/te/expr.h"

namespace weft::te {

/// One value of a dtype. Integers and bools live in `i` (bool as 0/1), floats
/// in `f` (already rounded to the dtype).
struct Scalar {
  DataType dtype;
  int64_t i = 0;
  double f = 0;

  static Scalar of_int(DataType dtype, int64_t value);
  static Scalar of_float(DataType dtype, double value);
  bool truthy() const { return dtype.is_float() ? f != 0 : i != 0; }
  double as_double() const { return dtype.is_float() ? f : static_cast<double>(i); }
};

/// The value of float16 / bfloat16 bits.
double float16_bits_to_double(uint16_t bits);
double bfloat16_bits_to_double(uint16_t bits);

/// a OP b with both operands of the operands' dtype; `result` is that dtype
/// or bool for predicates. Integer division or modulo by zero is an Error.
Scalar apply_binary(BinaryOp op, Scalar a, Scalar b);
Scalar apply_intrinsic(Intrinsic op, std::span<const Scalar> args);
/// v converted to dtype as the reference cast kernel does (floats saturate
/// into integers; anything nonzero but NaN is true).
Scalar cast_scalar(DataType dtype, Scalar v);

}  // namespace weft::te

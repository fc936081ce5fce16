#include "te/scalar.h"

#include <weft/sdk/float_convert.hpp>
#include <weft/sdk/integer_math.hpp>

#include <cmath>
#include <cstring>
#include <limits>

namespace weft::te {
namespace {

/// v rounded once to a float dtype.
double round_to(DataType dtype, double v) {
  if (dtype.code == DataType::kBFloat) return bfloat16_bits_to_double(sdk::double_to_bfloat16(v));
  if (dtype.bits == 16) return float16_bits_to_double(sdk::double_to_float16(v));
  if (dtype.bits == 32) return static_cast<float>(v);
  return v;
}

/// v wrapped to a `bits`-wide integer, signed or not.
int64_t wrap(DataType dtype, int64_t v) {
  if (dtype.bits >= 64) return v;
  if (dtype.is_bool()) return v != 0;
  const uint64_t mask = (uint64_t{1} << dtype.bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (dtype.is_int() && (u >> (dtype.bits - 1))) u |= ~mask;  // sign-extend
  return static_cast<int64_t>(u);
}

/// The float operation in the dtype's arithmetic: float32 (and the 16-bit
/// formats, which CPUs compute in float) in float, float64 in double.
template <typename F>
Scalar float_op(DataType dtype, F&& op, double a, double b = 0) {
  if (dtype.bits == 64) return Scalar::of_float(dtype, op(a, b));
  const float r = op(static_cast<float>(a), static_cast<float>(b));
  return Scalar::of_float(dtype, r);
}

int64_t int_floordiv(int64_t a, int64_t b) {
  const int64_t q = sdk::wrapping_div(a, b);
  return (sdk::wrapping_rem(a, b) != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int64_t int_floormod(int64_t a, int64_t b) {
  const int64_t r = sdk::wrapping_rem(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

Scalar int_binary(BinaryOp op, Scalar a, Scalar b) {
  const DataType dt = a.dtype;
  const int64_t x = a.i, y = b.i;
  const bool is_unsigned = dt.is_uint();
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  auto less = [&](int64_t p, int64_t q) { return is_unsigned ? u(p) < u(q) : p < q; };
  auto result = [&](int64_t v) { return Scalar::of_int(dt, v); };
  auto pred = [](bool v) { return Scalar::of_int(DataType::Bool(), v); };
  switch (op) {
    case BinaryOp::kAdd: return result(static_cast<int64_t>(u(x) + u(y)));
    case BinaryOp::kSub: return result(static_cast<int64_t>(u(x) - u(y)));
    case BinaryOp::kMul: return result(static_cast<int64_t>(u(x) * u(y)));
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod: {
      if (y == 0) throw Error("integer " + std::string(binary_op_name(op)) + " by zero");
      if (is_unsigned) return result(static_cast<int64_t>(op == BinaryOp::kFloorMod ? u(x) % u(y) : u(x) / u(y)));
      if (op == BinaryOp::kDiv) return result(sdk::wrapping_div(x, y));
      return result(op == BinaryOp::kFloorDiv ? int_floordiv(x, y) : int_floormod(x, y));
    }
    case BinaryOp::kMin: return result(less(y, x) ? y : x);
    case BinaryOp::kMax: return result(less(x, y) ? y : x);
    case BinaryOp::kEq: return pred(x == y);
    case BinaryOp::kNe: return pred(x != y);
    case BinaryOp::kLt: return pred(less(x, y));
    case BinaryOp::kLe: return pred(!less(y, x));
    case BinaryOp::kGt: return pred(less(y, x));
    case BinaryOp::kGe: return pred(!less(x, y));
    case BinaryOp::kAnd: return pred(x && y);
    case BinaryOp::kOr: return pred(x || y);
  }
  WEFT_ICHECK(false, "unknown binary op");
}

Scalar float_binary(BinaryOp op, Scalar a, Scalar b) {
  const DataType dt = a.dtype;
  auto pred = [](bool v) { return Scalar::of_int(DataType::Bool(), v); };
  switch (op) {
    case BinaryOp::kAdd: return float_op(dt, [](auto p, auto q) { return p + q; }, a.f, b.f);
    case BinaryOp::kSub: return float_op(dt, [](auto p, auto q) { return p - q; }, a.f, b.f);
    case BinaryOp::kMul: return float_op(dt, [](auto p, auto q) { return p * q; }, a.f, b.f);
    case BinaryOp::kDiv: return float_op(dt, [](auto p, auto q) { return p / q; }, a.f, b.f);
    case BinaryOp::kFloorDiv: return float_op(dt, [](auto p, auto q) { return std::floor(p / q); }, a.f, b.f);
    case BinaryOp::kFloorMod:
      return float_op(dt, [](auto p, auto q) { return p - std::floor(p / q) * q; }, a.f, b.f);
    // As the reference kernels' std::min / std::max: the first operand when unordered.
    case BinaryOp::kMin: return Scalar::of_float(dt, b.f < a.f ? b.f : a.f);
    case BinaryOp::kMax: return Scalar::of_float(dt, a.f < b.f ? b.f : a.f);
    case BinaryOp::kEq: return pred(a.f == b.f);
    case BinaryOp::kNe: return pred(a.f != b.f);
    case BinaryOp::kLt: return pred(a.f < b.f);
    case BinaryOp::kLe: return pred(a.f <= b.f);
    case BinaryOp::kGt: return pred(a.f > b.f);
    case BinaryOp::kGe: return pred(a.f >= b.f);
    case BinaryOp::kAnd:
    case BinaryOp::kOr: break;
  }
  WEFT_ICHECK(false, "logical operator on floats");
}

}  // namespace

double float16_bits_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
             : exponent == 31 ? (mantissa ? std::numeric_limits<double>::quiet_NaN()
                                          : std::numeric_limits<double>::infinity())
                              : std::ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

double bfloat16_bits_to_double(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

Scalar Scalar::of_int(DataType dtype, int64_t value) {
  Scalar s;
  s.dtype = dtype;
  s.i = wrap(dtype, value);
  return s;
}

Scalar Scalar::of_float(DataType dtype, double value) {
  Scalar s;
  s.dtype = dtype;
  s.f = round_to(dtype, value);
  return s;
}

Scalar apply_binary(BinaryOp op, Scalar a, Scalar b) {
  WEFT_ICHECK(a.dtype == b.dtype, "operands of " + std::string(binary_op_name(op)) + " differ in dtype");
  return a.dtype.is_float() ? float_binary(op, a, b) : int_binary(op, a, b);
}

Scalar apply_intrinsic(Intrinsic op, std::span<const Scalar> args) {
  WEFT_ICHECK(!args.empty(), "intrinsic without arguments");
  const Scalar& x = args[0];
  const DataType dt = x.dtype;
  if (op == Intrinsic::kNeg || op == Intrinsic::kAbs) {
    if (!dt.is_float()) {
      const int64_t neg = static_cast<int64_t>(0 - static_cast<uint64_t>(x.i));
      return Scalar::of_int(dt, op == Intrinsic::kNeg || x.i < 0 ? neg : x.i);
    }
    return Scalar::of_float(dt, op == Intrinsic::kNeg ? -x.f : std::fabs(x.f));
  }
  WEFT_ICHECK(dt.is_float(), std::string(intrinsic_name(op)) + " of a non-float");
  auto unary = [&](auto&& f) { return float_op(dt, [&](auto p, auto) { return f(p); }, x.f); };
  switch (op) {
    case Intrinsic::kExp: return unary([](auto p) { return std::exp(p); });
    case Intrinsic::kLog: return unary([](auto p) { return std::log(p); });
    case Intrinsic::kTanh: return unary([](auto p) { return std::tanh(p); });
    case Intrinsic::kErf: return unary([](auto p) { return std::erf(p); });
    case Intrinsic::kSqrt: return unary([](auto p) { return std::sqrt(p); });
    case Intrinsic::kRsqrt: return unary([](auto p) { return 1 / std::sqrt(p); });
    case Intrinsic::kSigmoid: return unary([](auto p) { return 1 / (1 + std::exp(-p)); });
    case Intrinsic::kFloor: return unary([](auto p) { return std::floor(p); });
    case Intrinsic::kCeil: return unary([](auto p) { return std::ceil(p); });
    case Intrinsic::kRound: return unary([](auto p) { return std::nearbyint(p); });
    case Intrinsic::kTrunc: return unary([](auto p) { return std::trunc(p); });
    case Intrinsic::kPow:
      WEFT_ICHECK(args.size() == 2, "pow takes two arguments");
      return float_op(dt, [](auto p, auto q) { return std::pow(p, q); }, x.f, args[1].f);
    case Intrinsic::kFmod:
      WEFT_ICHECK(args.size() == 2, "fmod takes two arguments");
      return float_op(dt, [](auto p, auto q) { return std::fmod(p, q); }, x.f, args[1].f);
    case Intrinsic::kNeg:
    case Intrinsic::kAbs: break;
  }
  WEFT_ICHECK(false, "unknown intrinsic");
}

Scalar cast_scalar(DataType dtype, Scalar v) {
  // Into bool, as the reference cast: nonzero and not NaN is true.
  if (dtype.is_bool()) return Scalar::of_int(dtype, v.dtype.is_float() ? v.f != 0 && !std::isnan(v.f) : v.i != 0);
  if (dtype.is_float()) return Scalar::of_float(dtype, v.as_double());
  if (!v.dtype.is_float()) return Scalar::of_int(dtype, v.i);
  // Floats saturate into integers (sdk::saturate_cast's rule): NaN is 0.
  if (std::isnan(v.f)) return Scalar::of_int(dtype, 0);
  const double lo = dtype.is_uint() ? 0.0 : -std::ldexp(1.0, dtype.bits - 1);
  const double hi = dtype.is_uint() ? std::ldexp(1.0, dtype.bits) : std::ldexp(1.0, dtype.bits - 1);
  if (v.f <= lo) return Scalar::of_int(dtype, static_cast<int64_t>(lo));
  if (v.f >= hi) {  // the largest value, built in integers (hi - 1 is not exact in a double)
    const uint64_t max = dtype.is_uint() ? ~uint64_t{0} >> (64 - dtype.bits) : (uint64_t{1} << (dtype.bits - 1)) - 1;
    return Scalar::of_int(dtype, static_cast<int64_t>(max));
  }
  const double t = std::trunc(v.f);
  if (dtype.is_uint() && t >= std::ldexp(1.0, 63)) return Scalar::of_int(dtype, static_cast<int64_t>(static_cast<uint64_t>(t)));
  return Scalar::of_int(dtype, static_cast<int64_t>(t));
}

}  // namespace weft::te

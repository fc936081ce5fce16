#include "weft/te/expr.h"

#include <cmath>
#include <limits>

#include "te/scalar.h"

namespace weft::te {
namespace {

bool is_imm(const PrimExpr& e) { return e->kind == PrimKind::kIntImm || e->kind == PrimKind::kFloatImm; }

/// An immediate's value as a Scalar of its dtype.
Scalar imm_value(const PrimExpr& e) {
  if (e->kind == PrimKind::kIntImm) return Scalar::of_int(e.dtype(), static_cast<const IntImmNode*>(e.get())->value);
  return Scalar::of_float(e.dtype(), static_cast<const FloatImmNode*>(e.get())->value);
}

PrimExpr from_scalar(const Scalar& s) {
  if (s.dtype.is_float()) return make_ref<FloatImmNode>(s.dtype, s.f);
  return make_ref<IntImmNode>(s.dtype, s.i);
}

void require_defined(const PrimExpr& e, std::string_view what) {
  if (!e) throw Error("TE: an undefined expression as " + std::string(what));
}

/// TVM's BinaryOpMatchTypes: brings a and b to one dtype or throws. An
/// integer meets a float as that float, an immediate takes the other side's
/// dtype, a narrow integer is widened.
void match_dtypes(PrimExpr& a, PrimExpr& b, std::string_view op) {
  const DataType ta = a.dtype(), tb = b.dtype();
  if (ta == tb) return;
  if (ta.is_float() && !tb.is_float()) b = cast(ta, b);
  else if (tb.is_float() && !ta.is_float()) a = cast(tb, a);
  else if (is_imm(b)) b = cast(ta, b);
  else if (is_imm(a)) a = cast(tb, a);
  else if (ta.is_float() == tb.is_float() && ta.is_int() == tb.is_int() && !ta.is_bool() && !tb.is_bool()) {
    if (ta.bits < tb.bits) a = cast(tb, a);
    else b = cast(ta, b);
  }
  if (a.dtype() != b.dtype()) {
    throw Error("TE: operands of " + std::string(op) + " have dtypes " + ta.str() + " and " + tb.str())
        .expected("operands of one dtype, or an immediate, or an integer with a float");
  }
}

void require_float(const PrimExpr& x, Intrinsic op) {
  if (!x.dtype().is_float()) {
    throw Error("TE: " + std::string(intrinsic_name(op)) + " of a " + x.dtype().str() + " value")
        .expected("a float operand (cast integers first)");
  }
}

}  // namespace

PrimExpr::PrimExpr(int value) : PrimExpr(int_imm(value)) {}
PrimExpr::PrimExpr(int64_t value)
    : PrimExpr(int_imm(value, value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max()
                                  ? DataType::Int(32)
                                  : DataType::Int(64))) {}
PrimExpr::PrimExpr(double value) : PrimExpr(float_imm(value)) {}

PrimExpr int_imm(int64_t value, DataType dtype) {
  if (dtype.is_float()) throw Error("TE: int_imm of float dtype " + dtype.str());
  return from_scalar(Scalar::of_int(dtype, value));
}
PrimExpr float_imm(double value, DataType dtype) {
  if (!dtype.is_float()) throw Error("TE: float_imm of non-float dtype " + dtype.str());
  return from_scalar(Scalar::of_float(dtype, value));
}
PrimExpr make_const(DataType dtype, double value) {
  if (dtype.is_float()) return float_imm(value, dtype);
  return from_scalar(cast_scalar(dtype, Scalar::of_float(DataType::Float(64), value)));
}
PrimExpr bool_imm(bool value) { return int_imm(value ? 1 : 0, DataType::Bool()); }
Var var(std::string name, DataType dtype) { return make_ref<VarNode>(std::move(name), dtype); }

IterVar reduce_axis(int64_t extent, std::string name) { return reduce_axis(0, extent, std::move(name)); }
IterVar reduce_axis(int64_t min, int64_t extent, std::string name) {
  if (extent <= 0) throw Error("TE: reduce axis '" + name + "' has extent " + std::to_string(extent)).expected("> 0");
  return make_ref<IterVarNode>(var(std::move(name)), min, extent, IterKind::kReduce);
}
IterVar data_axis(int64_t extent, std::string name) {
  return make_ref<IterVarNode>(var(std::move(name)), 0, extent, IterKind::kDataParallel);
}

PrimExpr binary(BinaryOp op, PrimExpr a, PrimExpr b) {
  require_defined(a, binary_op_name(op));
  require_defined(b, binary_op_name(op));
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
    if (!a.dtype().is_bool() || !b.dtype().is_bool()) {
      throw Error("TE: " + std::string(binary_op_name(op)) + " of " + a.dtype().str() + " and " + b.dtype().str())
          .expected("bool operands");
    }
  } else {
    match_dtypes(a, b, binary_op_name(op));
  }
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr) {
    // true && x is x, false || x is x; false && x and true || x are constants.
    const bool neutral = op == BinaryOp::kAnd;
    if (const int64_t* c = as_int_imm(a)) return (*c != 0) == neutral ? b : a;
    if (const int64_t* c = as_int_imm(b)) return (*c != 0) == neutral ? a : b;
  }
  if (is_imm(a) && is_imm(b)) {
    // Folding an integer division by zero is left to run time's error.
    const bool int_division = !a.dtype().is_float() &&
                              (op == BinaryOp::kDiv || op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod);
    if (!int_division || imm_value(b).i != 0) return from_scalar(apply_binary(op, imm_value(a), imm_value(b)));
  }
  const DataType result = is_predicate(op) ? DataType::Bool() : a.dtype();
  return make_ref<BinaryNode>(op, result, std::move(a), std::move(b));
}

PrimExpr operator+(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kAdd, std::move(a), std::move(b)); }
PrimExpr operator-(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kSub, std::move(a), std::move(b)); }
PrimExpr operator*(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kMul, std::move(a), std::move(b)); }
PrimExpr operator/(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kDiv, std::move(a), std::move(b)); }
PrimExpr operator-(PrimExpr a) { return call_intrinsic(Intrinsic::kNeg, {std::move(a)}); }
PrimExpr operator<(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kLt, std::move(a), std::move(b)); }
PrimExpr operator<=(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kLe, std::move(a), std::move(b)); }
PrimExpr operator>(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kGt, std::move(a), std::move(b)); }
PrimExpr operator>=(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kGe, std::move(a), std::move(b)); }
PrimExpr equal(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kEq, std::move(a), std::move(b)); }
PrimExpr not_equal(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kNe, std::move(a), std::move(b)); }
PrimExpr logical_and(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kAnd, std::move(a), std::move(b)); }
PrimExpr logical_or(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kOr, std::move(a), std::move(b)); }
PrimExpr logical_not(PrimExpr a) {
  require_defined(a, "logical_not");
  return equal(std::move(a), bool_imm(false));
}
PrimExpr floordiv(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kFloorDiv, std::move(a), std::move(b)); }
PrimExpr floormod(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kFloorMod, std::move(a), std::move(b)); }
PrimExpr min(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kMin, std::move(a), std::move(b)); }
PrimExpr max(PrimExpr a, PrimExpr b) { return binary(BinaryOp::kMax, std::move(a), std::move(b)); }

PrimExpr select(PrimExpr cond, PrimExpr then_value, PrimExpr else_value) {
  require_defined(cond, "a select's condition");
  require_defined(then_value, "a select's value");
  require_defined(else_value, "a select's value");
  if (!cond.dtype().is_bool()) throw Error("TE: select condition of dtype " + cond.dtype().str()).expected("bool");
  match_dtypes(then_value, else_value, "select");
  if (const int64_t* c = as_int_imm(cond)) return *c ? then_value : else_value;
  return make_ref<SelectNode>(std::move(cond), std::move(then_value), std::move(else_value));
}

PrimExpr cast(DataType dtype, PrimExpr value) {
  require_defined(value, "a cast's operand");
  if (dtype.lanes != 1) throw Error("TE: cast to vector dtype " + dtype.str()).expected("a scalar dtype");
  if (value.dtype() == dtype) return value;
  if (is_imm(value)) return from_scalar(cast_scalar(dtype, imm_value(value)));
  return make_ref<CastNode>(dtype, std::move(value));
}

PrimExpr call_intrinsic(Intrinsic op, std::vector<PrimExpr> args) {
  const size_t arity = op == Intrinsic::kPow || op == Intrinsic::kFmod ? 2 : 1;
  if (args.size() != arity) {
    throw Error("TE: " + std::string(intrinsic_name(op)) + " with " + std::to_string(args.size()) + " arguments")
        .expected(std::to_string(arity));
  }
  for (const PrimExpr& a : args) require_defined(a, intrinsic_name(op));
  if (arity == 2) match_dtypes(args[0], args[1], intrinsic_name(op));
  if (op != Intrinsic::kNeg && op != Intrinsic::kAbs) require_float(args[0], op);
  if (args[0].dtype().is_bool()) throw Error("TE: " + std::string(intrinsic_name(op)) + " of a bool");
  const DataType dtype = args[0].dtype();
  return make_ref<CallNode>(op, dtype, std::move(args));
}

PrimExpr exp(PrimExpr x) { return call_intrinsic(Intrinsic::kExp, {std::move(x)}); }
PrimExpr log(PrimExpr x) { return call_intrinsic(Intrinsic::kLog, {std::move(x)}); }
PrimExpr tanh(PrimExpr x) { return call_intrinsic(Intrinsic::kTanh, {std::move(x)}); }
PrimExpr erf(PrimExpr x) { return call_intrinsic(Intrinsic::kErf, {std::move(x)}); }
PrimExpr sqrt(PrimExpr x) { return call_intrinsic(Intrinsic::kSqrt, {std::move(x)}); }
PrimExpr rsqrt(PrimExpr x) { return call_intrinsic(Intrinsic::kRsqrt, {std::move(x)}); }
PrimExpr sigmoid(PrimExpr x) { return call_intrinsic(Intrinsic::kSigmoid, {std::move(x)}); }
PrimExpr abs(PrimExpr x) { return call_intrinsic(Intrinsic::kAbs, {std::move(x)}); }
PrimExpr floor(PrimExpr x) { return call_intrinsic(Intrinsic::kFloor, {std::move(x)}); }
PrimExpr ceil(PrimExpr x) { return call_intrinsic(Intrinsic::kCeil, {std::move(x)}); }
PrimExpr round(PrimExpr x) { return call_intrinsic(Intrinsic::kRound, {std::move(x)}); }
PrimExpr pow(PrimExpr x, PrimExpr y) { return call_intrinsic(Intrinsic::kPow, {std::move(x), std::move(y)}); }
PrimExpr trunc(PrimExpr x) { return call_intrinsic(Intrinsic::kTrunc, {std::move(x)}); }
PrimExpr fmod(PrimExpr x, PrimExpr y) { return call_intrinsic(Intrinsic::kFmod, {std::move(x), std::move(y)}); }

PrimExpr max_value(DataType dtype) {
  if (dtype.is_bool()) return bool_imm(true);
  if (dtype.is_float()) {
    if (dtype.code == DataType::kBFloat) return float_imm(std::ldexp(255.0 / 128, 127), dtype);
    if (dtype.bits == 16) return float_imm(65504.0, dtype);
    if (dtype.bits == 32) return float_imm(std::numeric_limits<float>::max(), dtype);
    return float_imm(std::numeric_limits<double>::max(), dtype);
  }
  if (dtype.is_uint()) return int_imm(-1, dtype);  // all ones
  return int_imm(static_cast<int64_t>((uint64_t{1} << (dtype.bits - 1)) - 1), dtype);
}

PrimExpr min_value(DataType dtype) {
  if (dtype.is_bool()) return bool_imm(false);
  if (dtype.is_float()) return float_imm(-static_cast<const FloatImmNode*>(max_value(dtype).get())->value, dtype);
  if (dtype.is_uint()) return int_imm(0, dtype);
  return int_imm(static_cast<int64_t>(uint64_t{1} << (dtype.bits - 1)), dtype);  // wraps to the minimum
}

std::string_view binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "+";
    case BinaryOp::kSub: return "-";
    case BinaryOp::kMul: return "*";
    case BinaryOp::kDiv: return "/";
    case BinaryOp::kFloorDiv: return "floordiv";
    case BinaryOp::kFloorMod: return "floormod";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kMax: return "max";
    case BinaryOp::kEq: return "==";
    case BinaryOp::kNe: return "!=";
    case BinaryOp::kLt: return "<";
    case BinaryOp::kLe: return "<=";
    case BinaryOp::kGt: return ">";
    case BinaryOp::kGe: return ">=";
    case BinaryOp::kAnd: return "&&";
    case BinaryOp::kOr: return "||";
  }
  return "?";
}

std::string_view intrinsic_name(Intrinsic op) {
  switch (op) {
    case Intrinsic::kNeg: return "negative";
    case Intrinsic::kAbs: return "abs";
    case Intrinsic::kExp: return "exp";
    case Intrinsic::kLog: return "log";
    case Intrinsic::kTanh: return "tanh";
    case Intrinsic::kErf: return "erf";
    case Intrinsic::kSqrt: return "sqrt";
    case Intrinsic::kRsqrt: return "rsqrt";
    case Intrinsic::kSigmoid: return "sigmoid";
    case Intrinsic::kFloor: return "floor";
    case Intrinsic::kCeil: return "ceil";
    case Intrinsic::kRound: return "round";
    case Intrinsic::kPow: return "pow";
    case Intrinsic::kTrunc: return "trunc";
    case Intrinsic::kFmod: return "fmod";
  }
  return "?";
}

bool is_predicate(BinaryOp op) { return op >= BinaryOp::kEq; }

const int64_t* as_int_imm(const PrimExpr& e) {
  if (!e || e->kind != PrimKind::kIntImm) return nullptr;
  return &static_cast<const IntImmNode*>(e.get())->value;
}

}  // namespace weft::te

// Tensor-expression scalars: the index and value expressions of a TE compute
// (immediates, variables, arithmetic, comparisons, logic, select, casts and
// math intrinsics) and the axes they range over (IterVar).
//
// Nodes are immutable and reference-counted like the rest of weft's IR. A
// PrimExpr has a dtype; the builders and operators below check and promote
// dtypes as TVM's do (an immediate takes the other operand's dtype, an integer
// meets a float as that float, a narrow integer meets a wide one as the wide
// one), and throw weft::Error on what cannot be reconciled. Integer literals
// are int32 and float literals float32, as in TVM; so are loop indices.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "weft/dtype.h"
#include "weft/error.h"
#include "weft/object.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

enum class PrimKind : uint8_t {
  kIntImm,
  kFloatImm,
  kVar,
  kBinary,
  kSelect,
  kCast,
  kCall,
  kTensorRead,  // tensor.h: T(i, j) in a compute body
  kReduce,      // reduce.h: a reduction over reduce axes
  kBufferLoad,  // loop_ir.h: a load from a buffer in lowered code
};

class PrimExprNode : public Object {
 public:
  const PrimKind kind;
  const DataType dtype;

 protected:
  PrimExprNode(PrimKind kind, DataType dtype) : kind(kind), dtype(dtype) {}
};

/// A scalar expression. Converts from int (an int32 immediate) and double (a
/// float32 immediate) so computes read like their math: `max(x(i), 0)`.
class PrimExpr : public Ref<const PrimExprNode> {
 public:
  using Ref::Ref;
  PrimExpr() = default;
  PrimExpr(int value);      // NOLINT: literals in expressions
  PrimExpr(int64_t value);  // NOLINT: int32 when it fits, else int64
  PrimExpr(double value);   // NOLINT: literals in expressions
  DataType dtype() const { return get()->dtype; }
};

class IntImmNode : public PrimExprNode {
 public:
  IntImmNode(DataType dtype, int64_t value) : PrimExprNode(PrimKind::kIntImm, dtype), value(value) {}
  const int64_t value;  // already wrapped to dtype's range
};

class FloatImmNode : public PrimExprNode {
 public:
  FloatImmNode(DataType dtype, double value) : PrimExprNode(PrimKind::kFloatImm, dtype), value(value) {}
  const double value;  // already rounded to dtype
};

/// A scalar variable: a loop index, a let-bound value, a reducer operand.
/// Identity is the node: two Vars named "i" are different.
class VarNode : public PrimExprNode {
 public:
  VarNode(std::string name, DataType dtype) : PrimExprNode(PrimKind::kVar, dtype), name(std::move(name)) {}
  const std::string name;
};
using Var = Ref<const VarNode>;

enum class BinaryOp : uint8_t {
  kAdd, kSub, kMul,
  kDiv,       // truncating for integers (C's /), true division for floats
  kFloorDiv,  // rounds toward -infinity (TVM's floordiv)
  kFloorMod,  // a - floordiv(a, b) * b: the sign of b
  kMin, kMax,
  kEq, kNe, kLt, kLe, kGt, kGe,  // bool results
  kAnd, kOr,                     // bool operands and result
};

class BinaryNode : public PrimExprNode {
 public:
  BinaryNode(BinaryOp op, DataType dtype, PrimExpr a, PrimExpr b)
      : PrimExprNode(PrimKind::kBinary, dtype), op(op), a(std::move(a)), b(std::move(b)) {}
  const BinaryOp op;
  const PrimExpr a, b;
};

/// `cond ? then_value : else_value`. Only the chosen operand is evaluated (TVM's
/// if_then_else): a load in the other one may be out of bounds, which is how
/// padding reads its input safely.
class SelectNode : public PrimExprNode {
 public:
  SelectNode(PrimExpr cond, PrimExpr then_value, PrimExpr else_value)
      : PrimExprNode(PrimKind::kSelect, then_value.dtype()),
        cond(std::move(cond)),
        then_value(std::move(then_value)),
        else_value(std::move(else_value)) {}
  const PrimExpr cond, then_value, else_value;
};

class CastNode : public PrimExprNode {
 public:
  CastNode(DataType dtype, PrimExpr value) : PrimExprNode(PrimKind::kCast, dtype), value(std::move(value)) {}
  const PrimExpr value;
};

/// The math intrinsics, with the reference kernels' definitions (sigmoid is
/// 1 / (1 + exp(-x)), round is to nearest even, rsqrt is 1 / sqrt(x)).
enum class Intrinsic : uint8_t {
  kNeg, kAbs,  // any number
  kExp, kLog, kTanh, kErf, kSqrt, kRsqrt, kSigmoid, kFloor, kCeil, kRound,  // floats
  kPow,        // floats, two arguments
  kTrunc,      // floats: toward zero
  kFmod,       // floats, two arguments: C's fmod, the remainder of the truncating division (LLVM's frem)
};

class CallNode : public PrimExprNode {
 public:
  CallNode(Intrinsic op, DataType dtype, std::vector<PrimExpr> args)
      : PrimExprNode(PrimKind::kCall, dtype), op(op), args(std::move(args)) {}
  const Intrinsic op;
  const std::vector<PrimExpr> args;
};

/// What an axis does: index the output (data-parallel) or be summed over.
enum class IterKind : uint8_t { kDataParallel, kReduce };

/// An axis: a variable ranging over [min, min + extent).
class IterVarNode : public Object {
 public:
  IterVarNode(Var var, int64_t min, int64_t extent, IterKind kind)
      : var(std::move(var)), min(min), extent(extent), kind(kind) {}
  const Var var;
  const int64_t min;
  const int64_t extent;
  const IterKind kind;
};
using IterVar = Ref<const IterVarNode>;

// ---- Builders -----------------------------------------------------------------------------

PrimExpr int_imm(int64_t value, DataType dtype = DataType::Int(32));
/// `value` rounded to dtype (float16/bfloat16 once, to nearest even).
PrimExpr float_imm(double value, DataType dtype = DataType::Float(32));
/// The constant `value` of any dtype (an int, float or bool immediate).
PrimExpr make_const(DataType dtype, double value);
PrimExpr bool_imm(bool value);
Var var(std::string name, DataType dtype = DataType::Int(32));
/// A reduction axis over [0, extent) or [min, min + extent).
IterVar reduce_axis(int64_t extent, std::string name = "k");
IterVar reduce_axis(int64_t min, int64_t extent, std::string name);
/// A data-parallel axis over [0, extent) (compute makes these for its output).
IterVar data_axis(int64_t extent, std::string name);

PrimExpr binary(BinaryOp op, PrimExpr a, PrimExpr b);
PrimExpr operator+(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a, PrimExpr b);
PrimExpr operator*(PrimExpr a, PrimExpr b);
PrimExpr operator/(PrimExpr a, PrimExpr b);
PrimExpr operator-(PrimExpr a);
PrimExpr operator<(PrimExpr a, PrimExpr b);
PrimExpr operator<=(PrimExpr a, PrimExpr b);
PrimExpr operator>(PrimExpr a, PrimExpr b);
PrimExpr operator>=(PrimExpr a, PrimExpr b);
// == != && || ! stay Ref's (identity, null tests); these are their TE forms.
PrimExpr equal(PrimExpr a, PrimExpr b);
PrimExpr not_equal(PrimExpr a, PrimExpr b);
PrimExpr logical_and(PrimExpr a, PrimExpr b);
PrimExpr logical_or(PrimExpr a, PrimExpr b);
PrimExpr logical_not(PrimExpr a);
PrimExpr floordiv(PrimExpr a, PrimExpr b);
PrimExpr floormod(PrimExpr a, PrimExpr b);
PrimExpr min(PrimExpr a, PrimExpr b);
PrimExpr max(PrimExpr a, PrimExpr b);
PrimExpr select(PrimExpr cond, PrimExpr then_value, PrimExpr else_value);
/// `value` as dtype (itself when it already is one).
PrimExpr cast(DataType dtype, PrimExpr value);

PrimExpr call_intrinsic(Intrinsic op, std::vector<PrimExpr> args);
PrimExpr exp(PrimExpr x);
PrimExpr log(PrimExpr x);
PrimExpr tanh(PrimExpr x);
PrimExpr erf(PrimExpr x);
PrimExpr sqrt(PrimExpr x);
PrimExpr rsqrt(PrimExpr x);
PrimExpr sigmoid(PrimExpr x);
PrimExpr abs(PrimExpr x);
PrimExpr floor(PrimExpr x);
PrimExpr ceil(PrimExpr x);
PrimExpr round(PrimExpr x);
PrimExpr pow(PrimExpr x, PrimExpr y);
PrimExpr trunc(PrimExpr x);
PrimExpr fmod(PrimExpr x, PrimExpr y);

/// The largest / smallest finite value of dtype (-inf / +inf aside: the
/// reference kernels start max and min reductions at lowest() and max()).
PrimExpr max_value(DataType dtype);
PrimExpr min_value(DataType dtype);

/// Short names, for printing and messages: "+", "floordiv", "exp", ...
std::string_view binary_op_name(BinaryOp op);
std::string_view intrinsic_name(Intrinsic op);
/// True for the comparisons and logical operators (bool results).
bool is_predicate(BinaryOp op);

/// The value of an integer immediate, or nullptr when e is not one. The
/// pointer is into e's node: keep e alive while using it.
const int64_t* as_int_imm(const PrimExpr& e);

}  // namespace weft::te

#pragma GCC visibility pop

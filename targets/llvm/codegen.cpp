#include "codegen.h"


#include <weft/plugin.hpp>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace sdk = weft::sdk;

namespace llvm_target {
namespace {

/// Scratch buffers up to this size live on the stack; larger ones are
/// allocated for the run (a kernel may run on a worker thread's small stack).
constexpr int64_t kStackScratchBytes = 64 * 1024;

bool is_bool(DLDataType t) { return t.code == kDLUInt && t.bits == 1; }
bool is_float(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }
bool is_signed(DLDataType t) { return t.code == kDLInt; }

bool supported_dtype(DLDataType t) {
  if (t.lanes != 1) return false;
  if (t.code == kDLFloat) return t.bits == 16 || t.bits == 32 || t.bits == 64;
  if (t.code == kDLBfloat) return t.bits == 16;
  if (t.code == kDLInt || t.code == kDLUInt) return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64 || is_bool(t);
  return false;
}

class KernelEmitter {
 public:
  KernelEmitter(const sdk::LoopProgram& p, llvm::Module& m, bool parallel, int native_lanes, bool vector_math)
      : p_(p), m_(m), ctx_(m.getContext()), b_(ctx_), parallel_(parallel), native_lanes_(std::max(native_lanes, 1)),
        vector_math_(vector_math) {
    // A product feeding a sum may be one fused multiply-add (one rounding
    // instead of two: as exact or more). Nothing else of fast math: NaN,
    // infinities and signed zeros keep their meaning. 16-bit floats round
    // between the two, so theirs never fuse.
    llvm::FastMathFlags contract;
    contract.setAllowContract(true);
    b_.setFastMathFlags(contract);
  }

  llvm::Function* emit(const std::string& name) {
    check_dtypes();
    collect_bindings();
    llvm::Type* ptr = b_.getPtrTy();
    auto* type = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr, ptr}, false);
    fn_ = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, m_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::Argument* args = fn_->getArg(0);
    args->setName("args");
    fn_->getArg(1)->setName("constants");
    fn_->getArg(2)->setName("pool");

    b_.SetInsertPoint(block("entry"));
    buffers_.assign(p_.num_buffers(), nullptr);
    uint64_t constants = 0;
    for (size_t i = 0; i < p_.num_buffers(); ++i) {
      const weft_loop_buffer_t& buf = p_.buffer(static_cast<int32_t>(i));
      if (buf.role == WEFT_LOOP_BUFFER_ARG) {
        if (buf.arg < 0 || static_cast<size_t>(buf.arg) >= p_.num_args())
          throw sdk::Error("buffer " + std::string(buf.name) + " is launch argument " + std::to_string(buf.arg) +
                               " of " + std::to_string(p_.num_args()),
                           WEFT_STATUS_INTERNAL);
        buffers_[i] = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, args, static_cast<uint64_t>(buf.arg)),
                                    buf.name);
      } else if (buf.role == WEFT_LOOP_BUFFER_CONSTANT) {
        buffers_[i] = b_.CreateLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, fn_->getArg(1), constants++), buf.name);
      }
    }
    vars_.assign(p_.num_vars(), nullptr);
    scopes_.emplace_back();
    llvm::BasicBlock* body = block("body");
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    stmt(p_.body());
    b_.CreateRet(b_.getInt32(0));

    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyFunction(*fn_, &os))
      throw sdk::Error("the LLVM IR of group " + std::string(p_.name()) + " is malformed: " + os.str(),
                       WEFT_STATUS_INTERNAL);
    return fn_;
  }

 private:
  // ---- Types ------------------------------------------------------------------------------

  void check_dtypes() const {
    auto refuse = [](const std::string& what, DLDataType t) {
      throw sdk::Unsupported("the llvm target does not generate code for " + what + " of dtype " + sdk::dtype_name(t));
    };
    for (size_t i = 0; i < p_.num_buffers(); ++i) {
      const weft_loop_buffer_t& b = p_.buffer(static_cast<int32_t>(i));
      if (!supported_dtype(b.dtype)) refuse("buffer " + std::string(b.name), b.dtype);
    }
    for (size_t i = 0; i < p_.num_nodes(); ++i) {
      const weft_loop_node_t& n = p_.node(static_cast<int32_t>(i));
      if (n.kind <= WEFT_LOOP_LOAD && !supported_dtype(n.dtype)) refuse("an expression", n.dtype);
    }
  }

  /// The type values of `t` have in registers: 16-bit floats as float.
  llvm::Type* value_type(DLDataType t) {
    if (is_float(t)) return t.bits == 64 ? b_.getDoubleTy() : b_.getFloatTy();
    return b_.getIntNTy(t.bits);
  }

  /// The type of an element in memory: bools as bytes.
  llvm::Type* memory_type(DLDataType t) {
    if (t.code == kDLBfloat) return b_.getInt16Ty();
    if (t.code == kDLFloat && t.bits == 16) return b_.getHalfTy();
    if (is_bool(t)) return b_.getInt8Ty();
    return value_type(t);
  }

  /// `scalar`, or a vector of it as wide as `like` is (vector code).
  static llvm::Type* shaped_like(llvm::Type* scalar, const llvm::Value* like) {
    if (auto* v = llvm::dyn_cast<llvm::VectorType>(like->getType())) return llvm::VectorType::get(scalar, v->getElementCount());
    return scalar;
  }

  /// A float result rounded to its dtype (16-bit floats round after every operation).
  llvm::Value* round_to(DLDataType t, llvm::Value* v) {
    if (t.code == kDLFloat && t.bits == 16)
      return b_.CreateFPExt(b_.CreateFPTrunc(v, shaped_like(b_.getHalfTy(), v)), v->getType());
    if (t.code != kDLBfloat) return v;
    // To nearest even on the top 16 bits; a NaN stays a (quiet) NaN.
    llvm::Value* bits = b_.CreateBitCast(v, shaped_like(b_.getInt32Ty(), v));
    llvm::Value* lsb = b_.CreateAnd(b_.CreateLShr(bits, 16), 1);
    llvm::Value* half_ulp = llvm::ConstantInt::get(bits->getType(), 0x7fff);
    llvm::Value* rounded = b_.CreateAnd(b_.CreateAdd(bits, b_.CreateAdd(lsb, half_ulp)), 0xffff0000u);
    llvm::Value* nan = b_.CreateOr(b_.CreateAnd(bits, 0xffff0000u), 0x00400000u);
    llvm::Value* is_nan = b_.CreateFCmpUNO(v, v);
    return b_.CreateBitCast(b_.CreateSelect(is_nan, nan, rounded), v->getType());
  }

  // ---- Memory -----------------------------------------------------------------------------

  llvm::Value* buffer_base(const weft_loop_node_t& n, size_t first_index) {
    const weft_loop_buffer_t& buf = p_.buffer(n.buffer);
    if (n.num_operands - first_index != buf.ndim)
      throw sdk::Error("an access to " + std::string(buf.name) + " has the wrong number of indices", WEFT_STATUS_INTERNAL);
    llvm::Value* base = buffers_.at(static_cast<size_t>(n.buffer));
    if (!base) throw sdk::Error("buffer " + std::string(buf.name) + " is used outside its allocation", WEFT_STATUS_INTERNAL);
    return base;
  }

  llvm::Value* to_i64(llvm::Value* index, DLDataType t) {
    llvm::Type* i64 = shaped_like(b_.getInt64Ty(), index);
    return is_signed(t) ? b_.CreateSExtOrTrunc(index, i64) : b_.CreateZExtOrTrunc(index, i64);
  }

  /// Where an access reads or writes. In vector code: one address when every
  /// lane accesses the same element (stride 0), the first lane's when the
  /// lanes' elements are consecutive (stride 1), else a vector of addresses.
  struct Access {
    llvm::Value* address;
    int64_t lane_stride;  // 0, 1, or anything else for a vector of addresses
  };

  Access access(const weft_loop_node_t& n, size_t first_index) {
    const weft_loop_buffer_t& buf = p_.buffer(n.buffer);
    llvm::Value* base = buffer_base(n, first_index);
    llvm::Type* element = memory_type(buf.dtype);
    // The offset as base + lane * stride where every index is affine in the lane.
    llvm::Value* offset = b_.getInt64(0);
    int64_t lane_stride = 0;
    bool affine_offset = true;
    for (size_t d = 0; d < buf.ndim && affine_offset; ++d) {
      const int32_t index = n.operands[first_index + d];
      std::optional<Affine> a = affine(index);
      if (!a) {
        affine_offset = false;
        break;
      }
      offset = b_.CreateAdd(offset, b_.CreateMul(to_i64(a->base, p_.node(index).dtype), b_.getInt64(buf.strides[d]), "", false, true),
                            "", false, true);
      lane_stride += a->stride * buf.strides[d];
    }
    const int64_t last = std::max<int64_t>(buf.num_elements, 1) - 1;
    const bool whole_vector_fits = buf.num_elements >= lanes_;
    if (affine_offset && (lane_stride == 0 || (lane_stride == 1 && (!clamping_ || whole_vector_fits)))) {
      if (clamping_) offset = clamp(offset, lane_stride == 0 ? last : buf.num_elements - lanes_);
      return {b_.CreateInBoundsGEP(element, base, offset), lane_stride};
    }
    // A gather or scatter: each lane's offset.
    llvm::Value* offsets = nullptr;
    if (affine_offset) {
      std::vector<llvm::Constant*> steps;
      for (int l = 0; l < lanes_; ++l) steps.push_back(b_.getInt64(static_cast<uint64_t>(l * lane_stride)));
      offsets = b_.CreateAdd(b_.CreateVectorSplat(static_cast<unsigned>(lanes_), offset), llvm::ConstantVector::get(steps));
    } else {
      offsets = b_.CreateVectorSplat(static_cast<unsigned>(lanes_), b_.getInt64(0));
      for (size_t d = 0; d < buf.ndim; ++d) {
        const int32_t index = n.operands[first_index + d];
        llvm::Value* i = lanewise(to_i64(expr(index), p_.node(index).dtype));
        offsets = b_.CreateAdd(offsets, b_.CreateMul(i, llvm::ConstantInt::get(i->getType(), static_cast<uint64_t>(buf.strides[d]))));
      }
    }
    if (clamping_) offsets = clamp(offsets, last);
    return {b_.CreateInBoundsGEP(element, base, offsets), 2};
  }

  /// An offset (or a vector of them) clamped into [0, highest].
  llvm::Value* clamp(llvm::Value* offset, int64_t highest) {
    llvm::Value* high = llvm::ConstantInt::get(offset->getType(), static_cast<uint64_t>(highest));
    llvm::Value* low = llvm::ConstantInt::get(offset->getType(), 0);
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::smax, b_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, offset, high),
                                    low);
  }

  llvm::Value* load(const weft_loop_node_t& n) {
    const DLDataType t = p_.buffer(n.buffer).dtype;
    llvm::Type* element = memory_type(t);
    const llvm::Align align(std::max(1, t.bits / 8));
    Access where = access(n, 0);
    llvm::Value* raw = nullptr;
    if (where.lane_stride == 0) {
      raw = b_.CreateLoad(element, where.address);
    } else {
      auto* type = llvm::FixedVectorType::get(element, static_cast<unsigned>(lanes_));
      if (where.lane_stride == 1) {
        raw = b_.CreateAlignedLoad(type, where.address, align);
      } else {
        raw = b_.CreateMaskedGather(type, where.address, align);
      }
    }
    if (is_bool(t)) return b_.CreateICmpNE(raw, llvm::ConstantInt::get(raw->getType(), 0));
    if (t.code == kDLFloat && t.bits == 16) return b_.CreateFPExt(raw, shaped_like(b_.getFloatTy(), raw));
    if (t.code == kDLBfloat)
      return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(raw, shaped_like(b_.getInt32Ty(), raw)), 16),
                              shaped_like(b_.getFloatTy(), raw));
    return raw;
  }

  void store(const weft_loop_node_t& n) {
    const DLDataType t = p_.buffer(n.buffer).dtype;
    llvm::Value* v = expr(n.operands[0]);
    // Values are already rounded to their dtype, so narrowing them is exact.
    if (is_bool(t)) v = b_.CreateZExt(v, shaped_like(b_.getInt8Ty(), v));
    if (t.code == kDLFloat && t.bits == 16) v = b_.CreateFPTrunc(v, shaped_like(b_.getHalfTy(), v));
    if (t.code == kDLBfloat)
      v = b_.CreateTrunc(b_.CreateLShr(b_.CreateBitCast(v, shaped_like(b_.getInt32Ty(), v)), 16),
                         shaped_like(b_.getInt16Ty(), v));
    const llvm::Align align(std::max(1, t.bits / 8));
    Access where = access(n, 1);
    if (where.lane_stride == 0) {
      // Every lane writes the one element: the last lane's value stays, as in the serial loop.
      if (v->getType()->isVectorTy()) v = b_.CreateExtractElement(v, static_cast<uint64_t>(lanes_ - 1));
      b_.CreateStore(v, where.address);
    } else if (where.lane_stride == 1) {
      b_.CreateAlignedStore(lanewise(v), where.address, align);
    } else {
      b_.CreateMaskedScatter(lanewise(v), where.address, align);
    }
  }

  // ---- Expressions ------------------------------------------------------------------------

  /// Whether evaluating node i may read memory or divide by a variable:
  /// what a select the host did not mark safe must not evaluate in the
  /// branch it does not take.
  bool may_trap(int32_t i) {
    if (auto it = may_trap_.find(i); it != may_trap_.end()) return it->second;
    const weft_loop_node_t& n = p_.node(i);
    bool trap = n.kind == WEFT_LOOP_LOAD ||
                (n.kind == WEFT_LOOP_BINARY && !is_float(n.dtype) &&
                 (n.op == WEFT_TE_DIV || n.op == WEFT_TE_FLOORDIV || n.op == WEFT_TE_FLOORMOD));
    for (size_t k = 0; k < n.num_operands && !trap; ++k) trap = may_trap(n.operands[k]);
    return may_trap_[i] = trap;
  }

  /// Whether node i divides integers by a value that may be zero.
  bool divides_by_variable(int32_t i) {
    if (auto it = divides_.find(i); it != divides_.end()) return it->second;
    const weft_loop_node_t& n = p_.node(i);
    bool divides = n.kind == WEFT_LOOP_BINARY && !is_float(n.dtype) &&
                   (n.op == WEFT_TE_DIV || n.op == WEFT_TE_FLOORDIV || n.op == WEFT_TE_FLOORMOD);
    if (divides) {
      const weft_loop_node_t& divisor = p_.operand(n, 1);
      divides = divisor.kind != WEFT_LOOP_INT || divisor.int_value == 0;
    }
    for (size_t k = 0; k < n.num_operands && !divides; ++k) divides = divides_by_variable(n.operands[k]);
    return divides_[i] = divides;
  }

  llvm::Value* expr(int32_t i) {
    for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope)
      if (auto it = scope->find(i); it != scope->end()) return it->second;
    llvm::Value* v = expr_uncached(i, p_.node(i));
    scopes_.back()[i] = v;
    return v;
  }

  llvm::Value* expr_uncached(int32_t i, const weft_loop_node_t& n) {
    switch (n.kind) {
      case WEFT_LOOP_INT: return llvm::ConstantInt::get(value_type(n.dtype), static_cast<uint64_t>(n.int_value), true);
      case WEFT_LOOP_FLOAT: return llvm::ConstantFP::get(value_type(n.dtype), n.float_value);
      case WEFT_LOOP_VAR: {
        llvm::Value* v = vars_.at(static_cast<size_t>(n.var));
        if (!v) throw sdk::Error("variable " + std::string(p_.var(n.var).name) + " is read unbound", WEFT_STATUS_INTERNAL);
        return v;
      }
      case WEFT_LOOP_BINARY: return binary(i, n);
      case WEFT_LOOP_SELECT: return select(n);
      case WEFT_LOOP_CAST: return cast(n);
      case WEFT_LOOP_CALL: return call(n);
      case WEFT_LOOP_LOAD: return load(n);
      default: break;
    }
    throw sdk::Error("node kind " + std::to_string(n.kind) + " is no expression the llvm target knows",
                     WEFT_STATUS_UNSUPPORTED);
  }

  llvm::Value* binary(int32_t i, const weft_loop_node_t& n) {
    const DLDataType t = p_.operand(n, 0).dtype;  // the operands' (n's own is bool for predicates)
    llvm::Value* a = expr(n.operands[0]);
    llvm::Value* b = expr(n.operands[1]);
    unify(a, b);
    return is_float(t) ? float_binary(n.op, t, a, b) : int_binary(n.op, t, a, b, exact(i));
  }

  llvm::Value* float_binary(int32_t op, DLDataType t, llvm::Value* a, llvm::Value* b) {
    switch (op) {
      case WEFT_TE_ADD: return round_to(t, b_.CreateFAdd(a, b));
      case WEFT_TE_SUB: return round_to(t, b_.CreateFSub(a, b));
      case WEFT_TE_MUL: return round_to(t, b_.CreateFMul(a, b));
      case WEFT_TE_DIV: return round_to(t, b_.CreateFDiv(a, b));
      case WEFT_TE_FLOORDIV: return round_to(t, unary_intrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b)));
      case WEFT_TE_FLOORMOD: {
        llvm::Value* q = unary_intrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
        return round_to(t, b_.CreateFSub(a, b_.CreateFMul(q, b)));
      }
      // As std::min / std::max: the first operand when unordered.
      case WEFT_TE_MIN: return b_.CreateSelect(b_.CreateFCmpOLT(b, a), b, a);
      case WEFT_TE_MAX: return b_.CreateSelect(b_.CreateFCmpOLT(a, b), b, a);
      case WEFT_TE_EQ: return b_.CreateFCmpOEQ(a, b);
      case WEFT_TE_NE: return b_.CreateFCmpUNE(a, b);
      case WEFT_TE_LT: return b_.CreateFCmpOLT(a, b);
      case WEFT_TE_LE: return b_.CreateFCmpOLE(a, b);
      case WEFT_TE_GT: return b_.CreateFCmpOGT(a, b);
      case WEFT_TE_GE: return b_.CreateFCmpOGE(a, b);
      default: break;
    }
    throw sdk::Error("binary operator " + std::to_string(op) + " on floats", WEFT_STATUS_UNSUPPORTED);
  }

  /// `exact`: the operation is known not to overflow (nsw), so LLVM may
  /// widen it, as it must to fold an index's constant terms into addresses.
  llvm::Value* int_binary(int32_t op, DLDataType t, llvm::Value* a, llvm::Value* b, bool exact = false) {
    const bool s = is_signed(t);
    switch (op) {
      case WEFT_TE_ADD: return b_.CreateAdd(a, b, "", false, exact);
      case WEFT_TE_SUB: return b_.CreateSub(a, b, "", false, exact);
      case WEFT_TE_MUL: return b_.CreateMul(a, b, "", false, exact);
      case WEFT_TE_DIV:
      case WEFT_TE_FLOORDIV:
      case WEFT_TE_FLOORMOD: return int_divide(op, s, a, b);
      case WEFT_TE_MIN: return b_.CreateSelect(s ? b_.CreateICmpSLT(b, a) : b_.CreateICmpULT(b, a), b, a);
      case WEFT_TE_MAX: return b_.CreateSelect(s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b), b, a);
      case WEFT_TE_EQ: return b_.CreateICmpEQ(a, b);
      case WEFT_TE_NE: return b_.CreateICmpNE(a, b);
      case WEFT_TE_LT: return s ? b_.CreateICmpSLT(a, b) : b_.CreateICmpULT(a, b);
      case WEFT_TE_LE: return s ? b_.CreateICmpSLE(a, b) : b_.CreateICmpULE(a, b);
      case WEFT_TE_GT: return s ? b_.CreateICmpSGT(a, b) : b_.CreateICmpUGT(a, b);
      case WEFT_TE_GE: return s ? b_.CreateICmpSGE(a, b) : b_.CreateICmpUGE(a, b);
      case WEFT_TE_AND: return b_.CreateAnd(a, b);
      case WEFT_TE_OR: return b_.CreateOr(a, b);
      default: break;
    }
    throw sdk::Error("binary operator " + std::to_string(op) + " on integers", WEFT_STATUS_UNSUPPORTED);
  }

  /// Integer division, floor division and floor modulo: a zero divisor ends
  /// the run with kDivisionByZero; a signed division by -1 wraps (INT_MIN / -1
  /// is INT_MIN), where LLVM's sdiv would be undefined.
  llvm::Value* int_divide(int32_t op, bool is_signed_type, llvm::Value* a, llvm::Value* b) {
    auto* constant = llvm::dyn_cast<llvm::ConstantInt>(b);
    if (!constant || constant->isZero()) {
      llvm::BasicBlock* ok = block("divisor_nonzero");
      llvm::BasicBlock* zero_divisor = block("division_by_zero");
      llvm::Value* zero = b_.CreateICmpEQ(b, llvm::ConstantInt::get(b->getType(), 0));
      if (zero->getType()->isVectorTy()) zero = b_.CreateOrReduce(zero);  // any lane
      b_.CreateCondBr(zero, zero_divisor, ok);
      b_.SetInsertPoint(zero_divisor);
      return_early(kDivisionByZero);
      b_.SetInsertPoint(ok);
    }
    if (!is_signed_type) return op == WEFT_TE_FLOORMOD ? b_.CreateURem(a, b) : b_.CreateUDiv(a, b);
    llvm::Type* type = a->getType();
    llvm::Value* zero = llvm::ConstantInt::get(type, 0);
    llvm::Value* minus_one = b_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(type, -1));
    llvm::Value* divisor = b_.CreateSelect(minus_one, llvm::ConstantInt::get(type, 1), b);
    llvm::Value* q = b_.CreateSDiv(a, divisor);
    llvm::Value* negated = b_.CreateSub(zero, a);
    if (op == WEFT_TE_DIV) return b_.CreateSelect(minus_one, negated, q);
    llvm::Value* r = b_.CreateSRem(a, divisor);
    // Truncation rounded toward zero: step down where the remainder and the divisor differ in sign.
    llvm::Value* adjust = b_.CreateAnd(b_.CreateICmpNE(r, zero),
                                       b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
    if (op == WEFT_TE_FLOORDIV) return b_.CreateSelect(minus_one, negated, b_.CreateSub(q, b_.CreateZExt(adjust, type)));
    return b_.CreateSelect(minus_one, zero, b_.CreateSelect(adjust, b_.CreateAdd(r, b), r));
  }

  llvm::Value* select(const weft_loop_node_t& n) {
    llvm::Value* cond = expr(n.operands[0]);
    if (n.op == 1 || (!may_trap(n.operands[1]) && !may_trap(n.operands[2]))) {
      llvm::Value* a = expr(n.operands[1]);
      llvm::Value* b = expr(n.operands[2]);
      unify(a, b);
      if (cond->getType()->isVectorTy()) a = lanewise(a), b = lanewise(b);
      return b_.CreateSelect(cond, a, b);
    }
    if (!cond->getType()->isVectorTy() && !divides_by_variable(n.operands[1]) && !divides_by_variable(n.operands[2])) {
      // A guarded read (padding, a convolution's taps at the border) under a
      // condition the same in every lane: both sides computed with their reads
      // clamped into their buffers, then one picked. A clamped read's value is
      // used only where the guard holds, and there it reads what it would have;
      // the loop keeps no branch.
      ++clamping_;
      llvm::Value* a = expr(n.operands[1]);
      llvm::Value* b = expr(n.operands[2]);
      --clamping_;
      unify(a, b);
      return b_.CreateSelect(cond, a, b);
    }
    // Only the chosen operand runs: the other may divide by zero, or read out
    // of bounds in some lanes only.
    llvm::BasicBlock* then_block = block("select_then");
    llvm::BasicBlock* else_block = block("select_else");
    llvm::BasicBlock* merge = block("select_merge");
    b_.CreateCondBr(cond, then_block, else_block);
    auto branch = [&](llvm::BasicBlock* bb, int32_t operand) {
      b_.SetInsertPoint(bb);
      scopes_.emplace_back();
      llvm::Value* v = expr(operand);
      scopes_.pop_back();
      llvm::BasicBlock* end = b_.GetInsertBlock();
      b_.CreateBr(merge);
      return std::make_pair(v, end);
    };
    auto [then_value, then_end] = branch(then_block, n.operands[1]);
    auto [else_value, else_end] = branch(else_block, n.operands[2]);
    // In vector code (a condition the same in every lane) one side may be
    // uniform and the other not: widen it where it was computed.
    if (then_value->getType() != else_value->getType()) {
      auto widen = [&](llvm::Value*& v, llvm::BasicBlock* end) {
        b_.SetInsertPoint(end->getTerminator());
        v = lanewise(v);
      };
      if (then_value->getType()->isVectorTy()) widen(else_value, else_end);
      else widen(then_value, then_end);
    }
    b_.SetInsertPoint(merge);
    llvm::PHINode* phi = b_.CreatePHI(then_value->getType(), 2);
    phi->addIncoming(then_value, then_end);
    phi->addIncoming(else_value, else_end);
    return phi;
  }

  llvm::Value* cast(const weft_loop_node_t& n) {
    const DLDataType to = n.dtype;
    const DLDataType from = p_.operand(n, 0).dtype;
    llvm::Value* v = expr(n.operands[0]);
    if (is_bool(to)) {  // nonzero and not NaN is true
      return is_float(from) ? b_.CreateFCmpONE(v, llvm::ConstantFP::get(v->getType(), 0.0))
                            : b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
    }
    llvm::Type* type = shaped_like(value_type(to), v);
    if (is_float(to)) {
      if (is_float(from)) return round_to(to, b_.CreateFPCast(v, type));
      return round_to(to, is_signed(from) ? b_.CreateSIToFP(v, type) : b_.CreateUIToFP(v, type));
    }
    if (is_float(from)) {  // saturating, NaN to 0: the reference cast's rule
      auto id = is_signed(to) ? llvm::Intrinsic::fptosi_sat : llvm::Intrinsic::fptoui_sat;
      return b_.CreateIntrinsic(id, {type, v->getType()}, {v});
    }
    return is_signed(from) ? b_.CreateSExtOrTrunc(v, type) : b_.CreateZExtOrTrunc(v, type);
  }

  llvm::Value* unary_intrinsic(llvm::Intrinsic::ID id, llvm::Value* x) {
    return b_.CreateUnaryIntrinsic(id, x);
  }

  llvm::Value* exp(llvm::Value* x) { return vector_math("exp", {x}) ?: unary_intrinsic(llvm::Intrinsic::exp, x); }

  /// glibc's vector math (libmvec) for a float vector of the machine's
  /// width, `_ZGVeN16v_expf` say (the x86-64 vector function ABI's name), or
  /// null where it does not apply: other dtypes and widths go lane by lane.
  llvm::Value* vector_math(const char* name, std::vector<llvm::Value*> args) {
    if (!vector_math_ || lanes_ != native_lanes_ || !args[0]->getType()->isVectorTy() ||
        !args[0]->getType()->getScalarType()->isFloatTy()) {
      return nullptr;
    }
    for (llvm::Value*& a : args) a = lanewise(a);
    llvm::Type* type = args[0]->getType();
    const std::string symbol = vector_math_symbol(name, static_cast<int>(args.size()), native_lanes_);
    llvm::FunctionCallee f = m_.getOrInsertFunction(symbol, llvm::FunctionType::get(type, std::vector<llvm::Type*>(args.size(), type), false));
    if (auto* decl = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
      decl->setDoesNotThrow();
      decl->setDoesNotAccessMemory();
    }
    return b_.CreateCall(f, args);
  }

  /// A libm function of the value's type (tanhf or tanh, say), lane by lane
  /// on a vector.
  llvm::Value* libm(const char* name_float, const char* name_double, llvm::Value* x) {
    llvm::Type* scalar = x->getType()->getScalarType();
    llvm::FunctionCallee f = m_.getOrInsertFunction(scalar->isDoubleTy() ? name_double : name_float, scalar, scalar);
    if (auto* decl = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
      decl->setDoesNotThrow();
      decl->setDoesNotAccessMemory();
    }
    if (!x->getType()->isVectorTy()) return b_.CreateCall(f, {x});
    llvm::Value* out = llvm::PoisonValue::get(x->getType());
    for (int l = 0; l < lanes_; ++l)
      out = b_.CreateInsertElement(out, b_.CreateCall(f, {b_.CreateExtractElement(x, static_cast<uint64_t>(l))}),
                                   static_cast<uint64_t>(l));
    return out;
  }

  llvm::Value* call(const weft_loop_node_t& n) {
    const DLDataType t = n.dtype;
    std::vector<llvm::Value*> args;
    for (size_t k = 0; k < n.num_operands; ++k) args.push_back(expr(n.operands[k]));
    if (args.empty()) throw sdk::Error("an intrinsic call without arguments", WEFT_STATUS_INTERNAL);
    llvm::Value* x = args[0];
    auto second = [&]() {
      if (args.size() != 2) throw sdk::Error("intrinsic " + std::to_string(n.op) + " takes two arguments", WEFT_STATUS_INTERNAL);
      unify(x, args[1]);
      return args[1];
    };
    if (!is_float(t)) {
      switch (n.op) {
        case WEFT_TE_NEG: return b_.CreateSub(llvm::ConstantInt::get(x->getType(), 0), x);
        case WEFT_TE_ABS:
          if (!is_signed(t)) return x;
          return b_.CreateSelect(b_.CreateICmpSLT(x, llvm::ConstantInt::get(x->getType(), 0)),
                                 b_.CreateSub(llvm::ConstantInt::get(x->getType(), 0), x), x);
        case WEFT_TE_NOT: return b_.CreateNot(x);
        default:
          throw sdk::Error("intrinsic " + std::to_string(n.op) + " of an integer", WEFT_STATUS_UNSUPPORTED);
      }
    }
    llvm::Value* one = llvm::ConstantFP::get(x->getType(), 1.0);
    llvm::Value* r = nullptr;
    switch (n.op) {
      case WEFT_TE_NEG: return b_.CreateFNeg(x);
      case WEFT_TE_ABS: return unary_intrinsic(llvm::Intrinsic::fabs, x);
      case WEFT_TE_EXP: r = exp(x); break;
      case WEFT_TE_LOG: r = vector_math("log", {x}) ?: unary_intrinsic(llvm::Intrinsic::log, x); break;
      case WEFT_TE_TANH: r = vector_math("tanh", {x}) ?: libm("tanhf", "tanh", x); break;
      case WEFT_TE_ERF: r = vector_math("erf", {x}) ?: libm("erff", "erf", x); break;
      case WEFT_TE_SQRT: r = unary_intrinsic(llvm::Intrinsic::sqrt, x); break;
      case WEFT_TE_RSQRT: r = b_.CreateFDiv(one, unary_intrinsic(llvm::Intrinsic::sqrt, x)); break;
      case WEFT_TE_SIGMOID:
        r = b_.CreateFDiv(one, b_.CreateFAdd(one, exp(b_.CreateFNeg(x))));
        break;
      case WEFT_TE_FLOOR: r = unary_intrinsic(llvm::Intrinsic::floor, x); break;
      case WEFT_TE_CEIL: r = unary_intrinsic(llvm::Intrinsic::ceil, x); break;
      case WEFT_TE_ROUND: r = unary_intrinsic(llvm::Intrinsic::roundeven, x); break;
      case WEFT_TE_TRUNC: r = unary_intrinsic(llvm::Intrinsic::trunc, x); break;
      case WEFT_TE_POW: {
        llvm::Value* y = second();
        r = vector_math("pow", {x, y}) ?: b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, x, y);
        break;
      }
      case WEFT_TE_FMOD: r = b_.CreateFRem(x, second()); break;
      default: throw sdk::Error("intrinsic " + std::to_string(n.op) + " of a float", WEFT_STATUS_UNSUPPORTED);
    }
    return round_to(t, r);
  }

  // ---- Statements -------------------------------------------------------------------------

  void stmt(int32_t i) {
    const weft_loop_node_t& n = p_.node(i);
    switch (n.kind) {
      case WEFT_LOOP_FOR: return for_loop(n);
      case WEFT_LOOP_STORE: return store(n);
      case WEFT_LOOP_ALLOCATE: return allocate(n);
      case WEFT_LOOP_IF: return if_then_else(n);
      case WEFT_LOOP_LET: {
        llvm::Value* value = expr(n.operands[0]);
        llvm::Value* before = vars_.at(static_cast<size_t>(n.var));
        vars_[static_cast<size_t>(n.var)] = value;
        if (lanes_) let_values_[n.var] = n.operands[0];  // for affine()
        in_scope([&] { stmt(n.operands[1]); });
        vars_[static_cast<size_t>(n.var)] = before;
        return;
      }
      case WEFT_LOOP_SEQ:
        for (size_t k = 0; k < n.num_operands; ++k) stmt(n.operands[k]);
        return;
      default: break;
    }
    throw sdk::Error("node kind " + std::to_string(n.kind) + " is no statement the llvm target knows",
                     WEFT_STATUS_UNSUPPORTED);
  }

  template <typename F>
  void in_scope(F&& body) {
    scopes_.emplace_back();
    body();
    scopes_.pop_back();
  }

  void for_loop(const weft_loop_node_t& n) {
    if (n.extent <= 0) return;
    llvm::Type* type = value_type(p_.var(n.var).dtype);
    const int64_t end = n.int_value + n.extent;
    if (type->getIntegerBitWidth() < 64 && end > (int64_t{1} << (type->getIntegerBitWidth() - 1)) - 1)
      throw sdk::Unsupported("loop over " + std::string(p_.var(n.var).name) + " ends past its index type");
    llvm::Value* first = llvm::ConstantInt::get(type, static_cast<uint64_t>(n.int_value), true);
    llvm::Value* last = llvm::ConstantInt::get(type, static_cast<uint64_t>(end), true);
    if (n.op == WEFT_LOOP_PARALLEL && parallel_ && !in_parallel_ && n.extent > 1 && type->isIntegerTy(32))
      return parallel_loop(n, first, last);
    if (n.op == WEFT_LOOP_VECTORIZED && vectorizable(n)) return vector_loop(n);
    loop(n, first, last);
  }

  // ---- Vector code ------------------------------------------------------------------------
  //
  // A vectorized loop's body is emitted once, as vector code over its
  // iterations (the lanes): the loop variable is the vector <min, min+1, ...>,
  // an expression that depends on it is a vector, one that does not stays a
  // scalar and is splat where it meets a vector. Loads and stores whose
  // offset is affine in the lane with stride 1 are vector loads and stores,
  // stride 0 scalar ones, others gathers and scatters. Its iterations are
  // independent (the schedule's promise), so running each statement for all
  // lanes before the next computes what the serial loop computes.

  /// Loops of more lanes than this stay loops (LLVM's vectorizer may still
  /// take them); a loop wider than the machine's vectors is emitted as one
  /// vector body per machine vector where they divide it.
  static constexpr int64_t kMaxLanes = 256;

  /// Whether loop n's body can be vector code: statements without inner
  /// loops or allocations, whose ifs and unsafe selects (which must branch)
  /// decide the same way in every lane.
  bool vectorizable(const weft_loop_node_t& n) {
    if (lanes_ || n.extent < 2 || n.extent > kMaxLanes || !value_type(p_.var(n.var).dtype)->isIntegerTy()) return false;
    lane_var_ = n.var;
    lane_vars_.clear();
    lane_dependent_.clear();
    const bool ok = vectorizable_stmt(n.operands[0]);
    if (!ok) lane_var_ = -1;
    return ok;
  }

  bool vectorizable_stmt(int32_t i) {
    const weft_loop_node_t& n = p_.node(i);
    switch (n.kind) {
      case WEFT_LOOP_STORE: return uniform_branches(i);
      case WEFT_LOOP_IF:
        return !lane_dependent(n.operands[0]) && uniform_branches(n.operands[0]) && vectorizable_stmt(n.operands[1]) &&
               (n.num_operands < 3 || vectorizable_stmt(n.operands[2]));
      case WEFT_LOOP_LET:
        if (!uniform_branches(n.operands[0])) return false;
        if (lane_dependent(n.operands[0])) lane_vars_.insert(n.var);
        return vectorizable_stmt(n.operands[1]);
      case WEFT_LOOP_SEQ:
        for (size_t k = 0; k < n.num_operands; ++k)
          if (!vectorizable_stmt(n.operands[k])) return false;
        return true;
      default: return false;  // loops, allocations
    }
  }

  /// No select under node i must branch on a condition that differs between lanes.
  bool uniform_branches(int32_t i) {
    const weft_loop_node_t& n = p_.node(i);
    if (n.kind == WEFT_LOOP_SELECT && n.op != 1 && (may_trap(n.operands[1]) || may_trap(n.operands[2])) &&
        lane_dependent(n.operands[0]))
      return false;
    for (size_t k = 0; k < n.num_operands; ++k)
      if (!uniform_branches(n.operands[k])) return false;
    return true;
  }

  /// Whether node i's value differs between the lanes of the loop being vectorized.
  bool lane_dependent(int32_t i) {
    if (auto it = lane_dependent_.find(i); it != lane_dependent_.end()) return it->second;
    const weft_loop_node_t& n = p_.node(i);
    bool dependent = n.kind == WEFT_LOOP_VAR && (n.var == lane_var_ || lane_vars_.count(n.var));
    for (size_t k = 0; k < n.num_operands && !dependent; ++k) dependent = lane_dependent(n.operands[k]);
    return lane_dependent_[i] = dependent;
  }

  void vector_loop(const weft_loop_node_t& n) {
    llvm::Type* type = value_type(p_.var(n.var).dtype);
    // Machine-wide vectors where they divide the loop: a panel of packed
    // weights or a channel block is then one vector, its index affine.
    const int64_t width = n.extent > native_lanes_ && n.extent % native_lanes_ == 0 ? native_lanes_ : n.extent;
    lanes_ = static_cast<int>(width);
    llvm::Value* outer = vars_.at(static_cast<size_t>(n.var));
    for (int64_t first = n.int_value; first < n.int_value + n.extent; first += width) {
      std::vector<llvm::Constant*> ramp;
      for (int l = 0; l < lanes_; ++l) ramp.push_back(llvm::ConstantInt::get(type, static_cast<uint64_t>(first + l), true));
      vars_[static_cast<size_t>(n.var)] = llvm::ConstantVector::get(ramp);
      in_scope([&] { stmt(n.operands[0]); });
    }
    vars_[static_cast<size_t>(n.var)] = outer;
    lanes_ = 0;
    lane_var_ = -1;
    let_values_.clear();
  }

  /// A value in the lanes: a vector as it is, a scalar splat.
  llvm::Value* lanewise(llvm::Value* v) {
    if (!lanes_ || v->getType()->isVectorTy()) return v;
    return b_.CreateVectorSplat(static_cast<unsigned>(lanes_), v);
  }

  /// Both operands of one shape: a scalar meeting a vector is splat.
  void unify(llvm::Value*& a, llvm::Value*& b) {
    if (a->getType()->isVectorTy() != b->getType()->isVectorTy()) a = lanewise(a), b = lanewise(b);
  }

  /// An index whose value in lane l is base + l * stride, base a known
  /// multiple of `multiple` (0: base is 0).
  struct Affine {
    llvm::Value* base;  // a scalar of the index's type
    int64_t stride;
    int64_t multiple;
  };

  static int64_t gcd(int64_t a, int64_t b) { return b == 0 ? std::abs(a) : gcd(b, a % b); }

  // ---- Value ranges -----------------------------------------------------------------------
  // Integer arithmetic wraps in the loop IR; where the ranges of the loop
  // variables bound an operation's result within its signed dtype, it never
  // does, and is emitted nsw (an index like i3 + r1 - 1 then widens to 64
  // bits term by term, and its constants fold into the addresses).

  struct Range {
    int64_t lo, hi;
  };

  /// The variables' bindings: each loop's range and each let's value nodes.
  void collect_bindings() {
    for (size_t i = 0; i < p_.num_nodes(); ++i) {
      const weft_loop_node_t& n = p_.node(static_cast<int32_t>(i));
      if (n.kind == WEFT_LOOP_FOR && n.extent > 0)
        loop_ranges_[n.var].push_back({n.int_value, n.int_value + n.extent - 1});
      else if (n.kind == WEFT_LOOP_LET)
        let_bindings_[n.var].push_back(n.operands[0]);
    }
  }

  /// Whether integer node i, and every integer operation under it, computes
  /// its mathematical value (nothing wraps).
  bool exact(int32_t i) { return range_of(i).has_value(); }

  /// The values signed-integer node i takes, where nothing under it wraps;
  /// else nullopt.
  std::optional<Range> range_of(int32_t i) {
    if (auto known = ranges_.find(i); known != ranges_.end()) return known->second;
    ranges_[i] = std::nullopt;  // while it is worked out: a cycle knows nothing
    const std::optional<Range> r = range_uncached(p_.node(i));
    const DLDataType t = p_.node(i).dtype;
    const bool fits = r && t.code == kDLInt && t.bits <= 64 && r->lo >= min_of(t.bits) && r->hi <= max_of(t.bits);
    return ranges_[i] = fits ? r : std::nullopt;
  }

  static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
  static int64_t min_of(int bits) { return bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1)); }
  static int64_t max_of(int bits) { return bits >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1; }

  std::optional<Range> range_uncached(const weft_loop_node_t& n) {
    auto join = [](std::optional<Range> a, std::optional<Range> b) -> std::optional<Range> {
      if (!a || !b) return std::nullopt;
      return Range{std::min(a->lo, b->lo), std::max(a->hi, b->hi)};
    };
    switch (n.kind) {
      case WEFT_LOOP_INT: return Range{n.int_value, n.int_value};
      case WEFT_LOOP_VAR: {  // every value any binding gives it
        std::vector<std::optional<Range>> bindings;
        if (auto loops = loop_ranges_.find(n.var); loops != loop_ranges_.end())
          bindings.insert(bindings.end(), loops->second.begin(), loops->second.end());
        if (auto lets = let_bindings_.find(n.var); lets != let_bindings_.end())
          for (int32_t value : lets->second) bindings.push_back(range_of(value));
        if (bindings.empty()) return std::nullopt;
        std::optional<Range> r = bindings[0];
        for (const std::optional<Range>& b : bindings) r = join(r, b);
        return r;
      }
      case WEFT_LOOP_CAST: return range_of(n.operands[0]);  // fits the new dtype, or range_of refuses it
      case WEFT_LOOP_BINARY: {
        const std::optional<Range> a = range_of(n.operands[0]), b = range_of(n.operands[1]);
        if (!a || !b) return std::nullopt;
        // Operands fit 64-bit signed integers of at most 64 bits: products are
        // checked, sums of two cannot leave __int128.
        using Wide = __int128;
        auto range = [](std::initializer_list<Wide> values) -> std::optional<Range> {
          const Wide lo = std::min(values), hi = std::max(values);
          if (lo < std::numeric_limits<int64_t>::min() || hi > std::numeric_limits<int64_t>::max()) return std::nullopt;
          return Range{static_cast<int64_t>(lo), static_cast<int64_t>(hi)};
        };
        const Wide alo = a->lo, ahi = a->hi, blo = b->lo, bhi = b->hi;
        switch (n.op) {
          case WEFT_TE_ADD: return range({alo + blo, ahi + bhi});
          case WEFT_TE_SUB: return range({alo - bhi, ahi - blo});
          case WEFT_TE_MUL: return range({alo * blo, alo * bhi, ahi * blo, ahi * bhi});
          case WEFT_TE_MIN: return Range{std::min(a->lo, b->lo), std::min(a->hi, b->hi)};
          case WEFT_TE_MAX: return Range{std::max(a->lo, b->lo), std::max(a->hi, b->hi)};
          case WEFT_TE_FLOORDIV:
            if (b->lo != b->hi || b->lo <= 0) return std::nullopt;
            return Range{floor_div(a->lo, b->lo), floor_div(a->hi, b->lo)};
          case WEFT_TE_FLOORMOD:
            if (b->lo != b->hi || b->lo <= 0) return std::nullopt;
            return Range{0, b->lo - 1};
          default: return std::nullopt;
        }
      }
      default: return std::nullopt;
    }
  }

  /// What lane-independent index node i is known to be a multiple of (1: nothing known).
  int64_t known_multiple(int32_t i) {
    const weft_loop_node_t& n = p_.node(i);
    switch (n.kind) {
      case WEFT_LOOP_INT: return std::abs(n.int_value);
      case WEFT_LOOP_VAR: {
        auto let = let_values_.find(n.var);
        return let == let_values_.end() ? 1 : known_multiple(let->second);
      }
      case WEFT_LOOP_BINARY:
        if (n.op == WEFT_TE_MUL) return known_multiple(n.operands[0]) * known_multiple(n.operands[1]);
        if (n.op == WEFT_TE_ADD || n.op == WEFT_TE_SUB) return gcd(known_multiple(n.operands[0]), known_multiple(n.operands[1]));
        return 1;
      default: return 1;
    }
  }

  /// Index node i as base + lane * stride, or nullopt when it is not of that form.
  std::optional<Affine> affine(int32_t i) {
    if (!lanes_ || !lane_dependent(i)) return Affine{expr(i), 0, known_multiple(i)};
    const weft_loop_node_t& n = p_.node(i);
    switch (n.kind) {
      case WEFT_LOOP_VAR: {
        if (n.var == lane_var_) {
          auto* first = llvm::cast<llvm::ConstantInt>(
              llvm::cast<llvm::Constant>(vars_.at(static_cast<size_t>(n.var)))->getAggregateElement(0u));
          return Affine{first, 1, std::abs(first->getSExtValue())};
        }
        auto let = let_values_.find(n.var);
        if (let == let_values_.end()) return std::nullopt;
        return affine(let->second);
      }
      case WEFT_LOOP_BINARY: {
        std::optional<Affine> a = affine(n.operands[0]);
        std::optional<Affine> b = affine(n.operands[1]);
        if (!a || !b) return std::nullopt;
        // The lane-0 value of an exact node is exact too: it is one of its values.
        if (n.op == WEFT_TE_ADD)
          return Affine{b_.CreateAdd(a->base, b->base, "", false, exact(i)), a->stride + b->stride,
                        gcd(a->multiple, b->multiple)};
        if (n.op == WEFT_TE_SUB)
          return Affine{b_.CreateSub(a->base, b->base, "", false, exact(i)), a->stride - b->stride,
                        gcd(a->multiple, b->multiple)};
        // Products, quotients and remainders by a constant.
        if (n.op == WEFT_TE_MUL && a->stride == 0 && llvm::isa<llvm::ConstantInt>(a->base)) std::swap(a, b);
        auto* c = b->stride == 0 ? llvm::dyn_cast<llvm::ConstantInt>(b->base) : nullptr;
        if (!c) return std::nullopt;
        const int64_t k = c->getSExtValue();
        if (n.op == WEFT_TE_MUL)
          return Affine{b_.CreateMul(a->base, c, "", false, exact(i)), a->stride * k, a->multiple * std::abs(k)};
        // floordiv(base + l, k) is floordiv(base, k) in every lane, and
        // floormod(base + l, k) is floormod(base, k) + l, when the lanes stay
        // within one multiple of k: the lane count divides k and base.
        if (k <= 0 || a->stride != 1 || k % lanes_ != 0 || a->multiple % lanes_ != 0) return std::nullopt;
        if (n.op == WEFT_TE_FLOORDIV) return Affine{int_divide(WEFT_TE_FLOORDIV, true, a->base, c), 0, 1};
        if (n.op == WEFT_TE_FLOORMOD) return Affine{int_divide(WEFT_TE_FLOORMOD, true, a->base, c), 1, lanes_};
        return std::nullopt;
      }
      default: return std::nullopt;
    }
  }

  /// for var in [first, last): body, with the schedule's hints; first < last
  /// unless `may_be_empty`.
  void loop(const weft_loop_node_t& n, llvm::Value* first, llvm::Value* last, bool may_be_empty = false) {
    llvm::Type* type = first->getType();
    llvm::BasicBlock* before = b_.GetInsertBlock();
    llvm::BasicBlock* body = block("for_body");
    llvm::BasicBlock* exit = block("for_end");
    if (may_be_empty) {
      b_.CreateCondBr(b_.CreateICmpSLT(first, last), body, exit);
    } else {
      b_.CreateBr(body);
    }
    b_.SetInsertPoint(body);
    llvm::PHINode* index = b_.CreatePHI(type, 2, p_.var(n.var).name);
    index->addIncoming(first, before);
    llvm::Value* outer = vars_.at(static_cast<size_t>(n.var));
    vars_[static_cast<size_t>(n.var)] = index;
    in_scope([&] { stmt(n.operands[0]); });
    vars_[static_cast<size_t>(n.var)] = outer;
    llvm::Value* next = b_.CreateAdd(index, llvm::ConstantInt::get(type, 1), "", true, true);
    index->addIncoming(next, b_.GetInsertBlock());
    llvm::BranchInst* latch = b_.CreateCondBr(b_.CreateICmpSLT(next, last), body, exit);
    if (llvm::MDNode* hints = loop_hints(n)) latch->setMetadata(llvm::LLVMContext::MD_loop, hints);
    b_.SetInsertPoint(exit);
  }

  /// A parallel loop: its body outlined into `i32 (ptr env, i32 begin, i32
  /// end)`, which runs a chunk of the iterations with what it reads of the
  /// enclosing code (live buffers, bound variables) passed in env, and a call
  /// that runs the chunks on the pool and returns the first failure.
  void parallel_loop(const weft_loop_node_t& n, llvm::Value* first, llvm::Value* last) {
    std::vector<llvm::Value*> captured;
    for (llvm::Value* v : buffers_)
      if (v) captured.push_back(v);
    for (llvm::Value* v : vars_)
      if (v) captured.push_back(v);
    std::vector<llvm::Type*> types;
    for (llvm::Value* v : captured) types.push_back(v->getType());
    llvm::StructType* env_type = llvm::StructType::get(ctx_, types);
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    llvm::AllocaInst* env = entry.CreateAlloca(env_type, nullptr, "env");
    for (size_t k = 0; k < captured.size(); ++k) b_.CreateStore(captured[k], b_.CreateStructGEP(env_type, env, static_cast<unsigned>(k)));

    llvm::Type* i32 = b_.getInt32Ty();
    auto* body_type = llvm::FunctionType::get(i32, {b_.getPtrTy(), i32, i32}, false);
    llvm::Function* body = llvm::Function::Create(body_type, llvm::Function::InternalLinkage,
                                                  fn_->getName() + "_parallel" + std::to_string(parallel_loops_++), m_);
    body->addFnAttr(llvm::Attribute::NoUnwind);

    // Emit the body as its own function, reading what it captured from env.
    llvm::Function* outer_fn = fn_;
    llvm::BasicBlock* outer_block = b_.GetInsertBlock();
    auto outer_buffers = buffers_;
    auto outer_vars = vars_;
    auto outer_scopes = std::move(scopes_);
    auto outer_heap = std::move(heap_scratch_live_);
    fn_ = body;
    in_parallel_ = true;
    b_.SetInsertPoint(block("entry"));
    size_t k = 0;
    auto reload = [&](std::vector<llvm::Value*>& values) {
      for (llvm::Value*& v : values)
        if (v) {
          v = b_.CreateLoad(types[k], b_.CreateStructGEP(env_type, body->getArg(0), static_cast<unsigned>(k)));
          ++k;
        }
    };
    reload(buffers_);
    reload(vars_);
    scopes_.assign(1, {});
    heap_scratch_live_.clear();
    loop(n, body->getArg(1), body->getArg(2), true);
    b_.CreateRet(b_.getInt32(0));

    fn_ = outer_fn;
    in_parallel_ = false;
    buffers_ = std::move(outer_buffers);
    vars_ = std::move(outer_vars);
    scopes_ = std::move(outer_scopes);
    heap_scratch_live_ = std::move(outer_heap);
    b_.SetInsertPoint(outer_block);

    llvm::Type* ptr = b_.getPtrTy();
    auto* launch_type = llvm::FunctionType::get(i32, {ptr, ptr, ptr, i32, i32}, false);
    llvm::FunctionCallee launch = m_.getOrInsertFunction(kParallelFor, launch_type);
    llvm::Value* status = b_.CreateCall(launch, {fn_->getArg(2), body, env, first, last});

    llvm::BasicBlock* failed = block("parallel_failed");
    llvm::BasicBlock* done = block("parallel_done");
    b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), failed, done);
    b_.SetInsertPoint(failed);
    return_early_with(status);
    b_.SetInsertPoint(done);
  }

  /// The schedule's intent for LLVM's loop passes: a vectorized loop is
  /// vectorized at its extent, an unrolled one unrolled fully.
  llvm::MDNode* loop_hints(const weft_loop_node_t& n) {
    std::vector<llvm::Metadata*> ops = {nullptr};  // the loop ID refers to itself
    auto hint = [&](const char* name, llvm::Constant* value) {
      ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, name), llvm::ConstantAsMetadata::get(value)}));
    };
    if (n.op == WEFT_LOOP_VECTORIZED) {
      hint("llvm.loop.vectorize.enable", b_.getTrue());
      hint("llvm.loop.vectorize.width", b_.getInt32(static_cast<uint32_t>(n.extent)));
    } else if (n.op == WEFT_LOOP_UNROLLED) {
      ops.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, "llvm.loop.unroll.full")}));
    } else {
      return nullptr;
    }
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx_, ops);
    id->replaceOperandWith(0, id);
    return id;
  }

  void allocate(const weft_loop_node_t& n) {
    const weft_loop_buffer_t& buf = p_.buffer(n.buffer);
    llvm::Type* element = memory_type(buf.dtype);
    const int64_t bytes = buf.num_elements * static_cast<int64_t>((buf.dtype.bits + 7) / 8);
    // By index: a parallel loop in the body replaces the table while it emits.
    const auto slot = static_cast<size_t>(n.buffer);
    if (bytes <= kStackScratchBytes) {
      // In the entry block, so a loop around the allocation reuses one slot.
      llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
      llvm::AllocaInst* a = entry.CreateAlloca(element, entry.getInt64(std::max<int64_t>(buf.num_elements, 1)), buf.name);
      a->setAlignment(llvm::Align(64));
      buffers_.at(slot) = a;
      stmt(n.operands[0]);
      buffers_.at(slot) = nullptr;
      return;
    }
    llvm::Value* heap = allocate_scratch(bytes);
    buffers_.at(slot) = heap;
    heap_scratch_live_.push_back(heap);
    stmt(n.operands[0]);
    heap_scratch_live_.pop_back();
    free_scratch(heap);
    buffers_.at(slot) = nullptr;
  }

  llvm::Value* allocate_scratch(int64_t bytes) {
    llvm::Type* i64 = b_.getInt64Ty();
    llvm::FunctionCallee aligned_alloc = m_.getOrInsertFunction("aligned_alloc", b_.getPtrTy(), i64, i64);
    const int64_t rounded = (bytes + 63) / 64 * 64;  // aligned_alloc wants a multiple of the alignment
    llvm::Value* p = b_.CreateCall(aligned_alloc, {b_.getInt64(64), b_.getInt64(rounded)});
    llvm::BasicBlock* ok = block("scratch_allocated");
    llvm::BasicBlock* failed = block("scratch_failed");
    b_.CreateCondBr(b_.CreateIsNull(p), failed, ok);
    b_.SetInsertPoint(failed);
    return_early(kOutOfMemory);
    b_.SetInsertPoint(ok);
    return p;
  }

  /// Returns `status` from the kernel, freeing the scratch allocated so far.
  void return_early(int status) { return_early_with(b_.getInt32(status)); }
  void return_early_with(llvm::Value* status) {
    for (llvm::Value* live : heap_scratch_live_) free_scratch(live);
    b_.CreateRet(status);
  }

  void free_scratch(llvm::Value* p) {
    llvm::FunctionCallee free_fn = m_.getOrInsertFunction("free", b_.getVoidTy(), b_.getPtrTy());
    b_.CreateCall(free_fn, {p});
  }

  void if_then_else(const weft_loop_node_t& n) {
    llvm::Value* cond = expr(n.operands[0]);
    llvm::BasicBlock* then_block = block("if_then");
    llvm::BasicBlock* merge = block("if_end");
    llvm::BasicBlock* else_block = n.num_operands == 3 ? block("if_else") : merge;
    b_.CreateCondBr(cond, then_block, else_block);
    b_.SetInsertPoint(then_block);
    in_scope([&] { stmt(n.operands[1]); });
    b_.CreateBr(merge);
    if (n.num_operands == 3) {
      b_.SetInsertPoint(else_block);
      in_scope([&] { stmt(n.operands[2]); });
      b_.CreateBr(merge);
    }
    b_.SetInsertPoint(merge);
  }

  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(ctx_, name, fn_); }

  const sdk::LoopProgram& p_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  const bool parallel_;          // parallel loops run on the pool
  const int64_t native_lanes_;  // float32 elements in the machine's vector
  const bool vector_math_;      // libmvec's functions of that width are there
  llvm::Function* fn_ = nullptr;
  bool in_parallel_ = false;  // emitting an outlined parallel body
  // Vector code: the lanes of the loop being vectorized (0: scalar code),
  // its variable, the variables let-bound to lane-dependent values inside
  // it, their values' nodes, and which nodes depend on the lane.
  int lanes_ = 0;
  int32_t lane_var_ = -1;
  std::unordered_set<int32_t> lane_vars_;
  std::unordered_map<int32_t, int32_t> let_values_;
  std::unordered_map<int32_t, bool> lane_dependent_;
  int parallel_loops_ = 0;
  std::vector<llvm::Value*> buffers_;  // per buffer: its first element while it is live
  std::vector<llvm::Value*> vars_;     // per variable: its value where it is bound
  // Expressions already emitted, by node, per region: a value from an
  // enclosing region dominates the regions inside it.
  std::vector<std::unordered_map<int32_t, llvm::Value*>> scopes_;
  std::unordered_map<int32_t, bool> may_trap_, divides_;
  std::unordered_map<int32_t, std::vector<Range>> loop_ranges_;       // per variable: the loops binding it
  std::unordered_map<int32_t, std::vector<int32_t>> let_bindings_;   // per variable: the values lets bind it to
  std::unordered_map<int32_t, std::optional<Range>> ranges_;         // per node: range_of
  int clamping_ = 0;  // > 0 while emitting the sides of a guarding select: reads clamp their offsets
  std::vector<llvm::Value*> heap_scratch_live_;  // scratch on the heap, freed on every return
};

}  // namespace

std::string vector_math_symbol(const std::string& name, int arity, int lanes) {
  const char isa = lanes == 16 ? 'e' : lanes == 8 ? 'd' : 'b';  // AVX-512, AVX2, SSE4
  return "_ZGV" + std::string(1, isa) + "N" + std::to_string(lanes) + std::string(static_cast<size_t>(arity), 'v') +
         "_" + name + "f";
}

llvm::Function* emit_kernel(const sdk::LoopProgram& program, const std::string& name, llvm::Module& module,
                            bool parallel, int native_lanes, bool vector_math) {
  return KernelEmitter(program, module, parallel, native_lanes, vector_math).emit(name);
}

}  // namespace llvm_target

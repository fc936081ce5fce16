#include "weft/te/evaluate.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <span>
#include <unordered_map>

#include <weft/sdk/float_convert.hpp>

#include "te/scalar.h"
#include "weft/te/printer.h"

namespace weft::te {
namespace {

template <typename T>
T load_as(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store_as(char* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

Scalar read_element(const char* base, DataType dt, int64_t offset) {
  const char* p = base + offset * static_cast<int64_t>(dt.bytes());
  if (dt.code == DataType::kBFloat) return Scalar::of_float(dt, bfloat16_bits_to_double(load_as<uint16_t>(p)));
  if (dt.is_float()) {
    if (dt.bits == 32) return Scalar::of_float(dt, load_as<float>(p));
    if (dt.bits == 64) return Scalar::of_float(dt, load_as<double>(p));
    return Scalar::of_float(dt, float16_bits_to_double(load_as<uint16_t>(p)));
  }
  const bool is_signed = dt.is_int();
  switch (dt.bytes()) {
    case 1: return Scalar::of_int(dt, is_signed ? load_as<int8_t>(p) : load_as<uint8_t>(p));
    case 2: return Scalar::of_int(dt, is_signed ? load_as<int16_t>(p) : load_as<uint16_t>(p));
    case 4: return Scalar::of_int(dt, is_signed ? load_as<int32_t>(p) : load_as<uint32_t>(p));
    default: return Scalar::of_int(dt, load_as<int64_t>(p));
  }
}

void write_element(char* base, DataType dt, int64_t offset, const Scalar& v) {
  char* p = base + offset * static_cast<int64_t>(dt.bytes());
  if (dt.is_float()) {
    sdk::store_float(p, DLDataType{dt.code, dt.bits, dt.lanes}, 0, v.f);
    return;
  }
  switch (dt.bytes()) {
    case 1: store_as(p, static_cast<uint8_t>(v.i)); return;
    case 2: store_as(p, static_cast<uint16_t>(v.i)); return;
    case 4: store_as(p, static_cast<uint32_t>(v.i)); return;
    default: store_as(p, v.i); return;
  }
}

/// What a compiled function runs on: the values of its variables and the
/// storage of its buffers, each in the slot the compiler gave it.
struct Frame {
  std::vector<Scalar> vars;
  std::vector<char*> buffers;
};

// The loop IR compiled to a tree of closures: variables and buffers resolved
// to slots once, dtypes' fast paths chosen once, so that a run walks no maps
// (a tree walk over the IR looked up every variable and buffer by hash).

class ExprCode {
 public:
  virtual ~ExprCode() = default;
  virtual Scalar eval(Frame& frame) const = 0;
};
using ExprPtr = std::unique_ptr<const ExprCode>;

class StmtCode {
 public:
  virtual ~StmtCode() = default;
  virtual void run(Frame& frame) const = 0;
};
using StmtPtr = std::unique_ptr<const StmtCode>;

class Immediate : public ExprCode {
 public:
  explicit Immediate(Scalar v) : v_(v) {}
  Scalar eval(Frame&) const override { return v_; }

 private:
  Scalar v_;
};

class VarRead : public ExprCode {
 public:
  explicit VarRead(size_t slot) : slot_(slot) {}
  Scalar eval(Frame& frame) const override { return frame.vars[slot_]; }

 private:
  size_t slot_;
};

/// Any operator in any dtype, as apply_binary computes it; && and ||
/// short-circuit, as a guard on a load needs.
class Binary : public ExprCode {
 public:
  Binary(BinaryOp op, ExprPtr a, ExprPtr b) : op_(op), a_(std::move(a)), b_(std::move(b)) {}
  Scalar eval(Frame& frame) const override {
    const Scalar x = a_->eval(frame);
    if (op_ == BinaryOp::kAnd && !x.truthy()) return Scalar::of_int(DataType::Bool(), 0);
    if (op_ == BinaryOp::kOr && x.truthy()) return Scalar::of_int(DataType::Bool(), 1);
    return apply_binary(op_, x, b_->eval(frame));
  }

 private:
  BinaryOp op_;
  ExprPtr a_, b_;
};

/// int32 index arithmetic that cannot fail: + - * wrap as apply_binary's do.
class Int32Arithmetic : public ExprCode {
 public:
  Int32Arithmetic(BinaryOp op, ExprPtr a, ExprPtr b) : op_(op), a_(std::move(a)), b_(std::move(b)) {}
  Scalar eval(Frame& frame) const override {
    const uint32_t x = static_cast<uint32_t>(a_->eval(frame).i), y = static_cast<uint32_t>(b_->eval(frame).i);
    Scalar r;
    r.dtype = DataType::Int(32);
    r.i = static_cast<int32_t>(op_ == BinaryOp::kAdd ? x + y : op_ == BinaryOp::kSub ? x - y : x * y);
    return r;
  }

 private:
  BinaryOp op_;
  ExprPtr a_, b_;
};

/// float32 + - * /: in float, as apply_binary's float_op.
class Float32Arithmetic : public ExprCode {
 public:
  Float32Arithmetic(BinaryOp op, ExprPtr a, ExprPtr b) : op_(op), a_(std::move(a)), b_(std::move(b)) {}
  Scalar eval(Frame& frame) const override {
    const float x = static_cast<float>(a_->eval(frame).f), y = static_cast<float>(b_->eval(frame).f);
    Scalar r;
    r.dtype = DataType::Float(32);
    switch (op_) {
      case BinaryOp::kAdd: r.f = x + y; break;
      case BinaryOp::kSub: r.f = x - y; break;
      case BinaryOp::kMul: r.f = x * y; break;
      default: r.f = x / y; break;
    }
    return r;
  }

 private:
  BinaryOp op_;
  ExprPtr a_, b_;
};

/// Only the chosen operand is evaluated.
class Choice : public ExprCode {
 public:
  Choice(ExprPtr cond, ExprPtr then_value, ExprPtr else_value)
      : cond_(std::move(cond)), then_(std::move(then_value)), else_(std::move(else_value)) {}
  Scalar eval(Frame& frame) const override {
    return cond_->eval(frame).truthy() ? then_->eval(frame) : else_->eval(frame);
  }

 private:
  ExprPtr cond_, then_, else_;
};

class Conversion : public ExprCode {
 public:
  Conversion(DataType dtype, ExprPtr value) : dtype_(dtype), value_(std::move(value)) {}
  Scalar eval(Frame& frame) const override { return cast_scalar(dtype_, value_->eval(frame)); }

 private:
  DataType dtype_;
  ExprPtr value_;
};

class IntrinsicCall : public ExprCode {
 public:
  IntrinsicCall(Intrinsic op, std::vector<ExprPtr> args) : op_(op), args_(std::move(args)) {}
  Scalar eval(Frame& frame) const override {
    Scalar values[2];  // the intrinsics take one or two arguments
    WEFT_ICHECK(args_.size() <= 2, "an intrinsic of more than two arguments");
    for (size_t i = 0; i < args_.size(); ++i) values[i] = args_[i]->eval(frame);
    return apply_intrinsic(op_, std::span<const Scalar>(values, args_.size()));
  }

 private:
  Intrinsic op_;
  std::vector<ExprPtr> args_;
};

/// One index of an access, with its axis's extent and stride: a variable's
/// slot (most indices are one), or an expression.
struct IndexCode {
  size_t slot = 0;
  ExprPtr expr;
  int64_t extent = 0, stride = 0;
};

/// The element offset of buffer[indices], each index checked against its
/// axis: the bounds check proved it, so a failure is a hole in that proof.
class Access {
 public:
  Access(const Buffer& buffer, size_t slot, std::vector<IndexCode> indices)
      : buffer_(buffer), slot_(slot), indices_(std::move(indices)) {}
  char* base(Frame& frame) const { return frame.buffers[slot_]; }
  DataType dtype() const { return buffer_->dtype; }
  int64_t offset(Frame& frame) const {
    int64_t off = 0;
    const Scalar* vars = frame.vars.data();
    for (const IndexCode& index : indices_) {
      const int64_t i = index.expr ? index.expr->eval(frame).i : vars[index.slot].i;
      if (i < 0 || i >= index.extent) out_of_bounds(i, &index - indices_.data());
      off += i * index.stride;
    }
    return off;
  }

 private:
  [[noreturn]] void out_of_bounds(int64_t i, ptrdiff_t axis) const {
    throw InternalError(__FILE__, __LINE__,
                        "index " + std::to_string(i) + " of buffer '" + buffer_->name + "' axis " +
                            std::to_string(axis) + " is out of bounds: the bounds check let it through");
  }

  Buffer buffer_;
  size_t slot_;
  std::vector<IndexCode> indices_;
};

class Load : public ExprCode {
 public:
  explicit Load(Access access) : access_(std::move(access)) {}
  Scalar eval(Frame& frame) const override {
    return read_element(access_.base(frame), access_.dtype(), access_.offset(frame));
  }

 private:
  Access access_;
};

/// A float32 load without read_element's dispatch on the dtype.
class Float32Load : public ExprCode {
 public:
  explicit Float32Load(Access access) : access_(std::move(access)) {}
  Scalar eval(Frame& frame) const override {
    Scalar r;
    r.dtype = DataType::Float(32);
    r.f = load_as<float>(access_.base(frame) + access_.offset(frame) * static_cast<int64_t>(sizeof(float)));
    return r;
  }

 private:
  Access access_;
};

class Loop : public StmtCode {
 public:
  Loop(size_t slot, DataType dtype, int64_t min, int64_t extent, StmtPtr body)
      : slot_(slot), dtype_(dtype), min_(min), extent_(extent), body_(std::move(body)) {}
  void run(Frame& frame) const override {
    // Every loop kind computes what the serial loop does.
    Scalar index;  // loop bounds lie within the variable's dtype: nothing to wrap
    index.dtype = dtype_;
    for (int64_t i = min_; i < min_ + extent_; ++i) {
      index.i = i;
      frame.vars[slot_] = index;
      body_->run(frame);
    }
  }

 private:
  size_t slot_;
  DataType dtype_;
  int64_t min_, extent_;
  StmtPtr body_;
};

class Store : public StmtCode {
 public:
  Store(Access access, ExprPtr value)
      : access_(std::move(access)), value_(std::move(value)), float32_(access_.dtype() == DataType::Float(32)) {}
  void run(Frame& frame) const override {
    const Scalar v = value_->eval(frame);
    if (float32_) {
      store_as(access_.base(frame) + access_.offset(frame) * static_cast<int64_t>(sizeof(float)), static_cast<float>(v.f));
      return;
    }
    write_element(access_.base(frame), access_.dtype(), access_.offset(frame), v);
  }

 private:
  Access access_;
  ExprPtr value_;
  bool float32_;  // stored without write_element's dispatch on the dtype
};

class Allocation : public StmtCode {
 public:
  Allocation(size_t slot, size_t bytes, StmtPtr body) : slot_(slot), bytes_(bytes), body_(std::move(body)) {}
  void run(Frame& frame) const override {
    std::vector<char> scratch(bytes_);
    frame.buffers[slot_] = scratch.data();
    body_->run(frame);
    frame.buffers[slot_] = nullptr;
  }

 private:
  size_t slot_, bytes_;
  StmtPtr body_;
};

class Branch : public StmtCode {
 public:
  Branch(ExprPtr cond, StmtPtr then_case, StmtPtr else_case)
      : cond_(std::move(cond)), then_(std::move(then_case)), else_(std::move(else_case)) {}
  void run(Frame& frame) const override {
    if (cond_->eval(frame).truthy()) then_->run(frame);
    else if (else_) else_->run(frame);
  }

 private:
  ExprPtr cond_;
  StmtPtr then_, else_;
};

class Binding : public StmtCode {
 public:
  Binding(size_t slot, ExprPtr value, StmtPtr body) : slot_(slot), value_(std::move(value)), body_(std::move(body)) {}
  void run(Frame& frame) const override {
    frame.vars[slot_] = value_->eval(frame);
    body_->run(frame);
  }

 private:
  size_t slot_;
  ExprPtr value_;
  StmtPtr body_;
};

class Sequence : public StmtCode {
 public:
  explicit Sequence(std::vector<StmtPtr> stmts) : stmts_(std::move(stmts)) {}
  void run(Frame& frame) const override {
    for (const StmtPtr& s : stmts_) s->run(frame);
  }

 private:
  std::vector<StmtPtr> stmts_;
};

/// A lowered function as closures, with the number of slots a run needs.
class Compiler {
 public:
  size_t add_buffer(const Buffer& b) { return buffer_slots_.emplace(b.get(), buffer_slots_.size()).first->second; }
  size_t num_vars() const { return var_slots_.size(); }
  size_t num_buffers() const { return buffer_slots_.size(); }

  StmtPtr stmt(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kFor: {
        const auto& f = *static_cast<const ForNode*>(s.get());
        const size_t slot = bind(f.var);
        return std::make_unique<Loop>(slot, f.var->dtype, f.min, f.extent, stmt(f.body));
      }
      case StmtKind::kStore: {
        const auto& st = *static_cast<const BufferStoreNode*>(s.get());
        return std::make_unique<Store>(access(st.buffer, st.indices), expr(st.value));
      }
      case StmtKind::kAllocate: {
        const auto& a = *static_cast<const AllocateNode*>(s.get());
        const size_t slot = add_buffer(a.buffer);
        const size_t bytes = static_cast<size_t>(a.buffer->storage_elements()) * a.buffer->dtype.bytes();
        return std::make_unique<Allocation>(slot, bytes, stmt(a.body));
      }
      case StmtKind::kIfThenElse: {
        const auto& i = *static_cast<const IfThenElseNode*>(s.get());
        return std::make_unique<Branch>(expr(i.cond), stmt(i.then_case), i.else_case ? stmt(i.else_case) : nullptr);
      }
      case StmtKind::kLet: {
        const auto& l = *static_cast<const LetStmtNode*>(s.get());
        ExprPtr value = expr(l.value);  // before the variable is bound: the value cannot read it
        const size_t slot = bind(l.var);
        return std::make_unique<Binding>(slot, std::move(value), stmt(l.body));
      }
      case StmtKind::kSeq: {
        std::vector<StmtPtr> stmts;
        for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->stmts) stmts.push_back(stmt(c));
        return std::make_unique<Sequence>(std::move(stmts));
      }
    }
    WEFT_ICHECK(false, "unknown statement kind");
  }

 private:
  size_t bind(const Var& v) { return var_slots_.emplace(v.get(), var_slots_.size()).first->second; }

  Access access(const Buffer& b, const std::vector<PrimExpr>& indices) {
    auto slot = buffer_slots_.find(b.get());
    WEFT_ICHECK(slot != buffer_slots_.end(), "buffer '" + b->name + "' used outside its allocation");
    std::vector<IndexCode> codes;
    for (size_t d = 0; d < indices.size(); ++d) {
      const PrimExpr& i = indices[d];
      IndexCode code;
      code.extent = b->shape[d];
      code.stride = b->strides[d];
      auto var = i->kind == PrimKind::kVar ? var_slots_.find(static_cast<const VarNode*>(i.get())) : var_slots_.end();
      if (var != var_slots_.end()) code.slot = var->second;
      else code.expr = expr(i);
      codes.push_back(std::move(code));
    }
    return Access(b, slot->second, std::move(codes));
  }

  ExprPtr expr(const PrimExpr& e) {
    switch (e->kind) {
      case PrimKind::kIntImm:
        return std::make_unique<Immediate>(Scalar::of_int(e.dtype(), static_cast<const IntImmNode*>(e.get())->value));
      case PrimKind::kFloatImm:
        return std::make_unique<Immediate>(
            Scalar::of_float(e.dtype(), static_cast<const FloatImmNode*>(e.get())->value));
      case PrimKind::kVar: {
        auto it = var_slots_.find(static_cast<const VarNode*>(e.get()));
        WEFT_ICHECK(it != var_slots_.end(), "variable '" + static_cast<const VarNode*>(e.get())->name + "' is unbound");
        return std::make_unique<VarRead>(it->second);
      }
      case PrimKind::kBinary: {
        const auto& b = *static_cast<const BinaryNode*>(e.get());
        const bool arithmetic = b.op == BinaryOp::kAdd || b.op == BinaryOp::kSub || b.op == BinaryOp::kMul;
        const DataType dt = b.a.dtype();
        if (dt == b.b.dtype() && dt == DataType::Int(32) && arithmetic)
          return std::make_unique<Int32Arithmetic>(b.op, expr(b.a), expr(b.b));
        if (dt == b.b.dtype() && dt == DataType::Float(32) && (arithmetic || b.op == BinaryOp::kDiv))
          return std::make_unique<Float32Arithmetic>(b.op, expr(b.a), expr(b.b));
        return std::make_unique<Binary>(b.op, expr(b.a), expr(b.b));
      }
      case PrimKind::kSelect: {
        const auto& s = *static_cast<const SelectNode*>(e.get());
        return std::make_unique<Choice>(expr(s.cond), expr(s.then_value), expr(s.else_value));
      }
      case PrimKind::kCast:
        return std::make_unique<Conversion>(e.dtype(), expr(static_cast<const CastNode*>(e.get())->value));
      case PrimKind::kCall: {
        const auto& c = *static_cast<const CallNode*>(e.get());
        std::vector<ExprPtr> args;
        for (const PrimExpr& a : c.args) args.push_back(expr(a));
        return std::make_unique<IntrinsicCall>(c.op, std::move(args));
      }
      case PrimKind::kBufferLoad: {
        const auto& l = *static_cast<const BufferLoadNode*>(e.get());
        if (l.buffer->dtype == DataType::Float(32)) return std::make_unique<Float32Load>(access(l.buffer, l.indices));
        return std::make_unique<Load>(access(l.buffer, l.indices));
      }
      case PrimKind::kTensorRead:
      case PrimKind::kReduce: break;
    }
    WEFT_ICHECK(false, "a TE-only expression in lowered code");
  }

  std::unordered_map<const VarNode*, size_t> var_slots_;
  std::unordered_map<const BufferNode*, size_t> buffer_slots_;
};

void bind(Frame& frame, size_t slot, const Buffer& b, const weft::Tensor& t, const char* role) {
  if (!t.defined() || t.dtype() != b->dtype || t.shape() != b->shape) {
    throw Error(std::string("evaluate: ") + role + " '" + b->name + "' given " +
                (t.defined() ? describe(t) : std::string("no tensor")))
        .expected(b->dtype.str() + " of shape " + print_shape(b->shape));
  }
  WEFT_ICHECK(b->storage_elements() <= t.numel(), "buffer strides reach past the tensor");
  frame.buffers[slot] = static_cast<char*>(t.data());
}

}  // namespace

void evaluate(const LoweredFunc& f, const std::vector<weft::Tensor>& inputs, const std::vector<weft::Tensor>& outputs) {
  if (inputs.size() != f.inputs.size() || outputs.size() != f.outputs.size()) {
    throw Error("evaluate: '" + f.name + "' given " + std::to_string(inputs.size()) + " inputs and " +
                std::to_string(outputs.size()) + " outputs")
        .expected(std::to_string(f.inputs.size()) + " and " + std::to_string(f.outputs.size()));
  }
  Compiler compiler;
  std::vector<size_t> input_slots, output_slots;
  for (const Buffer& b : f.inputs) input_slots.push_back(compiler.add_buffer(b));
  for (const Buffer& b : f.outputs) output_slots.push_back(compiler.add_buffer(b));
  StmtPtr body = compiler.stmt(f.body);
  Frame frame;
  frame.vars.resize(compiler.num_vars());
  frame.buffers.resize(compiler.num_buffers(), nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) bind(frame, input_slots[i], f.inputs[i], inputs[i], "input");
  for (size_t i = 0; i < outputs.size(); ++i) bind(frame, output_slots[i], f.outputs[i], outputs[i], "output");
  body->run(frame);
}

std::vector<weft::Tensor> evaluate(const LoweredFunc& f, const std::vector<weft::Tensor>& inputs) {
  std::vector<weft::Tensor> outputs;
  for (const Buffer& b : f.outputs) outputs.push_back(weft::Tensor::zeros(b->shape, b->dtype));
  evaluate(f, inputs, outputs);
  return outputs;
}

}  // namespace weft::te

#include "weft/te/evaluate.h"

#include <cmath>
#include <cstring>
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

class Evaluator {
 public:
  void bind(const Buffer& b, const weft::Tensor& t, const char* role) {
    if (!t.defined() || t.dtype() != b->dtype || t.shape() != b->shape) {
      throw Error(std::string("evaluate: ") + role + " '" + b->name + "' given " +
                  (t.defined() ? describe(t) : std::string("no tensor")))
          .expected(b->dtype.str() + " of shape " + print_shape(b->shape));
    }
    WEFT_ICHECK(b->storage_elements() <= t.numel(), "buffer strides reach past the tensor");
    storage_[b.get()] = static_cast<char*>(t.data());
  }

  void run(const Stmt& s) {
    switch (s->kind) {
      case StmtKind::kFor: {
        const auto& f = *static_cast<const ForNode*>(s.get());
        // Every loop kind computes what the serial loop does.
        for (int64_t i = f.min; i < f.min + f.extent; ++i) {
          vars_[f.var.get()] = Scalar::of_int(f.var->dtype, i);
          run(f.body);
        }
        vars_.erase(f.var.get());
        return;
      }
      case StmtKind::kStore: {
        const auto& st = *static_cast<const BufferStoreNode*>(s.get());
        const Scalar v = eval(st.value);
        write_element(storage(st.buffer), st.buffer->dtype, offset(st.buffer, st.indices), v);
        return;
      }
      case StmtKind::kAllocate: {
        const auto& a = *static_cast<const AllocateNode*>(s.get());
        std::vector<char> scratch(static_cast<size_t>(a.buffer->storage_elements()) * a.buffer->dtype.bytes());
        storage_[a.buffer.get()] = scratch.data();
        run(a.body);
        storage_.erase(a.buffer.get());
        return;
      }
      case StmtKind::kIfThenElse: {
        const auto& i = *static_cast<const IfThenElseNode*>(s.get());
        if (eval(i.cond).truthy()) run(i.then_case);
        else if (i.else_case) run(i.else_case);
        return;
      }
      case StmtKind::kLet: {
        const auto& l = *static_cast<const LetStmtNode*>(s.get());
        vars_[l.var.get()] = eval(l.value);
        run(l.body);
        vars_.erase(l.var.get());
        return;
      }
      case StmtKind::kSeq:
        for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->stmts) run(c);
        return;
    }
  }

 private:
  char* storage(const Buffer& b) {
    auto it = storage_.find(b.get());
    WEFT_ICHECK(it != storage_.end(), "buffer '" + b->name + "' used outside its allocation");
    return it->second;
  }

  int64_t offset(const Buffer& b, const std::vector<PrimExpr>& indices) {
    int64_t off = 0;
    for (size_t d = 0; d < indices.size(); ++d) {
      const int64_t i = eval(indices[d]).i;
      // The bounds check proved this; a failure here is a hole in that proof.
      WEFT_ICHECK(i >= 0 && i < b->shape[d], "index " + std::to_string(i) + " of buffer '" + b->name + "' axis " +
                                                 std::to_string(d) + " is out of bounds");
      off += i * b->strides[d];
    }
    return off;
  }

  Scalar eval(const PrimExpr& e) {
    switch (e->kind) {
      case PrimKind::kIntImm: return Scalar::of_int(e.dtype(), static_cast<const IntImmNode*>(e.get())->value);
      case PrimKind::kFloatImm: return Scalar::of_float(e.dtype(), static_cast<const FloatImmNode*>(e.get())->value);
      case PrimKind::kVar: {
        auto it = vars_.find(static_cast<const VarNode*>(e.get()));
        WEFT_ICHECK(it != vars_.end(), "variable '" + static_cast<const VarNode*>(e.get())->name + "' is unbound");
        return it->second;
      }
      case PrimKind::kBinary: {
        const auto& b = *static_cast<const BinaryNode*>(e.get());
        const Scalar x = eval(b.a);
        // && and || short-circuit, as a guard on a load needs.
        if (b.op == BinaryOp::kAnd && !x.truthy()) return Scalar::of_int(DataType::Bool(), 0);
        if (b.op == BinaryOp::kOr && x.truthy()) return Scalar::of_int(DataType::Bool(), 1);
        return apply_binary(b.op, x, eval(b.b));
      }
      case PrimKind::kSelect: {
        const auto& s = *static_cast<const SelectNode*>(e.get());
        return eval(s.cond).truthy() ? eval(s.then_value) : eval(s.else_value);
      }
      case PrimKind::kCast: return cast_scalar(e.dtype(), eval(static_cast<const CastNode*>(e.get())->value));
      case PrimKind::kCall: {
        std::vector<Scalar> args;
        for (const PrimExpr& a : static_cast<const CallNode*>(e.get())->args) args.push_back(eval(a));
        return apply_intrinsic(static_cast<const CallNode*>(e.get())->op, args);
      }
      case PrimKind::kBufferLoad: {
        const auto& l = *static_cast<const BufferLoadNode*>(e.get());
        return read_element(storage(l.buffer), l.buffer->dtype, offset(l.buffer, l.indices));
      }
      case PrimKind::kTensorRead:
      case PrimKind::kReduce: break;
    }
    WEFT_ICHECK(false, "a TE-only expression in lowered code");
  }

  std::unordered_map<const BufferNode*, char*> storage_;
  std::unordered_map<const VarNode*, Scalar> vars_;
};

}  // namespace

void evaluate(const LoweredFunc& f, const std::vector<weft::Tensor>& inputs, const std::vector<weft::Tensor>& outputs) {
  if (inputs.size() != f.inputs.size() || outputs.size() != f.outputs.size()) {
    throw Error("evaluate: '" + f.name + "' given " + std::to_string(inputs.size()) + " inputs and " +
                std::to_string(outputs.size()) + " outputs")
        .expected(std::to_string(f.inputs.size()) + " and " + std::to_string(f.outputs.size()));
  }
  Evaluator ev;
  for (size_t i = 0; i < inputs.size(); ++i) ev.bind(f.inputs[i], inputs[i], "input");
  for (size_t i = 0; i < outputs.size(); ++i) ev.bind(f.outputs[i], outputs[i], "output");
  ev.run(f.body);
}

std::vector<weft::Tensor> evaluate(const LoweredFunc& f, const std::vector<weft::Tensor>& inputs) {
  std::vector<weft::Tensor> outputs;
  for (const Buffer& b : f.outputs) outputs.push_back(weft::Tensor::zeros(b->shape, b->dtype));
  evaluate(f, inputs, outputs);
  return outputs;
}

}  // namespace weft::te

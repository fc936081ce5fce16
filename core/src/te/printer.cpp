#include "weft/te/printer.h"

#include <cstdio>
#include <unordered_map>
#include <unordered_set>

namespace weft::te {
namespace {

/// Names unique within one print.
class NameTable {
 public:
  const std::string& name(const void* node, const std::string& hint) {
    auto it = names_.find(node);
    if (it != names_.end()) return it->second;
    std::string n = hint.empty() ? "v" : hint;
    for (int suffix = 1; used_.count(n); ++suffix) n = (hint.empty() ? "v" : hint) + "_" + std::to_string(suffix);
    used_.insert(n);
    return names_.emplace(node, n).first->second;
  }

 private:
  std::unordered_map<const void*, std::string> names_;
  std::unordered_set<std::string> used_;
};

int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return 1;
    case BinaryOp::kAnd: return 2;
    case BinaryOp::kEq:
    case BinaryOp::kNe: return 3;
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: return 4;
    case BinaryOp::kAdd:
    case BinaryOp::kSub: return 5;
    case BinaryOp::kMul:
    case BinaryOp::kDiv: return 6;
    default: return 0;  // printed as a call
  }
}

std::string float_text(double v, DataType dt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, dt.bits == 64 ? "%.17g" : "%.9g", v);
  std::string s = buf;
  if (dt.code == DataType::kBFloat) return s + "bf16";
  return s + (dt.bits == 32 ? "f" : "f" + std::to_string(dt.bits));
}

std::string int_text(int64_t v, DataType dt) {
  if (dt.is_bool()) return v ? "true" : "false";
  if (dt == DataType::Int(32)) return std::to_string(v);
  return dt.str() + "(" + std::to_string(v) + ")";
}

class Printer {
 public:
  std::string expr(const PrimExpr& e, int parent_precedence = 0) {
    switch (e->kind) {
      case PrimKind::kIntImm: return int_text(static_cast<const IntImmNode*>(e.get())->value, e.dtype());
      case PrimKind::kFloatImm: return float_text(static_cast<const FloatImmNode*>(e.get())->value, e.dtype());
      case PrimKind::kVar: return var(static_cast<const VarNode*>(e.get()));
      case PrimKind::kBinary: return binary(*static_cast<const BinaryNode*>(e.get()), parent_precedence);
      case PrimKind::kSelect: {
        const auto& s = *static_cast<const SelectNode*>(e.get());
        return "select(" + expr(s.cond) + ", " + expr(s.then_value) + ", " + expr(s.else_value) + ")";
      }
      case PrimKind::kCast: return e.dtype().str() + "(" + expr(static_cast<const CastNode*>(e.get())->value) + ")";
      case PrimKind::kCall: {
        const auto& c = *static_cast<const CallNode*>(e.get());
        return std::string(intrinsic_name(c.op)) + "(" + list(c.args) + ")";
      }
      case PrimKind::kTensorRead: {
        const auto& r = *static_cast<const TensorReadNode*>(e.get());
        return tensor(r.tensor) + "[" + list(r.indices) + "]";
      }
      case PrimKind::kBufferLoad: {
        const auto& l = *static_cast<const BufferLoadNode*>(e.get());
        return buffer(l.buffer) + "[" + list(l.indices) + "]";
      }
      case PrimKind::kReduce: return reduce(*static_cast<const ReduceNode*>(e.get()));
    }
    return "?";
  }

  std::string list(const std::vector<PrimExpr>& items) {
    std::string s;
    for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + expr(items[i]);
    return s;
  }

  std::string var(const VarNode* v) { return names_.name(v, v->name); }
  std::string buffer(const Buffer& b) { return names_.name(b.get(), b->name); }
  std::string tensor(const Tensor& t) {
    const std::string& op = names_.name(t->op.get(), t->op->name);
    return t->op->num_outputs() == 1 ? op : op + "." + std::to_string(t->value_index);
  }

  /// The definitions of the custom reducers printed so far, one per line.
  std::string take_reducer_lines() { return std::exchange(reducer_lines_, std::string()); }

  void stmt(const Stmt& s, int depth, std::string& out) {
    const std::string pad(static_cast<size_t>(depth) * 2, ' ');
    switch (s->kind) {
      case StmtKind::kFor: {
        const auto& f = *static_cast<const ForNode*>(s.get());
        std::string kind = f.for_kind == ForKind::kSerial ? "" : std::string(for_kind_name(f.for_kind)) + " ";
        out += pad + kind + "for " + var(f.var.get()) + " in " + range(f.min, f.extent) + ":\n";
        stmt(f.body, depth + 1, out);
        return;
      }
      case StmtKind::kStore: {
        const auto& st = *static_cast<const BufferStoreNode*>(s.get());
        out += pad + buffer(st.buffer) + "[" + list(st.indices) + "] = " + expr(st.value) + "\n";
        return;
      }
      case StmtKind::kAllocate: {
        const auto& a = *static_cast<const AllocateNode*>(s.get());
        out += pad + "allocate " + buffer(a.buffer) + print_shape(a.buffer->shape) + " " + a.buffer->dtype.str() + "\n";
        stmt(a.body, depth, out);
        return;
      }
      case StmtKind::kIfThenElse: {
        const auto& i = *static_cast<const IfThenElseNode*>(s.get());
        out += pad + "if " + expr(i.cond) + ":\n";
        stmt(i.then_case, depth + 1, out);
        if (i.else_case) {
          out += pad + "else:\n";
          stmt(i.else_case, depth + 1, out);
        }
        return;
      }
      case StmtKind::kLet: {
        const auto& l = *static_cast<const LetStmtNode*>(s.get());
        out += pad + var(l.var.get()) + " = " + expr(l.value) + "\n";
        stmt(l.body, depth, out);
        return;
      }
      case StmtKind::kSeq:
        for (const Stmt& c : static_cast<const SeqStmtNode*>(s.get())->stmts) stmt(c, depth, out);
        return;
    }
  }

 private:
  static std::string range(int64_t min, int64_t extent) {
    return min == 0 ? "range(" + std::to_string(extent) + ")"
                    : "range(" + std::to_string(min) + ", " + std::to_string(min + extent) + ")";
  }

  std::string binary(const BinaryNode& b, int parent_precedence) {
    const int p = precedence(b.op);
    if (p == 0) return std::string(binary_op_name(b.op)) + "(" + expr(b.a) + ", " + expr(b.b) + ")";
    // The right operand binds tighter: a - (b - c) keeps its parentheses.
    std::string s = expr(b.a, p) + " " + std::string(binary_op_name(b.op)) + " " + expr(b.b, p + 1);
    return p < parent_precedence ? "(" + s + ")" : s;
  }

  std::string reduce(const ReduceNode& r) {
    const std::string& name = r.combiner->name;
    const bool builtin = r.source.size() == 1 && (name == "sum" || name == "max" || name == "min" || name == "prod");
    std::string s = builtin ? name : reducer(r.combiner) + "." + std::to_string(r.value_index);
    s += "(" + list(r.source) + ", axis=[";
    for (size_t i = 0; i < r.axis.size(); ++i) {
      const IterVar& iv = r.axis[i];
      s += (i ? ", " : "") + var(iv->var.get()) + ": " +
           (iv->min == 0 ? std::to_string(iv->extent) : range(iv->min, iv->extent));
    }
    s += "]";
    if (!as_int_imm(r.condition)) s += ", where=" + expr(r.condition);
    return s + ")";
  }

  /// A custom reducer's name; its definition goes to reducer_lines_ once.
  std::string reducer(const CommReducer& c) {
    const bool first = !printed_reducers_.count(c.get());
    const std::string name = names_.name(c.get(), c->name);
    if (!first) return name;
    printed_reducers_.insert(c.get());
    std::string lhs, rhs, identity;
    for (size_t i = 0; i < c->lhs.size(); ++i) {
      lhs += (i ? ", " : "") + var(c->lhs[i].get());
      rhs += (i ? ", " : "") + var(c->rhs[i].get());
    }
    reducer_lines_ += "reducer " + name + "((" + lhs + "), (" + rhs + ")) = (" + list(c->result) +
                      "), identity (" + list(c->identity) + ")\n";
    return name;
  }

  NameTable names_;
  std::unordered_set<const void*> printed_reducers_;
  std::string reducer_lines_;
};

}  // namespace

std::string print_shape(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

std::string print(const PrimExpr& e) {
  if (!e) return "(undefined)";
  Printer p;
  std::string body = p.expr(e);
  return p.take_reducer_lines() + body;
}

std::string print(const std::vector<Tensor>& outputs) {
  Printer p;
  std::string out;
  for (const Operation& op : collect_operations(outputs)) {
    if (op->kind == OpKind::kPlaceholder) {
      const auto& ph = *static_cast<const PlaceholderOpNode*>(op.get());
      out += p.tensor(op->output(0)) + " = placeholder(" + print_shape(ph.shape) + ", " + ph.dtype.str() + ")\n";
      continue;
    }
    const auto& c = *static_cast<const ComputeOpNode*>(op.get());
    std::string lhs, axes, bodies;
    std::vector<int64_t> shape;
    for (int i = 0; i < op->num_outputs(); ++i) lhs += (i ? ", " : "") + p.tensor(op->output(i));
    for (size_t d = 0; d < c.axis.size(); ++d) {
      axes += (d ? ", " : "") + p.var(c.axis[d]->var.get());
      shape.push_back(c.axis[d]->extent);
    }
    bodies = c.body.size() == 1 ? p.expr(c.body[0]) : "(" + p.list(c.body) + ")";
    out += p.take_reducer_lines() + lhs + " = compute(" + print_shape(shape) + ", [" + axes + "]): " + bodies + "\n";
  }
  return out;
}

std::string print(const Stmt& s) {
  if (!s) return "(undefined)\n";
  Printer p;
  std::string out;
  p.stmt(s, 0, out);
  return out;
}

std::string print(const LoweredFunc& f) {
  Printer p;
  std::string out = "func " + f.name + "(";
  bool first = true;
  for (const auto* group : {&f.inputs, &f.outputs}) {
    for (const Buffer& b : *group) {
      out += (first ? "" : ", ") + p.buffer(b) + ": " + b->dtype.str() + print_shape(b->shape);
      first = false;
    }
  }
  out += ")\n";
  p.stmt(f.body, 1, out);
  return out;
}

}  // namespace weft::te

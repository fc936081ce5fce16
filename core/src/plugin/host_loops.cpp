// Host functions of plugin.h for loop programs (ABI 1.10): a fused group's
// TE lowered under the default schedules and flattened into the C tables a
// code-generating target walks (weft_loop_program_t). The tables are built
// once per group from the lowered loop IR; nothing in them refers back to
// core objects but the constants' tensors, which the program keeps alive.
#include <algorithm>
#include <cstring>
#include <tuple>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "host_tables.h"
#include "weft/functor.h"
#include "weft/te/bounds_check.h"
#include "weft/te/default_schedule.h"
#include "weft/te/function_te.h"
#include "weft/te/lower.h"
#include "weft/te/printer.h"

namespace weft::plugin_host {

namespace {

int32_t abi_intrinsic(te::Intrinsic op) {
  switch (op) {
    case te::Intrinsic::kNeg: return WEFT_TE_NEG;
    case te::Intrinsic::kAbs: return WEFT_TE_ABS;
    case te::Intrinsic::kExp: return WEFT_TE_EXP;
    case te::Intrinsic::kLog: return WEFT_TE_LOG;
    case te::Intrinsic::kTanh: return WEFT_TE_TANH;
    case te::Intrinsic::kErf: return WEFT_TE_ERF;
    case te::Intrinsic::kSqrt: return WEFT_TE_SQRT;
    case te::Intrinsic::kRsqrt: return WEFT_TE_RSQRT;
    case te::Intrinsic::kSigmoid: return WEFT_TE_SIGMOID;
    case te::Intrinsic::kFloor: return WEFT_TE_FLOOR;
    case te::Intrinsic::kCeil: return WEFT_TE_CEIL;
    case te::Intrinsic::kRound: return WEFT_TE_ROUND;
    case te::Intrinsic::kPow: return WEFT_TE_POW;
    case te::Intrinsic::kTrunc: return WEFT_TE_TRUNC;
    case te::Intrinsic::kFmod: return WEFT_TE_FMOD;
  }
  WEFT_ICHECK(false, "an intrinsic without an ABI value");
}

// The ABI's binary operators are the core's, value for value.
static_assert(static_cast<int>(te::BinaryOp::kAdd) == WEFT_TE_ADD && static_cast<int>(te::BinaryOp::kOr) == WEFT_TE_OR &&
              static_cast<int>(te::BinaryOp::kFloorMod) == WEFT_TE_FLOORMOD &&
              static_cast<int>(te::BinaryOp::kGe) == WEFT_TE_GE);
static_assert(static_cast<int>(te::ForKind::kSerial) == WEFT_LOOP_SERIAL &&
              static_cast<int>(te::ForKind::kParallel) == WEFT_LOOP_PARALLEL &&
              static_cast<int>(te::ForKind::kVectorized) == WEFT_LOOP_VECTORIZED &&
              static_cast<int>(te::ForKind::kUnrolled) == WEFT_LOOP_UNROLLED);

/// The storage a program's tables point into.
struct LoopProgram {
  std::string name, text;
  std::vector<weft_loop_node_t> nodes;
  std::vector<std::vector<int32_t>> operands;  // per node
  std::vector<weft_loop_var_t> vars;
  std::vector<std::string> var_names;
  std::vector<weft_loop_buffer_t> buffers;
  std::vector<std::string> buffer_names;
  std::vector<Tensor> constants;     // per buffer; empty where not a constant
  std::vector<DLTensor> constant_views;  // per buffer
  std::vector<te::Buffer> buffers_alive;  // the buffers' shapes and strides live in their nodes
};

/// What the host hands out: the C struct first (so a pointer to it is a
/// pointer to the box, which is standard-layout) and its storage.
struct ProgramBox {
  weft_loop_program_t c;
  LoopProgram* storage;
};
static_assert(std::is_standard_layout_v<ProgramBox>);

/// Flattens a lowered function into a LoopProgram's tables, children first.
class Flattener {
 public:
  Flattener(LoopProgram& p, std::unordered_set<const te::SelectNode*> speculatable)
      : p_(p), speculatable_(std::move(speculatable)) {}

  int32_t buffer(const te::Buffer& b, weft_loop_buffer_role_t role, int32_t arg, Tensor data = Tensor()) {
    auto [it, fresh] = buffers_.emplace(b.get(), static_cast<int32_t>(p_.buffers.size()));
    if (!fresh) return it->second;
    weft_loop_buffer_t c{};
    c.struct_size = sizeof c;
    c.dtype = to_dl(b->dtype);
    c.ndim = b->shape.size();
    c.num_elements = b->storage_elements();
    c.role = role;
    c.arg = arg;
    p_.buffers.push_back(c);
    p_.buffer_names.push_back(b->name);
    p_.constants.push_back(std::move(data));
    shapes_.push_back(b.get());
    return it->second;
  }

  int32_t stmt(const te::Stmt& s) {
    weft_loop_node_t n = blank();
    std::vector<int32_t> ops;
    switch (s->kind) {
      case te::StmtKind::kFor: {
        const auto& f = static_cast<const te::ForNode&>(*s);
        n.kind = WEFT_LOOP_FOR;
        n.var = var(f.var);
        n.int_value = f.min;
        n.extent = f.extent;
        n.op = static_cast<int32_t>(f.for_kind);
        ops = {stmt(f.body)};
        break;
      }
      case te::StmtKind::kStore: {
        const auto& st = static_cast<const te::BufferStoreNode&>(*s);
        n.kind = WEFT_LOOP_STORE;
        n.buffer = known_buffer(st.buffer);
        ops.push_back(expr(st.value));
        for (const te::PrimExpr& i : st.indices) ops.push_back(expr(i));
        break;
      }
      case te::StmtKind::kAllocate: {
        const auto& a = static_cast<const te::AllocateNode&>(*s);
        n.kind = WEFT_LOOP_ALLOCATE;
        n.buffer = buffer(a.buffer, WEFT_LOOP_BUFFER_SCRATCH, -1);
        ops = {stmt(a.body)};
        break;
      }
      case te::StmtKind::kIfThenElse: {
        const auto& i = static_cast<const te::IfThenElseNode&>(*s);
        n.kind = WEFT_LOOP_IF;
        ops = {expr(i.cond), stmt(i.then_case)};
        if (i.else_case) ops.push_back(stmt(i.else_case));
        break;
      }
      case te::StmtKind::kLet: {
        const auto& l = static_cast<const te::LetStmtNode&>(*s);
        n.kind = WEFT_LOOP_LET;
        n.var = var(l.var);
        ops = {expr(l.value), stmt(l.body)};
        break;
      }
      case te::StmtKind::kSeq: {
        n.kind = WEFT_LOOP_SEQ;
        for (const te::Stmt& c : static_cast<const te::SeqStmtNode&>(*s).stmts) ops.push_back(stmt(c));
        break;
      }
    }
    return add(n, std::move(ops));
  }

  /// Points every table at its storage (after the vectors stop growing).
  void finish() {
    for (size_t i = 0; i < p_.nodes.size(); ++i) {
      p_.nodes[i].operands = p_.operands[i].empty() ? nullptr : p_.operands[i].data();
      p_.nodes[i].num_operands = p_.operands[i].size();
    }
    for (size_t i = 0; i < p_.vars.size(); ++i) p_.vars[i].name = p_.var_names[i].c_str();
    p_.constant_views.resize(p_.buffers.size());
    for (size_t i = 0; i < p_.buffers.size(); ++i) {
      weft_loop_buffer_t& b = p_.buffers[i];
      b.name = p_.buffer_names[i].c_str();
      b.shape = shapes_[i]->shape.data();
      b.strides = shapes_[i]->strides.data();
      if (p_.constants[i].defined()) {
        p_.constant_views[i] = p_.constants[i].dlpack_view();
        b.data = &p_.constant_views[i];
      }
    }
  }

  /// The buffers' shapes live in their nodes; keep those alive with the program.
  std::vector<te::Buffer> kept_buffers() const {
    std::vector<te::Buffer> out;
    for (const te::BufferNode* b : shapes_) out.emplace_back(b);
    return out;
  }

 private:
  static weft_loop_node_t blank() {
    weft_loop_node_t n{};
    n.struct_size = sizeof n;
    n.var = n.buffer = -1;
    return n;
  }

  int32_t add(weft_loop_node_t n, std::vector<int32_t> ops) {
    p_.nodes.push_back(n);
    p_.operands.push_back(std::move(ops));
    return static_cast<int32_t>(p_.nodes.size() - 1);
  }

  int32_t var(const te::Var& v) {
    auto [it, fresh] = vars_.emplace(v.get(), static_cast<int32_t>(p_.vars.size()));
    if (fresh) {
      weft_loop_var_t c{};
      c.struct_size = sizeof c;
      c.dtype = to_dl(v->dtype);
      p_.vars.push_back(c);
      p_.var_names.push_back(v->name);
    }
    return it->second;
  }

  int32_t known_buffer(const te::Buffer& b) {
    auto it = buffers_.find(b.get());
    WEFT_ICHECK(it != buffers_.end(), "the loop IR accesses buffer " + b->name + ", which it neither takes nor allocates");
    return it->second;
  }

  int32_t expr(const te::PrimExpr& e) {
    if (auto it = exprs_.find(e.get()); it != exprs_.end()) return it->second;  // a shared subexpression
    weft_loop_node_t n = blank();
    n.dtype = to_dl(e.dtype());
    std::vector<int32_t> ops;
    switch (e->kind) {
      case te::PrimKind::kIntImm:
        n.kind = WEFT_LOOP_INT;
        n.int_value = static_cast<const te::IntImmNode&>(*e).value;
        break;
      case te::PrimKind::kFloatImm:
        n.kind = WEFT_LOOP_FLOAT;
        n.float_value = static_cast<const te::FloatImmNode&>(*e).value;
        break;
      case te::PrimKind::kVar:
        n.kind = WEFT_LOOP_VAR;
        n.var = var(te::Var(static_cast<const te::VarNode*>(e.get())));
        break;
      case te::PrimKind::kBinary: {
        const auto& b = static_cast<const te::BinaryNode&>(*e);
        n.kind = WEFT_LOOP_BINARY;
        n.op = static_cast<int32_t>(b.op);
        ops = {expr(b.a), expr(b.b)};
        break;
      }
      case te::PrimKind::kSelect: {
        const auto& s = static_cast<const te::SelectNode&>(*e);
        n.kind = WEFT_LOOP_SELECT;
        n.op = speculatable_.count(&s) ? 1 : 0;
        ops = {expr(s.cond), expr(s.then_value), expr(s.else_value)};
        break;
      }
      case te::PrimKind::kCast:
        n.kind = WEFT_LOOP_CAST;
        ops = {expr(static_cast<const te::CastNode&>(*e).value)};
        break;
      case te::PrimKind::kCall: {
        const auto& c = static_cast<const te::CallNode&>(*e);
        n.kind = WEFT_LOOP_CALL;
        n.op = abi_intrinsic(c.op);
        for (const te::PrimExpr& a : c.args) ops.push_back(expr(a));
        break;
      }
      case te::PrimKind::kBufferLoad: {
        const auto& l = static_cast<const te::BufferLoadNode&>(*e);
        n.kind = WEFT_LOOP_LOAD;
        n.buffer = known_buffer(l.buffer);
        for (const te::PrimExpr& i : l.indices) ops.push_back(expr(i));
        break;
      }
      case te::PrimKind::kTensorRead:
      case te::PrimKind::kReduce:
        WEFT_ICHECK(false, "a TE read or reduction survived lowering");
    }
    const int32_t index = add(n, std::move(ops));
    exprs_.emplace(e.get(), index);
    return index;
  }

  LoopProgram& p_;
  const std::unordered_set<const te::SelectNode*> speculatable_;
  std::unordered_map<const te::PrimExprNode*, int32_t> exprs_;
  std::unordered_map<const te::VarNode*, int32_t> vars_;
  std::unordered_map<const te::BufferNode*, int32_t> buffers_;
  std::vector<const te::BufferNode*> shapes_;  // per buffer
};

te::TargetTraits traits_of(const weft_target_traits_t* t) {
  te::TargetTraits traits;
  if (!t) return traits;
  // Fields an older plugin's smaller struct lacks read as zero (the default).
  weft_target_traits_t given{};
  std::memcpy(&given, t, std::min(t->struct_size, sizeof given));
  for (auto [value, into, name] : {std::tuple{given.vector_lanes, &traits.vector_lanes, "vector_lanes"},
                                   std::tuple{given.cores, &traits.cores, "cores"},
                                   std::tuple{given.vector_registers, &traits.vector_registers, "vector_registers"}}) {
    if (value < 0)
      throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                        std::string("target traits must not be negative: ") + name + " is " + std::to_string(value)};
    if (value > 0) *into = value;
  }
  traits.many_threads = given.many_threads != 0;
  return traits;
}

/// "fused_nn_conv2d_add_nn_relu": the group's ops in order, as TVM names its
/// fused functions, so code and profiles say which group they are.
std::string group_name(const Function& fn) {
  std::string name = "fused";
  post_order_visit(fn->body, [&](const Expr& e) {
    if (e->kind != ExprKind::kCall) return;
    if (auto op = downcast<CallNode>(e)->op.as<OpNode>()) name += "_" + op->name();
  });
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

const weft_loop_program_t* lower_to_program(const Function& primitive, const te::TargetTraits& traits) {
  te::FunctionTe group = te::function_te(primitive);
  te::Schedule schedule = te::default_schedule(group.outputs, traits);
  te::LoweredFunc f = te::lower(schedule, group_name(primitive), group.inputs());

  auto p = std::make_unique<LoopProgram>();
  Flattener flat(*p, te::speculatable_selects(f));
  const size_t num_params = group.params.size();
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    if (i < num_params) {
      flat.buffer(f.inputs[i], WEFT_LOOP_BUFFER_ARG, static_cast<int32_t>(i));
    } else {
      flat.buffer(f.inputs[i], WEFT_LOOP_BUFFER_CONSTANT, -1, group.constants[i - num_params].second);
    }
  }
  for (size_t j = 0; j < f.outputs.size(); ++j)
    flat.buffer(f.outputs[j], WEFT_LOOP_BUFFER_ARG, static_cast<int32_t>(num_params + j));
  const int32_t body = flat.stmt(f.body);
  flat.finish();
  p->buffers_alive = flat.kept_buffers();
  p->name = f.name;
  p->text = te::print(f);

  auto box = std::make_unique<ProgramBox>();
  weft_loop_program_t& c = box->c;
  c = weft_loop_program_t{};
  c.struct_size = sizeof c;
  c.name = p->name.c_str();
  c.nodes = p->nodes.data();
  c.num_nodes = p->nodes.size();
  c.vars = p->vars.empty() ? nullptr : p->vars.data();
  c.num_vars = p->vars.size();
  c.buffers = p->buffers.data();
  c.num_buffers = p->buffers.size();
  c.body = body;
  c.num_args = num_params + f.outputs.size();
  c.text = p->text.c_str();
  box->storage = p.release();
  return &box.release()->c;
}

weft_status_t te_call_supported(weft_expr_t* call, int* out) {
  return guard([&] {
    Expr e = expr_of(call);
    *out_param(out, "out_supported") = e->kind == ExprKind::kCall && te::has_te(downcast<CallNode>(e)) ? 1 : 0;
  });
}

weft_status_t loop_program_lower(weft_expr_t* primitive, const weft_target_traits_t* traits,
                                 const weft_loop_program_t** out) {
  return guard([&] {
    out_param(out, "out_program");
    Expr e = expr_of(primitive);
    if (e->kind != ExprKind::kFunction)
      throw StatusError{WEFT_STATUS_TYPE_MISMATCH, "loop_program_lower takes a Primitive function"};
    *out = lower_to_program(downcast<FunctionNode>(e), traits_of(traits));
  });
}

void loop_program_release(const weft_loop_program_t* program) {
  if (!program) return;
  const auto* box = reinterpret_cast<const ProgramBox*>(program);  // its first member
  delete box->storage;
  delete box;
}

}  // namespace

void fill_loops_api(weft_host_api_t& api) {
  api.te_call_supported = te_call_supported;
  api.loop_program_lower = loop_program_lower;
  api.loop_program_release = loop_program_release;
}

}  // namespace weft::plugin_host

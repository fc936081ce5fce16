#include "weft/te/functor.h"

#include "weft/te/buffer.h"
#include "weft/te/tensor.h"

namespace weft::te {
namespace {

template <typename T>
const T& as(const PrimExpr& e) {
  return *static_cast<const T*>(e.get());
}

/// f applied to each of `in`; `changed` is set when any result differs.
std::vector<PrimExpr> map_all(const std::vector<PrimExpr>& in, const std::function<PrimExpr(const PrimExpr&)>& f,
                              bool& changed) {
  std::vector<PrimExpr> out;
  out.reserve(in.size());
  for (const PrimExpr& x : in) {
    out.push_back(f(x));
    WEFT_ICHECK(out.back() && out.back().dtype() == x.dtype(), "a rewrite changed a child's dtype");
    changed |= !out.back().same_as(x);
  }
  return out;
}

bool all_equal(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!structural_equal(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

void for_each_child(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f) {
  switch (e->kind) {
    case PrimKind::kIntImm:
    case PrimKind::kFloatImm:
    case PrimKind::kVar: return;
    case PrimKind::kBinary: f(as<BinaryNode>(e).a), f(as<BinaryNode>(e).b); return;
    case PrimKind::kSelect: {
      const auto& s = as<SelectNode>(e);
      f(s.cond), f(s.then_value), f(s.else_value);
      return;
    }
    case PrimKind::kCast: f(as<CastNode>(e).value); return;
    case PrimKind::kCall: for (const PrimExpr& a : as<CallNode>(e).args) f(a); return;
    case PrimKind::kTensorRead: for (const PrimExpr& i : as<TensorReadNode>(e).indices) f(i); return;
    case PrimKind::kReduce:
      for (const PrimExpr& s : as<ReduceNode>(e).source) f(s);
      f(as<ReduceNode>(e).condition);
      return;
    case PrimKind::kBufferLoad: for (const PrimExpr& i : as<BufferLoadNode>(e).indices) f(i); return;
  }
}

PrimExpr map_children(const PrimExpr& e, const std::function<PrimExpr(const PrimExpr&)>& f) {
  bool changed = false;
  switch (e->kind) {
    case PrimKind::kIntImm:
    case PrimKind::kFloatImm:
    case PrimKind::kVar: return e;
    case PrimKind::kBinary: {
      const auto& n = as<BinaryNode>(e);
      auto c = map_all({n.a, n.b}, f, changed);
      return changed ? PrimExpr(make_ref<BinaryNode>(n.op, n.dtype, c[0], c[1])) : e;
    }
    case PrimKind::kSelect: {
      const auto& n = as<SelectNode>(e);
      auto c = map_all({n.cond, n.then_value, n.else_value}, f, changed);
      return changed ? PrimExpr(make_ref<SelectNode>(c[0], c[1], c[2])) : e;
    }
    case PrimKind::kCast: {
      const auto& n = as<CastNode>(e);
      auto c = map_all({n.value}, f, changed);
      return changed ? PrimExpr(make_ref<CastNode>(n.dtype, c[0])) : e;
    }
    case PrimKind::kCall: {
      const auto& n = as<CallNode>(e);
      auto c = map_all(n.args, f, changed);
      return changed ? PrimExpr(make_ref<CallNode>(n.op, n.dtype, std::move(c))) : e;
    }
    case PrimKind::kTensorRead: {
      const auto& n = as<TensorReadNode>(e);
      auto c = map_all(n.indices, f, changed);
      return changed ? PrimExpr(make_ref<TensorReadNode>(n.tensor, std::move(c))) : e;
    }
    case PrimKind::kReduce: {
      const auto& n = as<ReduceNode>(e);
      auto sources = map_all(n.source, f, changed);
      auto cond = map_all({n.condition}, f, changed);
      return changed ? PrimExpr(make_ref<ReduceNode>(n.combiner, std::move(sources), n.axis, cond[0], n.value_index))
                     : e;
    }
    case PrimKind::kBufferLoad: {
      const auto& n = as<BufferLoadNode>(e);
      auto c = map_all(n.indices, f, changed);
      return changed ? PrimExpr(make_ref<BufferLoadNode>(n.buffer, std::move(c))) : e;
    }
  }
  WEFT_ICHECK(false, "unknown expression kind");
}

void walk(const PrimExpr& e, const std::function<void(const PrimExpr&)>& f) {
  f(e);
  for_each_child(e, [&](const PrimExpr& c) { walk(c, f); });
}

PrimExpr substitute(const PrimExpr& e, const VarMap& map) {
  if (map.empty()) return e;
  if (e->kind == PrimKind::kVar) {
    auto it = map.find(static_cast<const VarNode*>(e.get()));
    return it == map.end() ? e : it->second;
  }
  return map_children(e, [&](const PrimExpr& c) { return substitute(c, map); });
}

bool structural_equal(const PrimExpr& a, const PrimExpr& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a->kind != b->kind || a.dtype() != b.dtype()) return false;
  switch (a->kind) {
    case PrimKind::kIntImm: return as<IntImmNode>(a).value == as<IntImmNode>(b).value;
    case PrimKind::kFloatImm: {
      const double x = as<FloatImmNode>(a).value, y = as<FloatImmNode>(b).value;
      return x == y || (x != x && y != y);
    }
    case PrimKind::kVar: return false;  // identity, checked above
    case PrimKind::kBinary:
      return as<BinaryNode>(a).op == as<BinaryNode>(b).op && structural_equal(as<BinaryNode>(a).a, as<BinaryNode>(b).a) &&
             structural_equal(as<BinaryNode>(a).b, as<BinaryNode>(b).b);
    case PrimKind::kCall:
      if (as<CallNode>(a).op != as<CallNode>(b).op) return false;
      return all_equal(as<CallNode>(a).args, as<CallNode>(b).args);
    case PrimKind::kTensorRead:
      return same_tensor(as<TensorReadNode>(a).tensor, as<TensorReadNode>(b).tensor) &&
             all_equal(as<TensorReadNode>(a).indices, as<TensorReadNode>(b).indices);
    case PrimKind::kBufferLoad:
      return as<BufferLoadNode>(a).buffer.same_as(as<BufferLoadNode>(b).buffer) &&
             all_equal(as<BufferLoadNode>(a).indices, as<BufferLoadNode>(b).indices);
    case PrimKind::kReduce: {
      const auto &x = as<ReduceNode>(a), &y = as<ReduceNode>(b);
      return x.combiner.same_as(y.combiner) && x.value_index == y.value_index && x.axis == y.axis &&
             all_equal(x.source, y.source) && structural_equal(x.condition, y.condition);
    }
    case PrimKind::kSelect:
    case PrimKind::kCast: break;
  }
  // Select and Cast: same dtype (checked) and equal children.
  std::vector<PrimExpr> ca, cb;
  for_each_child(a, [&](const PrimExpr& c) { ca.push_back(c); });
  for_each_child(b, [&](const PrimExpr& c) { cb.push_back(c); });
  return all_equal(ca, cb);
}

}  // namespace weft::te

// Union-find unification of types with holes.
#include "type_solver.h"

#include <vector>

#include "weft/error.h"

namespace weft::detail {

namespace {

const IncompleteTypeNode* as_hole(const Type& t) {
  return t && t->kind == TypeKind::kIncomplete ? static_cast<const IncompleteTypeNode*>(t.get()) : nullptr;
}

std::string dim_text(Dim d) { return d == kAnyDim ? "?" : std::to_string(d); }

}  // namespace

Type TypeSolver::find(const Type& t) {
  const IncompleteTypeNode* hole = as_hole(t);
  if (!hole) return t;
  auto it = bound_.find(hole);
  if (it == bound_.end()) return t;
  Type root = find(it->second.to);  // chains are short: compressed below
  it->second.to = root;
  return root;
}

Type TypeSolver::resolve(const Type& t) {
  Type top = find(t);
  if (!top) return top;
  switch (top->kind) {
    case TypeKind::kTuple: {
      auto* tt = static_cast<const TupleTypeNode*>(top.get());
      std::vector<Type> fields;
      bool changed = false;
      for (const Type& f : tt->fields) {
        fields.push_back(resolve(f));
        changed = changed || !fields.back().same_as(f);
      }
      return changed ? Type(tuple_type(std::move(fields))) : top;
    }
    case TypeKind::kFunc: {
      auto* ft = static_cast<const FuncTypeNode*>(top.get());
      std::vector<Type> params;
      bool changed = false;
      for (const Type& p : ft->params) {
        params.push_back(resolve(p));
        changed = changed || !params.back().same_as(p);
      }
      Type ret = resolve(ft->ret);
      changed = changed || !ret.same_as(ft->ret);
      return changed ? Type(func_type(std::move(params), std::move(ret))) : top;
    }
    default:
      return top;
  }
}

const IncompleteTypeNode* TypeSolver::first_hole(const Type& t) {
  Type top = find(t);
  if (!top) return nullptr;
  switch (top->kind) {
    case TypeKind::kIncomplete:
      return static_cast<const IncompleteTypeNode*>(top.get());
    case TypeKind::kTuple:
      for (const Type& f : static_cast<const TupleTypeNode*>(top.get())->fields)
        if (auto* h = first_hole(f)) return h;
      return nullptr;
    case TypeKind::kFunc: {
      auto* ft = static_cast<const FuncTypeNode*>(top.get());
      for (const Type& p : ft->params)
        if (auto* h = first_hole(p)) return h;
      return first_hole(ft->ret);
    }
    default:
      return nullptr;
  }
}

bool TypeSolver::occurs(const IncompleteTypeNode* hole, const Type& t) {
  Type top = find(t);
  if (!top) return false;
  switch (top->kind) {
    case TypeKind::kIncomplete:
      return top.get() == hole;
    case TypeKind::kTuple:
      for (const Type& f : static_cast<const TupleTypeNode*>(top.get())->fields)
        if (occurs(hole, f)) return true;
      return false;
    case TypeKind::kFunc: {
      auto* ft = static_cast<const FuncTypeNode*>(top.get());
      for (const Type& p : ft->params)
        if (occurs(hole, p)) return true;
      return occurs(hole, ft->ret);
    }
    default:
      return false;
  }
}

void TypeSolver::bind(const Type& hole, const Type& to) {
  auto* h = as_hole(hole);
  bound_.emplace(h, Binding{IncompleteType(const_cast<IncompleteTypeNode*>(h)), to});
  if (on_bind) on_bind(h);
}

Type TypeSolver::unify(const Type& a, const Type& b) {
  Type x = find(a), y = find(b);
  if (x.same_as(y)) return x;
  WEFT_ICHECK(x && y, "unifying a missing type");
  if (as_hole(x)) {
    if (occurs(as_hole(x), y))
      throw UnifyFailure{"_ would have to contain itself to equal " + type_to_text(resolve(y))};
    bind(x, y);
    return y;
  }
  if (as_hole(y)) return unify(y, x);
  auto mismatch = [&](const std::string& what) {
    return UnifyFailure{what + " in " + type_to_text(resolve(x)) + " and " + type_to_text(resolve(y))};
  };
  if (x->kind != y->kind) throw UnifyFailure{type_to_text(resolve(x)) + " vs " + type_to_text(resolve(y))};
  switch (x->kind) {
    case TypeKind::kTensor: {
      auto* tx = static_cast<const TensorTypeNode*>(x.get());
      auto* ty = static_cast<const TensorTypeNode*>(y.get());
      if (tx->dtype != ty->dtype) throw mismatch("dtype " + tx->dtype.str() + " vs " + ty->dtype.str());
      if (tx->ndim() != ty->ndim())
        throw mismatch("rank " + std::to_string(tx->ndim()) + " vs " + std::to_string(ty->ndim()));
      std::vector<Dim> shape(tx->shape.size());
      bool same_as_x = true;
      for (size_t i = 0; i < shape.size(); ++i) {
        Dim dx = tx->shape[i], dy = ty->shape[i];
        if (dx != dy && dx != kAnyDim && dy != kAnyDim)
          throw mismatch("dimension " + std::to_string(i) + " is " + dim_text(dx) + " vs " + dim_text(dy));
        shape[i] = dx == dy ? dx : kAnyDim;
        same_as_x = same_as_x && shape[i] == dx;
      }
      return same_as_x ? x : Type(tensor_type(std::move(shape), tx->dtype));
    }
    case TypeKind::kTuple: {
      auto* tx = static_cast<const TupleTypeNode*>(x.get());
      auto* ty = static_cast<const TupleTypeNode*>(y.get());
      if (tx->fields.size() != ty->fields.size())
        throw mismatch(std::to_string(tx->fields.size()) + " vs " + std::to_string(ty->fields.size()) + " fields");
      std::vector<Type> fields;
      for (size_t i = 0; i < tx->fields.size(); ++i) fields.push_back(unify(tx->fields[i], ty->fields[i]));
      return tuple_type(std::move(fields));
    }
    case TypeKind::kFunc: {
      auto* fx = static_cast<const FuncTypeNode*>(x.get());
      auto* fy = static_cast<const FuncTypeNode*>(y.get());
      if (fx->params.size() != fy->params.size())
        throw mismatch(std::to_string(fx->params.size()) + " vs " + std::to_string(fy->params.size()) +
                       " parameters");
      std::vector<Type> params;
      for (size_t i = 0; i < fx->params.size(); ++i) params.push_back(unify(fx->params[i], fy->params[i]));
      Type ret = unify(fx->ret, fy->ret);
      return func_type(std::move(params), std::move(ret));
    }
    case TypeKind::kIncomplete:
      break;
  }
  throw InternalError(__FILE__, __LINE__, "unknown type kind");
}

}  // namespace weft::detail

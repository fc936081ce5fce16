// Relay types: builders, structural equality, hashing and text.
#include "weft/type.h"

#include <algorithm>
#include <functional>

#include "weft/error.h"
#include "weft/limits.h"

namespace weft {

namespace {
size_t combine(size_t seed, size_t h) { return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }
}  // namespace

bool TensorTypeNode::is_static() const {
  for (Dim d : shape)
    if (d == kAnyDim) return false;
  return true;
}

int64_t TensorTypeNode::numel() const {
  // tensor_type checked the product of the non-zero extents.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  int64_t n = 1;
  for (Dim d : shape) {
    if (d == kAnyDim) return kAnyDim;
    n *= d;
  }
  return n;
}

TensorType tensor_type(std::vector<Dim> shape, DataType dtype) {
  // Every tensor type (parsed, built, or returned by a type relation) passes
  // here, so no element count downstream can overflow.
  checked_tensor_bytes(shape, dtype);
  return make_ref<TensorTypeNode>(std::move(shape), dtype);
}

TensorType scalar_type(DataType dtype) { return make_ref<TensorTypeNode>(std::vector<Dim>{}, dtype); }

TupleType tuple_type(std::vector<Type> fields) {
  for (auto& f : fields) WEFT_ICHECK(f.defined(), "tuple type with a null field");
  return make_ref<TupleTypeNode>(std::move(fields));
}

FuncType func_type(std::vector<Type> params, Type ret) {
  for (auto& p : params) WEFT_ICHECK(p.defined(), "function type with a null parameter type");
  WEFT_ICHECK(ret.defined(), "function type with a null return type");
  return make_ref<FuncTypeNode>(std::move(params), std::move(ret));
}

IncompleteType incomplete_type() { return make_ref<IncompleteTypeNode>(); }

// Types are shallow (a handful of levels), so plain recursion is fine here.
bool type_equal(const Type& a, const Type& b) {
  if (a.same_as(b)) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case TypeKind::kTensor: {
      auto& x = static_cast<const TensorTypeNode&>(*a);
      auto& y = static_cast<const TensorTypeNode&>(*b);
      return x.dtype == y.dtype && x.shape == y.shape;
    }
    case TypeKind::kTuple: {
      auto& x = static_cast<const TupleTypeNode&>(*a).fields;
      auto& y = static_cast<const TupleTypeNode&>(*b).fields;
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!type_equal(x[i], y[i])) return false;
      return true;
    }
    case TypeKind::kFunc: {
      auto& x = static_cast<const FuncTypeNode&>(*a);
      auto& y = static_cast<const FuncTypeNode&>(*b);
      if (x.params.size() != y.params.size() || !type_equal(x.ret, y.ret)) return false;
      for (size_t i = 0; i < x.params.size(); ++i)
        if (!type_equal(x.params[i], y.params[i])) return false;
      return true;
    }
    case TypeKind::kIncomplete:
      return false;  // distinct holes (identity was checked above)
  }
  return false;
}

size_t type_hash(const Type& t) {
  if (!t) return 0x5bd1e995;
  size_t h = static_cast<size_t>(t->kind) + 1;
  switch (t->kind) {
    case TypeKind::kTensor: {
      auto& x = static_cast<const TensorTypeNode&>(*t);
      h = combine(h, (size_t{x.dtype.code} << 24) | (size_t{x.dtype.bits} << 16) | x.dtype.lanes);
      h = combine(h, x.shape.size());
      for (Dim d : x.shape) h = combine(h, std::hash<int64_t>()(d));
      return h;
    }
    case TypeKind::kTuple:
      for (auto& f : static_cast<const TupleTypeNode&>(*t).fields) h = combine(h, type_hash(f));
      return combine(h, static_cast<const TupleTypeNode&>(*t).fields.size());
    case TypeKind::kFunc: {
      auto& x = static_cast<const FuncTypeNode&>(*t);
      for (auto& p : x.params) h = combine(h, type_hash(p));
      return combine(combine(h, x.params.size()), type_hash(x.ret));
    }
    case TypeKind::kIncomplete:
      return combine(h, std::hash<const void*>()(t.get()));
  }
  return h;
}

std::vector<TensorType> flat_tensor_types(const Type& t) {
  std::vector<TensorType> out;
  auto flatten = [&](const Type& x, auto& self) -> void {
    if (auto tensor = downcast<TensorTypeNode>(x)) {
      out.push_back(std::move(tensor));
    } else if (auto tuple = x.as<TupleTypeNode>()) {
      for (const Type& field : tuple->fields) self(field, self);
    }
  };
  if (t) flatten(t, flatten);
  return out;
}

size_t flat_tensor_count(const Type& t) { return flat_tensor_types(t).size(); }

bool is_complete(const Type& t) {
  if (!t) return false;
  switch (t->kind) {
    case TypeKind::kTensor: return true;
    case TypeKind::kTuple:
      for (auto& f : static_cast<const TupleTypeNode&>(*t).fields)
        if (!is_complete(f)) return false;
      return true;
    case TypeKind::kFunc: {
      auto& x = static_cast<const FuncTypeNode&>(*t);
      for (auto& p : x.params)
        if (!is_complete(p)) return false;
      return is_complete(x.ret);
    }
    case TypeKind::kIncomplete: return false;
  }
  return false;
}

std::string type_to_text(const Type& t) {
  if (!t) return "_";
  switch (t->kind) {
    case TypeKind::kTensor: {
      auto& x = static_cast<const TensorTypeNode&>(*t);
      if (x.shape.empty()) return x.dtype.str();  // Relay prints a scalar as its dtype
      std::string out = "Tensor[(";
      for (size_t i = 0; i < x.shape.size(); ++i) {
        if (i) out += ", ";
        out += x.shape[i] == kAnyDim ? "?" : std::to_string(x.shape[i]);
      }
      return out + "), " + x.dtype.str() + "]";
    }
    case TypeKind::kTuple: {
      auto& f = static_cast<const TupleTypeNode&>(*t).fields;
      std::string out = "(";
      for (size_t i = 0; i < f.size(); ++i) {
        if (i) out += ", ";
        out += type_to_text(f[i]);
      }
      if (f.size() == 1) out += ",";  // Python's 1-tuple
      return out + ")";
    }
    case TypeKind::kFunc: {
      auto& x = static_cast<const FuncTypeNode&>(*t);
      std::string out = "fn (";
      for (size_t i = 0; i < x.params.size(); ++i) {
        if (i) out += ", ";
        out += type_to_text(x.params[i]);
      }
      return out + ") -> " + type_to_text(x.ret);
    }
    case TypeKind::kIncomplete: return "_";
  }
  return "_";
}

}  // namespace weft

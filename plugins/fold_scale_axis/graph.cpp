// Graph walks and rebuilding over host handles (see graph.h).
#include "graph.h"

namespace weft::fold_scale_axis {

namespace {

using sdk::check;
using sdk::host;

template <typename F>
Expr take(F fn) {
  weft_expr_t* out = nullptr;
  check(fn(&out));
  return sdk::Handle<weft_expr_t>::adopt(out);
}

struct FunctionParts {
  std::vector<Expr> params;
  Expr body;
  Type ret;
  sdk::Attrs attrs;
};

FunctionParts function_parts(const Expr& f) {
  FunctionParts parts;
  size_t n = 0;
  check(host().expr_function_num_params(f.get(), &n));
  for (size_t i = 0; i < n; ++i)
    parts.params.push_back(take([&](weft_expr_t** o) { return host().expr_function_param(f.get(), i, o); }));
  parts.body = function_body(f);
  weft_type_t* ret = nullptr;
  check(host().expr_function_ret_type(f.get(), &ret));
  parts.ret = sdk::Handle<weft_type_t>::adopt(ret);
  weft_attrs_t* attrs = nullptr;
  check(host().expr_function_attrs(f.get(), &attrs));
  parts.attrs = sdk::Handle<weft_attrs_t>::adopt(attrs);
  return parts;
}

bool same(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].get() != b[i].get()) return false;
  return true;
}

}  // namespace

Expr function_body(const Expr& function) {
  return take([&](weft_expr_t** o) { return host().expr_function_body(function.get(), o); });
}

std::string op_name(const Expr& e) {
  if (e.kind() != WEFT_EXPR_CALL) return "";
  Expr callee = e.callee();
  return callee.kind() == WEFT_EXPR_OP ? callee.name() : "";
}

std::vector<Expr> post_order(const Expr& root) {
  std::vector<Expr> order;
  sdk::post_order(root, [&](const Expr& e) { order.push_back(e); });
  return order;
}

std::unordered_map<const weft_expr_t*, size_t> use_counts(const std::vector<Expr>& nodes) {
  std::unordered_map<const weft_expr_t*, size_t> counts;
  for (const Expr& n : nodes)
    for (const Expr& c : children(n)) ++counts[key(c)];
  return counts;
}

Expr rebuild(const Expr& e, const std::vector<Expr>& kids) {
  std::vector<Expr> old = children(e);
  if (same(old, kids)) return e;
  auto raw = [](const std::vector<Expr>& v, size_t from = 0) {
    std::vector<weft_expr_t*> out;
    for (size_t i = from; i < v.size(); ++i) out.push_back(v[i].get());
    return out;
  };
  switch (e.kind()) {
    case WEFT_EXPR_CALL: {
      Expr callee = e.callee();
      if (callee.kind() != WEFT_EXPR_OP) return sdk::call_function(kids[0], {kids.begin() + 1, kids.end()});
      std::vector<weft_expr_t*> args = raw(kids);
      sdk::Attrs attrs = e.attrs();
      return take([&](weft_expr_t** o) {
        return host().expr_call_op(callee.name().c_str(), args.data(), args.size(), attrs.get(), o);
      });
    }
    case WEFT_EXPR_FUNCTION: {
      FunctionParts parts = function_parts(e);
      std::vector<weft_expr_t*> params = raw({kids.begin(), kids.end() - 1});
      return take([&](weft_expr_t** o) {
        return host().expr_function(params.data(), params.size(), kids.back().get(), parts.ret.get(),
                                    parts.attrs.get(), o);
      });
    }
    case WEFT_EXPR_TUPLE:
      return sdk::tuple(kids);
    case WEFT_EXPR_TUPLE_GET_ITEM: {
      weft_expr_t* t = nullptr;
      int index = 0;
      check(host().expr_tuple_get_item_info(e.get(), &t, &index));
      sdk::Handle<weft_expr_t>::adopt(t);  // only the index is needed
      return sdk::get_item(kids[0], index);
    }
    case WEFT_EXPR_LET:
      return sdk::let(kids[0], kids[1], kids[2]);
    case WEFT_EXPR_IF:
      return sdk::if_then_else(kids[0], kids[1], kids[2]);
    default:
      return e;
  }
}

bool skips_optimization(const Expr& function) {
  sdk::Attrs attrs = function_parts(function).attrs;
  for (const char* flag : {"Primitive", "Extern", "SkipOptimization"}) {
    if (!attrs.has(flag)) continue;
    sdk::Value v = attrs.get_value(flag);
    if ((v.type() == WEFT_ATTR_INT && v.as_int() != 0) || (v.type() == WEFT_ATTR_BOOL && v.as_bool())) return true;
  }
  return attrs.has("Compiler") && attrs.get_value("Compiler").type() == WEFT_ATTR_STRING &&
         !attrs.get_string("Compiler").empty();
}

}  // namespace weft::fold_scale_axis

// Host functions of plugin.h for tensor expressions (ABI 1.9): what an op's
// te_compute builds its outputs with. Each is a thin shell over weft::te,
// whose builders check dtypes and shapes and throw the errors plugins see.
#include <cstring>
#include <type_traits>

#include "host_tables.h"
#include "weft/te/reduce.h"
#include "weft/te/tensor.h"

namespace weft::plugin_host {

namespace {

te::PrimExpr expr_of(weft_te_expr_t* h, bool allow_null = false) {
  return te::PrimExpr(from_handle<te::PrimExprNode>(h, "a TE expression", allow_null).get());
}
te::Tensor tensor_of(weft_te_tensor_t* h) { return te::Tensor(from_handle<te::TensorNode>(h, "a TE tensor").get()); }
te::IterVar axis_of(weft_te_axis_t* h) { return from_handle<te::IterVarNode>(h, "a TE axis"); }
te::CommReducer reducer_of(weft_te_reducer_t* h) { return from_handle<te::CommReducerNode>(h, "a TE reducer"); }

template <typename T, typename H, typename Of>
std::vector<T> all_of(H* const* handles, size_t n, const char* what, Of of) {
  if (n && !handles) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string(what) + " array is NULL"};
  std::vector<T> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(of(handles[i]));
  return out;
}
std::vector<te::PrimExpr> exprs_of(weft_te_expr_t* const* h, size_t n) {
  return all_of<te::PrimExpr>(h, n, "expression", [](weft_te_expr_t* e) { return expr_of(e); });
}
std::vector<te::IterVar> axes_of(weft_te_axis_t* const* h, size_t n) {
  return all_of<te::IterVar>(h, n, "axis", axis_of);
}
std::vector<te::Var> vars_of(weft_te_expr_t* const* h, size_t n, const char* what) {
  return all_of<te::Var>(h, n, what, [what](weft_te_expr_t* e) {
    return from_handle<te::VarNode>(e, (std::string("a TE variable (") + what + ")").c_str());
  });
}

weft_te_expr_t* new_expr(te::PrimExpr e) { return new_handle<weft_te_expr_t>(std::move(e)); }

/// The integer a plugin passed as an enum: it may lie outside the enum's
/// values (a C caller's mistake), so it is read as bytes, never loaded as the
/// enum type, whose out-of-range values C++ leaves undefined.
template <typename Enum>
int raw_value(const Enum& e) {
  std::underlying_type_t<Enum> v;
  std::memcpy(&v, &e, sizeof v);
  return static_cast<int>(v);
}

te::BinaryOp binary_op(const weft_te_binary_op_t& given) {
  const int op = raw_value(given);
  switch (op) {
    case WEFT_TE_ADD: return te::BinaryOp::kAdd;
    case WEFT_TE_SUB: return te::BinaryOp::kSub;
    case WEFT_TE_MUL: return te::BinaryOp::kMul;
    case WEFT_TE_DIV: return te::BinaryOp::kDiv;
    case WEFT_TE_FLOORDIV: return te::BinaryOp::kFloorDiv;
    case WEFT_TE_FLOORMOD: return te::BinaryOp::kFloorMod;
    case WEFT_TE_MIN: return te::BinaryOp::kMin;
    case WEFT_TE_MAX: return te::BinaryOp::kMax;
    case WEFT_TE_EQ: return te::BinaryOp::kEq;
    case WEFT_TE_NE: return te::BinaryOp::kNe;
    case WEFT_TE_LT: return te::BinaryOp::kLt;
    case WEFT_TE_LE: return te::BinaryOp::kLe;
    case WEFT_TE_GT: return te::BinaryOp::kGt;
    case WEFT_TE_GE: return te::BinaryOp::kGe;
    case WEFT_TE_AND: return te::BinaryOp::kAnd;
    case WEFT_TE_OR: return te::BinaryOp::kOr;
  }
  throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                    "unknown TE binary operator " + std::to_string(op) + " (expected 0..15)"};
}

te::PrimExpr intrinsic(const weft_te_intrinsic_t& given, std::vector<te::PrimExpr> args) {
  auto call = [&](te::Intrinsic i) { return te::call_intrinsic(i, std::move(args)); };
  const int op = raw_value(given);
  switch (op) {
    case WEFT_TE_NEG: return call(te::Intrinsic::kNeg);
    case WEFT_TE_ABS: return call(te::Intrinsic::kAbs);
    case WEFT_TE_EXP: return call(te::Intrinsic::kExp);
    case WEFT_TE_LOG: return call(te::Intrinsic::kLog);
    case WEFT_TE_TANH: return call(te::Intrinsic::kTanh);
    case WEFT_TE_ERF: return call(te::Intrinsic::kErf);
    case WEFT_TE_SQRT: return call(te::Intrinsic::kSqrt);
    case WEFT_TE_RSQRT: return call(te::Intrinsic::kRsqrt);
    case WEFT_TE_SIGMOID: return call(te::Intrinsic::kSigmoid);
    case WEFT_TE_FLOOR: return call(te::Intrinsic::kFloor);
    case WEFT_TE_CEIL: return call(te::Intrinsic::kCeil);
    case WEFT_TE_ROUND: return call(te::Intrinsic::kRound);
    case WEFT_TE_POW: return call(te::Intrinsic::kPow);
    case WEFT_TE_TRUNC: return call(te::Intrinsic::kTrunc);
    case WEFT_TE_FMOD: return call(te::Intrinsic::kFmod);
    case WEFT_TE_NOT:
      if (args.size() != 1) throw Error("TE: not of " + std::to_string(args.size()) + " arguments").expected("1");
      return te::logical_not(std::move(args[0]));
  }
  throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                    "unknown TE intrinsic " + std::to_string(op) + " (expected 0..15)"};
}

te::PrimExpr builtin_reduce(const weft_te_reduce_kind_t& given, te::PrimExpr source, std::vector<te::IterVar> axes,
                            te::PrimExpr condition) {
  const int kind = raw_value(given);
  switch (kind) {
    case WEFT_TE_REDUCE_SUM: return te::sum(std::move(source), std::move(axes), std::move(condition));
    case WEFT_TE_REDUCE_MAX: return te::max(std::move(source), std::move(axes), std::move(condition));
    case WEFT_TE_REDUCE_MIN: return te::min(std::move(source), std::move(axes), std::move(condition));
    case WEFT_TE_REDUCE_PROD: return te::prod(std::move(source), std::move(axes), std::move(condition));
  }
  throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                    "unknown TE reduction " + std::to_string(kind) + " (expected 0..3)"};
}

std::string name_or(const char* name, const char* fallback) { return name ? name : fallback; }

weft_status_t te_int(int64_t value, DLDataType dtype, weft_te_expr_t** out) {
  return guard([&] {
    DataType dt = to_dtype(dtype);
    if (dt.is_float()) throw Error("TE: an integer immediate of dtype " + dt.str()).expected("an integer or bool dtype");
    *out_param(out, "out_expr") = new_expr(te::int_imm(value, dt));
  });
}
weft_status_t te_float(double value, DLDataType dtype, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_expr") = new_expr(te::float_imm(value, to_dtype(dtype))); });
}
weft_status_t te_limit(DLDataType dtype, int highest, weft_te_expr_t** out) {
  return guard([&] {
    DataType dt = to_dtype(dtype);
    *out_param(out, "out_expr") = new_expr(highest ? te::max_value(dt) : te::min_value(dt));
  });
}
weft_status_t te_var(const char* name, DLDataType dtype, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_expr") = new_expr(te::var(name_or(name, "v"), to_dtype(dtype))); });
}
weft_status_t te_binary(weft_te_binary_op_t op, weft_te_expr_t* a, weft_te_expr_t* b, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_expr") = new_expr(te::binary(binary_op(op), expr_of(a), expr_of(b))); });
}
weft_status_t te_intrinsic(weft_te_intrinsic_t op, weft_te_expr_t* const* args, size_t n, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_expr") = new_expr(intrinsic(op, exprs_of(args, n))); });
}
weft_status_t te_select(weft_te_expr_t* c, weft_te_expr_t* t, weft_te_expr_t* e, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_expr") = new_expr(te::select(expr_of(c), expr_of(t), expr_of(e))); });
}
weft_status_t te_cast(DLDataType dtype, weft_te_expr_t* value, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_expr") = new_expr(te::cast(to_dtype(dtype), expr_of(value))); });
}
weft_status_t te_expr_dtype(weft_te_expr_t* e, DLDataType* out) {
  return guard([&] { *out_param(out, "out_dtype") = to_dl(expr_of(e).dtype()); });
}
weft_status_t te_axis(int64_t min, int64_t extent, int reduce, const char* name, weft_te_axis_t** out) {
  return guard([&] {
    std::string n = name_or(name, reduce ? "k" : "i");
    if (extent < 0) throw Error("TE: axis '" + n + "' of extent " + std::to_string(extent)).expected("an extent >= 0");
    te::IterVar axis;
    if (reduce) {
      axis = te::reduce_axis(min, extent, std::move(n));
    } else {
      if (min != 0) throw Error("TE: data axis '" + n + "' from " + std::to_string(min)).expected("data axes from 0");
      axis = te::data_axis(extent, std::move(n));
    }
    *out_param(out, "out_axis") = new_handle<weft_te_axis_t>(std::move(axis));
  });
}
weft_status_t te_axis_var(weft_te_axis_t* axis, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_var") = new_expr(axis_of(axis)->var); });
}
weft_status_t te_tensor_info(weft_te_tensor_t* t, const int64_t** out_shape, size_t* out_ndim, DLDataType* out_dtype) {
  return guard([&] {
    const te::TensorNode* node = tensor_of(t).get();  // the handle keeps it alive
    if (out_shape) *out_shape = node->shape.data();
    if (out_ndim) *out_ndim = node->shape.size();
    if (out_dtype) *out_dtype = to_dl(node->dtype);
  });
}
weft_status_t te_tensor_read(weft_te_tensor_t* t, weft_te_expr_t* const* indices, size_t n, weft_te_expr_t** out) {
  return guard([&] { *out_param(out, "out_expr") = new_expr(tensor_of(t)(exprs_of(indices, n))); });
}
weft_status_t te_compute(const char* name, weft_te_axis_t* const* axes, size_t num_axes,
                         weft_te_expr_t* const* bodies, size_t num_bodies, weft_te_tensor_t** out) {
  return guard([&] {
    out_param(out, "out_tensors");
    std::vector<te::Tensor> tensors =
        te::compute_over(axes_of(axes, num_axes), exprs_of(bodies, num_bodies), name_or(name, "compute"));
    for (size_t i = 0; i < tensors.size(); ++i) out[i] = new_handle<weft_te_tensor_t>(std::move(tensors[i]));
  });
}
weft_status_t te_reducer(const char* name, weft_te_expr_t* const* lhs, weft_te_expr_t* const* rhs,
                         weft_te_expr_t* const* results, weft_te_expr_t* const* identities, size_t n,
                         weft_te_reducer_t** out) {
  return guard([&] {
    te::CommReducer r = te::comm_reducer_over(vars_of(lhs, n, "lhs"), vars_of(rhs, n, "rhs"), exprs_of(results, n),
                                              exprs_of(identities, n), name_or(name, "reducer"));
    *out_param(out, "out_reducer") = new_handle<weft_te_reducer_t>(std::move(r));
  });
}
weft_status_t te_reduce(weft_te_reducer_t* reducer, weft_te_expr_t* const* sources, size_t num_sources,
                        weft_te_axis_t* const* axes, size_t num_axes, weft_te_expr_t* condition,
                        weft_te_expr_t** out) {
  return guard([&] {
    out_param(out, "out_exprs");
    std::vector<te::PrimExpr> values = te::reduce(reducer_of(reducer), exprs_of(sources, num_sources),
                                                  axes_of(axes, num_axes), expr_of(condition, true));
    for (size_t i = 0; i < values.size(); ++i) out[i] = new_expr(std::move(values[i]));
  });
}
weft_status_t te_reduce_builtin(weft_te_reduce_kind_t kind, weft_te_expr_t* source, weft_te_axis_t* const* axes,
                                size_t num_axes, weft_te_expr_t* condition, weft_te_expr_t** out) {
  return guard([&] {
    *out_param(out, "out_expr") =
        new_expr(builtin_reduce(kind, expr_of(source), axes_of(axes, num_axes), expr_of(condition, true)));
  });
}
weft_status_t te_pad(weft_te_tensor_t* x, const int64_t* before, const int64_t* after, size_t ndim,
                     weft_te_expr_t* pad_value, const char* name, weft_te_tensor_t** out) {
  return guard([&] {
    if (ndim && (!before || !after)) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "pad widths array is NULL"};
    te::Tensor padded = te::pad(tensor_of(x), std::vector<int64_t>(before, before + ndim),
                                std::vector<int64_t>(after, after + ndim), expr_of(pad_value), name_or(name, "pad"));
    *out_param(out, "out_tensor") = new_handle<weft_te_tensor_t>(std::move(padded));
  });
}

}  // namespace

void fill_te_api(weft_host_api_t& api) {
  api.te_expr_retain = retain_fn<weft_te_expr_t>;
  api.te_expr_release = release_fn<weft_te_expr_t>;
  api.te_tensor_retain = retain_fn<weft_te_tensor_t>;
  api.te_tensor_release = release_fn<weft_te_tensor_t>;
  api.te_axis_retain = retain_fn<weft_te_axis_t>;
  api.te_axis_release = release_fn<weft_te_axis_t>;
  api.te_reducer_retain = retain_fn<weft_te_reducer_t>;
  api.te_reducer_release = release_fn<weft_te_reducer_t>;
  api.te_int = te_int;
  api.te_float = te_float;
  api.te_limit = te_limit;
  api.te_var = te_var;
  api.te_binary = te_binary;
  api.te_intrinsic = te_intrinsic;
  api.te_select = te_select;
  api.te_cast = te_cast;
  api.te_expr_dtype = te_expr_dtype;
  api.te_axis = te_axis;
  api.te_axis_var = te_axis_var;
  api.te_tensor_info = te_tensor_info;
  api.te_tensor_read = te_tensor_read;
  api.te_compute = te_compute;
  api.te_reducer = te_reducer;
  api.te_reduce = te_reduce;
  api.te_reduce_builtin = te_reduce_builtin;
  api.te_pad = te_pad;
}

}  // namespace weft::plugin_host

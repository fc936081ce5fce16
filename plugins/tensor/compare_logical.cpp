// Comparisons (equal ... greater_equal, bool results), logical ops on bool
// tensors, and where: all with NumPy broadcasting.
#include <weft/sdk/gradient.hpp>

#include "kernel_util.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

/// Broadcast of two tensors of one dtype, with a bool result.
Type compare_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type same = broadcast_relation(args, attrs);
  return Type::tensor(same.shape(), dtype::boolean);
}

/// Broadcast of two bool tensors (the reference computes logical ops on bools only).
Type logical_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type out = broadcast_relation(args, attrs);
  if (out.dtype() != dtype::boolean) throw Error("expected bool tensors, got " + args[0].str());
  return out;
}

Type logical_not_relation(const std::vector<Type>& args, const Attrs&) {
  Type data = tensor_arg(args, 0, "data");
  if (data.dtype() != dtype::boolean) throw Error("expected a bool tensor, got " + data.str());
  return data;
}

template <typename F>
Kernel compare_kernel(std::string op, F f) {
  return [op, f](const KernelArgs& k) {
    const TensorView& out = k.outputs.at(0);
    std::vector<int64_t> oa = broadcast_offsets(k.inputs.at(0).shape(), out.shape());
    std::vector<int64_t> ob = broadcast_offsets(k.inputs.at(1).shape(), out.shape());
    uint8_t* o = out.data<uint8_t>();
    visit_number_or_bool(k.inputs[0].dtype(), op, [&](auto zero) {
      using T = decltype(zero);
      const T* a = k.inputs[0].data<T>();
      const T* b = k.inputs[1].data<T>();
      for (size_t i = 0; i < oa.size(); ++i) o[i] = f(a[oa[i]], b[ob[i]]) ? 1 : 0;
    });
  };
}

template <typename F>
Kernel logical_kernel(F f) {
  return [f](const KernelArgs& k) {
    const TensorView& out = k.outputs.at(0);
    std::vector<int64_t> oa = broadcast_offsets(k.inputs.at(0).shape(), out.shape());
    std::vector<int64_t> ob = broadcast_offsets(k.inputs.at(1).shape(), out.shape());
    const uint8_t* a = k.inputs[0].data<uint8_t>();
    const uint8_t* b = k.inputs[1].data<uint8_t>();
    uint8_t* o = out.data<uint8_t>();
    for (size_t i = 0; i < oa.size(); ++i) o[i] = f(a[oa[i]] != 0, b[ob[i]] != 0) ? 1 : 0;
  };
}

OpBuilder& two_inputs(Registrar& reg, const char* name, const char* doc) {
  return reg.op(name)
      .describe(doc)
      .input("lhs", "Tensor", "The left operand.")
      .input("rhs", "Tensor", "The right operand; broadcast against lhs as in NumPy.")
      .support_level(4)
      .pattern(WEFT_PATTERN_BROADCAST)
      .infer_layout(layouts::broadcast);
}

Type where_relation(const std::vector<Type>& args, const Attrs&) {
  Type cond = tensor_arg(args, 0, "condition"), x = tensor_arg(args, 1, "x"), y = tensor_arg(args, 2, "y");
  if (x.dtype() != y.dtype()) throw Error("x and y must have one dtype, got " + x.str() + " and " + y.str());
  return Type::tensor(broadcast_shapes(cond.shape(), broadcast_shapes(x.shape(), y.shape())), x.dtype());
}

void where_kernel(const KernelArgs& k) {
  const TensorView& out = k.outputs.at(0);
  std::vector<int64_t> oc = broadcast_offsets(k.inputs.at(0).shape(), out.shape());
  std::vector<int64_t> ox = broadcast_offsets(k.inputs.at(1).shape(), out.shape());
  std::vector<int64_t> oy = broadcast_offsets(k.inputs.at(2).shape(), out.shape());
  std::vector<uint8_t> cond(oc.size());
  visit_number_or_bool(k.inputs[0].dtype(), "where", [&](auto zero) {
    using T = decltype(zero);
    const T* c = k.inputs[0].data<T>();
    for (size_t i = 0; i < oc.size(); ++i) cond[i] = c[oc[i]] != 0;  // any nonzero is true
  });
  size_t bytes = out.element_bytes();
  const char* x = bytes_of(k.inputs[1]);
  const char* y = bytes_of(k.inputs[2]);
  char* o = mutable_bytes_of(out);
  for (size_t i = 0; i < oc.size(); ++i) {
    std::memcpy(o + i * bytes, cond[i] ? x + ox[i] * bytes : y + oy[i] * bytes, bytes);
  }
}

/// The TE of a broadcasting comparison or logical op: f(lhs, rhs) at each
/// output element, on the dtypes the kernel takes.
template <typename F>
TeCompute broadcast_te(const char* name, bool logical, F f) {
  return [name, logical, f](const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
    const te::Tensor &a = in.at(0), &b = in.at(1);
    if (!logical) te_require_number(a.dtype(), name, true);
    if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), name));
    return te_one(te::compute(
        out.shape(), [&](const te::Idx& i) { return f(a(te::broadcast_index(a, i)), b(te::broadcast_index(b, i))); },
        name));
  };
}

/// where's condition as the kernel reads it: any nonzero is true (NaN too).
te::Expr truthy(const te::Expr& c) {
  if (c.dtype() == dtype::boolean) return c;
  return te::not_equal(c, te::make_const(c.dtype(), 0));
}

std::vector<te::Tensor> where_te(const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
  const te::Tensor &c = in.at(0), &x = in.at(1), &y = in.at(2);
  te_require_number(c.dtype(), "where", true);
  if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "where"));
  return te_one(te::compute(
      out.shape(),
      [&](const te::Idx& i) {
        return te::select(truthy(c(te::broadcast_index(c, i))), x(te::broadcast_index(x, i)),
                          y(te::broadcast_index(y, i)));
      },
      "where"));
}

}  // namespace

void register_compare_logical_ops(Registrar& reg) {
  two_inputs(reg, "equal", "Elementwise lhs == rhs as bool, with broadcasting.")
      .type_relation(compare_relation)
      .kernel(compare_kernel("equal", [](auto a, auto b) { return a == b; }))
      .te_compute(broadcast_te("equal", false, [](const te::Expr& a, const te::Expr& b) { return te::equal(a, b); }));
  two_inputs(reg, "not_equal", "Elementwise lhs != rhs as bool, with broadcasting.")
      .type_relation(compare_relation)
      .kernel(compare_kernel("not_equal", [](auto a, auto b) { return a != b; }))
      .te_compute(broadcast_te("not_equal", false, [](const te::Expr& a, const te::Expr& b) { return te::not_equal(a, b); }));
  two_inputs(reg, "less", "Elementwise lhs < rhs as bool, with broadcasting.")
      .type_relation(compare_relation)
      .kernel(compare_kernel("less", [](auto a, auto b) { return a < b; }))
      .te_compute(broadcast_te("less", false, [](const te::Expr& a, const te::Expr& b) { return a < b; }));
  two_inputs(reg, "less_equal", "Elementwise lhs <= rhs as bool, with broadcasting.")
      .type_relation(compare_relation)
      .kernel(compare_kernel("less_equal", [](auto a, auto b) { return a <= b; }))
      .te_compute(broadcast_te("less_equal", false, [](const te::Expr& a, const te::Expr& b) { return a <= b; }));
  two_inputs(reg, "greater", "Elementwise lhs > rhs as bool, with broadcasting.")
      .type_relation(compare_relation)
      .kernel(compare_kernel("greater", [](auto a, auto b) { return a > b; }))
      .te_compute(broadcast_te("greater", false, [](const te::Expr& a, const te::Expr& b) { return a > b; }));
  two_inputs(reg, "greater_equal", "Elementwise lhs >= rhs as bool, with broadcasting.")
      .type_relation(compare_relation)
      .kernel(compare_kernel("greater_equal", [](auto a, auto b) { return a >= b; }))
      .te_compute(broadcast_te("greater_equal", false, [](const te::Expr& a, const te::Expr& b) { return a >= b; }));

  two_inputs(reg, "logical_and", "Elementwise lhs AND rhs of bool tensors, with broadcasting.")
      .type_relation(logical_relation)
      .kernel(logical_kernel([](bool a, bool b) { return a && b; }))
      .te_compute(broadcast_te("logical_and", true, [](const te::Expr& a, const te::Expr& b) { return te::logical_and(a, b); }));
  two_inputs(reg, "logical_or", "Elementwise lhs OR rhs of bool tensors, with broadcasting.")
      .type_relation(logical_relation)
      .kernel(logical_kernel([](bool a, bool b) { return a || b; }))
      .te_compute(broadcast_te("logical_or", true, [](const te::Expr& a, const te::Expr& b) { return te::logical_or(a, b); }));
  two_inputs(reg, "logical_xor", "Elementwise lhs XOR rhs of bool tensors, with broadcasting.")
      .type_relation(logical_relation)
      .kernel(logical_kernel([](bool a, bool b) { return a != b; }))
      .te_compute(broadcast_te("logical_xor", true, [](const te::Expr& a, const te::Expr& b) { return te::not_equal(a, b); }));
  reg.op("logical_not")
      .describe("Elementwise NOT of a bool tensor.")
      .input("data", "Tensor", "The input bool tensor.")
      .support_level(4)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(logical_not_relation)
      .infer_layout(layouts::elementwise)
      .kernel([](const KernelArgs& k) {
        const uint8_t* x = k.inputs.at(0).data<uint8_t>();
        uint8_t* o = k.outputs.at(0).data<uint8_t>();
        for (int64_t i = 0, n = k.outputs[0].numel(); i < n; ++i) o[i] = x[i] ? 0 : 1;
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
        const te::Tensor& x = in.at(0);
        if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "logical_not"));
        return te_one(te::compute(x.shape(), [&](const te::Idx& i) { return te::logical_not(x(i)); }, "logical_not"));
      });

  reg.op("where")
      .describe(
          "Elements of x where condition is nonzero, else of y; condition, x and y broadcast to one shape as in "
          "NumPy.")
      .input("condition", "Tensor", "Where to take x (nonzero) or y (zero).")
      .input("x", "Tensor", "The values taken where condition holds.")
      .input("y", "Tensor", "The values taken elsewhere; the dtype of x.")
      .support_level(4)
      .pattern(WEFT_PATTERN_BROADCAST)
      .type_relation(where_relation)
      .kernel(where_kernel)
      .te_compute(where_te)
      .gradient([](const Expr& c, const Expr& g) {
        Expr cond = c.arg(0), x = c.arg(1), y = c.arg(2);
        Expr zeros = grad::zeros_like(g);
        return std::vector<Expr>{grad::zeros_like(cond), grad::collapse_sum_like(grad::where(cond, g, zeros), x),
                                 grad::collapse_sum_like(grad::where(cond, zeros, g), y)};
      });
}

}  // namespace weft_tensor

// Tensors made from a value (zeros, ones, full and their *_like forms), copy,
// and cast between dtypes.
#include <cmath>
#include <type_traits>

#include <weft/sdk/gradient.hpp>
#include <weft/sdk/integer_math.hpp>

#include "kernel_util.h"
#include "rewrite_match.h"
#include "te_util.h"
#include "tensor_ops.h"

namespace weft_tensor {

namespace {

using namespace weft::sdk;

template <typename S>
bool truthy(S v) {
  if constexpr (std::is_floating_point_v<S>) return !std::isnan(v) && v != 0;
  else return v != 0;
}

/// `v` converted to D as TVM's cast does: C conversion, into bool an ordered
/// x != 0 (so NaN is false, as LLVM's fcmp one), and from a float into an
/// integer saturating (NaN to 0) where C (and LLVM's fptosi) leave a value out
/// of range undefined.
template <typename D, typename S>
D convert_element(S v, bool to_bool) {
  if (to_bool) return static_cast<D>(truthy(v));
  if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) return saturate_cast<D>(v);
  else return static_cast<D>(v);
}

/// out[i] = in[i] (or in[0] for every i when `broadcast_scalar`), converted
/// by convert_element.
void convert(const TensorView& in, const TensorView& out, const std::string& op, bool broadcast_scalar) {
  visit_number_or_bool(in.dtype(), op, [&](auto in_zero) {
    using S = decltype(in_zero);
    const S* src = in.data<S>();
    visit_number_or_bool(out.dtype(), op, [&](auto out_zero) {
      using D = decltype(out_zero);
      D* dst = out.data<D>();
      bool to_bool = out.dtype() == dtype::boolean;
      for (int64_t i = 0, n = out.numel(); i < n; ++i) {
        dst[i] = convert_element<D>(src[broadcast_scalar ? 0 : i], to_bool);
      }
    });
  });
}

void fill(const TensorView& out, double value, const std::string& op) {
  visit_number_or_bool(out.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    T* o = out.data<T>();
    for (int64_t i = 0, n = out.numel(); i < n; ++i) o[i] = static_cast<T>(value);
  });
}

Type init_relation(const std::vector<Type>&, const Attrs& attrs) {
  return Type::tensor(checked_shape(attrs.get_ints("shape")), attrs.get_dtype("dtype"));
}

Type scalar_fill_value(const std::vector<Type>& args, size_t i) {
  Type fill_value = tensor_arg(args, i, "fill_value");
  if (fill_value.ndim() != 0) throw Error("fill_value must be a scalar (rank 0), got " + fill_value.str());
  return fill_value;
}

Type full_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type fill_value = scalar_fill_value(args, 0);
  Value dt = attrs.get_value("dtype");
  return Type::tensor(checked_shape(attrs.get_ints("shape")), dt.is_none() ? fill_value.dtype() : dt.as_dtype());
}

Type full_like_relation(const std::vector<Type>& args, const Attrs&) {
  scalar_fill_value(args, 1);
  return tensor_arg(args, 0, "data");
}

Type cast_relation(const std::vector<Type>& args, const Attrs& attrs) {
  return Type::tensor(tensor_arg(args, 0, "data").shape(), attrs.get_dtype("dtype"));
}

/// As the reference's SimplifySameCast, SimplifyConsecutiveCast and
/// SimplifyClipAndConsecutiveCast: a cast to the dtype data has is data, and a
/// cast of a cast that kept every value (a widening, or a narrowing of a
/// clip's result that its range fits) casts the inner data directly. Unlike
/// the reference, int to uint of the same width and float to wider ints do
/// not count as keeping values: they change them.
Expr simplified_cast(const Expr& c) {
  Expr data = c.arg(0);
  DLDataType dtype = c.type().dtype();
  if (data.type().dtype() == dtype) return data;
  if (is_call_of(data, "cast") && casts_exactly(data.arg(0), data.type().dtype())) {
    return call("cast", {data.arg(0)}, {{"dtype", dtype}});
  }
  return {};
}

OpBuilder& init_op(Registrar& reg, const char* name, const char* doc) {
  return reg.op(name)
      .describe(doc)
      .attr_required("shape", WEFT_ATTR_ANY, "The output shape.", "an int or a list of ints")
      .normalize(int_list_normal)
      .attr_required("dtype", WEFT_ATTR_DTYPE, "The output dtype.", "a dtype such as \"float32\"")
      .support_level(3)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(init_relation);
}

OpBuilder& like_op(Registrar& reg, const char* name, const char* doc) {
  return reg.op(name)
      .describe(doc)
      .input("data", "Tensor", "The tensor whose shape and dtype the result takes.")
      .support_level(4)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(identity_relation)
      .infer_layout(layouts::elementwise);
}

/// out = value at every element (zeros, ones).
TeCompute fill_te(const char* name, double value) {
  return [name, value](const std::vector<te::Tensor>&, const Attrs&, const Type& out) {
    te_require_number(out.dtype(), name, true);
    return te_one(te::compute(
        out.shape(), [&](const te::Idx&) { return te::make_const(out.dtype(), value); }, name));
  };
}

/// out[i] = in[i] converted (or the scalar in converted, for full).
TeCompute convert_te_compute(const char* name, size_t input, bool scalar) {
  return [name, input, scalar](const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
    const te::Tensor& x = in.at(input);
    te_require_number(x.dtype(), name, true);
    te_require_number(out.dtype(), name, true);
    if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), name));
    return te_one(te::compute(
        out.shape(),
        [&](const te::Idx& i) { return te::cast(out.dtype(), scalar ? x(std::vector<te::Expr>{}) : x(i)); }, name));
  };
}

}  // namespace

void register_init_cast_ops(Registrar& reg) {
  init_op(reg, "zeros", "A tensor of the given shape and dtype filled with zeros.")
      .kernel([](const KernelArgs& k) { fill(k.outputs.at(0), 0, "zeros"); })
      .te_compute(fill_te("zeros", 0))
      .gradient([](const Expr&, const Expr&) { return std::vector<Expr>{}; });
  init_op(reg, "ones", "A tensor of the given shape and dtype filled with ones.")
      .kernel([](const KernelArgs& k) { fill(k.outputs.at(0), 1, "ones"); })
      .te_compute(fill_te("ones", 1))
      .gradient([](const Expr&, const Expr&) { return std::vector<Expr>{}; });
  reg.op("full")
      .describe("A tensor of the given shape filled with the scalar fill_value, converted to dtype.")
      .input("fill_value", "Tensor", "The value to fill with (rank 0).")
      .attr("shape", WEFT_ATTR_ANY, Value(std::vector<int64_t>{}), "The output shape.", "an int or a list of ints")
      .normalize(int_list_normal)
      .attr_optional("dtype", WEFT_ATTR_DTYPE, "The output dtype; None takes fill_value's.",
                     "a dtype such as \"float32\", or None")
      .support_level(3)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(full_relation)
      .kernel([](const KernelArgs& k) { convert(k.inputs.at(0), k.outputs.at(0), "full", true); })
      .te_compute(convert_te_compute("full", 0, true))
      .gradient([](const Expr& c, const Expr& g) {
        return std::vector<Expr>{grad::cast_like(grad::collapse_sum_like(g, c.arg(0)), c.arg(0))};
      });

  like_op(reg, "zeros_like", "Zeros with the shape and dtype of data.")
      .kernel([](const KernelArgs& k) { fill(k.outputs.at(0), 0, "zeros_like"); })
      .te_compute(fill_te("zeros_like", 0))
      .rewrite("simplify_expr", concretized("zeros", {}, "shape", true))
      .gradient([](const Expr& c, const Expr&) { return std::vector<Expr>{grad::zeros_like(c.arg(0))}; });
  like_op(reg, "ones_like", "Ones with the shape and dtype of data.")
      .kernel([](const KernelArgs& k) { fill(k.outputs.at(0), 1, "ones_like"); })
      .te_compute(fill_te("ones_like", 1))
      .rewrite("simplify_expr", concretized("ones", {}, "shape", true))
      .gradient([](const Expr& c, const Expr&) { return std::vector<Expr>{grad::zeros_like(c.arg(0))}; });
  reg.op("full_like")
      .describe("The scalar fill_value in the shape and dtype of data.")
      .input("data", "Tensor", "The tensor whose shape and dtype the result takes.")
      .input("fill_value", "Tensor", "The value to fill with (rank 0).")
      .support_level(3)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(full_like_relation)
      .kernel([](const KernelArgs& k) { convert(k.inputs.at(1), k.outputs.at(0), "full_like", true); })
      .te_compute(convert_te_compute("full_like", 1, true))
      .rewrite("simplify_expr", concretized("full", {1}, "shape", true))
      .gradient([](const Expr& c, const Expr& g) {
        Expr fill = c.arg(1);
        return std::vector<Expr>{grad::zeros_like(c.arg(0)),
                                 grad::cast_like(grad::collapse_sum_like(g, grad::cast_like(fill, c)), fill)};
      });

  reg.op("copy")
      .describe("A copy of data.")
      .input("data", "Tensor", "The input tensor.")
      .support_level(3)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(identity_relation)
      .infer_layout(layouts::elementwise)
      .kernel([](const KernelArgs& k) {
        const TensorView& out = k.outputs.at(0);
        std::memcpy(mutable_bytes_of(out), bytes_of(k.inputs.at(0)), out.numel() * out.element_bytes());
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs&, const Type& out) {
        const te::Tensor& x = in.at(0);
        if (te_is_empty(out.shape())) return te_one(te_empty(out.shape(), out.dtype(), "copy"));
        return te_one(te::compute(out.shape(), [&](const te::Idx& i) { return x(i); }, "copy"));
      })
      .gradient([](const Expr&, const Expr& g) { return std::vector<Expr>{g}; });
  reg.op("cast")
      .describe("data converted elementwise to dtype (C conversion; nonzero, not NaN, is true for bool).")
      .input("data", "Tensor", "The input tensor.")
      .attr_required("dtype", WEFT_ATTR_DTYPE, "The target dtype.", "a dtype such as \"int32\"")
      .support_level(3)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(cast_relation)
      .infer_layout(layouts::elementwise)
      .kernel([](const KernelArgs& k) { convert(k.inputs.at(0), k.outputs.at(0), "cast", false); })
      .te_compute(convert_te_compute("cast", 0, false))
      .gradient([](const Expr& c, const Expr& g) { return std::vector<Expr>{grad::cast_like(g, c.arg(0))}; })
      .rewrite("simplify_expr", simplified_cast)
      .rewrite("simplify_expr_post_alter_op", simplified_cast);
}

}  // namespace weft_tensor

// nn.dilate: spreads data apart by strides, filling the gaps with
// dilation_value, as TOPI's dilate computes it.
#include <string>
#include <vector>

#include <weft/sdk/gradient.hpp>

#include "te_util.h"
#include "transform.h"

namespace weft_nn {

using namespace weft::sdk;

void register_dilate_op(Registrar& reg) {
  reg.op("nn.dilate")
      .describe(
          "Dilates data: out[i * strides] = data[i] on every axis, and dilation_value everywhere else; each "
          "axis of extent n becomes (n - 1) * stride + 1.")
      .input("x", "Tensor", "Data to dilate, any layout.")
      .attr("strides", std::vector<int64_t>{1, 1}, "Dilation stride of each axis; 1 means none.",
            "one int >= 1 per axis")
      .attr("dilation_value", 0.0, "The value of the inserted elements.")
      .support_level(10)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& x = transform::tensor_arg(args, 0, "x");
        std::vector<int64_t> strides = attrs.get_ints("strides");
        std::vector<int64_t> shape = x.shape();
        if (strides.size() != shape.size()) {
          throw Error("strides " + transform::shape_text(strides) + " has " + std::to_string(strides.size()) +
                      " values but x " + x.str() + " has " + std::to_string(shape.size()) +
                      " dimensions; expected one stride per axis");
        }
        for (size_t i = 0; i < shape.size(); ++i) {
          if (strides[i] < 1) {
            throw Error("strides[" + std::to_string(i) + "] is " + std::to_string(strides[i]) + "; expected >= 1");
          }
          if (shape[i] != WEFT_DIM_ANY && shape[i] > 0)
            shape[i] = checked_field("strides", [&] { return ((CheckedInt(shape[i]) - 1) * strides[i] + 1).value(); });
        }
        return Type::tensor(shape, x.dtype());
      })
      .kernel([](const KernelArgs& k) {
        const TensorView& in = k.inputs.at(0);
        const TensorView& out = k.outputs.at(0);
        std::vector<int64_t> strides = k.attrs.get_ints("strides");
        std::vector<int64_t> in_strides = transform::strides_of(in.shape());
        transform::gather(in, out, transform::scalar_bytes(out.dtype(), k.attrs.get_float("dilation_value")),
                          [&](const std::vector<int64_t>& idx) {
                            int64_t offset = 0;
                            for (size_t d = 0; d < idx.size(); ++d) {
                              if (idx[d] % strides[d] != 0) return int64_t{-1};
                              offset += idx[d] / strides[d] * in_strides[d];
                            }
                            return offset;
                          });
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const te::Tensor& x = in.at(0);
        if (!te_util::is_plain(x.dtype())) throw Unsupported("nn.dilate: no TE for dtype " + dtype_name(x.dtype()));
        std::vector<int64_t> strides = attrs.get_ints("strides");
        for (int64_t d : out.shape()) {
          if (d == 0) throw Unsupported("nn.dilate: no TE for an empty result");
        }
        te::Expr fill = te::make_const(x.dtype(), attrs.get_float("dilation_value"));
        return te::compute(
            out.shape(),
            [&](const te::Idx& i) {
              te::Idx j = i;
              te::Expr on;
              for (size_t d = 0; d < i.size(); ++d) {
                if (strides[d] == 1) continue;
                te::Expr s(strides[d]);
                j[d] = te::floordiv(i[d], s);
                te::Expr hit = equal(te::floormod(i[d], s), te::Expr(0));
                on = on.get() ? te::logical_and(on, hit) : hit;
              }
              return on.get() ? te::select(on, x(j), fill) : x(j);
            },
            "dilate");
      })
      .gradient([](const Expr& c, const Expr& g) {
        // Only the elements at multiples of the strides came from x: take those (TVM's _tensor_grad.py).
        std::vector<int64_t> end = grad::static_shape(c, "nn.dilate's result");
        return std::vector<Expr>{call("strided_slice", {g},
                                      {{"begin", std::vector<int64_t>(end.size(), 0)},
                                       {"end", end},
                                       {"strides", c.attrs().get_value("strides")}})};
      });
}

}  // namespace weft_nn

// nn.space_to_batch_nd and nn.batch_to_space_nd: moving blocks of the M
// spatial axes (those after the batch axis) into the batch axis and back, as
// Relay's nn.cc types them and TOPI computes them (TensorFlow's semantics).
// Batch index b * prod(block_shape) ... is laid out as block_offset * batch + n,
// the block offsets flattened with the first spatial axis outermost.
#include <string>
#include <vector>

#include "te_util.h"
#include "transform.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;
using transform::IntPairs;

/// block_shape checked against data; returns the block product.
int64_t check_blocks(const Type& data, const std::vector<int64_t>& block, const IntPairs& pairs,
                     const char* pairs_attr) {
  size_t rank = data.ndim();
  if (block.empty() || block.size() >= rank) {
    throw Error("block_shape " + transform::shape_text(block) + " does not fit data " + data.str() +
                "; expected 1 to " + std::to_string(rank - 1) + " spatial block sizes");
  }
  if (pairs.size() != block.size()) {
    throw Error(std::string(pairs_attr) + " has " + std::to_string(pairs.size()) + " pairs but block_shape " +
                transform::shape_text(block) + " has " + std::to_string(block.size()) +
                " values; expected one pair per spatial axis");
  }
  int64_t product = 1;
  for (size_t i = 0; i < block.size(); ++i) {
    if (block[i] < 1)
      throw Error("block_shape[" + std::to_string(i) + "] is " + std::to_string(block[i]) + "; expected >= 1");
    if (pairs[i].first < 0 || pairs[i].second < 0) {
      throw Error(std::string(pairs_attr) + "[" + std::to_string(i) + "] = [" + std::to_string(pairs[i].first) + ", " +
                  std::to_string(pairs[i].second) + "] is negative; expected values >= 0");
    }
    product = checked_field("block_shape", [&] { return (CheckedInt(product) * block[i]).value(); });
  }
  return product;
}

/// Splits a flat block offset into per-axis offsets, the last axis fastest.
void split_offset(int64_t flat, const std::vector<int64_t>& block, std::vector<int64_t>& out) {
  for (size_t i = block.size(); i-- > 0;) {
    out[i] = flat % block[i];
    flat /= block[i];
  }
}

}  // namespace

void register_space_batch_ops(Registrar& reg) {
  reg.op("nn.space_to_batch_nd")
      .describe(
          "Pads the M spatial axes of data (batch, spatial..., remaining...) by paddings, divides them into "
          "block_shape blocks and interleaves the blocks into the batch axis: (batch * prod(block_shape), "
          "padded[i] / block_shape[i]..., remaining...).")
      .input("data", "Tensor", "N-D data (batch, spatial..., remaining...).")
      .attr("block_shape", std::vector<int64_t>{1, 1}, "The block size of each spatial axis.", "ints >= 1")
      .attr_required("paddings", WEFT_ATTR_LIST, "[before, after] padding of each spatial axis.",
                     "one [before, after] pair per spatial axis")
      .normalize(transform::int_pairs_normalizer("paddings"))
      .attr("pad_value", 0.0, "The value of the padded area.")
      .support_level(5)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& data = transform::tensor_arg(args, 0, "data");
        std::vector<int64_t> block = attrs.get_ints("block_shape");
        IntPairs pads = transform::get_pairs(attrs, "paddings");
        int64_t product = check_blocks(data, block, pads, "paddings");
        std::vector<int64_t> shape = data.shape();
        if (shape[0] != WEFT_DIM_ANY)
          shape[0] = checked_field("block_shape", [&] { return (CheckedInt(shape[0]) * product).value(); });
        for (size_t i = 0; i < block.size(); ++i) {
          int64_t& d = shape[i + 1];
          if (d == WEFT_DIM_ANY) continue;
          const int64_t padded =
              checked_field("paddings", [&] { return (CheckedInt(d) + pads[i].first + pads[i].second).value(); });
          if (padded % block[i] != 0) {
            throw Error("block_shape[" + std::to_string(i) + "] = " + std::to_string(block[i]) +
                        " does not divide the padded extent " + std::to_string(padded) + " of axis " +
                        std::to_string(i + 1) + " of data " + data.str());
          }
          d = padded / block[i];
        }
        return Type::tensor(shape, data.dtype());
      })
      .kernel([](const KernelArgs& k) {
        const TensorView& in = k.inputs.at(0);
        const TensorView& out = k.outputs.at(0);
        std::vector<int64_t> block = k.attrs.get_ints("block_shape");
        IntPairs pads = transform::get_pairs(k.attrs, "paddings");
        std::vector<int64_t> in_shape = in.shape(), strides = transform::strides_of(in_shape);
        std::vector<int64_t> offset(block.size());
        transform::gather(in, out, transform::scalar_bytes(out.dtype(), k.attrs.get_float("pad_value")),
                          [&](const std::vector<int64_t>& idx) {
                            split_offset(idx[0] / in_shape[0], block, offset);
                            int64_t src = (idx[0] % in_shape[0]) * strides[0];
                            for (size_t d = 1; d < idx.size(); ++d) {
                              int64_t i = idx[d];
                              if (d <= block.size()) {
                                i = i * block[d - 1] + offset[d - 1] - pads[d - 1].first;
                                if (i < 0 || i >= in_shape[d]) return int64_t{-1};
                              }
                              src += i * strides[d];
                            }
                            return src;
                          });
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const te::Tensor& x = in.at(0);
        if (!te_util::is_plain(x.dtype())) throw Unsupported("nn.space_to_batch_nd: no TE for this dtype");
        std::vector<int64_t> block = attrs.get_ints("block_shape");
        IntPairs pads = transform::get_pairs(attrs, "paddings");
        std::vector<int64_t> in_shape = x.shape();
        for (int64_t d : in_shape) {
          if (d == 0) throw Unsupported("nn.space_to_batch_nd: no TE for empty data");
        }
        te::Expr fill = te::make_const(x.dtype(), attrs.get_float("pad_value"));
        return te::compute(
            out.shape(),
            [&](const te::Idx& o) {
              // The block offset of each spatial axis from o[0] / batch, last axis fastest.
              te::Expr flat = in_shape[0] == 1 ? o[0] : te::floordiv(o[0], te::Expr(in_shape[0]));
              std::vector<int64_t> block_shape(block.begin(), block.end());
              te::Idx offset = te_util::unravel(flat, block_shape);
              te::Idx j = o;
              j[0] = in_shape[0] == 1 ? te::Expr(0) : te::floormod(o[0], te::Expr(in_shape[0]));
              te::Expr inside;
              for (size_t d = 1; d <= block.size(); ++d) {
                te::Expr i = o[d] * te::Expr(block[d - 1]) + offset[d - 1] - te::Expr(pads[d - 1].first);
                te::Expr ok = te::logical_and(i >= 0, i < te::Expr(in_shape[d]));
                inside = inside.get() ? te::logical_and(inside, ok) : ok;
                j[d] = te_util::clamp(i, 0, in_shape[d] - 1);
              }
              return te::select(inside, x(j), fill);
            },
            "space_to_batch_nd");
      })
      .gradient([](const Expr& c, const Expr& g) {
        // batch_to_space_nd cropping the padding undoes it; padded elements get no gradient.
        return std::vector<Expr>{call("nn.batch_to_space_nd", {g},
                                      {{"block_shape", c.attrs().get_value("block_shape")},
                                       {"crops", c.attrs().get_value("paddings")}})};
      });

  reg.op("nn.batch_to_space_nd")
      .describe(
          "The inverse of space_to_batch_nd: moves blocks of the batch axis of data (batch, spatial..., "
          "remaining...) back into the M spatial axes and crops them: (batch / prod(block_shape), "
          "spatial[i] * block_shape[i] - crops[i][0] - crops[i][1]..., remaining...).")
      .input("data", "Tensor", "N-D data (batch, spatial..., remaining...).")
      .attr("block_shape", std::vector<int64_t>{1, 1}, "The block size of each spatial axis.", "ints >= 1")
      .attr_required("crops", WEFT_ATTR_LIST, "[begin, end] crop of each spatial axis.",
                     "one [begin, end] pair per spatial axis")
      .normalize(transform::int_pairs_normalizer("crops"))
      .support_level(5)
      .pattern(WEFT_PATTERN_INJECTIVE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& data = transform::tensor_arg(args, 0, "data");
        std::vector<int64_t> block = attrs.get_ints("block_shape");
        IntPairs crops = transform::get_pairs(attrs, "crops");
        int64_t product = check_blocks(data, block, crops, "crops");
        std::vector<int64_t> shape = data.shape();
        if (shape[0] != WEFT_DIM_ANY) {
          if (shape[0] % product != 0) {
            throw Error("the batch of data " + data.str() + " is not a multiple of prod(block_shape " +
                        transform::shape_text(block) + ") = " + std::to_string(product));
          }
          shape[0] /= product;
        }
        for (size_t i = 0; i < block.size(); ++i) {
          int64_t& d = shape[i + 1];
          if (d == WEFT_DIM_ANY) continue;
          const int64_t unblocked = checked_field("block_shape", [&] { return (CheckedInt(d) * block[i]).value(); });
          const int64_t extent = unblocked - crops[i].first - crops[i].second;  // crops are >= 0: no overflow
          if (extent < 0) {
            throw Error("crops[" + std::to_string(i) + "] = [" + std::to_string(crops[i].first) + ", " +
                        std::to_string(crops[i].second) + "] exceed the extent " + std::to_string(unblocked) +
                        " of axis " + std::to_string(i + 1) + " of data " + data.str() + " after unblocking");
          }
          d = extent;
        }
        return Type::tensor(shape, data.dtype());
      })
      .kernel([](const KernelArgs& k) {
        const TensorView& in = k.inputs.at(0);
        const TensorView& out = k.outputs.at(0);
        std::vector<int64_t> block = k.attrs.get_ints("block_shape");
        IntPairs crops = transform::get_pairs(k.attrs, "crops");
        std::vector<int64_t> strides = transform::strides_of(in.shape());
        const int64_t batch = out.shape()[0];
        transform::gather(in, out, {}, [&](const std::vector<int64_t>& idx) {
          int64_t flat = 0, src = 0;
          for (size_t d = 1; d < idx.size(); ++d) {
            int64_t i = idx[d];
            if (d <= block.size()) {
              int64_t padded = i + crops[d - 1].first;
              flat = flat * block[d - 1] + padded % block[d - 1];
              i = padded / block[d - 1];
            }
            src += i * strides[d];
          }
          return src + (flat * batch + idx[0]) * strides[0];
        });
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const te::Tensor& x = in.at(0);
        std::vector<int64_t> block = attrs.get_ints("block_shape");
        IntPairs crops = transform::get_pairs(attrs, "crops");
        const int64_t batch = out.shape()[0];
        return te::compute(
            out.shape(),
            [&](const te::Idx& o) {
              te::Idx j = o;
              te::Expr flat(0);
              for (size_t d = 1; d <= block.size(); ++d) {
                te::Expr padded = o[d] + te::Expr(crops[d - 1].first);
                te::Expr b(block[d - 1]);
                flat = d == 1 ? te::floormod(padded, b) : flat * b + te::floormod(padded, b);
                j[d] = te::floordiv(padded, b);
              }
              j[0] = flat * te::Expr(batch) + o[0];
              return x(j);
            },
            "batch_to_space_nd");
      })
      .gradient([](const Expr& c, const Expr& g) {
        // space_to_batch_nd padding back what was cropped (with zeros: cropped elements get no gradient).
        return std::vector<Expr>{call("nn.space_to_batch_nd", {g},
                                      {{"block_shape", c.attrs().get_value("block_shape")},
                                       {"paddings", c.attrs().get_value("crops")},
                                       {"pad_value", 0.0}})};
      });
}

}  // namespace weft_nn

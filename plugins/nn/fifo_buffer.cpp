// nn.fifo_buffer: appends data to a sliding-window buffer along one axis and
// drops as many of the oldest entries, as Relay's FIFOBufferRel and TOPI's
// fifo_buffer define it.
#include <string>
#include <vector>
#include <weft/sdk/gradient.hpp>

#include "te_util.h"
#include "transform.h"

namespace weft_nn {

using namespace weft::sdk;

void register_fifo_buffer_op(Registrar& reg) {
  reg.op("nn.fifo_buffer")
      .describe(
          "FIFO buffer: concatenate(buffer, data, axis) sliced to its last buffer.shape[axis] entries along "
          "axis. Reuses computation in convolutions over a sliding window (e.g. Fast WaveNet).")
      .input("data", "Tensor", "The latest input.")
      .input("buffer", "Tensor", "The buffer of the latest buffer.shape[axis] inputs.")
      .attr("axis", int64_t{0}, "The axis to buffer along; negative counts from the end.")
      .support_level(3)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation([](const std::vector<Type>& args, const Attrs& attrs) {
        const Type& data = transform::tensor_arg(args, 0, "data");
        const Type& buffer = transform::tensor_arg(args, 1, "buffer");
        std::vector<int64_t> d = data.shape(), b = buffer.shape();
        auto mismatch = [&](const std::string& why) {
          return Error("data " + data.str() + " does not fit buffer " + buffer.str() + ": " + why);
        };
        if (d.size() != b.size()) throw mismatch("their ranks differ");
        if (data.dtype() != buffer.dtype()) throw mismatch("their dtypes differ");
        int64_t rank = static_cast<int64_t>(b.size());
        int64_t axis = attrs.get_int("axis");
        if (axis < -rank || axis >= rank) {
          throw Error("axis " + std::to_string(axis) + " is out of range for buffer " + buffer.str() + "; expected -" +
                      std::to_string(rank) + " <= axis < " + std::to_string(rank));
        }
        if (axis < 0) axis += rank;
        for (int64_t i = 0; i < rank; ++i) {
          if (d[i] == WEFT_DIM_ANY || b[i] == WEFT_DIM_ANY) continue;
          if (i != axis && d[i] != b[i]) throw mismatch("dimension " + std::to_string(i) + " differs");
          if (i == axis && d[i] >= b[i]) throw mismatch("data must be shorter than the buffer along the axis");
        }
        return buffer;
      })
      .kernel([](const KernelArgs& k) {
        const TensorView& data = k.inputs.at(0);
        const TensorView& buffer = k.inputs.at(1);
        const TensorView& out = k.outputs.at(0);
        int64_t axis = k.attrs.get_int("axis");
        if (axis < 0) axis += out.ndim();
        const int64_t shift = data.shape()[axis], length = buffer.shape()[axis];
        // Entry j of the output along axis is buffer[j + shift] while that
        // exists, else data[j + shift - length].
        const size_t es = transform::element_bytes(out.dtype());
        int64_t outer = 1, inner = 1;
        for (int64_t i = 0; i < axis; ++i) outer *= out.shape()[i];
        for (int64_t i = axis + 1; i < out.ndim(); ++i) inner *= out.shape()[i];
        const char* b = static_cast<const char*>(buffer.dl().data) + buffer.dl().byte_offset;
        const char* d = static_cast<const char*>(data.dl().data) + data.dl().byte_offset;
        char* o = static_cast<char*>(out.dl().data) + out.dl().byte_offset;
        for (int64_t p = 0; p < outer; ++p) {
          for (int64_t j = 0; j < length; ++j) {
            int64_t src = j + shift;
            const char* from =
                src < length ? b + ((p * length + src) * inner) * es : d + ((p * shift + (src - length)) * inner) * es;
            std::memcpy(o + ((p * length + j) * inner) * es, from, inner * es);
          }
        }
      })
      .te_compute([](const std::vector<te::Tensor>& in, const Attrs& attrs, const Type& out) {
        const te::Tensor &data = in.at(0), &buffer = in.at(1);
        const std::vector<int64_t> shape = buffer.shape();
        int64_t axis = attrs.get_int("axis");
        if (axis < 0) axis += static_cast<int64_t>(shape.size());
        const int64_t shift = data.shape()[axis], length = shape[axis];
        for (int64_t d : shape) {
          if (d == 0) throw Unsupported("nn.fifo_buffer: no TE for an empty buffer");
        }
        return te::compute(
            out.shape(),
            [&](const te::Idx& i) {
              // Entry j is the buffer's j + shift, or past its end the data's j + shift - length.
              te::Expr src = i[axis] + te::Expr(shift);
              te::Idx from_buffer = i, from_data = i;
              from_buffer[axis] = te_util::clamp(src, 0, length - 1);
              if (shift == 0) return buffer(from_buffer);
              from_data[axis] = te_util::clamp(src - te::Expr(length), 0, shift - 1);
              return te::select(src < te::Expr(length), buffer(from_buffer), data(from_data));
            },
            "fifo_buffer");
      })
      .gradient([](const Expr& c, const Expr& g) {
        // The result is concatenate(buffer, data)[shift:] along axis: its gradient with zeros for the
        // shift entries dropped splits back into the buffer's first length entries and data's last shift.
        std::vector<int64_t> shape = grad::static_shape(c.arg(1), "nn.fifo_buffer's buffer");
        const int64_t rank = static_cast<int64_t>(shape.size());
        int64_t axis = c.attrs().get_int("axis");
        if (axis < 0) axis += rank;
        const int64_t shift = grad::static_shape(c.arg(0), "nn.fifo_buffer's data")[axis], length = shape[axis];
        std::vector<Value> widths(shape.size(), Value(std::vector<int64_t>{0, 0}));
        widths[axis] = Value(std::vector<int64_t>{shift, 0});
        Expr whole = call("nn.pad", {g, grad::scalar_like(c, 0.0)}, {{"pad_width", widths}});
        auto entries = [&](int64_t begin, int64_t end) {
          std::vector<int64_t> b(shape.size(), 0), e = shape;
          b[axis] = begin;
          e[axis] = end;
          return call("strided_slice", {whole}, {{"begin", b}, {"end", e}});
        };
        return std::vector<Expr>{entries(length, length + shift), entries(0, length)};
      });
}

}  // namespace weft_nn

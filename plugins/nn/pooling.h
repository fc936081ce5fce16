// Shared pieces of the pooling family: which axes of a layout are pooled,
// the window attributes as Relay's nn.py normalizes them, the output extent
// rule of Relay's pooling relations. Kernel loops are in kernel_loops.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <weft/plugin.hpp>

#include "kernel_loops.h"

namespace weft_nn::pooling {

using weft::sdk::Attrs;
using weft::sdk::Error;
using weft::sdk::KernelArgs;
using weft::sdk::OpBuilder;
using weft::sdk::Registrar;
using weft::sdk::TensorView;
using weft::sdk::Type;
using weft::sdk::Value;

/// global_*_pool2d and adaptive_*_pool1d/2d/3d (pooling_adaptive.cpp).
void register_adaptive_pooling_ops(Registrar& reg);
/// Which inputs each output of one pooled axis reads: an (out x in) 0/1
/// matrix, row-major, for the `i`-th pooled axis.
using WindowMembership = std::function<std::vector<double>(size_t i, int64_t out, int64_t in)>;

/// The gradient of a max pooling `c` (its data is arg 0) over `axes` whose
/// windows are boxes of the per-axis `membership`: each pooled axis becomes an
/// (out, in) pair of axes, and an output's gradient goes to the data equal to
/// it inside its window, shared equally among ties (pooling_adaptive.cpp).
weft::sdk::Expr window_max_gradient(const weft::sdk::Expr& c, const weft::sdk::Expr& g,
                                    const std::vector<size_t>& axes, const WindowMembership& membership);

/// max_pool2d_grad and avg_pool2d_grad (pooling_grad.cpp).
void register_pool_grad_ops(Registrar& reg);

/// "(1, 3, 4, 4)", "?" for dynamic dims.
std::string shape_str(const std::vector<int64_t>& shape);

/// The positions of the pooled axes `spatial` (e.g. "DHW") in `layout`, in
/// that order. A layout names one axis per letter, upper case for primal
/// axes and "16c" for a block of one (Relay's notation); the pooled axes must
/// be primal and unsplit, and the layout must have one axis per dimension of
/// `data`. Throws an Error naming the layout and the data type otherwise.
std::vector<size_t> pooled_axes(const std::string& layout, const std::string& spatial, const Type& data);
/// A pool's layout hook (Relay's PoolInferCorrectLayout): the pool runs in
/// the layout its input arrives in (its layout attr set to it) unless that
/// splits or lacks a pooled axis of `spatial`, or its out_layout is set (by
/// the user, or by ConvertLayout: the pool then keeps its layout attr).
weft::sdk::InferredLayouts pool_layouts(const std::string& spatial, const weft::sdk::Attrs& attrs,
                                        const std::vector<weft::sdk::Layout>& new_in);
/// Relay's convert_max_pool2d and its kin (ConvertLayout): the 2-d pool `c`
/// with layout and out_layout set to the one desired layout.
weft::sdk::Expr convert_pool(const weft::sdk::Expr& c, const std::vector<std::string>& desired);

/// `out_layout` must be empty or equal to `layout`: pooling never changes a
/// layout (Relay's PoolInferCorrectLayout checks the same).
void check_out_layout(const Attrs& attrs);

/// Checks the call has `count` tensor arguments and returns the last one,
/// the pooled data (the pooling gradients take out_grad first).
Type data_arg(const std::vector<Type>& args, size_t count);

// ---- Attributes ------------------------------------------------------------------------------

/// Declares an attribute that takes an int (repeated `n` times) or `n` ints,
/// normalized to `n` ints; `min` is the smallest value allowed.
void int_tuple_attr(OpBuilder& op, const std::string& name, size_t n, int64_t default_value, int64_t min,
                    const std::string& doc);
/// Declares `padding` for `n` pooled axes, normalized as Relay's
/// get_pad_tuple1d/2d/3d: an int or 1 int pads every side, n ints pad both
/// sides of each axis, 2n ints give all heads then all tails.
void padding_attr(OpBuilder& op, size_t n, const std::string& doc);

/// A pooling window over `n` axes, read from normalized attrs.
struct Window {
  std::vector<int64_t> size, strides, dilation, pad_head, pad_tail;
  bool ceil_mode = false;
};
/// Reads pool_size, strides, padding, ceil_mode and, when the schema has it,
/// dilation (1 otherwise).
Window read_window(const Attrs& attrs, size_t n, bool has_dilation = true);

/// Relay's calculate_pool_dimension: the pooled extent of an axis of
/// `extent` elements. Throws when the dilated window is larger than the
/// padded input, ceil_mode's tail extension included (the message names the
/// axis and the data type).
int64_t pooled_extent(int64_t extent, const Window& w, size_t i, const std::string& axis_name, const Type& data);

/// A windowed pooling's normalized attrs read once against its data's type:
/// the type relation, kernel and gradient of max/avg pooling and of their
/// _grad ops all take layout, window and divisor rule from here. The kernel
/// ABI hands a kernel only the call's attrs (no per-call-site state to keep
/// this in), so kernels read it again on each call.
struct PoolAttrs {
  std::string spatial;       // the pooled axes' letters, e.g. "HW"
  std::vector<size_t> axes;  // their positions in the layout, in `spatial`'s order
  Window window;
  bool count_include_pad = false;  // average pooling's divisor rule; false for max pooling

  /// Reads layout (which must have `spatial`, see pooled_axes), out_layout,
  /// the window and, unless `is_max`, count_include_pad.
  static PoolAttrs read(const Attrs& attrs, const std::string& spatial, bool is_max, const Type& data);

  /// The pooled output shape of `data`: pooled_extent on each pooled axis.
  std::vector<int64_t> pooled_shape(const Type& data) const;
};

}  // namespace weft_nn::pooling

// weft plugin SDK: data layouts in Relay's notation and the mapping between
// two of them, as TVM's tir::Layout and tir::BijectiveLayout.
//
// A layout names each axis of a tensor by a letter: upper case for a primal
// axis ("NCHW"), lower case after its extent for a subordinate one that holds
// the inner part of the primal axis of that letter ("NCHW16c": C split into
// C/16 outer and 16 inner channels; "OIHW16i16o"). Header-only and free of the
// plugin ABI, so the core (ConvertLayout, AlterOpLayout) and the plugins
// (layout_transform, the convolutions) share one parser.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace weft::sdk {

/// A string that is not a layout, or two layouts that do not convert.
class LayoutError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// One axis: 'C' (primal) or 'c' with its extent (subordinate).
struct LayoutAxis {
  char name = 0;
  int64_t factor = 0;  // 0 for a primal axis

  bool primal() const { return name >= 'A' && name <= 'Z'; }
  /// The letter of the primal axis this axis belongs to ('C' for 'c').
  char primal_name() const { return primal() ? name : static_cast<char>(name - 'a' + 'A'); }
  /// The letter of the subordinate axis of the same primal ('c' for 'C').
  char sub_name() const { return primal() ? static_cast<char>(name - 'A' + 'a') : name; }
};

/// A parsed layout, or the undefined layout ("__undef__", Relay's Layout::Undef):
/// what a value's layout is when nothing has fixed it.
class Layout {
 public:
  /// The undefined layout.
  Layout() = default;
  /// Parses `name`; "" is the layout of a scalar (defined, no axes), "__undef__"
  /// the undefined one. Throws LayoutError saying what is wrong.
  explicit Layout(std::string_view name) {
    if (name == kUndefName) return;
    defined_ = true;
    name_ = std::string(name);
    auto bad = [&](const std::string& why) { return LayoutError("layout '" + name_ + "' is invalid: " + why); };
    int64_t factor = 0;
    bool digits = false;
    for (char ch : name) {
      if (ch >= '0' && ch <= '9') {
        factor = factor * 10 + (ch - '0');
        digits = true;
        if (factor > (int64_t{1} << 30)) throw bad("block size too large");
        continue;
      }
      bool upper = ch >= 'A' && ch <= 'Z', lower = ch >= 'a' && ch <= 'z';
      if (!upper && !lower) throw bad(std::string("'") + ch + "' is not an axis letter");
      if (upper && digits) throw bad(std::string("primal axis ") + ch + " cannot take a block size");
      if (lower && factor <= 0) {
        throw bad(std::string("subordinate axis ") + ch + " needs a positive factor (a block size), as in 8" + ch);
      }
      LayoutAxis axis{ch, upper ? 0 : factor};
      if (index_of(ch) >= 0) throw bad(std::string("axis ") + ch + " appears twice");
      axes_.push_back(axis);
      factor = 0;
      digits = false;
    }
    if (digits) throw bad("it ends with a block size and no axis letter");
    for (const LayoutAxis& a : axes_) {
      if (!a.primal() && !contains(a.primal_name())) {
        throw bad(std::string("subordinate axis ") + a.name + " has no primal axis " + a.primal_name());
      }
    }
  }

  static constexpr std::string_view kUndefName = "__undef__";

  bool defined() const { return defined_; }
  /// The layout as written ("__undef__" when undefined).
  std::string name() const { return defined_ ? name_ : std::string(kUndefName); }
  size_t ndim() const { return axes_.size(); }
  /// The number of primal axes (the rank of the tensor in a plain layout).
  size_t ndim_primal() const {
    size_t n = 0;
    for (const LayoutAxis& a : axes_) n += a.primal();
    return n;
  }
  const std::vector<LayoutAxis>& axes() const { return axes_; }
  const LayoutAxis& operator[](size_t i) const { return axes_.at(i); }
  bool contains(char axis) const { return index_of(axis) >= 0; }
  /// The position of axis letter `axis`, or -1.
  int index_of(char axis) const {
    for (size_t i = 0; i < axes_.size(); ++i) {
      if (axes_[i].name == axis) return static_cast<int>(i);
    }
    return -1;
  }
  /// The extent of the subordinate axis of `axis`'s primal letter ('C' or 'c'), or -1 if it is not split.
  int64_t factor_of(char axis) const {
    char sub = LayoutAxis{axis}.sub_name();
    int i = index_of(sub);
    return i < 0 ? -1 : axes_[i].factor;
  }
  /// The `len` axes from `pos` (clipped at the end), as Relay's SubLayout.
  Layout sub_layout(size_t pos, size_t len) const {
    if (!defined_ || pos > ndim()) return Layout();
    len = std::min(len, ndim() - pos);
    return from_axes({axes_.begin() + pos, axes_.begin() + pos + len});
  }
  /// This layout with primal `axis` split: a subordinate axis of extent `factor` inserted at `pos`.
  Layout split(char axis, size_t pos, int64_t factor) const {
    LayoutAxis primal{axis};
    if (!defined_ || !primal.primal() || !contains(axis) || contains(primal.sub_name()) || factor <= 0 ||
        pos > ndim()) {
      throw LayoutError("cannot split axis " + std::string(1, axis) + " of layout " + name() + " by " +
                        std::to_string(factor) + " at " + std::to_string(pos));
    }
    std::vector<LayoutAxis> axes = axes_;
    axes.insert(axes.begin() + static_cast<std::ptrdiff_t>(pos), LayoutAxis{primal.sub_name(), factor});
    return from_axes(std::move(axes));
  }
  /// Layouts are equal when written the same, as Relay's Layout::Equals.
  bool operator==(const Layout& other) const { return defined_ == other.defined_ && name_ == other.name_; }
  bool operator!=(const Layout& other) const { return !(*this == other); }
  /// Whether data converts between the two: both defined, with the same primal axes.
  bool convertible_to(const Layout& other) const {
    if (!defined_ || !other.defined_ || ndim_primal() != other.ndim_primal()) return false;
    for (const LayoutAxis& a : axes_) {
      if (a.primal() && !other.contains(a.name)) return false;
    }
    return true;
  }

 private:
  static Layout from_axes(std::vector<LayoutAxis> axes) {
    Layout out;
    out.defined_ = true;
    for (const LayoutAxis& a : axes) {
      if (a.factor) out.name_ += std::to_string(a.factor);
      out.name_ += a.name;
    }
    out.axes_ = std::move(axes);
    return out;
  }

  bool defined_ = false;
  std::string name_;
  std::vector<LayoutAxis> axes_;
};

/// The mapping between two layouts of the same primal axes (what
/// layout_transform computes). A primal axis's full extent is its outer extent
/// times its subordinate's; the dst outer extent rounds up, so a shape may gain
/// padding that a backward index lands outside the src shape in.
class BijectiveLayout {
 public:
  /// An unknown extent (Relay's `?`), as WEFT_DIM_ANY.
  static constexpr int64_t kAny = -1;

  /// Throws LayoutError when `src` and `dst` do not hold the same primal axes.
  BijectiveLayout(Layout src, Layout dst) : src_(std::move(src)), dst_(std::move(dst)) {
    if (!src_.convertible_to(dst_)) {
      throw LayoutError("cannot convert layout " + src_.name() + " to " + dst_.name() +
                        ": their primal axes differ");
    }
  }

  const Layout& src() const { return src_; }
  const Layout& dst() const { return dst_; }

  /// The dst shape of a tensor of `shape` in src (Relay's ForwardShape).
  std::vector<int64_t> forward_shape(std::span<const int64_t> shape) const { return map_shape(src_, dst_, shape); }
  /// The src shape of a tensor of `shape` in dst (BackwardShape).
  std::vector<int64_t> backward_shape(std::span<const int64_t> shape) const { return map_shape(dst_, src_, shape); }
  /// The dst index of the element at `index` in src (ForwardIndex).
  std::vector<int64_t> forward_index(std::span<const int64_t> index) const { return map_index(src_, dst_, index); }
  /// The src index of the element at `index` in dst (BackwardIndex).
  std::vector<int64_t> backward_index(std::span<const int64_t> index) const { return map_index(dst_, src_, index); }

 private:
  static void expect_rank(const Layout& layout, size_t rank, const char* what) {
    if (rank != layout.ndim()) {
      throw LayoutError(std::string(what) + " of rank " + std::to_string(rank) + " does not match layout " +
                        layout.name() + " of " + std::to_string(layout.ndim()) + " axes");
    }
  }
  /// Each primal axis's full extent, or full index, from values in `from`.
  /// For a shape, subordinate axes must hold their extent and add nothing.
  static int64_t primal_total(const Layout& from, std::span<const int64_t> values, char primal, bool shape) {
    int64_t total = 0;
    for (size_t i = 0; i < from.ndim(); ++i) {
      const LayoutAxis& a = from[i];
      if (a.primal_name() != primal) continue;
      if (values[i] == kAny) return kAny;
      if (a.primal()) {
        int64_t f = from.factor_of(a.name);
        total += values[i] * (f > 0 ? f : 1);
      } else if (!shape) {
        total += values[i];
      }
    }
    return total;
  }
  static std::vector<int64_t> map_shape(const Layout& from, const Layout& to, std::span<const int64_t> shape) {
    expect_rank(from, shape.size(), "shape");
    for (size_t i = 0; i < shape.size(); ++i) {
      if (!from[i].primal() && shape[i] != kAny && shape[i] != from[i].factor) {
        throw LayoutError("dim " + std::to_string(i) + " is " + std::to_string(shape[i]) + " but layout " +
                          from.name() + " expected " + std::to_string(from[i].factor) + " there");
      }
    }
    std::vector<int64_t> out;
    for (const LayoutAxis& a : to.axes()) {
      if (!a.primal()) {
        out.push_back(a.factor);
        continue;
      }
      int64_t total = primal_total(from, shape, a.name, true), f = to.factor_of(a.name);
      out.push_back(total == kAny || f <= 0 ? total : (total + f - 1) / f);
    }
    return out;
  }
  static std::vector<int64_t> map_index(const Layout& from, const Layout& to, std::span<const int64_t> index) {
    expect_rank(from, index.size(), "index");
    std::vector<int64_t> out;
    for (const LayoutAxis& a : to.axes()) {
      int64_t total = primal_total(from, index, a.primal_name(), false), f = to.factor_of(a.name);
      out.push_back(f <= 0 ? total : a.primal() ? total / f : total % f);
    }
    return out;
  }

  Layout src_, dst_;
};

}  // namespace weft::sdk

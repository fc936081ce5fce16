// The operator registry: op name -> definition. The core defines no operators;
// plugins register them (through plugin.h), tests may register their own.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "weft/attrs.h"
#include "weft/expr.h"
#include "weft/layout.h"
#include "weft/registry.h"
#include "weft/te/tensor.h"
#include "weft/tensor.h"
#include "weft/type.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// How an op combines with neighbours when fusing; values are Relay's.
enum class OpPattern : int {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
};
std::string_view op_pattern_name(OpPattern p);

struct OpInput {
  std::string name;
  std::string type_desc;  // "Tensor", "Tuple of Tensors", ...
  std::string doc;
};

/// Output type from the (fully known) argument types and normalized attrs.
/// Throws weft::Error describing the mismatch; type inference adds the call.
using TypeRelation = std::function<Type(std::span<const Type> arg_types, const Attrs& attrs)>;
/// Types of arguments the others determine, as Relay's relations assign an
/// untyped weight's type from the data's (conv2d from channels and
/// kernel_size, dense from units, bias_add and batch_norm from the data).
/// Gets the argument types as far as known (unknown parts are IncompleteType)
/// and returns, for each argument, the type it must have or a null Type where
/// the op cannot tell yet. Type inference unifies them, then runs the relation
/// once every argument is known.
using InputTypeInference = std::function<std::vector<Type>(std::span<const Type> arg_types, const Attrs& attrs)>;
/// Reads `inputs`, writes the preallocated `outputs` (one per output tensor,
/// tuple outputs flattened in order). Plainly correct, not fast.
using ReferenceKernel =
    std::function<void(std::span<const Tensor> inputs, std::span<const Tensor> outputs, const Attrs& attrs)>;
/// The op's kernel bound to one call site, given that call's argument types
/// and attrs: what the kernel works out from them alone (a convolution's
/// canonical shapes and windows) is worked out here, once, and the kernel
/// returned reuses it on every run of that call (ABI 1.8's prepared kernels).
using KernelPreparation = std::function<ReferenceKernel(std::span<const Type> arg_types, const Attrs& attrs)>;
/// The op's outputs as tensor expressions (docs/te.md) over `inputs`,
/// placeholders of the call's input tensors (a tuple argument's fields one by
/// one): one tensor per output tensor of `out_type`, of its shape and dtype.
/// Throws Error with StatusCode::kUnsupported where the op has no TE for this
/// call (a data-dependent shape).
using TeCompute = std::function<std::vector<te::Tensor>(std::span<const te::Tensor> inputs, const Attrs& attrs,
                                                        const Type& out_type)>;
/// Gradients of each input given the original call and the gradient of its
/// output, as IR (so AD runs on any target).
using Gradient = std::function<std::vector<Expr>(const Call& call, const Expr& output_grad)>;
/// An IR-to-IR rewrite of one call, e.g. "simplify_inference" for batch_norm.
using CallRewrite = std::function<Expr(const Call& call)>;

/// What an op needs for a layout of its inputs (Relay's InferCorrectLayoutOutput):
/// one layout per input tensor (the fields of a tuple argument count one by one),
/// one per output tensor, and the attrs that go with them (a reduction's axis, a
/// conv's data_layout, or the call's own attrs when nothing depends on layout).
struct InferredLayouts {
  std::vector<Layout> inputs;
  std::vector<Layout> outputs;
  Attrs attrs;
};
/// Relay's FInferCorrectLayout. `new_in` holds the layouts the inputs arrive in
/// after a rewrite (empty on the first call, which asks what the op needs as
/// it stands), `old_in` those they had before, either undefined where not
/// known; `old_in_types` are the argument types before the rewrite (a tuple
/// argument's is its TupleType). An undefined layout in the result means the
/// op cannot follow: its inputs go back to their old layouts.
using LayoutInference = std::function<InferredLayouts(const Attrs& attrs, std::span<const Layout> new_in,
                                                      std::span<const Layout> old_in,
                                                      std::span<const Type> old_in_types)>;
/// Relay's FTVMConvertOpLayout: the call (typed arguments) rebuilt for the
/// user's desired layouts, one per input ("default" where the op picks), e.g.
/// conv2d with data_layout NHWC and kernel_layout HWIO; a null Expr leaves it.
/// The result calls an op with the same number of arguments.
using LayoutConversion = std::function<Expr(const Call& call, std::span<const std::string> desired_layouts)>;

struct OpDef {
  std::string name;
  std::string description;
  std::vector<OpInput> inputs;
  bool variadic = false;  // accepts any number of inputs
  AttrSchema attrs;
  TypeRelation relation;
  InputTypeInference infer_inputs;  // may be empty: arguments must be typed by their producers
  OpPattern pattern = OpPattern::kOpaque;
  /// The output is the first input's bytes under another shape (Relay's
  /// TReshapeOp): the graph executor runs a group of only such ops as a view.
  bool is_reshape = false;
  /// A layer ConvertLayout's skip_layers counts (Relay's LayoutConfig, which
  /// conv2d's and deformable_conv2d's convert hooks consult).
  bool is_layout_layer = false;
  ReferenceKernel kernel;     // may be empty
  KernelPreparation prepare_kernel;  // may be empty: `kernel` works everything out on each run
  TeCompute te_compute;       // may be empty: the op has no TE, so TE targets do not run it
  Gradient gradient;          // may be empty: the op is not differentiable
  std::map<std::string, CallRewrite> rewrites;
  LayoutInference infer_layout;     // may be empty: the op needs its inputs as they were
  LayoutConversion convert_layout;  // may be empty: ConvertLayout cannot choose the op's layouts
  int support_level = 10;
  std::string plugin;  // which plugin registered it ("" for ops defined in-process)

  /// The kernel for runs of `call` (a call of this op, typed): prepared for
  /// it where the op prepares its kernels, else `kernel`. Empty when the op
  /// has no kernel.
  ReferenceKernel kernel_for(const Call& call) const;

  /// The Op expression referring to this definition (one per definition).
  const Op& expr() const;

 private:
  friend class OpRegistry;
  mutable Op expr_;
};

/// Ops by name (see weft/registry.h for the semantics every registry shares).
class OpRegistry : public NamedRegistry<OpDef> {
 public:
  OpRegistry() : NamedRegistry("op") {}
  /// The process-wide registry.
  static OpRegistry& global();

 protected:
  /// An op needs a type relation.
  void check(const OpDef& def) const override;
  /// Gives the definition its Op expression.
  void adopted(OpDef& def) override;
  Error located(Error error, std::string_view name) const override;
  Error unknown(std::string_view name) const override;
};

}  // namespace weft

#pragma GCC visibility pop

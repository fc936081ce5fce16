// Compiling a fused group into oneDNN primitives and running them (group_kernel.h).
#include "group_kernel.h"
#include "openmp_runtime.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "adaptive_pool_mapping.h"
#include "activation_patterns.h"
#include "algorithm_choice.h"
#include "cpu_identity.h"
#include "op_mapping.h"
#include "standalone_primitive.h"

namespace onednn_target {

namespace sdk = weft::sdk;
using sdk::operator==;
using sdk::operator!=;
using dnnl::memory;

namespace {

constexpr size_t kAlignment = 64;

std::string dims_text(const memory::dims& dims) {
  std::string out;
  for (int64_t d : dims) out += (out.empty() ? "" : "x") + std::to_string(d);
  return out;
}

size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

/// `bytes` of scratch memory for a launch on this thread: the block of the
/// thread's largest launch so far, kept between launches (a launch allocated
/// and freed its own, which cost the small groups of an lstm more than their
/// primitives). A thread runs one launch at a time.
char* thread_scratch(size_t bytes) {
  thread_local std::unique_ptr<char, decltype(&std::free)> block(nullptr, &std::free);
  thread_local size_t capacity = 0;
  if (bytes > capacity) {
    block.reset();
    capacity = 0;
    block.reset(static_cast<char*>(std::aligned_alloc(kAlignment, aligned(bytes))));
    if (!block) throw sdk::Error("cannot allocate " + std::to_string(bytes) + " bytes of scratch memory");
    capacity = aligned(bytes);
  }
  return block.get();
}

struct PostOp {
  enum class Kind { kEltwise, kSum, kBinary } kind;
  EltwiseSpec eltwise;
  dnnl::algorithm alg = dnnl::algorithm::binary_add;
  memory::desc desc;  // the binary operand as it broadcasts to the dst
  size_t value = 0;   // the binary operand or the sum's addend
};

/// The primitive being built: its main op and the calls fused after it so far.
struct Pending {
  enum class Kind { kAnchor, kEltwise, kBinary, kPool, kSoftmax, kConcat, kStandalone, kReorder } kind;
  AnchorSpec anchor;
  PoolSpec pool;
  SoftmaxSpec softmax;
  StandaloneSpec standalone;
  std::vector<size_t> standalone_srcs;  // values, one per standalone.inputs entry
  std::vector<size_t> concat_srcs;  // values joined, in order
  std::vector<memory::desc> concat_descs;
  int concat_axis = 0;
  bool constant_weights = false;
  EltwiseSpec eltwise;
  dnnl::algorithm alg = dnnl::algorithm::binary_add;
  size_t src = 0, src1 = 0;  // values: the data (tensor_a, src0) and the weight (tensor_b, src1)
  memory::desc src_desc, src1_desc, dst_desc;
  std::optional<std::vector<float>> bias;  // a constant per-channel add, folded
  std::vector<PostOp> post_ops;
  AxisGroups dst_groups;
  size_t dst = 0;  // the value the chain produces so far
  std::vector<std::string> ops;
  dnnl::primitive_desc_base pd;
};

const char* anchor_name(AnchorKind anchor) {
  if (anchor == AnchorKind::kConvolution) return "convolution";
  if (anchor == AnchorKind::kDeconvolution) return "deconvolution";
  return "matmul";
}

const char* kind_name(Pending::Kind kind, AnchorKind anchor) {
  if (kind == Pending::Kind::kEltwise) return "eltwise";
  if (kind == Pending::Kind::kBinary) return "binary";
  if (kind == Pending::Kind::kPool) return "pooling";
  if (kind == Pending::Kind::kSoftmax) return "softmax";
  if (kind == Pending::Kind::kConcat) return "concat";
  if (kind == Pending::Kind::kReorder) return "reorder";
  return anchor_name(anchor);
}

memory::desc any_layout(const memory::desc& d) { return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any); }

/// The descriptor of a convolution or deconvolution (their descs take the
/// same arguments) of anchor `a` in a variant (propagation kind, algorithm)
/// with the data in `src` and `dst`, and `bias` if any.
template <typename Primitive>
typename Primitive::desc window_desc(dnnl::prop_kind prop, dnnl::algorithm alg, const AnchorSpec& a,
                                     const memory::desc& src, const memory::desc& weights, const memory::desc& dst,
                                     const std::optional<std::vector<float>>& bias) {
  if (!bias) return typename Primitive::desc(prop, alg, src, weights, dst, a.strides, a.dilates, a.pad_l, a.pad_r);
  const memory::desc bias_desc({static_cast<int64_t>(bias->size())}, memory::data_type::f32, memory::format_tag::a);
  return typename Primitive::desc(prop, alg, src, weights, bias_desc, dst, a.strides, a.dilates, a.pad_l, a.pad_r);
}

/// Data in a blocked layout (AlterOpLayout's) is read and written as it
/// lies where oneDNN has a kernel for it (`as_lies`). Otherwise oneDNN picks
/// the data layouts too (NHWC for its brgemm kernels): the plain NCHW ones
/// leave it only the slow im2col GEMM, so the data is reordered.
template <typename Primitive>
typename Primitive::desc window_desc(dnnl::prop_kind prop, dnnl::algorithm alg, const AnchorSpec& a,
                                     const memory::desc& weights, const std::optional<std::vector<float>>& bias,
                                     bool as_lies) {
  if (as_lies) return window_desc<Primitive>(prop, alg, a, a.src, weights, a.dst, bias);
  return window_desc<Primitive>(prop, alg, a, any_layout(a.src), weights, any_layout(a.dst), bias);
}

bool runs_on_reference(const dnnl::primitive_desc_base& pd) { return is_reference_implementation(pd.impl_info_str()); }

/// The first implementation oneDNN offers for a convolution or
/// deconvolution: on blocked data as it lies unless that is a reference kernel.
template <typename Primitive>
typename Primitive::primitive_desc window_pd(const dnnl::engine& engine, const dnnl::primitive_attr& attr,
                                             dnnl::prop_kind prop, dnnl::algorithm alg, const AnchorSpec& a,
                                             const memory::desc& weights,
                                             const std::optional<std::vector<float>>& bias) {
  if (is_blocked(a.src) || is_blocked(a.dst)) {
    try {
      typename Primitive::primitive_desc pd(window_desc<Primitive>(prop, alg, a, weights, bias, true), attr, engine);
      if (!runs_on_reference(pd)) return pd;
    } catch (const dnnl::error&) {
    }
  }
  return typename Primitive::primitive_desc(window_desc<Primitive>(prop, alg, a, weights, bias, false), attr, engine);
}

/// The weight desc an anchor's primitive is asked for: a run-time weight is
/// reordered at each launch (a bound one once, at compile).
memory::desc weights_request(const AnchorSpec& a) { return a.weights_as_given() ? a.weights : any_layout(a.weights); }

/// `p`'s post-ops, with its scratchpad from the run's block.
dnnl::primitive_attr attr_of(const Pending& p) {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops post_ops;
  for (const PostOp& op : p.post_ops) {
    switch (op.kind) {
      case PostOp::Kind::kEltwise: post_ops.append_eltwise(1.f, op.eltwise.alg, op.eltwise.alpha, op.eltwise.beta); break;
      case PostOp::Kind::kSum: post_ops.append_sum(1.f); break;
      case PostOp::Kind::kBinary: post_ops.append_binary(op.alg, op.desc); break;
    }
  }
  attr.set_post_ops(post_ops);
  return attr;
}

/// The primitive descriptor of `p`, or nullopt where oneDNN has no
/// implementation of it (with these post-ops).
std::optional<dnnl::primitive_desc_base> make_pd(const dnnl::engine& engine, const Pending& p) {
  const dnnl::primitive_attr attr = attr_of(p);
  const auto inference = dnnl::prop_kind::forward_inference;
  try {
    switch (p.kind) {
      case Pending::Kind::kEltwise: {
        const dnnl::eltwise_forward::desc desc(inference, p.eltwise.alg, p.src_desc, p.eltwise.alpha, p.eltwise.beta);
        return dnnl::eltwise_forward::primitive_desc(desc, attr, engine);
      }
      case Pending::Kind::kBinary: {
        const dnnl::binary::desc desc(p.alg, p.src_desc, p.src1_desc, p.dst_desc);
        return dnnl::binary::primitive_desc(desc, attr, engine);
      }
      case Pending::Kind::kPool: {
        const PoolSpec& s = p.pool;
        const dnnl::pooling_v2_forward::desc desc(inference, s.alg, s.src, s.dst, s.strides, s.kernel, s.dilation,
                                                  s.pad_l, s.pad_r);
        return dnnl::pooling_v2_forward::primitive_desc(desc, attr, engine);
      }
      case Pending::Kind::kSoftmax:
        if (p.softmax.log) {
          const dnnl::logsoftmax_forward::desc desc(inference, p.src_desc, p.softmax.axis);
          return dnnl::logsoftmax_forward::primitive_desc(desc, attr, engine);
        } else {
          const dnnl::softmax_forward::desc desc(inference, p.src_desc, p.softmax.axis);
          return dnnl::softmax_forward::primitive_desc(desc, attr, engine);
        }
      case Pending::Kind::kConcat:
        return dnnl::concat::primitive_desc(p.dst_desc, p.concat_axis, p.concat_descs, engine, attr);
      case Pending::Kind::kStandalone: return p.standalone.make(engine, attr);
      case Pending::Kind::kReorder: return dnnl::reorder::primitive_desc(engine, p.src_desc, engine, p.dst_desc, attr);
      case Pending::Kind::kAnchor: break;
    }
    const AnchorSpec& a = p.anchor;
    const memory::desc weights = weights_request(a);
    if (a.kind == AnchorKind::kConvolution) {
      return window_pd<dnnl::convolution_forward>(engine, attr, inference, dnnl::algorithm::convolution_direct, a,
                                                  weights, p.bias);
    }
    if (a.kind == AnchorKind::kDeconvolution) {
      return window_pd<dnnl::deconvolution_forward>(engine, attr, inference, dnnl::algorithm::deconvolution_direct, a,
                                                    weights, p.bias);
    }
    if (!p.bias) return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a.src, weights, a.dst), attr, engine);
    memory::dims bias_dims(a.dst.dims().size(), 1);
    bias_dims.back() = static_cast<int64_t>(p.bias->size());
    const memory::desc bias(bias_dims, memory::data_type::f32, row_major_strides(bias_dims));
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a.src, weights, bias, a.dst), attr, engine);
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
}

/// How many of one variant's implementations are timed, in oneDNN's order
/// of preference (its later ones are the slow generic kernels).
constexpr int kImplementationsPerVariant = 2;

/// The implementations oneDNN offers for the convolution `p`, per variant the
/// options allow (direct forward_inference first: what runs untuned), each
/// implementation with its layouts once.
/// The enumeration ends early at the first candidate `last` accepts (a build
/// that times nothing needs no more).
std::vector<Candidate> convolution_candidates(const dnnl::engine& engine, const Pending& p, const TuningOptions& o,
                                              const std::function<bool(const Candidate&)>& last) {
  struct Variant {
    bool allowed;
    dnnl::prop_kind prop;
    dnnl::algorithm alg;
    const char* name;
  };
  const Variant variants[] = {
      {o.direct, dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, "direct forward_inference"},
      {o.direct, dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, "direct forward_training"},
      {o.winograd, dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd, "winograd forward_inference"},
  };
  std::vector<Candidate> candidates;
  std::unordered_set<std::string> seen;  // implementation and layouts
  // Blocked data (AlterOpLayout's plan) is read as it lies, with oneDNN's
  // reference kernels left out as make_pd leaves them; only where no such
  // candidate exists, or the data is plain, in the layouts oneDNN picks.
  const bool blocked = is_blocked(p.anchor.src) || is_blocked(p.anchor.dst);
  for (bool as_lies : {true, false}) {
    if (as_lies ? !blocked : !candidates.empty()) continue;
    for (const Variant& v : variants) {
      if (!v.allowed) continue;
      using conv = dnnl::convolution_forward;
      // next_impl reads the desc and attr the iteration began with: both stay alive.
      const conv::desc desc = window_desc<conv>(v.prop, v.alg, p.anchor, weights_request(p.anchor), p.bias, as_lies);
      const dnnl::primitive_attr attr = attr_of(p);
      conv::primitive_desc pd;
      try {
        pd = conv::primitive_desc(desc, attr, engine);
      } catch (const dnnl::error&) {
        continue;  // no implementation of this variant for these shapes and post-ops
      }
      for (int i = 0; i < kImplementationsPerVariant; ++i) {
        const std::string impl = pd.impl_info_str();
        const std::string what = impl + " src " + layout_name(pd.src_desc()) + " wei " +
                                 layout_name(pd.weights_desc()) + " dst " + layout_name(pd.dst_desc());
        if (!(as_lies && is_reference_implementation(impl)) && seen.insert(what).second) {
          candidates.push_back({std::string(v.name) + " " + what, pd});
          if (last(candidates.back())) return candidates;
        }
        if (!pd.next_impl()) break;
      }
    }
  }
  return candidates;
}

}  // namespace

/// Walks a group in evaluation order, fusing each call into the primitive
/// before it where oneDNN accepts that, and emits the steps.
class GroupBuilder {
 public:
  /// `tuning` null: a plan only, with the primitive descriptors (which
  /// decide what oneDNN runs) but no primitives, reorders or packed weights,
  /// as a capability query needs; the group's compile does that work once.
  GroupBuilder(const dnnl::engine& engine, GroupKernel& kernel, const TuningOptions* tuning)
      : engine_(engine), k_(kernel), tuning_(tuning), plan_only_(!tuning) {}

  /// A parameter; `constant` is the tensor it is bound to at compile, if any.
  size_t add_param(const sdk::Expr& param, const float* constant) {
    const size_t id = add_value(GroupKernel::Source::kParam, k_.num_params_++, param.type().shape());
    compile_data_[id] = constant;
    return id;
  }

  size_t add_constant(const sdk::Expr& node) {
    if (!is_static_f32(node.type())) throw sdk::Unsupported("a constant " + node.type().str() + " is not float32");
    const DLTensor data = node.data();
    const float* first = reinterpret_cast<const float*>(static_cast<const char*>(data.data) + data.byte_offset);
    // A plan reads the node's data in place (it runs nothing); a kernel keeps a copy.
    k_.constants_.emplace_back(first, plan_only_ ? first : first + numel_of(node.type().shape()));
    const size_t id = add_value(GroupKernel::Source::kConstant, k_.constants_.size() - 1, node.type().shape());
    compile_data_[id] = plan_only_ ? first : k_.constants_.back().data();
    return id;
  }

  /// Adds `call` reading `args` (value ids), its result read by `readers`
  /// calls and outputs (`output`: it is one); returns the value it produces.
  size_t add_call(const sdk::Expr& call, const std::vector<size_t>& args, int readers, bool output) {
    const std::string op = call.op_name();
    const size_t dst = add_result(call, readers, output);
    if (std::optional<AnchorSpec> anchor = anchor_spec(call)) return start_anchor(call, *anchor, args, dst);
    if (std::optional<EltwiseSpec> eltwise = eltwise_spec(call)) return add_eltwise(call, *eltwise, args[0], dst, op);
    if (std::optional<dnnl::algorithm> alg = binary_alg(op)) return add_binary(call, *alg, args, dst);
    std::optional<PoolSpec> pool = pool_spec(call);
    if (!pool) pool = adaptive_pool_spec(call);
    if (pool) {
      Pending p;
      p.kind = Pending::Kind::kPool;
      p.pool = *pool;
      p.src = args[0];
      p.src_desc = pool->src;
      p.dst_desc = pool->dst;
      start(std::move(p), call, "pooling", dst);
      return dst;
    }
    if (op == "concatenate") {
      Pending p;
      p.kind = Pending::Kind::kConcat;
      const int64_t ndim = static_cast<int64_t>(call.type().ndim());
      const int64_t axis = call.attrs().get_int("axis");
      p.concat_axis = static_cast<int>(axis < 0 ? axis + ndim : axis);
      p.concat_srcs = args;
      for (size_t a : args) p.concat_descs.push_back(plain_view(shape_of(a), identity_groups(shape_of(a).size())));
      p.dst_desc = plain_view(call.type().shape(), identity_groups(ndim));
      start(std::move(p), call, "concatenation", dst);
      return dst;
    }
    if (std::optional<ReorderSpec> reorder = reorder_spec(call)) {
      Pending p;
      p.kind = Pending::Kind::kReorder;
      p.src = args[0];
      p.src_desc = reorder->src;
      p.dst_desc = reorder->dst;
      start(std::move(p), call, "reorder", dst);
      return dst;
    }
    if (std::optional<SoftmaxSpec> softmax = softmax_spec(call)) {
      Pending p;
      p.kind = Pending::Kind::kSoftmax;
      p.softmax = *softmax;
      p.src = args[0];
      p.src_desc = p.dst_desc = plain_view(shape_of(args[0]), identity_groups(shape_of(args[0]).size()));
      start(std::move(p), call, "softmax", dst);
      return dst;
    }
    if (std::optional<StandaloneSpec> standalone = standalone_spec(call)) {
      Pending p;
      p.kind = Pending::Kind::kStandalone;
      for (const StandaloneSpec::Input& input : standalone->inputs) p.standalone_srcs.push_back(args.at(input.arg));
      p.dst_desc = standalone->dst;
      const std::string what = standalone->what;
      p.standalone = std::move(*standalone);
      start(std::move(p), call, what, dst);
      return dst;
    }
    if (op == "erf") {
      throw sdk::Unsupported("oneDNN 2.6 has no erf eltwise: the onednn target runs erf only inside a GELU, "
                             "0.5 * x * (1 + erf(x / sqrt(2))), as one gelu_erf");
    }
    throw sdk::Unsupported("oneDNN does not run " + op + " (the onednn target has no mapping for it)");
  }

  /// Adds `root`, the last call of an activation (activation_patterns.h)
  /// over the value `input`, as its one eltwise; its result is read as add_call's.
  size_t add_activation(const sdk::Expr& root, const ActivationMatch& activation, size_t input, int readers,
                        bool output) {
    const size_t dst = add_result(root, readers, output);
    return add_eltwise(root, activation.eltwise, input, dst, activation.name);
  }

  /// Emits the last primitive and places the values the steps write: the
  /// last step's straight into its output (the others run before it, so
  /// an output the plan laid over an input they read cannot clobber it),
  /// the rest in the run's scratch block.
  void finish(const std::vector<size_t>& outputs) {
    flush();
    k_.outputs_ = outputs;
    if (k_.steps_.empty()) return;
    const size_t last = k_.steps_.back().dst;
    for (size_t o = 0; o < outputs.size(); ++o) {
      if (outputs[o] == last) {
        k_.values_[last].output = o;
        break;
      }
    }
    for (const GroupKernel::Step& step : k_.steps_) {
      GroupKernel::Value& v = k_.values_[step.dst];
      if (v.output) continue;
      v.index = k_.intermediate_bytes_;
      k_.intermediate_bytes_ += aligned(numel_of(v.shape) * sizeof(float));
    }
  }

 private:
  size_t add_value(GroupKernel::Source source, size_t index, Shape shape) {
    k_.values_.push_back(GroupKernel::Value{source, index, std::move(shape), std::nullopt});
    return k_.values_.size() - 1;
  }

  /// The value `call` produces, read by `readers` calls and outputs.
  size_t add_result(const sdk::Expr& call, int readers, bool output) {
    if (!is_static_f32(call.type())) {
      throw sdk::Unsupported("oneDNN does not run " + call.op_name() + " with a " + call.type().str() +
                             " result: the onednn target runs float32 of static shape");
    }
    const size_t dst = add_value(GroupKernel::Source::kIntermediate, 0, call.type().shape());
    readers_[dst] = readers;
    if (output) outputs_.insert(dst);
    return dst;
  }

  const Shape& shape_of(size_t value) const { return k_.values_[value].shape; }

  /// The data of a constant or a parameter bound to one; null otherwise.
  const float* data_at_compile(size_t value) const {
    auto it = compile_data_.find(value);
    return it == compile_data_.end() ? nullptr : it->second;
  }

  /// Whether a call reading `value` may fuse into the pending primitive: it
  /// is the primitive's result and nothing else reads it. An eltwise
  /// primitive takes only eltwise post-ops: with binary ones oneDNN 2.6's
  /// reference eltwise gave wrong values (the conformance batch_norm cases);
  /// pooling, softmax, concat and the standalone primitives take none.
  bool extends_pending(size_t value, bool binary) const {
    if (!pending_ || pending_->dst != value || readers_.at(value) != 1 || outputs_.count(value)) return false;
    if (pending_->kind == Pending::Kind::kPool || pending_->kind == Pending::Kind::kSoftmax ||
        pending_->kind == Pending::Kind::kConcat || pending_->kind == Pending::Kind::kStandalone ||
        pending_->kind == Pending::Kind::kReorder) {
      return false;
    }
    return !binary || pending_->kind != Pending::Kind::kEltwise;
  }

  /// Replaces the pending primitive by `candidate` when oneDNN creates it.
  bool try_extend(Pending candidate, const std::string& op, size_t dst) {
    std::optional<dnnl::primitive_desc_base> pd = make_pd(engine_, candidate);
    // A post-op oneDNN runs only on its reference kernel (a binary operand
    // broadcast along the last axis, in 2.6) would take the whole primitive
    // there, a thousand times slower: it runs as a primitive of its own.
    if (!pd || (runs_on_reference(*pd) && pending_ && !runs_on_reference(pending_->pd))) return false;
    candidate.pd = *pd;
    candidate.dst = dst;
    candidate.ops.push_back(op);
    pending_ = std::move(candidate);
    return true;
  }

  /// Opens a primitive of its own for `call`, whose result is `dst`, named
  /// `name` in the summary (the call's op by default).
  void start(Pending p, const sdk::Expr& call, const std::string& what, size_t dst, const std::string& name = "") {
    flush();
    std::optional<dnnl::primitive_desc_base> pd = make_pd(engine_, p);
    if (!pd) {
      throw sdk::Unsupported("oneDNN has no " + what + " for " + call.op_name() + " on " +
                             call.arg(0).type().str() + " -> " + call.type().str());
    }
    p.pd = *pd;
    p.dst = dst;
    p.ops = {name.empty() ? call.op_name() : name};
    pending_ = std::move(p);
  }

  size_t start_anchor(const sdk::Expr& call, const AnchorSpec& anchor, const std::vector<size_t>& args, size_t dst) {
    Pending p;
    p.kind = Pending::Kind::kAnchor;
    p.anchor = anchor;
    p.src = args[0];
    p.src1 = args[1];
    // A weight known at compile is reordered once into the layout the
    // primitive picks (nn.batch_matmul's is read as it lies).
    p.constant_weights = data_at_compile(args[1]) && !anchor.weights_as_given();
    p.dst_desc = anchor.dst;
    p.dst_groups = anchor.dst_groups;
    start(std::move(p), call, anchor.kind == AnchorKind::kMatmul ? "matrix product" : anchor_name(anchor.kind), dst);
    return dst;
  }

  size_t add_eltwise(const sdk::Expr& call, const EltwiseSpec& eltwise, size_t arg, size_t dst,
                     const std::string& name) {
    if (extends_pending(arg, false)) {
      Pending candidate = *pending_;
      candidate.post_ops.push_back(PostOp{PostOp::Kind::kEltwise, eltwise, {}, {}, 0});
      if (try_extend(std::move(candidate), name + " as eltwise", dst)) return dst;
    }
    Pending p;
    p.kind = Pending::Kind::kEltwise;
    p.eltwise = eltwise;
    p.src = arg;
    p.src_desc = p.dst_desc = plain_view(shape_of(arg), identity_groups(shape_of(arg).size()));
    p.dst_groups = identity_groups(shape_of(arg).size());
    start(std::move(p), call, "eltwise primitive", dst, name);
    return dst;
  }

  /// Folds a constant add along the anchor's channels into its bias.
  bool try_fold_bias(const sdk::Expr& call, size_t other, const Shape& other_shape, size_t dst) {
    if (pending_->kind != Pending::Kind::kAnchor || pending_->bias || !pending_->post_ops.empty()) return false;
    const float* data = data_at_compile(other);
    const Shape& out = call.type().shape();
    if (!data || other_shape.size() > out.size()) return false;
    Shape padded(out.size() - other_shape.size(), 1);
    padded.insert(padded.end(), other_shape.begin(), other_shape.end());
    // Along every channel axis (C, and a block's c) or a scalar: the
    // operand's row-major order is then the channels' order.
    const std::vector<int>& channel = pending_->anchor.channel_axes;
    int64_t channels = 1, given = 1;
    for (size_t axis = 0; axis < out.size(); ++axis) {
      const bool along = std::find(channel.begin(), channel.end(), static_cast<int>(axis)) != channel.end();
      if (along) channels *= out[axis];
      given *= padded[axis];
      if (padded[axis] != 1 && (!along || padded[axis] != out[axis])) return false;
    }
    if (given != 1 && given != channels) return false;
    Pending candidate = *pending_;
    candidate.bias = std::vector<float>(channels);
    for (int64_t c = 0; c < channels; ++c) (*candidate.bias)[c] = given == 1 ? data[0] : data[c];
    return try_extend(std::move(candidate), call.op_name() + " as bias", dst);
  }

  size_t add_binary(const sdk::Expr& call, dnnl::algorithm alg, const std::vector<size_t>& args, size_t dst) {
    if (!is_static_f32(call.type()) || !is_static_f32(call.arg(0).type()) || !is_static_f32(call.arg(1).type())) {
      throw sdk::Unsupported("oneDNN does not run " + call.op_name() + " on " + call.arg(0).type().str() + ", " +
                             call.arg(1).type().str() + ": the onednn target runs float32 of static shape");
    }
    const Shape out = call.type().shape();
    const Shape shapes[2] = {binary_operand_shape(call, 0), binary_operand_shape(call, 1)};
    for (size_t main : {size_t{0}, size_t{1}}) {
      if (main == 1 && !commutative(alg)) break;
      if (!extends_pending(args[main], true) || shape_of(args[main]) != out) continue;
      const size_t other = args[1 - main];
      if (alg == dnnl::algorithm::binary_add && try_fold_bias(call, other, shapes[1 - main], dst)) return dst;
      if (alg == dnnl::algorithm::binary_add && shapes[1 - main] == out && !data_at_compile(other)) {
        Pending candidate = *pending_;
        candidate.post_ops.push_back(PostOp{PostOp::Kind::kSum, {}, alg, {}, other});
        if (try_extend(std::move(candidate), call.op_name() + " as sum", dst)) return dst;
      }
      if (std::optional<memory::desc> view = broadcast_view(shapes[1 - main], out, pending_->dst_groups)) {
        Pending candidate = *pending_;
        candidate.post_ops.push_back(PostOp{PostOp::Kind::kBinary, {}, alg, *view, other});
        if (try_extend(std::move(candidate), call.op_name() + " as binary", dst)) return dst;
      }
    }
    // A binary primitive of its own: src0 has the result's shape, src1 broadcasts.
    size_t first = 0;
    if (shapes[0] != out) {
      if (!commutative(alg) || shapes[1] != out) {
        throw sdk::Unsupported("oneDNN does not run " + call.op_name() + " where its first operand " +
                               call.arg(0).type().str() + " broadcasts to the result " + call.type().str());
      }
      first = 1;
    }
    // The tensors as they lie, axis by axis; where oneDNN has only its
    // reference kernel for that, the last axis read as a block of axis 1
    // (the same bytes and the same broadcast, whatever the layout): a
    // per-channel operand of blocked data, (1, C/16, 1, 1, 16), is then the
    // per-channel case its kernels have.
    std::optional<Pending> chosen;
    for (const AxisGroups& groups : {identity_groups(out.size()), last_axis_as_block(out.size())}) {
      std::optional<memory::desc> src1 = broadcast_view(shapes[1 - first], out, groups);
      if (groups.empty() || !src1) continue;
      Pending p;
      p.kind = Pending::Kind::kBinary;
      p.alg = alg;
      p.src = args[first];
      p.src1 = args[1 - first];
      p.src_desc = p.dst_desc = plain_view(out, groups);
      p.src1_desc = *src1;
      p.dst_groups = groups;
      std::optional<dnnl::primitive_desc_base> pd = make_pd(engine_, p);
      const bool reference = pd && runs_on_reference(*pd);
      if (!chosen || (pd && !reference)) chosen = std::move(p);
      if (pd && !reference) break;
    }
    if (!chosen) throw sdk::Unsupported("oneDNN does not run " + call.op_name() + ": its operands do not broadcast");
    start(std::move(*chosen), call, "binary primitive", dst);
    return dst;
  }

  /// Axis 1 with the last one as its block, then the others in order; none
  /// below rank 3.
  static AxisGroups last_axis_as_block(size_t ndim) {
    if (ndim < 3) return {};
    AxisGroups groups = {{0}, {1, static_cast<int>(ndim) - 1}};
    for (size_t axis = 2; axis + 1 < ndim; ++axis) groups.push_back({static_cast<int>(axis)});
    return groups;
  }

  /// A place in the run's scratch block for a tensor in oneDNN's `chosen`
  /// layout, with the reorders from (and, for a dst, back to) its own.
  GroupKernel::Relayout relayout(int arg, size_t value, const memory::desc& own, const memory::desc& chosen,
                                 bool dst) {
    GroupKernel::Relayout r;
    r.arg = arg;
    r.value = value;
    r.own = own;
    r.chosen = chosen;
    r.to_chosen = dnnl::reorder(dnnl::reorder::primitive_desc(engine_, own, engine_, chosen));
    if (dst) r.to_own = dnnl::reorder(dnnl::reorder::primitive_desc(engine_, chosen, engine_, own));
    r.offset = k_.intermediate_bytes_;
    k_.intermediate_bytes_ += aligned(chosen.get_size());
    return r;
  }

  /// Replaces the convolution `p`'s primitive descriptor by the fastest of
  /// its implementations (algorithm_choice.h).
  void choose_implementation(Pending& p) {
    const AnchorSpec& a = p.anchor;
    TrialData data{a.src, a.weights, p.dst_desc, p.constant_weights ? compile_data_.at(p.src1) : nullptr,
                   p.bias ? &*p.bias : nullptr, {}, false};
    std::string key = "convolution src " + desc_key(a.src) + " wei " + desc_key(a.weights) + " dst " +
                      desc_key(p.dst_desc) + (p.constant_weights ? " bound" : " run-time") + " strides " +
                      dims_text(a.strides) + " dilates " + dims_text(a.dilates) + " pads " + dims_text(a.pad_l) +
                      "," + dims_text(a.pad_r) + (p.bias ? " bias" : "") + " post-ops";
    for (size_t i = 0; i < p.post_ops.size(); ++i) {
      const PostOp& op = p.post_ops[i];
      switch (op.kind) {
        case PostOp::Kind::kEltwise:
          key += " eltwise" + std::to_string(static_cast<int>(op.eltwise.alg)) + "(" + std::to_string(op.eltwise.alpha) +
                 "," + std::to_string(op.eltwise.beta) + ")";
          break;
        case PostOp::Kind::kSum:
          key += " sum";
          data.sum = true;
          break;
        case PostOp::Kind::kBinary:
          key += " binary" + std::to_string(static_cast<int>(op.alg)) + "(" + desc_key(op.desc) + ")";
          data.binary_operands.emplace_back(DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1, op.desc);
          break;
      }
    }
    key += std::string(" algorithms") + (tuning_->direct ? " direct" : "") + (tuning_->winograd ? " winograd" : "") +
           "; " + cpu_identity();
    const std::string layer = "convolution " + dims_text(a.src.dims()) + " -> " + dims_text(a.dst.dims()) + " (" +
                              dims_text(a.weights.dims()) + " weights)";
    // A cached choice, or the untuned one, is made without enumerating the rest.
    const std::optional<std::string> cached = tuning_->tune ? tuning_->cache.read(key) : std::nullopt;
    const std::vector<Candidate> candidates = convolution_candidates(engine_, p, *tuning_, [&](const Candidate& c) {
      return !tuning_->tune || (cached && c.label == *cached);
    });
    if (candidates.empty()) return;
    p.pd = candidates[choose_candidate(engine_, key, layer, candidates, data, *tuning_, cached)].pd;
  }

  /// What `p` computes: an anchor's multiply-accumulates (each dst element
  /// reads a weight's worth over its output channels), a pooling's window
  /// reads, another primitive's dst elements.
  size_t work_of(const Pending& p) const {
    const size_t dst = numel_of(shape_of(p.dst));
    if (p.kind == Pending::Kind::kPool) {
      size_t window = 1;
      for (int64_t k : p.pool.kernel) window *= static_cast<size_t>(std::max<int64_t>(k, 1));
      return dst * window;
    }
    if (p.kind != Pending::Kind::kAnchor) return dst;
    const memory::dims& w = p.anchor.weights.dims();
    const memory::dims& d = p.anchor.dst.dims();
    const int64_t channels = p.anchor.kind == AnchorKind::kMatmul ? d.back() : d.at(1);
    int64_t weights = 1;
    for (int64_t n : w) weights *= n;
    return dst * static_cast<size_t>(std::max<int64_t>(1, weights / std::max<int64_t>(1, channels)));
  }

  /// Emits the pending primitive as a step.
  void flush() {
    if (!pending_) return;
    k_.work_ += work_of(*pending_);
    if (plan_only_) {
      pending_.reset();
      return;
    }
    Pending& p = *pending_;
    if (p.kind == Pending::Kind::kAnchor && p.anchor.kind == AnchorKind::kConvolution) choose_implementation(p);
    GroupKernel::Step step;
    step.primitive = dnnl::primitive(p.pd.get());
    step.dst = p.dst;
    step.scratchpad = p.pd.scratchpad_desc();
    k_.scratchpad_bytes_ = std::max(k_.scratchpad_bytes_, step.scratchpad.get_size());
    step.summary = (p.kind == Pending::Kind::kStandalone ? p.standalone.what : kind_name(p.kind, p.anchor.kind)) + "(";
    for (size_t i = 0; i < p.ops.size(); ++i) step.summary += (i ? ", " : "") + p.ops[i];
    step.summary += ")";
    switch (p.kind) {
      case Pending::Kind::kEltwise:
      case Pending::Kind::kPool:
      case Pending::Kind::kReorder:  // DNNL_ARG_FROM and _TO are _SRC and _DST
      case Pending::Kind::kSoftmax: step.bindings.push_back({DNNL_ARG_SRC, p.src, p.src_desc}); break;
      case Pending::Kind::kConcat: {
        // oneDNN 2.6's concat ("simple:any") moved about 3 GB/s here, 35-40 %
        // of squeezenet's time: the plain tensors are copied chunk by chunk
        // with memcpy instead (the primitive stays the capability's check).
        GroupKernel::ConcatCopy copy;
        const Shape& dst_shape = shape_of(p.dst);
        for (int d = 0; d < p.concat_axis; ++d) copy.outer *= static_cast<size_t>(dst_shape[static_cast<size_t>(d)]);
        for (size_t src : p.concat_srcs)
          copy.sources.push_back({src, copy.outer ? numel_of(shape_of(src)) / copy.outer : 0});
        step.concat_copy = std::move(copy);
        break;
      }
      case Pending::Kind::kStandalone:
        for (size_t i = 0; i < p.standalone_srcs.size(); ++i) {
          const StandaloneSpec::Input& input = p.standalone.inputs[i];
          step.bindings.push_back({input.dnnl_arg, p.standalone_srcs[i], input.desc});
        }
        break;
      case Pending::Kind::kBinary:
        step.bindings.push_back({DNNL_ARG_SRC_0, p.src, p.src_desc});
        step.bindings.push_back({DNNL_ARG_SRC_1, p.src1, p.src1_desc});
        break;
      case Pending::Kind::kAnchor: {
        if (p.pd.src_desc() != p.anchor.src) {
          step.input_relayouts.push_back(relayout(DNNL_ARG_SRC, p.src, p.anchor.src, p.pd.src_desc(), false));
        } else {
          step.bindings.push_back({DNNL_ARG_SRC, p.src, p.anchor.src});
        }
        if (p.constant_weights && p.pd.weights_desc() != p.anchor.weights) {
          // Reorder the weight once into the layout the primitive chose; one
          // already in it (AlterOpLayout asked for it) is read where it lies,
          // not held twice.
          memory user(p.anchor.weights, engine_, const_cast<float*>(compile_data_.at(p.src1)));
          memory packed(p.pd.weights_desc(), engine_);
          dnnl::stream stream(engine_);
          pack_weights(engine_, stream, user, packed);
          stream.wait();
          step.packed.emplace_back(DNNL_ARG_WEIGHTS, packed);
        } else if (p.pd.weights_desc() != p.anchor.weights) {
          step.input_relayouts.push_back(
              relayout(DNNL_ARG_WEIGHTS, p.src1, p.anchor.weights, p.pd.weights_desc(), false));
        } else {
          step.bindings.push_back({DNNL_ARG_WEIGHTS, p.src1, p.anchor.weights});
        }
        if (p.bias) {
          memory bias(p.pd.weights_desc(1), engine_);
          std::memcpy(bias.get_data_handle(), p.bias->data(), p.bias->size() * sizeof(float));
          step.packed.emplace_back(DNNL_ARG_BIAS, bias);
        }
        break;
      }
    }
    for (size_t i = 0; i < p.post_ops.size(); ++i) {
      const PostOp& op = p.post_ops[i];
      if (op.kind == PostOp::Kind::kSum) step.sum_addend = op.value;
      if (op.kind == PostOp::Kind::kBinary) {
        step.bindings.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(i)) | DNNL_ARG_SRC_1, op.value, op.desc});
      }
    }
    if (p.pd.dst_desc() != p.dst_desc) step.dst_relayout = relayout(DNNL_ARG_DST, p.dst, p.dst_desc, p.pd.dst_desc(), true);
    else step.bindings.push_back({DNNL_ARG_DST, p.dst, p.dst_desc});
    k_.steps_.push_back(std::move(step));
    pending_.reset();
  }

  const dnnl::engine& engine_;
  GroupKernel& k_;
  const TuningOptions* tuning_;
  const bool plan_only_;
  std::unordered_map<size_t, const float*> compile_data_;  // values known at compile
  std::unordered_map<size_t, int> readers_;  // of each call's result
  std::unordered_set<size_t> outputs_;
  std::optional<Pending> pending_;
};

std::shared_ptr<const GroupKernel> GroupKernel::compile(const dnnl::engine& engine, const sdk::Expr& primitive,
                                                        const std::vector<std::optional<sdk::TensorView>>& constants,
                                                        const TuningOptions& tuning) {
  return build(engine, primitive, constants, &tuning);
}

size_t GroupKernel::work(const dnnl::engine& engine, const sdk::Expr& primitive,
                         const std::vector<std::optional<sdk::TensorView>>& constants) {
  return build(engine, primitive, constants, nullptr)->work_;
}

std::shared_ptr<GroupKernel> GroupKernel::build(const dnnl::engine& engine, const sdk::Expr& primitive,
                                                const std::vector<std::optional<sdk::TensorView>>& constants,
                                                const TuningOptions* tuning) {
  auto kernel = std::make_shared<GroupKernel>();
  GroupBuilder builder(engine, *kernel, tuning);
  std::unordered_map<const weft_expr_t*, size_t> value_of;
  const std::vector<sdk::Expr> params = primitive.params();
  for (size_t i = 0; i < params.size(); ++i) {
    if (!is_static_f32(params[i].type())) {
      throw sdk::Unsupported("parameter " + params[i].name() + " is a " + params[i].type().str() +
                             ", not a float32 tensor of static shape");
    }
    const bool bound = i < constants.size() && constants[i];
    value_of[params[i].get()] = builder.add_param(params[i], bound ? constants[i]->data<float>() : nullptr);
  }
  const sdk::Expr body = primitive.body();
  const std::vector<sdk::Expr> roots = body.is(WEFT_EXPR_TUPLE) ? body.fields() : std::vector<sdk::Expr>{body};
  // The readers of each node first: only a result read once fuses on.
  std::unordered_map<const weft_expr_t*, int> readers;
  for (const sdk::Expr& r : roots) ++readers[r.get()];
  std::vector<sdk::Expr> calls;
  std::unordered_map<const weft_expr_t*, std::vector<sdk::Expr>> tuples;
  sdk::post_order(body, [&](const sdk::Expr& node) {
    switch (node.kind()) {
      case WEFT_EXPR_VAR:
        if (!value_of.count(node.get())) {
          throw sdk::Unsupported("the group reads " + node.name() + ", which is not its parameter");
        }
        return;
      case WEFT_EXPR_CONSTANT: value_of[node.get()] = builder.add_constant(node); return;
      case WEFT_EXPR_CALL:
        if (!node.callee().is(WEFT_EXPR_OP)) throw sdk::Unsupported("the onednn target does not run calls of functions");
        for (const sdk::Expr& a : node.args()) ++readers[a.get()];
        calls.push_back(node);
        return;
      case WEFT_EXPR_TUPLE:
        // A tuple inside the group is what a concatenate joins: its fields
        // are read there (the root tuple's are the outputs).
        if (node.get() != body.get()) {
          for (const sdk::Expr& f : node.fields()) ++readers[f.get()];
          tuples.emplace(node.get(), node.fields());
        }
        return;
      default:
        throw sdk::Unsupported(std::string("the onednn target does not run ") + sdk::node_kind_name(node.kind()) + " nodes");
    }
  });
  std::unordered_set<const weft_expr_t*> root_nodes;
  for (const sdk::Expr& r : roots) root_nodes.insert(r.get());
  // An activation's calls (GELU, swish, hardswish) become one eltwise over
  // its input, which they read as one call then. The last calls are tried
  // first, so a pattern is found from its final multiply.
  std::unordered_map<const weft_expr_t*, ActivationMatch> activations;  // by the pattern's last call
  std::unordered_set<const weft_expr_t*> activation_inner;
  auto readers_of = [&](const weft_expr_t* node) { return readers[node]; };
  for (auto it = calls.rbegin(); it != calls.rend(); ++it) {
    if (activation_inner.count(it->get())) continue;
    if (std::optional<ActivationMatch> activation = match_activation(*it, readers_of)) {
      activation_inner.insert(activation->inner.begin(), activation->inner.end());
      readers[activation->input.get()] -= activation->input_reads - 1;
      activations.emplace(it->get(), std::move(*activation));
    }
  }
  for (const sdk::Expr& call : calls) {
    if (activation_inner.count(call.get())) continue;
    if (auto a = activations.find(call.get()); a != activations.end()) {
      value_of[call.get()] = builder.add_activation(call, a->second, value_of.at(a->second.input.get()),
                                                    readers[call.get()], root_nodes.count(call.get()) > 0);
      continue;
    }
    std::vector<size_t> args;
    for (const sdk::Expr& a : call.args()) {
      auto tuple = tuples.find(a.get());
      if (tuple == tuples.end()) {
        args.push_back(value_of.at(a.get()));
        continue;
      }
      if (call.op_name() != "concatenate") {
        throw sdk::Unsupported("the onednn target reads a tuple only in a concatenate, not " + call.op_name());
      }
      for (const sdk::Expr& f : tuple->second) args.push_back(value_of.at(f.get()));
    }
    value_of[call.get()] = builder.add_call(call, args, readers[call.get()], root_nodes.count(call.get()) > 0);
  }
  std::vector<size_t> outputs;
  for (const sdk::Expr& r : roots) {
    if (!value_of.count(r.get())) throw sdk::Unsupported("the onednn target does not output nested tuples");
    outputs.push_back(value_of.at(r.get()));
  }
  builder.finish(outputs);
  return kernel;
}

void GroupKernel::check_call(const dnnl::engine& engine, const sdk::Expr& call) {
  GroupKernel kernel;
  GroupBuilder builder(engine, kernel, /*tuning=*/nullptr);
  std::vector<size_t> args;
  std::vector<sdk::Expr> operands;
  for (const sdk::Expr& a : call.args()) {
    if (call.op_name() == "concatenate" && a.is(WEFT_EXPR_TUPLE)) {
      for (const sdk::Expr& f : a.fields()) operands.push_back(f);
    } else {
      operands.push_back(a);
    }
  }
  for (const sdk::Expr& a : operands) {
    if (!is_static_f32(a.type())) {
      throw sdk::Unsupported("oneDNN does not run " + call.op_name() + " on a " + a.type().str() +
                             ": the onednn target runs float32 of static shape");
    }
    const bool constant = a.is(WEFT_EXPR_CONSTANT);
    args.push_back(constant ? builder.add_constant(a) : builder.add_param(a, nullptr));
  }
  // The erf of a GELU is claimed when oneDNN runs the GELU on its shape;
  // compile runs it so only inside the whole pattern.
  if (is_gelu_erf(call)) {
    const ActivationMatch gelu{EltwiseSpec{dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f}, "gelu_erf", call.arg(0), {}, 1};
    builder.finish({builder.add_activation(call, gelu, args[0], 1, true)});
  } else {
    builder.finish({builder.add_call(call, args, 1, true)});
  }
}

namespace {

/// Copies into one destination: for each index of the axes before a
/// concatenation's axis, every source's chunk in order (one source of one
/// chunk: a plain copy). Large ones are shared among oneDNN's OpenMP team,
/// which would otherwise wait at its next barrier while one thread copies.
struct ParallelCopy {
  size_t outer;                                            // the product of the extents before the axis
  std::vector<std::pair<const float*, size_t>> sources;  // each source's data, floats per chunk
  float* dst;
  size_t total;  // the destination's floats

  void run() const {
    // Below this many floats one thread copies: a team's start costs more.
    constexpr size_t kParallelFloats = size_t{1} << 15;
    if (total < kParallelFloats) return copy_part(0, total);
    GOMP_parallel(&ParallelCopy::on_thread, const_cast<ParallelCopy*>(this), 0, 0);
  }

 private:
  /// The destination's floats [begin, end).
  void copy_part(size_t begin, size_t end) const {
    size_t at = 0;  // where the current chunk lands in dst
    for (size_t o = 0; o < outer && at < end; ++o) {
      for (const auto& [source, chunk] : sources) {
        const size_t from = std::max(at, begin), to = std::min(at + chunk, end);
        if (from < to) std::memcpy(dst + from, source + o * chunk + (from - at), (to - from) * sizeof(float));
        at += chunk;
        if (at >= end) return;
      }
    }
  }

  /// On each thread of the team: its equal share of the destination.
  static void on_thread(void* self) {
    const auto* copy = static_cast<const ParallelCopy*>(self);
    const size_t threads = static_cast<size_t>(omp_get_num_threads()), t = static_cast<size_t>(omp_get_thread_num());
    copy->copy_part(copy->total * t / threads, copy->total * (t + 1) / threads);
  }
};

}  // namespace

void GroupKernel::concatenate(const ConcatCopy& copy, const std::vector<float*>& data, float* dst) {
  ParallelCopy parallel{copy.outer, {}, dst, 0};
  for (const auto& [value, chunk] : copy.sources) {
    parallel.sources.emplace_back(data[value], chunk);
    parallel.total += copy.outer * chunk;
  }
  parallel.run();
}

void GroupKernel::run(const dnnl::engine& engine, const std::vector<sdk::TensorView>& args) const {
  if (args.size() != num_params_ + outputs_.size()) {
    throw sdk::Error("the group takes " + std::to_string(num_params_) + " parameters and " +
                     std::to_string(outputs_.size()) + " outputs, but the launch passed " + std::to_string(args.size()) +
                     " tensors");
  }
  auto check = [&](size_t i, const Shape& shape, const std::string& what) {
    if (args[i].dtype() == sdk::dtype::float32 && args[i].numel() == numel_of(shape)) return;
    throw sdk::Error(what + " must be a float32 tensor of " + std::to_string(numel_of(shape)) + " elements, not a " +
                     sdk::dtype_name(args[i].dtype()) + " tensor of " + std::to_string(args[i].numel()));
  };
  // One block per run: the intermediates, then the largest scratchpad.
  char* const scratch = thread_scratch(intermediate_bytes_ + aligned(scratchpad_bytes_));
  std::vector<float*> data(values_.size());
  for (size_t v = 0; v < values_.size(); ++v) {
    const Value& value = values_[v];
    switch (value.source) {
      case Source::kParam:
        check(value.index, value.shape, "argument " + std::to_string(value.index));
        data[v] = args[value.index].data<float>();
        break;
      case Source::kConstant: data[v] = const_cast<float*>(constants_[value.index].data()); break;
      case Source::kIntermediate:
        if (value.output) {
          check(num_params_ + *value.output, value.shape, "output " + std::to_string(*value.output));
          data[v] = args[num_params_ + *value.output].data<float>();
        } else {
          data[v] = reinterpret_cast<float*>(scratch + value.index);
        }
        break;
    }
  }
  dnnl::stream stream(engine);
  for (const Step& step : steps_) {
    if (step.concat_copy) {
      stream.wait();  // the sources' primitives have finished writing them
      concatenate(*step.concat_copy, data, data[step.dst]);
      continue;
    }
    std::unordered_map<int, memory> memories(step.packed.begin(), step.packed.end());
    for (const Binding& b : step.bindings) memories.emplace(b.arg, memory(b.desc, engine, data[b.value]));
    if (step.scratchpad.get_size()) {
      memories.emplace(DNNL_ARG_SCRATCHPAD, memory(step.scratchpad, engine, scratch + intermediate_bytes_));
    }
    for (const Relayout& r : step.input_relayouts) {
      memory own(r.own, engine, data[r.value]), chosen(r.chosen, engine, scratch + r.offset);
      r.to_chosen.execute(stream, {{DNNL_ARG_FROM, own}, {DNNL_ARG_TO, chosen}});
      memories.emplace(r.arg, chosen);
    }
    const std::optional<Relayout>& out = step.dst_relayout;
    std::optional<memory> own_dst, chosen_dst;
    if (out) {
      own_dst.emplace(out->own, engine, data[step.dst]);
      chosen_dst.emplace(out->chosen, engine, scratch + out->offset);
      memories.emplace(DNNL_ARG_DST, *chosen_dst);
    }
    if (step.sum_addend && out) {
      memory addend(out->own, engine, data[*step.sum_addend]);
      out->to_chosen.execute(stream, {{DNNL_ARG_FROM, addend}, {DNNL_ARG_TO, *chosen_dst}});
    } else if (step.sum_addend && data[*step.sum_addend] != data[step.dst]) {
      // The sum post-op adds into dst: the addend goes there first (distinct live values never overlap).
      const size_t n = numel_of(values_[step.dst].shape);
      ParallelCopy{1, {{data[*step.sum_addend], n}}, data[step.dst], n}.run();
    }
    step.primitive.execute(stream, memories);
    if (out) out->to_own.execute(stream, {{DNNL_ARG_FROM, *chosen_dst}, {DNNL_ARG_TO, *own_dst}});
  }
  stream.wait();
  for (size_t o = 0; o < outputs_.size(); ++o) {
    const Value& value = values_[outputs_[o]];
    check(num_params_ + o, value.shape, "output " + std::to_string(o));
    float* out = args[num_params_ + o].data<float>();
    if (out != data[outputs_[o]] && !value.shape.empty() && numel_of(value.shape)) {
      std::memmove(out, data[outputs_[o]], numel_of(value.shape) * sizeof(float));
    }
  }
}

std::vector<size_t> GroupKernel::values_read(const Step& step) {
  std::vector<size_t> read;
  for (const Binding& b : step.bindings) read.push_back(b.value);  // the dst's binding too: a sum reads it
  for (const Relayout& r : step.input_relayouts) read.push_back(r.value);
  if (step.concat_copy)
    for (const auto& source : step.concat_copy->sources) read.push_back(source.first);
  if (step.sum_addend) read.push_back(*step.sum_addend);
  return read;
}

std::vector<bool> GroupKernel::params_read_at_launch() const {
  std::vector<bool> read(num_params_, false);
  auto reads = [&](size_t value) {
    if (values_[value].source == Source::kParam) read[values_[value].index] = true;
  };
  for (const Step& step : steps_)
    for (size_t value : values_read(step)) reads(value);
  for (size_t o : outputs_) reads(o);  // a parameter returned as it is
  return read;
}

std::optional<size_t> GroupKernel::inplace_parameter() const {
  if (outputs_.size() != 1) return std::nullopt;
  const Step* summing = nullptr;
  for (const Step& step : steps_)
    if (step.sum_addend && step.dst == outputs_[0]) summing = &step;
  if (!summing) return std::nullopt;
  const size_t addend = *summing->sum_addend;
  const Value& value = values_[addend];
  if (value.source != Source::kParam || value.shape != values_[outputs_[0]].shape) return std::nullopt;
  size_t reads = 0;
  for (const Step& step : steps_) {
    const std::vector<size_t> read = values_read(step);
    reads += std::count(read.begin(), read.end(), addend);
  }
  if (reads != 1) return std::nullopt;
  return value.index;
}

size_t GroupKernel::constant_bytes() const {
  size_t bytes = 0;
  for (const Step& step : steps_)
    for (const auto& [arg, memory] : step.packed) bytes += memory.get_desc().get_size();
  for (const std::vector<float>& c : constants_) bytes += c.size() * sizeof(float);
  return bytes;
}

size_t GroupKernel::num_relayouts() const {
  size_t n = 0;
  for (const Step& step : steps_) n += step.input_relayouts.size() + (step.dst_relayout ? 1 : 0);
  return n;
}

void GroupKernel::warm_up(const dnnl::engine& engine) const {
  std::vector<Shape> shapes(num_params_);
  for (const Value& v : values_) {
    if (v.source == Source::kParam) shapes[v.index] = v.shape;
  }
  for (size_t o : outputs_) shapes.push_back(values_[o].shape);
  std::vector<std::vector<float>> zeros;
  std::vector<DLTensor> tensors;
  for (Shape& shape : shapes) {
    zeros.emplace_back(numel_of(shape));
    DLTensor t{};
    t.data = zeros.back().data();
    t.device = {kDLCPU, 0};
    t.ndim = static_cast<int>(shape.size());
    t.dtype = {kDLFloat, 32, 1};
    t.shape = shape.data();
    tensors.push_back(t);
  }
  std::vector<sdk::TensorView> args;
  for (const DLTensor& t : tensors) args.emplace_back(t);
  run(engine, args);
}

std::string GroupKernel::summary() const {
  std::string out;
  for (const Step& step : steps_) out += (out.empty() ? "" : ", ") + step.summary;
  return out;
}

}  // namespace onednn_target

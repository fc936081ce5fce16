// Compiling a fused group into oneDNN primitives and running them (group_kernel.h).
#include "group_kernel.h"

#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "op_mapping.h"

namespace onednn_target {

namespace sdk = weft::sdk;
using sdk::operator==;
using sdk::operator!=;
using dnnl::memory;

namespace {

constexpr size_t kAlignment = 64;

size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

struct PostOp {
  enum class Kind { kEltwise, kSum, kBinary } kind;
  EltwiseSpec eltwise;
  dnnl::algorithm alg = dnnl::algorithm::binary_add;
  memory::desc desc;  // the binary operand as it broadcasts to the dst
  size_t value = 0;   // the binary operand or the sum's addend
};

/// The primitive being built: its main op and the calls fused after it so far.
struct Pending {
  enum class Kind { kAnchor, kEltwise, kBinary, kPool, kSoftmax, kConcat } kind;
  AnchorSpec anchor;
  PoolSpec pool;
  SoftmaxSpec softmax;
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

const char* kind_name(Pending::Kind kind, AnchorKind anchor) {
  if (kind == Pending::Kind::kEltwise) return "eltwise";
  if (kind == Pending::Kind::kBinary) return "binary";
  if (kind == Pending::Kind::kPool) return "pooling";
  if (kind == Pending::Kind::kSoftmax) return "softmax";
  if (kind == Pending::Kind::kConcat) return "concat";
  return anchor == AnchorKind::kConvolution ? "convolution" : "matmul";
}

/// The primitive descriptor of `p`, or nullopt where oneDNN has no
/// implementation of it (with these post-ops).
std::optional<dnnl::primitive_desc_base> make_pd(const dnnl::engine& engine, const Pending& p) {
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
      case Pending::Kind::kAnchor: break;
    }
    const AnchorSpec& a = p.anchor;
    auto any = [](const memory::desc& d) { return memory::desc(d.dims(), memory::data_type::f32, memory::format_tag::any); };
    // A run-time weight is reordered at each launch (a bound one once, here).
    const memory::desc weights = a.src.dims().size() == 3 ? a.weights : any(a.weights);
    if (a.kind == AnchorKind::kConvolution) {
      // oneDNN picks the data layouts too (NHWC for its brgemm kernels): the
      // plain NCHW ones leave it only the slow im2col GEMM.
      const memory::desc src = any(a.src), dst = any(a.dst);
      using conv = dnnl::convolution_forward;
      const auto direct = dnnl::algorithm::convolution_direct;
      if (!p.bias) {
        const conv::desc desc(inference, direct, src, weights, dst, a.strides, a.dilates, a.pad_l, a.pad_r);
        return conv::primitive_desc(desc, attr, engine);
      }
      const memory::desc bias({static_cast<int64_t>(p.bias->size())}, memory::data_type::f32, memory::format_tag::a);
      const conv::desc desc(inference, direct, src, weights, bias, dst, a.strides, a.dilates, a.pad_l, a.pad_r);
      return conv::primitive_desc(desc, attr, engine);
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

}  // namespace

/// Walks a group in evaluation order, fusing each call into the primitive
/// before it where oneDNN accepts that, and emits the steps.
class GroupBuilder {
 public:
  GroupBuilder(const dnnl::engine& engine, GroupKernel& kernel) : engine_(engine), k_(kernel) {}

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
    k_.constants_.emplace_back(first, first + numel_of(node.type().shape()));
    const size_t id = add_value(GroupKernel::Source::kConstant, k_.constants_.size() - 1, node.type().shape());
    compile_data_[id] = k_.constants_.back().data();
    return id;
  }

  /// Adds `call` reading `args` (value ids), its result read by `readers`
  /// calls and outputs (`output`: it is one); returns the value it produces.
  size_t add_call(const sdk::Expr& call, const std::vector<size_t>& args, int readers, bool output) {
    const std::string op = call.op_name();
    if (!is_static_f32(call.type())) {
      throw sdk::Unsupported("oneDNN does not run " + op + " with a " + call.type().str() +
                             " result: the onednn target runs float32 of static shape");
    }
    const size_t dst = add_value(GroupKernel::Source::kIntermediate, 0, call.type().shape());
    readers_[dst] = readers;
    if (output) outputs_.insert(dst);
    if (std::optional<AnchorSpec> anchor = anchor_spec(call)) return start_anchor(call, *anchor, args, dst);
    if (std::optional<EltwiseSpec> eltwise = eltwise_spec(call)) return add_eltwise(call, *eltwise, args[0], dst);
    if (std::optional<dnnl::algorithm> alg = binary_alg(op)) return add_binary(call, *alg, args, dst);
    if (std::optional<PoolSpec> pool = pool_spec(call)) {
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
    if (std::optional<SoftmaxSpec> softmax = softmax_spec(call)) {
      Pending p;
      p.kind = Pending::Kind::kSoftmax;
      p.softmax = *softmax;
      p.src = args[0];
      p.src_desc = p.dst_desc = plain_view(shape_of(args[0]), identity_groups(shape_of(args[0]).size()));
      start(std::move(p), call, "softmax", dst);
      return dst;
    }
    throw sdk::Unsupported("oneDNN does not run " + op + " (the onednn target has no mapping for it)");
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
  /// pooling and softmax take none.
  bool extends_pending(size_t value, bool binary) const {
    if (!pending_ || pending_->dst != value || readers_.at(value) != 1 || outputs_.count(value)) return false;
    if (pending_->kind == Pending::Kind::kPool || pending_->kind == Pending::Kind::kSoftmax ||
        pending_->kind == Pending::Kind::kConcat) {
      return false;
    }
    return !binary || pending_->kind != Pending::Kind::kEltwise;
  }

  /// Replaces the pending primitive by `candidate` when oneDNN creates it.
  bool try_extend(Pending candidate, const std::string& op, size_t dst) {
    std::optional<dnnl::primitive_desc_base> pd = make_pd(engine_, candidate);
    if (!pd) return false;
    candidate.pd = *pd;
    candidate.dst = dst;
    candidate.ops.push_back(op);
    pending_ = std::move(candidate);
    return true;
  }

  /// Opens a primitive of its own for `call`, whose result is `dst`.
  void start(Pending p, const sdk::Expr& call, const std::string& what, size_t dst) {
    flush();
    std::optional<dnnl::primitive_desc_base> pd = make_pd(engine_, p);
    if (!pd) {
      throw sdk::Unsupported("oneDNN has no " + what + " for " + call.op_name() + " on " +
                             call.arg(0).type().str() + " -> " + call.type().str());
    }
    p.pd = *pd;
    p.dst = dst;
    p.ops = {call.op_name()};
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
    p.constant_weights = data_at_compile(args[1]) && anchor.src.dims().size() != 3;
    p.dst_desc = anchor.dst;
    p.dst_groups = anchor.dst_groups;
    start(std::move(p), call, anchor.kind == AnchorKind::kConvolution ? "convolution" : "matrix product", dst);
    return dst;
  }

  size_t add_eltwise(const sdk::Expr& call, const EltwiseSpec& eltwise, size_t arg, size_t dst) {
    if (extends_pending(arg, false)) {
      Pending candidate = *pending_;
      candidate.post_ops.push_back(PostOp{PostOp::Kind::kEltwise, eltwise, {}, {}, 0});
      if (try_extend(std::move(candidate), call.op_name() + " as eltwise", dst)) return dst;
    }
    Pending p;
    p.kind = Pending::Kind::kEltwise;
    p.eltwise = eltwise;
    p.src = arg;
    p.src_desc = p.dst_desc = plain_view(shape_of(arg), identity_groups(shape_of(arg).size()));
    p.dst_groups = identity_groups(shape_of(arg).size());
    start(std::move(p), call, "eltwise primitive", dst);
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
    const int channel = pending_->anchor.channel_axis;
    for (size_t axis = 0; axis < out.size(); ++axis) {
      if (padded[axis] != 1 && (static_cast<int>(axis) != channel || padded[axis] != out[axis])) return false;
    }
    Pending candidate = *pending_;
    candidate.bias = std::vector<float>(out[channel]);
    for (int64_t c = 0; c < out[channel]; ++c) (*candidate.bias)[c] = padded[channel] == 1 ? data[0] : data[c];
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
    const AxisGroups groups = identity_groups(out.size());
    std::optional<memory::desc> src1 = broadcast_view(shapes[1 - first], out, groups);
    if (!src1) throw sdk::Unsupported("oneDNN does not run " + call.op_name() + ": its operands do not broadcast");
    Pending p;
    p.kind = Pending::Kind::kBinary;
    p.alg = alg;
    p.src = args[first];
    p.src1 = args[1 - first];
    p.src_desc = p.dst_desc = plain_view(out, groups);
    p.src1_desc = *src1;
    p.dst_groups = groups;
    start(std::move(p), call, "binary primitive", dst);
    return dst;
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

  /// Emits the pending primitive as a step.
  void flush() {
    if (!pending_) return;
    Pending& p = *pending_;
    GroupKernel::Step step;
    step.primitive = dnnl::primitive(p.pd.get());
    step.dst = p.dst;
    step.scratchpad = p.pd.scratchpad_desc();
    k_.scratchpad_bytes_ = std::max(k_.scratchpad_bytes_, step.scratchpad.get_size());
    step.summary = std::string(kind_name(p.kind, p.anchor.kind)) + "(";
    for (size_t i = 0; i < p.ops.size(); ++i) step.summary += (i ? ", " : "") + p.ops[i];
    step.summary += ")";
    switch (p.kind) {
      case Pending::Kind::kEltwise:
      case Pending::Kind::kPool:
      case Pending::Kind::kSoftmax: step.bindings.push_back({DNNL_ARG_SRC, p.src, p.src_desc}); break;
      case Pending::Kind::kConcat:
        for (size_t i = 0; i < p.concat_srcs.size(); ++i) {
          step.bindings.push_back({DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), p.concat_srcs[i], p.concat_descs[i]});
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
        if (p.constant_weights) {
          // Reorder the weight once into the layout the primitive chose.
          memory user(p.anchor.weights, engine_, const_cast<float*>(compile_data_.at(p.src1)));
          memory packed(p.pd.weights_desc(), engine_);
          dnnl::stream stream(engine_);
          dnnl::reorder(user, packed).execute(stream, user, packed);
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
  std::unordered_map<size_t, const float*> compile_data_;  // values known at compile
  std::unordered_map<size_t, int> readers_;  // of each call's result
  std::unordered_set<size_t> outputs_;
  std::optional<Pending> pending_;
};

std::shared_ptr<const GroupKernel> GroupKernel::compile(const dnnl::engine& engine, const sdk::Expr& primitive,
                                                        const std::vector<std::optional<sdk::TensorView>>& constants) {
  auto kernel = std::make_shared<GroupKernel>();
  GroupBuilder builder(engine, *kernel);
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
  for (const sdk::Expr& call : calls) {
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
  GroupBuilder builder(engine, kernel);
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
  builder.finish({builder.add_call(call, args, 1, true)});
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
  const size_t bytes = intermediate_bytes_ + aligned(scratchpad_bytes_);
  std::unique_ptr<char, decltype(&std::free)> scratch(
      bytes ? static_cast<char*>(std::aligned_alloc(kAlignment, bytes)) : nullptr, &std::free);
  if (bytes && !scratch) throw sdk::Error("cannot allocate " + std::to_string(bytes) + " bytes of scratch memory");
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
          data[v] = reinterpret_cast<float*>(scratch.get() + value.index);
        }
        break;
    }
  }
  dnnl::stream stream(engine);
  for (const Step& step : steps_) {
    std::unordered_map<int, memory> memories(step.packed.begin(), step.packed.end());
    for (const Binding& b : step.bindings) memories.emplace(b.arg, memory(b.desc, engine, data[b.value]));
    if (step.scratchpad.get_size()) {
      memories.emplace(DNNL_ARG_SCRATCHPAD, memory(step.scratchpad, engine, scratch.get() + intermediate_bytes_));
    }
    for (const Relayout& r : step.input_relayouts) {
      memory own(r.own, engine, data[r.value]), chosen(r.chosen, engine, scratch.get() + r.offset);
      r.to_chosen.execute(stream, {{DNNL_ARG_FROM, own}, {DNNL_ARG_TO, chosen}});
      memories.emplace(r.arg, chosen);
    }
    const std::optional<Relayout>& out = step.dst_relayout;
    std::optional<memory> own_dst, chosen_dst;
    if (out) {
      own_dst.emplace(out->own, engine, data[step.dst]);
      chosen_dst.emplace(out->chosen, engine, scratch.get() + out->offset);
      memories.emplace(DNNL_ARG_DST, *chosen_dst);
    }
    if (step.sum_addend && out) {
      memory addend(out->own, engine, data[*step.sum_addend]);
      out->to_chosen.execute(stream, {{DNNL_ARG_FROM, addend}, {DNNL_ARG_TO, *chosen_dst}});
    } else if (step.sum_addend && data[*step.sum_addend] != data[step.dst]) {
      std::memmove(data[step.dst], data[*step.sum_addend], numel_of(values_[step.dst].shape) * sizeof(float));
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

std::string GroupKernel::summary() const {
  std::string out;
  for (const Step& step : steps_) out += (out.empty() ? "" : ", ") + step.summary;
  return out;
}

}  // namespace onednn_target

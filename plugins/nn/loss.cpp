// Losses: cross_entropy, cross_entropy_with_logits and nll_loss, as Relay's
// nn namespace defines them (TVM v0.19: relations in src/relay/op/nn/nn.cc,
// computes in relay/op/nn/_nn.py and topi::nn::nll_loss).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <weft/sdk/gradient.hpp>

#include "nn_ops.h"
#include "te_util.h"
#include "tensor_access.h"

namespace weft_nn {

namespace {

using namespace weft::sdk;

// ---- cross entropy -----------------------------------------------------------------------------

/// Predictions and targets: two 2-D tensors (batch, classes) of one shape; a scalar out.
Type cross_entropy_relation(const std::vector<Type>& args, const Attrs&) {
  Type x = tensor_arg(args, 0, "x");
  Type y = tensor_arg(args, 1, "y");
  std::vector<int64_t> xs = x.shape(), ys = y.shape();
  bool ok = xs.size() == 2 && ys.size() == 2 && dims_agree(xs[0], ys[0]) && dims_agree(xs[1], ys[1]);
  if (!ok) throw Error("predictions and targets must be 2-D of one shape, got x " + x.str() + " and y " + y.str());
  if (x.dtype() != y.dtype()) throw Error("predictions and targets differ in dtype: x " + x.str() + ", y " + y.str());
  return Type::tensor({}, x.dtype());
}

/// The TE of cross_entropy_kernel: the sum over the elements in C order
/// (a reduction from a 0-d compute), then -sum / batch.
template <typename F>
TeCompute cross_entropy_te(F term) {
  return [term](const std::vector<te::Tensor>& in, const Attrs&, const Type&) {
    const te::Tensor &x = in.at(0), &y = in.at(1);
    te_util::require_float(x.dtype(), "cross_entropy");
    std::vector<int64_t> shape = x.shape();
    te::Tensor sum = te::compute(
        {},
        [&](const te::Idx&) {
          te::Axis r0 = te::reduce_axis(shape[0], "r0"), r1 = te::reduce_axis(shape[1], "r1");
          return te::sum(term(x(r0, r1), y(r0, r1)), {r0, r1});
        },
        "cross_entropy_sum");
    te::Expr batch = te::make_const(x.dtype(), static_cast<double>(shape[0]));
    return std::vector<te::Tensor>{
        te::compute({}, [&](const te::Idx&) { return -sum(te::Idx{}) / batch; }, "cross_entropy")};
  };
}

/// -sum(term(x, y)) / batch, the reference's compute for both cross entropies.
template <typename F>
Kernel cross_entropy_kernel(F term) {
  return [term](const KernelArgs& k) {
    const TensorView& x = k.inputs.at(0);
    with_float_type(x, [&](auto tag) {
      using T = decltype(tag);
      const T* p = x.data<T>();
      const T* t = k.inputs.at(1).data<T>();
      T sum = 0;
      for (int64_t i = 0, n = x.numel(); i < n; ++i) sum += term(p[i], t[i]);
      k.outputs.at(0).data<T>()[0] = -sum / static_cast<T>(x.shape()[0]);
    });
  };
}

// ---- nll_loss ----------------------------------------------------------------------------------

/// predictions (N, C, d1, ..., dk), targets (N, d1, ..., dk) of an integer
/// dtype, weights (C,); out: the targets' shape for reduction "none", else a scalar.
Type nll_loss_relation(const std::vector<Type>& args, const Attrs& attrs) {
  Type pred = tensor_arg(args, 0, "predictions");
  Type targets = tensor_arg(args, 1, "targets");
  Type weights = tensor_arg(args, 2, "weights");
  std::vector<int64_t> ps = pred.shape(), ts = targets.shape(), ws = weights.shape();
  if (ps.size() != ts.size() + 1) {
    throw Error("predictions should be one dimension larger than targets, got predictions " + pred.str() +
                " and targets " + targets.str());
  }
  if (ws.size() != 1) {
    throw Error("weights should be a 1-D tensor with one weight per class, got " + weights.str());
  }
  const int64_t classes = ps.size() >= 2 ? ps[1] : ps[0];
  if (!dims_agree(classes, ws[0])) {
    throw Error("the class dimension of predictions " + pred.str() + " (" + std::to_string(classes) +
                ") differs from the length of weights " + weights.str());
  }
  if (pred.dtype() != weights.dtype() || pred.dtype().code != kDLFloat) {
    throw Error("predictions and weights should be of one float dtype, got " + pred.str() + " and " + weights.str());
  }
  if (targets.dtype().code != kDLInt && targets.dtype().code != kDLUInt) {
    throw Error("targets should be of an integer dtype, got " + targets.str());
  }
  if (attrs.get_string("reduction") == "none") return Type::tensor(ts, pred.dtype());
  return Type::tensor({}, pred.dtype());
}

/// topi::nn::nll_loss: loss[n, d...] = -predictions[n, t, d...] * weights[t]
/// with t = targets[n, d...], and 0 where t == ignore_index; "mean" divides
/// the sum of losses by the sum of the weights of the targets not ignored.
void nll_loss_kernel(const KernelArgs& k) {
  const TensorView& pred = k.inputs.at(0);
  std::vector<int64_t> ps = pred.shape();
  const int64_t classes = ps.size() >= 2 ? ps[1] : ps[0];
  const int64_t batch = ps.size() >= 2 ? ps[0] : 1;
  int64_t inner = 1;
  for (size_t d = 2; d < ps.size(); ++d) inner *= ps[d];
  std::vector<int64_t> targets = load_as<int64_t>(k.inputs.at(1));
  const int64_t ignore_index = k.attrs.get_int("ignore_index");
  const std::string reduction = k.attrs.get_string("reduction");
  with_float_type(pred, [&](auto tag) {
    using T = decltype(tag);
    const T* p = pred.data<T>();
    const T* w = k.inputs.at(2).data<T>();
    std::vector<T> loss(targets.size());
    T loss_sum = 0, weight_sum = 0;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t at = n * inner + i;
        const int64_t t = targets[at];
        if (t == ignore_index) continue;
        if (t < 0 || t >= classes) {
          throw Error("target " + std::to_string(t) + " at flat index " + std::to_string(at) +
                      " is not a class in [0, " + std::to_string(classes) + ") nor ignore_index " +
                      std::to_string(ignore_index));
        }
        loss[at] = -p[(n * classes + t) * inner + i] * w[t];
        loss_sum += loss[at];
        weight_sum += w[t];
      }
    }
    T* out = k.outputs.at(0).data<T>();
    if (reduction == "none") {
      for (size_t i = 0; i < loss.size(); ++i) out[i] = loss[i];
    } else {
      out[0] = reduction == "mean" ? loss_sum / weight_sum : loss_sum;
    }
  });
}

/// The batch extent of x (its first dim) as a scalar of x's dtype.
Expr batch_size(const Expr& x) {
  return grad::scalar_like(x, static_cast<double>(grad::static_shape(x, "the predictions").at(0)));
}

/// loss[n, ...] = -predictions[n, t, ...] w[t] for target t (0 where t is
/// ignore_index), then reduced. With picked = [class == t and t != ignore]
/// over (N, C, ...), each loss reads predictions only where picked is 1.
std::vector<Expr> nll_loss_gradient(const Expr& c, const Expr& g) {
  Expr predictions = c.arg(0), targets = c.arg(1), weights = c.arg(2);
  Attrs a = c.attrs();
  std::vector<int64_t> shape = grad::static_shape(predictions, "nll_loss's predictions");
  const int64_t classes = shape.at(1);
  DLDataType target_type = targets.type().dtype();
  std::vector<double> class_ids(static_cast<size_t>(classes));
  for (int64_t k = 0; k < classes; ++k) class_ids[static_cast<size_t>(k)] = static_cast<double>(k);
  std::vector<int64_t> along_classes(shape.size(), 1);
  along_classes[1] = classes;
  Expr target_axis = call("expand_dims", {targets}, {{"axis", 1}});
  Expr ignored = grad::constant_of({}, target_type, {static_cast<double>(a.get_int("ignore_index"))});
  Expr picked = call("logical_and",
                     {call("equal", {target_axis, grad::constant_of(along_classes, target_type, class_ids)}),
                      call("not_equal", {target_axis, ignored})});
  Expr mask = grad::cast_like(picked, predictions);
  Expr w = call("reshape", {weights}, {{"newshape", along_classes}});
  auto per_class = [](const Expr& e) {
    return call("sum", {e}, {{"axis", std::vector<int64_t>{1}}, {"exclude", true}});
  };
  std::string reduction = a.get_string("reduction");
  // The gradient of each loss element, broadcast over the classes axis.
  Expr g_each = reduction == "none" ? call("expand_dims", {g}, {{"axis", 1}}) : g;
  Expr dpred = grad::neg(grad::mul(grad::mul(g_each, w), mask));
  Expr dweights = per_class(grad::neg(grad::mul(grad::mul(g_each, predictions), mask)));
  if (reduction == "mean") {
    // loss = S / T with T = sum(w[t]): dS/dw_c as above, dT/dw_c = count of c.
    Expr total = call("sum", {grad::mul(w, mask)});
    dpred = grad::div(dpred, total);
    dweights = grad::div(grad::sub(dweights, grad::mul(grad::mul(g, c), per_class(mask))), total);
  }
  return {dpred, grad::zeros_like(targets), dweights};
}

}  // namespace

void register_loss_ops(Registrar& reg) {
  reg.op("nn.cross_entropy")
      .describe("Cross entropy of probabilities x against targets y: -sum(log(x) * y) / batch. Takes "
                "probabilities, not logits.")
      .input("x", "2D Tensor", "Predicted probabilities, (batch, classes).")
      .input("y", "2D Tensor", "Targets, (batch, classes).")
      .support_level(10)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation(cross_entropy_relation)
      .kernel(cross_entropy_kernel([](auto x, auto y) { return std::log(x) * y; }))
      .te_compute(cross_entropy_te([](const te::Expr& x, const te::Expr& y) { return te::log(x) * y; }))
      .gradient([](const Expr& c, const Expr& g) {
        // loss = -sum(log(x) y) / batch.
        Expr x = c.arg(0), y = c.arg(1);
        Expr scale = grad::div(grad::neg(g), batch_size(x));
        return std::vector<Expr>{grad::mul(scale, grad::div(y, x)), grad::mul(scale, call("log", {x}))};
      });

  reg.op("nn.cross_entropy_with_logits")
      .describe("Cross entropy of log-probabilities x against targets y: -sum(x * y) / batch.")
      .input("x", "2D Tensor", "Predicted log-probabilities, (batch, classes).")
      .input("y", "2D Tensor", "Targets, (batch, classes).")
      .support_level(10)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation(cross_entropy_relation)
      .kernel(cross_entropy_kernel([](auto x, auto y) { return x * y; }))
      .te_compute(cross_entropy_te([](const te::Expr& x, const te::Expr& y) { return x * y; }))
      .gradient([](const Expr& c, const Expr& g) {
        // loss = -sum(x y) / batch.
        Expr x = c.arg(0), y = c.arg(1);
        Expr scale = grad::div(grad::neg(g), batch_size(x));
        return std::vector<Expr>{grad::mul(scale, y), grad::mul(scale, x)};
      });

  reg.op("nn.nll_loss")
      .describe("Negative log likelihood loss: -predictions[n, t, ...] * weights[t] for each target t, 0 where t is "
                "ignore_index, then reduced by reduction.")
      .input("predictions", "Tensor", "Log-probabilities, (N, C, d1, ..., dk).")
      .input("targets", "Tensor", "Class indices, (N, d1, ..., dk), of an integer dtype.")
      .input("weights", "1D Tensor", "One weight per class, (C,).")
      .attr("reduction", "mean", "How to reduce the losses.", "one of \"mean\", \"sum\", \"none\"")
      .normalize([](const Value& v) {
        std::string r = v.as_string();
        if (r != "mean" && r != "sum" && r != "none") {
          throw Error("reduction must be one of \"mean\", \"sum\", \"none\", got \"" + r + "\"");
        }
        return v;
      })
      .attr("ignore_index", int64_t{-100}, "A target value that contributes nothing (neither loss nor weight).")
      .support_level(10)
      .pattern(WEFT_PATTERN_OUT_ELEMWISE_FUSABLE)
      .type_relation(nll_loss_relation)
      .kernel(nll_loss_kernel)
      .gradient(nll_loss_gradient);
}

}  // namespace weft_nn

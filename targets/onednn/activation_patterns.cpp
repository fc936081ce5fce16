// Finding multi-call activations in a group (activation_patterns.h).
#include "activation_patterns.h"

#include <cmath>
#include <numbers>

namespace onednn_target {

namespace sdk = weft::sdk;
using sdk::operator!=;
using dnnl::algorithm;

namespace {

bool is_op_call(const sdk::Expr& e, const char* op) {
  return e.is(WEFT_EXPR_CALL) && e.callee().is(WEFT_EXPR_OP) && e.op_name() == op;
}

bool close_to(double value, double want) { return std::fabs(value - want) <= 1e-5 * std::fabs(want); }

/// e as base * factor: a multiply by a scalar constant (either side) or a
/// divide by one; nullopt for anything else.
struct Scaled {
  sdk::Expr base;
  double factor;
};
std::optional<Scaled> scaled(const sdk::Expr& e) {
  if (is_op_call(e, "multiply")) {
    if (std::optional<double> c = scalar_constant(e.arg(1))) return Scaled{e.arg(0), *c};
    if (std::optional<double> c = scalar_constant(e.arg(0))) return Scaled{e.arg(1), *c};
  }
  if (is_op_call(e, "divide")) {
    if (std::optional<double> c = scalar_constant(e.arg(1)); c && *c != 0) return Scaled{e.arg(0), 1 / *c};
  }
  return std::nullopt;
}

/// `a + c` or `c + a` for a scalar constant c: a and c.
struct Shifted {
  sdk::Expr base;
  double shift;
};
std::optional<Shifted> shifted(const sdk::Expr& e) {
  if (!is_op_call(e, "add")) return std::nullopt;
  if (std::optional<double> c = scalar_constant(e.arg(1))) return Shifted{e.arg(0), *c};
  if (std::optional<double> c = scalar_constant(e.arg(0))) return Shifted{e.arg(1), *c};
  return std::nullopt;
}

const double kInvSqrt2 = 1 / std::sqrt(2.0);

/// c + k * term, the second factor of a GELU.
struct Affine {
  double c, k;
  sdk::Expr term;
  /// Whether m * x * (c + k * term) is 0.5 * x * (1 + term).
  bool halves(double m) const { return close_to(m * c, 0.5) && close_to(m * k, 0.5); }
};

/// One try at matching `root` = p * q: the calls it has taken as the
/// pattern's, each read only by the pattern.
class Attempt {
 public:
  Attempt(const sdk::Expr& root, const std::function<int(const weft_expr_t*)>& readers)
      : root_(root), readers_(readers) {}

  bool take(const sdk::Expr& e) {
    if (!e.is(WEFT_EXPR_CALL) || readers_(e.get()) != 1) return false;
    calls_.push_back(e);
    return true;
  }

  /// `p` as m * x (taking its scaling call) or x itself (m = 1); nullopt
  /// where it is neither.
  std::optional<double> factor_of(const sdk::Expr& p, const sdk::Expr& x) {
    if (p.get() == x.get()) return 1.0;
    std::optional<Scaled> s = scaled(p);
    if (!s || s->base.get() != x.get() || !take(p)) return std::nullopt;
    return s->factor;
  }

  /// `q` as c + k * term (k = 1 where the term is not scaled), taking its calls.
  std::optional<Affine> affine(const sdk::Expr& q) {
    std::optional<Shifted> sum = shifted(q);
    if (!sum || !take(q)) return std::nullopt;
    Affine out{sum->shift, 1, sum->base};
    if (std::optional<Scaled> s = scaled(out.term)) {
      if (!take(out.term)) return std::nullopt;
      out.k = s->factor;
      out.term = s->base;
    }
    return out;
  }

  ActivationMatch match(algorithm alg, float alpha, const char* name, const sdk::Expr& x) const {
    ActivationMatch m{EltwiseSpec{alg, alpha, 0.f}, name, x, {}, 0};
    std::vector<sdk::Expr> all = calls_;
    all.push_back(root_);
    for (const sdk::Expr& call : all) {
      if (call.get() != root_.get()) m.inner.push_back(call.get());
      for (const sdk::Expr& a : call.args()) m.input_reads += a.get() == x.get();
    }
    return m;
  }

 private:
  const sdk::Expr& root_;
  const std::function<int(const weft_expr_t*)>& readers_;
  std::vector<sdk::Expr> calls_;
};

/// p * q with q = c + k * erf(x * s) and p = m * x: GELU when s = 1/sqrt(2)
/// and m * c = m * k = 0.5.
std::optional<ActivationMatch> gelu(Attempt attempt, const sdk::Expr& p, const sdk::Expr& q) {
  std::optional<Affine> half_sum = attempt.affine(q);
  if (!half_sum) return std::nullopt;
  const sdk::Expr term = half_sum->term;
  if (!is_gelu_erf(term) || !attempt.take(term) || !attempt.take(term.arg(0))) return std::nullopt;
  const sdk::Expr x = scaled(term.arg(0))->base;
  std::optional<double> m = attempt.factor_of(p, x);
  if (!m || !half_sum->halves(*m)) return std::nullopt;
  return attempt.match(algorithm::eltwise_gelu_erf, 0.f, "gelu_erf", x);
}

/// b * power(x, 3) for a scalar constant b.
bool is_scaled_cube(const sdk::Expr& e) {
  std::optional<Scaled> s = scaled(e);
  return s && is_op_call(s->base, "power") && scalar_constant(s->base.arg(1)) == 3.0;
}

/// p * q with q = c + k * tanh(a * x + b * power(x, 3)) (the sum either way
/// round) and p = m * x: the tanh GELU when a = sqrt(2/pi), b / a = 0.044715
/// and m * c = m * k = 0.5.
std::optional<ActivationMatch> gelu_tanh(Attempt attempt, const sdk::Expr& p, const sdk::Expr& q) {
  std::optional<Affine> half_sum = attempt.affine(q);
  if (!half_sum) return std::nullopt;
  const sdk::Expr term = half_sum->term;
  if (!is_op_call(term, "tanh") || !attempt.take(term)) return std::nullopt;
  const sdk::Expr polynomial = term.arg(0);
  if (!is_op_call(polynomial, "add") || !attempt.take(polynomial)) return std::nullopt;
  sdk::Expr linear = polynomial.arg(0), cubic = polynomial.arg(1);
  if (!is_scaled_cube(cubic)) std::swap(linear, cubic);
  if (!is_scaled_cube(cubic) || !attempt.take(cubic)) return std::nullopt;
  const Scaled cube = *scaled(cubic);
  if (!attempt.take(cube.base)) return std::nullopt;
  const sdk::Expr x = cube.base.arg(0);
  std::optional<double> a = attempt.factor_of(linear, x), m = attempt.factor_of(p, x);
  if (!a || !m || !close_to(*a, std::sqrt(2 / std::numbers::pi)) || !close_to(cube.factor / *a, 0.044715)) return std::nullopt;
  if (!half_sum->halves(*m)) return std::nullopt;
  return attempt.match(algorithm::eltwise_gelu_tanh, 0.f, "gelu_tanh", x);
}

/// x * sigmoid(a * x) (a = 1 where the sigmoid reads x itself): swish.
std::optional<ActivationMatch> swish(Attempt attempt, const sdk::Expr& p, const sdk::Expr& q) {
  if (!is_op_call(q, "sigmoid") || !attempt.take(q)) return std::nullopt;
  std::optional<double> a = attempt.factor_of(q.arg(0), p);
  if (!a) return std::nullopt;
  return attempt.match(algorithm::eltwise_swish, static_cast<float>(*a), "swish", p);
}

/// m * x * k * clip(x + 3, 0, 6) with m * k = 1/6: hardswish.
std::optional<ActivationMatch> hardswish(Attempt attempt, const sdk::Expr& p, const sdk::Expr& q) {
  sdk::Expr clip = q;
  double k = 1;
  if (std::optional<Scaled> s = scaled(q)) {
    if (!attempt.take(q)) return std::nullopt;
    clip = s->base;
    k = s->factor;
  }
  if (!is_op_call(clip, "clip") || !attempt.take(clip)) return std::nullopt;
  const sdk::Attrs bounds = clip.attrs();
  if (bounds.get_float("a_min") != 0 || bounds.get_float("a_max") != 6) return std::nullopt;
  std::optional<Shifted> x3 = shifted(clip.arg(0));
  if (!x3 || x3->shift != 3 || !attempt.take(clip.arg(0))) return std::nullopt;
  std::optional<double> m = attempt.factor_of(p, x3->base);
  if (!m || !close_to(*m * k, 1.0 / 6)) return std::nullopt;
  return attempt.match(algorithm::eltwise_hardswish, 0.f, "hardswish", x3->base);
}

}  // namespace

bool is_gelu_erf(const sdk::Expr& call) {
  if (!is_op_call(call, "erf")) return false;
  std::optional<Scaled> s = scaled(call.arg(0));
  return s && close_to(s->factor, kInvSqrt2);
}

std::optional<ActivationMatch> match_activation(const sdk::Expr& root,
                                                const std::function<int(const weft_expr_t*)>& readers) {
  if (!is_op_call(root, "multiply")) return std::nullopt;
  for (auto pattern : {gelu, gelu_tanh, swish, hardswish}) {
    for (size_t first : {size_t{0}, size_t{1}}) {
      if (std::optional<ActivationMatch> m = pattern(Attempt(root, readers), root.arg(first), root.arg(1 - first))) {
        return m;
      }
    }
  }
  return std::nullopt;
}

}  // namespace onednn_target

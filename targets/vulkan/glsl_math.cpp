#include "glsl_math.h"

#include <weft/plugin.h>

#include <string>

namespace vulkan_target {
namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// `text` for `type`: $T the type, $S its helpers' suffix, $L its literals'
/// suffix, $NAN and $INF its quiet NaN and infinity.
std::string typed(std::string text, const std::string& type) {
  const bool dbl = type == "double";
  const std::pair<std::string, std::string> substitutions[] = {
      {"$NAN", dbl ? "packDouble2x32(uvec2(0u, 0x7ff80000u))" : "uintBitsToFloat(0x7fc00000u)"},
      {"$INF", dbl ? "packDouble2x32(uvec2(0u, 0x7ff00000u))" : "uintBitsToFloat(0x7f800000u)"},
      {"$T", type},
      {"$S", dbl ? "d" : "f"},
      {"$L", dbl ? "lf" : ""}};
  for (const auto& [from, to] : substitutions) text = replace_all(text, from, to);
  return text;
}

// exp of a double: x = k ln2 + r with |r| <= ln2 / 2 (ln2 in two parts, as
// fdlibm splits it, so r is exact), exp(r) by its Taylor series, times 2^k.
constexpr const char* kExpDouble = R"(double weft_exp_d(double x) {
  if (isnan(x)) return x;
  if (x > 709.782712893384lf) return $INF;
  if (x < -745.2lf) return 0.0lf;
  double k = floor(x * 1.4426950408889634lf + 0.5lf);
  double r = (x - k * 6.93147180369123816490e-01lf) - k * 1.90821492927058770002e-10lf;
  double term = 1.0lf, sum = 1.0lf;
  for (int n = 1; n <= 17; ++n) { term *= r / double(n); sum += term; }
  return ldexp(sum, int(k));
})";

// log of a double: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) =
// 2 atanh(s) for s = (m - 1) / (m + 1), |s| < 0.172, by its series.
constexpr const char* kLogDouble = R"(double weft_log_d(double x) {
  if (isnan(x) || x < 0.0lf) return $NAN;
  if (x == 0.0lf) return -$INF;
  if (isinf(x)) return x;
  int e;
  double m = frexp(x, e);
  if (m < 0.70710678118654752lf) { m *= 2.0lf; e -= 1; }
  double f = m - 1.0lf, s = f / (2.0lf + f), s2 = s * s, term = s, sum = s;
  for (int n = 3; n <= 41; n += 2) { term *= s2; sum += term / double(n); }
  return double(e) * 6.93147180369123816490e-01lf + (2.0lf * sum + double(e) * 1.90821492927058770002e-10lf);
})";

// exp(x) - 1 without the cancellation near 0 (its series there).
constexpr const char* kExpm1Double = R"(double weft_expm1_d(double x) {
  if (abs(x) >= 0.35lf) return weft_exp_d(x) - 1.0lf;
  double term = x, sum = x;
  for (int n = 2; n <= 18; ++n) { term *= x / double(n); sum += term; }
  return sum;
})";

// tanh(x) = expm1(2x) / (expm1(2x) + 2); it is +-1 in float beyond 9.1 and
// in double beyond 20, where clamping keeps infinities from dividing.
constexpr const char* kTanhFloat = "float weft_tanh_f(float x) { return tanh(clamp(x, -9.1, 9.1)); }";
constexpr const char* kTanhDouble = R"(double weft_tanh_d(double x) {
  if (isnan(x)) return x;
  double e = weft_expm1_d(2.0lf * clamp(x, -20.0lf, 20.0lf));
  return e / (e + 2.0lf);
})";

// erf of a float as a rational function on [-4, 4] (+-1 in float beyond),
// with the coefficients of XLA's float erf (a few ulp).
constexpr const char* kErfFloat = R"(float weft_erf_f(float x) {
  float c = clamp(x, -4.0, 4.0), x2 = c * c;
  float p = -2.72614225801306e-10;
  p = p * x2 + 2.77068142495902e-08;
  p = p * x2 - 2.10102402082508e-06;
  p = p * x2 - 5.69250639462346e-05;
  p = p * x2 - 7.34990630326855e-04;
  p = p * x2 - 2.95459980854025e-03;
  p = p * x2 - 1.60960333262415e-02;
  float q = -1.45660718464996e-05;
  q = q * x2 - 2.13374055278905e-04;
  q = q * x2 - 1.68282697438203e-03;
  q = q * x2 - 7.37332916720468e-03;
  q = q * x2 - 1.42647390514189e-02;
  return isnan(x) ? x : c * p / q;
})";

// erf of a double: its Maclaurin series below 3; above, 1 - erfc with erfc
// by its continued fraction exp(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x
// + (3/2) / ...))); 1 in double from 6.
constexpr const char* kErfDouble = R"(double weft_erf_d(double x) {
  if (isnan(x)) return x;
  double a = abs(x), r = 1.0lf;
  if (a < 3.0lf) {
    double x2 = a * a, term = a, sum = a;
    for (int n = 1; n < 120; ++n) {
      term *= -x2 / double(n);
      double t = term / double(2 * n + 1);
      sum += t;
      if (abs(t) < 1e-17lf * abs(sum)) break;
    }
    r = sum * 1.1283791670955126lf;
  } else if (a < 6.0lf) {
    double f = a;
    for (int k = 60; k >= 1; --k) f = a + (double(k) * 0.5lf) / f;
    r = 1.0lf - weft_exp_d(-a * a) / (f * 1.7724538509055160lf);
  }
  return x < 0.0lf ? -r : r;
})";

constexpr const char* kSigmoid = "$T weft_sigmoid_$S($T x) { return 1.0$L / (1.0$L + $EXP(-x)); }";

// C's pow where GLSL's is undefined: a negative base to an integral power,
// zero and infinite bases, a zero exponent, a base of 1.
constexpr const char* kPow = R"($T weft_pow_$S($T x, $T y) {
  if (y == 0.0$L || x == 1.0$L || (x == -1.0$L && isinf(y))) return 1.0$L;
  if (isnan(x) || isnan(y)) return x + y;
  $T a = abs(x);
  $T m = $EXP(y * $LOG(a));
  if (a == 0.0$L || isinf(x)) m = (y < 0.0$L) == (a == 0.0$L) ? $INF : 0.0$L;
  if (x >= 0.0$L) return m;
  if (trunc(y) != y) return $NAN;
  bool odd = abs(y) < $BIG && mod(y, 2.0$L) == 1.0$L;
  return odd ? -m : m;
})";

// C's fmod, exact: the remainder is reduced by the divisor scaled by powers
// of two, each subtraction exact (Sterbenz), as x87's fprem does.
constexpr const char* kFmod = R"($T weft_fmod_$S($T x, $T y) {
  if (isnan(x) || isnan(y) || isinf(x) || y == 0.0$L) return $NAN;
  $T r = abs(x), a = abs(y);
  if (isinf(y) || r < a) return x;
  int er, ea;
  frexp(a, ea);
  while (r >= a) {
    frexp(r, er);
    $T s = ldexp(a, er - ea);
    if (s > r) s = ldexp(a, er - ea - 1);
    r -= s;
  }
  return x < 0.0$L ? -r : r;
})";

}  // namespace

std::string float_intrinsic(GlslHelpers& helpers, int32_t op, const std::string& type) {
  const bool dbl = type == "double";
  auto exp_fn = [&]() -> std::string { return dbl ? helpers.need("weft_exp_d", typed(kExpDouble, type)) : "exp"; };
  auto log_fn = [&]() -> std::string { return dbl ? helpers.need("weft_log_d", typed(kLogDouble, type)) : "log"; };
  switch (op) {
    case WEFT_TE_EXP: return exp_fn();
    case WEFT_TE_LOG: return log_fn();
    case WEFT_TE_TANH:
      if (!dbl) return helpers.need("weft_tanh_f", kTanhFloat);
      exp_fn();
      helpers.need("weft_expm1_d", kExpm1Double);
      return helpers.need("weft_tanh_d", kTanhDouble);
    case WEFT_TE_ERF:
      if (!dbl) return helpers.need("weft_erf_f", kErfFloat);
      exp_fn();
      return helpers.need("weft_erf_d", kErfDouble);
    case WEFT_TE_SIGMOID: {
      const std::string exp = exp_fn();
      return helpers.need(typed("weft_sigmoid_$S", type), typed(replace_all(kSigmoid, "$EXP", exp), type));
    }
    case WEFT_TE_POW: {
      // Placed before typed(), whose $L would take $LOG's first letters.
      std::string text = replace_all(kPow, "$EXP", exp_fn());
      text = replace_all(text, "$LOG", log_fn());
      text = replace_all(text, "$BIG", dbl ? "9007199254740992.0lf" : "16777216.0");  // 2^53, 2^24: all even beyond
      return helpers.need(typed("weft_pow_$S", type), typed(text, type));
    }
    case WEFT_TE_FMOD: return helpers.need(typed("weft_fmod_$S", type), typed(kFmod, type));
    default: return "";
  }
}

}  // namespace vulkan_target

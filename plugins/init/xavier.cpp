// Xavier (Glorot) initialization as tvm.relay.testing.init.Xavier, with
// MXNet's gaussian variant (normal(0, scale)) beside the uniform one.
#include <cmath>

#include "init.h"

namespace weft_init {

namespace {

struct XavierConfig {
  std::string rnd_type;
  std::string factor_type;
  double magnitude;
};

XavierConfig read_config(const sdk::Attrs& p) {
  XavierConfig c{p.get_string("rnd_type"), p.get_string("factor_type"), p.get_float("magnitude")};
  if (c.rnd_type != "uniform" && c.rnd_type != "gaussian") {
    throw sdk::Error("xavier: rnd_type must be \"uniform\" or \"gaussian\", got \"" + c.rnd_type + "\"");
  }
  if (c.factor_type != "avg" && c.factor_type != "in" && c.factor_type != "out") {
    throw sdk::Error("xavier: factor_type must be \"avg\", \"in\" or \"out\", got \"" + c.factor_type + "\"");
  }
  return c;
}

/// The bound of the uniform draw (or the Gaussian's standard deviation):
/// sqrt(magnitude / factor), with fans counted as the reference counts them.
double xavier_scale(const XavierConfig& c, const std::string& name, const std::vector<int64_t>& shape) {
  if (shape.size() < 2) {
    throw sdk::Error("Xavier initializer cannot be applied to vector " + name + ". It requires at least 2D.");
  }
  // Everything past the two channel dims is the receptive field.
  int64_t hw_scale = 1;
  for (size_t i = 2; i < shape.size(); ++i) hw_scale *= shape[i];
  const int64_t fan_in = shape[1] * hw_scale, fan_out = shape[0] * hw_scale;
  double factor;
  if (c.factor_type == "avg") factor = static_cast<double>(fan_in + fan_out) / 2.0;
  else if (c.factor_type == "in") factor = static_cast<double>(fan_in);
  else factor = static_cast<double>(fan_out);
  // The reference's rule for depthwise kernels, which see one input channel each.
  if (name.find("depthwise") != std::string::npos) factor = static_cast<double>(hw_scale);
  return std::sqrt(c.magnitude / factor);
}

}  // namespace

void register_xavier(sdk::Registrar& reg) {
  reg.initializer("xavier")
      .describe(
          "Xavier initialization of weights: uniform(-s, s) or normal(0, s) with s = sqrt(magnitude / factor), "
          "factor from the fans (shape[1] and shape[0] times the product of the remaining dims) or, for names "
          "containing 'depthwise', the kernel's spatial size. Biases, betas and means 0, gammas and vars 1.")
      .param("rnd_type", std::string("uniform"), "Distribution of the draws.", "\"uniform\" or \"gaussian\"")
      .param("factor_type", std::string("avg"), "Which fan the factor is: their mean, fan-in or fan-out.",
             "\"avg\", \"in\" or \"out\"")
      .param("magnitude", 3.0, "Scale of the random numbers.")
      .create([](const sdk::Attrs& params, uint64_t seed) {
        const XavierConfig config = read_config(params);
        auto state = seeded_state("xavier", seed);
        return dispatch_on_suffix([config, state](const std::string& name, const sdk::TensorView& out) {
          const double scale = xavier_scale(config, name, out.shape());
          if (config.rnd_type == "uniform") {
            fill_random("xavier", name, out, [&] { return state->uniform(-scale, scale); });
          } else {
            fill_random("xavier", name, out, [&] { return state->normal(0.0, scale); });
          }
        });
      });
}

}  // namespace weft_init

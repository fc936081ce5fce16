// constant (tvm.relay.testing.init.Constant) and MXNet's normal, uniform,
// zeros and ones. Each rule applies to weights; other parameters follow the
// shared name-suffix rules.
#include "init.h"

namespace weft_init {

void register_basic_initializers(sdk::Registrar& reg) {
  reg.initializer("constant")
      .describe("Every element of a weight is 1 / (number of elements), so each weight sums to 1.")
      .create([](const sdk::Attrs&, uint64_t) {
        return dispatch_on_suffix([](const std::string& name, const sdk::TensorView& out) {
          if (out.ndim() == 0 || out.numel() == 0) {
            throw sdk::Error("constant initializer: weight " + name + " has no elements to share 1 among");
          }
          fill_value(out, 1.0 / static_cast<double>(out.numel()));
        });
      });

  reg.initializer("normal")
      .describe("Weights drawn from normal(0, sigma).")
      .param("sigma", 0.01, "Standard deviation.")
      .create([](const sdk::Attrs& params, uint64_t seed) {
        const double sigma = params.get_float("sigma");
        auto state = seeded_state("normal", seed);
        return dispatch_on_suffix([sigma, state](const std::string& name, const sdk::TensorView& out) {
          fill_random("normal", name, out, [&] { return state->normal(0.0, sigma); });
        });
      });

  reg.initializer("uniform")
      .describe("Weights drawn from uniform(-scale, scale).")
      .param("scale", 0.07, "Bound of the interval.")
      .create([](const sdk::Attrs& params, uint64_t seed) {
        const double scale = params.get_float("scale");
        auto state = seeded_state("uniform", seed);
        return dispatch_on_suffix([scale, state](const std::string& name, const sdk::TensorView& out) {
          fill_random("uniform", name, out, [&] { return state->uniform(-scale, scale); });
        });
      });

  reg.initializer("zeros")
      .describe("Weights set to 0.")
      .create([](const sdk::Attrs&, uint64_t) {
        return dispatch_on_suffix([](const std::string&, const sdk::TensorView& out) { fill_value(out, 0.0); });
      });

  reg.initializer("ones")
      .describe("Weights set to 1.")
      .create([](const sdk::Attrs&, uint64_t) {
        return dispatch_on_suffix([](const std::string&, const sdk::TensorView& out) { fill_value(out, 1.0); });
      });
}

}  // namespace weft_init

// acme_uniform: weights drawn uniformly from [-scale, scale] with NumPy's
// generator (np.random.seed(seed); np.random.uniform(-scale, scale, shape),
// one stream for a workload's parameters in order), biases zero.
#include <weft/plugin.hpp>

#include <memory>
#include <string>

namespace {

using namespace weft::sdk;

bool is_bias(const std::string& name) { return name.size() >= 5 && name.compare(name.size() - 5, 5, "_bias") == 0; }

}  // namespace

WEFT_PLUGIN(reg) {
  reg.initializer("acme_uniform")
      .describe("Weights uniform in [-scale, scale] from NumPy's generator, biases zero.")
      .param("scale", 0.1, "Half the width of the weights' range.", "a float > 0")
      .create([](const Attrs& params, uint64_t seed) -> InitializerBuilder::Fill {
        const double scale = params.get_float("scale");
        if (!(scale > 0)) throw Error("acme_uniform: scale must be > 0, got " + std::to_string(scale));
        auto state = std::make_shared<NumpyRandomState>(static_cast<uint32_t>(seed));
        return [state, scale](const std::string& name, const TensorView& out) {
          if (out.dtype() != dtype::float32) throw Error("acme_uniform fills float32, not " + dtype_name(out.dtype()));
          float* values = out.data<float>();
          for (int64_t i = 0; i < out.numel(); ++i)
            values[i] = is_bias(name) ? 0.0f : static_cast<float>(state->uniform(-scale, scale));
        };
      });
}

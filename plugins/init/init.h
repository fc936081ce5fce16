// The init plugin's initializers. Each fills one workload's parameters in
// order, dispatching on the parameter's name as tvm.relay.testing's
// Initializer does; the random ones draw from one NumPy-compatible stream.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <weft/plugin.hpp>
#include <weft/sdk/numpy_random.hpp>

namespace weft_init {

namespace sdk = weft::sdk;

/// Fills a parameter whose name ends in "weight": the rule that makes one
/// initializer differ from another.
using WeightRule = std::function<void(const std::string& name, const sdk::TensorView& out)>;

/// The fill for one workload, dispatching on the name's suffix in the
/// reference's order: weight -> `weight`; bias -> 0; gamma -> 1; beta -> 0;
/// mean (moving_mean too) -> 0; var (moving_var too) -> 1; anything else is an
/// error naming the parameter.
sdk::InitializerBuilder::Fill dispatch_on_suffix(WeightRule weight);

/// Every element of `out` set to `value`, as NumPy's arr[:] = value: floats
/// rounded once, integers truncated toward zero (value must fit), bools nonzero.
void fill_value(const sdk::TensorView& out, double value);
/// Every element of float tensor `out` set to draw(), in C order, each rounded
/// once into the dtype (arr[:] = np.random.xxx(size=arr.shape)). A non-float
/// tensor is an error naming `initializer` and `name`.
void fill_random(const std::string& initializer, const std::string& name, const sdk::TensorView& out,
                 const std::function<double()>& draw);

/// The generator for one workload: np.random.seed(seed), which accepts only
/// seeds below 2**32 (anything else is an error naming `initializer`).
std::shared_ptr<sdk::NumpyRandomState> seeded_state(const std::string& initializer, uint64_t seed);

void register_xavier(sdk::Registrar& reg);
/// constant, normal, uniform, zeros, ones.
void register_basic_initializers(sdk::Registrar& reg);

}  // namespace weft_init

// Random tensors drawn like NumPy's legacy global generator, so a test's data
// can be reproduced in NumPy: rand(dtype, shape, seed) is
//   np.random.seed(seed); np.random.uniform(size=shape).astype(dtype)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <weft/sdk/numpy_random.hpp>

#include "weft/expr.h"
#include "weft/tensor.h"

namespace weft::testing {

/// A tensor of `shape` and float `dtype` (float16/32/64, bfloat16) holding
/// np.random.uniform(low, high, size=shape) from `state`, each value rounded
/// once into the dtype as NumPy's astype does. Other dtypes are a weft::Error.
Tensor rand(DataType dtype, const std::vector<int64_t>& shape, sdk::NumpyRandomState& state, double low = 0.0,
            double high = 1.0);
/// The same from a generator seeded with `seed` (np.random.seed(seed)).
Tensor rand(DataType dtype, const std::vector<int64_t>& shape, uint32_t seed = 0);

/// Synthetic inputs for `fn`: one tensor per parameter, in parameter order and
/// under the parameter's user-facing name (weft/names.h), drawn from one
/// generator seeded with `seed` as uniform(low, high) in the parameter's type. Types come from the parameters'
/// annotations or, failing those, from type inference of `fn`. A parameter
/// whose type is not a static float tensor is a weft::Error naming it.
std::vector<std::pair<std::string, Tensor>> random_inputs(const Function& fn, uint32_t seed = 0, double low = 0.0, double high = 1.0);

}  // namespace weft::testing

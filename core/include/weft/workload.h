// Workloads: a program with initialized parameters, as tvm.relay.testing's
// create_workload gives them. Types are inferred, then every parameter of
// `main` except `data` is filled, in parameter order, by one initializer
// instance seeded once, so the same seed gives the same weights as the
// reference toolkit (its initializers draw like NumPy's legacy RandomState).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/attrs.h"
#include "weft/expr.h"
#include "weft/module.h"
#include "weft/tensor.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

struct Workload {
  /// The module after type inference.
  IRModule mod;
  /// Every parameter of main but those named `data`, in parameter order, as
  /// CPU tensors, under their user-facing names (param_names in names.h).
  std::vector<std::pair<std::string, Tensor>> params;
};

/// Infers the types of `fn` (as the main function of a new module) and fills
/// its parameters with initializer `initializer` (see initializer.h; loaded
/// from its plugin on first use) made with `seed` and `initializer_params`.
///
/// Throws weft::Error when type inference fails, when a parameter to fill has
/// a non-tensor or dynamic type, when the seed is not below 2**32 (NumPy's
/// limit for np.random.seed), or when the initializer rejects a parameter (e.g. an unknown name suffix, naming it).
Workload create_workload(const Function& fn, std::string_view initializer = "xavier", uint64_t seed = 0,
                         const Attrs& initializer_params = nullptr);
/// As above for a module's `main`; the other functions are kept and typed too.
Workload create_workload(const IRModule& mod, std::string_view initializer = "xavier", uint64_t seed = 0,
                         const Attrs& initializer_params = nullptr);

}  // namespace weft

#pragma GCC visibility pop

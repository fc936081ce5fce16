// The arguments of a program's `main` for `weft run`: tensors given by name
// (from --inputs, --params or the program itself), checked against main's
// parameter types, and seeded random data for the ones not given.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "weft/expr.h"
#include "weft/interpreter.h"
#include "weft/tensor_io.h"

namespace weft::cli {

/// Tensors from one place, and how messages name that place ("--inputs x.npz").
struct NamedSource {
  std::string label;
  NamedTensors tensors;
};

/// A check for load_tensor_file that refuses, from its header and before its
/// data is read, a tensor whose shape or dtype differs from the type of the
/// parameter of `main` it names; `label` names the file as in NamedSource.
TensorHeaderCheck parameter_header_check(const Function& main, const std::string& label);

/// One value per parameter of `main` (already type-inferred), in order.
///
/// Tensors bind by the parameters' user-facing names (param_names in
/// weft/names.h: lstm's per-step inputs, all named `data`, are data, data1,
/// data2, ...), one tensor to one parameter. Each given tensor must name a
/// parameter (otherwise a weft::Error naming the unknown name and listing the
/// parameters), may be given by one source only, and must match the parameter's dtype and shape (`?` matches any extent).
/// Parameters not given are drawn from one NumPy-compatible generator seeded
/// with `seed`, in parameter order, each element in C order:
///   float dtypes   np.random.uniform(0, 1, size=shape).astype(dtype)
///   int/uint       np.floor(np.random.uniform(0, 10, size=shape)).astype(dtype)
///   bool           np.random.uniform(0, 1, size=shape) < 0.5
/// and each one drawn is named on `notes`. A parameter without a static tensor
/// type cannot be drawn: a weft::Error naming it.
std::vector<Value> bind_main_arguments(const Function& main, const std::vector<NamedSource>& sources, uint32_t seed,
                                       std::ostream& notes);

}  // namespace weft::cli

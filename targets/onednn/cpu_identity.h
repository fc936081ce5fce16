// What a recorded choice of implementation (algorithm_choice.h) depends on
// besides the layer: a record made on another CPU, oneDNN or thread count
// is not trusted.
#pragma once

#include <string>

namespace onednn_target {

/// oneDNN's version, the ISA it dispatches to, the CPU model and the OpenMP
/// thread count.
std::string cpu_identity();

}  // namespace onednn_target

// Activations that frontends write as several calls, found among a group's
// calls so that each runs as one oneDNN eltwise, fused as a post-op after
// the convolution or matmul it follows:
//   GELU 0.5 * x * (1 + erf(x / sqrt(2))) (TVM's ONNX converter) or
//        x * (0.5 + erf(x * sqrt(0.5)) * 0.5) (its PyTorch one): gelu_erf,
//        the only way erf runs, since oneDNN 2.6 has no erf eltwise;
//   tanh GELU 0.5 * x * (1 + tanh(a * x + b * x^3)), a = sqrt(2 / pi),
//        b = 0.044715 a (TVM's ONNX FastGelu, x^3 a power): gelu_tanh;
//   swish (SiLU) x * sigmoid(a * x): swish with alpha = a;
//   hardswish x * clip(x + 3, 0, 6) / 6 (TVM's PyTorch converter): hardswish.
#pragma once

#include <dnnl.hpp>
#include <weft/plugin.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "op_mapping.h"

namespace onednn_target {

/// Whether `call` is an erf of x / sqrt(2) (written x * 0.7071... or
/// x / 1.4142...), the erf of a GELU; constants here match within 1e-5
/// relative, what a float32 printed with 6 digits keeps.
bool is_gelu_erf(const weft::sdk::Expr& call);

/// An activation ending at a multiply: the eltwise it is, its name for
/// summaries ("gelu_erf"), its input x, the calls before the multiply that it
/// replaces, and how many times those calls and the multiply read x.
struct ActivationMatch {
  EltwiseSpec eltwise;
  std::string name;
  weft::sdk::Expr input;
  std::vector<const weft_expr_t*> inner;
  int input_reads = 0;
};

/// The activation whose last call is `root`, or nullopt. `readers` gives
/// how many readers a node has in the group (outputs count): each inner call
/// must be read once, by the pattern, for the pattern to stand for it.
std::optional<ActivationMatch> match_activation(const weft::sdk::Expr& root,
                                                const std::function<int(const weft_expr_t*)>& readers);

}  // namespace onednn_target

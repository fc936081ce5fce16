// The program the workload tests fill: a conv, a batch norm, a depthwise conv
// and a dense layer, with the parameter names tvm.relay.testing's models use.
// golden/gen_workloads.py lists the same parameters in the same order.
#pragma once

#include <string>

#include "weft/text.h"

namespace weft {

/// The program's Relay text with parameters of `dtype`.
inline std::string test_program_text(DataType dtype) {
  std::string text = R"(#[version = "0.0.5"]
def @main(%data: Tensor[(1, 3, 8, 8), DT], %conv1_weight: Tensor[(4, 3, 3, 3), DT], %conv1_bias,
          %bn1_gamma, %bn1_beta, %bn1_moving_mean, %bn1_moving_var,
          %depthwise_conv_weight: Tensor[(4, 1, 3, 3), DT], %fc_weight: Tensor[(10, 4), DT], %fc_bias) {
  %0 = nn.conv2d(%data, %conv1_weight, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = nn.bias_add(%0, %conv1_bias);
  %2 = nn.batch_norm(%1, %bn1_gamma, %bn1_beta, %bn1_moving_mean, %bn1_moving_var);
  %3 = nn.relu(%2.0);
  %4 = nn.conv2d(%3, %depthwise_conv_weight, padding=[1, 1, 1, 1], groups=4, channels=4, kernel_size=[3, 3]);
  %5 = nn.global_avg_pool2d(%4);
  %6 = nn.batch_flatten(%5);
  %7 = nn.dense(%6, %fc_weight, units=10);
  nn.bias_add(%7, %fc_bias)
}
)";
  for (size_t at; (at = text.find("DT")) != std::string::npos;) text.replace(at, 2, dtype.str());
  return text;
}

inline Function test_program(DataType dtype) { return parse_module(test_program_text(dtype), "workload_program").main(); }

}  // namespace weft

// The conv unit and the five Inception block kinds of the reference's
// Inception V3 (relay.testing.inception_v3, adopted from MXNet's symbol).
#pragma once

#include <cstdint>
#include <string>
#include <vector>
#include <weft/plugin.hpp>

namespace inception {

using weft::sdk::Expr;
using Ints = std::vector<int64_t>;

/// conv (`<name><suffix>_conv1`), batch norm (`<name><suffix>_bn`,
/// epsilon 2e-5, scale off: gamma is still a parameter) and relu.
Expr conv(const Expr& data, int64_t num_filter, Ints kernel = {1, 1}, Ints stride = {1, 1}, Ints pad = {0, 0},
          const std::string& name = "", const std::string& suffix = "");
/// "max" or "avg" (counting padding) pooling.
Expr pooling(const Expr& data, Ints kernel, Ints stride, Ints pad, const std::string& pool_type);

/// 1x1, 5x5 and double 3x3 towers and a pooled projection.
Expr inception_7a(const Expr& data, int64_t num_1x1, int64_t num_3x3_red, int64_t num_3x3_1, int64_t num_3x3_2,
                  int64_t num_5x5_red, int64_t num_5x5, const std::string& pool, int64_t proj, const std::string& name);
/// First downsample: strided 3x3, double 3x3 and max pool (the reference
/// passes a pool type here but always max-pools).
Expr inception_7b(const Expr& data, int64_t num_3x3, int64_t num_d3x3_red, int64_t num_d3x3_1, int64_t num_d3x3_2,
                  const std::string& name);
/// 1x7/7x1 factorized towers.
Expr inception_7c(const Expr& data, int64_t num_1x1, int64_t num_d7_red, int64_t num_d7_1, int64_t num_d7_2,
                  int64_t num_q7_red, int64_t num_q7_1, int64_t num_q7_2, int64_t num_q7_3, int64_t num_q7_4,
                  const std::string& pool, int64_t proj, const std::string& name);
/// Second downsample.
Expr inception_7d(const Expr& data, int64_t num_3x3_red, int64_t num_3x3, int64_t num_d7_3x3_red, int64_t num_d7_1,
                  int64_t num_d7_2, int64_t num_d7_3x3, const std::string& pool, const std::string& name);
/// 3x3 split into parallel 1x3 and 3x1 branches.
Expr inception_7e(const Expr& data, int64_t num_1x1, int64_t num_d3_red, int64_t num_d3_1, int64_t num_d3_2,
                  int64_t num_3x3_d3_red, int64_t num_3x3, int64_t num_3x3_d3_1, int64_t num_3x3_d3_2,
                  const std::string& pool, int64_t proj, const std::string& name);

}  // namespace inception

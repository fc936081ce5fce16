// What every model family's builder shares: the input shape, the Function over
// a graph's free variables (the reference builds every network as
// relay.Function(free_vars(net), net)) and parameter checks. Header-only, on
// the plugin SDK.
#pragma once

#include <weft/plugin.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::models {

namespace sdk = weft::sdk;

/// (batch_size,) + image_shape, the reference's data_shape.
inline std::vector<int64_t> batch_shape(int64_t batch_size, const std::vector<int64_t>& image_shape) {
  std::vector<int64_t> shape{batch_size};
  shape.insert(shape.end(), image_shape.begin(), image_shape.end());
  return shape;
}

/// The Function whose parameters are the graph's free variables in first-use
/// order: `data` first, then each weight where the graph first reads it.
inline sdk::Expr function_of_free_vars(const sdk::Expr& body) { return sdk::function(sdk::free_vars(body), body); }

/// A parameter check: `count` positive ints (any number when count is 0).
inline sdk::Normalizer positive_ints(std::string param, size_t count = 0) {
  return [param, count](const sdk::Value& v) {
    std::vector<int64_t> dims = v.as_ints();
    bool ok = (count == 0 ? !dims.empty() : dims.size() == count);
    for (int64_t d : dims) ok = ok && d > 0;
    if (!ok) {
      throw sdk::Error(param + " must be " + (count ? std::to_string(count) + " positive ints" : "positive ints"));
    }
    return v;
  };
}

/// A parameter check: a positive int.
inline sdk::Normalizer positive_int(std::string param) {
  return [param](const sdk::Value& v) {
    if (v.as_int() <= 0) throw sdk::Error(param + " must be positive, got " + std::to_string(v.as_int()));
    return v;
  };
}

/// A parameter check: one of `allowed` (layouts, versions).
inline sdk::Normalizer one_of(std::string param, std::vector<std::string> allowed) {
  return [param, allowed](const sdk::Value& v) {
    std::string s = v.as_string(), list;
    for (const std::string& a : allowed) {
      if (s == a) return v;
      list += (list.empty() ? "" : ", ") + a;
    }
    throw sdk::Error(param + " is '" + s + "'; expected one of " + list);
  };
}

}  // namespace weft::models

// weft plugin SDK: type relations shared by many ops. Part of plugin.hpp.
#pragma once

#include <weft/sdk/ir.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace weft::sdk {

// ---- Shared relations -------------------------------------------------------------------------

/// Output type = the first argument's type (unary elementwise ops).
inline Type identity_relation(const std::vector<Type>& args, const Attrs&) {
  if (args.empty()) throw Error("expected at least one argument");
  if (!args[0].is_tensor()) throw Error("expected a tensor, got " + args[0].str());
  return args[0];
}

/// NumPy broadcasting of two tensors of one dtype: dims are matched from the
/// right, and each pair must be equal or contain a 1.
inline Type broadcast_relation(const std::vector<Type>& args, const Attrs&) {
  if (args.size() != 2) throw Error("expected 2 arguments, got " + std::to_string(args.size()));
  if (!args[0].is_tensor() || !args[1].is_tensor()) {
    throw Error("expected two tensors, got " + args[0].str() + " and " + args[1].str());
  }
  if (args[0].dtype() != args[1].dtype()) {
    throw Error("dtypes differ: " + args[0].str() + " and " + args[1].str());
  }
  std::vector<int64_t> a = args[0].shape(), b = args[1].shape();
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else if (da == WEFT_DIM_ANY || db == WEFT_DIM_ANY) out[i] = WEFT_DIM_ANY;
    else throw Error("shapes " + args[0].str() + " and " + args[1].str() + " do not broadcast (dimension " +
                     std::to_string(i) + ": " + std::to_string(da) + " vs " + std::to_string(db) + ")");
  }
  return Type::tensor(out, args[0].dtype());
}

}  // namespace weft::sdk

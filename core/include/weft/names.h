// Names as TVM's text printer gives them: a variable's name hint made unique
// in its scope. They are also the user-facing names of a function's
// parameters, under which tensors bind to them (`weft run --inputs`) and are
// saved (`weft show --params-out`): TVM's lstm names every step's input
// `data`, and its text shows them as %data, %data1, %data2.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "weft/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Hands out distinct names as RelayTextPrinter::GetUniqueName does: the
/// first request for a name gets it as it is; a later one gets it with the
/// next numeric suffix not handed out yet (x, x1, x2, skipping an x1 taken
/// as a name of its own).
class NameAllocator {
 public:
  std::string unique(const std::string& name);

 private:
  std::unordered_map<std::string, int> suffixes_;
};

/// A name hint as TVM's printer writes it (without the `%`): prefixed with
/// `v` when it does not start with a letter ("" -> "v", "0" -> "v0").
std::string printable_name(const std::string& name_hint);

/// The user-facing name of each parameter of `fn`, in order: its name hint
/// made printable and unique as TVM's printer does when it prints `fn` (the
/// name hints data, data, data give data, data1, data2).
std::vector<std::string> param_names(const Function& fn);

}  // namespace weft

#pragma GCC visibility pop

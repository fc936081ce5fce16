// The Relay text format, version 0.0.5, as TVM's astext() writes it.
#pragma once

#include <string>

#include "weft/expr.h"
#include "weft/module.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

struct PrintOptions {
  /// Write `/* ty=... */` after each binding whose type is known.
  bool show_types = true;
  /// Write the `#[version = "0.0.5"]` header (modules only).
  bool header = true;
  /// Write non-scalar constants in a trailing `#[metadata]` section, as TVM's
  /// astext(show_meta_data=True); when false, TVM's "omitted" note instead.
  bool show_meta_data = true;
};

/// The whole module: header, every `def @name(...) { ... }`, metadata if any.
std::string to_text(const IRModule& mod, const PrintOptions& options = {});
/// One expression; free variables are declared with `free_var`.
std::string to_text(const Expr& expr, const PrintOptions& options = {});

}  // namespace weft

#pragma GCC visibility pop

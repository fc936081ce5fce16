// Reading the Relay text format, version 0.0.5, as TVM's astext() writes it and
// as weft's printer (printer.h) writes it: `#[version = "0.0.5"]`, `def @name`,
// `free_var`, `%0 = op(args, key=value);`, lets, closures, ifs, tuples, type
// comments and the `#[metadata]` section holding large constants.
//
// Operators are looked up in the OpRegistry (which loads the plugin providing
// them) and call attrs are normalized through each op's schema, exactly as
// calls built with the C++ builders. Let chains and `%N = ...;` sequences are
// parsed in a loop, so 100,000-deep programs parse on a small stack.
#pragma once

#include <filesystem>
#include <string_view>

#include "weft/expr.h"
#include "weft/module.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// Parses a whole module: an optional `#[version = "0.0.5"]` header, then
/// `def @name(...) { ... }` definitions, then an optional metadata section.
/// A text holding one expression instead of definitions (what astext() prints
/// for a Function) becomes a module whose main is that function, or a
/// function of the expression's free variables.
/// Every parsed expression records its position in `span`. Throws weft::Error
/// "source_name:line:column: expected X, found Y" on malformed text, an unknown
/// op or variable, or a bad attr (with the op and attr named).
IRModule parse_module(std::string_view text, std::string_view source_name = "<string>");

/// Reads and parses a file; the path is the source name in messages. A file
/// that cannot be read is a weft::Error naming the path.
IRModule parse_module_file(const std::filesystem::path& path);

/// Parses one expression, as `to_text(expr)` prints it: `free_var` declarations
/// and `%N = ...;` bindings, then the expression; an optional header and
/// metadata section are accepted.
Expr parse_expr(std::string_view text, std::string_view source_name = "<string>");

}  // namespace weft

#pragma GCC visibility pop

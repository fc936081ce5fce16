// How the CLI's --json listings are printed.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

namespace weft::cli {

/// Prints `j` indented by two spaces, then a newline. Text that is not valid
/// UTF-8 (a manifest's description, an op's doc) has each bad byte replaced
/// by U+FFFD, so one bad string does not cost the whole listing.
inline void print_json(std::ostream& out, const nlohmann::json& j) {
  out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace weft::cli

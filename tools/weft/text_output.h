// A command's text result (a program, a partition) written where -o says,
// or to stdout without it.
#pragma once

#include <string>

namespace weft::cli {

/// `text` into the file `path` (an error naming it when it cannot be
/// written), or to stdout when `path` is empty.
void write_text_output(const std::string& path, const std::string& text);

}  // namespace weft::cli

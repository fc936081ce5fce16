#include "text_output.h"

#include <fstream>
#include <iostream>

#include "weft/error.h"

namespace weft::cli {

void write_text_output(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw Error("-o " + path + ": cannot write the file");
}

}  // namespace weft::cli

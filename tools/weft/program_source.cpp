// Turning a command's PROGRAM argument into a program (see program_source.h).
#include "program_source.h"

#include <filesystem>

#include "weft/error.h"
#include "weft/text.h"

namespace weft::cli {

Program load_program(const std::string& argument) {
  std::filesystem::path path(argument);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error("no program file '" + argument + "'").expected("a Relay text file (#[version = \"0.0.5\"] ...)");
  return Program{parse_module_file(path), {}, argument};
}

}  // namespace weft::cli

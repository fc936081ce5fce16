// The `weft` command-line tool.
#include <iostream>

#include "commands.h"
#include "weft/error.h"

int main(int argc, char** argv) {
  CLI::App app{"weft: a deep-learning compiler framework built from plugins"};
  app.require_subcommand(1);
  weft::cli::add_plugins_command(app);
  weft::cli::add_ops_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const weft::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

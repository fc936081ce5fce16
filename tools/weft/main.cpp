// The `weft` command-line tool.
#include <iostream>

#include "commands.h"
#include "weft/error.h"

int main(int argc, char** argv) {
  CLI::App app{"weft: a deep-learning compiler framework built from plugins"};
  app.require_subcommand(1);
  weft::cli::add_plugins_command(app);
  weft::cli::add_ops_command(app);
  weft::cli::add_models_command(app);
  weft::cli::add_show_command(app);
  weft::cli::add_run_command(app);
  weft::cli::add_grad_check_command(app);
  // CLI11 would only say "a subcommand is required"; name the unknown one.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    for (const CLI::App* sub : app.get_subcommands({})) known += (known.empty() ? "" : ", ") + sub->get_name();
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands({})) found = found || sub->check_name(argv[1]);
    if (!found) {
      std::cerr << "error: unknown command '" << argv[1] << "'; commands: " << known << "\n";
      return 1;
    }
  }
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

// The `weft` command-line tool.
//
// Exit codes (docs/cli.md): 0 success; 1 a failure in what the command was
// given (a weft::Error: the program, a tensor file, a plugin) or a check that
// did not pass; 2 a usage error (the command line itself); 3 weft itself
// failed (a bug, or the machine ran out of a resource).
#include <iostream>

#include "commands.h"
#include "weft/error.h"
#include "weft/plugin_loader.h"

namespace {

constexpr int kInputError = 1;
constexpr int kUsageError = 2;
constexpr int kInternalError = 3;

/// A name nobody provides may be one a broken plugin would have: name every
/// plugin that failed, with the error `weft plugins` shows for it.
void note_failed_plugins(std::ostream& err) {
  for (const weft::PluginRecord& r : weft::PluginLoader::global().plugins()) {
    if (r.state == weft::PluginState::kFailed)
      err << "  note: plugin " << r.display_name() << " failed to load: " << r.error << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft: a deep-learning compiler framework built from plugins"};
  app.require_subcommand(1);
  weft::cli::add_plugins_command(app);
  weft::cli::add_ops_command(app);
  weft::cli::add_models_command(app);
  weft::cli::add_targets_command(app);
  weft::cli::add_show_command(app);
  weft::cli::add_run_command(app);
  weft::cli::add_bench_command(app);
  weft::cli::add_grad_check_command(app);
  weft::cli::add_opt_command(app);
  weft::cli::add_import_command(app);
  // CLI11 would only say "a subcommand is required"; name the unknown one.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    for (const CLI::App* sub : app.get_subcommands({})) known += (known.empty() ? "" : ", ") + sub->get_name();
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands({})) found = found || sub->check_name(argv[1]);
    if (!found) {
      std::cerr << "error: unknown command '" << argv[1] << "'; commands: " << known << "\n";
      return kUsageError;
    }
  }
  try {
    for (const std::string& warning : weft::PluginLoader::global().warnings())
      std::cerr << "weft: warning: " << warning << "\n";
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version exit 0, a command's own RuntimeError keeps its code;
    // everything else CLI11 raises is a usage error, whatever its own code.
    int code = app.exit(e);
    bool usage = code != 0 && e.get_name() != "RuntimeError";
    return usage ? kUsageError : code;
  } catch (const weft::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    if (e.status() == weft::StatusCode::kNotFound) note_failed_plugins(std::cerr);
    return kInputError;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kInternalError;
  }
  return 0;
}

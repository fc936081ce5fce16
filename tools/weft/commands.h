// The `weft` subcommands. Each file adds one command to the app; main.cpp
// calls them all, so adding a command touches its own file and this list.
#pragma once

#include <CLI/CLI.hpp>

namespace weft::cli {

void add_plugins_command(CLI::App& app);  // weft plugins [--json] [--no-load]
void add_ops_command(CLI::App& app);      // weft ops [--json]
void add_models_command(CLI::App& app);   // weft models [--json]
void add_targets_command(CLI::App& app);  // weft targets [--json]
void add_show_command(CLI::App& app);     // weft show PROGRAM [--json]
void add_run_command(CLI::App& app);      // weft run PROGRAM [--config F] [--target T] [--interpreter] [--inputs F] ...
void add_bench_command(CLI::App& app);     // weft bench PROGRAM [--config F] [--warmup N] [--repeat N] [--json] ...
void add_grad_check_command(CLI::App& app);
void add_import_command(CLI::App& app);  // weft import MODEL [-o OUT] [--params-out P] [--shape NAME=DIMS ...]
void add_opt_command(CLI::App& app);  // weft opt PROGRAM [-O N | --passes P1,P2] [--params F] [-o OUT] ...  // weft grad-check PROGRAM [--inputs F] [--eps E] ...

}  // namespace weft::cli

// `weft opt PROGRAM [-O N | --passes P1,P2,...] [--params F]
// [--desired-layouts SPEC [--skip-layers N,...]] [-o OUT] [--print-after-all] [--print-after-change]
// [--time-passes] [--stats] [--config F] [--print-partition] [--emit te|loops|llvm|asm]`: runs the -O
// pipeline (or the passes named) on a program, with named parameters bound to
// constants first (and ConvertLayout to the desired layouts before the
// pipeline), and writes the result as Relay text (constants in its #[metadata]
// section) that `weft show` and `weft run` read. With a run config, or with
// --print-partition (the default config then), it builds the program for the
// config's targets instead and writes the partitioned program, which target
// runs which group, or each group's TE or loop nest (--emit).
#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands.h"
#include "group_emission.h"
#include "main_arguments.h"
#include "program_source.h"
#include "text_output.h"
#include "weft/build.h"
#include "weft/error.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/pipeline.h"
#include "weft/plugin_loader.h"
#include "weft/printer.h"
#include "weft/run_config.h"
#include "weft/target.h"

namespace weft::cli {

namespace {

struct OptOptions {
  std::string program, passes, params, desired_layouts, skip_layers, output, config, emit;
  int opt_level = 2;  // relay.build's default PassContext
  bool opt_level_given = false;
  bool print_after_all = false, print_after_change = false, time_passes = false, stats = false;
  bool print_partition = false;

  /// Whether the program is built for a run config's targets.
  bool builds() const { return print_partition || !config.empty() || !emit.empty(); }
};

constexpr int kMaxOptLevel = 3;

// Remembers the innermost pass that failed, so the error can name it.
class FailedPassRecorder : public PassInstrument {
 public:
  std::string name() const override { return "FailedPassRecorder"; }
  void run_after_pass_failed(const IRModule&, const PassInfo& info, const std::exception&) override {
    if (failed.empty()) failed = info.name;
  }
  std::string failed;
};

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) throw Error("--passes " + list + ": an empty pass name").expected("names separated by commas");
    names.push_back(name);
  }
  if (names.empty()) throw Error("--passes is empty").expected("names separated by commas");
  return names;
}

constexpr const char* kDesiredLayoutsConfig = "relay.ConvertLayout.desired_layouts";
constexpr const char* kSkipLayersConfig = "relay.ConvertLayout.skip_layers";

/// --skip-layers N,N,...: the numbers of the layout layers ConvertLayout keeps.
std::vector<int64_t> skip_layer_numbers(const std::string& list) {
  auto bad = [&](const std::string& why) {
    return Error("--skip-layers " + list + ": " + why)
        .expected("layer numbers 0, 1, ... separated by commas, e.g. --skip-layers 0,3");
  };
  std::vector<int64_t> layers;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty() || item.size() > 18 ||
        !std::all_of(item.begin(), item.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
      throw bad("'" + item + "' is not a layer number");
    layers.push_back(std::stoll(item));
  }
  if (layers.empty()) throw bad("no layer given");
  return layers;
}

/// --desired-layouts as the JSON that relay.ConvertLayout.desired_layouts
/// holds: JSON as given, or OP=LAYOUT[,LAYOUT...][;OP=...] spelled out.
std::string desired_layouts_json(const std::string& spec) {
  if (!spec.empty() && spec.front() == '{') return spec;
  auto bad = [&](const std::string& why) {
    return Error("--desired-layouts " + spec + ": " + why)
        .expected("OP=LAYOUT[,LAYOUT...][;OP=...] such as nn.conv2d=NHWC,default, or JSON such as "
                  "{\"nn.conv2d\": [\"NHWC\", \"default\"]}");
  };
  auto quoted = [&](const std::string& word) {
    if (word.empty()) throw bad("an empty op name or layout");
    for (char ch : word) {
      if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '.') {
        throw bad("'" + word + "' is not an op name or a layout");
      }
    }
    return "\"" + word + "\"";
  };
  std::string json;
  std::stringstream entries(spec);
  for (std::string entry; std::getline(entries, entry, ';');) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos) throw bad("'" + entry + "' is not OP=LAYOUTS");
    json += (json.empty() ? "" : ", ") + quoted(entry.substr(0, eq)) + ": [";
    std::stringstream layouts(entry.substr(eq + 1));
    bool first = true;
    for (std::string layout; std::getline(layouts, layout, ',');) {
      json += (first ? "" : ", ") + quoted(layout);
      first = false;
    }
    if (first) throw bad("no layout given for " + entry.substr(0, eq));
    json += "]";
  }
  if (json.empty()) throw bad("no op given");
  return "{" + json + "}";
}

// The passes to run, and the context they run under.
Pass chosen_passes(const OptOptions& o, PassContext& ctx) {
  if (o.opt_level_given && !o.passes.empty())
    throw Error("-O and --passes exclude each other").expected("either an opt level or a list of passes");
  if (!o.desired_layouts.empty()) {
    std::string json = desired_layouts_json(o.desired_layouts);
    try {
      parse_desired_layouts(json);
    } catch (Error& e) {
      throw e.note("reading --desired-layouts " + o.desired_layouts);
    }
    ctx.set_config(kDesiredLayoutsConfig, AttrValue(json));
  }
  if (!o.skip_layers.empty()) {
    if (o.desired_layouts.empty())
      throw Error("--skip-layers is for ConvertLayout's layers, and no --desired-layouts is given")
          .expected("--desired-layouts SPEC with --skip-layers");
    ctx.set_config(kSkipLayersConfig, AttrValue(skip_layer_numbers(o.skip_layers)));
  }
  if (o.passes.empty()) {
    ctx.opt_level = o.opt_level;
    if (o.desired_layouts.empty()) return optimization_pipeline();
    // As one would run ConvertLayout before relay.build: first, whatever the level.
    ctx.required_passes.push_back("ConvertLayout");
    return sequential({PassRegistry::global().create("ConvertLayout"), optimization_pipeline()}, "opt");
  }
  std::vector<Pass> passes;
  bool converts = false;
  for (const std::string& name : split_names(o.passes)) {
    passes.push_back(PassRegistry::global().create(name));
    ctx.required_passes.push_back(name);  // each one named runs, whatever its opt level
    converts = converts || name == "ConvertLayout";
  }
  if (!o.desired_layouts.empty() && !converts) {
    throw Error("--desired-layouts is for ConvertLayout, which --passes " + o.passes + " does not run")
        .expected("ConvertLayout among --passes, or -O");
  }
  return sequential(std::move(passes), "passes");
}

IRModule bound_params(const IRModule& mod, const std::string& path) {
  const std::string label = "--params " + path;
  NamedTensors tensors = load_tensor_file(path, parameter_header_check(mod.main(), label));
  std::map<std::string, Tensor> params;
  for (auto& [name, tensor] : tensors) params.emplace(name, std::move(tensor));
  try {
    return bind_params(mod, params);
  } catch (Error& e) {
    e.note("binding " + label);
    throw;
  }
}

void print_statistics(std::ostream& out, const PassContext& ctx) {
  out << "pass statistics:\n";
  auto stats = ctx.statistics();
  if (stats.empty()) out << "  none recorded\n";
  for (const auto& [pass, counters] : stats)
    for (const auto& [key, value] : counters) out << "  " << pass << ": " << key << " = " << value << "\n";
}

void write_output(const OptOptions& o, const std::string& text) { write_text_output(o.output, text); }

/// --emit llvm|asm: the targets of the config that print their kernels' code
/// (those declaring an `emit` option, as llvm does) print it in `what` as
/// they compile, to stderr. Error when none of them does.
void ask_targets_to_emit(RunConfig& config, const std::string& what) {
  std::vector<std::string> printing;
  for (const std::string& name : config.target_order()) {
    const TargetDef* def = TargetRegistry::global().find(name);
    if (!def || !def->options.find("emit")) continue;
    Attrs& options = config.target_options[name];
    std::vector<std::pair<std::string, AttrValue>> entries = options ? options->entries : decltype(entries){};
    std::erase_if(entries, [](const auto& e) { return e.first == "emit"; });
    entries.emplace_back("emit", AttrValue(what));
    options = make_attrs(std::move(entries));
    printing.push_back(name);
  }
  if (printing.empty())
    throw Error("--emit " + what + ": no target of the run config prints its kernels' code")
        .expected("a config listing a target that does (llvm), or --emit te|loops");
}

/// --config / --print-partition: weft::build with the config (-O overriding
/// its opt_level), as `weft run` builds the program.
void build_for_config(const OptOptions& o) {
  const std::pair<bool, const char*> pipeline_flags[] = {
      {!o.passes.empty(), "--passes"},           {!o.desired_layouts.empty(), "--desired-layouts"},
      {!o.skip_layers.empty(), "--skip-layers"},
      {o.print_after_all, "--print-after-all"},  {o.print_after_change, "--print-after-change"},
      {o.time_passes, "--time-passes"},          {o.stats, "--stats"}};
  for (const auto& [given, flag] : pipeline_flags)
    if (given)
      throw Error(std::string(flag) + " cannot be combined with --config, --print-partition or --emit")
          .expected("the build's passes from the run config (opt_level, passes) and -O");
  if (o.print_partition && !o.emit.empty())
    throw Error("--print-partition and --emit exclude each other").expected("one of them");
  RunConfig config = o.config.empty() ? default_run_config() : load_run_config(find_run_config(o.config));
  if (o.opt_level_given) config.opt_level = o.opt_level;
  // Before the program loads its plugins: the config's folders come first.
  if (!config.plugin_paths.empty()) PluginLoader::configure_global(config.plugin_paths);
  const bool target_code = !o.emit.empty() && o.emit != "te" && o.emit != "loops";
  if (target_code) ask_targets_to_emit(config, o.emit);
  Program program = load_program(o.program, ProgramOptions{/*initialize_params=*/false});
  IRModule mod = o.params.empty() ? program.mod : bound_params(program.mod, o.params);
  std::shared_ptr<const CompiledModule> compiled = build(mod, config);
  // The targets printed their code as they compiled; the partition says which group went where.
  if (target_code) return write_output(o, describe_partition(*compiled));
  if (!o.emit.empty()) return write_output(o, emit_groups(*compiled, o.emit));
  write_output(o, o.print_partition ? describe_partition(*compiled)
                                    : to_text(IRModule::from_function(compiled->main)));
}

void opt(const OptOptions& o) {
  if (o.opt_level < 0 || o.opt_level > kMaxOptLevel)
    throw Error("-O " + std::to_string(o.opt_level) + " is not an opt level").expected("-O 0, 1, 2 or 3");
  if (o.builds()) return build_for_config(o);
  PassContext ctx;
  Pass passes = chosen_passes(o, ctx);
  Program program = load_program(o.program, ProgramOptions{/*initialize_params=*/false});
  IRModule mod = program.mod;
  if (!o.params.empty()) mod = bound_params(mod, o.params);

  auto failed = std::make_shared<FailedPassRecorder>();
  auto timing = std::make_shared<TimingInstrument>();
  ctx.instruments.push_back(failed);
  if (o.time_passes) ctx.instruments.push_back(timing);
  if (o.print_after_all || o.print_after_change)
    ctx.instruments.push_back(std::make_shared<IRDumpInstrument>(
        std::cerr, o.print_after_change ? IRDumpInstrument::Mode::kAfterChange : IRDumpInstrument::Mode::kAfterEveryPass));
  try {
    mod = passes(std::move(mod), ctx);
  } catch (Error& e) {
    if (!failed->failed.empty()) e.note("in pass " + failed->failed + ", running on " + program.origin);
    if (failed->failed == "ConvertLayout" && !o.desired_layouts.empty()) {
      e.note("with the layouts of --desired-layouts " + o.desired_layouts);
    }
    throw;
  }
  if (o.time_passes) std::cerr << "pass timing:\n" << timing->report();
  if (o.stats) print_statistics(std::cerr, ctx);

  write_output(o, to_text(mod));
}

}  // namespace

void add_opt_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("opt", "Optimize a program with the -O pipeline or named passes; print Relay text");
  auto o = std::make_shared<OptOptions>();
  cmd->add_option("program", o->program, "The program: a Relay text file, or a model (resnet-18, `weft models`)")
      ->required();
  CLI::Option* level = cmd->add_option("-O", o->opt_level, "Opt level 0-3 of the relay.build pipeline (default 2; see docs/passes.md)");
  cmd->add_option("--passes", o->passes, "Run these registered passes in order instead, e.g. InferType,FoldConstant");
  cmd->add_option("--params", o->params, "Bind main's parameters named in F.npz or F.safetensors to constants first");
  cmd->add_option("--desired-layouts", o->desired_layouts,
                  "Run ConvertLayout first with these layouts (OP=LAYOUT[,LAYOUT...][;OP=...], e.g. "
                  "nn.conv2d=NHWC,default, or the JSON of relay.ConvertLayout.desired_layouts)");
  cmd->add_option("--skip-layers", o->skip_layers,
                  "With --desired-layouts: the layout layers (nn.conv2d, nn.deformable_conv2d calls, numbered from 0 "
                  "in program order) that keep their layouts, e.g. 0,3 (Relay's LayoutConfig(skip_layers=...))");
  cmd->add_option("-o,--output", o->output, "Write the program here instead of to stdout");
  cmd->add_flag("--print-after-all", o->print_after_all, "Print the program to stderr after every pass");
  cmd->add_flag("--print-after-change", o->print_after_change,
                "Print the program to stderr after each pass that changed it");
  cmd->add_flag("--time-passes", o->time_passes, "Print each pass's wall time to stderr");
  cmd->add_flag("--stats", o->stats, "Print the passes' statistics (e.g. calls folded) to stderr");
  cmd->add_option("--config", o->config,
                  "Build for this run config (a YAML file, or an installed config's name) and print the "
                  "partitioned program");
  cmd->add_flag("--print-partition", o->print_partition,
                "Print which target runs which fused group (with --config's, or the default config)");
  cmd->add_option("--emit", o->emit,
                  "Build (with --config's, or the default config) and print each fused group's tensor expressions "
                  "(te), the loop nest they lower to under the default schedules (loops), or the optimized LLVM IR "
                  "(llvm) or assembly (asm) of the groups the llvm target compiles (to stderr, then the partition)")
      ->check(CLI::IsMember({"te", "loops", "llvm", "asm"}));
  cmd->callback([o, level] {
    o->opt_level_given = level->count() > 0;
    opt(*o);
  });
}

}  // namespace weft::cli

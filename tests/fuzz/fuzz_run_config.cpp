// libFuzzer target for run configs (configs/*.yaml): any text gives a config
// or a weft::Error, never a crash, a sanitizer report or another exception
// (yaml-cpp's own included). A config that reads holds only valid values, and
// checking it against a target whose options have a schema of every kind
// either accepts it or refuses it with a weft::Error too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string_view>

#include "weft/error.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/run_config.h"
#include "weft/target.h"

namespace {

[[noreturn]] void fail(const char* what, const weft::RunConfig& config) {
  std::fprintf(stderr, "accepted config breaks an invariant: %s (opt_level %d, threads %d, %zu targets)\n", what,
               config.opt_level, config.threads, config.targets.size());
  __builtin_trap();
}

weft::AttrField field(const char* name, weft::AttrType type, std::optional<weft::AttrValue> default_value) {
  weft::AttrField f;
  f.name = name;
  f.type = type;
  f.default_value = std::move(default_value);
  return f;
}

/// `ref` and `t`, whose options are one of each kind, and two passes: the
/// fuzzer's own registries, so the global ones stay as they are.
struct Registries {
  weft::TargetRegistry targets;
  weft::PassRegistry passes;
  Registries() {
    weft::TargetDef ref;
    ref.name = "ref";
    targets.add(ref);
    weft::TargetDef t;
    t.name = "t";
    t.options = weft::AttrSchema({field("device", weft::AttrType::kInt, weft::AttrValue(0)),
                                  field("scale", weft::AttrType::kFloat, weft::AttrValue(1.0)),
                                  field("fast", weft::AttrType::kBool, weft::AttrValue(false)),
                                  field("cache_dir", weft::AttrType::kString, weft::AttrValue()),
                                  field("dtype", weft::AttrType::kDType, weft::AttrValue("float32")),
                                  field("tiles", weft::AttrType::kIntList, weft::AttrValue(std::vector<int64_t>{})),
                                  field("any", weft::AttrType::kAny, weft::AttrValue())});
    targets.add(t);
    passes.add("FuseOps", [] { return weft::InferType(); });
    passes.add("FoldConstant", [] { return weft::InferType(); });
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Registries* registries = new Registries();  // kept: registries live until exit
  std::string_view text(reinterpret_cast<const char*>(data), size);
  weft::RunConfig config;
  try {
    config = weft::parse_run_config(text, "/configs/fuzz.yaml");
  } catch (const weft::Error&) {
    return 0;  // rejected with a message: the expected outcome for most inputs
  }
  if (config.opt_level < 0 || config.opt_level > 3) fail("opt_level outside 0..3", config);
  if (config.threads < 0) fail("negative threads", config);
  std::vector<std::string> order = config.target_order();
  if (std::set<std::string>(order.begin(), order.end()).size() != order.size()) fail("a repeated target", config);
  if (order.back() != weft::kReferenceTarget) fail("ref not last", config);
  for (const auto& [name, options] : config.target_options) {
    if (std::find(order.begin(), order.end(), name) == order.end()) fail("options for an unlisted target", config);
  }
  for (const auto& [path, loc] : config.locations) {
    if (loc.file != config.source || loc.line <= 0 || loc.column <= 0) fail("a value without a position", config);
  }
  for (const auto& path : config.plugin_paths) {
    if (path.is_relative()) fail("a plugin path not resolved against the config's folder", config);
  }
  try {
    auto options = weft::check_run_config(config, registries->targets, registries->passes);
    if (options.size() != order.size()) fail("options missing for a target", config);
  } catch (const weft::Error&) {
  }
  return 0;
}

// The onednn target: fused groups of convolutions, matrix products and the
// elementwise and binary ops after them, as oneDNN primitives with post-ops
// (group_kernel.h), float32 in host memory. supports() claims a call only
// when oneDNN creates a primitive descriptor for its exact shapes and attrs;
// alter_layout asks for its blocked layouts (layout_choice.h).
#include <weft/plugin.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "activation_patterns.h"
#include "group_kernel.h"
#include "layout_choice.h"
#include "op_mapping.h"
#include "openmp_runtime.h"

namespace sdk = weft::sdk;


namespace {

/// The work (GroupKernel::work) below which a group runs on one thread: about
/// 0.1 ms of multiply-accumulates on one core, where a fork and join of
/// OpenMP's team costs microseconds when the cores are idle, milliseconds
/// when they are busy.
constexpr size_t kSerialWork = size_t{1} << 20;

/// An instance's CPU engine, its thread count and the answers supports()
/// has given, by call signature (a model asks about the same layer often).
struct OnednnState {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  int threads = 0;  // 0: all cores (OpenMP's default)
  bool verbose = false;
  onednn_target::TuningOptions tuning;
  std::mutex mutex;
  std::map<std::string, std::optional<std::string>> refusals;
};

/// Runs `body` with OpenMP's thread count (per calling thread) at `threads`
/// when that is set, restoring the caller's count after.
template <typename F>
void with_threads(int threads, F&& body) {
  if (threads <= 0) return body();
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  try {
    body();
  } catch (...) {
    omp_set_num_threads(before);
    throw;
  }
  omp_set_num_threads(before);
}

/// An attr value as text, for the signature of a call.
std::string value_text(const sdk::Value& v) {
  switch (v.type()) {
    case WEFT_ATTR_NONE: return "None";
    case WEFT_ATTR_INT: return std::to_string(v.as_int());
    case WEFT_ATTR_FLOAT: return std::to_string(v.as_float());
    case WEFT_ATTR_BOOL: return v.as_bool() ? "1" : "0";
    case WEFT_ATTR_STRING: return '"' + v.as_string() + '"';
    case WEFT_ATTR_DTYPE: return sdk::dtype_name(v.as_dtype());
    case WEFT_ATTR_INT_LIST: {
      std::string out;
      for (int64_t i : v.as_ints()) out += std::to_string(i) + ",";
      return "[" + out + "]";
    }
    case WEFT_ATTR_FLOAT_LIST: {
      std::string out;
      for (double d : v.as_floats()) out += std::to_string(d) + ",";
      return "[" + out + "]";
    }
    default: {
      std::string out;
      for (const sdk::Value& item : v.as_list()) out += value_text(item) + ",";
      return "(" + out + ")";
    }
  }
}

/// What decides whether oneDNN runs a call: its op, attrs, types, which
/// arguments are constants and whether it is a GELU's erf.
std::string call_signature(const sdk::Expr& call) {
  std::string key = call.op_name() + "(";
  for (const sdk::Expr& a : call.args()) key += a.type().str() + (a.is(WEFT_EXPR_CONSTANT) ? " const, " : ", ");
  key += ") -> " + call.type().str() + " {";
  const sdk::Attrs attrs = call.attrs();
  for (const std::string& name : attrs.keys()) key += name + "=" + value_text(attrs.get_value(name)) + " ";
  if (onednn_target::is_gelu_erf(call)) key += " of x / sqrt(2)";
  return key + "}";
}

/// Why oneDNN does not run `call`, or nullopt when it does; asked once per signature.
std::optional<std::string> refusal(OnednnState& state, const sdk::Expr& call) {
  const std::string key = call_signature(call);
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (auto it = state.refusals.find(key); it != state.refusals.end()) return it->second;
  }
  std::optional<std::string> why;
  try {
    onednn_target::GroupKernel::check_call(state.engine, call);
  } catch (const sdk::Unsupported& e) {
    why = e.what();
  }
  if (state.verbose && why) std::fprintf(stderr, "onednn: declines %s: %s\n", key.c_str(), why->c_str());
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.refusals.emplace(key, why).first->second;
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.target("onednn")
      .describe("oneDNN primitives on the CPU: convolutions and matrix products with the bias, activations and "
                "residual adds after them fused as post-ops, eltwise and binary ops; float32.")
      .option("threads", int64_t{0}, "Threads each primitive runs on; 0 uses all cores.", "an int >= 0")
      .option("verbose", false, "Print each group's primitives, each convolution's chosen implementation, and why "
              "a call is declined, to stderr.")
      .option("tune", true, "Time each convolution's implementations (direct, Winograd) at build and keep the "
              "fastest; false runs oneDNN's first direct one.")
      .option("tune_runs", int64_t{3}, "Timed runs per candidate implementation (the median counts).", "an int >= 1")
      .option("algorithms", std::string("direct,winograd"),
              "The convolution algorithms tuning considers, comma-separated.", "direct, winograd or both")
      .option("cache_dir", std::string("auto"),
              "Where each layer's chosen implementation is kept between builds: a folder, \"auto\" "
              "($XDG_CACHE_HOME/weft/onednn, else ~/.cache/weft/onednn) or \"\" (no cache).")
      .create([](const sdk::Attrs& options) -> std::shared_ptr<void> {
        auto state = std::make_shared<OnednnState>();
        const int64_t threads = options.get_int("threads");
        if (threads < 0) throw sdk::Error("option threads must be >= 0, not " + std::to_string(threads));
        state->threads = static_cast<int>(threads);
        state->verbose = options.get_bool("verbose");
        onednn_target::TuningOptions& tuning = state->tuning;
        tuning.tune = options.get_bool("tune");
        const int64_t runs = options.get_int("tune_runs");
        if (runs < 1) throw sdk::Error("option tune_runs must be >= 1, not " + std::to_string(runs));
        tuning.runs = static_cast<int>(runs);
        tuning.direct = tuning.winograd = false;
        const std::string algorithms = options.get_string("algorithms");
        for (size_t start = 0; start <= algorithms.size();) {
          const size_t comma = std::min(algorithms.find(',', start), algorithms.size());
          const std::string name = algorithms.substr(start, comma - start);
          if (name == "direct") tuning.direct = true;
          else if (name == "winograd") tuning.winograd = true;
          else throw sdk::Error("option algorithms names '" + name + "'; expected direct, winograd or both, comma-separated");
          start = comma + 1;
        }
        const std::string cache_dir = options.get_string("cache_dir");
        tuning.cache = sdk::DiskCache(cache_dir == "auto" ? sdk::DiskCache::default_dir("onednn") : cache_dir, "onednn-choice");
        tuning.verbose = state->verbose;
        return state;
      })
      .supports([](const sdk::TargetInstance& target, const sdk::Expr& call) {
        return !refusal(target.state<OnednnState>(), call).has_value();
      })
      .alter_layout([](const sdk::TargetInstance& target, const sdk::Expr& call) {
        return onednn_target::blocked_convolution(call, target.state<OnednnState>().engine);
      })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        OnednnState& state = target.state<OnednnState>();
        // oneDNN splits a primitive's work for the thread count it sees when
        // creating it, so the count is set here and again for each run. A
        // small group runs on the calling thread alone: waking OpenMP's
        // workers costs more than they save there, and on a busy machine a
        // worker descheduled at the barrier stalls the launch for ms.
        const bool small = onednn_target::GroupKernel::work(state.engine, group.primitive, group.constants) < kSerialWork;
        const int threads = small ? 1 : state.threads;
        std::shared_ptr<const onednn_target::GroupKernel> kernel;
        with_threads(threads, [&] {
          kernel = onednn_target::GroupKernel::compile(state.engine, group.primitive, group.constants, state.tuning);
          kernel->warm_up(state.engine);
        });
        if (state.verbose) {
          std::fprintf(stderr, "onednn: compiled a group to %s\n", kernel->summary().c_str());
          if (small) std::fprintf(stderr, "onednn: the group is small: it runs on one thread\n");
          if (size_t n = kernel->num_relayouts()) {
            std::fprintf(stderr, "onednn: the group reorders %zu tensors around its primitives at each run\n", n);
          }
        }
        const dnnl::engine engine = state.engine;
        sdk::CompiledKernel compiled = [kernel, engine, threads](const sdk::LaunchArgs& launch) {
          with_threads(threads, [&] { kernel->run(engine, launch.args); });
        };
        // The weights it reordered into its own memory: the build lets the graph's copies go.
        std::vector<bool> read = kernel->params_read_at_launch();
        std::vector<size_t> packed;
        for (size_t p = 0; p < read.size(); ++p)
          if (!read[p] && group.constants.at(p)) packed.push_back(p);
        compiled.packed_constants(std::move(packed), kernel->constant_bytes());
        // The residual a sum post-op adds: its buffer may be the output's, which spares copying it there.
        if (auto addend = kernel->inplace_parameter()) compiled.inplace_parameter(*addend);
        return compiled;
      });
}

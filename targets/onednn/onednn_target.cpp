// The onednn target: fused groups of convolutions, matrix products and the
// elementwise and binary ops after them, as oneDNN primitives with post-ops
// (group_kernel.h), float32 in host memory. supports() claims a call only
// when oneDNN creates a primitive descriptor for its exact shapes and attrs.
#include <weft/plugin.hpp>

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "group_kernel.h"
#include "op_mapping.h"

namespace sdk = weft::sdk;

// OpenMP's API, from the libgomp oneDNN runs on (CMakeLists.txt says why it
// is linked directly rather than through a compiler's omp.h and -fopenmp).
extern "C" {
void omp_set_num_threads(int num_threads);
int omp_get_max_threads(void);
}

namespace {

/// An instance's CPU engine, its thread count and the answers supports()
/// has given, by call signature (a model asks about the same layer often).
struct OnednnState {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  int threads = 0;  // 0: all cores (OpenMP's default)
  bool verbose = false;
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

/// What decides whether oneDNN runs a call: its op, attrs, types and which
/// arguments are constants.
std::string call_signature(const sdk::Expr& call) {
  std::string key = call.op_name() + "(";
  for (const sdk::Expr& a : call.args()) key += a.type().str() + (a.is(WEFT_EXPR_CONSTANT) ? " const, " : ", ");
  key += ") -> " + call.type().str() + " {";
  const sdk::Attrs attrs = call.attrs();
  for (const std::string& name : attrs.keys()) key += name + "=" + value_text(attrs.get_value(name)) + " ";
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
      .option("verbose", false, "Print each group's primitives, and why a call is declined, to stderr.")
      .create([](const sdk::Attrs& options) -> std::shared_ptr<void> {
        auto state = std::make_shared<OnednnState>();
        const int64_t threads = options.get_int("threads");
        if (threads < 0) throw sdk::Error("option threads must be >= 0, not " + std::to_string(threads));
        state->threads = static_cast<int>(threads);
        state->verbose = options.get_bool("verbose");
        return state;
      })
      .supports([](const sdk::TargetInstance& target, const sdk::Expr& call) {
        return !refusal(target.state<OnednnState>(), call).has_value();
      })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        OnednnState& state = target.state<OnednnState>();
        // oneDNN splits a primitive's work for the thread count it sees when
        // creating it, so the count is set here and again for each run.
        std::shared_ptr<const onednn_target::GroupKernel> kernel;
        with_threads(state.threads, [&] {
          kernel = onednn_target::GroupKernel::compile(state.engine, group.primitive, group.constants);
        });
        if (state.verbose) std::fprintf(stderr, "onednn: compiled a group to %s\n", kernel->summary().c_str());
        const dnnl::engine engine = state.engine;
        const int threads = state.threads;
        return [kernel, engine, threads](const sdk::LaunchArgs& launch) {
          with_threads(threads, [&] { kernel->run(engine, launch.args); });
        };
      });
}

// The pass manager: module and function passes, Sequential, PassContext and
// instruments, in the style of Relay's transform namespace and MLIR's
// PassInstrumentation.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "weft/attrs.h"
#include "weft/module.h"

namespace weft {

struct PassInfo {
  std::string name;
  int opt_level = 0;
  /// Passes (by registered name) that must run right before this one.
  std::vector<std::string> required;
};

class PassContext;

/// Hooks around every pass run inside a PassContext.
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual std::string name() const = 0;
  virtual void enter_context() {}
  virtual void exit_context() {}
  /// Returning false skips the pass (and its after hook).
  virtual bool should_run(const IRModule&, const PassInfo&) { return true; }
  virtual void run_before_pass(const IRModule&, const PassInfo&) {}
  virtual void run_after_pass(const IRModule&, const PassInfo&) {}
};

class Pass {
 public:
  using ModuleFn = std::function<IRModule(IRModule, const PassContext&)>;

  Pass() = default;
  Pass(PassInfo info, ModuleFn fn);

  const PassInfo& info() const { return info_; }
  bool defined() const { return static_cast<bool>(fn_); }
  /// Runs under PassContext::current(): its instruments fire around this pass.
  /// Gating by opt_level and disabled lists happens in Sequential, as in Relay.
  IRModule operator()(IRModule mod) const;
  IRModule operator()(IRModule mod, const PassContext& ctx) const;

 private:
  friend class SequentialPass;
  PassInfo info_;
  ModuleFn fn_;
  bool is_sequential_ = false;
};

Pass create_module_pass(PassInfo info, Pass::ModuleFn fn);
/// A pass applied to each function of the module (skipping Primitive ones).
Pass create_function_pass(PassInfo info,
                          std::function<Function(Function, const IRModule&, const PassContext&)> fn);
/// Runs `passes` in order, each if enabled by the context (opt_level <= the
/// context's, or required; never if disabled), after its required passes.
Pass sequential(std::vector<Pass> passes, std::string name = "sequential", int opt_level = 0);

/// The configuration passes run under. Scopes nest: PassContext::Scope makes a
/// context current until it goes away.
class PassContext {
 public:
  int opt_level = 2;
  std::vector<std::string> required_passes;
  std::vector<std::string> disabled_passes;
  std::vector<std::shared_ptr<PassInstrument>> instruments;

  /// The innermost context in scope, or a default one.
  static const PassContext& current();

  /// Sets a config value. The key must be registered and the value must
  /// coerce to its type; otherwise weft::Error naming the key.
  PassContext& set_config(const std::string& key, AttrValue value);
  /// The value for key, or the registered default.
  AttrValue get_config(const std::string& key) const;
  /// Declares a config key (e.g. "relay.FuseOps.max_depth") with type and default.
  static void register_config(const std::string& key, AttrType type, AttrValue default_value);

  /// Whether Sequential runs a pass with this info under this context.
  bool pass_enabled(const PassInfo& info) const;

  /// Makes ctx current; calls enter_context/exit_context on its instruments.
  class Scope {
   public:
    explicit Scope(PassContext ctx);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };

 private:
  std::map<std::string, AttrValue> config_;
};

// ---- Instruments ------------------------------------------------------------

/// Wall time per pass, nested passes included in their parents.
class TimingInstrument : public PassInstrument {
 public:
  struct Entry {
    std::string pass;
    int depth;
    std::chrono::nanoseconds time;
  };
  std::string name() const override { return "PassTimingInstrument"; }
  void run_before_pass(const IRModule&, const PassInfo&) override;
  void run_after_pass(const IRModule&, const PassInfo&) override;
  const std::vector<Entry>& entries() const { return entries_; }
  /// One line per pass run, indented by nesting.
  std::string report() const;

 private:
  std::vector<Entry> entries_;
  std::vector<std::pair<size_t, std::chrono::steady_clock::time_point>> open_;
};

/// Prints the module (Relay text) after each pass to a stream.
class IRDumpInstrument : public PassInstrument {
 public:
  explicit IRDumpInstrument(std::ostream& out) : out_(out) {}
  std::string name() const override { return "PrintIRAfter"; }
  void run_after_pass(const IRModule& mod, const PassInfo& info) override;

 private:
  std::ostream& out_;
};

/// Checks well-formedness after each pass; a violation is a weft::Error naming
/// the pass that produced it.
class WellFormedInstrument : public PassInstrument {
 public:
  std::string name() const override { return "WellFormedCheck"; }
  void run_after_pass(const IRModule& mod, const PassInfo& info) override;
};

// ---- Registry -----------------------------------------------------------------

class PassRegistry {
 public:
  static PassRegistry& global();
  using Factory = std::function<Pass()>;
  /// Registers a pass by name; a duplicate name is a weft::Error.
  void add(const std::string& name, Factory factory);
  /// The pass named `name` (asking the resolver, i.e. the plugin loader, on a
  /// miss); an unknown name is a weft::Error.
  Pass get(std::string_view name);
  bool contains(std::string_view name) const;
  std::vector<std::string> names() const;
  using Resolver = std::function<bool(std::string_view name)>;
  void set_resolver(Resolver r) { resolver_ = std::move(r); }

 private:
  std::map<std::string, Factory, std::less<>> factories_;
  Resolver resolver_;
};

}  // namespace weft

// The pass manager: module and function passes, Sequential, PassContext and
// instruments, in the style of Relay's transform namespace and MLIR's
// PassInstrumentation.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "weft/attrs.h"
#include "weft/module.h"
#include "weft/registry.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// What a pass is: its name (as registered), the lowest opt_level at which
/// Sequential runs it, and the passes it needs before it.
struct PassInfo {
  std::string name;
  int opt_level = 0;
  /// Passes (by registered name) that must run right before this one.
  std::vector<std::string> required;
};

class PassContext;
class Target;

/// Hooks around every pass run inside a PassContext, nested passes included
/// (a Sequential is a pass too, so its hooks enclose those of its members).
class PassInstrument {
 public:
  virtual ~PassInstrument() = default;
  virtual std::string name() const = 0;
  /// Called when a PassContext::Scope holding this instrument opens / closes.
  /// exit_context must not throw (it runs from a destructor).
  virtual void enter_context() {}
  virtual void exit_context() {}
  /// Asked of every instrument before each pass (all of them are asked); any
  /// false skips the pass and both its hooks, unless the context lists the pass
  /// in required_passes.
  virtual bool should_run(const IRModule&, const PassInfo&) { return true; }
  virtual void run_before_pass(const IRModule&, const PassInfo&) {}
  /// Called with the module the pass returned. Not called when the pass throws.
  virtual void run_after_pass(const IRModule&, const PassInfo&) {}
  /// Called instead of run_after_pass when the pass fails: the pass throws, or
  /// an instrument's run_before_pass or run_after_pass throws (a
  /// WellFormedInstrument's violation). Every instrument whose run_before_pass
  /// returned gets exactly one of run_after_pass and run_after_pass_failed, so
  /// per-pass state (a timer, a saved module) can always be closed. `before`
  /// is the module the pass was given; the exception then propagates to the
  /// caller. Must not throw: what it throws is dropped so that the failure
  /// itself reaches the caller.
  virtual void run_after_pass_failed(const IRModule& /*before*/, const PassInfo&, const std::exception&) {}
};

/// A module-to-module transformation; copyable, cheap to copy.
class Pass {
 public:
  using ModuleFn = std::function<IRModule(IRModule, const PassContext&)>;

  Pass() = default;
  Pass(PassInfo info, ModuleFn fn);

  const PassInfo& info() const { return info_; }
  /// False for a default-constructed Pass.
  bool defined() const { return static_cast<bool>(fn_); }
  /// Runs under PassContext::current(): its instruments fire around this pass.
  /// Gating by opt_level and disabled lists happens in Sequential, as in Relay.
  IRModule operator()(IRModule mod) const;
  IRModule operator()(IRModule mod, const PassContext& ctx) const;

 private:
  PassInfo info_;
  ModuleFn fn_;
};

/// Whether function attr `name` is set: a nonzero int, true, or a non-empty
/// string (Relay's HasNonzeroAttr, and a Compiler name).
bool has_attr(const Function& fn, std::string_view name);

/// A pass over the whole module.
Pass create_module_pass(PassInfo info, Pass::ModuleFn fn);
/// A pass applied to each function of the module, skipping those not meant for
/// optimization (attrs Primitive, Extern or SkipOptimization nonzero, or
/// Compiler set), as Relay does. Every function sees the module as it was
/// before the pass; the results replace the functions afterwards.
Pass create_function_pass(PassInfo info,
                          std::function<Function(Function, const IRModule&, const PassContext&)> fn);
/// Runs `passes` in order, each if enabled by the context (see
/// PassContext::pass_enabled). Before a pass runs, the passes named in its
/// `required` are fetched from PassRegistry::global() and run, ungated, as in
/// Relay. An unknown required name is a weft::Error naming both passes.
Pass sequential(std::vector<Pass> passes, std::string name = "sequential", int opt_level = 0);

/// The configuration passes run under. Scopes nest: PassContext::Scope makes a
/// context current until it goes away.
class PassContext {
 public:
  /// A context with the defaults below, its own empty statistics table and no
  /// config values set.
  PassContext();

  int opt_level = 2;  // Relay's default
  std::vector<std::string> required_passes;  // run whatever their opt_level
  std::vector<std::string> disabled_passes;  // never run by Sequential
  std::vector<std::shared_ptr<PassInstrument>> instruments;  // hooked in this order
  /// The targets a build compiles for, in priority order (weft::build sets
  /// them): AlterOpLayout asks them for their preferred layouts.
  std::vector<std::shared_ptr<const Target>> targets;
  /// Set by weft::build when the caller handed the program over (no other
  /// handle to its functions): FoldConstant may compute an elementwise fold
  /// into the storage of the constant it replaces when that constant is used
  /// once, its tensor has no other handle and weft allocated it
  /// (Tensor::owns_memory; DLPack memory is the caller's). Then weights are not
  /// held twice while the pass runs; the module the pass was given is left
  /// with the folded values in those constants.
  bool reuse_constant_storage = false;

  /// The innermost context in scope, or a default one.
  static const PassContext& current();

  /// Sets a config value, stored coerced to the key's type (an int for a float
  /// key becomes a float). An unregistered key, or a value that does not
  /// coerce, is a weft::Error naming the key and the expected type.
  PassContext& set_config(const std::string& key, AttrValue value);
  /// The value set for key, or the registered default; weft::Error if the key
  /// is not registered.
  AttrValue get_config(const std::string& key) const;
  /// Declares a config key (e.g. "relay.FuseOps.max_depth") with its type and
  /// default. Registering a key again with the same type replaces the default;
  /// with another type, or a default that does not fit the type, is a weft::Error.
  static void register_config(const std::string& key, AttrType type, AttrValue default_value);
  /// Every registered key with its type, by name.
  static std::map<std::string, AttrType> registered_configs();

  /// Whether Sequential runs a pass with this info under this context: never
  /// when disabled, always when required, else when info.opt_level <= opt_level.
  bool pass_enabled(const PassInfo& info) const;

  /// Adds delta to the counter `key` of pass `pass` (MLIR's pass statistics,
  /// e.g. FoldConstant's number of calls folded); a counter starts at 0. The
  /// table lives behind a shared pointer: every copy of a context (the one a
  /// Scope holds, the one a pass is given) records into the same table, so a
  /// pass can record through the const context it runs under and whoever made
  /// the context reads the result. Thread-safe.
  void add_statistic(const std::string& pass, const std::string& key, int64_t delta) const;
  /// Every counter recorded so far, by pass then key (a snapshot).
  std::map<std::string, std::map<std::string, int64_t>> statistics() const;

  /// Makes ctx current on this thread until destroyed; calls enter_context /
  /// exit_context on its instruments. Scopes nest and must be destroyed in
  /// reverse order of creation (they are meant to live on the stack).
  class Scope {
   public:
    explicit Scope(PassContext ctx);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };

 private:
  std::map<std::string, AttrValue> config_;
  struct Statistics;
  std::shared_ptr<Statistics> statistics_;
};

// ---- Instruments ------------------------------------------------------------

/// Wall time per pass, nested passes included in their parents.
class TimingInstrument : public PassInstrument {
 public:
  struct Entry {
    std::string pass;
    int depth;  // 0 for a pass run directly, 1 for one run inside it, ...
    std::chrono::nanoseconds time;
    bool failed = false;  // the pass threw: time runs up to the failure
  };
  std::string name() const override { return "PassTimingInstrument"; }
  void run_before_pass(const IRModule&, const PassInfo&) override;
  void run_after_pass(const IRModule&, const PassInfo&) override;
  void run_after_pass_failed(const IRModule&, const PassInfo&, const std::exception&) override;
  const std::vector<Entry>& entries() const { return entries_; }
  /// One line per pass run, in start order, indented by nesting:
  /// "sequential: 1520 us" then "  InferType: 310 us (20.4%)" (share of the
  /// parent); a pass that threw ends in " (failed)".
  std::string report() const;

 private:
  // Closes the innermost open entry.
  void close(const PassInfo& info, bool failed);

  std::vector<Entry> entries_;
  // Passes started but not finished: entry index and start time.
  std::vector<std::pair<size_t, std::chrono::steady_clock::time_point>> open_;
};

/// Prints the module (Relay text) after passes to a stream, preceded by a
/// "// IR after NAME" comment line: after every pass (MLIR's
/// --print-ir-after-all), or only after those that changed the module
/// (--print-ir-after-change): not when the functions are the very same nodes
/// (a pass that only filled in types), nor when the result is structurally
/// equal and prints the same (structural equality alone does not see a change
/// of sharing, as EliminateCommonSubexpr makes). Nothing is printed for a pass
/// that failed.
class IRDumpInstrument : public PassInstrument {
 public:
  enum class Mode { kAfterEveryPass, kAfterChange };
  explicit IRDumpInstrument(std::ostream& out, Mode mode = Mode::kAfterEveryPass) : out_(out), mode_(mode) {}
  std::string name() const override { return "PrintIRAfter"; }
  void run_before_pass(const IRModule& mod, const PassInfo& info) override;
  void run_after_pass(const IRModule& mod, const PassInfo& info) override;
  void run_after_pass_failed(const IRModule&, const PassInfo&, const std::exception&) override;

 private:
  std::ostream& out_;
  Mode mode_;
  // kAfterChange: the module each open pass was given, innermost last.
  std::vector<IRModule> before_;
};

/// Checks well-formedness after each pass; a violation is a weft::Error naming
/// the pass that produced it.
class WellFormedInstrument : public PassInstrument {
 public:
  std::string name() const override { return "WellFormedCheck"; }
  void run_after_pass(const IRModule& mod, const PassInfo& info) override;
};

// ---- Registry -----------------------------------------------------------------

/// A pass as registered: a factory for fresh instances of it.
struct PassDef {
  std::string name;
  std::function<Pass()> create;
  std::string plugin;  // who registered it ("" for the core's and in-process passes)
};

/// Passes by name (see weft/registry.h for the semantics every registry
/// shares). The global registry starts with the core passes (see passes.h);
/// plugins add theirs.
class PassRegistry : public NamedRegistry<PassDef> {
 public:
  PassRegistry() : NamedRegistry("pass") {}
  static PassRegistry& global();
  using Factory = std::function<Pass()>;
  /// Registers an in-process pass by name; a duplicate name is a weft::Error.
  void add(const std::string& name, Factory factory) { NamedRegistry::add(PassDef{name, std::move(factory), ""}); }
  using NamedRegistry::add;
  /// A new instance of the pass named `name` (asking the resolver, i.e. the
  /// plugin loader, on a miss); an unknown name is a weft::Error listing the
  /// known ones.
  Pass create(std::string_view name) { return get(name).create(); }

 protected:
  void check(const PassDef& def) const override;
  Error unknown(std::string_view name) const override;
};

}  // namespace weft

#pragma GCC visibility pop

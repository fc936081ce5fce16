// weft::build: the pipeline, the partition, each group's compile, and what
// falls back to `ref`.
#include "weft/build.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <optional>

#include "group_constants.h"
#include "partition.h"
#include "weft/group_storage.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/pipeline.h"

namespace weft {

namespace {

using build_detail::BuildTarget;
using build_detail::GroupPlan;

/// The config's targets that are there, in priority order (`ref` last),
/// created with their options as check_run_config normalizes them. Under
/// missing_targets: skip, a target that cannot run on this machine (its
/// create declines: no device, no driver) is left out as a missing one is.
std::vector<BuildTarget> create_targets(const RunConfig& config) {
  std::map<std::string, Attrs> options = check_run_config(config);
  std::vector<BuildTarget> targets;
  for (const std::string& name : config.target_order()) {
    auto listed = options.find(name);
    if (listed == options.end()) continue;  // not there, and missing_targets: skip
    try {
      targets.push_back({name, TargetRegistry::global().get(name).create(listed->second)});
    } catch (const Error& e) {
      if (config.missing_targets != MissingTargetPolicy::kSkip || e.status() != StatusCode::kUnsupported) throw;
      std::cerr << "weft: warning: target '" << name << "' is left out (missing_targets: skip): it cannot run here: "
                << e.what() << "\n";
    }
  }
  return targets;
}

std::string join(const std::vector<std::string>& items, const std::string& separator = ", ") {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

std::vector<std::string> op_names(const std::vector<Call>& calls) {
  std::vector<std::string> names;
  for (const Call& c : calls) names.push_back(c->op.as<OpNode>()->name());
  return names;
}

/// The call's attrs that differ from its op's defaults, "key=value, ...".
std::string attrs_summary(const Call& call) {
  if (!call->attrs) return "";
  const OpDef& def = *call->op.as<OpNode>()->def;
  std::vector<std::string> parts;
  for (const auto& [key, value] : call->attrs->entries) {
    const AttrField* field = def.attrs.find(key);
    if (field && field->default_value && *field->default_value == value) continue;
    parts.push_back(key + "=" + value.str());
  }
  return join(parts);
}

/// "the group of nn.dense, add" for messages.
std::string group_text(const GroupPlan& group) {
  return group.calls.empty() ? std::string("a group without op calls") : "the group of " + join(op_names(group.calls));
}

/// The kernel's packed constants (TargetKernel::packed_constants), checked:
/// one mark per parameter, and only where compile was given a constant.
std::vector<bool> packed_constants(const TargetKernel& kernel, const std::vector<Tensor>& constants) {
  std::vector<bool> packed = kernel.packed_constants();
  if (packed.empty()) return packed;
  if (packed.size() != constants.size())
    throw Error("its kernel marks " + std::to_string(packed.size()) + " packed constants for a group of " +
                std::to_string(constants.size()) + " parameters");
  for (size_t i = 0; i < packed.size(); ++i)
    if (packed[i] && !constants[i].defined())
      throw Error("its kernel marks parameter " + std::to_string(i) + " packed, but it is computed at run time");
  return packed;
}

/// `kernel`, compiled for `group` by `target` from `constants`, as a
/// CompiledGroup whose packed weights `group_constants` then lets go.
CompiledGroup compiled_group(const GroupPlan& group, const BuildTarget& target,
                             std::shared_ptr<const TargetKernel> kernel, const std::vector<Tensor>& constants,
                             build_detail::GroupConstants& group_constants) {
  std::vector<bool> packed = packed_constants(*kernel, constants);
  size_t graph_bytes = 0;
  for (size_t i = 0; i < packed.size(); ++i)
    if (packed[i]) graph_bytes += constants[i].nbytes();
  size_t packed_bytes = kernel->packed_bytes() ? kernel->packed_bytes() : graph_bytes;
  group_constants.packed(group.site, packed);
  std::optional<size_t> inplace = kernel->inplace_parameter();
  if (inplace) {
    if (!has_result_type(group.primitive, *inplace))
      throw Error("target '" + target.name + "' names parameter " + std::to_string(*inplace) + " of " +
                  group_text(group) + " as one its result may overwrite")
          .expected("a parameter of the result's shape and dtype")
          .status(StatusCode::kInternal);
  } else {
    inplace = inplace_parameter(group.primitive);
  }
  return CompiledGroup{group.primitive,     target.name, std::move(kernel), op_names(group.calls), std::move(packed),
                       packed_bytes,        inplace};
}

/// Compiles `group` on the first of its takers from `first` on that does not
/// decline it.
CompiledGroup compile_group(const GroupPlan& group, const std::vector<BuildTarget>& targets,
                            build_detail::GroupConstants& group_constants, size_t first = 0) {
  std::vector<Tensor> constants = group_constants.arguments(group.site);
  for (size_t k = first; k < group.takers.size(); ++k) {
    const BuildTarget& target = targets[group.takers[k]];
    try {
      std::shared_ptr<const TargetKernel> kernel = target.target->compile(group.primitive, constants);
      return compiled_group(group, target, std::move(kernel), constants, group_constants);
    } catch (const Error& e) {
      if (e.status() == StatusCode::kUnsupported) continue;  // declined: the next target may take it
      throw Error("target '" + target.name + "' failed to compile " + group_text(group) + ": " + e.what())
          .status(e.status());
    } catch (const std::exception& e) {
      throw Error("target '" + target.name + "' failed to compile " + group_text(group) + ": " + e.what())
          .status(StatusCode::kInternal);
    }
  }
  std::vector<std::string> tried;
  for (size_t t : group.takers) tried.push_back(targets[t].name);
  if (tried.empty())
    throw Error("no target runs " + group_text(group) +
                ": ref has no reference kernel for one of its ops and no listed target supports them all");
  throw Error("no target compiles " + group_text(group) + ": " + join(tried) + " declined it")
      .status(StatusCode::kUnsupported);
}

/// The groups whose first taker is `t`, compiled by it at once where it
/// compiles partitions (Target::compile_partition): the kernels it made, by
/// group index, a group it declined getting none; nothing when it compiles
/// group by group.
std::optional<std::map<size_t, CompiledGroup>> compile_partition(size_t t, const std::vector<GroupPlan>& groups,
                                                                 const std::vector<BuildTarget>& targets,
                                                                 build_detail::GroupConstants& group_constants) {
  std::vector<size_t> mine;
  std::vector<Function> primitives;
  std::vector<std::vector<Tensor>> constants;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].takers.empty() || groups[g].takers.front() != t) continue;
    mine.push_back(g);
    primitives.push_back(groups[g].primitive);
    constants.push_back(group_constants.arguments(groups[g].site));
  }
  if (mine.empty()) return std::nullopt;
  std::map<size_t, CompiledGroup> compiled;
  const BuildTarget& target = targets[t];
  std::vector<std::unique_ptr<TargetKernel>> kernels;
  const std::string what = std::to_string(mine.size()) + " groups";
  try {
    kernels = target.target->compile_partition(primitives, constants);
  } catch (const Error& e) {
    if (e.status() == StatusCode::kUnsupported) return compiled;  // declined them all
    throw Error("target '" + target.name + "' failed to compile its partition of " + what + ": " + e.what())
        .status(e.status());
  } catch (const std::exception& e) {
    throw Error("target '" + target.name + "' failed to compile its partition of " + what + ": " + e.what())
        .status(StatusCode::kInternal);
  }
  if (kernels.empty()) return std::nullopt;  // the target compiles group by group
  if (kernels.size() != mine.size())
    throw Error("target '" + target.name + "' compiled " + std::to_string(kernels.size()) +
                " kernels for its partition of " + what)
        .status(StatusCode::kInternal);
  for (size_t i = 0; i < mine.size(); ++i) {
    if (!kernels[i]) continue;
    const GroupPlan& group = groups[mine[i]];
    try {
      compiled.emplace(mine[i], compiled_group(group, target, std::move(kernels[i]), constants[i], group_constants));
    } catch (const Error& e) {
      throw Error("target '" + target.name + "' failed to compile " + group_text(group) + ": " + e.what())
          .status(e.status());
    }
  }
  return compiled;
}

/// The ops that run on `ref` because no listed target supports them, with
/// their attrs, in the order they first appear; reshape-only groups, which
/// the executor runs as views of their input, are not among them.
std::vector<FallbackOp> fallback_ops(const std::vector<GroupPlan>& plans, const std::vector<CompiledGroup>& groups) {
  std::vector<FallbackOp> ops;
  for (size_t g = 0; g < plans.size(); ++g) {
    if (groups[g].target != kReferenceTarget) continue;
    if (reshaped_parameter(plans[g].primitive)) continue;  // a view: no kernel runs, on ref or elsewhere
    for (size_t i = 0; i < plans[g].calls.size(); ++i) {
      if (plans[g].listed_support[i]) continue;
      FallbackOp op{groups[g].ops[i], attrs_summary(plans[g].calls[i]), 1};
      auto same = std::find_if(ops.begin(), ops.end(), [&](const FallbackOp& o) {
        return o.op == op.op && o.attrs == op.attrs;
      });
      if (same == ops.end()) ops.push_back(std::move(op));
      else ++same->count;
    }
  }
  return ops;
}

/// One line per op: "  nn.softmax(axis=1) x 2".
std::string fallback_list(const std::vector<FallbackOp>& ops) {
  std::string out;
  for (const FallbackOp& op : ops)
    out += "\n  " + op.op + (op.attrs.empty() ? "" : "(" + op.attrs + ")") + " x " + std::to_string(op.count);
  return out;
}

/// Where the config's first target is a device's (its buffers are not host
/// memory), the ops of the groups that went to a CPU target after it, counted:
/// each such group's tensors are copied between the devices at its borders.
std::vector<FallbackOp> ops_off_the_device(const std::vector<BuildTarget>& targets,
                                           const std::vector<CompiledGroup>& groups) {
  std::vector<FallbackOp> out;
  if (targets.size() < 2 || targets.front().target->host_addressable()) return out;
  for (const CompiledGroup& g : groups) {
    if (g.target == targets.front().name || g.target == kReferenceTarget) continue;  // ref's are fallbacks, listed apart
    for (const std::string& op : g.ops) {
      auto same = std::find_if(out.begin(), out.end(), [&](const FallbackOp& o) { return o.op == op; });
      if (same == out.end()) out.push_back({op, "", 1});
      else ++same->count;
    }
  }
  return out;
}

}  // namespace

std::shared_ptr<const CompiledModule> build(IRModule mod, const RunConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<BuildTarget> targets = create_targets(config);

  PassContext ctx;
  ctx.opt_level = config.opt_level;
  ctx.required_passes = config.required_passes;
  ctx.disabled_passes = config.disabled_passes;
  ctx.reuse_constant_storage = std::all_of(mod.functions().begin(), mod.functions().end(),
                                           [](const auto& def) { return def.second->use_count() == 1; });
  for (const BuildTarget& t : targets) ctx.targets.push_back(t.target);  // AlterOpLayout asks their layouts
  IRModule optimized;
  {
    PassContext::Scope scope(ctx);
    // The executor runs a local function inlined at its call anyway; done
    // before the pipeline, the constants passed into one (an lstm cell's
    // weights) reach FoldConstant and AlterOpLayout's packing as constants.
    IRModule typed = infer_type(InlineLocalFunctions()(std::move(mod), ctx));
    mod = IRModule();  // the pipeline holds the only handle to the program it replaces
    optimized = optimization_pipeline()(std::move(typed), ctx);
  }
  build_detail::Partition partition = build_detail::partition(optimized.main(), targets);
  optimized = IRModule();
  // The constants are held apart from main while the groups compile, so a
  // weight a kernel packs is let go before the next group packs its own.
  build_detail::GroupConstants group_constants(partition);

  auto compiled = std::make_shared<CompiledModule>();
  compiled->config = config;
  for (const BuildTarget& t : targets) compiled->targets.emplace(t.name, t.target);
  // Each target that compiles partitions gets every group it is the first
  // taker of at once; the rest, and the groups it declined, compile one by one.
  std::map<size_t, CompiledGroup> by_partition;
  std::vector<bool> partitioned(targets.size(), false);
  for (size_t t = 0; t < targets.size(); ++t) {
    if (auto compiled_here = compile_partition(t, partition.groups, targets, group_constants)) {
      partitioned[t] = true;
      by_partition.merge(*compiled_here);
    }
  }
  for (size_t g = 0; g < partition.groups.size(); ++g) {
    const GroupPlan& group = partition.groups[g];
    compiled->group_of.emplace(group.primitive.get(), g);
    auto done = by_partition.find(g);
    if (done != by_partition.end()) {
      compiled->groups.push_back(std::move(done->second));
      continue;
    }
    // A group its first taker declined in its partition goes to the next.
    bool declined = !group.takers.empty() && partitioned[group.takers.front()];
    compiled->groups.push_back(compile_group(group, targets, group_constants, declined ? 1 : 0));
  }
  compiled->main = group_constants.restore(partition.main);

  // With no target before ref (`targets: []` or `[ref]`) ref is what the
  // config asks for, not a fallback.
  if (targets.size() > 1) compiled->fallback_ops = fallback_ops(partition.groups, compiled->groups);
  if (!compiled->fallback_ops.empty()) {
    std::vector<std::string> listed(targets.size() - 1);
    for (size_t t = 0; t + 1 < targets.size(); ++t) listed[t] = targets[t].name;
    std::string what = "no listed target (" + join(listed) + ") supports these ops";
    if (config.fallback == FallbackPolicy::kError)
      throw Error(what + ", and the config says `fallback: error`:" + fallback_list(compiled->fallback_ops))
          .status(StatusCode::kUnsupported);
    std::cerr << "weft: warning: " << what << ", so they run on ref:" << fallback_list(compiled->fallback_ops)
              << "\n";
  }
  if (std::vector<FallbackOp> off = ops_off_the_device(targets, compiled->groups); !off.empty())
    std::cerr << "weft: warning: " << targets.front().name << " does not run these ops, so they run on the CPU with "
              << "their tensors copied to and from its device:" << fallback_list(off) << "\n";
  compiled->build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return compiled;
}

std::string describe_partition(const CompiledModule& compiled) {
  size_t width = 0;
  for (const CompiledGroup& g : compiled.groups) width = std::max(width, g.target.size());
  const size_t index_width = std::to_string(compiled.groups.empty() ? 0 : compiled.groups.size() - 1).size();
  std::string out;
  for (size_t i = 0; i < compiled.groups.size(); ++i) {
    const CompiledGroup& g = compiled.groups[i];
    std::string index = std::to_string(i);
    out += std::string(index_width - index.size(), ' ') + index + "  " + g.target +
           std::string(width - g.target.size(), ' ') + "  " + (g.ops.empty() ? "(no ops)" : join(g.ops)) + "\n";
  }
  return out;
}

}  // namespace weft

// weft plugin SDK: a fused group (a typed Primitive function) as the steps a
// target runs in order, for targets that run a group op by op with a kernel
// per op (targets/null, share/weft/examples/custom_target): every call of the
// group over numbered values (its parameters, the constants inside it, each
// call's result) and which values are its outputs.
//
//   sdk::GroupSteps steps = sdk::GroupSteps::of(group.primitive, my_target_runs, "acme_cpu");
//   for (const sdk::GroupStep& s : steps.steps()) ... s.call.op_name(), s.inputs, s.output
//
// Part of plugin.hpp; include that.
#pragma once

#include <weft/sdk/ir.hpp>
#include <weft/sdk/target.hpp>
#include <weft/sdk/walk.hpp>

#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace weft::sdk {

/// A value a group's steps read or write.
struct GroupValue {
  enum class Source { kParam, kConstant, kCall };
  Source source;
  size_t index;  // kParam: the parameter; kConstant: into GroupSteps::constants(); kCall: into steps()
  Type type;
};

/// One call of the group: its arguments' and its result's value ids.
struct GroupStep {
  Expr call;  // typed
  std::vector<size_t> inputs;
  size_t output;
};

class GroupSteps {
 public:
  /// The steps of `primitive`. A call `runs(call)` refuses, a call of a
  /// function, a let, a tuple that is not the group's outputs or a read of
  /// anything but the group's parameters and constants is sdk::Unsupported,
  /// naming `target` and what it met: the build then offers the group to
  /// the next target.
  static GroupSteps of(const Expr& primitive, const std::function<bool(const Expr& call)>& runs,
                       const std::string& target) {
    GroupSteps g;
    std::unordered_map<const weft_expr_t*, size_t> value_of;
    std::vector<Expr> params = primitive.params();
    for (size_t i = 0; i < params.size(); ++i) {
      value_of[params[i].get()] = g.add({GroupValue::Source::kParam, i, params[i].type()});
      g.params_.push_back(value_of[params[i].get()]);
    }
    const Expr body = primitive.body();
    post_order(body, [&](const Expr& node) {
      switch (node.kind()) {
        case WEFT_EXPR_VAR:
          if (!value_of.count(node.get()))
            throw Unsupported("the group reads " + node.name() + ", which is not its parameter");
          return;
        case WEFT_EXPR_CONSTANT:
          value_of[node.get()] = g.add({GroupValue::Source::kConstant, g.constants_.size(), node.type()});
          g.constants_.push_back(node);
          return;
        case WEFT_EXPR_CALL: {
          const Expr callee = node.callee();
          if (!callee.is(WEFT_EXPR_OP)) throw Unsupported(target + " does not run calls of functions");
          if (!runs(node))
            throw Unsupported(target + " does not run " + callee.name() + " with these types (" + node.type().str() + ")");
          GroupStep step{node, {}, 0};
          for (const Expr& a : node.args()) step.inputs.push_back(value_of.at(a.get()));
          step.output = g.add({GroupValue::Source::kCall, g.steps_.size(), node.type()});
          value_of[node.get()] = step.output;
          g.steps_.push_back(std::move(step));
          return;
        }
        case WEFT_EXPR_TUPLE:
          if (node.get() != body.get()) throw Unsupported(target + " runs a tuple only as a group's outputs");
          for (const Expr& f : node.fields()) g.outputs_.push_back(value_of.at(f.get()));
          return;
        default: throw Unsupported(target + " does not run " + std::string(node_kind_name(node.kind())) + " nodes");
      }
    });
    if (!body.is(WEFT_EXPR_TUPLE)) g.outputs_.push_back(value_of.at(body.get()));
    return g;
  }

  const std::vector<GroupValue>& values() const { return values_; }
  const std::vector<GroupStep>& steps() const { return steps_; }
  /// Value ids: one per parameter of the primitive, then the group's outputs.
  const std::vector<size_t>& params() const { return params_; }
  const std::vector<size_t>& outputs() const { return outputs_; }
  /// The constant nodes inside the group, in kConstant index order.
  const std::vector<Expr>& constants() const { return constants_; }

  /// The ops of its steps in order, for messages: "nn.dense, add".
  std::string summary() const {
    std::string out;
    for (const GroupStep& s : steps_) out += (out.empty() ? "" : ", ") + s.call.callee().name();
    return out;
  }

 private:
  size_t add(GroupValue v) {
    values_.push_back(std::move(v));
    return values_.size() - 1;
  }

  std::vector<GroupValue> values_;
  std::vector<GroupStep> steps_;
  std::vector<size_t> params_, outputs_;
  std::vector<Expr> constants_;
};

}  // namespace weft::sdk

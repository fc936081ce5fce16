// FuseOps: each group the partitioner finds becomes a function marked
// Primitive=1, called where the group's result was (Relay's FuseMutator).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "fusion_graph.h"
#include "graph_partitioner.h"
#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

namespace {

using fusion::ForwardGraph;
using fusion::Partition;

constexpr const char* kMaxDepthKey = "relay.FuseOps.max_depth";
constexpr const char* kLinkParamsKey = "relay.FuseOps.link_params";
// Relay's kMaxFusedOps.
constexpr int64_t kDefaultMaxDepth = 256;

// Registered when the core loads, so a context can set them before the pass exists.
const bool kConfigRegistered = [] {
  PassContext::register_config(kMaxDepthKey, AttrType::kInt, kDefaultMaxDepth);
  PassContext::register_config(kLinkParamsKey, AttrType::kBool, false);
  return true;
}();

class FuseMutator : public ExprMutator {
 public:
  FuseMutator(const ForwardGraph& graph, Partition partition, bool link_params)
      : graph_(graph), partition_(std::move(partition)), link_params_(link_params) {}

  Function run(const Function& fn) {
    for (const Expr& f : graph_.opaque_functions) memo_.emplace(f.get(), f);  // left as they are
    Function out = downcast<FunctionNode>(mutate(fn));
    // Typed as InferType would type it (Relay's function passes end with
    // InferType): every rebuilt node has its original's type.
    for (const auto& [original, rebuilt] : memo_)
      if (!rebuilt->has_type() && original->has_type()) rebuilt->set_checked_type(original->checked_type());
    return out;
  }

 protected:
  Expr visit_call(const Call& c) override {
    uint32_t n = graph_.find(c.get());
    if (c->op->kind != ExprKind::kOp) return ExprMutator::visit_call(c);
    uint32_t group = partition_.group[n];
    Expr rebuilt = located(Expr(new CallNode(c->op, arguments(c->args, group), c->attrs)), *c);
    return partition_.result[n] ? make_function(group, c->checked_type(), rebuilt) : rebuilt;
  }

  Expr visit_tuple(const Tuple& t) override {
    uint32_t n = graph_.find(t.get());
    // A tuple that is its group's result stays in the caller, its fields fused apart.
    if (partition_.result[n]) return ExprMutator::visit_tuple(t);
    return located(tuple(arguments(t->fields, partition_.group[n])), *t);
  }

  Expr visit_tuple_get_item(const TupleGetItem& t) override {
    uint32_t n = graph_.find(t.get());
    uint32_t group = partition_.group[n];
    if (partition_.result[n] && group_of(t->tuple) != group) return ExprMutator::visit_tuple_get_item(t);
    Expr item = located(get_item(arguments({t->tuple}, group)[0], t->index), *t);
    return partition_.result[n] ? make_function(group, t->checked_type(), item) : item;
  }

 private:
  // The parameters of a group's function and the values its call passes.
  struct GroupInfo {
    std::vector<Var> params;
    std::vector<Expr> arguments;
  };

  static Expr located(Expr e, const ExprNode& original) {
    const_cast<ExprNode&>(*e).span = original.span;
    return e;
  }

  uint32_t group_of(const Expr& e) const {
    uint32_t n = graph_.find(e.get());
    return n == ForwardGraph::kNone ? ForwardGraph::kNone : partition_.group[n];
  }

  // The inputs of a node of `group`: values from the same group inline, the
  // others through the group's parameters (one per distinct value).
  std::vector<Expr> arguments(const std::vector<Expr>& inputs, uint32_t group) {
    std::vector<Expr> out;
    out.reserve(inputs.size());
    for (const Expr& input : inputs) {
      Expr value = visit(input);
      if (group_of(input) == group || (link_params_ && value->kind == ExprKind::kConstant)) {
        out.push_back(value);
        continue;
      }
      GroupInfo& info = groups_[group];
      size_t i = 0;
      while (i < info.arguments.size() && !info.arguments[i].same_as(value)) ++i;
      if (i == info.arguments.size()) {
        info.params.push_back(var("p" + std::to_string(i), input->checked_type()));
        info.arguments.push_back(value);
      }
      out.push_back(info.params[i]);
    }
    return out;
  }

  // As Relay: Primitive is 1 when the group computes something (has a call).
  Expr make_function(uint32_t group, const Type& ret_type, const Expr& body) {
    bool has_call = false;
    post_order_visit(body, [&](const Expr& e) { has_call = has_call || e->kind == ExprKind::kCall; });
    GroupInfo info = std::move(groups_[group]);
    groups_.erase(group);
    std::vector<Type> param_types;
    for (const Var& p : info.params) {
      p->set_checked_type(p->type_annotation);
      param_types.push_back(p->type_annotation);
    }
    body->set_checked_type(ret_type);
    Function fn = function(std::move(info.params), body, ret_type, make_attrs({{"Primitive", int64_t{has_call}}}));
    fn->set_checked_type(func_type(std::move(param_types), ret_type));
    return call_function(fn, std::move(info.arguments));
  }

  const ForwardGraph& graph_;
  Partition partition_;
  bool link_params_;
  std::unordered_map<uint32_t, GroupInfo> groups_;
};

}  // namespace

Pass FuseOps(int fuse_opt_level, size_t max_function_args) {
  PassInfo info{"FuseOps", 0, {"InferType"}};
  return create_function_pass(info, [fuse_opt_level, max_function_args](Function fn, const IRModule&,
                                                                        const PassContext& ctx) {
    int opt_level = fuse_opt_level < 0 ? ctx.opt_level : fuse_opt_level;
    int64_t max_depth = ctx.get_config(kMaxDepthKey).as_int();
    if (max_depth < 0)
      throw Error(std::string(kMaxDepthKey) + " is " + std::to_string(max_depth) + " for FuseOps")
          .expected("the most ops one fused function may hold, 0 or more");
    ForwardGraph graph = ForwardGraph::build(fn, "FuseOps");
    auto depth = static_cast<uint32_t>(std::min<int64_t>(max_depth, UINT32_MAX));
    Partition groups = fusion::partition(graph, opt_level, depth, max_function_args);
    return FuseMutator(graph, std::move(groups), ctx.get_config(kLinkParamsKey).as_bool()).run(fn);
  });
}

}  // namespace weft

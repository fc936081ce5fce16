// Lifting the group calls' constant arguments out of main and putting them
// back (see group_constants.h).
#include "group_constants.h"

#include <algorithm>

#include "weft/functor.h"

namespace weft::build_detail {

namespace {

bool is_group_call(const CallNode& call) {
  auto* fn = call.op.as<FunctionNode>();
  return fn && is_group(*fn);
}

/// A call of `original`'s group with `args`, typed as `original`.
Call with_args(const Call& original, std::vector<Expr> args) {
  Call call = call_function(original->op, std::move(args));
  call->set_checked_type(original->checked_type());
  return call;
}

/// main with each constant argument of a group call replaced by a variable.
class ConstantLifter : public TypedExprMutator {
 public:
  ConstantLifter(std::unordered_map<const VarNode*, size_t>& entry_of, std::vector<Tensor>& tensors,
                 std::vector<size_t>& reads)
      : entry_of_(entry_of), tensors_(tensors), reads_(reads) {}

  /// The lifted call of each site, by the old site.
  std::unordered_map<const CallNode*, Call> sites;

 protected:
  Expr visit_call(const Call& c) override {
    if (!is_group_call(*c)) return TypedExprMutator::visit_call(c);
    std::vector<Expr> args;
    for (const Expr& a : c->args) args.push_back(a->kind == ExprKind::kConstant ? lifted(a) : visit(a));
    Call site = with_args(c, std::move(args));
    sites.emplace(c.get(), site);
    return site;
  }

 private:
  Var lifted(const Expr& constant) {
    auto [it, added] = var_of_.emplace(constant.get(), Var());
    if (added) {
      it->second = var("constant" + std::to_string(tensors_.size()), constant->checked_type());
      it->second->set_checked_type(constant->checked_type());
      entry_of_.emplace(it->second.get(), tensors_.size());
      tensors_.push_back(static_cast<const ConstantNode&>(*constant).data);
      reads_.push_back(0);
    }
    ++reads_[entry_of_.at(it->second.get())];
    return it->second;
  }

  std::unordered_map<const ExprNode*, Var> var_of_;
  std::unordered_map<const VarNode*, size_t>& entry_of_;
  std::vector<Tensor>& tensors_;
  std::vector<size_t>& reads_;
};

class ConstantRestorer : public TypedExprMutator {
 public:
  ConstantRestorer(const std::unordered_map<const VarNode*, size_t>& entry_of, const std::vector<Tensor>& tensors,
                   const std::unordered_map<const CallNode*, std::vector<bool>>& packed)
      : entry_of_(entry_of), tensors_(tensors), packed_(packed) {}

 protected:
  Expr visit_var(const Var& v) override {
    auto it = entry_of_.find(v.get());
    if (it == entry_of_.end()) return v;
    // Only a packed argument reads a constant that was let go, and those are dropped below.
    const Tensor& t = tensors_[it->second];
    if (!t.defined()) return v;
    Expr c = constant(t);
    c->set_checked_type(v->checked_type());
    return c;
  }

  Expr visit_call(const Call& c) override {
    auto packed = packed_.find(c.get());
    if (packed == packed_.end()) return TypedExprMutator::visit_call(c);
    std::vector<Expr> args;
    for (size_t i = 0; i < c->args.size(); ++i)
      if (i >= packed->second.size() || !packed->second[i]) args.push_back(visit(c->args[i]));
    return with_args(c, std::move(args));
  }

 private:
  const std::unordered_map<const VarNode*, size_t>& entry_of_;
  const std::vector<Tensor>& tensors_;
  const std::unordered_map<const CallNode*, std::vector<bool>>& packed_;
};

}  // namespace

GroupConstants::GroupConstants(Partition& partition) {
  ConstantLifter lifter(entry_of_, tensors_, unpacked_reads_);
  partition.main = downcast<FunctionNode>(lifter.mutate(partition.main));
  for (GroupPlan& group : partition.groups) group.site = lifter.sites.at(group.site.get());
}

std::vector<Tensor> GroupConstants::arguments(const Call& site) const {
  std::vector<Tensor> constants;
  for (const Expr& a : site->args) {
    auto it = a->kind == ExprKind::kVar ? entry_of_.find(static_cast<const VarNode*>(a.get())) : entry_of_.end();
    constants.push_back(it == entry_of_.end() ? Tensor() : tensors_[it->second]);
  }
  return constants;
}

void GroupConstants::packed(const Call& site, const std::vector<bool>& packed) {
  if (std::find(packed.begin(), packed.end(), true) == packed.end()) return;
  packed_.emplace(site.get(), packed);
  for (size_t i = 0; i < packed.size() && i < site->args.size(); ++i) {
    if (!packed[i]) continue;
    const size_t entry = entry_of_.at(static_cast<const VarNode*>(site->args[i].get()));
    if (--unpacked_reads_[entry] == 0) tensors_[entry] = Tensor();
  }
}

Function GroupConstants::restore(const Function& main) const {
  return downcast<FunctionNode>(ConstantRestorer(entry_of_, tensors_, packed_).mutate(main));
}

}  // namespace weft::build_detail

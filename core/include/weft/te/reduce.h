// Reductions: a commutative reducer (TVM's comm_reducer) folded over reduce
// axes. sum/max/min/prod are reducers of one value; argmax-style reductions
// combine tuples (index, value) with a reducer of several.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "weft/te/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

/// combine(lhs, rhs) = result, elementwise over tuples of values, with an
/// identity element: the accumulator starts at `identity`, and each step is
/// acc = result[lhs := acc, rhs := next source value].
class CommReducerNode : public Object {
 public:
  CommReducerNode(std::string name, std::vector<Var> lhs, std::vector<Var> rhs, std::vector<PrimExpr> result,
                  std::vector<PrimExpr> identity)
      : name(std::move(name)),
        lhs(std::move(lhs)),
        rhs(std::move(rhs)),
        result(std::move(result)),
        identity(std::move(identity)) {}
  const std::string name;
  const std::vector<Var> lhs, rhs;
  const std::vector<PrimExpr> result, identity;
};
using CommReducer = Ref<const CommReducerNode>;

using CombineFn = std::function<std::vector<PrimExpr>(const std::vector<Var>& lhs, const std::vector<Var>& rhs)>;

/// A reducer of identity.size() values; lhs and rhs take identity's dtypes.
/// Error when combine's results do not match them in number and dtype.
CommReducer comm_reducer(CombineFn combine, std::vector<PrimExpr> identity, std::string name = "reducer");
/// The reducer combining lhs and rhs (vars of identity's dtypes, one each per
/// value) into `result`: what comm_reducer builds once it has made the vars,
/// for callers that make them (the plugin boundary).
CommReducer comm_reducer_over(std::vector<Var> lhs, std::vector<Var> rhs, std::vector<PrimExpr> result,
                              std::vector<PrimExpr> identity, std::string name = "reducer");

/// Output `value_index` of `combiner` folded over `axis` of `source` where
/// `condition` holds. A compute's body is either reductions (all of one
/// combiner over one axis set) or free of them.
class ReduceNode : public PrimExprNode {
 public:
  ReduceNode(CommReducer combiner, std::vector<PrimExpr> source, std::vector<IterVar> axis, PrimExpr condition,
             int value_index)
      : PrimExprNode(PrimKind::kReduce, combiner->identity[static_cast<size_t>(value_index)].dtype()),
        combiner(std::move(combiner)),
        source(std::move(source)),
        axis(std::move(axis)),
        condition(std::move(condition)),
        value_index(value_index) {}
  const CommReducer combiner;
  const std::vector<PrimExpr> source;
  const std::vector<IterVar> axis;
  const PrimExpr condition;  // bool; true when there is none
  const int value_index;
};

/// One Reduce per output of `combiner` over `sources` (one per output).
std::vector<PrimExpr> reduce(const CommReducer& combiner, std::vector<PrimExpr> sources, std::vector<IterVar> axis,
                             PrimExpr condition = PrimExpr());
/// The sum / max / min / product of `source` over `axis` (TVM's te.sum,
/// te.max, te.min, and prod), starting from 0, lowest, max and 1.
PrimExpr sum(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = PrimExpr());
PrimExpr max(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = PrimExpr());
PrimExpr min(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = PrimExpr());
PrimExpr prod(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition = PrimExpr());

}  // namespace weft::te

#pragma GCC visibility pop

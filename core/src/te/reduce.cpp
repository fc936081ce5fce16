#include "weft/te/reduce.h"

namespace weft::te {
namespace {

/// `source` folded over `axis` with `op`, from identity(source's dtype).
PrimExpr reduce_one(const std::string& name, BinaryOp op, PrimExpr (*identity)(DataType), PrimExpr source,
                    std::vector<IterVar> axis, PrimExpr condition) {
  if (!source) throw Error("TE: " + name + " of an undefined source");
  CommReducer combiner = comm_reducer(
      [op](const std::vector<Var>& lhs, const std::vector<Var>& rhs) {
        return std::vector<PrimExpr>{binary(op, lhs[0], rhs[0])};
      },
      {identity(source.dtype())}, name);
  return reduce(combiner, {std::move(source)}, std::move(axis), std::move(condition))[0];
}

}  // namespace

CommReducer comm_reducer(CombineFn combine, std::vector<PrimExpr> identity, std::string name) {
  if (identity.empty()) throw Error("TE: reducer '" + name + "' has no values").expected("at least one identity element");
  std::vector<Var> lhs, rhs;
  for (size_t i = 0; i < identity.size(); ++i) {
    if (!identity[i]) throw Error("TE: reducer '" + name + "' has an undefined identity element");
    lhs.push_back(var("x" + std::to_string(i), identity[i].dtype()));
    rhs.push_back(var("y" + std::to_string(i), identity[i].dtype()));
  }
  std::vector<PrimExpr> result = combine(lhs, rhs);
  return comm_reducer_over(std::move(lhs), std::move(rhs), std::move(result), std::move(identity), std::move(name));
}

CommReducer comm_reducer_over(std::vector<Var> lhs, std::vector<Var> rhs, std::vector<PrimExpr> result,
                              std::vector<PrimExpr> identity, std::string name) {
  if (identity.empty()) throw Error("TE: reducer '" + name + "' has no values").expected("at least one identity element");
  if (lhs.size() != identity.size() || rhs.size() != identity.size()) {
    throw Error("TE: reducer '" + name + "' has " + std::to_string(lhs.size()) + " and " + std::to_string(rhs.size()) +
                " operands")
        .expected(std::to_string(identity.size()) + " each, one per identity element");
  }
  for (size_t i = 0; i < identity.size(); ++i) {
    if (!identity[i] || !lhs[i] || !rhs[i]) throw Error("TE: reducer '" + name + "' has an undefined value");
    if (lhs[i]->dtype != identity[i].dtype() || rhs[i]->dtype != identity[i].dtype()) {
      throw Error("TE: reducer '" + name + "' operand " + std::to_string(i) + " is " + lhs[i]->dtype.str() + " and " +
                  rhs[i]->dtype.str())
          .expected(identity[i].dtype().str() + ", the identity's dtype");
    }
  }
  if (result.size() != identity.size()) {
    throw Error("TE: reducer '" + name + "' combines into " + std::to_string(result.size()) + " values")
        .expected(std::to_string(identity.size()) + ", one per identity element");
  }
  for (size_t i = 0; i < result.size(); ++i) {
    if (!result[i] || result[i].dtype() != identity[i].dtype()) {
      throw Error("TE: reducer '" + name + "' value " + std::to_string(i) + " combines to " +
                  (result[i] ? result[i].dtype().str() : std::string("nothing")))
          .expected(identity[i].dtype().str() + ", the identity's dtype");
    }
  }
  return make_ref<CommReducerNode>(std::move(name), std::move(lhs), std::move(rhs), std::move(result),
                                   std::move(identity));
}

std::vector<PrimExpr> reduce(const CommReducer& combiner, std::vector<PrimExpr> sources, std::vector<IterVar> axis,
                             PrimExpr condition) {
  const std::string& name = combiner->name;
  if (sources.size() != combiner->identity.size()) {
    throw Error("TE: " + name + " of " + std::to_string(sources.size()) + " sources")
        .expected(std::to_string(combiner->identity.size()) + ", one per reducer value");
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i]) throw Error("TE: " + name + " of an undefined source");
    sources[i] = cast(combiner->identity[i].dtype(), sources[i]);
  }
  if (axis.empty()) throw Error("TE: " + name + " over no axes").expected("at least one reduce axis");
  for (const IterVar& iv : axis) {
    if (!iv || iv->kind != IterKind::kReduce) {
      throw Error("TE: " + name + " over an axis that is not a reduce axis").expected("axes from reduce_axis()");
    }
  }
  if (!condition) condition = bool_imm(true);
  if (!condition.dtype().is_bool()) throw Error("TE: " + name + " condition of dtype " + condition.dtype().str()).expected("bool");
  std::vector<PrimExpr> out;
  for (size_t i = 0; i < sources.size(); ++i) {
    out.push_back(make_ref<ReduceNode>(combiner, sources, axis, condition, static_cast<int>(i)));
  }
  return out;
}

PrimExpr sum(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  return reduce_one("sum", BinaryOp::kAdd, [](DataType dt) { return make_const(dt, 0); }, std::move(source),
                    std::move(axis), std::move(condition));
}
PrimExpr max(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  return reduce_one("max", BinaryOp::kMax, min_value, std::move(source), std::move(axis), std::move(condition));
}
PrimExpr min(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  return reduce_one("min", BinaryOp::kMin, max_value, std::move(source), std::move(axis), std::move(condition));
}
PrimExpr prod(PrimExpr source, std::vector<IterVar> axis, PrimExpr condition) {
  return reduce_one("prod", BinaryOp::kMul, [](DataType dt) { return make_const(dt, 1); }, std::move(source),
                    std::move(axis), std::move(condition));
}

}  // namespace weft::te

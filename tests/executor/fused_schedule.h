// The lifetimes of a fused program's intermediates, read off its main as the
// graph executor runs it: each call of a Primitive function, in post-order, is
// one step; its results are the intermediates (sizes from their checked
// types); the program's results live to the end.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "weft/functor.h"
#include "weft/memory_plan.h"
#include "weft/module.h"
#include "weft/pass.h"
#include "weft/printer.h"
#include "weft/type.h"

namespace weft::testing {

inline size_t tensor_bytes(const Type& type) {
  auto t = downcast<TensorTypeNode>(type);
  if (!t || !t->is_static()) throw std::runtime_error("not a static tensor type: " + type_to_text(type));
  return static_cast<size_t>(t->numel()) * t->dtype.bytes();
}

/// One PlannedValue per tensor a Primitive call of `main` returns, on device 0.
inline std::vector<PlannedValue> fused_schedule(const Function& main) {
  std::vector<PlannedValue> values;
  std::unordered_map<const ExprNode*, std::vector<size_t>> values_of;  // per node: the values it stands for
  int64_t step = 0;
  post_order_visit(main->body, [&](const Expr& e) {
    if (e->kind == ExprKind::kTupleGetItem) {
      auto& item = static_cast<const TupleGetItemNode&>(*e);
      if (auto it = values_of.find(item.tuple.get()); it != values_of.end())
        values_of[e.get()] = {it->second.at(item.index)};
      return;
    }
    if (e->kind == ExprKind::kTuple) {
      std::vector<size_t>& mine = values_of[e.get()];
      for (const Expr& f : static_cast<const TupleNode&>(*e).fields) {
        if (auto it = values_of.find(f.get()); it != values_of.end()) {
          if (it->second.size() != 1) throw std::runtime_error("nested tuple in " + to_text(e));
          mine.push_back(it->second[0]);
        }
      }
      return;
    }
    if (e->kind == ExprKind::kLet || e->kind == ExprKind::kIf) throw std::runtime_error("main is not dataflow");
    auto* call = e.as<CallNode>();
    if (!call || call->op->kind != ExprKind::kFunction) return;
    if (!has_attr(downcast<FunctionNode>(call->op), "Primitive"))
      throw std::runtime_error("a call of a non-Primitive function");
    for (const Expr& arg : call->args)
      if (auto it = values_of.find(arg.get()); it != values_of.end())
        for (size_t v : it->second) values[v].last_use = std::max(values[v].last_use, step);
    std::vector<size_t>& results = values_of[e.get()];
    std::vector<Type> types = {e->checked_type()};
    if (auto tuple = downcast<TupleTypeNode>(e->checked_type())) types = tuple->fields;
    for (const Type& t : types) {
      PlannedValue v;
      v.nbytes = tensor_bytes(t);
      v.defined_at = v.last_use = step;
      results.push_back(values.size());
      values.push_back(v);
    }
    ++step;
  });
  if (auto it = values_of.find(main->body.get()); it != values_of.end())
    for (size_t v : it->second) values[v].last_use = PlannedValue::kLiveToEnd;
  return values;
}

}  // namespace weft::testing

// The -O3 pipeline as `weft opt -O3` runs it, for the suites that check what it
// keeps (outputs) and what it leaves (structure) on whole programs.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "weft/expr.h"
#include "weft/interpreter.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/pipeline.h"

namespace weft::testing {

/// `mod` through optimization_pipeline at opt_level 3, well-formedness checked
/// after every pass; `more` instruments (a timer) run after that check.
inline IRModule optimize_o3(const IRModule& mod, std::vector<std::shared_ptr<PassInstrument>> more = {},
                            std::vector<std::string> disabled = {}) {
  PassContext ctx;
  ctx.opt_level = 3;
  ctx.disabled_passes = std::move(disabled);
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  for (auto& i : more) ctx.instruments.push_back(std::move(i));
  return optimization_pipeline()(mod, ctx);
}

/// let %v0 = value(0, start); let %v1 = value(1, %v0); ... %v<bindings-1>:
/// a let chain built without recursion on its length.
inline Expr let_chain(const Expr& start, int bindings, const std::function<Expr(int, const Expr&)>& value) {
  std::vector<Var> vars;
  std::vector<Expr> values;
  Expr prev = start;
  for (int i = 0; i < bindings; ++i) {
    vars.push_back(var("v" + std::to_string(i)));
    values.push_back(value(i, prev));
    prev = vars.back();
  }
  Expr body = prev;
  for (size_t i = vars.size(); i-- > 0;) body = let(vars[i], values[i], body);
  return body;
}

/// `params` as bind_params takes them.
inline std::map<std::string, Tensor> param_map(const std::vector<std::pair<std::string, Tensor>>& params) {
  return {params.begin(), params.end()};
}

/// Expects every output tensor of `got` to match `want` within `rtol` of each
/// element, or of the tensor's largest magnitude times `rtol` for elements near
/// zero (a folded product rounds differently, by a few ulps of the larger terms).
inline void expect_same_values(const Value& got, const Value& want, double rtol = 1e-5) {
  std::vector<Tensor> g = got.flatten(), w = want.flatten();
  ASSERT_EQ(g.size(), w.size());
  for (size_t o = 0; o < w.size(); ++o) {
    ASSERT_EQ(g[o].shape(), w[o].shape()) << "output " << o;
    ASSERT_EQ(g[o].dtype(), w[o].dtype()) << "output " << o;
    double largest = 0;
    for (int64_t i = 0; i < w[o].numel(); ++i) largest = std::max(largest, std::fabs(w[o].element_as_double(i)));
    int reported = 0;
    for (int64_t i = 0; i < w[o].numel(); ++i) {
      double a = g[o].element_as_double(i), e = w[o].element_as_double(i);
      bool ok = (std::isnan(a) && std::isnan(e)) || std::fabs(a - e) <= rtol * std::max(std::fabs(e), largest * 1e-2);
      if (!ok && reported++ < 5) ADD_FAILURE() << "output " << o << " element " << i << ": got " << a << ", want " << e;
    }
  }
}

}  // namespace weft::testing

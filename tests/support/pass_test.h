// Shared helpers for text-in/text-out pass tests: parse and type a program,
// run a pass under the well-formedness instrument, compare with an expected
// program, and check that the pass kept what main computes on random inputs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "weft/functor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft::testing {

/// The Relay program `text`, typed.
inline IRModule typed_program(const std::string& text) { return infer_type(parse_module(text)); }

/// `pass` on `mod` with the well-formedness check after it.
inline IRModule run_checked(const Pass& pass, const IRModule& mod) {
  PassContext ctx;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  return pass(mod, ctx);
}

/// Expects `got` to be the program `want_text` as InferType leaves it.
inline void expect_program(const IRModule& got, const std::string& want_text) {
  IRModule want = typed_program(want_text);
  EXPECT_TRUE(structural_equal(got, want)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(want);
}

/// The calls of op `op_name` in `e`, in post order.
inline std::vector<const CallNode*> calls_of(const Expr& e, const std::string& op_name) {
  std::vector<const CallNode*> out;
  post_order_visit(e, [&](const Expr& x) {
    auto* c = x.as<CallNode>();
    if (c && c->op.as<OpNode>() && c->op.as<OpNode>()->name() == op_name) out.push_back(c);
  });
  return out;
}

/// Expects main of `before` and of `after` to give the same outputs, within
/// rtol (and an atol of 1e-6, for outputs near zero), on inputs drawn uniformly from [low, high) in each
/// parameter's type (float32 or float64 tensors).
inline void expect_same_outputs(const IRModule& before, const IRModule& after, double rtol = 1e-5,
                                double low = 0.25, double high = 1.25, unsigned seed = 7) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> draw(low, high);
  std::vector<Value> inputs;
  for (const Var& p : before.main()->params) {
    const auto* t = p->checked_type().as<TensorTypeNode>();
    ASSERT_NE(t, nullptr) << "parameter %" << p->name_hint << " is not a tensor";
    Tensor x = Tensor::empty(t->shape, t->dtype);
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (t->dtype == DataType::Float(64)) x.data_as<double>()[i] = draw(rng);
      else x.data_as<float>()[i] = static_cast<float>(draw(rng));
    }
    inputs.emplace_back(x);
  }
  std::vector<Tensor> want = Interpreter(before).run_main(inputs).flatten();
  std::vector<Tensor> got = Interpreter(after).run_main(inputs).flatten();
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    ASSERT_EQ(got[o].shape(), want[o].shape());
    int reported = 0;
    for (int64_t i = 0; i < want[o].numel(); ++i) {
      double a = got[o].element_as_double(i), e = want[o].element_as_double(i);
      if (std::fabs(a - e) > 1e-6 + rtol * std::fabs(e) && reported++ < 5)
        ADD_FAILURE() << "output " << o << ", element " << i << ": got " << a << ", expected " << e;
    }
  }
}

/// `pass` on main(params) { in_body }: expects main(params) { want_body } and
/// the same outputs as before.
inline void check_main(const Pass& pass, const std::string& params, const std::string& in_body,
                       const std::string& want_body) {
  IRModule in = typed_program("def @main(" + params + ") {\n  " + in_body + "\n}\n");
  IRModule out = run_checked(pass, in);
  expect_program(out, "def @main(" + params + ") {\n  " + want_body + "\n}\n");
  expect_same_outputs(in, out);
}

/// What a pass that needs types does with the untyped program `untyped`: run
/// alone, a weft::Error naming it; in a sequence at `opt_level`, its required
/// InferType runs first, so it works (the result is returned); and the
/// ill-typed program `ill_typed` is InferType's error, whose text is returned.
inline std::pair<IRModule, std::string> check_needs_types(const Pass& pass, const std::string& untyped,
                                                          const std::string& ill_typed, int opt_level = 0) {
  try {
    pass(parse_module(untyped));
    ADD_FAILURE() << "an untyped program passed " << pass.info().name;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(pass.info().name + " needs a typed program (run InferType first)"),
              std::string::npos)
        << e.what();
  }
  PassContext ctx;
  ctx.opt_level = opt_level;
  IRModule typed_and_run = sequential({pass})(parse_module(untyped), ctx);
  try {
    sequential({pass})(parse_module(ill_typed), ctx);
    ADD_FAILURE() << "an ill-typed program passed " << pass.info().name;
  } catch (const Error& e) {
    return {typed_and_run, e.what()};
  }
  return {typed_and_run, ""};
}

}  // namespace weft::testing

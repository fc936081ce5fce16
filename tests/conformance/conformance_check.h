// One conformance case: a program built for one target (RunConfig{targets:
// [T], fallback: warn}), run through the graph executor, and compared with
// the reference kernels on the interpreter by normalized error,
//   max |got - want| / max(1, max |want|),
// against a per-dtype tolerance (conformance_tolerance). On `ref` the result
// must also be bit-identical to the interpreter on the very program the
// build made (same kernels, same graph).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "targets_under_test.h"
#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/op.h"
#include "weft/testing/gtest_helpers.h"

namespace weft::testing {

/// What a case runs at: a single op, or a whole model (whose error compounds
/// over its layers).
enum class CaseKind { kOp, kModel };

/// The largest normalized error a target may show for `dtype`: integers and
/// bool exact; float16 1e-2, bfloat16 2e-2 (a few units of their 11- and 8-bit
/// mantissas); float32 1e-5 for one op, 1e-4 for a model; float64 1e-9 (the
/// oracle is the unoptimized program, and -O3's rewrites may cancel: batch_norm
/// as x * scale + shift is 2.2e-10 off on nn/norm.json's axis_3_eps_float64).
inline double conformance_tolerance(DataType dtype, CaseKind kind) {
  if (!dtype.is_float()) return 0;
  if (dtype == DataType::Float(16)) return 1e-2;
  if (dtype == DataType::BFloat(16)) return 2e-2;
  if (dtype == DataType::Float(64)) return 1e-9;
  return kind == CaseKind::kOp ? 1e-5 : 1e-4;
}

/// max |got - want| / max(1, max |want|) over the elements; a NaN where
/// `want` has one matches, any other mismatch of NaN or infinity is infinite.
inline double normalized_error(const Tensor& got, const Tensor& want) {
  double largest = 0, worst = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double a = got.element_as_double(i), e = want.element_as_double(i);
    if (std::isfinite(e)) largest = std::max(largest, std::fabs(e));
    if (std::isnan(a) || std::isnan(e) || std::isinf(a) || std::isinf(e)) {
      if (!(std::isnan(a) && std::isnan(e)) && a != e) worst = std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::fabs(a - e));
  }
  return worst / std::max(1.0, largest);
}

/// Success when `got` has `want`'s structure, shapes and dtypes and each
/// output is within its dtype's tolerance; the failure names the output, its
/// dtype, the error and the tolerance.
inline ::testing::AssertionResult conformant(const Value& got, const Value& want, CaseKind kind) {
  std::vector<Tensor> g = got.flatten(), w = want.flatten();
  if (got.is_tuple() != want.is_tuple() || g.size() != w.size())
    return ::testing::AssertionFailure() << "got " << g.size() << " outputs" << (got.is_tuple() ? " (a tuple)" : "")
                                         << ", want " << w.size() << (want.is_tuple() ? " (a tuple)" : "");
  for (size_t o = 0; o < w.size(); ++o) {
    if (g[o].shape() != w[o].shape() || g[o].dtype() != w[o].dtype())
      return ::testing::AssertionFailure() << "output " << o << " is " << g[o].dtype().str() << " of "
                                           << ::testing::PrintToString(g[o].shape()) << ", want "
                                           << w[o].dtype().str() << " of " << ::testing::PrintToString(w[o].shape());
    const double error = normalized_error(g[o], w[o]), tolerance = conformance_tolerance(w[o].dtype(), kind);
    if (!(error <= tolerance))
      return ::testing::AssertionFailure() << "output " << o << " (" << w[o].dtype().str() << "): normalized error "
                                           << error << " over the tolerance " << tolerance;
  }
  return ::testing::AssertionSuccess();
}

/// Success when every output tensor of `got` has `want`'s bytes.
inline ::testing::AssertionResult bit_identical(const Value& got, const Value& want) {
  std::vector<Tensor> g = got.flatten(), w = want.flatten();
  if (g.size() != w.size())
    return ::testing::AssertionFailure() << "got " << g.size() << " outputs, want " << w.size();
  for (size_t o = 0; o < w.size(); ++o)
    if (::testing::AssertionResult same = tensors_equal(g[o], w[o]); !same)
      return ::testing::AssertionFailure() << "output " << o << " differs from the interpreter's bits: "
                                           << same.message();
  return ::testing::AssertionSuccess();
}

/// The targets that generate code from TE: each must run every call the TE
/// layer describes.
inline bool runs_every_te_op(const std::string& target) {
  return target == "loops" || target == "llvm" || target == "vulkan";
}

/// Builds `mod` for `target` and runs it on `args` through the graph
/// executor; expects the result within tolerance of `want` (the interpreter on
/// the unoptimized program) and, on ref, bit-identical to the interpreter on
/// the built program; on the targets that generate code from TE, every op
/// with a TE compute must have run there. Records how many of the built program's ops ran on the
/// target (ops_on_target of ops_total) and how many fell back to ref.
/// Skips, with create()'s message, a target that cannot run on this machine.
inline void check_on_target(const std::string& target, const IRModule& mod, const std::vector<Value>& args,
                            const Value& want, CaseKind kind) {
  if (std::optional<std::string> why = target_unavailable(target))
    GTEST_SKIP() << "target " << target << " is not available here: " << *why;
  // The fallback warning (stderr) would repeat for most cases of a target
  // that runs few ops; it is kept for the failure message instead.
  ::testing::internal::CaptureStderr();
  std::shared_ptr<const CompiledModule> compiled;
  try {
    compiled = build(mod, conformance_config(target));
  } catch (...) {
    ::testing::internal::GetCapturedStderr();
    throw;
  }
  SCOPED_TRACE("build's warnings: " + ::testing::internal::GetCapturedStderr());
  SCOPED_TRACE("partition:\n" + describe_partition(*compiled));

  size_t ops_total = 0, ops_on_target = 0;
  for (const CompiledGroup& group : compiled->groups) {
    ops_total += group.ops.size();
    if (group.target == target) ops_on_target += group.ops.size();
  }
  size_t fallback_ops = 0;
  for (const FallbackOp& op : compiled->fallback_ops) fallback_ops += op.count;
  ::testing::Test::RecordProperty("target", target);
  ::testing::Test::RecordProperty("ops_on_target", static_cast<int>(ops_on_target));
  ::testing::Test::RecordProperty("ops_total", static_cast<int>(ops_total));
  ::testing::Test::RecordProperty("fallback_ops", static_cast<int>(fallback_ops));

  if (runs_every_te_op(target)) {
    // As with `fallback: error` for these ops: every op with a TE compute runs there.
    for (const CompiledGroup& group : compiled->groups) {
      if (group.target == target) continue;
      for (const std::string& op : group.ops)
        EXPECT_FALSE(OpRegistry::global().get(op).te_compute) << op << " has a TE compute but ran on " << group.target;
    }
  }
  Value got = GraphExecutor(compiled).run(args);
  EXPECT_TRUE(conformant(got, want, kind));
  if (target == kReferenceTarget) {
    EXPECT_TRUE(bit_identical(got, Interpreter(IRModule::from_function(compiled->main)).run_main(args)));
  }
}

}  // namespace weft::testing

// Tests of the installed weft's `add` and `exp` ops, as a plugin author would
// write them with weft::testing.
#include <gtest/gtest.h>

#include <cmath>

#include <weft/interpreter.h>
#include <weft/testing/count_ops.h>
#include <weft/testing/gtest_helpers.h>
#include <weft/testing/passes.h>
#include <weft/testing/random_data.h>

namespace wt = weft::testing;

TEST(InstalledOps, AddTypesAndRuns) {
  const weft::Var x = weft::var("x", weft::tensor_type({2, 3}));
  const weft::Expr typed = wt::run_infer_type(weft::call("add", {x, x}));
  EXPECT_EQ(weft::type_to_text(typed->checked_type()), "Tensor[(2, 3), float32]");

  const weft::Tensor in = wt::rand(weft::DataType::Float(32), {2, 3}, 0);
  const weft::Function fn = weft::function({x}, weft::call("exp", {x}));
  const weft::Tensor out = weft::Interpreter(weft::IRModule::from_function(fn)).run_main({in}).tensor();
  weft::Tensor expected = weft::Tensor::empty({2, 3}, weft::DataType::Float(32));
  for (int i = 0; i < 6; ++i) expected.data_as<float>()[i] = std::exp(in.data_as<float>()[i]);
  EXPECT_TENSOR_NEAR(out, expected, 1e-6, 0.0);
  EXPECT_EQ(wt::count_ops(fn).at("exp"), 1);
}

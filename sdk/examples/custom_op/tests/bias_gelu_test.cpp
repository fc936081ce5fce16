// acme.bias_gelu's tests, written with weft::testing against the installed
// weft: values worked by hand (gelu(v) = 0.5 v (1 + erf(v / sqrt(2))),
// computed in double precision), the type relation's errors, the gradient
// against central differences in both AD modes, and the TE compute on the
// `loops` target against the reference kernel.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <weft/build.h>
#include <weft/graph_executor.h>
#include <weft/interpreter.h>
#include <weft/passes.h>
#include <weft/testing/check_grad.h>
#include <weft/testing/gtest_helpers.h>
#include <weft/testing/random_data.h>
#include <weft/text.h>

namespace {

using namespace weft;
namespace wt = weft::testing;

Tensor f32(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  for (size_t i = 0; i < values.size(); ++i) t.data_as<float>()[i] = values[i];
  return t;
}

IRModule program(const std::string& body, const std::string& params) {
  return infer_type(parse_module("#[version = \"0.0.5\"]\ndef @main(" + params + ") { " + body + " }"));
}

TEST(BiasGelu, MatchesValuesWorkedByHand) {
  const std::string params = "%x: Tensor[(2, 2), float32], %b: Tensor[(2), float32]";
  const Tensor x = f32({2, 2}, {0.5f, -0.5f, 1.0f, -2.0f});
  // Along axis 1 the bias [0.5, 0.5] gives v = [[1, 0], [1.5, -1.5]].
  Value along_columns = Interpreter(program("acme.bias_gelu(%x, %b)", params)).run_main({x, f32({2}, {0.5f, 0.5f})});
  EXPECT_TENSOR_NEAR(along_columns.tensor(),
                     f32({2, 2}, {0.8413447460685429f, 0.0f, 1.399789198096713f, -0.10021080190328713f}), 1e-6, 1e-7);
  // Along axis 0 the bias [0.5, 1.5] gives v = [[1, 0], [2.5, -0.5]].
  Value along_rows =
      Interpreter(program("acme.bias_gelu(%x, %b, axis=0)", params)).run_main({x, f32({2}, {0.5f, 1.5f})});
  EXPECT_TENSOR_NEAR(along_rows.tensor(),
                     f32({2, 2}, {0.8413447460685429f, 0.0f, 2.4844758366855597f, -0.15426876936299344f}), 1e-6, 1e-7);
}

TEST(BiasGelu, ABiasOfTheWrongLengthIsATypeErrorNamingTheTypeExpected) {
  try {
    program("acme.bias_gelu(%x, %b)", "%x: Tensor[(2, 5), float32], %b: Tensor[(3), float32]");
    FAIL() << "a bias of 3 for 5 channels type-checked";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bias must be Tensor[(5), float32]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(program("acme.bias_gelu(%x, %b, axis=2)", "%x: Tensor[(2, 5), float32], %b: Tensor[(5), float32]"),
               Error);
}

TEST(BiasGelu, GradientMatchesCentralDifferencesInBothModes) {
  const IRModule mod = program("acme.bias_gelu(%x, %b, axis=-1)", "%x: Tensor[(2, 3), float64], %b: Tensor[(3), float64]");
  for (GradientMode mode : {GradientMode::kFirstOrder, GradientMode::kHigherOrder}) {
    wt::CheckGradOptions options;
    options.mode = mode;
    options.mean = 0.3;   // around the curve's bend
    options.scale = 1.0;
    EXPECT_TRUE(wt::check_grad(mod.main(), {}, {}, options));
  }
}

TEST(BiasGelu, ItsTeComputeRunsOnTheLoopsTargetAsTheReferenceKernel) {
  const IRModule mod = program("acme.bias_gelu(%x, %b, axis=1)", "%x: Tensor[(2, 3, 4), float32], %b: Tensor[(3), float32]");
  const std::vector<Value> args = {wt::rand(DataType::Float(32), {2, 3, 4}, 1),
                                   wt::rand(DataType::Float(32), {3}, 2)};
  RunConfig config;
  config.targets = {"loops"};
  config.fallback = FallbackPolicy::kError;  // every op on loops, or the build fails
  Value got = GraphExecutor(build(mod, config)).run(args);
  EXPECT_TENSOR_NEAR(got.tensor(), Interpreter(mod).run_main(args).tensor(), 1e-5, 1e-6);
}

}  // namespace

// SimplifyInference: nn.batch_norm, nn.dropout, nn.instance_norm,
// nn.layer_norm, nn.group_norm and nn.l2_normalize become the reference's
// arithmetic (TVM v0.19 simplify_inference.cc), through the ops' own
// "simplify_inference" rewrites. Each expected program is written from the
// reference's formulas; each result also computes what the original did on
// the interpreter (its ops' reference kernels against the arithmetic).
#include <gmock/gmock.h>

#include <string>
#include <vector>

#include "small_stack.h"
#include "support/pass_test.h"

namespace weft {
namespace {

using ::testing::HasSubstr;
using testing::expect_program;
using testing::expect_same_outputs;
using testing::run_checked;
using testing::typed_program;

std::string shape_text(int ndim, int extent) {
  std::string s;
  for (int i = 0; i < ndim; ++i) s += (i ? ", " : "") + std::to_string(extent);
  return "Tensor[(" + s + "), float32]";
}

std::string bool_text(bool b) { return b ? "True" : "False"; }

// `bias` made to broadcast along `axis` of an ndim-D tensor, as
// ExpandBiasToMatchAxis.
std::string expanded(const std::string& bias, int ndim, int axis) {
  int trailing = ndim - axis - 1;
  return trailing > 0 ? "expand_dims(" + bias + ", axis=1, num_newaxis=" + std::to_string(trailing) + ")" : bias;
}

// Runs SimplifyInference on `in_text`, expects `want_text` and the same outputs.
void check(const std::string& in_text, const std::string& want_text) {
  IRModule in = typed_program(in_text);
  IRModule out = run_checked(SimplifyInference(), in);
  expect_program(out, want_text);
  expect_same_outputs(in, out);
}

const std::string kBnParams = "%gamma: Tensor[(10), float32], %beta: Tensor[(10), float32], "
                              "%moving_mean: Tensor[(10), float32], %moving_var: Tensor[(10), float32]";

// The reference's test_simplify_batchnorm: `steps` times y = dropout(bn(y + 1))[0],
// against x * scale + shift written out.
void check_batch_norm_chain(int ndim, int axis, int steps) {
  SCOPED_TRACE("ndim " + std::to_string(ndim) + ", axis " + std::to_string(axis) + ", steps " + std::to_string(steps));
  std::string head = "def @main(%x: " + shape_text(ndim, 10) + ", " + kBnParams + ") {\n";
  std::string in = head, want = head, y = "%x", prev = "%x";
  auto bind = [&in, id = 0](const std::string& value) mutable {
    std::string name = "%" + std::to_string(id++);
    in += "  " + name + " = " + value + ";\n";
    return name;
  };
  for (int i = 0; i < steps; ++i) {
    std::string a = bind("add(" + prev + ", 1f)");
    std::string b = bind("nn.batch_norm(" + a + ", %gamma, %beta, %moving_mean, %moving_var, axis=" +
                         std::to_string(axis) + ", epsilon=0.01f)");
    prev = bind("nn.dropout(" + b + ".0)") + ".0";
    std::string scale = "multiply(divide(1f, sqrt(add(%moving_var, 0.01f))), %gamma)";
    std::string shift = "add(multiply(negative(%moving_mean), " + scale + "), %beta)";
    y = "add(multiply(add(" + y + ", 1f), " + expanded(scale, ndim, axis) + "), " + expanded(shift, ndim, axis) + ")";
  }
  in += "  " + prev + "\n}\n";
  want += "  " + y + "\n}\n";
  check(in, want);
}

TEST(SimplifyInference, BatchNormAndDropoutChainsBecomeArithmetic) {
  check_batch_norm_chain(2, 1, 1);
  check_batch_norm_chain(4, 1, 1);
  check_batch_norm_chain(4, 0, 3);
}

TEST(SimplifyInference, BatchNormFlagsAndTheLastAxis) {
  for (bool center : {true, false}) {
    for (bool scale : {true, false}) {
      SCOPED_TRACE("center " + bool_text(center) + ", scale " + bool_text(scale));
      std::string head = "def @main(%x: Tensor[(2, 3, 10), float32], " + kBnParams + ") {\n";
      std::string in = head + "  %0 = nn.batch_norm(%x, %gamma, %beta, %moving_mean, %moving_var, axis=-1, "
                              "epsilon=0.001f, center=" + bool_text(center) + ", scale=" + bool_text(scale) +
                       ");\n  %0.0\n}\n";
      std::string s = "divide(1f, sqrt(add(%moving_var, 0.001f)))";
      if (scale) s = "multiply(" + s + ", %gamma)";
      std::string shift = "multiply(negative(%moving_mean), " + s + ")";
      if (center) shift = "add(" + shift + ", %beta)";
      // Axis -1 is the last: no expand_dims.
      check(in, head + "  add(multiply(%x, " + s + "), " + shift + ")\n}\n");
    }
  }
}

TEST(SimplifyInference, BatchNormStatisticsStayOnTheCall) {
  // Only the projection [0] is rewritten, as in the reference; the moving
  // statistics keep reading the batch_norm call.
  std::string head = "def @main(%x: Tensor[(4, 10), float32], " + kBnParams + ") {\n";
  std::string bn = "nn.batch_norm(%x, %gamma, %beta, %moving_mean, %moving_var)";
  std::string s = "multiply(divide(1f, sqrt(add(%moving_var, 1e-05f))), %gamma)";
  std::string out0 = "add(multiply(%x, " + s + "), add(multiply(negative(%moving_mean), " + s + "), %beta))";
  check(head + "  %0 = " + bn + ";\n  (%0.0, %0.1, %0.2)\n}\n",
        head + "  %0 = " + bn + ";\n  (" + out0 + ", %0.1, %0.2)\n}\n");
}

TEST(SimplifyInference, DropoutIsItsData) {
  check("def @main(%x: Tensor[(3, 4), float32]) {\n  %0 = nn.dropout(%x, rate=0.7f);\n  nn.relu(%0.0)\n}\n",
        "def @main(%x: Tensor[(3, 4), float32]) {\n  nn.relu(%x)\n}\n");
}

// The normalizations that take their statistics from the data: mean and
// (biased) variance over `reduced`, then gamma and beta along `axis`.
std::string normalized(const std::string& x, const std::string& reduced, const std::string& eps) {
  std::string over = "axis=" + reduced + ", keepdims=True";
  std::string mean = "mean(" + x + ", " + over + ")";
  return "divide(subtract(" + x + ", " + mean + "), sqrt(add(variance(" + x + ", " + mean + ", " + over + "), " +
         eps + ")))";
}

std::string scaled_shifted(std::string out, int ndim, int axis, bool center, bool scale) {
  if (scale) out = "multiply(" + out + ", " + expanded("%gamma", ndim, axis) + ")";
  if (center) out = "add(" + out + ", " + expanded("%beta", ndim, axis) + ")";
  return out;
}

struct NormCase {
  std::string op;         // the call's op and its non-flag attrs
  std::string shape;      // data's type
  std::string channels;   // gamma's and beta's type
  int ndim, axis;         // axis as an index
  std::string x;          // the normalized data in the expected program
  std::string reduced;    // the axes mean and variance run over
  std::string back;       // how the normalized data returns to data's shape ("" if it is)
};

void check_norm(const NormCase& c) {
  for (bool center : {true, false}) {
    for (bool scale : {true, false}) {
      SCOPED_TRACE(c.op + ", center " + bool_text(center) + ", scale " + bool_text(scale));
      std::string head = "def @main(%x: " + c.shape + ", %gamma: " + c.channels + ", %beta: " + c.channels + ") {\n";
      std::string in = head + "  " + c.op + ", epsilon=0.01f, center=" + bool_text(center) +
                       ", scale=" + bool_text(scale) + ")\n}\n";
      std::string out = normalized(c.x, c.reduced, "0.01f");
      if (!c.back.empty()) out = "reshape(" + out + ", newshape=" + c.back + ")";
      check(in, head + "  " + scaled_shifted(out, c.ndim, c.axis, center, scale) + "\n}\n");
    }
  }
}

TEST(SimplifyInference, InstanceNormReducesAllButBatchAndChannel) {
  check_norm({"nn.instance_norm(%x, %gamma, %beta", "Tensor[(2, 3, 4, 5), float32]", "Tensor[(3), float32]", 4, 1,
              "%x", "[2, 3]", ""});
  // Channels last: the reduced axes skip it.
  check_norm({"nn.instance_norm(%x, %gamma, %beta, axis=3", "Tensor[(2, 4, 5, 3), float32]", "Tensor[(3), float32]",
              4, 3, "%x", "[1, 2]", ""});
}

TEST(SimplifyInference, LayerNormReducesItsAxisAsGiven) {
  check_norm({"nn.layer_norm(%x, %gamma, %beta", "Tensor[(2, 3, 6), float32]", "Tensor[(6), float32]", 3, 2, "%x",
              "[-1]", ""});
  check_norm({"nn.layer_norm(%x, %gamma, %beta, axis=1", "Tensor[(2, 6, 3), float32]", "Tensor[(6), float32]", 3, 1,
              "%x", "[1]", ""});
}

TEST(SimplifyInference, GroupNormReducesEachGroupOnASplitView) {
  // (2, 6, 4, 5) with 3 groups: (2, 3, 2, 4, 5), reduced over the in-group
  // channels and everything after.
  check_norm({"nn.group_norm(%x, %gamma, %beta, num_groups=3", "Tensor[(2, 6, 4, 5), float32]",
              "Tensor[(6), float32]", 4, 1, "reshape(%x, newshape=[2, 3, 2, 4, 5])", "[2, 3, 4]", "[2, 6, 4, 5]"});
  check_norm({"nn.group_norm(%x, %gamma, %beta, num_groups=2, axis=2", "Tensor[(2, 3, 4), float32]",
              "Tensor[(4), float32]", 3, 2, "reshape(%x, newshape=[2, 3, 2, 2])", "[3]", "[2, 3, 4]"});
}

TEST(SimplifyInference, L2NormalizeDividesByTheFlooredNorm) {
  const std::string head = "def @main(%x: Tensor[(2, 3, 4), float32]) {\n";
  check(head + "  nn.l2_normalize(%x, eps=0.001f, axis=[1])\n}\n",
        head + "  divide(%x, sqrt(maximum(sum(multiply(%x, %x), axis=[1], keepdims=True), 0.001f)))\n}\n");
  check(head + "  nn.l2_normalize(%x, eps=1e-10f, axis=[0, 2])\n}\n",
        head + "  divide(%x, sqrt(maximum(sum(multiply(%x, %x), axis=[0, 2], keepdims=True), 1e-10f)))\n}\n");
  // No axis: every axis.
  check(head + "  nn.l2_normalize(%x, eps=0.001f)\n}\n",
        head + "  divide(%x, sqrt(maximum(sum(multiply(%x, %x), keepdims=True), 0.001f)))\n}\n");
}

TEST(SimplifyInference, OtherOpsAndFunctionsStayAsTheyAre) {
  IRModule in = typed_program("def @main(%x: Tensor[(2, 3), float32]) {\n  nn.softmax(nn.relu(%x))\n}\n");
  IRModule out = run_checked(SimplifyInference(), in);
  EXPECT_TRUE(out.main().same_as(in.main()));
}

TEST(SimplifyInference, AnUntypedProgramIsAnErrorNamingThePass) {
  auto [simplified, ill_typed_error] = testing::check_needs_types(
      SimplifyInference(), "def @main(%x: Tensor[(3, 4), float32]) {\n  %0 = nn.dropout(%x);\n  %0.0\n}\n",
      "def @main(%x: Tensor[(3, 4), float32], %g: Tensor[(5), float32]) {\n"
      "  %0 = nn.batch_norm(%x, %g, %g, %g, %g);\n  %0.0\n}\n");
  EXPECT_TRUE(simplified.main()->body.same_as(simplified.main()->params[0]));
  EXPECT_THAT(ill_typed_error, HasSubstr("op nn.batch_norm"));
}

TEST(SimplifyInference, A100000NodeChainOfDropouts) {
  testing::run_with_stack(testing::kSmallStack, [] {
    constexpr int kPairs = 50000;  // a dropout and its projection each
    Var x = var("x", tensor_type({2, 3}));
    Expr e = x;
    for (int i = 0; i < kPairs; ++i) e = get_item(call("nn.dropout", {e}), 0);
    IRModule typed = infer_type(IRModule::from_function(function({x}, e)));
    IRModule out = run_checked(SimplifyInference(), typed);
    EXPECT_TRUE(out.main()->body.same_as(out.main()->params[0]));
  });
}

}  // namespace
}  // namespace weft

// FuseOps, text in / text out: the situations of the reference's
// tests/python/relay/test_pass_fuse_ops.py in weft's words. Each input runs
// through InferType and FuseOps under the WellFormedInstrument; the expected
// program is what the reference's test expects, written as TVM prints it, and
// compared structurally after InferType.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "support/op_test.h"
#include "weft/functor.h"
#include "weft/pass.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

using testing::error_of;

struct FuseOptions {
  int opt_level = 2;
  std::optional<int64_t> max_depth;  // the registered default when unset
  bool link_params = false;
  size_t max_function_args = 0;  // no limit
};

IRModule fuse(const IRModule& in, FuseOptions o = {}) {
  PassContext ctx;
  ctx.opt_level = o.opt_level;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  if (o.max_depth) ctx.set_config("relay.FuseOps.max_depth", *o.max_depth);
  if (o.link_params) ctx.set_config("relay.FuseOps.link_params", true);
  PassContext::Scope scope(ctx);
  // Sequential runs InferType first, as FuseOps requires it.
  return sequential({FuseOps(-1, o.max_function_args)})(in);
}

IRModule fuse(const std::string& text, FuseOptions o = {}) { return fuse(parse_module(text, "in.relay"), o); }

void expect_fused(const std::string& in, const std::string& want, FuseOptions o = {}) {
  IRModule got = fuse(in, o);
  IRModule expected = infer_type(parse_module(want, "want.relay"));
  EXPECT_TRUE(structural_equal(got, expected)) << "got:\n" << to_text(got) << "\nwant:\n" << to_text(expected);
}

// The functions main calls, in the order their calls were made.
std::vector<Function> called_functions(const IRModule& mod) {
  std::vector<Function> out;
  post_order_visit(mod.main()->body, [&](const Expr& e) {
    auto* c = e.as<CallNode>();
    if (c && c->op->kind == ExprKind::kFunction) out.push_back(downcast<FunctionNode>(c->op));
  });
  return out;
}

// Calls of `op` in e, or of any op when `op` is empty.
int count_calls(const Expr& e, const std::string& op = "") {
  int n = 0;
  post_order_visit(e, [&](const Expr& x) {
    auto* c = x.as<CallNode>();
    if (c && c->op->kind == ExprKind::kOp && (op.empty() || static_cast<const OpNode&>(*c->op).name() == op)) ++n;
  });
  return n;
}

TEST(FuseOps, AnElementwiseChainBecomesOnePrimitiveFunction) {
  expect_fused(R"(
def @main(%x: Tensor[(10, 20), float32]) {
  %0 = add(%x, 1f);
  %1 = exp(%0);
  squeeze(%1)
})",
               R"(
def @main(%x: Tensor[(10, 20), float32]) {
  %0 = fn (%p0: Tensor[(10, 20), float32], Primitive=1) -> Tensor[(10, 20), float32] {
    %1 = add(%p0, 1f);
    %2 = exp(%1);
    squeeze(%2)
  };
  %0(%x)
})");
}

// As TVM (whose function passes end with InferType), the result is typed, and
// prints with the function's temporaries numbered before its binding.
TEST(FuseOps, FusedProgramsPrintAsTvmPrintsThemAndReadBack) {
  IRModule out = fuse(R"(
def @main(%x: Tensor[(10, 20), float32]) {
  %0 = add(%x, 1f);
  exp(%0)
})");
  std::string text = to_text(out);
  EXPECT_EQ(text,
            "#[version = \"0.0.5\"]\n"
            "def @main(%x: Tensor[(10, 20), float32] /* ty=Tensor[(10, 20), float32] */) -> Tensor[(10, 20), float32] {\n"
            "  %1 = fn (%p0: Tensor[(10, 20), float32] /* ty=Tensor[(10, 20), float32] */, Primitive=1) "
            "-> Tensor[(10, 20), float32] {\n"
            "    %0 = add(%p0, 1f /* ty=float32 */) /* ty=Tensor[(10, 20), float32] */;\n"
            "    exp(%0) /* ty=Tensor[(10, 20), float32] */\n"
            "  } /* ty=fn (Tensor[(10, 20), float32]) -> Tensor[(10, 20), float32] */;\n"
            "  %1(%x) /* ty=Tensor[(10, 20), float32] */\n"
            "}\n");
  EXPECT_TRUE(structural_equal(parse_module(text), out)) << text;
}

// The reference's test_conv2d_fuse: the add before the first convolution stays
// alone (a convolution is no elementwise consumer); the first convolution
// absorbs the diamond of adds after it; of the two convolutions the sum joins,
// only the first one visited takes the add: the second group would hold two
// anchors.
TEST(FuseOps, ConvolutionsAbsorbTheElementwiseOpsTheyFlowInto) {
  expect_fused(R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32], %w1: Tensor[(16, 16, 3, 3), float32],
          %w2: Tensor[(16, 16, 1, 1), float32], %w3: Tensor[(16, 16, 3, 3), float32]) {
  %0 = add(%x, 1f);
  %1 = nn.conv2d(%0, %w1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %2 = add(1f, %1);
  %3 = add(%1, %2);
  %4 = nn.conv2d(%3, %w2, padding=[0, 0, 0, 0], channels=16, kernel_size=[1, 1]);
  %5 = nn.conv2d(%3, %w3, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  add(%4, %5)
})",
               R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32], %w1: Tensor[(16, 16, 3, 3), float32],
          %w2: Tensor[(16, 16, 1, 1), float32], %w3: Tensor[(16, 16, 3, 3), float32]) {
  %0 = fn (%p0: Tensor[(1, 16, 8, 8), float32], Primitive=1) -> Tensor[(1, 16, 8, 8), float32] {
    add(%p0, 1f)
  };
  %1 = %0(%x);
  %2 = fn (%p01: Tensor[(1, 16, 8, 8), float32], %p1: Tensor[(16, 16, 3, 3), float32], Primitive=1)
       -> Tensor[(1, 16, 8, 8), float32] {
    %3 = nn.conv2d(%p01, %p1, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
    %4 = add(1f, %3);
    add(%3, %4)
  };
  %5 = %2(%1, %w1);
  %6 = fn (%p02: Tensor[(1, 16, 8, 8), float32], %p11: Tensor[(16, 16, 3, 3), float32], Primitive=1)
       -> Tensor[(1, 16, 8, 8), float32] {
    nn.conv2d(%p02, %p11, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3])
  };
  %7 = %6(%5, %w3);
  %8 = fn (%p03: Tensor[(1, 16, 8, 8), float32], %p12: Tensor[(16, 16, 1, 1), float32],
           %p2: Tensor[(1, 16, 8, 8), float32], Primitive=1) -> Tensor[(1, 16, 8, 8), float32] {
    %9 = nn.conv2d(%p03, %p12, padding=[0, 0, 0, 0], channels=16, kernel_size=[1, 1]);
    add(%9, %p2)
  };
  %8(%5, %w2, %7)
})");
}

TEST(FuseOps, ConvolutionBiasAndReluFuseIntoOneFunction) {
  expect_fused(R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %1 = add(%0, %b);
  nn.relu(%1)
})",
               R"(
def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], %b: Tensor[(4, 1, 1), float32]) {
  %0 = fn (%p0: Tensor[(1, 3, 8, 8), float32], %p1: Tensor[(4, 3, 3, 3), float32], %p2: Tensor[(4, 1, 1), float32],
           Primitive=1) -> Tensor[(1, 4, 8, 8), float32] {
    %1 = nn.conv2d(%p0, %p1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
    %2 = add(%1, %p2);
    nn.relu(%2)
  };
  %0(%x, %w, %b)
})");
}

// test_concatenate: the pool (an anchor followed by an injective op) stays
// alone; the upsampling joins the concatenate's tuple in the last phase.
TEST(FuseOps, InjectiveFieldsFuseIntoAConcatenateAndItsElementwiseUsers) {
  const std::string in = R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32]) {
  %0 = nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
  %1 = nn.upsampling(%0, scale_h=2f, scale_w=2f);
  %2 = (%1, %x);
  %3 = concatenate(%2, axis=1);
  add(%3, 1f)
})";
  expect_fused(in, R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32]) {
  %0 = fn (%p0: Tensor[(1, 16, 8, 8), float32], Primitive=1) -> Tensor[(1, 16, 4, 4), float32] {
    nn.max_pool2d(%p0, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])
  };
  %1 = %0(%x);
  %2 = fn (%p01: Tensor[(1, 16, 4, 4), float32], %p1: Tensor[(1, 16, 8, 8), float32], Primitive=1)
       -> Tensor[(1, 32, 8, 8), float32] {
    %3 = nn.upsampling(%p01, scale_h=2f, scale_w=2f);
    %4 = (%3, %p1);
    %5 = concatenate(%4, axis=1);
    add(%5, 1f)
  };
  %2(%1, %x)
})");
  // At level 0 every op is its own function; the tuple stays in main.
  FuseOptions level0;
  level0.opt_level = 0;
  IRModule alone = fuse(in, level0);
  EXPECT_EQ(called_functions(alone).size(), 4u) << to_text(alone);
  for (const Function& f : called_functions(alone)) EXPECT_EQ(count_calls(f->body), 1) << to_text(f);
  EXPECT_TRUE(free_vars(alone.main()).empty());
}

// test_tuple_root: a tuple that is the result stays in main.
TEST(FuseOps, ATupleResultStaysOutsideTheFunctionsOfItsFields) {
  expect_fused(R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32]) {
  %0 = nn.max_pool2d(%x, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
  %1 = nn.upsampling(%0, scale_h=2f, scale_w=2f);
  (%1, %x)
})",
               R"(
def @main(%x: Tensor[(1, 16, 8, 8), float32]) {
  %0 = fn (%p0: Tensor[(1, 16, 8, 8), float32], Primitive=1) -> Tensor[(1, 16, 4, 4), float32] {
    nn.max_pool2d(%p0, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])
  };
  %1 = %0(%x);
  %2 = fn (%p01: Tensor[(1, 16, 4, 4), float32], Primitive=1) -> Tensor[(1, 16, 8, 8), float32] {
    nn.upsampling(%p01, scale_h=2f, scale_w=2f)
  };
  %3 = %2(%1);
  (%3, %x)
})");
}

// test_fuse_tuple_get_elemwise: split and the elementwise ops on its pieces
// fuse; dense stays alone (its users are injective).
TEST(FuseOps, SplitPiecesFuseWithTheElementwiseOpsOnThem) {
  expect_fused(R"(
def @main(%X: Tensor[(1, 10), float32], %W: Tensor[(30, 10), float32]) {
  %0 = nn.dense(%X, %W, units=None);
  %1 = split(%0, indices_or_sections=3, axis=1);
  %2 = %1.0;
  %3 = sigmoid(%2);
  %4 = %1.1;
  %5 = tanh(%4);
  %6 = %1.2;
  %7 = exp(%6);
  %8 = multiply(%5, %7);
  add(%3, %8)
})",
               R"(
def @main(%X: Tensor[(1, 10), float32], %W: Tensor[(30, 10), float32]) {
  %0 = fn (%p0: Tensor[(1, 10), float32], %p1: Tensor[(30, 10), float32], Primitive=1) -> Tensor[(1, 30), float32] {
    nn.dense(%p0, %p1, units=None)
  };
  %1 = %0(%X, %W);
  %2 = fn (%p01: Tensor[(1, 30), float32], Primitive=1) -> Tensor[(1, 10), float32] {
    %3 = split(%p01, indices_or_sections=3, axis=1);
    %4 = %3.0;
    %5 = sigmoid(%4);
    %6 = %3.1;
    %7 = tanh(%6);
    %8 = %3.2;
    %9 = exp(%8);
    %10 = multiply(%7, %9);
    add(%5, %10)
  };
  %2(%1)
})");
}

// test_tuple_get_root: a projection is its group's result.
TEST(FuseOps, AProjectionEndsItsGroupBeforeAnOpaqueUser) {
  expect_fused(R"(
def @main(%X: Tensor[(1, 30), float32], %W: Tensor[(10, 10), float32]) {
  %0 = split(%X, indices_or_sections=3, axis=1);
  %1 = %0.0;
  nn.dense(%1, %W, units=None)
})",
               R"(
def @main(%X: Tensor[(1, 30), float32], %W: Tensor[(10, 10), float32]) {
  %0 = fn (%p0: Tensor[(1, 30), float32], Primitive=1) -> Tensor[(1, 10), float32] {
    %1 = split(%p0, indices_or_sections=3, axis=1);
    %1.0
  };
  %2 = %0(%X);
  %3 = fn (%p01: Tensor[(1, 10), float32], %p1: Tensor[(10, 10), float32], Primitive=1) -> Tensor[(1, 10), float32] {
    nn.dense(%p01, %p1, units=None)
  };
  %3(%2, %W)
})");
}

// test_tuple_intermediate: squeezes, adds, the concatenate and what follows it
// are all injective or cheaper, so the whole function is one group.
TEST(FuseOps, AnIntermediateTupleFusesWithEverythingAroundIt) {
  const std::string body = R"(
  %0 = squeeze(%x);
  %1 = add(%0, 1f);
  %2 = squeeze(%0);
  %3 = add(%2, 1f);
  %4 = add(%3, 1f);
  %5 = add(%0, 1f);
  %6 = (%1, %4, %5);
  %7 = concatenate(%6, axis=1);
  %8 = squeeze(%7);
  add(%8, 1f)
)";
  expect_fused("def @main(%x: Tensor[(1, 16, 8, 8), float32]) {" + body + "}",
               "def @main(%x: Tensor[(1, 16, 8, 8), float32]) {\n"
               "  %9 = fn (%p0: Tensor[(1, 16, 8, 8), float32], Primitive=1) -> Tensor[(16, 24, 8), float32] {" +
                   std::string(body).replace(body.find("squeeze(%x)"), 11, "squeeze(%p0)") +
                   "};\n  %9(%x)\n}");
}

// test_tuple_consecutive: three concatenates of adds feeding a fourth fuse
// into one function; the pool after them takes the first add that follows it,
// and the second add, used with the first in the result tuple, is alone.
TEST(FuseOps, ConsecutiveConcatenatesFuseTogether) {
  std::string inner;
  std::string text = "def @main(%x: Tensor[(1, 2, 4, 4), float32]) {\n";
  int next = 0;
  auto bind = [&](const std::string& value) {
    text += "  %" + std::to_string(next) + " = " + value + ";\n";
    return "%" + std::to_string(next++);
  };
  auto intermediate = [&](const std::string& in) {
    std::string y1 = bind("add(" + in + ", 1f)"), y2 = bind("add(" + in + ", 1f)"), y3 = bind("add(" + in + ", 1f)");
    std::string t = bind("(" + y1 + ", " + y2 + ", " + y3 + ")");
    std::string c = bind("concatenate(" + t + ", axis=1)");
    return bind("add(" + c + ", 1f)");
  };
  auto consecutive = [&](const std::string& in) {
    std::string a = intermediate(in), b = intermediate(in), c = intermediate(in);
    std::string t = bind("(" + a + ", " + b + ", " + c + ")");
    return bind("concatenate(" + t + ", axis=1)");
  };
  std::string concat = consecutive("%x");
  std::string pooled = bind("nn.max_pool2d(" + concat + ", pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0])");
  std::string out = bind("add(" + pooled + ", 1f)");
  std::string out2 = bind("add(" + out + ", 1f)");
  std::string input = text + "  (" + out + ", " + out2 + ")\n}";

  text = "def @main(%x: Tensor[(1, 2, 4, 4), float32]) {\n  %900 = fn (%p0: Tensor[(1, 2, 4, 4), float32], Primitive=1)"
         " -> Tensor[(1, 18, 4, 4), float32] {\n";
  next = 0;
  std::string fused_concat = consecutive("%p0");
  std::string want = text + "    " + fused_concat + "\n  };\n" + R"(
  %901 = fn (%p01: Tensor[(1, 18, 4, 4), float32], Primitive=1) -> Tensor[(1, 18, 2, 2), float32] {
    %910 = nn.max_pool2d(%p01, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 0, 0]);
    add(%910, 1f)
  };
  %902 = fn (%p02: Tensor[(1, 18, 2, 2), float32], Primitive=1) -> Tensor[(1, 18, 2, 2), float32] {
    add(%p02, 1f)
  };
  %903 = %900(%x);
  %904 = %901(%903);
  %905 = %902(%904);
  (%904, %905)
})";
  expect_fused(input, want);
}

// test_inception_like: each convolution takes its relu; the concatenates,
// whose fields are anchored groups, are functions of their own.
TEST(FuseOps, InceptionBranchesFuseApartAndConcatenatesStandAlone) {
  std::string conv = "nn.conv2d(%IN, %W, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3])";
  auto relu_conv = [&](const std::string& in, const std::string& w) {
    std::string c = conv;
    c.replace(c.find("%IN"), 3, in);
    c.replace(c.find("%W"), 2, w);
    return "nn.relu(" + c + ")";
  };
  std::string in = "def @main(%x: Tensor[(1, 16, 4, 4), float32], %w1: Tensor[(16, 16, 3, 3), float32],"
                   " %w2: Tensor[(16, 16, 3, 3), float32], %w3: Tensor[(16, 32, 3, 3), float32],"
                   " %w4: Tensor[(16, 32, 3, 3), float32]) {\n"
                   "  %0 = concatenate((" + relu_conv("%x", "%w1") + ", " + relu_conv("%x", "%w2") + "), axis=1);\n"
                   "  concatenate((" + relu_conv("%0", "%w3") + ", " + relu_conv("%0", "%w4") + "), axis=1)\n}";
  auto conv_fn = [&](const std::string& name, int channels) {
    std::string t = "Tensor[(1, " + std::to_string(channels) + ", 4, 4), float32]";
    std::string w = "Tensor[(16, " + std::to_string(channels) + ", 3, 3), float32]";
    return "  %" + name + " = fn (%p0: " + t + ", %p1: " + w + ", Primitive=1) -> Tensor[(1, 16, 4, 4), float32] {\n    " +
           relu_conv("%p0", "%p1") + "\n  };\n";
  };
  std::string concat_fn = "fn (%p0: Tensor[(1, 16, 4, 4), float32], %p1: Tensor[(1, 16, 4, 4), float32], Primitive=1)"
                          " -> Tensor[(1, 32, 4, 4), float32] {\n    concatenate((%p0, %p1), axis=1)\n  }";
  std::string want = "def @main(%x: Tensor[(1, 16, 4, 4), float32], %w1: Tensor[(16, 16, 3, 3), float32],"
                     " %w2: Tensor[(16, 16, 3, 3), float32], %w3: Tensor[(16, 32, 3, 3), float32],"
                     " %w4: Tensor[(16, 32, 3, 3), float32]) {\n" +
                     conv_fn("900", 16) + conv_fn("901", 16) + conv_fn("902", 32) + conv_fn("903", 32) +
                     "  %904 = " + concat_fn + ";\n  %905 = " + concat_fn + ";\n" +
                     "  %906 = %904(%900(%x, %w1), %901(%x, %w2));\n"
                     "  %905(%902(%906, %w3), %903(%906, %w4))\n}";
  expect_fused(in, want);
}

// test_fuse_parallel_injective: injective ops on parallel branches fuse into
// the elementwise op they meet at, together with the op they start from.
TEST(FuseOps, ParallelInjectiveBranchesFuseIntoTheirMeetingPoint) {
  expect_fused(R"(
def @main(%x: Tensor[(10, 20), float32]) {
  %0 = add(%x, 1f);
  %1 = squeeze(%0);
  %2 = transpose(%0, axes=[0, 1]);
  multiply(%1, %2)
})",
               R"(
def @main(%x: Tensor[(10, 20), float32]) {
  %0 = fn (%p0: Tensor[(10, 20), float32], Primitive=1) -> Tensor[(10, 20), float32] {
    %1 = add(%p0, 1f);
    %2 = squeeze(%1);
    %3 = transpose(%1, axes=[0, 1]);
    multiply(%2, %3)
  };
  %0(%x)
})");
}

// A diamond whose branches meet again, one through an opaque op: the
// convolution cannot take either branch, since not every path to the meeting
// point is fusable; the relu branch fuses into the add.
// A 1x1 convolution whose result goes through relu and `other`, then add.
std::string conv_diamond(const std::string& other) {
  return "def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 1, 1), float32]) {\n"
         "  %0 = nn.conv2d(%x, %w, padding=[0, 0, 0, 0], channels=4, kernel_size=[1, 1]);\n"
         "  %1 = nn.relu(%0);\n"
         "  %2 = " + other + "(%0);\n"
         "  add(%1, %2)\n}";
}

TEST(FuseOps, ADiamondWithAnOpaqueBranchDoesNotFuseAcrossIt) {
  expect_fused(conv_diamond("nn.lrn"),
               R"(
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 1, 1), float32]) {
  %0 = fn (%p0: Tensor[(1, 4, 8, 8), float32], %p1: Tensor[(4, 4, 1, 1), float32], Primitive=1)
       -> Tensor[(1, 4, 8, 8), float32] {
    nn.conv2d(%p0, %p1, padding=[0, 0, 0, 0], channels=4, kernel_size=[1, 1])
  };
  %1 = %0(%x, %w);
  %2 = fn (%p01: Tensor[(1, 4, 8, 8), float32], Primitive=1) -> Tensor[(1, 4, 8, 8), float32] {
    nn.lrn(%p01)
  };
  %3 = %2(%1);
  %4 = fn (%p02: Tensor[(1, 4, 8, 8), float32], %p11: Tensor[(1, 4, 8, 8), float32], Primitive=1)
       -> Tensor[(1, 4, 8, 8), float32] {
    %5 = nn.relu(%p02);
    add(%5, %p11)
  };
  %4(%1, %3)
})");
}

// Without the opaque branch, the same diamond is one function.
TEST(FuseOps, ADiamondOfElementwiseBranchesFusesWhole) {
  expect_fused(conv_diamond("exp"),
               R"(
def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(4, 4, 1, 1), float32]) {
  %0 = fn (%p0: Tensor[(1, 4, 8, 8), float32], %p1: Tensor[(4, 4, 1, 1), float32], Primitive=1)
       -> Tensor[(1, 4, 8, 8), float32] {
    %1 = nn.conv2d(%p0, %p1, padding=[0, 0, 0, 0], channels=4, kernel_size=[1, 1]);
    %2 = nn.relu(%1);
    %3 = exp(%1);
    add(%2, %3)
  };
  %0(%x, %w)
})");
}

TEST(FuseOps, OpaqueOpsStayAlone) {
  expect_fused(R"(
def @main(%x: Tensor[(1, 4, 8, 8), float32]) {
  %0 = exp(%x);
  %1 = nn.lrn(%0);
  exp(%1)
})",
               R"(
def @main(%x: Tensor[(1, 4, 8, 8), float32]) {
  %0 = fn (%p0: Tensor[(1, 4, 8, 8), float32], Primitive=1) -> Tensor[(1, 4, 8, 8), float32] { exp(%p0) };
  %1 = fn (%p01: Tensor[(1, 4, 8, 8), float32], Primitive=1) -> Tensor[(1, 4, 8, 8), float32] { nn.lrn(%p01) };
  %2 = fn (%p02: Tensor[(1, 4, 8, 8), float32], Primitive=1) -> Tensor[(1, 4, 8, 8), float32] { exp(%p02) };
  %2(%1(%0(%x)))
})");
}

// A reduction takes the elementwise ops before it, but nothing after it.
TEST(FuseOps, AReductionEndsTheGroupOfTheElementwiseOpsBeforeIt) {
  expect_fused(R"(
def @main(%x: Tensor[(4, 6), float32]) {
  %0 = exp(%x);
  %1 = multiply(%0, 2f);
  %2 = sum(%1, axis=[1]);
  sqrt(%2)
})",
               R"(
def @main(%x: Tensor[(4, 6), float32]) {
  %0 = fn (%p0: Tensor[(4, 6), float32], Primitive=1) -> Tensor[(4), float32] {
    %1 = exp(%p0);
    %2 = multiply(%1, 2f);
    sum(%2, axis=[1])
  };
  %3 = fn (%p01: Tensor[(4), float32], Primitive=1) -> Tensor[(4), float32] { sqrt(%p01) };
  %3(%0(%x))
})");
}

// test_fuse_max: 300 exps fuse as 256 and 44 by default (Relay's kMaxFusedOps);
// with relay.FuseOps.max_depth=10, 20 exps make two functions of 10.
// `n` exps of `input`, one binding per line (%<first>, %<first + 1>, ...),
// ending in the last one's name.
std::string exp_chain(const std::string& input, int n, int first) {
  std::string text, prev = input;
  for (int i = 0; i < n; ++i) {
    std::string name = "%" + std::to_string(first + i);
    text += "  " + name + " = exp(" + prev + ");\n";
    prev = name;
  }
  return text + "  " + prev + "\n";
}

void expect_chain_split(int n, int first, FuseOptions o) {
  std::string t = "Tensor[(10, 20), float32]";
  expect_fused("def @main(%x: " + t + ") {\n" + exp_chain("%x", n, 0) + "}",
               "def @main(%x: " + t + ") {\n  %1000 = fn (%p: " + t + ", Primitive=1) -> " + t + " {\n" +
                   exp_chain("%p", first, 0) + "  };\n  %1001 = fn (%pp: " + t + ", Primitive=1) -> " + t + " {\n" +
                   exp_chain("%pp", n - first, 0) + "  };\n  %1002 = %1000(%x);\n  %1001(%1002)\n}",
               o);
}

TEST(FuseOps, NoFunctionHoldsMoreOpsThanTheMaxDepth) {
  expect_chain_split(300, 256, {});
  FuseOptions ten;
  ten.max_depth = 10;
  expect_chain_split(20, 10, ten);
}

// test_fuse_max_diamond: with max_depth the size of one diamond (two
// branches of 5 exps and their add), each of 3 diamonds is one function.
TEST(FuseOps, EachDiamondOfTheMaxDepthIsOneFunction) {
  auto diamond = [](const std::string& in, int& next) {
    std::string text, a = in, b = in;
    for (int i = 0; i < 5; ++i) {
      std::string na = "%" + std::to_string(next++), nb = "%" + std::to_string(next++);
      text += "  " + na + " = exp(" + a + ");\n  " + nb + " = exp(" + b + ");\n";
      a = na;
      b = nb;
    }
    std::string out = "%" + std::to_string(next++);
    return std::make_pair(text + "  " + out + " = add(" + a + ", " + b + ");\n", out);
  };
  std::string t = "Tensor[(10, 20), float32]";
  std::string in = "def @main(%x: " + t + ") {\n", want = in, prev = "%x", called = "%x";
  int next = 0, fn_next = 500;
  for (int d = 0; d < 3; ++d) {
    auto [text, out] = diamond(prev, next);
    in += text;
    prev = out;
    int inner = 0;
    auto [body, result] = diamond("%p", inner);
    std::string fn = "%" + std::to_string(fn_next++), call = "%" + std::to_string(fn_next++);
    want += "  " + fn + " = fn (%p: " + t + ", Primitive=1) -> " + t + " {\n" + body + "  " + result + "\n  };\n";
    want += "  " + call + " = " + fn + "(" + called + ");\n";
    called = call;
  }
  FuseOptions o;
  o.max_depth = 11;
  expect_fused(in + "  " + prev + "\n}", want + "  " + called + "\n}", o);
}

// test_fuse_softmax: softmax, an anchor, takes the elementwise cast after it.
TEST(FuseOps, SoftmaxTakesTheCastAfterIt) {
  expect_fused(R"(
def @main(%x: Tensor[(16, 16), float32]) {
  %0 = nn.softmax(%x);
  cast(%0, dtype="float16")
})",
               R"(
def @main(%x: Tensor[(16, 16), float32]) {
  %0 = fn (%p0: Tensor[(16, 16), float32], Primitive=1) -> Tensor[(16, 16), float16] {
    %1 = nn.softmax(%p0);
    cast(%1, dtype="float16")
  };
  %0(%x)
})");
}

// test_fuse_bcast_reduce_scalar: a broadcast on scalars fuses into the
// reduction after it.
TEST(FuseOps, AScalarComparisonFusesIntoTheReductionAfterIt) {
  expect_fused(R"(
def @main(%x: int32) {
  %0 = less(%x, 10);
  min(%0)
})",
               R"(
def @main(%x: int32) {
  %0 = fn (%p0: int32, Primitive=1) -> bool {
    %1 = less(%p0, 10);
    min(%1)
  };
  %0(%x)
})");
}

// test_fuse_max_num_args (static shapes): exp(add(x_i, 1)) for 8 inputs,
// summed in a chain. With at most 5 function arguments, one of them the output
// buffer, the first function takes the first 4 inputs; after it each input's
// ops and each add are functions of their own.
TEST(FuseOps, NoFunctionTakesMoreArgumentsThanTheLimit) {
  constexpr int kInputs = 8, kLimit = 5, kFirst = kLimit - 1;
  const std::string t = "Tensor[(10, 20), float32]";
  int next = 0;
  auto name = [&] { return "%" + std::to_string(next++); };
  // exp(add(in, 1f)), bound to fresh names; returns its text and result.
  auto base = [&](const std::string& in) {
    std::string a = name(), e = name();
    return std::make_pair("  " + a + " = add(" + in + ", 1f);\n  " + e + " = exp(" + a + ");\n", e);
  };
  // The bases of `inputs` and the chain of adds over them.
  auto summed = [&](const std::vector<std::string>& inputs) {
    std::string text, acc;
    for (const std::string& in : inputs) {
      auto [b, out] = base(in);
      text += b;
      if (acc.empty()) {
        acc = out;
      } else {
        std::string s = name();
        text += "  " + s + " = add(" + acc + ", " + out + ");\n";
        acc = s;
      }
    }
    return std::make_pair(text, acc);
  };
  std::string params;
  std::vector<std::string> xs, ps;
  for (int i = 0; i < kInputs; ++i) {
    params += std::string(i ? ", " : "") + "%x" + std::to_string(i) + ": " + t;
    xs.push_back("%x" + std::to_string(i));
    if (i < kFirst) ps.push_back("%p" + std::to_string(i));
  }
  auto [in_body, in_result] = summed(xs);
  std::string want = "def @main(" + params + ") {\n  %500 = fn (";
  for (int i = 0; i < kFirst; ++i) want += ps[i] + ": " + t + ", ";
  auto [first_body, first_result] = summed(ps);
  want += "Primitive=1) -> " + t + " {\n" + first_body + "  " + first_result + "\n  };\n";
  std::string acc = "%501";
  want += "  " + acc + " = %500(%x0, %x1, %x2, %x3);\n";
  for (int i = kFirst; i < kInputs; ++i) {
    auto [b, out] = base("%q");
    std::string f = name(), w = name(), g = name(), s = name();
    want += "  " + f + " = fn (%q: " + t + ", Primitive=1) -> " + t + " {\n" + b + "  " + out + "\n  };\n";
    want += "  " + w + " = " + f + "(" + xs[i] + ");\n";
    want += "  " + g + " = fn (%a: " + t + ", %b: " + t + ", Primitive=1) -> " + t + " { add(%a, %b) };\n";
    want += "  " + s + " = " + g + "(" + acc + ", " + w + ");\n";
    acc = s;
  }
  FuseOptions o;
  o.max_function_args = kLimit;
  expect_fused("def @main(" + params + ") {\n" + in_body + "  " + in_result + "\n}", want + "  " + acc + "\n}", o);
  // Without the limit, everything is one function.
  EXPECT_EQ(called_functions(fuse("def @main(" + params + ") {\n" + in_body + "  " + in_result + "\n}")).size(), 1u);
}

TEST(FuseOps, ANegativeMaxDepthIsAnErrorNamingTheKey) {
  FuseOptions negative;
  negative.max_depth = -1;
  std::string msg = error_of([&] { fuse("def @main(%x: Tensor[(2), float32]) { exp(%x) }", negative); });
  EXPECT_NE(msg.find("relay.FuseOps.max_depth is -1 for FuseOps"), std::string::npos) << msg;
}

// test_fuse_take: the take's index constant is a parameter of the function,
// or with relay.FuseOps.link_params stays inside it; the scalar is inlined.
TEST(FuseOps, ScalarConstantsFuseAndOtherConstantsBecomeParameters) {
  Var x = var("x", tensor_type({10, 1}));
  Constant indices = constant(testing::tensor_of({0}, {1}, DataType::Int(64)));
  Expr concat = call("concatenate", {tuple({x, x})}, {{"axis", -1}});
  Expr taken = call("take", {concat, indices});
  IRModule in = IRModule::from_function(function({x}, call("add", {taken, constant(testing::tensor_of({1}, {}))})));
  for (bool link : {false, true}) {
    SCOPED_TRACE(link ? "linked" : "not linked");
    FuseOptions o;
    o.link_params = link;
    IRModule out = fuse(in, o);
    ASSERT_EQ(called_functions(out).size(), 1u) << to_text(out);
    Function f = called_functions(out)[0];
    EXPECT_EQ(f->params.size(), link ? 1u : 2u) << to_text(out);
    int constants = 0;
    post_order_visit(f->body, [&](const Expr& e) { constants += e->kind == ExprKind::kConstant; });
    EXPECT_EQ(constants, link ? 2 : 1) << to_text(out);
  }
}

TEST(FuseOps, PrimitiveFunctionsAreLeftAlone) {
  IRModule in = infer_type(parse_module(R"(
def @main(%x: Tensor[(10, 20), float32]) {
  %0 = fn (%p0: Tensor[(10, 20), float32], Primitive=1) -> Tensor[(10, 20), float32] {
    %1 = exp(%p0);
    exp(%1)
  };
  %2 = %0(%x);
  %3 = exp(%2);
  exp(%3)
})"));
  auto* call = in.main()->body.as<CallNode>()->args[0].as<CallNode>()->args[0].as<CallNode>();
  Expr existing = call->op;
  IRModule out = fuse(in);
  std::vector<Function> called = called_functions(out);
  ASSERT_EQ(called.size(), 2u) << to_text(out);
  EXPECT_TRUE(Expr(called[0]).same_as(existing)) << to_text(out);
  EXPECT_EQ(count_calls(called[1]->body, "exp"), 2);
}

// test_fuse_myia_regression: an if's condition fuses on its own; the branches
// are closures whose bodies are variables.
TEST(FuseOps, NothingFusesThroughIfsAndLets) {
  expect_fused(R"(
def @main(%x: Tensor[(), float32], %y: Tensor[(), float32]) {
  let %v = add(%x, %y);
  %0 = multiply(%v, %v);
  %1 = greater(%0, %y);
  if (%1) { exp(%x) } else { %y }
})",
               R"(
def @main(%x: Tensor[(), float32], %y: Tensor[(), float32]) {
  %4 = fn (%p0: Tensor[(), float32], %p1: Tensor[(), float32], Primitive=1) -> Tensor[(), float32] {
    add(%p0, %p1)
  };
  let %v = %4(%x, %y);
  %0 = fn (%p01: Tensor[(), float32], %p11: Tensor[(), float32], Primitive=1) -> Tensor[(), bool] {
    %2 = multiply(%p01, %p01);
    greater(%2, %p11)
  };
  %1 = %0(%v, %y);
  if (%1) {
    %3 = fn (%p02: Tensor[(), float32], Primitive=1) -> Tensor[(), float32] { exp(%p02) };
    %3(%x)
  } else {
    %y
  }
})");
}

TEST(FuseOps, AnUntypedProgramIsAnErrorNamingFuseOps) {
  IRModule in = parse_module("def @main(%x: Tensor[(2), float32]) { exp(%x) }", "in.relay");
  std::string msg = error_of([&] { FuseOps()(in); });
  EXPECT_NE(msg.find("FuseOps needs a typed program"), std::string::npos) << msg;
  EXPECT_NE(msg.find("InferType"), std::string::npos) << msg;
  EXPECT_NE(msg.find("in.relay:1:"), std::string::npos) << msg;
}

TEST(FuseOps, TheOriginalModuleIsUnchanged) {
  IRModule typed = infer_type(parse_module("def @main(%x: Tensor[(2), float32]) { exp(exp(%x)) }"));
  std::string before = to_text(typed);
  fuse(typed);
  EXPECT_EQ(to_text(typed), before);
}

TEST(FuseOps, IsRegisteredAtLevelZeroRequiringInferType) {
  Pass p = PassRegistry::global().create("FuseOps");
  EXPECT_EQ(p.info().opt_level, 0);
  EXPECT_EQ(p.info().required, std::vector<std::string>{"InferType"});
}

}  // namespace
}  // namespace weft

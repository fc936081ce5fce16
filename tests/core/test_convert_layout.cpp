// ConvertLayout on in-process ops with layout hooks (layout_test_ops.h), text
// in / text out: transforms only where producer and consumer disagree, one per
// value and layout, none back to back; attrs that depend on layout follow it;
// an op without a hook gets its old layouts back; bad desired layouts and
// untyped programs are errors naming the pass. (The situations of Relay's
// test_pass_convert_op_layout.py, in weft's words.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "layout_test_ops.h"
#include "small_stack.h"
#include "weft/functor.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class ConvertLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::register_layout_test_ops(); }
};

const DesiredLayouts kNhwc = {{"lt.conv", {"NHWC", "default"}}};

IRModule run(const std::string& program, const DesiredLayouts& desired = kNhwc) {
  PassContext ctx;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  PassContext::Scope scope(ctx);
  return ConvertLayout(desired)(InferType()(parse_module(program)));
}

void expect_converted(const std::string& program, const std::string& expected, const DesiredLayouts& desired = kNhwc) {
  // Both typed: the result must type-check, and it keeps the function's type.
  IRModule got = InferType()(run(program, desired));
  IRModule want = InferType()(parse_module(expected));
  EXPECT_TRUE(structural_equal(got.main(), want.main())) << "got:\n" << to_text(got) << "\nwant:\n" << expected;
}

std::string error_of(const std::string& program, const DesiredLayouts& desired = kNhwc) {
  try {
    run(program, desired);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

int count_calls(const Expr& e, const std::string& op_name) {
  int n = 0;
  post_order_visit(e, [&](const Expr& x) {
    if (auto* c = x.as<CallNode>(); c && c->op.as<OpNode>() && c->op.as<OpNode>()->name() == op_name) ++n;
  });
  return n;
}

const char* kParams = "%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 1, 1), float32]";

std::string main_of(const std::string& params, const std::string& body) {
  return "def @main(" + params + ") {\n" + body + "\n}\n";
}

TEST_F(ConvertLayoutTest, ConvThenElementwiseConvertsOnceInAndOnceOut) {
  expect_converted(main_of(kParams, "  lt.relu(lt.conv(%x, %w))"),
                   main_of(kParams,
                           "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
                           "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
                           "  %2 = lt.conv(%0, %1, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                           "  %3 = lt.relu(%2);\n"
                           "  layout_transform(%3, src_layout=\"NHWC\", dst_layout=\"NCHW\")"));
}

TEST_F(ConvertLayoutTest, ConsecutiveConvsStayInTheNewLayout) {
  const std::string params = std::string(kParams) + ", %v: Tensor[(4, 4, 1, 1), float32]";
  expect_converted(main_of(params, "  lt.conv(lt.relu(lt.conv(%x, %w)), %v)"),
                   main_of(params,
                           "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
                           "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
                           "  %2 = lt.conv(%0, %1, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                           "  %3 = lt.relu(%2);\n"
                           "  %4 = layout_transform(%v, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
                           "  %5 = lt.conv(%3, %4, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                           "  layout_transform(%5, src_layout=\"NHWC\", dst_layout=\"NCHW\")"));
}

TEST_F(ConvertLayoutTest, AValueUsedTwiceIsTransformedOnce) {
  // Two convs of the same data and weight: one transform of each, shared.
  IRModule out = run(main_of(kParams, "  lt.add(lt.conv(%x, %w), lt.relu(lt.conv(%x, %w, data_layout=\"NCHW\")))"));
  EXPECT_EQ(count_calls(out.main()->body, "layout_transform"), 3);  // x, w in; the sum out
  EXPECT_EQ(count_calls(out.main()->body, "lt.conv"), 2);
  // The two results meet in the new layout: the sum converts back once.
  auto* back = out.main()->body.as<CallNode>();
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->attrs->at("src_layout").as_string(), "NHWC");
}

TEST_F(ConvertLayoutTest, TheReducedAxisFollowsTheLayout) {
  // The channel sum: axis 1 of NCHW is axis 3 of NHWC, and the (N, H, W)
  // result is in the same layout either way, so nothing converts back.
  expect_converted(main_of(kParams, "  lt.sum(lt.conv(%x, %w), axis=1)"),
                   main_of(kParams,
                           "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
                           "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
                           "  %2 = lt.conv(%0, %1, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                           "  lt.sum(%2, axis=3)"));
}

TEST_F(ConvertLayoutTest, AnOpWithoutAHookGetsItsOldLayoutBack) {
  expect_converted(main_of(kParams, "  lt.relu(lt.opaque(lt.conv(%x, %w)))"),
                   main_of(kParams,
                           "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NHWC\");\n"
                           "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
                           "  %2 = lt.conv(%0, %1, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                           "  %3 = layout_transform(%2, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
                           "  lt.relu(lt.opaque(%3))"));
}

TEST_F(ConvertLayoutTest, AConvAlreadyInTheDesiredLayoutIsLeftAlone) {
  const std::string params = "%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(1, 1, 3, 4), float32]";
  const std::string program =
      main_of(params, "  lt.relu(lt.conv(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\"))");
  expect_converted(program, program);
}

TEST_F(ConvertLayoutTest, BackToBackTransformsCancel) {
  // An NHWC conv feeding (through the user's transform to NCHW) a conv
  // converted to NHWC: the transform back to NHWC cancels the user's.
  const std::string params =
      "%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(1, 1, 3, 4), float32], %v: Tensor[(4, 4, 1, 1), float32]";
  expect_converted(
      main_of(params,
              "  %0 = lt.conv(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
              "  %1 = layout_transform(%0, src_layout=\"NHWC\", dst_layout=\"NCHW\");\n"
              "  lt.conv(%1, %v)"),
      main_of(params,
              "  %0 = lt.conv(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
              "  %1 = layout_transform(%v, src_layout=\"OIHW\", dst_layout=\"HWIO\");\n"
              "  %2 = lt.conv(%0, %1, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
              "  layout_transform(%2, src_layout=\"NHWC\", dst_layout=\"NCHW\")"));
}

TEST_F(ConvertLayoutTest, BlockedLayoutsAndExplicitKernelLayouts) {
  expect_converted(main_of(kParams, "  lt.conv(%x, %w)"),
                   main_of(kParams,
                           "  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\");\n"
                           "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"OIHW4i4o\");\n"
                           "  %2 = lt.conv(%0, %1, data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\");\n"
                           "  layout_transform(%2, src_layout=\"NCHW4c\", dst_layout=\"NCHW\")"),
                   {{"lt.conv", {"NCHW4c", "OIHW4i4o"}}});
}

TEST_F(ConvertLayoutTest, NoDesiredLayoutsChangeNothing) {
  const std::string program = main_of(kParams, "  lt.relu(lt.conv(%x, %w))");
  expect_converted(program, program, {});
}

TEST_F(ConvertLayoutTest, AnUnchangedGraphKeepsItsNodes) {
  IRModule typed = InferType()(parse_module(main_of(kParams, "  lt.relu(lt.conv(%x, %w))")));
  EXPECT_TRUE(convert_layout(typed.main(), {}).same_as(typed.main()));
}

TEST_F(ConvertLayoutTest, TheRegisteredPassReadsItsConfig) {
  PassContext ctx;
  ctx.set_config("relay.ConvertLayout.desired_layouts", AttrValue(R"({"lt.conv": ["NHWC", "default"]})"));
  ctx.opt_level = 3;  // ConvertLayout's level; the sequential runs InferType, which it requires, first
  PassContext::Scope scope(ctx);
  IRModule out = sequential({PassRegistry::global().get("ConvertLayout").create()})(
      parse_module(main_of(kParams, "  lt.conv(%x, %w)")));
  EXPECT_EQ(count_calls(out.main()->body, "layout_transform"), 3);
  EXPECT_EQ(PassRegistry::global().get("ConvertLayout").create().info().opt_level, 3);
}

TEST_F(ConvertLayoutTest, DesiredLayoutsParseFromJson) {
  DesiredLayouts d = parse_desired_layouts(R"({"nn.conv2d": ["NHWC", "default"], "nn.max_pool2d": ["NHWC"]})");
  EXPECT_EQ(d, (DesiredLayouts{{"nn.conv2d", {"NHWC", "default"}}, {"nn.max_pool2d", {"NHWC"}}}));
  auto parse_error = [](const char* text) {
    try {
      parse_desired_layouts(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(parse_error("{\"nn.conv2d\": \"NHWC\"}"), AllOf(HasSubstr("ConvertLayout"), HasSubstr("not a list")));
  EXPECT_THAT(parse_error("[\"NHWC\"]"), HasSubstr("not a JSON object"));
  EXPECT_THAT(parse_error("{nn.conv2d}"), HasSubstr("not JSON"));
  EXPECT_THAT(parse_error("{\"nn.conv2d\": [1]}"), HasSubstr("not a string"));
  EXPECT_THAT(parse_error("{\"nn.conv2d\": []}"), HasSubstr("no layout given for nn.conv2d"));
}

TEST_F(ConvertLayoutTest, BadDesiredLayoutsAreErrorsNamingTheOp) {
  const std::string program = main_of(kParams, "  lt.conv(%x, %w)");
  EXPECT_THAT(error_of(program, {{"lt.nonesuch", {"NHWC"}}}), AllOf(HasSubstr("ConvertLayout"), HasSubstr("lt.nonesuch")));
  EXPECT_THAT(error_of(program, {{"lt.relu", {"NHWC"}}}), AllOf(HasSubstr("lt.relu"), HasSubstr("convert_layout hook")));
  EXPECT_THAT(error_of(program, {{"lt.conv", {"NHWc"}}}),
              AllOf(HasSubstr("desired layout of lt.conv"), HasSubstr("'NHWc'"), HasSubstr("positive factor")));
  // A layout that parses but does not fit the data is the op's own type error.
  EXPECT_THAT(error_of(program, {{"lt.conv", {"NCW", "OIHW"}}}), HasSubstr("NCW"));
}

TEST_F(ConvertLayoutTest, AnUntypedProgramIsAnErrorNamingThePass) {
  Var x = var("x"), w = var("w");
  Function fn = function({x, w}, call("lt.conv", {x, w}));
  try {
    convert_layout(fn, kNhwc);
    FAIL() << "an untyped program was converted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), AllOf(HasSubstr("ConvertLayout"), HasSubstr("InferType")));
  }
}

TEST_F(ConvertLayoutTest, AHundredThousandNodeChainOnASmallStack) {
  constexpr int kLength = 100000;
  testing::run_with_stack(testing::kSmallStack, [&] {
    Var x = var("x", tensor_type({1, 3, 8, 8})), w = var("w", tensor_type({4, 3, 1, 1}));
    Expr e = call("lt.conv", {x, w});
    for (int i = 0; i < kLength; ++i) e = call("lt.relu", {e});
    IRModule out = ConvertLayout(kNhwc)(InferType()(IRModule::from_function(function({x, w}, e))));
    EXPECT_EQ(count_calls(out.main()->body, "layout_transform"), 3);
    EXPECT_EQ(count_calls(out.main()->body, "lt.relu"), kLength);
  });
}

}  // namespace
}  // namespace weft

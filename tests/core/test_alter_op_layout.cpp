// AlterOpLayout with an in-process alter hook that asks lt.conv for NCHW4c
// data and an OIHW4i4o weight, as a target preferring blocked layouts would:
// the graph follows where the ops' layout hooks allow (an elementwise op takes
// the blocked layout) and converts back where they do not (a sum over the
// split channel axis).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "layout_test_ops.h"
#include "weft/passes.h"
#include "weft/printer.h"
#include "weft/structural.h"
#include "weft/text.h"

namespace weft {
namespace {

using ::testing::HasSubstr;

Expr blocked_conv(const Call& c) {
  return call("lt.conv", c->args, {{"data_layout", "NCHW4c"}, {"kernel_layout", "OIHW4i4o"}});
}

IRModule alter(const std::string& program, AlterLayouts hooks = {{"lt.conv", blocked_conv}}) {
  testing::register_layout_test_ops();
  PassContext ctx;
  ctx.instruments = {std::make_shared<WellFormedInstrument>()};
  PassContext::Scope scope(ctx);
  return InferType()(AlterOpLayout(std::move(hooks))(InferType()(parse_module(program))));
}

const char* kParams = "%x: Tensor[(1, 8, 4, 4), float32], %w: Tensor[(8, 8, 1, 1), float32]";

std::string main_of(const std::string& body) { return std::string("def @main(") + kParams + ") {\n" + body + "\n}\n"; }

void expect_altered(const std::string& program, const std::string& expected) {
  IRModule got = alter(program);
  IRModule want = InferType()(parse_module(expected));
  EXPECT_TRUE(structural_equal(got.main(), want.main())) << "got:\n" << to_text(got) << "\nwant:\n" << expected;
}

TEST(AlterOpLayout, TheBlockedConvAndTheElementwiseOpAfterIt) {
  expect_altered(main_of("  lt.relu(lt.conv(%x, %w))"),
                 main_of("  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\");\n"
                         "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"OIHW4i4o\");\n"
                         "  %2 = lt.conv(%0, %1, data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\");\n"
                         "  %3 = lt.relu(%2);\n"
                         "  layout_transform(%3, src_layout=\"NCHW4c\", dst_layout=\"NCHW\")"));
}

TEST(AlterOpLayout, AnOpThatCannotFollowGetsThePlainLayoutBack) {
  // Summing channels: lt.sum cannot reduce a split axis, so it gets NCHW.
  expect_altered(main_of("  lt.sum(lt.conv(%x, %w), axis=1)"),
                 main_of("  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\");\n"
                         "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"OIHW4i4o\");\n"
                         "  %2 = lt.conv(%0, %1, data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\");\n"
                         "  %3 = layout_transform(%2, src_layout=\"NCHW4c\", dst_layout=\"NCHW\");\n"
                         "  lt.sum(%3, axis=1)"));
  // Summing rows follows the blocked layout (axis 2 of NCHW4c is still H).
  expect_altered(main_of("  lt.sum(lt.conv(%x, %w), axis=2)"),
                 main_of("  %0 = layout_transform(%x, src_layout=\"NCHW\", dst_layout=\"NCHW4c\");\n"
                         "  %1 = layout_transform(%w, src_layout=\"OIHW\", dst_layout=\"OIHW4i4o\");\n"
                         "  %2 = lt.conv(%0, %1, data_layout=\"NCHW4c\", kernel_layout=\"OIHW4i4o\");\n"
                         "  %3 = lt.sum(%2, axis=2);\n"
                         "  layout_transform(%3, src_layout=\"NCW4c\", dst_layout=\"NCW\")"));
}

TEST(AlterOpLayout, AHookThatKeepsTheCallChangesNothing) {
  const std::string program = main_of("  lt.relu(lt.conv(%x, %w))");
  IRModule got = alter(program, {{"lt.conv", [](const Call&) { return Expr(); }}});
  EXPECT_TRUE(structural_equal(got.main(), InferType()(parse_module(program)).main())) << to_text(got);
}

TEST(AlterOpLayout, AHookReturningANonCallIsAnErrorNamingTheOp) {
  try {
    alter(main_of("  lt.conv(%x, %w)"), {{"lt.conv", [](const Call& c) { return c->args[0]; }}});
    FAIL() << "a non-call replacement was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("AlterOpLayout"));
    EXPECT_THAT(e.what(), HasSubstr("lt.conv"));
  }
}

TEST(AlterOpLayout, RegisteredAtOptLevelThree) {
  EXPECT_EQ(PassRegistry::global().get("AlterOpLayout").create().info().opt_level, 3);
}

}  // namespace
}  // namespace weft

// ScopedOpOverride changes a registered op for a scope and restores it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "weft/error.h"
#include "weft/interpreter.h"
#include "weft/testing/op_override.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

double run_negative(double value) {
  const Var x = var("x", tensor_type({}));
  const Value out = Interpreter(IRModule::from_function(function({x}, call("negative", {x}))))
                        .run_main({Tensor::scalar(value, DataType::Float(32))});
  return out.tensor().element_as_double(0);
}

TEST(ScopedOpOverride, ReplacesTheKernelForTheScopeOnly) {
  EXPECT_EQ(run_negative(2.0), -2.0);
  {
    ScopedOpOverride doubled("negative", [](OpDef& def) {
      def.kernel = [](std::span<const Tensor> in, std::span<const Tensor> out, const Attrs&) {
        out[0].data_as<float>()[0] = 2 * in[0].data_as<float>()[0];
      };
    });
    EXPECT_EQ(run_negative(2.0), 4.0);
  }
  EXPECT_EQ(run_negative(2.0), -2.0);
}

TEST(ScopedOpOverride, NestedOverridesUnwindInOrder) {
  const OpDef& def = OpRegistry::global().get("negative");
  const int level = def.support_level;
  {
    ScopedOpOverride outer("negative", [](OpDef& d) { d.support_level = 7; });
    {
      ScopedOpOverride inner("negative", [](OpDef& d) { d.support_level = 9; });
      EXPECT_EQ(def.support_level, 9);
    }
    EXPECT_EQ(def.support_level, 7);
  }
  EXPECT_EQ(def.support_level, level);
}

TEST(ScopedOpOverride, RenamingIsAnErrorAndChangesNothing) {
  const OpDef& def = OpRegistry::global().get("negative");
  const std::string description = def.description;
  EXPECT_THAT(
      [] {
        ScopedOpOverride bad("negative", [](OpDef& d) {
          d.name = "positive";
          d.description = "changed";
        });
      },
      ::testing::ThrowsMessage<Error>(HasSubstr("may not rename the op (to 'positive')")));
  EXPECT_EQ(def.name, "negative");
  EXPECT_EQ(def.description, description);
}

TEST(ScopedOpOverride, UnknownOpIsAnError) {
  EXPECT_THAT([] { ScopedOpOverride none("no.such_op", [](OpDef&) {}); },
              ::testing::ThrowsMessage<Error>(HasSubstr("no.such_op")));
}

}  // namespace
}  // namespace weft::testing

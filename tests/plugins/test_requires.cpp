// A manifest's `requires:` enforced: an op's gradient (as its TE compute,
// rewrites, a model's builder or a pass) may build calls only of its own
// plugin's ops and those of the plugins it requires.
#include <gmock/gmock.h>

#include "plugin_test_util.h"
#include "weft/gradient.h"
#include "weft/passes.h"
#include "weft/printer.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class RequiresTest : public PluginTest {
 protected:
  /// The gradient of req.negate, whose gradient calls the scale plugin's ctest.scale.
  Function gradient_of_negate() {
    Var x = var("x", tensor_type({2}));
    return gradient(function({x}, call("req.negate", {x})));
  }
};

TEST_F(RequiresTest, AGradientCallingAnOpOfAPluginNotRequiredIsAnErrorNamingBothAndTheManifest) {
  add_plugin(root(), "scale", "c_scale", "ctest.scale");
  add_plugin(root(), "req", "undeclared_requirement", "req.negate");
  loader().load_all();
  try {
    gradient_of_negate();
    FAIL() << "the gradient used an op of a plugin its manifest does not require";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("plugin 'req' builds a call of op 'ctest.scale' in the gradient of op req.negate, "
                                    "but that op comes from plugin 'scale', which its manifest does not require "
                                    "(add 'scale' to requires: in "));
    EXPECT_THAT(e.what(), HasSubstr((root() / "req" / "weft-plugin.yaml").string()));
  }
}

TEST_F(RequiresTest, RequiringThePluginAllowsIt) {
  add_plugin(root(), "scale", "c_scale", "ctest.scale");
  add_plugin(root(), "req", "undeclared_requirement", "req.negate", "requires: [scale]\n");
  loader().load_all();
  EXPECT_THAT(to_text(gradient_of_negate()), HasSubstr("ctest.scale"));
}

}  // namespace
}  // namespace weft::testing

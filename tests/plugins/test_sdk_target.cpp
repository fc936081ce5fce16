// The SDK's view of a group, as a target walks it: the walker test target
// (test_plugins/walk_target.cpp) declines every group with a listing of the
// nodes sdk::post_order visited, each read through the SDK's accessors for
// its kind; the listing is checked against the program by hand.
#include <gmock/gmock.h>

#include "plugin_test_util.h"
#include "weft/passes.h"

namespace weft::testing {
namespace {

class SdkTargetTest : public PluginTest {
 protected:
  std::shared_ptr<Target> walker() {
    copy_test_library("walk_target", root() / "walker");
    write_file(root() / "walker" / "weft-plugin.yaml",
               "name: walker\nversion: 1.0.0\nabi: 1\nkind: target\nlibrary: libwalk_target.so\n"
               "provides:\n  targets: [walker]\n");
    loader().load("walker");
    const TargetDef* def = TargetRegistry::global().find_loaded("walker");
    if (!def) throw Error("the walker did not load");
    return def->create(empty_attrs());
  }
};

/// fn (%x: Tensor[(3), float32]) { OP(%x) } as a typed Primitive function.
Function primitive_of(const std::string& op) {
  Var x = var("x", tensor_type({3}, DataType::Float(32)));
  return infer_type(IRModule::from_function(function({x}, call(op, {x}), Type(), make_attrs({{"Primitive", 1}}))))
      .main();
}

TEST_F(SdkTargetTest, APartitionCompiledThroughTheSdkGivesAKernelPerGroupOrDeclinesIt) {
  std::shared_ptr<Target> target = walker();
  std::vector<Function> groups = {primitive_of("negative"), primitive_of("nn.relu"), primitive_of("negative")};
  std::vector<std::vector<Tensor>> constants(3, std::vector<Tensor>(1));
  std::vector<std::unique_ptr<TargetKernel>> kernels = target->compile_partition(groups, constants);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[1], nullptr);  // declined: not a negation
  Tensor in = Tensor::empty({3}, DataType::Float(32)), out = Tensor::zeros({3}, DataType::Float(32));
  for (int i = 0; i < 3; ++i) in.data_as<float>()[i] = static_cast<float>(i) - 1;
  for (size_t k : {size_t{0}, size_t{2}}) {
    ASSERT_NE(kernels[k], nullptr);
    EXPECT_EQ(kernels[k]->inplace_parameter(), 0u);
    std::vector<DLTensor> args = {in.dlpack_view(), out.dlpack_view()};
    kernels[k]->launch(nullptr, args);
    EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 3), (std::vector<float>{1, 0, -1}));
  }
}

TEST_F(SdkTargetTest, AKernelNamingAParameterTheGroupLacksAsInPlaceFailsItsCompile) {
  std::shared_ptr<Target> target = walker();
  std::vector<Function> groups = {primitive_of("exp")};
  std::vector<std::vector<Tensor>> constants(1, std::vector<Tensor>(1));
  try {
    target->compile_partition(groups, constants);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "target walker: inplace_parameter names parameter 1 of a group of 1");
    EXPECT_EQ(e.status(), StatusCode::kInternal);
  }
}

TEST_F(SdkTargetTest, APostOrderWalkReadsEveryNodeKindOnceAfterWhatItReads) {
  std::shared_ptr<Target> target = walker();

  // fn (%x, %c) { let %t = (add(%x, [1, 2]), %x); if (%c) { %t.0 } else { nn.leaky_relu(%t.1, alpha=0.25) } }
  Var x = var("x", tensor_type({2})), c = var("c", tensor_type({}, DataType::Bool())), t = var("t");
  Tensor one_two = Tensor::empty({2}, DataType::Float(32));
  one_two.data_as<float>()[0] = 1;
  one_two.data_as<float>()[1] = 2;
  Expr body = let(t, tuple({call("add", {x, constant(one_two)}), x}),
                  if_then_else(c, get_item(t, 0), call("nn.leaky_relu", {get_item(t, 1)}, {{"alpha", 0.25}})));
  Function fn = infer_type(IRModule::from_function(
                               function({x, c}, body, tensor_type({2}), make_attrs({{"Primitive", 1}}))))
                    .main();
  try {
    target->compile(fn, std::vector<Tensor>(2));
    FAIL() << "the walker declines every group";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), StatusCode::kUnsupported);
    EXPECT_EQ(e.message(),
              "target walker: compile: "
              "%0 = var x: Tensor[(2), float32]\n"
              "%1 = var c: bool\n"  // a 0-d tensor type prints as its dtype, as TVM's printer does
              // type inference annotates the let's variable, as Relay's does (update_missing_type_annotation)
              "%2 = var t: (Tensor[(2), float32], Tensor[(2), float32])\n"
              "%3 = const Tensor[(2), float32] [1.000000, ...]\n"
              "%4 = add(%0, %3): Tensor[(2), float32]\n"
              "%5 = (%4, %0)\n"
              "%6 = %2.0\n"
              "%7 = %2.1\n"
              "%8 = nn.leaky_relu(%7) alpha=0.250000: Tensor[(2), float32]\n"
              "%9 = if %1 then %6 else %8\n"
              "%10 = let %2 = %5 in %9\n"
              "%11 = fn(%0, %1) -> %10: Tensor[(2), float32] Primitive\n");
  }
}

}  // namespace
}  // namespace weft::testing

// Loop programs across the C boundary (ABI 1.10), as a code-generating
// target reads them through the SDK: the lister test target
// (test_plugins/loops_listing.cpp) declines every group with a listing of
// its program's buffers, variables and nodes, checked here against the
// program by hand; and the host's errors for what cannot be lowered.
#include <gmock/gmock.h>

#include "plugin_test_util.h"
#include "weft/passes.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

class LoopProgramTest : public PluginTest {
 protected:
  /// An instance of the lister (its library loaded once per test: a loaded
  /// library must not be copied over).
  std::shared_ptr<Target> lister(std::vector<std::pair<std::string, AttrValue>> options = {}) {
    if (!def_) {
      copy_test_library("loops_listing", root() / "lister");
      write_file(root() / "lister" / "weft-plugin.yaml",
                 "name: lister\nversion: 1.0.0\nabi: 1\nkind: target\nlibrary: libloops_listing.so\n"
                 "provides:\n  targets: [lister]\n");
      loader().load("lister");
      def_ = TargetRegistry::global().find_loaded("lister");
      if (!def_) throw Error("the lister did not load");
    }
    return def_->create(def_->options.normalize("lister", make_attrs(std::move(options))));
  }

  /// What compiling `fn` makes the lister (or the host) say.
  std::string compile_error(Target& target, const Function& fn) {
    try {
      target.compile(fn, std::vector<Tensor>(fn->params.size()));
    } catch (const Error& e) {
      return e.message();
    }
    ADD_FAILURE() << "the lister declines every group";
    return "";
  }

 private:
  const TargetDef* def_ = nullptr;
};

Function primitive(std::vector<Var> params, Expr body) {
  return infer_type(IRModule::from_function(function(std::move(params), std::move(body), Type(),
                                                     make_attrs({{"Primitive", 1}}))))
      .main();
}

TEST_F(LoopProgramTest, AnElementwiseGroupIsOneLoopStoringWhatItLoads) {
  std::shared_ptr<Target> target = lister();
  Var x = var("x", tensor_type({3}, DataType::Float(32)));
  // for i in range(3): negative[i] = -x[i]; every operand before its user, the index shared.
  EXPECT_EQ(compile_error(*target, primitive({x}, call("negative", {x}))),
            "target lister: compile: "
            "buffer 0 x float32 (3) strides (1) 3 elements arg 0\n"
            "buffer 1 negative float32 (3) strides (1) 3 elements arg 1\n"
            "var 0 i int32\n"
            "node 0: var int32 var 0 []\n"
            "node 1: load float32 buffer 0 [0]\n"
            "node 2: call float32 op 0 [1]\n"  // WEFT_TE_NEG
            "node 3: store buffer 1 [2,0]\n"
            "node 4: for kind 0 from 0 extent 3 var 0 [3]\n"
            "body 4, 2 args\n");
}

TEST_F(LoopProgramTest, APaddingSelectMustBranchAndAReducersSelectMayRunBothSides) {
  std::shared_ptr<Target> target = lister();
  Var x = var("x", tensor_type({3}, DataType::Float(32)));
  // pad reads x[i - 1] only where 1 <= i < 4: its select must not load elsewhere.
  Var value = var("v", tensor_type({}, DataType::Float(32)));
  std::string padded = compile_error(
      *target, primitive({x, value}, call("nn.pad", {x, value}, {{"pad_width", std::vector<AttrValue>{AttrValue{1, 1}}}})));
  EXPECT_THAT(padded, HasSubstr(" float32 (5) strides (1) 5 elements arg 2\n"));
  EXPECT_THAT(padded, HasSubstr(": select float32 op 0 ["));
  EXPECT_THAT(padded, ::testing::Not(HasSubstr(": select float32 op 1 [")));
  // Softmax's running maximum keeps the old value unless the new one is larger: both are in bounds.
  Var y = var("y", tensor_type({2, 3}, DataType::Float(32)));
  std::string reduced = compile_error(*target, primitive({y}, call("nn.softmax", {y}, {{"axis", 0}})));
  EXPECT_THAT(reduced, HasSubstr(": select float32 op 1 ["));
}

TEST_F(LoopProgramTest, TheHostRefusesACallAnOpWithoutTeAndNegativeTraits) {
  Var x = var("x", tensor_type({3}, DataType::Float(32)));
  Function negate = primitive({x}, call("negative", {x}));
  std::shared_ptr<Target> body_lister = lister({{"lower_body", true}});
  EXPECT_THAT(compile_error(*body_lister, negate), HasSubstr("loop_program_lower takes a Primitive function"));
  std::shared_ptr<Target> negative_lanes = lister({{"vector_lanes", int64_t{-1}}});
  EXPECT_THAT(compile_error(*negative_lanes, negate), HasSubstr("target traits must not be negative"));

  Var predictions = var("p", tensor_type({2, 3}, DataType::Float(32)));
  Var targets = var("t", tensor_type({2}, DataType::Int(32)));
  Var weights = var("w", tensor_type({3}, DataType::Float(32)));
  std::string no_te = compile_error(*lister(), primitive({predictions, targets, weights},
                                                          call("nn.nll_loss", {predictions, targets, weights})));
  EXPECT_THAT(no_te, HasSubstr("nn.nll_loss"));
}

}  // namespace
}  // namespace weft::testing

// A plugin written with plugin.hpp registers every kind of thing, and each
// works through the core's registries; exceptions in plugin code come back as
// weft::Error.
#include <gmock/gmock.h>

#include <cstring>

#include "plugin_test_util.h"
#include "weft/build.h"
#include "weft/graph_executor.h"
#include "weft/interpreter.h"
#include "weft/passes.h"
#include "weft/te/function_te.h"
#include "weft/text.h"

namespace weft::testing {
namespace {

using ::testing::HasSubstr;

// Loaded once per process: the pass registry, like a real program, keeps what
// plugins register until exit.
class SdkPluginTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<TempDir>();
    std::string text =
        "name: sdk\nversion: 0.2.0\nabi: 1\nkind: ops\nlibrary: libsdk_plugin.so\nprovides:\n"
        "  ops: [sdk.axpy, sdk.throw, sdk.stamp, sdk.row_argmax, sdk.bad_te]\n  models: [sdk.tiny]\n  initializers: [sdk.counter]\n  passes: [sdk.RenameMain, sdk.ContextProbe, sdk.ReadUnknownConfig]\n"
        "  frontends: [sdk.len]\n";
    copy_test_library("sdk_plugin", dir_->path() / "sdk");
    write_file(dir_->path() / "sdk" / "weft-plugin.yaml", text);
    loader_ = std::make_unique<PluginLoader>(PluginLoaderOptions{{dir_->path()}, {}});
    loader_->load("sdk");
  }
  // The library stays loaded (weft never unloads plugins); the loader and the
  // temporary folder go, so nothing leaks and /tmp stays clean.
  static void TearDownTestSuite() {
    loader_.reset();
    dir_.reset();
  }

 private:
  static inline std::unique_ptr<TempDir> dir_;
  static inline std::unique_ptr<PluginLoader> loader_;
};

template <typename T>
Tensor tensor_of(std::vector<int64_t> shape, DataType dt, std::vector<T> values) {
  Tensor t = Tensor::empty(std::move(shape), dt);
  std::memcpy(t.data(), values.data(), values.size() * sizeof(T));
  return t;
}

TEST_F(SdkPluginTest, OpSchemaHasDefaultsOptionalsAndNormalization) {
  const OpDef& op = OpRegistry::global().get("sdk.axpy");
  EXPECT_EQ(op.plugin, "sdk");
  EXPECT_EQ(op.support_level, 4);
  ASSERT_EQ(op.inputs.size(), 2u);
  EXPECT_EQ(op.inputs[1].name, "y");
  ASSERT_EQ(op.attrs.fields().size(), 3u);
  EXPECT_EQ(op.attrs.fields()[0].default_value, AttrValue(1.0));
  EXPECT_EQ(op.attrs.fields()[1].type, AttrType::kAny);
  EXPECT_TRUE(op.attrs.fields()[2].default_value->is_none());

  Var x = var("x", tensor_type({3}));
  Call c = call("sdk.axpy", {x, x}, {{"window", 3}});
  EXPECT_EQ(c->attrs->at("window"), AttrValue(std::vector<int64_t>{3, 3}));  // the plugin's normalizer
  EXPECT_EQ(c->attrs->at("alpha"), AttrValue(1.0));
  EXPECT_TRUE(c->attrs->at("note").is_none());
}

TEST_F(SdkPluginTest, NormalizerRejectionKeepsThePluginsReasonAndCode) {
  Var x = var("x", tensor_type({3}));
  try {
    call("sdk.axpy", {x, x}, {{"window", std::vector<int64_t>{1, 2, 3}}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op sdk.axpy, attr window: attribute 'window' has an invalid value [1, 2, 3]: "
                                    "window needs 1 or 2 values, got 3; expected an int or 2 ints"));
    EXPECT_EQ(e.status(), StatusCode::kInvalidArgument);
  }
  try {
    call("sdk.axpy", {x, x}, {{"window", 0}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.message(), HasSubstr("an empty window is not supported"));
    EXPECT_EQ(e.status(), StatusCode::kUnsupported);
  }
}

TEST_F(SdkPluginTest, StatusCodesSurviveTheBoundaryBothWays) {
  // The model's builder calls sdk.axpy through the host, whose normalization
  // fails with the normalizer's UNSUPPORTED: host Error -> status -> the SDK's
  // exception in the builder -> status -> host Error, code unchanged.
  try {
    build_model("sdk.tiny", make_attrs({{"window", 0}}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("model sdk.tiny: "));
    EXPECT_THAT(e.what(), HasSubstr("an empty window is not supported"));
    EXPECT_EQ(e.status(), StatusCode::kUnsupported);
  }
}

TEST_F(SdkPluginTest, RelationAndItsErrors) {
  Var x = var("x", tensor_type({2, 2}));
  Var y = var("y", tensor_type({2, 2}));
  EXPECT_EQ(type_to_text(infer_type(Expr(call("sdk.axpy", {x, y})))->checked_type()), "Tensor[(2, 2), float32]");
  Var z = var("z", tensor_type({3}));
  try {
    infer_type(Expr(call("sdk.axpy", {x, z})));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("x and y differ: Tensor[(2, 2), float32] vs Tensor[(3), float32]"));
  }
}

TEST_F(SdkPluginTest, KernelComputesInBothFloatTypes) {
  const OpDef& op = OpRegistry::global().get("sdk.axpy");
  Attrs attrs = make_attrs({{"alpha", 2.0}});
  Tensor x = tensor_of<float>({3}, DataType::Float(32), {1, 2, 3});
  Tensor y = tensor_of<float>({3}, DataType::Float(32), {10, 20, 30});
  Tensor out = Tensor::empty({3}, DataType::Float(32));
  op.kernel(std::vector<Tensor>{x, y}, std::vector<Tensor>{out}, attrs);
  EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 3), (std::vector<float>{12, 24, 36}));

  Tensor xd = tensor_of<double>({2}, DataType::Float(64), {0.5, -1});
  Tensor od = Tensor::empty({2}, DataType::Float(64));
  op.kernel(std::vector<Tensor>{xd, xd}, std::vector<Tensor>{od}, attrs);
  EXPECT_EQ(od.data_as<double>()[0], 1.5);
  EXPECT_EQ(od.data_as<double>()[1], -3.0);
}

RunConfig loops_only() {
  RunConfig config;
  config.targets = {"loops"};
  config.fallback = FallbackPolicy::kError;
  return config;
}

TEST_F(SdkPluginTest, AnOpsTeComputeRunsOnTheLoopsTargetWithItsAttrs) {
  IRModule mod = parse_module(R"(
def @main(%x: Tensor[(5), float64], %y: Tensor[(5), float64]) {
  sdk.axpy(%x, %y, alpha=-2.5)
})");
  Tensor x = tensor_of<double>({5}, DataType::Float(64), {1, 2, 3, 4, 0.5});
  Tensor y = tensor_of<double>({5}, DataType::Float(64), {10, 20, 30, 40, 1});
  auto compiled = build(mod, loops_only());
  ASSERT_EQ(compiled->groups.size(), 1u);
  EXPECT_EQ(compiled->groups[0].target, "loops");
  Tensor got = GraphExecutor(compiled).run({x, y}).tensor();
  std::vector<double> want = {7.5, 15, 22.5, 30, -0.25};  // -2.5 x + y by hand
  EXPECT_EQ(std::vector<double>(got.data_as<double>(), got.data_as<double>() + 5), want);
}

TEST_F(SdkPluginTest, ACustomReducerPadAndTupleComputeCrossTheBoundary) {
  IRModule mod = parse_module(R"(
def @main(%x: Tensor[(3, 4), float32]) { sdk.row_argmax(%x) })");
  // Row 0 has its maximum twice (the first wins), row 2 at its end.
  Tensor x = tensor_of<float>({3, 4}, DataType::Float(32), {1, 7, 7, 2, -3, -1, -2, -5, 0, 1, 2, 3});
  std::vector<Tensor> got = GraphExecutor(build(mod, loops_only())).run({x}).flatten();
  ASSERT_EQ(got.size(), 2u);
  const Tensor &index = got[0], &value = got[1];
  EXPECT_EQ(std::vector<int32_t>(index.data_as<int32_t>(), index.data_as<int32_t>() + 3), (std::vector<int32_t>{1, 1, 3}));
  EXPECT_EQ(std::vector<float>(value.data_as<float>(), value.data_as<float>() + 3), (std::vector<float>{7, -1, 3}));
}

TEST_F(SdkPluginTest, ATeComputeOfTheWrongShapeIsAnErrorNamingTheOp) {
  // Inputs other than the call's give axpy's compute another shape: the
  // host holds the TE of a call to the call's type.
  Function fn = infer_type(parse_module(R"(
def @main(%x: Tensor[(2), float32], %y: Tensor[(2), float32]) { sdk.axpy(%x, %y) })")).main();
  auto call = downcast<CallNode>(fn->body);
  std::vector<te::Tensor> wrong = {te::placeholder({3}), te::placeholder({3})};
  try {
    (void)te::call_te(call, wrong);
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("sdk.axpy"));
  }
}

TEST_F(SdkPluginTest, MisusedTeHostFunctionsAreErrorsNamingTheOpAndTheMistake) {
  const std::pair<const char*, const char*> cases[] = {
      {"operator", "unknown TE binary operator 99"},
      {"null", "expected a TE expression, got NULL"},
      {"kind", "the handle is not a TE expression"},
      {"extent", "an extent >= 0"},
      {"dtypes", "&& of float32 and int32; expected bool operands"},
      {"rank", "3 indices"},
  };
  for (const auto& [what, message] : cases) {
    IRModule mod = parse_module(std::string("def @main(%x: Tensor[(2), float32]) { sdk.bad_te(%x, what=\"") + what +
                                "\") }");
    try {
      build(mod, loops_only());
      ADD_FAILURE() << what << ": built";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("sdk.bad_te")) << what;
      EXPECT_THAT(e.what(), HasSubstr(message)) << what;
    }
  }
  // Used rightly, the same op runs on loops.
  Tensor x = tensor_of<float>({2}, DataType::Float(32), {1.5f, -2});
  Tensor got = GraphExecutor(build(parse_module("def @main(%x: Tensor[(2), float32]) { sdk.bad_te(%x) }"), loops_only()))
                   .run({x})
                   .tensor();
  EXPECT_EQ(std::vector<float>(got.data_as<float>(), got.data_as<float>() + 2), (std::vector<float>{1.5f, -2}));
}

// sdk.stamp adds the number of its call site's kernel preparation (the
// plugin counts them) to its input, so the outputs show when a call site was
// prepared, and how often.
constexpr const char* kTwoStamps = R"(
def @main(%x: Tensor[(3), float32]) {
  %0 = sdk.stamp(%x);
  sdk.stamp(%0)
})";

std::vector<float> floats(const Value& v) {
  const Tensor& t = v.tensor();
  return std::vector<float>(t.data_as<float>(), t.data_as<float>() + t.numel());
}

/// What two stamps add to x: the preparations' numbers, one per call site.
float added_by(const Value& out) { return floats(out)[0] - 1.0f; }

TEST_F(SdkPluginTest, APreparedKernelIsPreparedOncePerCallSiteOnTheInterpreter) {
  Interpreter interp(parse_module(kTwoStamps, "stamps.relay"));
  Tensor x = tensor_of<float>({3}, DataType::Float(32), {1, 1, 1});
  Value first = interp.run_main({x});
  float stamps = added_by(first);
  // Two sites prepared one after the other: n + (n + 1) for some n >= 1.
  EXPECT_GE(stamps, 3.0f);
  EXPECT_EQ(static_cast<int>(stamps) % 2, 1);
  for (int run = 0; run < 3; ++run) EXPECT_EQ(floats(interp.run_main({x})), floats(first)) << "run " << run;
  // Another interpreter prepares its own call sites: two preparations later.
  EXPECT_EQ(added_by(Interpreter(parse_module(kTwoStamps, "stamps.relay")).run_main({x})), stamps + 4.0f);
}

TEST_F(SdkPluginTest, APreparedKernelIsPreparedWhenTheRefTargetCompilesItsCall) {
  RunConfig config;
  config.targets = {"ref"};
  auto compiled = build(parse_module(kTwoStamps, "stamps.relay"), config);
  GraphExecutor executor(compiled);
  Tensor x = tensor_of<float>({3}, DataType::Float(32), {1, 1, 1});
  Value first = executor.run({x});
  EXPECT_GE(added_by(first), 3.0f);
  for (int run = 0; run < 3; ++run) EXPECT_EQ(floats(executor.run({x})), floats(first)) << "run " << run;
}

TEST_F(SdkPluginTest, ARunWithoutACallSitePreparesAndRunsInOneGo) {
  const OpDef& op = OpRegistry::global().get("sdk.stamp");
  ASSERT_TRUE(op.prepare_kernel);
  Tensor x = tensor_of<float>({2}, DataType::Float(32), {0, 0}), out = Tensor::empty({2}, DataType::Float(32));
  Attrs attrs = make_attrs({{"fail", false}});
  op.kernel(std::vector<Tensor>{x}, std::vector<Tensor>{out}, attrs);
  float stamp = out.data_as<float>()[0];
  op.kernel(std::vector<Tensor>{x}, std::vector<Tensor>{out}, attrs);
  EXPECT_EQ(out.data_as<float>()[0], stamp + 1.0f);
}

TEST_F(SdkPluginTest, AKernelThatCannotBePreparedIsAnErrorNamingTheOpAndTheCall) {
  Interpreter interp(parse_module(R"(
def @main(%x: Tensor[(3), float32]) {
  sdk.stamp(%x, fail=True)
})",
                                  "fail.relay"));
  try {
    interp.run_main({Tensor::zeros({3}, DataType::Float(32))});
    ADD_FAILURE() << "preparing the kernel did not fail";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), StatusCode::kUnsupported);
    EXPECT_THAT(e.what(), HasSubstr("op sdk.stamp: this call cannot be prepared"));
    EXPECT_THAT(e.what(), HasSubstr("in preparing its kernel"));
    EXPECT_THAT(e.what(), HasSubstr("sdk.stamp(%x, fail=True)"));
  }
}

TEST_F(SdkPluginTest, ExceptionsInPluginCodeBecomeErrors) {
  const OpDef& op = OpRegistry::global().get("sdk.axpy");
  Tensor xi = Tensor::zeros({2}, DataType::Int(32));
  try {
    op.kernel(std::vector<Tensor>{xi, xi}, std::vector<Tensor>{Tensor::zeros({2}, DataType::Int(32))},
              make_attrs({{"alpha", 1.0}}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op sdk.axpy: sdk.axpy supports float32 and float64, got int32"));
    EXPECT_EQ(e.status(), StatusCode::kUnsupported);  // the kernel's own code
  }
}

/// The Error that sdk.throw's kernel raises with `what`.
Error kernel_error(const std::string& what) {
  Tensor x = Tensor::zeros({2}, DataType::Float(32)), out = Tensor::zeros({2}, DataType::Float(32));
  try {
    OpRegistry::global().get("sdk.throw").kernel(std::vector<Tensor>{x}, std::vector<Tensor>{out},
                                                  make_attrs({{"what", what}}));
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "sdk.throw with what=" << what << " did not throw";
  return Error("");
}

TEST_F(SdkPluginTest, EachKindOfExceptionCrossesAsItsStatus) {
  // Allocation failures: OUT_OF_MEMORY (they were INVALID_ARGUMENT, blaming the user's input).
  Error oom = kernel_error("bad_alloc");
  EXPECT_EQ(oom.status(), StatusCode::kOutOfMemory);
  EXPECT_THAT(oom.what(), HasSubstr("op sdk.throw: out of memory (std::bad_alloc)"));
  Error too_long = kernel_error("length_error");
  EXPECT_EQ(too_long.status(), StatusCode::kOutOfMemory);
  EXPECT_THAT(too_long.what(), HasSubstr("out of memory ("));
  // CheckedInt's overflow: an attr too large, the user's input.
  Error overflow = kernel_error("overflow");
  EXPECT_EQ(overflow.status(), StatusCode::kInvalidArgument);
  EXPECT_THAT(overflow.what(), HasSubstr("integer overflow: 9223372036854775807 + 1 does not fit in int64"));
  Error unsupported = kernel_error("unsupported");
  EXPECT_EQ(unsupported.status(), StatusCode::kUnsupported);
  EXPECT_THAT(unsupported.what(), HasSubstr("no kernel for this case"));
  // Any other standard exception is a bug in the plugin, reported with its what().
  Error logic = kernel_error("logic_error");
  EXPECT_EQ(logic.status(), StatusCode::kInternal);
  EXPECT_THAT(logic.what(), HasSubstr("an invariant broke"));
  Error unknown = kernel_error("int");
  EXPECT_EQ(unknown.status(), StatusCode::kInternal);
  EXPECT_THAT(unknown.what(), HasSubstr("unknown exception in plugin"));
}

TEST_F(SdkPluginTest, APluginKernelOutOfMemoryNamesTheCallAndItsSizes) {
  Var x = var("x", tensor_type({2}));
  Call c = call("sdk.throw", {x}, {{"what", std::string("bad_alloc")}});
  try {
    run_op(c, {Value(Tensor::zeros({2}, DataType::Float(32)))}, tensor_type({2}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), StatusCode::kOutOfMemory);
    // Its float32 input and output: 8 bytes each.
    EXPECT_THAT(e.what(), HasSubstr("op sdk.throw: out of memory in the op's kernel, which works on 16 bytes"));
  }
}

TEST_F(SdkPluginTest, GradientBuildsIR) {
  const OpDef& op = OpRegistry::global().get("sdk.axpy");
  Var x = var("x", tensor_type({2}));
  Var g = var("g", tensor_type({2}));
  std::vector<Expr> grads = op.gradient(call("sdk.axpy", {x, x}, {{"alpha", 3.0}}), g);
  ASSERT_EQ(grads.size(), 2u);
  auto dx = grads[0].as<CallNode>();
  ASSERT_NE(dx, nullptr);
  EXPECT_EQ(dx->attrs->at("alpha"), AttrValue(2.0));  // axpy(g, g, alpha - 1) = alpha * g
  EXPECT_TRUE(grads[1].same_as(g));
}

// A typed call of sdk.axpy(%x, %y) with `alpha`, as rewrites receive it.
Call typed_axpy(double alpha) {
  Var x = var("x", tensor_type({2})), y = var("y", tensor_type({2}));
  Function fn = infer_type(IRModule::from_expr(call("sdk.axpy", {x, y}, {{"alpha", alpha}}))).main();
  return downcast<CallNode>(fn->body);
}

TEST_F(SdkPluginTest, RewritesCrossTheBoundaryByName) {
  const OpDef& op = OpRegistry::global().get("sdk.axpy");
  ASSERT_EQ(op.rewrites.size(), 3u);
  const CallRewrite& drop = op.rewrites.at("drop_zero_alpha");
  Call zero = typed_axpy(0.0);
  EXPECT_TRUE(drop(zero).same_as(zero->args[1]));  // the plugin handed back the host's own node
  EXPECT_FALSE(drop(typed_axpy(2.0)).defined());   // a NULL result: the rewrite does not apply
  // A replacement the plugin built through the host API.
  Call unit = typed_axpy(1.0);
  Expr swapped = op.rewrites.at("commute_unit_alpha")(unit);
  auto* c = swapped.as<CallNode>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->op.as<OpNode>()->name(), "sdk.axpy");
  EXPECT_TRUE(c->args[0].same_as(unit->args[1]));
  EXPECT_TRUE(c->args[1].same_as(unit->args[0]));
}

TEST_F(SdkPluginTest, RewriteThatThrowsIsAnErrorNamingTheOpAndTheRewrite) {
  const OpDef& op = OpRegistry::global().get("sdk.axpy");
  try {
    op.rewrites.at("unrewritable")(typed_axpy(1.0));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op sdk.axpy: rewrite 'unrewritable': no rule for this call"));
    EXPECT_EQ(e.status(), StatusCode::kUnsupported);
  }
  // An untyped call: the plugin's reading of its type fails, and says why.
  Var x = var("x", tensor_type({2}));
  try {
    op.rewrites.at("drop_zero_alpha")(call("sdk.axpy", {x, x}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("op sdk.axpy: rewrite 'drop_zero_alpha': "));
  }
}

TEST_F(SdkPluginTest, ModelBuildsWithCheckedParameters) {
  Function f = build_model("sdk.tiny", make_attrs({{"units", 5}}));
  ASSERT_EQ(f->params.size(), 1u);
  EXPECT_EQ(f->params[0]->name_hint, "data");
  EXPECT_EQ(type_to_text(f->params[0]->type_annotation), "Tensor[(5), float32]");
  EXPECT_EQ(type_to_text(build_model("sdk.tiny")->params[0]->type_annotation), "Tensor[(4), float32]");
  EXPECT_THAT([] { build_model("sdk.tiny", make_attrs({{"units", 0}})); },
              ::testing::ThrowsMessage<Error>(HasSubstr("units must be positive, got 0")));
  EXPECT_THROW(build_model("sdk.tiny", make_attrs({{"unitz", 3}})), Error);
}

TEST_F(SdkPluginTest, InitializerKeepsStateAcrossParameters) {
  InitializerFill fill = make_initializer("sdk.counter", /*seed=*/10, make_attrs({{"start", 1.0}}));
  Tensor w1 = Tensor::empty({2}, DataType::Float(32));
  Tensor w2 = Tensor::empty({3}, DataType::Float(32));
  fill("conv_weight", w1);
  fill("dense_weight", w2);
  EXPECT_EQ(std::vector<float>(w1.data_as<float>(), w1.data_as<float>() + 2), (std::vector<float>{11, 12}));
  EXPECT_EQ(std::vector<float>(w2.data_as<float>(), w2.data_as<float>() + 3), (std::vector<float>{13, 14, 15}));
  EXPECT_THAT([&] { fill("conv_bias", w1); },
              ::testing::ThrowsMessage<Error>(HasSubstr("sdk.counter fills only weights, not conv_bias")));
}

TEST_F(SdkPluginTest, PassRunsOnModules) {
  Var x = var("x", tensor_type({1}));
  IRModule mod = IRModule::from_function(function({x}, x));
  IRModule out = PassRegistry::global().create("sdk.RenameMain")(mod);
  EXPECT_TRUE(out.contains("renamed"));
  EXPECT_TRUE(out.contains("main"));
  EXPECT_EQ(PassRegistry::global().create("sdk.RenameMain").info().opt_level, 1);
  // A plugin's pass is a definition like its ops: it names the plugin that registered it.
  EXPECT_EQ(PassRegistry::global().get("sdk.RenameMain").plugin, "sdk");
}

TEST_F(SdkPluginTest, APassReadsThePassContextItRunsUnder) {
  Var x = var("x", tensor_type({1}));
  IRModule mod = IRModule::from_function(function({x}, x));
  PassContext ctx;
  ctx.opt_level = 0;
  ctx.set_config("relay.FuseOps.max_depth", 7);
  ctx.required_passes = {"sdk.ContextProbe"};
  ctx.disabled_passes = {"FuseOps", "FoldConstant"};
  // opt level 0 < sdk.RenameMain's 1: the probe leaves main alone.
  IRModule out = sequential({PassRegistry::global().create("sdk.ContextProbe")})(mod, ctx);
  EXPECT_FALSE(out.contains("renamed"));
  std::map<std::string, int64_t> expected = {{"opt level", 0},       {"max depth", 7},
                                             {"required sdk.ContextProbe", 1}, {"disabled FuseOps", 1},
                                             {"disabled FoldConstant", 1}};
  EXPECT_EQ(ctx.statistics()["sdk.ContextProbe"], expected);

  // At opt level 1 it runs sdk.RenameMain under the same context: the context's instruments see it.
  PassContext level1;
  level1.opt_level = 1;
  auto timing = std::make_shared<TimingInstrument>();
  level1.instruments = {timing};
  out = PassRegistry::global().create("sdk.ContextProbe")(mod, level1);
  EXPECT_TRUE(out.contains("renamed"));
  ASSERT_EQ(timing->entries().size(), 2u);
  EXPECT_EQ(timing->entries()[1].pass, "sdk.RenameMain");
  EXPECT_EQ(timing->entries()[1].depth, 1);
  EXPECT_EQ(level1.statistics()["sdk.ContextProbe"]["max depth"], 256);  // the registered default
}

TEST_F(SdkPluginTest, AnUnknownConfigKeyIsAnErrorNamingThePassAndTheKey) {
  Var x = var("x", tensor_type({1}));
  IRModule mod = IRModule::from_function(function({x}, x));
  std::string msg;
  try {
    PassRegistry::global().create("sdk.ReadUnknownConfig")(mod, PassContext());
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_THAT(msg, HasSubstr("pass sdk.ReadUnknownConfig: unknown pass config 'sdk.no_such_key'"));
  EXPECT_THAT(msg, HasSubstr("relay.FuseOps.max_depth"));  // the registered keys are listed
}

TEST_F(SdkPluginTest, FrontendImportsFiles) {
  TempDir dir;
  write_file(dir.path() / "m.len", "3\n");
  const FrontendDef& f = FrontendRegistry::global().get("sdk.len");
  EXPECT_EQ(f.extensions, std::vector<std::string>{".len"});
  IRModule mod = f.import_file((dir.path() / "m.len").string(), f.options.normalize("sdk.len", make_attrs({{"scale", 2}})));
  EXPECT_EQ(type_to_text(mod.main()->params[0]->type_annotation), "Tensor[(6), float32]");
  write_file(dir.path() / "bad.len", "three\n");
  try {
    f.import_file((dir.path() / "bad.len").string(), f.options.normalize("sdk.len", nullptr));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.len: frontend sdk.len: expected an integer"));
  }
}

}  // namespace
}  // namespace weft::testing

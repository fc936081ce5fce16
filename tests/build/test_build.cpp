// weft::build: the partition among the configured targets, splitting a group
// no listed target takes whole, a target declining or failing a compile, and
// what falls back to `ref` (warned about, or an error).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "weft/build.h"
#include "weft/functor.h"
#include "weft/graph_executor.h"
#include "weft/op.h"
#include "weft/passes.h"
#include "weft/run_config.h"
#include "weft/text.h"

namespace weft {
namespace {

/// What a test target does: the ops it takes, and optionally its own compile
/// (to decline or fail) and layout preferences.
struct FakeSpec {
  std::string name = "fake";
  std::set<std::string> ops = {};
  std::function<std::unique_ptr<TargetKernel>(const Function&, std::span<const Tensor>)> compile = nullptr;
  std::function<Expr(const Call&)> alter_layout = nullptr;
  std::function<std::vector<std::unique_ptr<TargetKernel>>(std::span<const Function>,
                                                           std::span<const std::vector<Tensor>>)>
      compile_partition = nullptr;
  bool host_addressable = true;  // false: a device's target (its buffers still host memory underneath)
};

/// A target that takes only the ops of its spec and runs them on the
/// reference kernels.
class FakeTarget : public Target {
 public:
  explicit FakeTarget(FakeSpec spec)
      : ref_(TargetRegistry::global().get(kReferenceTarget).create(empty_attrs())), spec_(std::move(spec)) {}

  bool supports(const Call& call) const override {
    auto op = call->op.as<OpNode>();
    return op && spec_.ops.count(op->name()) > 0;
  }
  Expr alter_layout(const Call& call) const override {
    return spec_.alter_layout ? spec_.alter_layout(call) : Expr();
  }
  std::unique_ptr<TargetKernel> compile(const Function& fn, std::span<const Tensor> constants) override {
    return spec_.compile ? spec_.compile(fn, constants) : ref_->compile(fn, constants);
  }
  std::vector<std::unique_ptr<TargetKernel>> compile_partition(
      std::span<const Function> primitives, std::span<const std::vector<Tensor>> constants) override {
    return spec_.compile_partition ? spec_.compile_partition(primitives, constants) : Target::compile_partition(primitives, constants);
  }
  std::vector<TargetDevice> devices() const override { return ref_->devices(); }
  bool host_addressable() const override { return spec_.host_addressable; }
  BufferHandle alloc(int device, size_t nbytes, size_t alignment) override {
    return ref_->alloc(device, nbytes, alignment);
  }
  void free(int device, BufferHandle buffer) override { ref_->free(device, buffer); }
  void copy_from_host(StreamHandle s, const void* src, BufferHandle dst, size_t offset, size_t n) override {
    ref_->copy_from_host(s, src, dst, offset, n);
  }
  void copy_to_host(StreamHandle s, BufferHandle src, size_t offset, void* dst, size_t n) override {
    ref_->copy_to_host(s, src, offset, dst, n);
  }
  void copy_buffer(StreamHandle s, BufferHandle src, size_t src_offset, BufferHandle dst, size_t dst_offset,
                   size_t n) override {
    ref_->copy_buffer(s, src, src_offset, dst, dst_offset, n);
  }
  StreamHandle create_stream(int device) override { return ref_->create_stream(device); }
  void destroy_stream(StreamHandle s) override { ref_->destroy_stream(s); }
  void synchronize(StreamHandle s) override { ref_->synchronize(s); }

 private:
  std::shared_ptr<Target> ref_;
  FakeSpec spec_;
};

/// Registers a FakeTarget for the test's lifetime.
class ScopedFakeTarget {
 public:
  explicit ScopedFakeTarget(FakeSpec spec) : name_(spec.name) {
    TargetDef def;
    def.name = spec.name;
    def.description = "a test target";
    def.create = [spec = std::move(spec)](const Attrs&) { return std::make_shared<FakeTarget>(spec); };
    TargetRegistry::global().add(std::move(def));
  }
  ~ScopedFakeTarget() { TargetRegistry::global().remove(name_); }
  ScopedFakeTarget(const ScopedFakeTarget&) = delete;
  ScopedFakeTarget& operator=(const ScopedFakeTarget&) = delete;

 private:
  std::string name_;
};

RunConfig config_with(std::vector<std::string> targets, FallbackPolicy fallback = FallbackPolicy::kWarn) {
  RunConfig config;
  config.targets = std::move(targets);
  config.fallback = fallback;
  return config;
}

/// Three groups: add and relu, softmax and the relu it flows into, softmax.
constexpr const char* kElementwiseProgram = R"(
fn (%x: Tensor[(1, 4), float32], %y: Tensor[(1, 4), float32]) {
  %0 = add(%x, %y);
  %1 = nn.relu(%0);
  %2 = nn.softmax(%1);
  %3 = nn.relu(%2);
  nn.softmax(%3)
})";

/// dense absorbs the add and the relu after it: one group mixing what the
/// fake target takes (add, relu) with what it does not (dense).
constexpr const char* kDenseProgram = R"(
fn (%x: Tensor[(1, 4), float32], %w: Tensor[(3, 4), float32]) {
  %0 = nn.dense(%x, %w, units=3);
  %1 = add(%0, 1f);
  %2 = nn.relu(%1);
  nn.softmax(%2)
})";

std::shared_ptr<const CompiledModule> build_text(const char* text, const RunConfig& config) {
  return build(parse_module(text), config);
}

TEST(Build, TheDefaultConfigPutsEveryFusedGroupOnRef) {
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kElementwiseProgram, RunConfig());
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // no targets listed: nothing to warn about
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref  add, nn.relu\n"
            "1  ref  nn.softmax, nn.relu\n"
            "2  ref  nn.softmax\n");
  EXPECT_TRUE(compiled->fallback_ops.empty());
  EXPECT_EQ(compiled->targets.size(), 1u);
  EXPECT_TRUE(compiled->targets.count("ref"));
  EXPECT_GE(compiled->build_ms, 0.0);
  // group_of names each group's Primitive function in main.
  ASSERT_EQ(compiled->group_of.size(), compiled->groups.size());
  for (size_t g = 0; g < compiled->groups.size(); ++g)
    EXPECT_EQ(compiled->group_of.at(compiled->groups[g].primitive.get()), g);
}

TEST(Build, OnlyRefListedIsNoFallbackEvenWithFallbackError) {
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kElementwiseProgram, config_with({"ref"}, FallbackPolicy::kError));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref  add, nn.relu\n"
            "1  ref  nn.softmax, nn.relu\n"
            "2  ref  nn.softmax\n");
  EXPECT_TRUE(compiled->fallback_ops.empty());
}

TEST(Build, GroupsATargetSupportsWholeGoToIt) {
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"}});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kElementwiseProgram, config_with({"fake"}));
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  fake  add, nn.relu\n"
            "1  ref   nn.softmax\n"
            "2  fake  nn.relu\n"
            "3  ref   nn.softmax\n");
  EXPECT_EQ(warning,
            "weft: warning: no listed target (fake) supports these ops, so they run on ref:\n"
            "  nn.softmax x 2\n");
}

TEST(Build, AGroupMixingSupportedAndUnsupportedOpsIsSplit) {
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"}});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kDenseProgram, config_with({"fake"}));
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref   nn.dense\n"
            "1  fake  add\n"
            "2  fake  nn.relu\n"
            "3  ref   nn.softmax\n");
  EXPECT_EQ(warning,
            "weft: warning: no listed target (fake) supports these ops, so they run on ref:\n"
            "  nn.dense(units=3) x 1\n"
            "  nn.softmax(axis=1) x 1\n");
  ASSERT_EQ(compiled->fallback_ops.size(), 2u);
  EXPECT_EQ(compiled->fallback_ops[0].op, "nn.dense");
  EXPECT_EQ(compiled->fallback_ops[0].attrs, "units=3");
  EXPECT_EQ(compiled->fallback_ops[0].count, 1);
}

TEST(Build, AReshapeOnlyGroupIsAViewAndNoFallback) {
  // The flatten between relu and dense is a group of its own that runs as a
  // view of its input on whichever target: no op of it runs on ref.
  ScopedFakeTarget fake({.ops = {"nn.relu", "nn.dense"}});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(R"(
fn (%x: Tensor[(1, 2, 2), float32], %w: Tensor[(3, 4), float32]) {
  nn.dense(nn.batch_flatten(nn.relu(%x)), %w, units=3)
})",
                             config_with({"fake"}));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_THAT(describe_partition(*compiled), ::testing::HasSubstr("ref   nn.batch_flatten"));
  EXPECT_TRUE(compiled->fallback_ops.empty());
}

TEST(Build, AGroupNoListedTargetTakesAnyCallOfStaysWhole) {
  ScopedFakeTarget fake({.ops = {"nn.softmax"}});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kDenseProgram, config_with({"fake"}));
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref   nn.dense, add, nn.relu\n"
            "1  fake  nn.softmax\n");
}

TEST(Build, ATargetDecliningACompilePassesTheGroupOn) {
  // The fake target declines every group holding a relu; add alone it takes.
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"}, .compile = [](const Function& fn, std::span<const Tensor> constants) {
    bool relu = false;
    post_order_visit(fn->body, [&](const Expr& e) {
      if (auto op = e.as<OpNode>()) relu = relu || op->name() == "nn.relu";
    });
    if (relu) throw Error("relu is not implemented for this shape").status(StatusCode::kUnsupported);
    return TargetRegistry::global().get(kReferenceTarget).create(empty_attrs())->compile(fn, constants);
  }});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kDenseProgram, config_with({"fake"}));
  std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref   nn.dense\n"
            "1  fake  add\n"
            "2  ref   nn.relu\n"
            "3  ref   nn.softmax\n");
  // relu is supported by a listed target: declined at compile, it is no fallback op.
  EXPECT_EQ(warning,
            "weft: warning: no listed target (fake) supports these ops, so they run on ref:\n"
            "  nn.dense(units=3) x 1\n"
            "  nn.softmax(axis=1) x 1\n");
}

/// Whether `fn` calls op `name`.
bool calls_op(const Function& fn, const std::string& name) {
  bool found = false;
  post_order_visit(fn->body, [&](const Expr& e) {
    if (auto op = e.as<OpNode>()) found = found || op->name() == name;
  });
  return found;
}

TEST(Build, ATargetCompilingPartitionsGetsAllItsGroupsAtOnceAndMayDeclineSome) {
  // The fake target takes add and relu, compiles all its groups in one call
  // and declines the group of a lone relu, which goes on to ref.
  std::vector<size_t> partition_sizes;
  size_t single_compiles = 0;
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"},
                         .compile =
                             [&](const Function& fn, std::span<const Tensor> constants) {
                               ++single_compiles;
                               return TargetRegistry::global().get(kReferenceTarget).create(empty_attrs())->compile(
                                   fn, constants);
                             },
                         .compile_partition =
                             [&](std::span<const Function> primitives, std::span<const std::vector<Tensor>> constants) {
                               partition_sizes.push_back(primitives.size());
                               auto ref = TargetRegistry::global().get(kReferenceTarget).create(empty_attrs());
                               std::vector<std::unique_ptr<TargetKernel>> kernels;
                               for (size_t g = 0; g < primitives.size(); ++g)
                                 kernels.push_back(calls_op(primitives[g], "add")
                                                       ? ref->compile(primitives[g], constants[g])
                                                       : nullptr);
                               return kernels;
                             }});
  auto compiled = build_text(kElementwiseProgram, config_with({"fake"}, FallbackPolicy::kWarn));
  EXPECT_EQ(partition_sizes, (std::vector<size_t>{2}));  // add+relu, relu: the softmaxes are ref's
  EXPECT_EQ(single_compiles, 0u);  // a declined group goes to the next target, not back to compile
  EXPECT_EQ(describe_partition(*compiled),
            "0  fake  add, nn.relu\n"
            "1  ref   nn.softmax\n"
            "2  ref   nn.relu\n"
            "3  ref   nn.softmax\n");
  // Still the program's result.
  GraphExecutor executor(compiled);
  Tensor x = Tensor::zeros({1, 4}, DataType::Float(32)), y = Tensor::zeros({1, 4}, DataType::Float(32));
  EXPECT_NEAR(executor.run({x, y}).tensor().data_as<float>()[0], 0.25, 1e-6);
}

TEST(Build, APartitionDeclinedWholeGoesGroupByGroupToTheNextTarget) {
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"},
                         .compile_partition = [](std::span<const Function>, std::span<const std::vector<Tensor>>)
                             -> std::vector<std::unique_ptr<TargetKernel>> {
                           throw Error("no partitions today").status(StatusCode::kUnsupported);
                         }});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kDenseProgram, config_with({"fake"}));
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref  nn.dense\n"
            "1  ref  add\n"
            "2  ref  nn.relu\n"
            "3  ref  nn.softmax\n");
}

TEST(Build, APartitionWithTheWrongNumberOfKernelsFailsTheBuildNamingTheTarget) {
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"},
                         .compile_partition = [](std::span<const Function>, std::span<const std::vector<Tensor>>) {
                           std::vector<std::unique_ptr<TargetKernel>> none;
                           none.push_back(nullptr);
                           none.push_back(nullptr);
                           none.push_back(nullptr);
                           return none;
                         }});
  try {
    build_text(kElementwiseProgram, config_with({"fake"}));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "target 'fake' compiled 3 kernels for its partition of 2 groups");
    EXPECT_EQ(e.status(), StatusCode::kInternal);
  }
}

/// A reference kernel claiming to have packed the parameters in `packed`,
/// and that its result may overwrite parameter `inplace`.
class ClaimingKernel : public TargetKernel {
 public:
  ClaimingKernel(std::unique_ptr<TargetKernel> kernel, std::vector<bool> packed,
                 std::optional<size_t> inplace = std::nullopt)
      : kernel_(std::move(kernel)), packed_(std::move(packed)), inplace_(inplace) {}
  void launch(StreamHandle stream, std::span<const DLTensor> args) const override { kernel_->launch(stream, args); }
  std::vector<bool> packed_constants() const override { return packed_; }
  std::optional<size_t> inplace_parameter() const override { return inplace_; }

 private:
  std::unique_ptr<TargetKernel> kernel_;
  std::vector<bool> packed_;
  std::optional<size_t> inplace_;
};

TEST(Build, KeepsTheParameterAKernelNamesAsOneItsResultMayOverwrite) {
  auto ref = TargetRegistry::global().get(kReferenceTarget).create(empty_attrs());
  auto naming = [&](std::optional<size_t> inplace) {  // in the group of add and relu only
    return [ref, inplace](const Function& fn, std::span<const Tensor> constants) -> std::unique_ptr<TargetKernel> {
      return std::make_unique<ClaimingKernel>(ref->compile(fn, constants), std::vector<bool>{},
                                              fn->params.size() == 2 ? inplace : std::nullopt);
    };
  };
  // add(x, y) then relu: the core's own rule picks x, the first of the result's type; the kernel may name y.
  {
    ScopedFakeTarget fake({.ops = {"add", "nn.relu"}, .compile = naming(std::nullopt)});
    EXPECT_EQ(build_text(kElementwiseProgram, config_with({"fake"}))->groups.at(0).inplace_param, 0u);
  }
  {
    ScopedFakeTarget fake({.ops = {"add", "nn.relu"}, .compile = naming(1)});
    EXPECT_EQ(build_text(kElementwiseProgram, config_with({"fake"}))->groups.at(0).inplace_param, 1u);
  }
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"}, .compile = naming(2)});
  try {
    build_text(kElementwiseProgram, config_with({"fake"}));
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("target 'fake' names parameter 2 of the group of add, nn.relu as one "
                                               "its result may overwrite"));
    EXPECT_EQ(e.status(), StatusCode::kInternal);
  }
}

TEST(Build, AKernelClaimingToHavePackedARunTimeArgumentFailsTheBuild) {
  auto ref = TargetRegistry::global().get(kReferenceTarget).create(empty_attrs());
  auto claiming = [&](std::vector<bool> packed) {
    return [ref, packed](const Function& fn, std::span<const Tensor> constants) -> std::unique_ptr<TargetKernel> {
      return std::make_unique<ClaimingKernel>(ref->compile(fn, constants), packed);
    };
  };
  for (auto [packed, message] : std::vector<std::pair<std::vector<bool>, std::string>>{
           {{true, false}, "its kernel marks parameter 0 packed, but it is computed at run time"},
           {{true}, "its kernel marks 1 packed constants for a group of 2 parameters"}}) {
    ScopedFakeTarget fake({.ops = {"add", "nn.relu"}, .compile = claiming(packed)});
    try {
      build_text(kElementwiseProgram, config_with({"fake"}));
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), "target 'fake' failed to compile the group of add, nn.relu: " + message);
    }
  }
}

TEST(Build, ATargetFailingACompileFailsTheBuildNamingTheTargetAndTheOps) {
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"}, .compile = [](const Function&, std::span<const Tensor>) -> std::unique_ptr<TargetKernel> {
    throw Error("out of registers");
  }});
  try {
    build_text(kElementwiseProgram, config_with({"fake"}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "target 'fake' failed to compile the group of add, nn.relu: out of registers");
  }
}

TEST(Build, FallbackErrorFailsNamingEachOpNoListedTargetSupports) {
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"}});
  try {
    build_text(kDenseProgram, config_with({"fake"}, FallbackPolicy::kError));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "no listed target (fake) supports these ops, and the config says `fallback: error`:\n"
                 "  nn.dense(units=3) x 1\n"
                 "  nn.softmax(axis=1) x 1");
    EXPECT_EQ(e.status(), StatusCode::kUnsupported);
  }
}

TEST(Build, FallbackCountsCallsOfTheSameOpAndAttrsTogether) {
  ScopedFakeTarget fake({.ops = {"add"}});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kElementwiseProgram, config_with({"fake"}));
  std::string warning = ::testing::internal::GetCapturedStderr();
  // The first group is split: add goes to fake, its relu falls back with the
  // second group's, which stays whole (fake takes none of its calls).
  EXPECT_EQ(describe_partition(*compiled),
            "0  fake  add\n"
            "1  ref   nn.relu\n"
            "2  ref   nn.softmax, nn.relu\n"
            "3  ref   nn.softmax\n");
  EXPECT_EQ(warning,
            "weft: warning: no listed target (fake) supports these ops, so they run on ref:\n"
            "  nn.relu x 2\n"
            "  nn.softmax x 2\n");
}

TEST(Build, WithoutFuseOpsEachOpCallIsAGroupOfItsOwn) {
  ScopedFakeTarget fake({.ops = {"add", "nn.relu"}});
  RunConfig config = config_with({"fake"});
  config.disabled_passes = {"FuseOps"};
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kElementwiseProgram, config);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  fake  add\n"
            "1  fake  nn.relu\n"
            "2  ref   nn.softmax\n"
            "3  fake  nn.relu\n"
            "4  ref   nn.softmax\n");
}

TEST(Build, EveryOptLevelBuilds) {
  for (int level = 0; level <= 3; ++level) {
    RunConfig config;
    config.opt_level = level;
    auto compiled = build_text(kDenseProgram, config);
    EXPECT_FALSE(compiled->groups.empty()) << "-O" << level;
    for (const CompiledGroup& g : compiled->groups) EXPECT_EQ(g.target, "ref") << "-O" << level;
  }
}

TEST(Build, ATargetGetsTheConstantsItsGroupIsCalledWith) {
  std::vector<std::vector<Tensor>> seen;
  ScopedFakeTarget fake({.ops = {"add"}, .compile = [&](const Function& fn, std::span<const Tensor> constants) {
    seen.emplace_back(constants.begin(), constants.end());
    return TargetRegistry::global().get(kReferenceTarget).create(empty_attrs())->compile(fn, constants);
  }});
  Tensor w = Tensor::zeros({1, 4}, DataType::Float(32));
  IRModule mod = bind_params(parse_module("fn (%x: Tensor[(1, 4), float32], %w: Tensor[(1, 4), float32]) { add(%x, %w) }"),
                             {{"w", w}});
  build(mod, config_with({"fake"}));
  ASSERT_EQ(seen.size(), 1u);
  ASSERT_EQ(seen[0].size(), 2u);
  EXPECT_FALSE(seen[0][0].defined());  // %x: computed at run time
  EXPECT_EQ(seen[0][1].data(), w.data());
}

/// A target's preference: relu as leaky_relu with alpha 0 (the same values).
Expr relu_as_leaky_relu(const Call& call) {
  if (call->op.as<OpNode>()->name() != "nn.relu") return Expr();
  return weft::call("nn.leaky_relu", call->args, {{"alpha", 0.0}});
}

/// A relu after a conv, whose layout (NCHW) AlterOpLayout knows, so it asks
/// for the relu's preferred form.
constexpr const char* kConvReluProgram = R"(
fn (%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(2, 2, 1, 1), float32]) {
  %0 = nn.conv2d(%x, %w, channels=2, kernel_size=[1, 1]);
  nn.relu(%0)
})";

/// A kernel that records the shapes it is launched with, then runs `inner`.
class ShapeRecordingKernel : public TargetKernel {
 public:
  ShapeRecordingKernel(std::unique_ptr<TargetKernel> inner, std::vector<std::vector<int64_t>>& shapes)
      : inner_(std::move(inner)), shapes_(shapes) {}
  void launch(StreamHandle stream, std::span<const DLTensor> args) const override {
    for (const DLTensor& a : args) shapes_.emplace_back(a.shape, a.shape + a.ndim);
    inner_->launch(stream, args);
  }

 private:
  std::unique_ptr<TargetKernel> inner_;
  std::vector<std::vector<int64_t>>& shapes_;
};

TEST(Build, ATupleTypedParameterIsLaunchedAsItsFieldsTensors) {
  std::vector<std::vector<int64_t>> launched;
  ScopedFakeTarget fake({.ops = {"concatenate"}, .compile = [&](const Function& fn, std::span<const Tensor> constants) {
    auto ref = TargetRegistry::global().get(kReferenceTarget).create(empty_attrs());
    return std::make_unique<ShapeRecordingKernel>(ref->compile(fn, constants), launched);
  }});
  // Without FuseOps the tuple stays in main: the group's one parameter is a pair.
  RunConfig config = config_with({"fake"});
  config.disabled_passes = {"FuseOps"};
  auto compiled = build_text("fn (%x: Tensor[(2), float32], %y: Tensor[(3), float32]) { concatenate((%x, %y)) }", config);
  ASSERT_EQ(compiled->groups.size(), 1u);
  ASSERT_EQ(compiled->groups[0].primitive->params.size(), 1u);
  ASSERT_TRUE(compiled->groups[0].primitive->params[0]->checked_type().as<TupleTypeNode>());

  Tensor x = Tensor::empty({2}, DataType::Float(32)), y = Tensor::empty({3}, DataType::Float(32));
  for (int i = 0; i < 2; ++i) x.data_as<float>()[i] = static_cast<float>(i + 1);
  for (int i = 0; i < 3; ++i) y.data_as<float>()[i] = static_cast<float>(-(i + 1));
  Tensor out = GraphExecutor(compiled).run({x, y}).tensor();
  // The pair's fields in order, then the output.
  EXPECT_EQ(launched, (std::vector<std::vector<int64_t>>{{2}, {3}, {5}}));
  EXPECT_EQ(std::vector<float>(out.data_as<float>(), out.data_as<float>() + 5),
            (std::vector<float>{1, 2, -1, -2, -3}));
}

TEST(Build, AlterOpLayoutAsksTheTargetThatSupportsACallForItsPreference) {
  ScopedFakeTarget fake({.ops = {"nn.relu", "nn.leaky_relu"}, .alter_layout = relu_as_leaky_relu});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kConvReluProgram, config_with({"fake"}));
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref   nn.conv2d\n"
            "1  fake  nn.leaky_relu\n");
  // AlterOpLayout is an -O3 pass: at -O2 the relu stays.
  RunConfig o2 = config_with({"fake"});
  o2.opt_level = 2;
  ::testing::internal::CaptureStderr();
  compiled = build_text(kConvReluProgram, o2);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref   nn.conv2d\n"
            "1  fake  nn.relu\n");
}

TEST(Build, ATargetLaterInPriorityDoesNotAlterACallAnEarlierOneRuns) {
  ScopedFakeTarget first({.ops = {"nn.relu"}});
  ScopedFakeTarget second({.name = "fake2", .ops = {"nn.relu", "nn.leaky_relu"}, .alter_layout = relu_as_leaky_relu});
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kConvReluProgram, config_with({"fake", "fake2"}));
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref   nn.conv2d\n"
            "1  fake  nn.relu\n");
  // Listed first, fake2 has its way.
  ::testing::internal::CaptureStderr();
  compiled = build_text(kConvReluProgram, config_with({"fake2", "fake"}));
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref    nn.conv2d\n"
            "1  fake2  nn.leaky_relu\n");
}

TEST(Build, AGroupCalledTwiceIsCompiledForEachCall) {
  auto compiled = build_text(R"(
fn (%x: Tensor[(4), float32]) {
  %0 = fn (%p0: Tensor[(4), float32], Primitive=1) { nn.relu(%p0) };
  %1 = %0(%x);
  %0(%1)
})",
                             RunConfig());
  EXPECT_EQ(describe_partition(*compiled),
            "0  ref  nn.relu\n"
            "1  ref  nn.relu\n");
  EXPECT_EQ(compiled->group_of.size(), 2u);
  EXPECT_NE(compiled->groups[0].primitive.get(), compiled->groups[1].primitive.get());
}

TEST(Build, OpsThatADeviceTargetLeavesToTheCpuAreListedInAWarning) {
  FakeSpec device;
  device.name = "fake_gpu";
  device.ops = {"add", "nn.softmax"};
  device.host_addressable = false;
  FakeSpec cpu;
  cpu.name = "fake_cpu";
  cpu.ops = {"nn.relu"};
  ScopedFakeTarget gpu_target(device), cpu_target(cpu);
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kElementwiseProgram, config_with({"fake_gpu", "fake_cpu"}));
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("fake_gpu does not run these ops, so they run on the CPU with their tensors copied to and "
                          "from its device:\n  nn.relu x 2"),
            std::string::npos)
      << warnings << describe_partition(*compiled);
  // A CPU target first: nothing is copied, nothing said.
  ::testing::internal::CaptureStderr();
  build_text(kElementwiseProgram, config_with({"fake_cpu", "fake_gpu"}));
  EXPECT_EQ(::testing::internal::GetCapturedStderr().find("copied to and from"), std::string::npos);
}

TEST(Build, AnUnknownTargetIsAnErrorNamingIt) {
  try {
    build_text(kElementwiseProgram, config_with({"no_such_target"}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_target"), std::string::npos) << e.what();
  }
}

/// Registers, for the test's lifetime, a target whose create declines as a
/// GPU target does on a machine without the GPU.
class ScopedUnrunnableTarget {
 public:
  ScopedUnrunnableTarget() {
    TargetDef def;
    def.name = kName;
    def.description = "a target without its device";
    def.create = [](const Attrs&) -> std::shared_ptr<Target> {
      throw Error("no device for it here").status(StatusCode::kUnsupported);
    };
    TargetRegistry::global().add(std::move(def));
  }
  ~ScopedUnrunnableTarget() { TargetRegistry::global().remove(kName); }
  static constexpr const char* kName = "deviceless";
};

TEST(Build, ATargetThatCannotRunHereIsLeftOutUnderSkipAndFailsTheBuildOtherwise) {
  ScopedUnrunnableTarget deviceless;
  RunConfig config = config_with({ScopedUnrunnableTarget::kName});
  config.missing_targets = MissingTargetPolicy::kSkip;
  ::testing::internal::CaptureStderr();
  auto compiled = build_text(kElementwiseProgram, config);
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(warnings.find("target 'deviceless' is left out (missing_targets: skip): it cannot run here: "),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("no device for it here"), std::string::npos) << warnings;
  for (const CompiledGroup& g : compiled->groups) EXPECT_EQ(g.target, kReferenceTarget);
  config.missing_targets = MissingTargetPolicy::kError;
  try {
    build_text(kElementwiseProgram, config);
    FAIL() << "a target that cannot run was used";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no device for it here"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace weft

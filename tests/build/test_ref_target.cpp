// `ref`, the reference target: always registered, it takes every op with a
// reference kernel and runs a Primitive function's calls in order on them,
// tuples flattened, on 64-byte aligned host memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "weft/op.h"
#include "weft/passes.h"
#include "weft/run_config.h"
#include "weft/target.h"
#include "weft/text.h"

namespace weft {
namespace {

std::shared_ptr<Target> make_ref() {
  const TargetDef& def = TargetRegistry::global().get(kReferenceTarget);
  return def.create(empty_attrs());
}

/// The typed main of a module read from Relay text.
Function typed_main(std::string_view text) { return infer_type(parse_module(text)).main(); }

Tensor f32(std::vector<int64_t> shape, std::vector<float> values) {
  Tensor t = Tensor::empty(std::move(shape), DataType::Float(32));
  std::copy(values.begin(), values.end(), t.data_as<float>());
  return t;
}

std::vector<float> values(const Tensor& t) { return {t.data_as<float>(), t.data_as<float>() + t.numel()}; }

/// Launches `kernel` on host tensors (ref's buffers are host pointers).
void launch(const TargetKernel& kernel, const std::vector<Tensor>& tensors) {
  std::vector<DLTensor> args;
  for (const Tensor& t : tensors) args.push_back(t.dlpack_view());
  kernel.launch(nullptr, args);
}

TEST(RefTarget, IsAlwaysRegisteredAsBuiltIntoTheCore) {
  const TargetDef* def = TargetRegistry::global().find_loaded("ref");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->plugin, "");
  EXPECT_EQ(def->device_type, kDLCPU);
  auto ref = def->create(empty_attrs());
  EXPECT_TRUE(ref->host_addressable());
  ASSERT_EQ(ref->devices().size(), 1u);
  EXPECT_EQ(ref->devices()[0].id, 0);
}

TEST(RefTarget, SupportsOpCallsWithAReferenceKernelOnly) {
  Function fn = typed_main("fn (%x: Tensor[(4), float32]) { nn.relu(%x) }");
  auto ref = make_ref();
  EXPECT_TRUE(ref->supports(downcast<CallNode>(fn->body)));
  OpDef no_kernel;
  no_kernel.name = "build_test.no_kernel";
  no_kernel.inputs = {{"data", "Tensor", ""}};
  no_kernel.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  OpRegistry::global().add(std::move(no_kernel));
  Function other = typed_main("fn (%x: Tensor[(4), float32]) { build_test.no_kernel(%x) }");
  OpRegistry::global().remove("build_test.no_kernel");
  EXPECT_FALSE(ref->supports(downcast<CallNode>(other->body)));
}

TEST(RefTarget, RunsAGroupsCallsInOrder) {
  Function fn = typed_main(R"(fn (%p0: Tensor[(4), float32], %p1: Tensor[(4), float32], Primitive=1) {
    %0 = add(%p0, %p1);
    %1 = multiply(%0, 2f);
    nn.relu(%1)
  })");
  auto kernel = make_ref()->compile(fn, std::vector<Tensor>(2));
  Tensor out = Tensor::zeros({4}, DataType::Float(32));
  launch(*kernel, {f32({4}, {-1, 2, -3, 4}), f32({4}, {0.5f, 0.5f, 0.5f, 0.5f}), out});
  // (x + y) * 2, then max(0, .).
  EXPECT_EQ(values(out), (std::vector<float>{0, 5, 0, 9}));
}

TEST(RefTarget, FlattensTupleOutputsAndCopiesResultsNoCallWritesDirectly) {
  // Outputs: the split's second half, relu of its first half twice, and the
  // parameter itself: the flat outputs are 2 + 2 + 2 + 4 floats.
  Function fn = typed_main(R"(fn (%p0: Tensor[(4), float32]) {
    %0 = split(%p0, indices_or_sections=2);
    %1 = nn.relu(%0.0);
    (%0.1, %1, %1, %p0)
  })");
  auto kernel = make_ref()->compile(fn, std::vector<Tensor>(1));
  std::vector<Tensor> args = {f32({4}, {-1, 2, -3, 4}), Tensor::zeros({2}, DataType::Float(32)),
                              Tensor::zeros({2}, DataType::Float(32)), Tensor::zeros({2}, DataType::Float(32)),
                              Tensor::zeros({4}, DataType::Float(32))};
  launch(*kernel, args);
  EXPECT_EQ(values(args[1]), (std::vector<float>{-3, 4}));
  EXPECT_EQ(values(args[2]), (std::vector<float>{0, 2}));
  EXPECT_EQ(values(args[3]), (std::vector<float>{0, 2}));
  EXPECT_EQ(values(args[4]), (std::vector<float>{-1, 2, -3, 4}));
}

TEST(RefTarget, ATupleParameterPassesItsFieldsFlattened) {
  Function fn = typed_main(R"(fn (%p0: (Tensor[(2), float32], Tensor[(1), float32])) {
    concatenate(%p0)
  })");
  auto kernel = make_ref()->compile(fn, std::vector<Tensor>(1));
  Tensor out = Tensor::zeros({3}, DataType::Float(32));
  launch(*kernel, {f32({2}, {1, 2}), f32({1}, {3}), out});
  EXPECT_EQ(values(out), (std::vector<float>{1, 2, 3}));
}

TEST(RefTarget, ALaunchWithTheWrongArgumentsIsAnErrorNamingTheGroup) {
  Function fn = typed_main("fn (%p0: Tensor[(4), float32]) { nn.relu(%p0) }");
  auto kernel = make_ref()->compile(fn, std::vector<Tensor>(1));
  try {
    launch(*kernel, {f32({4}, {1, 2, 3, 4})});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the ref kernel of nn.relu takes 2 tensors (parameters, then outputs), got 1");
  }
  try {
    launch(*kernel, {f32({4}, {1, 2, 3, 4}), Tensor::zeros({2, 2}, DataType::Float(32))});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "argument 1 of the ref kernel of nn.relu is Tensor[(2, 2), float32]; expected Tensor[(4), float32]");
  }
}

TEST(RefTarget, AKernelFailureNamesTheOpAndTheCall) {
  OpDef picky;
  picky.name = "build_test.picky";
  picky.inputs = {{"data", "Tensor", ""}};
  picky.relation = [](std::span<const Type> args, const Attrs&) { return args[0]; };
  picky.kernel = [](std::span<const Tensor>, std::span<const Tensor>, const Attrs&) {
    throw Error("this kernel accepts nothing");
  };
  OpRegistry::global().add(std::move(picky));
  Function fn = typed_main("fn (%p0: Tensor[(2), float32]) { build_test.picky(%p0) }");
  OpRegistry::global().remove("build_test.picky");
  auto kernel = make_ref()->compile(fn, std::vector<Tensor>(1));
  try {
    launch(*kernel, {f32({2}, {1, 2}), Tensor::zeros({2}, DataType::Float(32))});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.op_name(), "build_test.picky");
    EXPECT_NE(std::string(e.what()).find("build_test.picky(%p0)"), std::string::npos) << e.what();
  }
}

TEST(RefTarget, AllocatesAlignedHostMemoryAndCopiesIt) {
  auto ref = make_ref();
  for (size_t alignment : {1, 64, 256}) {
    BufferHandle buffer = ref->alloc(0, 10, alignment);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % std::max<size_t>(alignment, 64), 0u) << alignment;
    ref->free(0, buffer);
  }
  BufferHandle a = ref->alloc(0, 16, 64), b = ref->alloc(0, 16, 64);
  const float in[4] = {1, 2, 3, 4};
  float out[2] = {0, 0};
  StreamHandle stream = ref->create_stream(0);
  ref->copy_from_host(stream, in, a, 0, sizeof in);
  ref->copy_buffer(stream, a, 4, b, 8, 8);  // floats 1..2 of a to floats 2..3 of b
  ref->copy_to_host(stream, b, 8, out, sizeof out);
  ref->synchronize(stream);
  ref->destroy_stream(stream);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 3);
  ref->free(0, a);
  ref->free(0, b);
  try {
    ref->alloc(0, 16, 48);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the ref target cannot align a buffer to 48 bytes; expected a power of two");
  }
}

}  // namespace
}  // namespace weft

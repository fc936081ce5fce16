// The null target through the core's Target interface, as the build and the
// graph executor drive it: created from its options, asked what it runs,
// compiling fused groups and running them on its own buffers. Expected
// values are worked by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>

#include "weft/passes.h"
#include "weft/target.h"

namespace weft {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

using Shape = std::vector<int64_t>;

struct HostTensor {
  Shape shape;
  std::vector<float> data;
};

std::shared_ptr<Target> create_null(std::vector<std::pair<std::string, AttrValue>> options = {}) {
  const TargetDef& def = TargetRegistry::global().get("null");
  return def.create(def.options.normalize("null", make_attrs(std::move(options))));
}

/// The typed Primitive function over `params` (one FuseOps group).
Function primitive(std::vector<Var> params, Expr body) {
  return infer_type(IRModule::from_function(function(std::move(params), std::move(body), nullptr,
                                                     make_attrs({{"Primitive", 1}}))))
      .main();
}

Var f32_var(const std::string& name, std::vector<Dim> shape) { return var(name, tensor_type(std::move(shape))); }

/// The call that is the body of a typed one-call group.
Call typed_call(std::vector<Var> params, Expr body) {
  return downcast<CallNode>(primitive(std::move(params), std::move(body))->body);
}

/// Runs `kernel` as the graph executor does: every tensor in one arena buffer
/// of device 0 at 64-byte aligned offsets, inputs copied in, outputs out.
std::vector<std::vector<float>> launch(Target& target, const TargetKernel& kernel,
                                       const std::vector<HostTensor>& inputs, const std::vector<Shape>& output_shapes) {
  std::vector<Shape> shapes;
  for (const HostTensor& t : inputs) shapes.push_back(t.shape);
  shapes.insert(shapes.end(), output_shapes.begin(), output_shapes.end());
  std::vector<size_t> offsets, counts;
  size_t arena = 0;
  for (const Shape& s : shapes) {
    size_t n = 1;
    for (int64_t d : s) n *= static_cast<size_t>(d);
    offsets.push_back(arena);
    counts.push_back(n);
    arena += (n * sizeof(float) + 63) / 64 * 64;
  }
  BufferHandle buffer = target.alloc(0, arena, 64);
  StreamHandle stream = target.create_stream(0);
  // Released on every path: the failure tests launch kernels that throw.
  std::shared_ptr<void> release(nullptr, [&](void*) {
    target.destroy_stream(stream);
    target.free(0, buffer);
  });
  for (size_t i = 0; i < inputs.size(); ++i) {
    target.copy_from_host(stream, inputs[i].data.data(), buffer, offsets[i], counts[i] * sizeof(float));
  }
  std::vector<DLTensor> args;
  for (size_t i = 0; i < shapes.size(); ++i) {
    DLTensor t{};
    t.data = buffer;
    t.byte_offset = offsets[i];
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shapes[i].size());
    t.dtype = DLDataType{kDLFloat, 32, 1};
    t.shape = shapes[i].data();
    args.push_back(t);
  }
  kernel.launch(stream, args);
  std::vector<std::vector<float>> outputs;
  for (size_t o = 0; o < output_shapes.size(); ++o) {
    size_t i = inputs.size() + o;
    outputs.emplace_back(counts[i]);
    target.copy_to_host(stream, buffer, offsets[i], outputs.back().data(), counts[i] * sizeof(float));
  }
  target.synchronize(stream);
  return outputs;
}

/// The message and status of the Error `fn` throws.
std::pair<std::string, StatusCode> error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return {e.what(), e.status()};
  }
  ADD_FAILURE() << "no weft::Error thrown";
  return {"", StatusCode::kInternal};
}

TEST(NullTarget, IsRegisteredByItsPluginWithItsOptionSchema) {
  const TargetDef& def = TargetRegistry::global().get("null");
  EXPECT_EQ(def.plugin, "null");
  EXPECT_EQ(def.device_type, kDLCPU);
  EXPECT_THAT(def.description, HasSubstr("add, nn.relu and nn.dense"));
  Attrs filled = def.options.normalize("null", empty_attrs());
  EXPECT_EQ(filled->at("verbose").as_bool(), false);
}

TEST(NullTarget, DrivesOneHostAddressableCpuDevice) {
  auto target = create_null();
  std::vector<TargetDevice> devices = target->devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].id, 0);
  EXPECT_EQ(devices[0].name, "cpu");
  EXPECT_TRUE(target->host_addressable());
  BufferHandle buffer = target->alloc(0, 100, 64);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer) % 64, 0u);
  target->free(0, buffer);
}

TEST(NullTarget, SupportsItsThreeOpsOnFloat32AndNothingElse) {
  auto target = create_null();
  Var x = f32_var("x", {2, 3}), y = f32_var("y", {2, 3}), w = f32_var("w", {4, 3});
  EXPECT_TRUE(target->supports(typed_call({x, y}, call("add", {x, y}))));
  EXPECT_TRUE(target->supports(typed_call({x}, call("nn.relu", {x}))));
  EXPECT_TRUE(target->supports(typed_call({x, w}, call("nn.dense", {x, w}))));
  EXPECT_FALSE(target->supports(typed_call({x, y}, call("multiply", {x, y}))));
  Var i = var("i", tensor_type({2, 3}, DataType::Int(32))), j = var("j", tensor_type({2, 3}, DataType::Int(32)));
  EXPECT_FALSE(target->supports(typed_call({i, j}, call("add", {i, j}))));
  Var d = f32_var("d", {kAnyDim, 3});
  EXPECT_FALSE(target->supports(typed_call({d}, call("nn.relu", {d}))));
}

TEST(NullTarget, RunsABroadcastAddThenReluGroup) {
  auto target = create_null();
  Var x = f32_var("x", {2, 3}), b = f32_var("b", {3});
  Function group = primitive({x, b}, call("nn.relu", {call("add", {x, b})}));
  auto kernel = target->compile(group, std::vector<Tensor>(2));
  // add: [[1.5, -1.5, 2], [-3.5, 5.5, -7]]; relu zeroes the negatives.
  auto out = launch(*target, *kernel, {{{2, 3}, {1, -2, 3, -4, 5, -6}}, {{3}, {0.5f, 0.5f, -1}}}, {{2, 3}});
  EXPECT_THAT(out[0], ElementsAre(1.5f, 0, 2, 0, 5.5f, 0));
}

TEST(NullTarget, RunsADenseGroupWithAConstantBias) {
  auto target = create_null();
  Var data = f32_var("data", {2, 3}), weight = f32_var("weight", {2, 3});
  Tensor bias = Tensor::empty({2}, DataType::Float(32));
  bias.data_as<float>()[0] = 10;
  bias.data_as<float>()[1] = 20;
  Function group = primitive({data, weight}, call("add", {call("nn.dense", {data, weight}), constant(bias)}));
  auto kernel = target->compile(group, std::vector<Tensor>(2));
  // dense: [1-3, 2+2] and [4-6, 8+5]; then + [10, 20].
  auto out = launch(*target, *kernel, {{{2, 3}, {1, 2, 3, 4, 5, 6}}, {{2, 3}, {1, 0, -1, 2, 1, 0}}}, {{2, 2}});
  EXPECT_THAT(out[0], ElementsAre(8, 24, 8, 33));
}

TEST(NullTarget, PacksAConstantWeightAtCompileAndNeverReadsItsArgument) {
  auto target = create_null();
  Var data = f32_var("data", {1, 3}), weight = f32_var("weight", {2, 3});
  Tensor w = Tensor::empty({2, 3}, DataType::Float(32));
  const float w_values[] = {1, 0, -1, 2, 1, 0};
  std::copy(std::begin(w_values), std::end(w_values), w.data_as<float>());
  auto kernel = target->compile(primitive({data, weight}, call("nn.dense", {data, weight})), std::vector<Tensor>{Tensor(), w});
  EXPECT_EQ(kernel->packed_constants(), (std::vector<bool>{false, true}));
  // The weight was copied: changing the caller's tensor after compile changes nothing.
  w.data_as<float>()[0] = 100;

  // The launch passes the packed weight with data null, as the executor does.
  float x[] = {1, 2, 3}, out[2] = {};
  Shape x_shape = {1, 3}, w_shape = {2, 3}, out_shape = {1, 2};
  auto tensor = [](void* data, Shape& shape) {
    DLTensor t{};
    t.data = data;
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<int32_t>(shape.size());
    t.dtype = DLDataType{kDLFloat, 32, 1};
    t.shape = shape.data();
    return t;
  };
  std::vector<DLTensor> args = {tensor(x, x_shape), tensor(nullptr, w_shape), tensor(out, out_shape)};
  kernel->launch(nullptr, args);
  // [1 - 3, 2 + 2]
  EXPECT_THAT(out, ElementsAre(-2, 4));
}

TEST(NullTarget, RunsEmptyAndZeroRankTensors) {
  auto target = create_null();
  // A dense over an empty reduction axis sums nothing: zeros.
  Var data = f32_var("data", {2, 0}), weight = f32_var("weight", {3, 0});
  auto dense = target->compile(primitive({data, weight}, call("nn.dense", {data, weight})), std::vector<Tensor>(2));
  EXPECT_THAT(launch(*target, *dense, {{{2, 0}, {}}, {{3, 0}, {}}}, {{2, 3}})[0], ElementsAre(0, 0, 0, 0, 0, 0));
  // 0-d tensors broadcast against a vector; no rows at all give no output.
  Var s = f32_var("s", {}), v = f32_var("v", {2}), e = f32_var("e", {0, 2});
  auto add = target->compile(primitive({s, v}, call("add", {s, v})), std::vector<Tensor>(2));
  EXPECT_THAT(launch(*target, *add, {{{}, {1.5f}}, {{2}, {1, -1}}}, {{2}})[0], ElementsAre(2.5f, 0.5f));
  auto relu = target->compile(primitive({e}, call("nn.relu", {e})), std::vector<Tensor>(1));
  EXPECT_TRUE(launch(*target, *relu, {{{0, 2}, {}}}, {{0, 2}})[0].empty());
}

TEST(NullTarget, WritesEachFieldOfATupleOfOutputs) {
  auto target = create_null();
  Var x = f32_var("x", {4});
  Function group = primitive({x}, tuple({call("nn.relu", {x}), call("add", {x, x}), x}));
  auto kernel = target->compile(group, std::vector<Tensor>(1));
  auto out = launch(*target, *kernel, {{{4}, {-1, 2, -3, 4}}}, {{4}, {4}, {4}});
  EXPECT_THAT(out[0], ElementsAre(0, 2, 0, 4));
  EXPECT_THAT(out[1], ElementsAre(-2, 4, -6, 8));
  EXPECT_THAT(out[2], ElementsAre(-1, 2, -3, 4));
}

TEST(NullTarget, OneKernelRunsOnSeveralThreadsAtOnce) {
  auto target = create_null();
  Var x = f32_var("x", {64}), y = f32_var("y", {64});
  auto kernel = target->compile(primitive({x, y}, call("add", {x, y})), std::vector<Tensor>(2));
  std::vector<std::vector<float>> results(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      std::vector<float> a(64, static_cast<float>(t)), b(64, 100);
      for (int repeat = 0; repeat < 20; ++repeat) {
        results[t] = launch(*target, *kernel, {{{64}, a}, {{64}, b}}, {{64}})[0];
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (size_t t = 0; t < results.size(); ++t) {
    EXPECT_THAT(results[t], ElementsAreArray(std::vector<float>(64, 100.0f + static_cast<float>(t))));
  }
}

TEST(NullTarget, DeclinesAConvGroupAsUnsupported) {
  auto target = create_null();
  Var data = f32_var("data", {1, 1, 3, 3}), weight = f32_var("weight", {1, 1, 1, 1});
  Function group = primitive({data, weight}, call("nn.relu", {call("nn.conv2d", {data, weight})}));
  auto [message, status] = error_of([&] { target->compile(group, std::vector<Tensor>(2)); });
  EXPECT_EQ(status, StatusCode::kUnsupported);
  EXPECT_THAT(message, HasSubstr("target null: compile: the null target does not run nn.conv2d with these types "
                                 "(Tensor[(1, 1, 3, 3), float32])"));
}

TEST(NullTarget, AKernelFailureCrossesWithItsMessageAndCode) {
  auto target = create_null();
  Var x = f32_var("x", {2}), y = f32_var("y", {2});
  auto kernel = target->compile(primitive({x, y}, call("add", {x, y})), std::vector<Tensor>(2));
  auto [message, status] = error_of([&] { launch(*target, *kernel, {{{2}, {1, 2}}}, {{2}}); });
  EXPECT_EQ(status, StatusCode::kInvalidArgument);
  EXPECT_THAT(message, HasSubstr("target null: launch: the group takes 2 parameters and 1 outputs, but the launch "
                                 "passed 2 tensors"));
  std::tie(message, status) = error_of([&] { launch(*target, *kernel, {{{3}, {1, 2, 3}}, {{2}, {1, 2}}}, {{2}}); });
  EXPECT_THAT(message, HasSubstr("target null: launch: argument 0 must be a float32 tensor of 2 elements, not a "
                                 "float32 tensor of 3"));
  std::tie(message, status) = error_of([&] { target->alloc(0, 16, 48); });
  EXPECT_THAT(message, HasSubstr("target null: alloc: alignment 48 is not a power of two"));
}

TEST(NullTarget, VerboseOptionReportsEachGroupItCompiles) {
  auto target = create_null({{"verbose", true}});
  Var x = f32_var("x", {2}), y = f32_var("y", {2});
  ::testing::internal::CaptureStderr();
  target->compile(primitive({x, y}, call("nn.relu", {call("add", {x, y})})), std::vector<Tensor>(2));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "null: compiled a group of add, nn.relu\n");
  ::testing::internal::CaptureStderr();
  create_null()->compile(primitive({x, y}, call("add", {x, y})), std::vector<Tensor>(2));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace weft

// acme_cpu: a vendor's target as a third party writes it against the
// installed SDK. Its device is simulated: buffers are its own memory, which
// the host reaches only through the copy functions (host_addressable false),
// so the executor uploads parameters and copies at the device's borders as
// it would for a GPU. It runs three ops with its own kernels, float32 of
// static shapes: nn.dense, add (of the same shape, or a bias along the last
// axis) and nn.global_avg_pool2d (NCHW); it declares one option.
#include <weft/plugin.hpp>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace sdk = weft::sdk;
using sdk::operator!=;  // DLDataType comparison

namespace {

/// A buffer of the simulated device.
struct AcmeBuffer {
  std::unique_ptr<std::byte[]> bytes;
  size_t size;
};

AcmeBuffer& buffer(void* handle) {
  if (!handle) throw sdk::Error("acme_cpu: a null buffer");
  return *static_cast<AcmeBuffer*>(handle);
}

void check_range(const AcmeBuffer& b, size_t offset, size_t n) {
  if (offset > b.size || n > b.size - offset)
    throw sdk::Error("acme_cpu: " + std::to_string(n) + " bytes at " + std::to_string(offset) +
                     " overrun a buffer of " + std::to_string(b.size));
}

bool static_f32(const sdk::Type& t) {
  if (!t.is_tensor() || t.dtype() != sdk::dtype::float32) return false;
  for (int64_t d : t.shape())
    if (d == WEFT_DIM_ANY) return false;
  return true;
}

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// Whether acme_cpu runs `call` (honestly: a group of such calls compiles).
bool runs(const sdk::Expr& call) {
  if (!call.callee().is(WEFT_EXPR_OP) || !static_f32(call.type())) return false;
  const std::vector<sdk::Expr> args = call.args();
  for (const sdk::Expr& a : args)
    if (!static_f32(a.type())) return false;
  const std::string op = call.op_name();
  const std::vector<int64_t> out = call.type().shape();
  if (op == "add" && args.size() == 2) {
    const std::vector<int64_t> a = args[0].type().shape(), b = args[1].type().shape();
    return a == out && (b == a || (b.size() == 1 && !a.empty() && b[0] == a.back()));
  }
  if (op == "nn.dense" && args.size() == 2)
    return args[0].type().ndim() == 2 && args[1].type().ndim() == 2 && out.size() == 2;
  if (op == "nn.global_avg_pool2d" && args.size() == 1)
    return call.attrs().get_string("layout") == "NCHW" && out.size() == 4;
  return false;
}

/// A compiled group: its steps, run one kernel each over the device's memory.
class AcmeKernel {
 public:
  AcmeKernel(const sdk::Expr& primitive, bool double_sums)
      : steps_(sdk::GroupSteps::of(primitive, runs, "acme_cpu")), double_sums_(double_sums) {
    for (const sdk::Expr& c : steps_.constants()) {
      const DLTensor& d = c.data();
      const float* first = reinterpret_cast<const float*>(static_cast<const char*>(d.data) + d.byte_offset);
      constants_.emplace_back(first, first + numel(c.type().shape()));
    }
  }

  void run(const sdk::LaunchArgs& launch) const {
    const std::vector<size_t>& params = steps_.params();
    const std::vector<size_t>& outputs = steps_.outputs();
    if (launch.args.size() != params.size() + outputs.size())
      throw sdk::Error("acme_cpu: the group takes " + std::to_string(params.size() + outputs.size()) + " tensors");
    // Every value's floats: the arguments in device memory, constants, each step's result.
    std::vector<std::vector<float>> results(steps_.steps().size());
    auto device_floats = [&](size_t arg, int64_t n) {
      const DLTensor& t = launch.args[arg].dl();
      AcmeBuffer& b = buffer(t.data);
      check_range(b, t.byte_offset, static_cast<size_t>(n) * sizeof(float));
      return reinterpret_cast<float*>(b.bytes.get() + t.byte_offset);
    };
    auto floats = [&](size_t value) -> const float* {
      const sdk::GroupValue& v = steps_.values()[value];
      switch (v.source) {
        case sdk::GroupValue::Source::kParam: return device_floats(v.index, numel(v.type.shape()));
        case sdk::GroupValue::Source::kConstant: return constants_[v.index].data();
        case sdk::GroupValue::Source::kCall: return results[v.index].data();
      }
      return nullptr;
    };
    for (size_t s = 0; s < steps_.steps().size(); ++s) {
      const sdk::GroupStep& step = steps_.steps()[s];
      const std::vector<int64_t> out_shape = step.call.type().shape();
      results[s].assign(static_cast<size_t>(numel(out_shape)), 0.0f);
      const std::string op = step.call.op_name();
      std::vector<std::vector<int64_t>> in_shapes;
      for (size_t i : step.inputs) in_shapes.push_back(steps_.values()[i].type.shape());
      if (op == "add")
        add(floats(step.inputs[0]), floats(step.inputs[1]), numel(in_shapes[1]), results[s]);
      else if (op == "nn.dense")
        dense(floats(step.inputs[0]), floats(step.inputs[1]), in_shapes[0][0], in_shapes[0][1], out_shape[1], results[s]);
      else
        global_avg_pool(floats(step.inputs[0]), in_shapes[0], results[s]);
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      const int64_t n = numel(steps_.values()[outputs[o]].type.shape());
      if (n) std::memmove(device_floats(params.size() + o, n), floats(outputs[o]), static_cast<size_t>(n) * sizeof(float));
    }
  }

 private:
  /// out = a + b, b the same size as out or repeated along it (a bias of its last axis).
  static void add(const float* a, const float* b, int64_t b_size, std::vector<float>& out) {
    for (size_t i = 0; i < out.size(); ++i) out[i] = a[i] + b[static_cast<int64_t>(i) % b_size];
  }

  /// out[m, j] = sum_k data[m, k] weight[j, k].
  void dense(const float* data, const float* weight, int64_t rows, int64_t k, int64_t units,
             std::vector<float>& out) const {
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t j = 0; j < units; ++j) out[static_cast<size_t>(m * units + j)] = sum(data + m * k, weight + j * k, k);
  }

  /// out[n, c] = the mean of data[n, c, :, :].
  void global_avg_pool(const float* data, const std::vector<int64_t>& shape, std::vector<float>& out) const {
    const int64_t plane = shape[2] * shape[3];
    const std::vector<float> ones(static_cast<size_t>(plane), 1.0f);
    for (size_t nc = 0; nc < out.size(); ++nc)
      out[nc] = plane ? sum(data + static_cast<int64_t>(nc) * plane, ones.data(), plane) / static_cast<float>(plane) : 0.0f;
  }

  /// sum_i a[i] b[i], in float or, with the option, in double.
  float sum(const float* a, const float* b, int64_t n) const {
    if (double_sums_) {
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * b[i];
      return static_cast<float>(s);
    }
    float s = 0;
    for (int64_t i = 0; i < n; ++i) s += a[i] * b[i];
    return s;
  }

  sdk::GroupSteps steps_;
  bool double_sums_;
  std::vector<std::vector<float>> constants_;
};

sdk::DeviceMemory acme_memory() {
  sdk::DeviceMemory m;
  m.host_addressable = false;
  m.alloc = [](const sdk::TargetInstance&, int, size_t nbytes, size_t) -> void* {
    return new AcmeBuffer{std::make_unique<std::byte[]>(nbytes ? nbytes : 1), nbytes};
  };
  m.free = [](const sdk::TargetInstance&, int, void* b) { delete static_cast<AcmeBuffer*>(b); };
  m.copy_from_host = [](const sdk::TargetInstance&, void*, const void* src, void* dst, size_t offset, size_t n) {
    check_range(buffer(dst), offset, n);
    if (n) std::memcpy(buffer(dst).bytes.get() + offset, src, n);
  };
  m.copy_to_host = [](const sdk::TargetInstance&, void*, void* src, size_t offset, void* dst, size_t n) {
    check_range(buffer(src), offset, n);
    if (n) std::memcpy(dst, buffer(src).bytes.get() + offset, n);
  };
  m.copy_buffer = [](const sdk::TargetInstance&, void*, void* src, size_t src_offset, void* dst, size_t dst_offset,
                     size_t n) {
    check_range(buffer(src), src_offset, n);
    check_range(buffer(dst), dst_offset, n);
    if (n) std::memmove(buffer(dst).bytes.get() + dst_offset, buffer(src).bytes.get() + src_offset, n);
  };
  m.create_stream = [](const sdk::TargetInstance&, int) -> void* { return nullptr; };  // synchronous
  m.destroy_stream = [](const sdk::TargetInstance&, void*) {};
  m.synchronize = [](const sdk::TargetInstance&, void*) {};
  return m;
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.target("acme_cpu")
      .describe("ACME's accelerator, simulated on the CPU: nn.dense, add and nn.global_avg_pool2d on float32.")
      .option("accumulate_in_double", false, "Sum dot products and pools in double precision.")
      .devices([](const sdk::TargetInstance&) {
        return std::vector<sdk::TargetDevice>{{"acme0", {{"simulated", "true"}}}};
      })
      .memory(acme_memory())
      .supports([](const sdk::TargetInstance&, const sdk::Expr& call) { return runs(call); })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        auto kernel =
            std::make_shared<const AcmeKernel>(group.primitive, target.options().get_bool("accumulate_in_double"));
        return [kernel](const sdk::LaunchArgs& launch) { kernel->run(launch); };
      });
}

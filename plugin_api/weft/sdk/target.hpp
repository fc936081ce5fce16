// weft plugin SDK: fluent registration of a hardware target over the target
// interface of plugin.h (weft_target_interface_t, ABI 1.4). A CPU target
// gives its capability and its compiler and nothing else: host memory,
// synchronous streams and one "cpu" device are the defaults.
//
//   reg.target("null")
//       .describe("Plain loops on the CPU.")
//       .option("verbose", false, "Print each group compiled.")
//       .supports([](const sdk::TargetInstance&, const sdk::Expr& call) { return call.op_name() == "add"; })
//       .compile([](const sdk::TargetInstance&, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
//         if (...) throw sdk::Unsupported("...");   // the build tries the next target
//         return [](const sdk::LaunchArgs& launch) { ... };
//       });
//
// Part of plugin.hpp; include that. docs/targets.md is the vendor's guide.
#pragma once

#include <weft/sdk/attr_schema.hpp>
#include <weft/sdk/ir.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::sdk {

/// One device a target drives, as `weft targets` lists it.
struct TargetDevice {
  std::string name;
  std::vector<std::pair<std::string, std::string>> properties;  // ("memory_bytes", "8589934592")
};

/// One instance of a target (one per build): its options, checked against
/// the target's schema with defaults filled, and whatever its create
/// function made (a device context, say).
class TargetInstance {
 public:
  TargetInstance(Attrs options, std::shared_ptr<void> state) : options_(std::move(options)), state_(std::move(state)) {}
  const Attrs& options() const { return options_; }
  /// What create() returned, as the T it is.
  template <typename T>
  T& state() const {
    if (!state_) throw Error("the target has no state: its create() made none", WEFT_STATUS_INTERNAL);
    return *static_cast<T*>(state_.get());
  }

 private:
  Attrs options_;
  std::shared_ptr<void> state_;
};

/// A fused group to compile: a typed Primitive function and, per parameter,
/// the constant its argument is bound to (borrowed for the call: copy what
/// the kernel keeps) or nullopt where it is computed at run time.
struct CompileArgs {
  Expr primitive;
  std::vector<std::optional<TensorView>> constants;
};

/// One launch of a kernel: its stream and its arguments, the primitive's
/// parameters then its outputs, each in a buffer of the target (data) at
/// byte_offset. On a host-memory target TensorView::data<T>() reads them.
struct LaunchArgs {
  void* stream;
  std::vector<TensorView> args;
};

/// A compiled group: what a launch runs, made from any callable taking
/// LaunchArgs. Immutable once made: it may run on several threads at once, on
/// different arguments.
class CompiledKernel {
 public:
  using Run = std::function<void(const LaunchArgs& launch)>;
  CompiledKernel() = default;
  template <typename F>
    requires std::is_invocable_v<const F&, const LaunchArgs&>
  CompiledKernel(F run) : run_(std::move(run)) {}

  /// The parameters whose constants the kernel copied at compile (weights
  /// packed into its own layout) and never reads at launch: the host lets
  /// those weights go, and their launch arguments come with data null. Only
  /// parameters CompileArgs::constants holds a tensor for. `bytes`: what the
  /// kernel holds for its copies (0: count the graph's sizes).
  CompiledKernel& packed_constants(std::vector<size_t> params, size_t bytes = 0) {
    packed_ = std::move(params);
    packed_bytes_ = bytes;
    return *this;
  }
  const std::vector<size_t>& packed_constants() const { return packed_; }
  size_t packed_bytes() const { return packed_bytes_; }

  /// The parameter whose buffer the kernel may take as its one output's
  /// when it dies at the launch (a sum post-op's addend): it has the
  /// output's shape and dtype, and the kernel reads each of its elements
  /// before writing that element of the output, so it must cope with the
  /// two arguments being the same bytes.
  CompiledKernel& inplace_parameter(size_t param) {
    inplace_ = param;
    return *this;
  }
  std::optional<size_t> inplace_parameter() const { return inplace_; }

  explicit operator bool() const { return static_cast<bool>(run_); }
  void operator()(const LaunchArgs& launch) const { run_(launch); }

 private:
  Run run_;
  std::vector<size_t> packed_;
  size_t packed_bytes_ = 0;
  std::optional<size_t> inplace_;
};

/// Where a target's buffers live and how its streams run. host_memory() is
/// the CPU's; a GPU target fills every member for its device.
struct DeviceMemory {
  bool host_addressable = false;  // buffers are host pointers
  std::function<void*(const TargetInstance&, int device, size_t nbytes, size_t alignment)> alloc;
  std::function<void(const TargetInstance&, int device, void* buffer)> free;
  std::function<void(const TargetInstance&, void* stream, const void* src, void* dst, size_t dst_offset, size_t nbytes)>
      copy_from_host;
  std::function<void(const TargetInstance&, void* stream, void* src, size_t src_offset, void* dst, size_t nbytes)>
      copy_to_host;
  std::function<void(const TargetInstance&, void* stream, void* src, size_t src_offset, void* dst, size_t dst_offset,
                     size_t nbytes)>
      copy_buffer;
  /// May return nullptr: a synchronous target needs no stream object.
  std::function<void*(const TargetInstance&, int device)> create_stream;
  std::function<void(const TargetInstance&, void* stream)> destroy_stream;
  std::function<void(const TargetInstance&, void* stream)> synchronize;
};

/// Host memory with synchronous copies and no stream objects: kernels run at
/// launch, so there is nothing to wait for. Copies of 0 bytes touch nothing
/// (their pointers may be null).
inline DeviceMemory host_memory() {
  DeviceMemory m;
  m.host_addressable = true;
  m.alloc = [](const TargetInstance&, int, size_t nbytes, size_t alignment) -> void* {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
      throw Error("alignment " + std::to_string(alignment) + " is not a power of two");
    }
    size_t align = std::max(alignment, alignof(std::max_align_t));
    size_t size = (std::max<size_t>(nbytes, 1) + align - 1) / align * align;  // aligned_alloc wants a multiple
    void* p = std::aligned_alloc(align, size);
    if (!p) throw Error("cannot allocate " + std::to_string(nbytes) + " bytes of host memory");
    return p;
  };
  m.free = [](const TargetInstance&, int, void* buffer) { std::free(buffer); };
  m.copy_from_host = [](const TargetInstance&, void*, const void* src, void* dst, size_t dst_offset, size_t n) {
    if (n) std::memcpy(static_cast<char*>(dst) + dst_offset, src, n);
  };
  m.copy_to_host = [](const TargetInstance&, void*, void* src, size_t src_offset, void* dst, size_t n) {
    if (n) std::memcpy(dst, static_cast<const char*>(src) + src_offset, n);
  };
  m.copy_buffer = [](const TargetInstance&, void*, void* src, size_t src_offset, void* dst, size_t dst_offset,
                     size_t n) {
    if (n) std::memmove(static_cast<char*>(dst) + dst_offset, static_cast<const char*>(src) + src_offset, n);
  };
  m.create_stream = [](const TargetInstance&, int) -> void* { return nullptr; };
  m.destroy_stream = [](const TargetInstance&, void*) {};
  m.synchronize = [](const TargetInstance&, void*) {};
  return m;
}

/// Fluent description of one target; registered when the plugin's init returns.
class TargetBuilder {
 public:
  using Create = std::function<std::shared_ptr<void>(const Attrs& options)>;
  /// Whether the target runs this typed op call; false for an op it does not know.
  using Supports = std::function<bool(const TargetInstance&, const Expr& call)>;
  /// The call rebuilt in the layouts the target prefers, or an empty Expr to keep it.
  using AlterLayout = std::function<Expr(const TargetInstance&, const Expr& call)>;
  /// The group's kernel; throw Unsupported to decline the group.
  using Compile = std::function<CompiledKernel(const TargetInstance&, const CompileArgs& group)>;
  /// One kernel per group, in order; an empty kernel declines that group.
  /// Throw Unsupported to decline them all.
  using CompilePartition =
      std::function<std::vector<CompiledKernel>(const TargetInstance&, const std::vector<CompileArgs>& groups)>;
  using Devices = std::function<std::vector<TargetDevice>(const TargetInstance&)>;

  explicit TargetBuilder(std::string name) : name_(std::move(name)) {}

  TargetBuilder& describe(std::string text) { description_ = std::move(text); return *this; }
  TargetBuilder& device_type(DLDeviceType type) { device_type_ = type; return *this; }
  /// An option a run config may set (target_options.NAME.option); its type
  /// follows the default's C++ type.
  template <typename T>
  TargetBuilder& option(std::string name, T default_value, std::string doc, std::string expected = "") {
    schema_.add(std::move(name), detail::attr_type_of<T>(), Value(default_value), std::move(doc), std::move(expected));
    return *this;
  }
  /// Makes an instance's state from its options (throw Unsupported, saying
  /// why, when the target cannot run here). Optional.
  TargetBuilder& create(Create fn) { impl_->create = std::move(fn); return *this; }
  TargetBuilder& supports(Supports fn) { impl_->supports = std::move(fn); return *this; }
  TargetBuilder& alter_layout(AlterLayout fn) { impl_->alter_layout = std::move(fn); return *this; }
  TargetBuilder& compile(Compile fn) { impl_->compile = std::move(fn); return *this; }
  /// Compiles every group the build gives the target at once (optional;
  /// compile() stays required, for the builds that offer groups one by one).
  TargetBuilder& compile_partition(CompilePartition fn) { impl_->compile_partition = std::move(fn); return *this; }
  /// The devices an instance drives; one device named "cpu" when not given.
  TargetBuilder& devices(Devices fn) { impl_->devices = std::move(fn); return *this; }
  /// Where buffers live and how streams run; host_memory() when not given.
  TargetBuilder& memory(DeviceMemory memory) { impl_->memory = std::move(memory); return *this; }

  void register_with(weft_registrar_t* registrar) {
    if (!impl_->supports) throw Error("target '" + name_ + "' has no supports function");
    if (!impl_->compile) throw Error("target '" + name_ + "' has no compile function");
    const auto& fields = schema_.descriptors();
    impl_->normalizers = schema_.normalizers();
    weft_target_interface_t d{};
    d.struct_size = sizeof(d);
    d.name = name_.c_str();
    d.description = description_.c_str();
    d.device_type = device_type_;
    d.host_addressable = impl_->memory.host_addressable ? 1 : 0;
    d.options = fields.data();
    d.num_options = fields.size();
    d.create = &create_trampoline;
    d.destroy = [](void* instance) { delete static_cast<Instance*>(instance); };
    d.supports = [](void* instance, weft_expr_t* call, int* out) {
      return on(instance, [&](Instance& i) { *out = i.impl->supports(i.target, Expr::borrow(call)) ? 1 : 0; });
    };
    if (impl_->alter_layout) {
      d.alter_layout = [](void* instance, weft_expr_t* call, weft_expr_t** out) {
        return on(instance, [&](Instance& i) { *out = i.impl->alter_layout(i.target, Expr::borrow(call)).release(); });
      };
    }
    d.compile = &compile_trampoline;
    if (impl_->compile_partition) d.compile_partition = &compile_partition_trampoline;
    d.release_kernel = [](void*, void* kernel) { delete static_cast<CompiledKernel*>(kernel); };
    d.num_devices = [](void* instance, size_t* out) {
      return on(instance, [&](Instance& i) { *out = i.devices.size(); });
    };
    d.device_info = &device_info_trampoline;
    d.alloc = [](void* instance, int device, size_t nbytes, size_t alignment, void** out) {
      return on(instance, [&](Instance& i) { *out = i.impl->memory.alloc(i.target, device, nbytes, alignment); });
    };
    d.free = [](void* instance, int device, void* buffer) {
      Instance& i = *static_cast<Instance*>(instance);
      i.impl->memory.free(i.target, device, buffer);
    };
    d.copy_from_host = [](void* instance, void* stream, const void* src, void* dst, size_t dst_offset, size_t n) {
      return on(instance, [&](Instance& i) {
        i.impl->memory.copy_from_host(i.target, stream, src, dst, dst_offset, n);
      });
    };
    d.copy_to_host = [](void* instance, void* stream, void* src, size_t src_offset, void* dst, size_t n) {
      return on(instance, [&](Instance& i) { i.impl->memory.copy_to_host(i.target, stream, src, src_offset, dst, n); });
    };
    d.copy_buffer = [](void* instance, void* stream, void* src, size_t src_offset, void* dst, size_t dst_offset,
                       size_t n) {
      return on(instance, [&](Instance& i) {
        i.impl->memory.copy_buffer(i.target, stream, src, src_offset, dst, dst_offset, n);
      });
    };
    d.create_stream = [](void* instance, int device, void** out) {
      return on(instance, [&](Instance& i) { *out = i.impl->memory.create_stream(i.target, device); });
    };
    d.destroy_stream = [](void* instance, void* stream) {
      Instance& i = *static_cast<Instance*>(instance);
      i.impl->memory.destroy_stream(i.target, stream);
    };
    d.launch = &launch_trampoline;
    d.synchronize = [](void* instance, void* stream) {
      return on(instance, [&](Instance& i) { i.impl->memory.synchronize(i.target, stream); });
    };
    d.packed_constants = [](void* instance, void* kernel, int* out, size_t num_params, size_t* out_bytes) {
      return on(instance, [&](Instance&) {
        const CompiledKernel& k = *static_cast<const CompiledKernel*>(kernel);
        *out_bytes = k.packed_bytes();
        for (size_t p : k.packed_constants()) {
          if (p >= num_params) {
            throw Error("packed_constants names parameter " + std::to_string(p) + " of a group of " +
                        std::to_string(num_params));
          }
          out[p] = 1;
        }
      });
    };
    d.inplace_parameter = [](void* instance, void* kernel, int64_t* out_param) {
      return on(instance, [&](Instance&) {
        if (auto p = static_cast<const CompiledKernel*>(kernel)->inplace_parameter()) *out_param = static_cast<int64_t>(*p);
      });
    };
    d.destroy_user_data = &detail::destroy<Impl>;
    d.user_data = impl_.release();
    check(host().register_target_interface(registrar, &d));
  }

 private:
  struct Impl {
    Create create;
    Supports supports;
    AlterLayout alter_layout;
    Compile compile;
    CompilePartition compile_partition;
    Devices devices;
    DeviceMemory memory = host_memory();
    std::vector<std::shared_ptr<Normalizer>> normalizers;
  };
  /// What the host holds as an instance; the device strings it hands out live here.
  struct Instance {
    const Impl* impl;
    TargetInstance target;
    std::vector<TargetDevice> devices;
    std::vector<std::vector<const char*>> keys, values;
  };

  template <typename F>
  static weft_status_t on(void* instance, F&& body) {
    return guarded([&] { body(*static_cast<Instance*>(instance)); });
  }

  static weft_status_t create_trampoline(void* ud, weft_attrs_t* options, void** out) {
    return guarded([&] {
      const Impl& impl = *static_cast<const Impl*>(ud);
      Attrs given = Attrs::borrow(options);
      std::shared_ptr<void> state = impl.create ? impl.create(given) : nullptr;
      auto instance = std::make_unique<Instance>(Instance{&impl, TargetInstance(given, std::move(state)), {}, {}, {}});
      instance->devices = impl.devices ? impl.devices(instance->target) : std::vector<TargetDevice>{{"cpu", {}}};
      if (instance->devices.empty()) throw Error("the target lists no devices");
      for (const TargetDevice& device : instance->devices) {
        std::vector<const char*> keys, values;
        for (const auto& [k, v] : device.properties) {
          keys.push_back(k.c_str());
          values.push_back(v.c_str());
        }
        instance->keys.push_back(std::move(keys));
        instance->values.push_back(std::move(values));
      }
      *out = instance.release();
    });
  }

  static weft_status_t device_info_trampoline(void* instance, int device, weft_target_device_info_t* out) {
    return on(instance, [&](Instance& i) {
      if (device < 0 || static_cast<size_t>(device) >= i.devices.size()) {
        throw Error("device " + std::to_string(device) + " does not exist (the target has " +
                    std::to_string(i.devices.size()) + ")");
      }
      const TargetDevice& d = i.devices[device];
      out->name = d.name.c_str();
      out->property_keys = i.keys[device].data();
      out->property_values = i.values[device].data();
      out->num_properties = d.properties.size();
    });
  }

  static CompileArgs compile_args(weft_expr_t* primitive, const DLTensor* const* constants, size_t num_params) {
    CompileArgs group{Expr::borrow(primitive), {}};
    for (size_t p = 0; p < num_params; ++p) {
      group.constants.push_back(constants[p] ? std::optional<TensorView>(TensorView(*constants[p])) : std::nullopt);
    }
    return group;
  }

  static weft_status_t compile_partition_trampoline(void* instance, weft_expr_t* const* primitives,
                                                    const DLTensor* const* const* constants, const size_t* num_params,
                                                    size_t num_groups, void** out) {
    return on(instance, [&](Instance& i) {
      std::vector<CompileArgs> groups;
      for (size_t g = 0; g < num_groups; ++g) groups.push_back(compile_args(primitives[g], constants[g], num_params[g]));
      std::vector<CompiledKernel> kernels = i.impl->compile_partition(i.target, groups);
      if (kernels.size() != num_groups) {
        throw Error("compile_partition returned " + std::to_string(kernels.size()) + " kernels for " +
                        std::to_string(num_groups) + " groups",
                    WEFT_STATUS_INTERNAL);
      }
      for (size_t g = 0; g < num_groups; ++g) out[g] = kernels[g] ? new CompiledKernel(std::move(kernels[g])) : nullptr;
    });
  }

  static weft_status_t compile_trampoline(void* instance, weft_expr_t* primitive, const DLTensor* const* constants,
                                          size_t num_params, void** out) {
    return on(instance, [&](Instance& i) {
      CompiledKernel kernel = i.impl->compile(i.target, compile_args(primitive, constants, num_params));
      if (!kernel) throw Error("compile returned no kernel", WEFT_STATUS_INTERNAL);
      *out = new CompiledKernel(std::move(kernel));
    });
  }

  static weft_status_t launch_trampoline(void* instance, void* kernel, void* stream, const DLTensor* args,
                                         size_t num_args) {
    return on(instance, [&](Instance&) {
      LaunchArgs launch{stream, {}};
      launch.args.reserve(num_args);
      for (size_t a = 0; a < num_args; ++a) launch.args.emplace_back(args[a]);
      (*static_cast<const CompiledKernel*>(kernel))(launch);
    });
  }

  std::string name_, description_;
  DLDeviceType device_type_ = kDLCPU;
  detail::Schema schema_;
  std::unique_ptr<Impl> impl_ = std::make_unique<Impl>();
};

}  // namespace weft::sdk

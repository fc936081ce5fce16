// A plugin's target interface (plugin.h, weft_target_interface_t) turned into
// the core's TargetDef: create() returns a Target that calls the C table, and
// every status it returns becomes a weft::Error naming the target and the
// function, with the plugin's code (UNSUPPORTED from compile declines a group).
#include "definitions.h"

namespace weft::plugin_host {

namespace {

std::string str(const char* s) { return s ? s : ""; }

/// The registration's callbacks and user data, shared by the definition and
/// every instance (which outlive the definition's copies while they run).
struct TargetInterface {
  weft_target_interface_t table;
  std::string name;
  ~TargetInterface() {
    if (table.destroy_user_data && table.user_data) table.destroy_user_data(table.user_data);
  }

  /// Throws a plugin's failure in `function` as "target NAME: FUNCTION: ...".
  void check(weft_status_t status, const char* function) const {
    if (auto err = take_error(status)) throw in_context("target " + name + ": " + function, *err);
  }
};

/// One instance of a plugin target; frees it after everything made from it.
struct Instance {
  std::shared_ptr<const TargetInterface> target;
  void* handle;
  ~Instance() { target->table.destroy(handle); }
};

class PluginKernel final : public TargetKernel {
 public:
  PluginKernel(std::shared_ptr<const Instance> instance, void* kernel)
      : instance_(std::move(instance)), kernel_(kernel) {}
  ~PluginKernel() override { instance_->target->table.release_kernel(instance_->handle, kernel_); }

  void launch(StreamHandle stream, std::span<const DLTensor> args) const override {
    const TargetInterface& t = *instance_->target;
    t.check(t.table.launch(instance_->handle, kernel_, stream, args.data(), args.size()), "launch");
  }

  std::vector<bool> packed_constants() const override { return packed_; }
  size_t packed_bytes() const override { return packed_bytes_; }
  std::optional<size_t> inplace_parameter() const override { return inplace_; }
  void* handle() const { return kernel_; }
  /// Set once, by compile, before the kernel is handed out.
  void set_packed_constants(std::vector<bool> packed, size_t bytes) {
    packed_ = std::move(packed);
    packed_bytes_ = bytes;
  }
  void set_inplace_parameter(std::optional<size_t> param) { inplace_ = param; }

 private:
  std::shared_ptr<const Instance> instance_;
  void* kernel_;
  std::vector<bool> packed_;
  size_t packed_bytes_ = 0;
  std::optional<size_t> inplace_;
};

/// A group's constants as compile takes them: a view per bound tensor,
/// NULL where the argument is computed at run time.
struct ConstantViews {
  explicit ConstantViews(std::span<const Tensor> constants) {
    views.reserve(constants.size());
    for (const Tensor& c : constants) views.push_back(c.defined() ? c.dlpack_view() : DLTensor{});
    for (size_t i = 0; i < constants.size(); ++i) pointers.push_back(constants[i].defined() ? &views[i] : nullptr);
  }
  ConstantViews(ConstantViews&&) = default;  // moving the vectors keeps the views' addresses
  std::vector<DLTensor> views;
  std::vector<const DLTensor*> pointers;
};

class PluginTarget final : public Target {
 public:
  explicit PluginTarget(std::shared_ptr<const Instance> instance)
      : instance_(std::move(instance)), t_(*instance_->target), fn_(t_.table), h_(instance_->handle) {}

  bool supports(const Call& call) const override {
    int supported = 0;
    t_.check(fn_.supports(h_, borrow_handle<weft_expr_t>(call), &supported), "supports");
    return supported != 0;
  }

  Expr alter_layout(const Call& call) const override {
    if (!fn_.alter_layout) return {};
    weft_expr_t* out = nullptr;
    auto status = fn_.alter_layout(h_, borrow_handle<weft_expr_t>(call), &out);
    Expr altered = out ? adopt<ExprNode>(out, "an expression") : Expr();
    t_.check(status, "alter_layout");
    return altered;
  }

  std::unique_ptr<TargetKernel> compile(const Function& primitive, std::span<const Tensor> constants) override {
    ConstantViews views(constants);
    void* kernel = nullptr;
    t_.check(fn_.compile(h_, borrow_handle<weft_expr_t>(primitive), views.pointers.data(), views.pointers.size(),
                         &kernel),
             "compile");
    return adopt_kernel(kernel, constants);
  }

  std::vector<std::unique_ptr<TargetKernel>> compile_partition(
      std::span<const Function> primitives, std::span<const std::vector<Tensor>> constants) override {
    if (!fn_.compile_partition) return {};
    std::vector<weft_expr_t*> handles;
    std::vector<ConstantViews> views;
    std::vector<const DLTensor* const*> tables;
    std::vector<size_t> counts;
    views.reserve(primitives.size());
    for (size_t g = 0; g < primitives.size(); ++g) {
      handles.push_back(borrow_handle<weft_expr_t>(primitives[g]));
      views.emplace_back(constants[g]);
      tables.push_back(views.back().pointers.data());
      counts.push_back(views.back().pointers.size());
    }
    std::vector<void*> kernels(primitives.size(), nullptr);
    weft_status_t status =
        fn_.compile_partition(h_, handles.data(), tables.data(), counts.data(), handles.size(), kernels.data());
    // Owned from here, so a failure below (or the status) releases them.
    std::vector<std::unique_ptr<PluginKernel>> owned;
    for (void* k : kernels) owned.push_back(k ? std::make_unique<PluginKernel>(instance_, k) : nullptr);
    t_.check(status, "compile_partition");
    std::vector<std::unique_ptr<TargetKernel>> out;
    for (size_t g = 0; g < owned.size(); ++g) {
      if (owned[g]) describe(*owned[g], constants[g]);
      out.push_back(std::move(owned[g]));
    }
    return out;
  }
  std::vector<TargetDevice> devices() const override {
    size_t count = 0;
    t_.check(fn_.num_devices(h_, &count), "num_devices");
    std::vector<TargetDevice> out;
    for (size_t i = 0; i < count; ++i) {
      weft_target_device_info_t info{};
      info.struct_size = sizeof(info);
      t_.check(fn_.device_info(h_, static_cast<int>(i), &info), "device_info");
      if (!info.name) throw Error("target " + t_.name + ": device_info: device " + std::to_string(i) + " has no name");
      TargetDevice device{static_cast<int>(i), info.name, {}};
      for (size_t p = 0; p < info.num_properties; ++p) {
        device.properties[str(info.property_keys[p])] = str(info.property_values[p]);
      }
      out.push_back(std::move(device));
    }
    return out;
  }

  bool host_addressable() const override { return fn_.host_addressable != 0; }


  BufferHandle alloc(int device, size_t nbytes, size_t alignment) override {
    void* buffer = nullptr;
    t_.check(fn_.alloc(h_, device, nbytes, alignment, &buffer), "alloc");
    return buffer;
  }
  void free(int device, BufferHandle buffer) override { fn_.free(h_, device, buffer); }

  void copy_from_host(StreamHandle stream, const void* src, BufferHandle dst, size_t dst_offset,
                      size_t nbytes) override {
    t_.check(fn_.copy_from_host(h_, stream, src, dst, dst_offset, nbytes), "copy_from_host");
  }
  void copy_to_host(StreamHandle stream, BufferHandle src, size_t src_offset, void* dst, size_t nbytes) override {
    t_.check(fn_.copy_to_host(h_, stream, src, src_offset, dst, nbytes), "copy_to_host");
  }
  void copy_buffer(StreamHandle stream, BufferHandle src, size_t src_offset, BufferHandle dst, size_t dst_offset,
                   size_t nbytes) override {
    t_.check(fn_.copy_buffer(h_, stream, src, src_offset, dst, dst_offset, nbytes), "copy_buffer");
  }

  StreamHandle create_stream(int device) override {
    void* stream = nullptr;
    t_.check(fn_.create_stream(h_, device, &stream), "create_stream");
    return stream;
  }
  void destroy_stream(StreamHandle stream) override { fn_.destroy_stream(h_, stream); }
  void synchronize(StreamHandle stream) override { t_.check(fn_.synchronize(h_, stream), "synchronize"); }

 private:
  std::unique_ptr<TargetKernel> adopt_kernel(void* kernel, std::span<const Tensor> constants) const {
    // Owned from here, so a failure below releases it.
    auto adopted = std::make_unique<PluginKernel>(instance_, kernel);
    describe(*adopted, constants);
    return adopted;
  }

  /// Asks the plugin what the build needs to know of a new kernel.
  void describe(PluginKernel& kernel, std::span<const Tensor> constants) const {
    mark_packed(kernel, constants);
    mark_inplace(kernel, constants.size());
  }

  /// The parameter the kernel may overwrite (inplace_parameter), in range;
  /// the build checks its type.
  void mark_inplace(PluginKernel& kernel, size_t num_params) const {
    if (!fn_.inplace_parameter) return;
    int64_t param = -1;
    t_.check(fn_.inplace_parameter(h_, kernel.handle(), &param), "inplace_parameter");
    if (param == -1) return;
    if (param < 0 || static_cast<size_t>(param) >= num_params)
      throw Error("target " + t_.name + ": inplace_parameter names parameter " + std::to_string(param) +
                  " of a group of " + std::to_string(num_params))
          .status(StatusCode::kInternal);
    kernel.set_inplace_parameter(static_cast<size_t>(param));
  }

  /// The constants `kernel` packed (packed_constants), checked.
  void mark_packed(PluginKernel& kernel, std::span<const Tensor> constants) const {
    if (!fn_.packed_constants) return;
    std::vector<int> marks(constants.size(), 0);
    size_t bytes = 0;
    t_.check(fn_.packed_constants(h_, kernel.handle(), marks.data(), marks.size(), &bytes), "packed_constants");
    std::vector<bool> packed(constants.size());
    for (size_t i = 0; i < marks.size(); ++i) {
      if (marks[i] && !constants[i].defined())
        throw Error("target " + t_.name + ": packed_constants marks parameter " + std::to_string(i) +
                    ", which compile was given no constant for")
            .status(StatusCode::kInternal);
      packed[i] = marks[i] != 0;
    }
    kernel.set_packed_constants(std::move(packed), bytes);
  }

  std::shared_ptr<const Instance> instance_;
  const TargetInterface& t_;
  const weft_target_interface_t& fn_;
  void* h_;
};

}  // namespace

TargetDef target_definition(const weft_target_interface_t& d, const std::string& plugin) {
  auto target = std::make_shared<TargetInterface>();
  target->table = d;
  target->name = str(d.name);
  const std::string& name = target->name;
  // The table's strings are the plugin's, valid only during registration.
  target->table.name = nullptr;
  target->table.description = nullptr;
  target->table.options = nullptr;
  const std::string what = "target '" + name + "': ";
  require(d.create, what + "create");
  require(d.destroy, what + "destroy");
  require(d.supports, what + "supports");
  require(d.compile, what + "compile");
  require(d.release_kernel, what + "release_kernel");
  require(d.num_devices, what + "num_devices");
  require(d.device_info, what + "device_info");
  require(d.alloc, what + "alloc");
  require(d.free, what + "free");
  require(d.copy_from_host, what + "copy_from_host");
  require(d.copy_to_host, what + "copy_to_host");
  require(d.copy_buffer, what + "copy_buffer");
  require(d.create_stream, what + "create_stream");
  require(d.destroy_stream, what + "destroy_stream");
  require(d.launch, what + "launch");
  require(d.synchronize, what + "synchronize");
  if (!d.serialize_kernel != !d.deserialize_kernel) {
    throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                      what + "serialize_kernel and deserialize_kernel must both be set or both NULL"};
  }

  TargetDef def;
  def.name = name;
  def.description = str(d.description);
  def.device_type = d.device_type;
  def.options = schema_of(d.options, d.num_options, "target '" + name + "'");
  def.plugin = plugin;
  def.create = [target](const Attrs& options) -> std::shared_ptr<Target> {
    void* handle = nullptr;
    target->check(target->table.create(target->table.user_data, borrow_attrs(options), &handle), "create");
    std::shared_ptr<const Instance> instance(new Instance{target, handle});
    return std::make_shared<PluginTarget>(std::move(instance));
  };
  return def;
}

}  // namespace weft::plugin_host

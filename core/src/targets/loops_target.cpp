// `loops`: runs each fused group as the loop IR its TE lowers to (the
// default schedule of each stage, with the target traits a config gives),
// executed by the exact loop-IR evaluator. Slow on purpose: it checks every
// op's TE compute and every default schedule against the reference kernels
// before any code generator exists, and shows what llvm and vulkan get.
#include "loops_target.h"

#include "host_memory_target.h"
#include "weft/te/default_schedule.h"
#include "weft/te/evaluate.h"
#include "weft/te/function_te.h"
#include "weft/te/lower.h"

namespace weft::targets {

namespace {

class LoopsKernel : public TargetKernel {
 public:
  LoopsKernel(te::LoweredFunc f, size_t num_params, std::vector<Tensor> constants)
      : f_(std::move(f)), num_params_(num_params), constants_(std::move(constants)) {}

  void launch(StreamHandle /*stream*/, std::span<const DLTensor> args) const override {
    const size_t num_outputs = f_.outputs.size();
    if (args.size() != num_params_ + num_outputs)
      throw Error("the loops kernel " + f_.name + " takes " + std::to_string(num_params_ + num_outputs) +
                  " tensors (parameters, then outputs), got " + std::to_string(args.size()));
    std::vector<Tensor> inputs, outputs;
    for (size_t i = 0; i < num_params_; ++i) inputs.push_back(Tensor::from_dlpack(args[i], nullptr));
    inputs.insert(inputs.end(), constants_.begin(), constants_.end());
    for (size_t i = num_params_; i < args.size(); ++i) outputs.push_back(Tensor::from_dlpack(args[i], nullptr));
    te::evaluate(f_, inputs, outputs);
  }

 private:
  te::LoweredFunc f_;
  size_t num_params_;
  std::vector<Tensor> constants_;  // the group's own constants, after its parameters
};

class LoopsTarget : public HostMemoryTarget {
 public:
  explicit LoopsTarget(te::TargetTraits traits) : HostMemoryTarget("loops"), traits_(traits) {}

  bool supports(const Call& call) const override { return te::has_te(call); }

  std::unique_ptr<TargetKernel> compile(const Function& primitive, std::span<const Tensor> /*constants*/) override {
    te::FunctionTe group = te::function_te(primitive);
    te::Schedule schedule = te::default_schedule(group.outputs, traits_);
    std::vector<Tensor> constants;
    for (const auto& [placeholder, data] : group.constants) constants.push_back(data);
    return std::make_unique<LoopsKernel>(te::lower(schedule, "group", group.inputs()), group.params.size(),
                                         std::move(constants));
  }

 private:
  te::TargetTraits traits_;
};

}  // namespace

TargetDef loops_target_def() {
  TargetDef def;
  def.name = "loops";
  def.description =
      "ops' TE computes lowered to loops under the default schedules and evaluated exactly: checks TE, not fast";
  def.device_type = kDLCPU;
  auto positive = [](std::string name, int64_t fallback, std::string doc) {
    AttrField f;
    f.name = std::move(name);
    f.type = AttrType::kInt;
    f.default_value = AttrValue(fallback);
    f.doc = std::move(doc);
    f.expected = "an int >= 1";
    f.normalize = [](const AttrValue& v) -> std::optional<AttrValue> {
      return v.as_int() >= 1 ? std::optional<AttrValue>(v) : std::nullopt;
    };
    return f;
  };
  def.options.add(positive("vector_lanes", 8, "Elements per vector the default schedules assume (1: none)."));
  def.options.add(positive("vector_registers", 16, "Vector registers a contraction's register tile may use."));
  def.options.add(positive("cores", 2, "Cores the default schedules parallelize over (1: none)."));
  def.options.add(positive("parallel_work", te::TargetTraits{}.parallel_work,
                           "The least work (elements times reduction steps) a stage runs in parallel for."));
  AttrField many_threads;
  many_threads.name = "many_threads";
  many_threads.type = AttrType::kBool;
  many_threads.default_value = AttrValue(false);
  many_threads.doc = "Schedule as for a GPU: each stage one parallel loop over its data, an iteration per thread.";
  def.options.add(std::move(many_threads));
  def.create = [](const Attrs& options) { return std::make_shared<LoopsTarget>(te::target_traits(options)); };
  return def;
}

}  // namespace weft::targets

// The graph executor: construction schedules main (schedule.h), decides where
// the run buffers live (buffer_assignment.h) and uploads the constants read on
// devices the host cannot address; a run checks its inputs, takes streams and
// buffers of its own (run_resources.h: those of an earlier run where one is
// idle), and walks the steps.
#include "weft/graph_executor.h"

#include <chrono>
#include <cstring>
#include <set>

#include "../interpreter/check_argument.h"
#include "buffer_assignment.h"
#include "run_resources.h"
#include "schedule.h"
#include "weft/error.h"

namespace weft {

using executor::kHost;
using executor::Slot;
using executor::SlotTree;
using executor::Step;

struct GraphExecutor::Impl {
  std::shared_ptr<const CompiledModule> compiled;
  executor::Schedule schedule;
  executor::BufferAssignment buffers;
  std::vector<BufferHandle> device_constants;  // per Schedule::device_constants, null until uploaded
  MemoryStats memory;
  mutable executor::RunResourcePool run_resources;

  explicit Impl(std::shared_ptr<const CompiledModule> c)
      : compiled(std::move(c)),
        schedule(executor::make_schedule(*compiled)),
        buffers(executor::assign_buffers(schedule)),
        run_resources(schedule, buffers) {
    device_constants.assign(schedule.device_constants.size(), nullptr);
    measure_memory();
  }

  ~Impl() {
    for (size_t i = 0; i < device_constants.size(); ++i)
      if (device_constants[i]) schedule.targets[schedule.device_constants[i].target]->free(0, device_constants[i]);
  }

  void upload_constants() {
    std::map<int, StreamHandle> streams;
    try {
      for (size_t i = 0; i < schedule.device_constants.size(); ++i) {
        const executor::DeviceConstant& dc = schedule.device_constants[i];
        Target& target = *schedule.targets[dc.target];
        const Tensor& data = schedule.constants[dc.constant];
        auto [it, fresh] = streams.try_emplace(dc.target, nullptr);
        if (fresh) it->second = target.create_stream(0);
        device_constants[i] = target.alloc(0, std::max<size_t>(data.nbytes(), 1), Tensor::kAlignment);
        target.copy_from_host(it->second, data.data(), device_constants[i], 0, data.nbytes());
      }
      for (auto& [t, stream] : streams) schedule.targets[t]->synchronize(stream);
    } catch (...) {
      for (auto& [t, stream] : streams) schedule.targets[t]->destroy_stream(stream);
      throw;
    }
    for (auto& [t, stream] : streams) schedule.targets[t]->destroy_stream(stream);
  }

  void measure_memory() {
    for (const Tensor& c : schedule.constants) memory.param_bytes += c.nbytes();
    for (const executor::DeviceConstant& dc : schedule.device_constants)
      memory.param_bytes += schedule.constants[dc.constant].nbytes();
    for (const CompiledGroup& g : compiled->groups) memory.param_bytes += g.packed_bytes;
    memory.intermediate_bytes = schedule.intermediate_bytes;
    memory.arena_bytes = buffers.total_bytes();
    for (const executor::BufferAssignment::Allocation& a : buffers.allocations)
      memory.arena_bytes_by_target[a.target == kHost ? "host" : schedule.target_names[a.target]] += a.nbytes;
  }

  void check_inputs(const std::vector<Value>& inputs) const {
    const Function& main = compiled->main;
    if (inputs.size() != main->params.size())
      throw Error("main takes " + std::to_string(main->params.size()) + " arguments, got " +
                  std::to_string(inputs.size()));
    for (size_t i = 0; i < inputs.size(); ++i)
      interpreter::check_argument(inputs[i], main->params[i]->checked_type(), "argument %" + main->params[i]->name_hint);
  }

  Value run(const std::vector<Value>& inputs, std::vector<KernelProfile>* profile) const {
    check_inputs(inputs);
    std::vector<Tensor> flat_inputs;
    for (const Value& v : inputs)
      for (Tensor& t : v.flatten()) flat_inputs.push_back(std::move(t));

    std::unique_ptr<executor::RunResources> resources = run_resources.take();
    const executor::RunResources& run = *resources;
    const size_t num_slots = schedule.slots.size();
    std::vector<BufferHandle> handle(num_slots);
    std::vector<size_t> offset(num_slots, 0);
    for (size_t s = 0; s < num_slots; ++s) {
      const Slot& slot = schedule.slots[s];
      switch (slot.source) {
        case Slot::Source::kInput: handle[s] = flat_inputs[slot.index].data(); break;
        case Slot::Source::kConstant: handle[s] = schedule.constants[slot.index].data(); break;
        case Slot::Source::kDeviceConstant: handle[s] = device_constants[slot.index]; break;
        case Slot::Source::kPacked: handle[s] = nullptr; break;
        case Slot::Source::kRunBuffer: {
          const executor::BufferAssignment::Place& place = buffers.places[slot.index];
          handle[s] = run.allocation(place.allocation);
          offset[s] = place.offset;
          break;
        }
      }
    }
    auto host_pointer = [&](size_t s) { return static_cast<std::byte*>(handle[s]) + offset[s]; };

    std::vector<DLTensor> args = schedule.arg_templates;
    for (size_t i = 0; i < args.size(); ++i) {
      args[i].data = handle[schedule.arg_slots[i]];
      args[i].byte_offset = offset[schedule.arg_slots[i]];
    }

    for (const Step& step : schedule.steps) {
      Target& target = *schedule.targets[step.target];
      StreamHandle stream = run.stream(step.target);
      switch (step.kind) {
        case Step::Kind::kLaunch: {
          const TargetKernel& kernel = *compiled->groups[step.group].kernel;
          const std::span<const DLTensor> launch_args(args.data() + step.first_arg, step.num_args);
          if (!profile) {
            kernel.launch(stream, launch_args);
            break;
          }
          const auto start = std::chrono::steady_clock::now();
          kernel.launch(stream, launch_args);
          target.synchronize(stream);
          const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
          profile->push_back({step.group, elapsed.count()});
          break;
        }
        case Step::Kind::kUpload:
          target.copy_from_host(stream, host_pointer(step.src), handle[step.dst], offset[step.dst],
                                schedule.slots[step.src].nbytes);
          break;
        case Step::Kind::kDownload:
          target.copy_to_host(stream, handle[step.src], offset[step.src], host_pointer(step.dst),
                              schedule.slots[step.src].nbytes);
          break;
        case Step::Kind::kSynchronize:
          target.synchronize(stream);
          break;
      }
    }
    // The outputs a device holds are downloaded on its stream behind the
    // launches, so one synchronize waits for both; those in host memory are
    // copied once everything has run.
    std::vector<std::pair<Tensor, size_t>> host_outputs;  // tensor, slot
    auto to_value = [&](const SlotTree& tree, auto&& self) -> Value {
      if (!tree.slot) {
        std::vector<Value> fields;
        for (const SlotTree& f : tree.fields) fields.push_back(self(f, self));
        return Value::tuple(std::move(fields));
      }
      const size_t s = *tree.slot;
      const Slot& slot = schedule.slots[s];
      Tensor out = Tensor::empty(slot.shape, slot.dtype);
      if (schedule.host_readable(s))
        host_outputs.emplace_back(out, s);
      else
        schedule.targets[slot.target]->copy_to_host(run.stream(slot.target), handle[s], offset[s], out.data(),
                                                    slot.nbytes);
      return out;
    };
    Value result = to_value(schedule.output, to_value);
    run.synchronize_all();
    for (auto& [out, s] : host_outputs)
      if (schedule.slots[s].nbytes) std::memcpy(out.data(), host_pointer(s), schedule.slots[s].nbytes);
    run_resources.give_back(std::move(resources));
    return result;
  }
};

GraphExecutor::GraphExecutor(std::shared_ptr<const CompiledModule> compiled) {
  if (!compiled) throw Error("the graph executor needs a compiled module, got none");
  impl_ = std::make_unique<Impl>(std::move(compiled));
  impl_->upload_constants();
}

GraphExecutor::~GraphExecutor() = default;

Value GraphExecutor::run(const std::vector<Value>& inputs) const { return impl_->run(inputs, nullptr); }

Value GraphExecutor::run_profiled(const std::vector<Value>& inputs, std::vector<KernelProfile>& profile) const {
  profile.clear();
  return impl_->run(inputs, &profile);
}

const MemoryStats& GraphExecutor::memory() const { return impl_->memory; }

const CompiledModule& GraphExecutor::compiled() const { return *impl_->compiled; }

size_t GraphExecutor::num_launches() const { return impl_->schedule.num_launches; }

}  // namespace weft

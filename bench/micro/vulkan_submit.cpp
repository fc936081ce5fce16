// What a submission costs on the Vulkan device itself, apart from weft: a
// stream resubmitting a recorded command buffer of one 4-byte device copy
// and waiting for it (the driver's round trip: on lavapipe its queue thread
// takes the work and signals the fence), against the same stream's host-side
// work for a run (enqueueing and matching the recording, no submission).
// `weft bench mlp --config` with `vulkan: {timing: true}` then shows a run's
// time beyond the device's; this is how much of that is the driver's.
// Run: build/bin/weft_bench_vulkan_submit (on lavapipe:
// VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json).
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "context.h"
#include "memory.h"
#include "stream.h"

namespace vulkan_target {
namespace {

void BM_ResubmitOneCopy(benchmark::State& state) {
  std::shared_ptr<Context> context = Context::get(-1, false);
  BlockAllocator memory(context);
  DeviceBuffer* a = memory.allocate(256, 256);
  DeviceBuffer* b = memory.allocate(256, 256);
  {
    Stream stream(context, memory);
    for (auto _ : state) {
      stream.copy_buffer(*a, 0, *b, 0, 4);
      stream.synchronize();
    }
    state.counters["recordings"] = static_cast<double>(stream.recordings());
  }
  memory.release(a);
  memory.release(b);
}
BENCHMARK(BM_ResubmitOneCopy)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_DirectCopiesOnly(benchmark::State& state) {
  // Uploads and downloads of mapped memory: no submission at all.
  std::shared_ptr<Context> context = Context::get(-1, false);
  BlockAllocator memory(context);
  DeviceBuffer* a = memory.allocate(4096, 256);
  std::vector<char> in(4096, 1), out(4096);
  {
    Stream stream(context, memory);
    for (auto _ : state) {
      stream.copy_from_host(in.data(), *a, 0, in.size());
      stream.copy_to_host(*a, 0, out.data(), out.size());
      stream.synchronize();
    }
  }
  memory.release(a);
}
BENCHMARK(BM_DirectCopiesOnly)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vulkan_target

BENCHMARK_MAIN();

#!/usr/bin/env bash
# The vulkan target on a real GPU, in one go: builds weft (Release), runs the
# conformance suite's vulkan cases on the GPU, times resnet-50 at batch 1 and
# 32 and a 4096^3 float32 matrix product with configs/vulkan.yaml, and prints
# a table. Written to finish within 10 minutes on a machine with an NVIDIA
# GPU and its Vulkan driver; on a machine without a Vulkan GPU it says so and
# exits 0 having run nothing. Never part of the tests or CI.
#
#   bench/gpu_check.sh [BUILD_DIR]      (default: build-gpu beside the sources)
#
# Needs the packages tools/dev installs (cmake, ninja, a C++ compiler,
# libvulkan-dev, glslang-dev, ...) and vulkaninfo (vulkan-tools).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
start=$SECONDS
say() { printf 'gpu_check: %s\n' "$*" >&2; }
left() { echo $((600 - 30 - (SECONDS - start))); }  # seconds before the 10-minute mark, with a margin

for tool in cmake ninja c++ vulkaninfo; do
  if ! command -v "$tool" >/dev/null; then
    say "$tool is missing: install the packages tools/dev lists (vulkaninfo is in vulkan-tools)"
    exit 1
  fi
done

# The GPU, not lavapipe: no driver pinned.
unset VK_DRIVER_FILES VK_ICD_FILENAMES
devices=$(vulkaninfo --summary 2>/dev/null | grep -E 'deviceType|deviceName' || true)
if ! grep -qE 'PHYSICAL_DEVICE_TYPE_(DISCRETE|INTEGRATED)_GPU' <<<"$devices"; then
  say "no Vulkan GPU on this machine; nothing to check. vulkaninfo lists:"
  printf '%s\n' "${devices:-  (no Vulkan device at all)}" >&2
  exit 0
fi
gpu=$(vulkaninfo --summary 2>/dev/null | grep -B3 -E 'PHYSICAL_DEVICE_TYPE_(DISCRETE|INTEGRATED)_GPU' |
  grep deviceName | head -1 | sed 's/.*= *//')
say "GPU: $gpu"

say "building weft in $build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target weft weft_conformance_tests -j "$(nproc)" >/dev/null
export WEFT_PLUGIN_PATH=$build/lib/weft/plugins
weft=$build/bin/weft

say "conformance suite, vulkan cases"
conformance=$(timeout "$(left)" "$build/bin/weft_conformance_tests" --gtest_filter='*/vulkan_*' --gtest_brief=1 2>&1 |
  grep -E '^\[  (PASSED|FAILED|SKIPPED) ' | tr '\n' ' ' || true)

# The median latency in ms of `weft bench $1 ... --json`, or why there is none.
median_ms() {
  local out
  if ! out=$(timeout "$(left)" "$weft" bench "$@" --config "$root/configs/vulkan.yaml" --json 2>/dev/null); then
    echo "failed"
    return
  fi
  grep -A4 '"latency_ms"' <<<"$out" | grep '"median"' | sed 's/[^0-9.]//g'
}
rate() { awk -v ms="$1" -v per="$2" 'BEGIN { if (ms + 0 > 0) printf "%.1f", per / (ms / 1000); else print "-" }'; }

say "resnet-50, batch 1 and 32"
r1=$(median_ms resnet-50 --repeat 10)
r32=$(median_ms 'resnet-50:batch_size=32' --warmup 1 --repeat 3)
say "sgemm 4096^3"
mm=$(median_ms "$root/bench/gpu/sgemm_4096.relay" --warmup 1 --repeat 5)

printf '\n| check on %s | result |\n|---|---|\n' "$gpu"
printf '| conformance, vulkan cases | %s |\n' "${conformance:-did not finish}"
printf '| resnet-50 batch 1 | %s ms, %s images/s |\n' "$r1" "$(rate "$r1" 1)"
printf '| resnet-50 batch 32 | %s ms, %s images/s |\n' "$r32" "$(rate "$r32" 32)"
printf '| sgemm 4096^3 | %s ms, %s GFLOP/s (compare with the GPU'"'"'s fp32 peak) |\n' "$mm" \
  "$(awk -v ms="$mm" 'BEGIN { if (ms + 0 > 0) printf "%.0f", 2 * 4096^3 / (ms / 1000) / 1e9; else print "-" }')"
printf '| wall time | %d s |\n' $((SECONDS - start))

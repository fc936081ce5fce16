#!/usr/bin/env bash
# The third party's path, against an installed weft only: installs weft into
# a temporary prefix, builds the installed examples (share/weft/examples)
# with find_package(Weft) (weft_add_plugin loads each plugin after its
# build), runs their tests, installs them beside weft, builds the op again
# with pkg-config alone, and checks that the installed weft lists and runs
# them: the op on the reference kernels and on the targets that generate
# code, the model by name with its own initializer, the target through the
# conformance suite and resnet-18.
# A plugin whose manifest declares what it does not register fails its build.
# Usage: out_of_tree_plugin.sh <weft build dir> <weft source dir>
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "$*"; exit 1; }
prefix=$work/prefix
# Nothing here may rebuild weft: the examples build against the install alone.
core_stamp=$(stat -c %Y "$build/lib/libweft_core.so")

cmake --install "$build" --prefix "$prefix" >/dev/null
for path in bin/weft lib/libweft_core.so include/weft/plugin.h include/weft/plugin.hpp include/weft/sdk/gradient.hpp \
            include/weft/expr.h lib/weft/plugins/tensor/weft-plugin.yaml lib/weft/plugins/tensor/libweft_tensor.so \
            lib/cmake/Weft/WeftConfig.cmake lib/pkgconfig/weft.pc share/weft/examples/custom_op/CMakeLists.txt \
            share/weft/examples/custom_model/CMakeLists.txt share/weft/examples/custom_target/acme.yaml \
            share/weft/configs/default.yaml; do
  [ -e "$prefix/$path" ] || fail "install lacks $path"
done
weft=$prefix/bin/weft

# With CMake: the build loads the plugin (weft plugins --check), the install
# puts it where the installed weft finds it with no WEFT_PLUGIN_PATH.
cmake -S "$prefix/share/weft/examples/custom_op" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$work/example" >/dev/null || fail "the example did not build"
cmake --install "$work/example" >/dev/null
[ -e "$prefix/lib/weft/plugins/custom_op/libweft_custom_op.so" ] || fail "the example's install lacks its library"
[ -e "$prefix/lib/weft/plugins/custom_op/weft-plugin.yaml" ] || fail "the example's install lacks its manifest"
listing=$(env -u WEFT_PLUGIN_PATH "$weft" ops)
grep -q "^acme.bias_gelu " <<<"$listing" || fail "the installed weft does not list acme.bias_gelu:
$listing"
# Its own tests (weft::testing, against the installed core), the plugin found
# through weft_add_plugin_test.
ctest --test-dir "$work/example" --output-on-failure >"$work/ctest.txt" 2>&1 ||
  fail "the example's tests failed: $(cat "$work/ctest.txt")"

# The plugin exports its entry symbol and nothing else.
exported=$(nm -D --defined-only "$prefix/lib/weft/plugins/custom_op/libweft_custom_op.so" | awk '{print $3}' | sort -u)
[ "$exported" = "weft_plugin_entry" ] || fail "the plugin exports more than its entry: $exported"

# gelu(0.5 + 0.5) = 0.841345, gelu(0) = 0, gelu(1.5) = 1.399789, gelu(-1.5) = -0.100211
got=$("$work/example/run_bias_gelu")
expected="0.841345 0.000000 1.399789 -0.100211"
[ "$got" = "$expected" ] || fail "run_bias_gelu printed '$got', expected '$expected'"

# Its program runs unchanged on every code-generating target there is
# (vulkan where this machine has a Vulkan device), acme.bias_gelu's TE
# compute lowered with the convolution's, to the reference kernels' values.
program=$prefix/share/weft/examples/custom_op/bias_gelu.relay
"$weft" run "$program" --target ref --output "$work/ref.npz" >/dev/null 2>&1 || fail "weft run on ref failed"
targets=$("$weft" targets --json)
for target in loops llvm vulkan; do
  grep -q "\"name\": \"$target\"" <<<"$targets" || continue
  if ! out=$("$weft" run "$program" --target "$target" --fallback error --output "$work/$target.npz" 2>&1); then
    if [ "$target" = vulkan ] && grep -q "no Vulkan" <<<"$out"; then continue; fi
    fail "weft run on $target failed:
$out"
  fi
  /usr/bin/python3 - "$work/ref.npz" "$work/$target.npz" <<'PY' || fail "$target and ref differ"
import sys, numpy as np
want, got = np.load(sys.argv[1]), np.load(sys.argv[2])
for k in want.files:
    np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)
PY
done

# A model family and its initializer, two plugins of one project: tested,
# installed, listed and run by name with the installed weft, which builds its
# workload with the model's own initializer.
cmake -S "$prefix/share/weft/examples/custom_model" -B "$work/model" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$work/model" >/dev/null || fail "the model example did not build"
ctest --test-dir "$work/model" --output-on-failure >"$work/ctest.txt" 2>&1 ||
  fail "the model example's tests failed: $(cat "$work/ctest.txt")"
cmake --install "$work/model" >/dev/null
models=$(env -u WEFT_PLUGIN_PATH "$weft" models)
grep -q "^acme_net " <<<"$models" || fail "the installed weft does not list acme_net"
grep -q "initializer acme_uniform" <<<"$models" || fail "acme_net does not name its initializer"
out=$(env -u WEFT_PLUGIN_PATH "$weft" run acme_net-3 2>&1) || fail "weft run acme_net-3 failed:
$out"
grep -q "^output: Tensor\[(1, 10), float32\]" <<<"$out" || fail "acme_net-3 did not run:
$out"

# A vendor target with its own device memory: tested, then weft's
# conformance suite (from weft's build tree) on every golden op case with it,
# then resnet-18 end to end under its config: what it runs on its device, the
# rest on ref with a warning listing those ops, the same output as ref's.
cmake -S "$prefix/share/weft/examples/custom_target" -B "$work/target" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/target" >/dev/null || fail "the target example did not build"
ctest --test-dir "$work/target" --output-on-failure >"$work/ctest.txt" 2>&1 ||
  fail "the target example's tests failed: $(cat "$work/ctest.txt")"
WEFT_PLUGIN_PATH=$work/target/plugins "$build/bin/weft_conformance_tests" \
  --gtest_filter='*GoldenOpsOnTargets*/acme_cpu_*' >"$work/conformance.txt" 2>&1 ||
  fail "acme_cpu fails the conformance suite: $(grep -A5 FAILED "$work/conformance.txt" | head -40)"
grep -q "PASSED" "$work/conformance.txt" || fail "the conformance suite ran no acme_cpu case"
out=$(WEFT_PLUGIN_PATH=$work/target/plugins "$weft" run resnet-18 --output "$work/acme.npz" \
  --config "$prefix/share/weft/examples/custom_target/acme.yaml" 2>&1) || fail "resnet-18 on acme_cpu failed:
$out"
grep -q "no listed target (acme_cpu) supports these ops, so they run on ref" <<<"$out" ||
  fail "resnet-18 on acme_cpu did not list its fallbacks:
$out"
if grep -q "  nn.dense\|  nn.global_avg_pool2d" <<<"$out"; then fail "acme_cpu did not run its own ops:
$out"; fi
"$weft" run resnet-18 --target ref --output "$work/ref18.npz" >/dev/null 2>&1 || fail "resnet-18 on ref failed"
/usr/bin/python3 - "$work/ref18.npz" "$work/acme.npz" <<'PY' || fail "resnet-18 on acme_cpu differs from ref"
import sys, numpy as np
want, got = np.load(sys.argv[1]), np.load(sys.argv[2])
for k in want.files:
    np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-6)
PY

# Without CMake: pkg-config's flags alone build a plugin that loads.
mkdir -p "$work/pc/custom_op"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
c++ -std=c++20 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags weft) \
  -Wl,--version-script="$(pkg-config --variable=exportmap weft)" \
  "$source/sdk/examples/custom_op/bias_gelu.cpp" -o "$work/pc/custom_op/libweft_custom_op.so"
cp "$source/sdk/examples/custom_op/weft-plugin.yaml" "$work/pc/custom_op/"
WEFT_PLUGIN_PATH=$work/pc "$weft" plugins --check custom_op || fail "the pkg-config build does not load"
[ "$(nm -D --defined-only "$work/pc/custom_op/libweft_custom_op.so" | awk '{print $3}')" = weft_plugin_entry ] ||
  fail "the pkg-config build exports more than its entry"

# A manifest that declares an op the library does not register fails the build, saying so.
cp -r "$source/sdk/examples/custom_op" "$work/broken"
sed -i 's/ops: \[acme.bias_gelu\]/ops: [acme.bias_gelu, acme.missing]/' "$work/broken/weft-plugin.yaml"
cmake -S "$work/broken" -B "$work/broken-build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
if out=$(cmake --build "$work/broken-build" 2>&1); then fail "a plugin with a wrong manifest built"; fi
grep -q "acme.missing" <<<"$out" || fail "the failed build does not name the missing op:
$out"
[ "$(stat -c %Y "$build/lib/libweft_core.so")" = "$core_stamp" ] || fail "weft itself was rebuilt"
echo "out-of-tree plugins built, checked, tested, installed and ran against the installed SDK: $got"

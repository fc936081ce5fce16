#!/usr/bin/env bash
# Installs weft into a temporary prefix, builds sdk/examples/custom_op against
# it with find_package(Weft), and checks that the installed weft lists and runs
# the out-of-tree op. Usage: out_of_tree_plugin.sh <weft build dir> <weft source dir>
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
for path in bin/weft lib/libweft_core.so include/weft/plugin.h include/weft/expr.h \
            lib/weft/plugins/tensor/weft-plugin.yaml lib/weft/plugins/tensor/libweft_tensor.so \
            lib/cmake/Weft/WeftConfig.cmake; do
  [ -e "$work/prefix/$path" ] || { echo "install lacks $path"; exit 1; }
done

cmake -S "$source/sdk/examples/custom_op" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/example" >/dev/null

export WEFT_PLUGIN_PATH=$work/example/plugins
export LD_LIBRARY_PATH=$work/prefix/lib
listing=$("$work/prefix/bin/weft" ops)
grep -q "^example.softplus " <<<"$listing" || { echo "weft ops does not list example.softplus:"; echo "$listing"; exit 1; }

# softplus(0) = ln 2, softplus(1) = ln(1 + e), softplus(-1) = ln(1 + 1/e)
got=$("$work/example/run_softplus")
expected="0.693147 1.313262 0.313262"
[ "$got" = "$expected" ] || { echo "run_softplus printed '$got', expected '$expected'"; exit 1; }
# Its TE compute runs on the loops target with no change to weft, to the
# reference kernel's printed values.
printf 'def @main(%%x: Tensor[(2, 3), float32]) {\n  example.softplus(%%x, beta=2f)\n}\n' >"$work/softplus.relay"
on_loops=$("$work/prefix/bin/weft" run "$work/softplus.relay" --target loops --fallback error 2>&1) ||
  { echo "weft run on loops failed:"; echo "$on_loops"; exit 1; }
on_ref=$("$work/prefix/bin/weft" run "$work/softplus.relay" --target ref 2>&1)
grep -q "^ran main of .*softplus.relay on loops " <<<"$on_loops" || { echo "softplus did not run on loops:"; echo "$on_loops"; exit 1; }
[ "$(grep '^output:' <<<"$on_loops")" = "$(grep '^output:' <<<"$on_ref")" ] ||
  { echo "loops and ref differ:"; echo "$on_loops"; echo "$on_ref"; exit 1; }
echo "out-of-tree plugin built against the installed SDK and ran: $got; on loops: $(grep '^output:' <<<"$on_loops")"

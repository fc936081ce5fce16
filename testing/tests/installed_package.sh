#!/usr/bin/env bash
# Installs weft into a temporary prefix and builds and runs sdk/examples/op_tests,
# an out-of-tree GoogleTest program using Weft::testing from the package.
# Usage: installed_package.sh <weft build dir> <weft source dir>
set -euo pipefail
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
for path in lib/libweft_testing.a include/weft/testing/gtest_helpers.h lib/cmake/Weft/WeftTestingTargets.cmake; do
  [ -e "$work/prefix/$path" ] || { echo "install lacks $path"; exit 1; }
done

cmake -S "$source/sdk/examples/op_tests" -B "$work/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/example" >/dev/null
LD_LIBRARY_PATH=$work/prefix/lib "$work/example/op_tests"

#!/usr/bin/env bash
# What weft's shared libraries export: each plugin its entry symbol alone
# (cmake/weft-plugin.map), and libweft_core its C++ API in namespace weft
# alone (core/weft-core.map): none of the standard library's, JSON's, YAML's
# or Boost's template code it instantiates, which another library's copies
# could otherwise bind to. Usage: exported_symbols.sh <weft build dir>
set -euo pipefail
build=$1
status=0
plugins=0
for library in "$build"/lib/weft/plugins/*/lib*.so; do
  plugins=$((plugins + 1))
  exported=$(nm -D --defined-only "$library" | awk '{print $3}')
  if [ "$exported" != "weft_plugin_entry" ]; then
    echo "$library exports more than weft_plugin_entry:"
    grep -v '^weft_plugin_entry$' <<<"$exported" | c++filt | head -20
    status=1
  fi
done
[ "$plugins" -gt 0 ] || { echo "no plugins under $build/lib/weft/plugins"; exit 1; }
foreign=$(nm -DC --defined-only "$build/lib/libweft_core.so" | cut -d' ' -f3- |
  grep -vE '^(weft::|typeinfo for weft::|typeinfo name for weft::|vtable for weft::|VTT for weft::)' || true)
if [ -n "$foreign" ]; then
  echo "libweft_core.so exports symbols outside namespace weft:"
  head -20 <<<"$foreign"
  status=1
fi
exit $status

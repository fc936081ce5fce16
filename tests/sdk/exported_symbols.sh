#!/usr/bin/env bash
# What weft's shared libraries export: each plugin its entry symbol alone
# (cmake/weft-plugin.map), and libweft_core its public API alone: what its
# public headers declare (hidden visibility otherwise), none of the standard
# library's, JSON's, YAML's or Boost's template code it instantiates
# (core/weft-core.map), which another library's copies could otherwise bind
# to. Usage: exported_symbols.sh <weft build dir>
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
core=$(nm -DC --defined-only "$build/lib/libweft_core.so" | cut -d' ' -f3-)
foreign=$(grep -vE '^(weft::|typeinfo for weft::|typeinfo name for weft::|vtable for weft::|VTT for weft::)' <<<"$core" || true)
if [ -n "$foreign" ]; then
  echo "libweft_core.so exports symbols outside namespace weft:"
  head -20 <<<"$foreign"
  status=1
fi
# Its internals (what no public header declares) stay hidden.
# (the symbol's own name, after any return type: a public function may take internal types)
internal=$(grep -E '^([^ (]+ )?(typeinfo for |vtable for )?weft::(plugin_host|executor|build_detail|gradient_detail|fusion|targets|sdk)::' <<<"$core" || true)
if [ -n "$internal" ]; then
  echo "libweft_core.so exports its internals:"
  head -20 <<<"$internal"
  status=1
fi
exit $status

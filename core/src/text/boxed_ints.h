// The integers TVM prints as `meta[runtime.BoxInt][N]` (split's
// indices_or_sections) when the text has no metadata section to look them up
// in (astext(show_meta_data=False), or print(mod)): recovered where the
// program itself determines them, from the `/* ty=... */` annotation TVM
// prints after the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weft/attrs.h"
#include "weft/type.h"

namespace weft::text {

/// Where a boxed integer sits in a call's attrs: the attr, and the element of
/// the attr's list (nullopt when the attr is the integer itself).
struct BoxedIntSite {
  std::string attr;
  std::optional<size_t> element;
};

/// The value at `site` of a call to `op` with `attrs` (as written; the boxed
/// integers in them unknown) whose result type TVM annotated as `result` (null
/// when the text has no annotation), or nullopt when they do not determine it.
/// split's result (T1, ..., TN) determines indices_or_sections: N when it is
/// the integer itself and the parts are equal along `axis`; as element i of a
/// list of N - 1 indices, where part i ends (the extents of parts 0..i added).
std::optional<int64_t> recover_boxed_int(std::string_view op, const BoxedIntSite& site,
                                         const std::vector<std::pair<std::string, AttrValue>>& attrs,
                                         const Type& result);

}  // namespace weft::text

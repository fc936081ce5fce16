// A call's attributes printed as `meta[relay.attrs.XAttrs][N]`: TVM's printer
// moves a call's attrs into the metadata section when their type is not the
// one its op registers (RelayTextPrinter::PrintCallAttrs: nn.avg_pool2d_grad
// builds AvgPool2DAttrs, nn.dilate registers none). They are read back into
// the key=value pairs the call would have had inline. `meta[DictAttrs][N]`
// (attrs built as a dictionary, as for an op registering no attrs type) reads
// each entry of its dictionary as the attribute of that name.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metadata.h"
#include "weft/attrs.h"
#include "weft/error.h"

namespace weft::text {

/// The fields of the attrs node meta[`type_key`][`index`] of `meta` as a call to
/// `op` takes them: each field SaveJSON wrote, converted to the attr value its
/// member type stands for (IntImm -> int, Array -> list, runtime.String and
/// std::string -> string, a void DataType or a null ObjectRef -> None, ...).
/// Throws weft::Error at `loc`, naming the op (and the field), for a type key
/// TVM v0.19 has no attrs struct for, one that is not `op`'s, an index past
/// what the section lists, or a field that is unknown or not in its member
/// type's form. For "DictAttrs" the entries are taken by name, unchecked
/// here: the op's schema checks them as it checks attributes written inline.
std::vector<std::pair<std::string, AttrValue>> read_meta_call_attrs(const Metadata& meta, std::string_view type_key,
                                                                    int64_t index, std::string_view op,
                                                                    const SourceLoc& loc);

}  // namespace weft::text

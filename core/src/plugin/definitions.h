// Internal: a plugin's C descriptors turned into the core's definitions.
// Each definition wraps the plugin's callbacks (and owns its user data, which
// is destroyed with the last definition that uses it); a callback the kind
// requires that is missing is a StatusError.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "handles.h"
#include "weft/frontend.h"
#include "weft/initializer.h"
#include "weft/model.h"
#include "weft/op.h"
#include "weft/pass.h"
#include "weft/target.h"

namespace weft::plugin_host {

/// Copies a struct a plugin filled, knowing only its struct_size: fields the
/// plugin's (older) header lacks read as zero; fields of a newer one are ignored.
template <typename T>
T read_struct(const T* p, const char* what) {
  if (!p) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string(what) + " is NULL"};
  if (p->struct_size < sizeof(size_t) * 2) {
    throw StatusError{WEFT_STATUS_INVALID_ARGUMENT,
                      std::string(what) + " has struct_size " + std::to_string(p->struct_size) + "; set it to sizeof"};
  }
  T out;
  std::memset(&out, 0, sizeof(T));
  std::memcpy(&out, p, std::min(p->struct_size, sizeof(T)));
  return out;
}

/// Element i of an array of size-prefixed structs (stride = first element's size).
template <typename T>
T read_element(const T* array, size_t i, const char* what) {
  if (!array) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string(what) + " array is NULL"};
  size_t stride = array[0].struct_size;
  return read_struct(reinterpret_cast<const T*>(reinterpret_cast<const char*>(array) + i * stride), what);
}

/// A callback the kind requires: StatusError "<what> is required" when missing.
template <typename F>
void require(F* fn, const std::string& what) {
  if (!fn) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, what + " is required"};
}

/// A borrowed handle to `a` (the empty dictionary for null attrs), for a callback.
weft_attrs_t* borrow_attrs(const Attrs& a);
/// The schema a plugin's field descriptors declare; `owner` names it in errors.
AttrSchema schema_of(const weft_attr_field_t* fields, size_t n, const std::string& owner);

OpDef op_definition(const weft_op_desc_t& d, const std::string& plugin);
ModelDef model_definition(const weft_model_desc_t& d, const std::string& plugin);
InitializerDef initializer_definition(const weft_initializer_desc_t& d, const std::string& plugin);
PassDef pass_definition(const weft_pass_desc_t& d, const std::string& plugin);
FrontendDef frontend_definition(const weft_frontend_desc_t& d, const std::string& plugin);
/// target_definition.cpp.
TargetDef target_definition(const weft_target_interface_t& d, const std::string& plugin);

}  // namespace weft::plugin_host

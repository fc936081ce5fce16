// Internal: how core objects cross plugin.h. A handle is a pointer to the
// object's Object base (object.h keeps counts intrusive for this), so
// retain/release are inc_ref/dec_ref and no wrapper is allocated for types,
// expressions or attrs. Attribute values and modules are not Objects in the
// core, so they travel in small boxes. Host functions never throw: guard()
// turns exceptions into statuses.
#pragma once

#include <weft/plugin.h>
#include <weft/sdk/exception_status.hpp>

#include <optional>
#include <string>
#include <utility>

#include "weft/attrs.h"
#include "weft/error.h"
#include "weft/expr.h"
#include "weft/module.h"
#include "weft/object.h"
#include "weft/type.h"

struct weft_status_s {
  weft_status_code_t code;
  std::string message;
};

namespace weft {
class PassContext;
}

namespace weft::plugin_host {

class AttrValueBox : public Object {
 public:
  explicit AttrValueBox(AttrValue v) : value(std::move(v)) {}
  const AttrValue value;
};

class ModuleBox : public Object {
 public:
  explicit ModuleBox(IRModule m) : module(std::move(m)) {}
  const IRModule module;
};

/// Thrown inside host functions; guard() turns it into a status with its code.
struct StatusError {
  weft_status_code_t code;
  std::string message;
};

inline weft_status_t make_status(weft_status_code_t code, std::string message) {
  return new weft_status_s{code, std::move(message)};
}

/// Runs a host function body, converting every exception into a status.
template <typename F>
weft_status_t guard(F&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (const StatusError& e) {
    return make_status(e.code, e.message);
  } catch (const Error& e) {
    return make_status(static_cast<weft_status_code_t>(e.status()), e.what());
  } catch (const std::exception& e) {
    sdk::ExceptionStatus s = sdk::exception_status(e);
    return make_status(s.code, std::move(s.message));
  } catch (...) {
    return make_status(WEFT_STATUS_INTERNAL, "unknown exception in the weft host");
  }
}

static_assert(static_cast<int>(StatusCode::kInvalidArgument) == WEFT_STATUS_INVALID_ARGUMENT &&
                  static_cast<int>(StatusCode::kNotFound) == WEFT_STATUS_NOT_FOUND &&
                  static_cast<int>(StatusCode::kTypeMismatch) == WEFT_STATUS_TYPE_MISMATCH &&
                  static_cast<int>(StatusCode::kUnsupported) == WEFT_STATUS_UNSUPPORTED &&
                  static_cast<int>(StatusCode::kInternal) == WEFT_STATUS_INTERNAL &&
                  static_cast<int>(StatusCode::kOutOfMemory) == WEFT_STATUS_OUT_OF_MEMORY,
              "StatusCode mirrors weft_status_code_t");

/// Takes a status a plugin returned: an Error with its message and code
/// (freeing the status), or nullopt for OK.
inline std::optional<Error> take_error(weft_status_t status) {
  if (!status) return std::nullopt;
  Error error = Error(std::move(status->message)).status(static_cast<StatusCode>(status->code));
  delete status;
  return error;
}

/// A plugin's failure with the host's context before its message ("model
/// mlp: ..."), keeping its status code.
inline Error in_context(const std::string& context, const Error& plugin_error) {
  return Error(context + ": " + plugin_error.message()).status(plugin_error.status());
}

// ---- core object -> handle ------------------------------------------------

template <typename H>
H* to_handle(const Object* obj) {
  return reinterpret_cast<H*>(const_cast<Object*>(obj));
}
inline const Object* to_object(const void* handle) { return reinterpret_cast<const Object*>(handle); }

/// A new reference as a handle (the caller of the host function owns it).
template <typename H, typename T>
H* new_handle(Ref<T> ref) {
  return to_handle<H>(static_cast<const Object*>(ref.release()));
}
/// A borrowed handle for a callback argument (valid while `ref` lives).
template <typename H, typename T>
H* borrow_handle(const Ref<T>& ref) {
  return to_handle<H>(static_cast<const Object*>(ref.get()));
}

/// The host's retain and release of any handle kind (NULL is fine).
template <typename H>
void retain_fn(H* h) {
  if (h) to_object(h)->inc_ref();
}
template <typename H>
void release_fn(H* h) {
  if (h) to_object(h)->dec_ref();
}

// ---- handle -> core object (adds a reference; checks the kind) ----------------

template <typename Node>
Ref<const Node> from_handle(const void* handle, const char* what, bool allow_null = false) {
  if (!handle) {
    if (allow_null) return nullptr;
    throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string("expected ") + what + ", got NULL"};
  }
  auto* node = dynamic_cast<const Node*>(to_object(handle));
  if (!node) throw StatusError{WEFT_STATUS_TYPE_MISMATCH, std::string("the handle is not ") + what};
  return Ref<const Node>(const_cast<Node*>(node));
}

inline Type type_of(weft_type_t* h, bool allow_null = false) { return from_handle<TypeNode>(h, "a type", allow_null); }
inline Expr expr_of(weft_expr_t* h, bool allow_null = false) {
  return from_handle<ExprNode>(h, "an expression", allow_null);
}
inline Attrs attrs_of(weft_attrs_t* h) { return h ? from_handle<AttrsNode>(h, "an attribute dictionary") : empty_attrs(); }
inline const AttrValue& value_of(weft_attr_value_t* h) {
  return from_handle<AttrValueBox>(h, "an attribute value")->value;
}
inline IRModule module_of(weft_module_t* h) { return from_handle<ModuleBox>(h, "a module")->module; }

/// Takes ownership of a new reference a plugin returned.
template <typename Node>
Ref<const Node> adopt(const void* handle, const char* what) {
  Ref<const Node> ref = from_handle<Node>(handle, what);
  to_object(handle)->dec_ref();  // from_handle added one; the plugin's is now ours
  return ref;
}

inline weft_attr_value_t* new_value_handle(AttrValue v) {
  return new_handle<weft_attr_value_t>(make_ref<AttrValueBox>(std::move(v)));
}
inline weft_module_t* new_module_handle(IRModule m) {
  return new_handle<weft_module_t>(make_ref<ModuleBox>(std::move(m)));
}

/// Requires a string argument to be non-NULL; `what` names it in the error.
inline const char* require_string(const char* s, const char* what) {
  if (!s) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string(what) + " is NULL"};
  return s;
}

/// A PassContext as the borrowed handle a run_in_context pass receives: the
/// context itself, valid while the pass runs.
inline const weft_pass_context_t* borrow_pass_context(const PassContext& ctx) {
  return reinterpret_cast<const weft_pass_context_t*>(&ctx);
}

/// Requires an out-parameter to be non-NULL.
template <typename T>
T* out_param(T* p, const char* name) {
  if (!p) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string("out parameter ") + name + " is NULL"};
  return p;
}

/// DLDataType <-> DataType: the layouts match (dtype.h).
inline DataType to_dtype(DLDataType t) { return DataType{t.code, t.bits, t.lanes}; }
inline DLDataType to_dl(DataType t) { return DLDataType{t.code, t.bits, t.lanes}; }

/// The host function table (host_api.cpp).
const weft_host_api_t* host_api();

}  // namespace weft::plugin_host

// Host functions of plugin.h for statuses, reference counts, types, attribute
// values and attribute dictionaries.
#include <cstdlib>
#include <cstring>
#include <set>

#include "host_tables.h"

namespace weft::plugin_host {

namespace {

// ---- Status -----------------------------------------------------------------

weft_status_t status_create(weft_status_code_t code, const char* message) {
  return make_status(code == WEFT_STATUS_OK ? WEFT_STATUS_INTERNAL : code, message ? message : "");
}
weft_status_code_t status_code(weft_status_t s) { return s ? s->code : WEFT_STATUS_OK; }
const char* status_message(weft_status_t s) { return s ? s->message.c_str() : ""; }
void status_free(weft_status_t s) { delete s; }

// ---- Types --------------------------------------------------------------------

std::vector<Type> types_of(weft_type_t* const* handles, size_t n) {
  if (n && !handles) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "type array is NULL"};
  std::vector<Type> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(type_of(handles[i]));
  return out;
}

weft_status_t type_tensor(const int64_t* shape, size_t ndim, DLDataType dtype, weft_type_t** out) {
  return guard([&] {
    if (ndim && !shape) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "shape is NULL"};
    std::vector<Dim> dims(shape, shape + ndim);
    for (Dim d : dims) {
      if (d < 0 && d != kAnyDim) {
        throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "dimension " + std::to_string(d) + " is negative"};
      }
    }
    *out_param(out, "out_type") = new_handle<weft_type_t>(tensor_type(std::move(dims), to_dtype(dtype)));
  });
}

weft_status_t type_tuple(weft_type_t* const* fields, size_t n, weft_type_t** out) {
  return guard([&] { *out_param(out, "out_type") = new_handle<weft_type_t>(tuple_type(types_of(fields, n))); });
}

weft_status_t type_func(weft_type_t* const* params, size_t n, weft_type_t* ret, weft_type_t** out) {
  return guard([&] {
    *out_param(out, "out_type") = new_handle<weft_type_t>(func_type(types_of(params, n), type_of(ret)));
  });
}

weft_status_t type_incomplete(weft_type_t** out) {
  return guard([&] { *out_param(out, "out_type") = new_handle<weft_type_t>(incomplete_type()); });
}

weft_type_kind_t type_kind(weft_type_t* t) {
  // A non-type handle is a plugin bug; report it as incomplete rather than crash.
  auto* node = dynamic_cast<const TypeNode*>(to_object(t));
  return node ? static_cast<weft_type_kind_t>(node->kind) : WEFT_TYPE_INCOMPLETE;
}

weft_status_t type_tensor_info(weft_type_t* t, const int64_t** out_shape, size_t* out_ndim, DLDataType* out_dtype) {
  return guard([&] {
    auto tt = from_handle<TensorTypeNode>(t, "a tensor type");
    if (out_shape) *out_shape = tt->shape.data();
    if (out_ndim) *out_ndim = tt->shape.size();
    if (out_dtype) *out_dtype = to_dl(tt->dtype);
  });
}

weft_status_t type_tuple_size(weft_type_t* t, size_t* out) {
  return guard([&] { *out_param(out, "out_size") = from_handle<TupleTypeNode>(t, "a tuple type")->fields.size(); });
}

weft_status_t type_tuple_field(weft_type_t* t, size_t i, weft_type_t** out) {
  return guard([&] {
    auto tt = from_handle<TupleTypeNode>(t, "a tuple type");
    if (i >= tt->fields.size()) {
      throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "tuple field " + std::to_string(i) + " out of range (size " +
                                                          std::to_string(tt->fields.size()) + ")"};
    }
    *out_param(out, "out_field") = new_handle<weft_type_t>(tt->fields[i]);
  });
}

weft_status_t type_to_text_fn(weft_type_t* t, char** out) {
  return guard([&] {
    std::string text = type_to_text(type_of(t));
    char* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (!copy) throw std::bad_alloc();
    std::memcpy(copy, text.c_str(), text.size() + 1);
    *out_param(out, "out_text") = copy;
  });
}

void string_free(char* text) { std::free(text); }

// ---- Attribute values -----------------------------------------------------------

weft_status_t value_out(AttrValue v, weft_attr_value_t** out) {
  return guard([&] { *out_param(out, "out_value") = new_value_handle(std::move(v)); });
}
weft_status_t attr_value_none(weft_attr_value_t** out) { return value_out(AttrValue(), out); }
weft_status_t attr_value_int(int64_t v, weft_attr_value_t** out) { return value_out(AttrValue(v), out); }
weft_status_t attr_value_float(double v, weft_attr_value_t** out) { return value_out(AttrValue(v), out); }
weft_status_t attr_value_bool(int v, weft_attr_value_t** out) { return value_out(AttrValue(v != 0), out); }
weft_status_t attr_value_string(const char* v, weft_attr_value_t** out) {
  if (!v) return make_status(WEFT_STATUS_INVALID_ARGUMENT, "string value is NULL");
  return value_out(AttrValue(std::string(v)), out);
}
weft_status_t attr_value_dtype(DLDataType v, weft_attr_value_t** out) { return value_out(AttrValue(to_dtype(v)), out); }
weft_status_t attr_value_int_list(const int64_t* v, size_t n, weft_attr_value_t** out) {
  if (n && !v) return make_status(WEFT_STATUS_INVALID_ARGUMENT, "list data is NULL");
  return value_out(AttrValue(std::vector<int64_t>(v, v + n)), out);
}
weft_status_t attr_value_float_list(const double* v, size_t n, weft_attr_value_t** out) {
  if (n && !v) return make_status(WEFT_STATUS_INVALID_ARGUMENT, "list data is NULL");
  return value_out(AttrValue(std::vector<double>(v, v + n)), out);
}
weft_status_t attr_value_list(weft_attr_value_t* const* items, size_t n, weft_attr_value_t** out) {
  return guard([&] {
    if (n && !items) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "list items are NULL"};
    std::vector<AttrValue> values;
    for (size_t i = 0; i < n; ++i) values.push_back(value_of(items[i]));
    *out_param(out, "out_value") = new_value_handle(AttrValue(std::move(values)));
  });
}

weft_attr_type_t attr_value_type(weft_attr_value_t* v) {
  auto* box = dynamic_cast<const AttrValueBox*>(to_object(v));
  return box ? static_cast<weft_attr_type_t>(box->value.type()) : WEFT_ATTR_NONE;
}

const AttrValue& value_kind(weft_attr_value_t* h, AttrType want) {
  const AttrValue& v = value_of(h);
  if (v.type() != want) {
    throw StatusError{WEFT_STATUS_TYPE_MISMATCH, "attribute value " + v.str() + " is a " +
                                                     std::string(attr_type_name(v.type())) + ", not a " +
                                                     std::string(attr_type_name(want))};
  }
  return v;
}

weft_status_t attr_value_as_int(weft_attr_value_t* v, int64_t* out) {
  return guard([&] { *out_param(out, "out") = value_kind(v, AttrType::kInt).as_int(); });
}
weft_status_t attr_value_as_float(weft_attr_value_t* v, double* out) {
  return guard([&] {
    const AttrValue& value = value_of(v);
    *out_param(out, "out") = value.type() == AttrType::kInt ? static_cast<double>(value.as_int())
                                                            : value_kind(v, AttrType::kFloat).as_float();
  });
}
weft_status_t attr_value_as_bool(weft_attr_value_t* v, int* out) {
  return guard([&] { *out_param(out, "out") = value_kind(v, AttrType::kBool).as_bool() ? 1 : 0; });
}
weft_status_t attr_value_as_string(weft_attr_value_t* v, const char** out) {
  return guard([&] { *out_param(out, "out") = value_kind(v, AttrType::kString).as_string().c_str(); });
}
weft_status_t attr_value_as_dtype(weft_attr_value_t* v, DLDataType* out) {
  return guard([&] { *out_param(out, "out") = to_dl(value_kind(v, AttrType::kDType).as_dtype()); });
}
weft_status_t attr_value_as_int_list(weft_attr_value_t* v, const int64_t** data, size_t* n) {
  return guard([&] {
    const auto& list = value_kind(v, AttrType::kIntList).as_int_list();
    *out_param(data, "out_data") = list.data();
    *out_param(n, "out_count") = list.size();
  });
}
weft_status_t attr_value_as_float_list(weft_attr_value_t* v, const double** data, size_t* n) {
  return guard([&] {
    const auto& list = value_kind(v, AttrType::kFloatList).as_float_list();
    *out_param(data, "out_data") = list.data();
    *out_param(n, "out_count") = list.size();
  });
}
weft_status_t attr_value_list_size(weft_attr_value_t* v, size_t* n) {
  return guard([&] { *out_param(n, "out_count") = value_kind(v, AttrType::kList).as_list().size(); });
}
weft_status_t attr_value_list_item(weft_attr_value_t* v, size_t i, weft_attr_value_t** out) {
  return guard([&] {
    const auto& list = value_kind(v, AttrType::kList).as_list();
    if (i >= list.size()) {
      throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "list item " + std::to_string(i) + " out of range (size " +
                                                          std::to_string(list.size()) + ")"};
    }
    *out_param(out, "out_item") = new_value_handle(list[i]);
  });
}

// ---- Attribute dictionaries ----------------------------------------------------------

weft_status_t attrs_create(const char* const* keys, weft_attr_value_t* const* values, size_t n, weft_attrs_t** out) {
  return guard([&] {
    if (n && (!keys || !values)) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "keys or values are NULL"};
    std::vector<std::pair<std::string, AttrValue>> entries;
    std::set<std::string> seen;
    for (size_t i = 0; i < n; ++i) {
      if (!keys[i]) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "key " + std::to_string(i) + " is NULL"};
      if (!seen.insert(keys[i]).second) {
        throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, std::string("attribute '") + keys[i] + "' given twice"};
      }
      entries.emplace_back(keys[i], value_of(values[i]));
    }
    *out_param(out, "out_attrs") = new_handle<weft_attrs_t>(make_attrs(std::move(entries)));
  });
}

size_t attrs_size(weft_attrs_t* a) {
  auto* node = dynamic_cast<const AttrsNode*>(to_object(a));
  return node ? node->entries.size() : 0;
}

weft_status_t attrs_entry(weft_attrs_t* a, size_t i, const char** out_key, weft_attr_value_t** out_value) {
  return guard([&] {
    Attrs attrs = attrs_of(a);
    if (i >= attrs->entries.size()) {
      throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "attribute " + std::to_string(i) + " out of range (size " +
                                                          std::to_string(attrs->entries.size()) + ")"};
    }
    if (out_key) *out_key = attrs->entries[i].first.c_str();
    if (out_value) *out_value = new_value_handle(attrs->entries[i].second);
  });
}

weft_status_t attrs_get(weft_attrs_t* a, const char* key, weft_attr_value_t** out) {
  return guard([&] {
    if (!key) throw StatusError{WEFT_STATUS_INVALID_ARGUMENT, "key is NULL"};
    const AttrValue* v = attrs_of(a)->find(key);
    if (!v) throw StatusError{WEFT_STATUS_NOT_FOUND, std::string("no attribute '") + key + "'"};
    *out_param(out, "out_value") = new_value_handle(*v);
  });
}

}  // namespace

void fill_value_api(weft_host_api_t& api) {
  api.status_create = status_create;
  api.status_code = status_code;
  api.status_message = status_message;
  api.status_free = status_free;
  api.type_retain = retain_fn<weft_type_t>;
  api.type_release = release_fn<weft_type_t>;
  api.expr_retain = retain_fn<weft_expr_t>;
  api.expr_release = release_fn<weft_expr_t>;
  api.attr_value_retain = retain_fn<weft_attr_value_t>;
  api.attr_value_release = release_fn<weft_attr_value_t>;
  api.attrs_retain = retain_fn<weft_attrs_t>;
  api.attrs_release = release_fn<weft_attrs_t>;
  api.module_retain = retain_fn<weft_module_t>;
  api.module_release = release_fn<weft_module_t>;
  api.type_tensor = type_tensor;
  api.type_tuple = type_tuple;
  api.type_func = type_func;
  api.type_incomplete = type_incomplete;
  api.type_kind = type_kind;
  api.type_tensor_info = type_tensor_info;
  api.type_tuple_size = type_tuple_size;
  api.type_tuple_field = type_tuple_field;
  api.type_to_text = type_to_text_fn;
  api.string_free = string_free;
  api.attr_value_none = attr_value_none;
  api.attr_value_int = attr_value_int;
  api.attr_value_float = attr_value_float;
  api.attr_value_bool = attr_value_bool;
  api.attr_value_string = attr_value_string;
  api.attr_value_dtype = attr_value_dtype;
  api.attr_value_int_list = attr_value_int_list;
  api.attr_value_float_list = attr_value_float_list;
  api.attr_value_list = attr_value_list;
  api.attr_value_type = attr_value_type;
  api.attr_value_as_int = attr_value_as_int;
  api.attr_value_as_float = attr_value_as_float;
  api.attr_value_as_bool = attr_value_as_bool;
  api.attr_value_as_string = attr_value_as_string;
  api.attr_value_as_dtype = attr_value_as_dtype;
  api.attr_value_as_int_list = attr_value_as_int_list;
  api.attr_value_as_float_list = attr_value_as_float_list;
  api.attr_value_list_size = attr_value_list_size;
  api.attr_value_list_item = attr_value_list_item;
  api.attrs_create = attrs_create;
  api.attrs_size = attrs_size;
  api.attrs_entry = attrs_entry;
  api.attrs_get = attrs_get;
}

}  // namespace weft::plugin_host

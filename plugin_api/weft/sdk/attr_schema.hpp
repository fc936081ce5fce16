// weft plugin SDK: attribute schemas under construction (ops' attrs,
// models' parameters, frontends' and targets' options) and the small helpers
// every registration builder shares. Part of plugin.hpp; include that.
#pragma once

#include <weft/sdk/ir.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace weft::sdk {

/// The normal form of an attribute value; throw to reject it.
using Normalizer = std::function<Value(const Value& value)>;

namespace detail {

template <typename T>
constexpr weft_attr_type_t attr_type_of() {
  if constexpr (std::is_same_v<T, bool>) return WEFT_ATTR_BOOL;
  else if constexpr (std::is_integral_v<T>) return WEFT_ATTR_INT;
  else if constexpr (std::is_floating_point_v<T>) return WEFT_ATTR_FLOAT;
  else if constexpr (std::is_same_v<T, DLDataType>) return WEFT_ATTR_DTYPE;
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>) return WEFT_ATTR_INT_LIST;
  else if constexpr (std::is_same_v<T, std::vector<double>>) return WEFT_ATTR_FLOAT_LIST;
  else if constexpr (std::is_convertible_v<T, std::string>) return WEFT_ATTR_STRING;
  else return WEFT_ATTR_ANY;
}

/// An attribute schema under construction; owns the values and callbacks the
/// C field descriptors point at.
class Schema {
 public:
  void add(std::string name, weft_attr_type_t type, std::optional<Value> default_value, std::string doc,
           std::string expected) {
    fields_.push_back(
        Field{std::move(name), type, std::move(default_value), std::move(doc), std::move(expected), {}, std::nullopt});
  }
  void normalize_last(Normalizer fn) {
    if (fields_.empty()) throw Error("normalize() must follow an attr()/param()");
    fields_.back().normalize = std::make_shared<Normalizer>(std::move(fn));
  }
  void text_default_last(Value value) {
    if (fields_.empty()) throw Error("text_default() must follow an attr()");
    fields_.back().text_default = std::move(value);
  }
  void text_default_of(const std::string& name, Value value) {
    for (Field& f : fields_) {
      if (f.name == name) {
        f.text_default = std::move(value);
        return;
      }
    }
    throw Error("text_default() names attr '" + name + "', which is not declared");
  }
  /// C descriptors valid while this schema lives.
  const std::vector<weft_attr_field_t>& descriptors() {
    c_.clear();
    for (Field& f : fields_) {
      weft_attr_field_t d{};
      d.struct_size = sizeof(d);
      d.name = f.name.c_str();
      d.type = f.type;
      d.default_value = f.default_value ? f.default_value->get() : nullptr;
      d.text_default = f.text_default ? f.text_default->get() : nullptr;
      d.doc = f.doc.c_str();
      d.expected = f.expected.c_str();
      if (f.normalize) {
        d.normalize = &Schema::normalize_trampoline;
        d.normalize_user_data = f.normalize.get();
      }
      c_.push_back(d);
    }
    return c_;
  }
  /// Keeps the normalizers alive with the registration that uses them.
  std::vector<std::shared_ptr<Normalizer>> normalizers() const {
    std::vector<std::shared_ptr<Normalizer>> out;
    for (const Field& f : fields_) {
      if (f.normalize) out.push_back(f.normalize);
    }
    return out;
  }

 private:
  struct Field {
    std::string name;
    weft_attr_type_t type;
    std::optional<Value> default_value;
    std::string doc, expected;
    std::shared_ptr<Normalizer> normalize;
    std::optional<Value> text_default;
  };
  static weft_status_t normalize_trampoline(void* ud, weft_attr_value_t* value, weft_attr_value_t** out) {
    return guarded([&] { *out = (*static_cast<Normalizer*>(ud))(Value(Handle<weft_attr_value_t>::borrow(value))).release(); });
  }
  std::vector<Field> fields_;
  std::vector<weft_attr_field_t> c_;
};

template <typename T>
void destroy(void* p) {
  delete static_cast<T*>(p);
}

inline std::vector<Type> borrow_types(weft_type_t* const* types, size_t n) {
  std::vector<Type> out;
  for (size_t i = 0; i < n; ++i) out.push_back(Handle<weft_type_t>::borrow(types[i]));
  return out;
}

}  // namespace detail

}  // namespace weft::sdk

// Attributes: typed immutable dictionaries attached to calls and functions, and
// the per-op schemas that normalize and validate them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "weft/dtype.h"
#include "weft/object.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

/// The kinds of value an attribute holds. kList holds nested values (e.g. pad_width).
enum class AttrType : uint8_t { kNone, kInt, kFloat, kBool, kString, kDType, kIntList, kFloatList, kList, kAny };

/// "int", "float", "int list", ... for messages.
std::string_view attr_type_name(AttrType t);

/// One attribute value. kNone is Relay's `None` (an unset optional attr).
class AttrValue {
 public:
  AttrValue() = default;  // None
  AttrValue(int64_t v) : v_(v) {}  // NOLINT: values convert implicitly for builders
  AttrValue(int v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  AttrValue(double v) : v_(v) {}  // NOLINT
  AttrValue(bool v) : v_(v) {}  // NOLINT
  AttrValue(std::string v) : v_(std::move(v)) {}  // NOLINT
  AttrValue(const char* v) : v_(std::string(v)) {}  // NOLINT
  AttrValue(DataType v) : v_(v) {}  // NOLINT
  AttrValue(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT
  AttrValue(std::initializer_list<int64_t> v) : v_(std::vector<int64_t>(v)) {}  // NOLINT
  AttrValue(std::vector<double> v) : v_(std::move(v)) {}  // NOLINT
  AttrValue(std::vector<AttrValue> v) : v_(std::move(v)) {}  // NOLINT

  AttrType type() const { return static_cast<AttrType>(v_.index()); }
  bool is_none() const { return type() == AttrType::kNone; }

  // Accessors throw InternalError on a kind mismatch: schemas guarantee kinds.
  int64_t as_int() const;
  double as_float() const;  // also accepts an int
  bool as_bool() const;
  const std::string& as_string() const;
  DataType as_dtype() const;
  const std::vector<int64_t>& as_int_list() const;
  const std::vector<double>& as_float_list() const;
  const std::vector<AttrValue>& as_list() const;

  /// Converts to `target` where the conversion loses nothing: int -> float,
  /// string -> dtype, list of ints -> int list, int list -> float list, a list
  /// of numbers -> float list. nullopt when it cannot.
  std::optional<AttrValue> coerce(AttrType target) const;

  /// Relay text form: 1, 2e-05f, True, "NCHW", [1, 1], None, float32 (as a string).
  std::string str() const;
  size_t hash() const;
  friend bool operator==(const AttrValue& a, const AttrValue& b) { return a.v_ == b.v_; }

 private:
  // Order matches AttrType.
  std::variant<std::monostate, int64_t, double, bool, std::string, DataType, std::vector<int64_t>,
               std::vector<double>, std::vector<AttrValue>>
      v_;
};

/// An immutable, ordered attribute dictionary. Order is the schema's (or the
/// order given), which is the order the printer writes.
class AttrsNode : public Object {
 public:
  explicit AttrsNode(std::vector<std::pair<std::string, AttrValue>> entries) : entries(std::move(entries)) {}
  const std::vector<std::pair<std::string, AttrValue>> entries;

  /// The value for `name`, or nullptr.
  const AttrValue* find(std::string_view name) const;
  /// The value for `name`; InternalError if absent (schemas fill every field).
  const AttrValue& at(std::string_view name) const;
  bool empty() const { return entries.empty(); }
};
using Attrs = Ref<const AttrsNode>;

Attrs make_attrs(std::vector<std::pair<std::string, AttrValue>> entries);
/// The shared empty dictionary.
Attrs empty_attrs();
bool attrs_equal(const Attrs& a, const Attrs& b);  // null == empty
size_t attrs_hash(const Attrs& a);

/// Which default an attribute a call leaves out gets.
enum class AttrDefaults : uint8_t {
  /// The op's own: calls built with the C++ builders or the SDK (the
  /// reference's Python wrappers' defaults).
  kBuilder,
  /// The reference's C++ attrs struct's: calls read from Relay text, which
  /// TVM prints without the attrs equal to those defaults (VisitNonDefaultAttrs).
  /// There `[]` for a field whose default is a non-empty list also reads as the
  /// default: TVM prints a list its Make function leaves unset so (`dilation=[]`).
  kText,
};

/// One field of an op's attribute schema.
struct AttrField {
  std::string name;
  AttrType type = AttrType::kAny;
  /// The default; nullopt makes the field required. A default of None makes
  /// the field optional (it accepts None, as Relay's `units=None`).
  std::optional<AttrValue> default_value;
  /// The default of a call read from Relay text where it is not default_value:
  /// the reference's C++ attrs default, which can differ from its Python
  /// wrapper's (nn.batch_matmul's transpose_b). nullopt: default_value. Given
  /// in normal form, as default_value is.
  std::optional<AttrValue> text_default;
  std::string doc;
  /// Turns an accepted value into its normal form (e.g. padding 1 -> [1, 1, 1, 1]).
  /// It rejects a value by throwing weft::Error with its reason ("pad_width[0]
  /// has 3 elements"), which the user sees with its status code, or by
  /// returning nullopt, which says only `expected`. Runs after coercion to
  /// `type`; may be empty.
  std::function<std::optional<AttrValue>(const AttrValue&)> normalize;
  /// Describes acceptable values for the error message, e.g. "an int or 2 or 4 ints".
  std::string expected;

  /// The default `which` calls get (nullopt: the field is required).
  const std::optional<AttrValue>& default_for(AttrDefaults which) const {
    return which == AttrDefaults::kText && text_default ? text_default : default_value;
  }
};

class AttrSchema {
 public:
  AttrSchema() = default;
  explicit AttrSchema(std::vector<AttrField> fields) : fields_(std::move(fields)) {}

  AttrSchema& add(AttrField field);
  const std::vector<AttrField>& fields() const { return fields_; }
  const AttrField* find(std::string_view name) const;
  bool empty() const { return fields_.empty(); }

  /// Validates `given` for op `op_name` and returns the normalized dictionary in
  /// schema order with defaults filled. Throws weft::Error naming the op, the
  /// attr and the expected form for an unknown attr, a missing required attr, a
  /// value of the wrong type or one the normalizer rejects. `defaults` picks
  /// which default fills an attr `given` leaves out.
  Attrs normalize(std::string_view op_name, const Attrs& given, AttrDefaults defaults = AttrDefaults::kBuilder) const;

 private:
  std::vector<AttrField> fields_;
};

}  // namespace weft

#pragma GCC visibility pop

// Checking a runtime argument against a parameter's type (see check_argument.h).
#include "check_argument.h"

#include "weft/error.h"
#include "weft/printer.h"

namespace weft::interpreter {

void check_argument(const Value& v, const Type& t, const std::string& where) {
  if (auto tt = t.as<TensorTypeNode>()) {
    const Tensor& tensor = v.tensor(where.c_str());
    bool shape_ok = tensor.ndim() == tt->ndim();
    for (int i = 0; shape_ok && i < tt->ndim(); ++i)
      shape_ok = tt->shape[i] == kAnyDim || tt->shape[i] == tensor.shape()[i];
    if (!shape_ok || tensor.dtype() != tt->dtype)
      throw Error(where + " is " + describe(tensor)).expected(type_to_text(t));
  } else if (auto tup = t.as<TupleTypeNode>()) {
    const auto& fields = v.fields();
    if (fields.size() != tup->fields.size())
      throw Error(where + " has " + std::to_string(fields.size()) + " fields").expected(type_to_text(t));
    for (size_t i = 0; i < fields.size(); ++i)
      check_argument(fields[i], tup->fields[i], where + "." + std::to_string(i));
  }
}

}  // namespace weft::interpreter

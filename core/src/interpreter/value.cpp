// Runtime values of the interpreter.
#include "weft/error.h"
#include "weft/interpreter.h"

namespace weft {

Value::Value(Tensor t) : tensor_(std::move(t)) {}

Value Value::tuple(std::vector<Value> fields) {
  Value v;
  v.fields_ = std::make_shared<const std::vector<Value>>(std::move(fields));
  return v;
}

Value Value::closure(std::shared_ptr<const ClosureValue> c) {
  Value v;
  v.closure_ = std::move(c);
  return v;
}

const Tensor& Value::tensor(const char* what) const {
  if (!is_tensor())
    throw Error(std::string(what) + " is a " + (is_tuple() ? "tuple" : "function") + ", not a tensor");
  return tensor_;
}

const std::vector<Value>& Value::fields() const {
  if (!is_tuple()) throw Error(std::string("value is a ") + (is_tensor() ? "tensor" : "function") + ", not a tuple");
  return *fields_;
}

std::vector<Tensor> Value::flatten() const {
  std::vector<Tensor> out;
  std::vector<const Value*> stack{this};
  while (!stack.empty()) {
    const Value* v = stack.back();
    stack.pop_back();
    if (v->is_tensor()) {
      out.push_back(v->tensor_);
    } else if (v->is_tuple()) {
      for (auto it = v->fields_->rbegin(); it != v->fields_->rend(); ++it) stack.push_back(&*it);
    } else {
      throw Error("a function value has no tensors to flatten");
    }
  }
  return out;
}

}  // namespace weft

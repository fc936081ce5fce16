#include "weft/testing/op_override.h"

#include "weft/error.h"

namespace weft::testing {

namespace {
// The registry hands out const references to definitions it owns as mutable
// objects; a test override is the one sanctioned writer, so casting the const
// away is well defined here.
OpDef& registered_definition(std::string_view op_name) {
  return const_cast<OpDef&>(OpRegistry::global().get(op_name));
}
}  // namespace

ScopedOpOverride::ScopedOpOverride(std::string_view op_name, const std::function<void(OpDef&)>& edit)
    : def_(&registered_definition(op_name)), saved_(*def_) {
  OpDef edited = saved_;
  edit(edited);
  if (edited.name != saved_.name) {
    throw Error("an op override may not rename the op (to '" + edited.name + "')").op(saved_.name);
  }
  *def_ = std::move(edited);
}

ScopedOpOverride::~ScopedOpOverride() { *def_ = std::move(saved_); }

}  // namespace weft::testing

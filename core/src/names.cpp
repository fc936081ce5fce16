// Unique names as TVM's text printer allocates them (see names.h).
#include "weft/names.h"

#include <cctype>

namespace weft {

std::string NameAllocator::unique(const std::string& name) {
  std::string result = name;
  if (auto it = suffixes_.find(name); it != suffixes_.end()) {
    do {
      result = name + std::to_string(++it->second);
    } while (suffixes_.count(result));
  }
  suffixes_[result] = 0;
  return result;
}

std::string printable_name(const std::string& name_hint) {
  if (name_hint.empty() || !std::isalpha(static_cast<unsigned char>(name_hint[0]))) return "v" + name_hint;
  return name_hint;
}

std::vector<std::string> param_names(const Function& fn) {
  NameAllocator names;
  std::vector<std::string> out;
  out.reserve(fn->params.size());
  for (const Var& p : fn->params) out.push_back(names.unique(printable_name(p->name_hint)));
  return out;
}

}  // namespace weft

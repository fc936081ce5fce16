// RemoveUnusedFunctions: keeps the entry functions and every function they
// reach through a global reference (called or passed as a value), as Relay's
// (src/relay/backend/vm/removed_unused_funcs.cc).
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "weft/error.h"
#include "weft/functor.h"
#include "weft/passes.h"

namespace weft {

IRModule remove_unused_functions(const IRModule& mod, const std::vector<std::string>& entry_functions) {
  std::set<std::string> reached;
  std::vector<std::string> work;
  for (const std::string& entry : entry_functions) {
    if (!mod.contains(entry))
      throw Error("RemoveUnusedFunctions: entry function @" + entry + " is not in the module");
    if (reached.insert(entry).second) work.push_back(entry);
  }
  while (!work.empty()) {
    std::string name = std::move(work.back());
    work.pop_back();
    post_order_visit(mod.lookup(name), [&](const Expr& e) {
      const auto* gv = e.as<GlobalVarNode>();
      if (!gv || reached.count(gv->name)) return;
      if (!mod.contains(gv->name))
        throw Error("RemoveUnusedFunctions: @" + name + " refers to @" + gv->name + ", which the module does not define");
      reached.insert(gv->name);
      work.push_back(gv->name);
    });
  }
  if (reached.size() == mod.functions().size()) return mod;
  IRModule out;
  for (const auto& [gv, fn] : mod.functions())
    if (reached.count(gv->name)) out.add(gv, fn);
  return out;
}

Pass RemoveUnusedFunctions(std::vector<std::string> entry_functions) {
  return create_module_pass({"RemoveUnusedFunctions", 1, {}},
                            [entry_functions = std::move(entry_functions)](IRModule mod, const PassContext&) {
                              return remove_unused_functions(mod, entry_functions);
                            });
}

}  // namespace weft

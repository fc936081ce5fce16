// weft plugin SDK: walking an expression graph without recursion (graphs of
// thousands of nodes are common), visiting each node once. Part of
// plugin.hpp; include that.
#pragma once

#include <weft/sdk/ir.hpp>

#include <unordered_set>
#include <utility>
#include <vector>

namespace weft::sdk {

/// The expressions `e` reads, in evaluation order: a call's callee (unless
/// it is an op) and arguments, a function's parameters and body, a tuple's
/// fields, a tuple access's tuple, a let's variable, value and body, an if's
/// condition and branches. Vars, constants, ops and global vars have none.
inline std::vector<Expr> children(const Expr& e) {
  switch (e.kind()) {
    case WEFT_EXPR_CALL: {
      std::vector<Expr> out;
      Expr callee = e.callee();
      if (!callee.is(WEFT_EXPR_OP)) out.push_back(std::move(callee));
      for (Expr& a : e.args()) out.push_back(std::move(a));
      return out;
    }
    case WEFT_EXPR_FUNCTION: {
      std::vector<Expr> out = e.params();
      out.push_back(e.body());
      return out;
    }
    case WEFT_EXPR_TUPLE: return e.fields();
    case WEFT_EXPR_TUPLE_GET_ITEM: return {e.tuple()};
    case WEFT_EXPR_LET: return {e.let_var(), e.let_value(), e.body()};
    case WEFT_EXPR_IF: return {e.cond(), e.then_branch(), e.else_branch()};
    default: return {};
  }
}

/// Calls visit(node) for every node reachable from `root` once, each after
/// everything it reads (post-order, children left to right), so a target
/// evaluating a group meets every value before its uses.
template <typename Visit>
void post_order(const Expr& root, Visit&& visit) {
  struct Frame {
    Expr node;
    std::vector<Expr> children;
    size_t next = 0;
  };
  std::unordered_set<const weft_expr_t*> seen{root.get()};
  std::vector<Frame> stack;
  stack.push_back(Frame{root, children(root)});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.children.size()) {
      Expr child = top.children[top.next++];
      if (seen.insert(child.get()).second) {
        std::vector<Expr> grandchildren = children(child);
        stack.push_back(Frame{std::move(child), std::move(grandchildren)});
      }
      continue;
    }
    Expr done = std::move(top.node);
    stack.pop_back();
    visit(done);
  }
}

}  // namespace weft::sdk

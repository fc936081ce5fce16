// Relay expressions: Var, GlobalVar, Constant, Op, Call, Function, Tuple,
// TupleGetItem, Let, If; and the builders that make them.
//
// Nodes are immutable once built, except for the type that InferType fills in
// (checked_type), as in Relay; that is written at most once, so a graph may be
// shared between modules and threads. Graphs are DAGs: share a node to use its
// value twice.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weft/attrs.h"
#include "weft/error.h"
#include "weft/object.h"
#include "weft/tensor.h"
#include "weft/type.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

struct OpDef;

enum class ExprKind : uint8_t { kVar, kGlobalVar, kConstant, kOp, kCall, kFunction, kTuple, kTupleGetItem, kLet, kIf };

class ExprNode : public Object {
 public:
  const ExprKind kind;
  /// Where the expression was parsed from, when it was.
  std::shared_ptr<const SourceLoc> span;

  /// The type InferType gave this expression; null before inference. Once
  /// set it never changes (thread-safe to read while others type the node).
  const Type& checked_type() const { return has_type() ? checked_type_ : no_type(); }
  bool has_type() const { return type_state_.load(std::memory_order_acquire) == kTyped; }
  /// Gives the node type `t` if it has none yet (race-free: of concurrent
  /// callers one wins). True if the node now has `t` or a type equal to it;
  /// false if it holds a different one, and then the caller needs a copy of
  /// the node with the new type (copy on write, as Relay's InferType).
  bool try_set_checked_type(Type t) const;
  /// try_set_checked_type for a node the caller built: that it already has a
  /// different type is a bug (InternalError).
  void set_checked_type(Type t) const;

 protected:
  explicit ExprNode(ExprKind k) : kind(k) {}

 private:
  static const Type& no_type();
  enum TypeState : uint8_t { kUntyped, kWriting, kTyped };
  mutable std::atomic<uint8_t> type_state_{kUntyped};
  mutable Type checked_type_;  // published by type_state_ == kTyped
};
using Expr = Ref<const ExprNode>;

/// A local variable. Identity is the node: two Vars named "x" are different.
class VarNode : public ExprNode {
 public:
  VarNode(std::string name_hint, Type type_annotation)
      : ExprNode(ExprKind::kVar), name_hint(std::move(name_hint)), type_annotation(std::move(type_annotation)) {}
  const std::string name_hint;
  const Type type_annotation;  // may be null
};
using Var = Ref<const VarNode>;

/// A module-level function name (`@main`).
class GlobalVarNode : public ExprNode {
 public:
  explicit GlobalVarNode(std::string name) : ExprNode(ExprKind::kGlobalVar), name(std::move(name)) {}
  const std::string name;
};
using GlobalVar = Ref<const GlobalVarNode>;

class ConstantNode : public ExprNode {
 public:
  explicit ConstantNode(Tensor data) : ExprNode(ExprKind::kConstant), data(std::move(data)) {}
  const Tensor data;
};
using Constant = Ref<const ConstantNode>;

/// A reference to a registered operator.
class OpNode : public ExprNode {
 public:
  explicit OpNode(const OpDef* def) : ExprNode(ExprKind::kOp), def(def) {}
  const OpDef* const def;  // owned by the OpRegistry, lives until exit
  const std::string& name() const;
};
using Op = Ref<const OpNode>;

class CallNode : public ExprNode {
 public:
  CallNode(Expr op, std::vector<Expr> args, Attrs attrs)
      : ExprNode(ExprKind::kCall), op(std::move(op)), args(std::move(args)), attrs(std::move(attrs)) {}
  const Expr op;  // an Op, a Function, a GlobalVar or a Var holding a closure
  const std::vector<Expr> args;
  const Attrs attrs;  // normalized against the op's schema; empty for non-op callees
};
using Call = Ref<const CallNode>;

class FunctionNode : public ExprNode {
 public:
  FunctionNode(std::vector<Var> params, Expr body, Type ret_type, Attrs attrs)
      : ExprNode(ExprKind::kFunction),
        params(std::move(params)),
        body(std::move(body)),
        ret_type(std::move(ret_type)),
        attrs(std::move(attrs)) {}
  const std::vector<Var> params;
  const Expr body;
  const Type ret_type;  // annotation; may be null
  const Attrs attrs;    // e.g. Primitive=1 for a fused group
};
using Function = Ref<const FunctionNode>;

class TupleNode : public ExprNode {
 public:
  explicit TupleNode(std::vector<Expr> fields) : ExprNode(ExprKind::kTuple), fields(std::move(fields)) {}
  const std::vector<Expr> fields;
};
using Tuple = Ref<const TupleNode>;

class TupleGetItemNode : public ExprNode {
 public:
  TupleGetItemNode(Expr tuple, int index) : ExprNode(ExprKind::kTupleGetItem), tuple(std::move(tuple)), index(index) {}
  const Expr tuple;
  const int index;
};
using TupleGetItem = Ref<const TupleGetItemNode>;

class LetNode : public ExprNode {
 public:
  LetNode(Var var, Expr value, Expr body)
      : ExprNode(ExprKind::kLet), var(std::move(var)), value(std::move(value)), body(std::move(body)) {}
  const Var var;
  const Expr value;
  const Expr body;
};
using Let = Ref<const LetNode>;

class IfNode : public ExprNode {
 public:
  IfNode(Expr cond, Expr then_branch, Expr else_branch)
      : ExprNode(ExprKind::kIf),
        cond(std::move(cond)),
        then_branch(std::move(then_branch)),
        else_branch(std::move(else_branch)) {}
  const Expr cond;
  const Expr then_branch;
  const Expr else_branch;
};
using If = Ref<const IfNode>;

// ---- Builders -------------------------------------------------------------
// They read like the graph they build:
//   Var x = var("x", tensor_type({1, 3, 224, 224}));
//   Expr y = call("nn.conv2d", {x, w}, {{"padding", 1}, {"channels", 64}});
//   Function f = function({x, w}, relu(y));

Var var(std::string name_hint, Type type_annotation = nullptr);
GlobalVar global_var(std::string name);
Constant constant(Tensor data);
/// The registered op `name` (loading the plugin that provides it if needed).
/// Throws weft::Error if no plugin provides it.
Op op(const std::string& name);
/// A call to an op, with attrs normalized and validated against its schema
/// (throws weft::Error naming the op and attr on a bad attr or arity). The
/// attrs it leaves out get the op's `defaults` (the text parser asks for kText).
Call call(const Op& op, std::vector<Expr> args, Attrs attrs = nullptr, AttrDefaults defaults = AttrDefaults::kBuilder);
Call call(const std::string& op_name, std::vector<Expr> args,
          std::vector<std::pair<std::string, AttrValue>> attrs = {});
/// A call to a function, global function or closure (no attrs).
Call call_function(Expr callee, std::vector<Expr> args);
Function function(std::vector<Var> params, Expr body, Type ret_type = nullptr, Attrs attrs = nullptr);
Tuple tuple(std::vector<Expr> fields);
TupleGetItem get_item(Expr tuple, int index);
Let let(Var var, Expr value, Expr body);
If if_then_else(Expr cond, Expr then_branch, Expr else_branch);

/// A new node with e's fields and span but no type (to retype a shared node:
/// copy on write). An Op cannot be copied (its identity is its definition).
Expr copy_untyped(const Expr& e);

/// Short name of an expression kind, for messages ("call", "let", ...).
std::string_view expr_kind_name(ExprKind k);

}  // namespace weft

#pragma GCC visibility pop

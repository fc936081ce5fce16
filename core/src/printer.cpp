// The Relay text printer, following TVM's RelayTextPrinter (v0.0.5 format).
//
// Like TVM, it prints in graph normal form: a node used more than once, or not
// at the end of its scope, is bound to a temporary `%N = ...;` and referred to by
// name; a node used once at the end of a scope is written inline. Dataflow nodes
// (calls, tuples, projections) are walked with the iterative post-order walk,
// so only nested scopes (function bodies, let bodies, if branches) recurse.
#include "weft/printer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "text/metadata.h"
#include "weft/functor.h"
#include "weft/names.h"
#include "weft/op.h"

namespace weft {

namespace {

// Indents every line after the first by two spaces (the text starts with "\n").
std::string indent(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    out += c;
    if (c == '\n') out += "  ";
  }
  return out;
}

// The shortest text that reads back as the same value (TVM writes six
// significant digits, which loses float32 precision on a round trip).
template <typename T>
std::string number_text(T value, const char* suffix) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, ec == std::errc() ? end : buf) + suffix;
}

// The quiet NaN `nanf` reads as; other NaN bit patterns would not survive
// being written as `nanf`, so they go to the metadata section.
bool is_canonical_nan(const Tensor& t) {
  DataType d = t.dtype();
  if (d == DataType::Float(16)) return *t.data_as<uint16_t>() == 0x7E00;
  Tensor canonical = Tensor::scalar(std::numeric_limits<double>::quiet_NaN(), d);
  return t.bitwise_equal(canonical);
}

// TVM's support::IsSimpleScalar: 0-d constants of these dtypes print inline.
bool is_simple_scalar(const Tensor& t) {
  if (t.ndim() != 0) return false;
  DataType d = t.dtype();
  if (d.is_float() && std::isnan(t.element_as_double(0)) && !is_canonical_nan(t)) return false;
  return d == DataType::Int(16) || d == DataType::Int(32) || d == DataType::Int(64) || d == DataType::Float(16) ||
         d == DataType::Float(32) || d == DataType::Float(64) || d == DataType::Bool();
}

// TVM's support::NDArrayScalarToString.
std::string scalar_text(const Tensor& t) {
  DataType d = t.dtype();
  double v = t.element_as_double(0);
  if (d == DataType::Bool()) return v != 0 ? "True" : "False";
  if (d == DataType::Int(16)) return number_text(*t.data_as<int16_t>(), "i16");
  if (d == DataType::Int(32)) return number_text(*t.data_as<int32_t>(), "");
  if (d == DataType::Int(64)) return number_text(*t.data_as<int64_t>(), "i64");
  if (d == DataType::Float(16)) return number_text(static_cast<float>(v), "f16");
  if (d == DataType::Float(32)) return number_text(*t.data_as<float>(), "f");
  return number_text(v, "f64");
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ", ";
    out += parts[i];
  }
  return out;
}

const char* const kMetadataOmitted =
    "/* For debugging purposes the metadata section has been omitted.\n"
    " * If you would like to see the full metadata section you can set the \n"
    " * option to `True` when invoking `astext`. \n"
    " */";

class TextPrinter {
 public:
  explicit TextPrinter(const PrintOptions& options) : options_(options) {}

  std::string print_module(const IRModule& mod) {
    std::string out;
    if (options_.header) out += "#[version = \"0.0.5\"]\n";
    // Alphabetical, as TVM prints modules (stable diffs).
    std::vector<std::pair<GlobalVar, Function>> defs = mod.functions();
    std::stable_sort(defs.begin(), defs.end(), [](const auto& a, const auto& b) { return a.first->name < b.first->name; });
    for (size_t i = 0; i < defs.size(); ++i) {
      if (i) out += "\n";
      count_uses(defs[i].second);
      // A well-formed definition has no free variables; a malformed one still
      // prints as text that reads back.
      std::string preamble = declare_free_vars(defs[i].second);
      out += print_func("def @" + defs[i].first->name, *defs[i].second, preamble) + "\n";
    }
    return out + metadata_note();
  }

  std::string print_final(const Expr& expr) {
    count_uses(expr);
    std::string text = declare_free_vars(expr);
    text += print_scope(expr);
    return text + metadata_note();  // after printing, which collects the constants
  }

 private:
  // TVM's layout: the program, a blank line, then `#[metadata]` and the JSON
  // object graph (or, when asked to leave it out, the note TVM writes instead).
  std::string metadata_note() const {
    if (meta_constants_.empty()) return "";
    if (!options_.show_meta_data) return std::string("\n") + kMetadataOmitted;
    return "\n#[metadata]\n" + text::write_metadata(meta_constants_) + "\n";
  }

  // Free variables are declared once, before everything, so a use inside a
  // nested scope (an if branch, a closure) does not declare it only there.
  std::string declare_free_vars(const Expr& e) {
    std::string declarations;
    for (const Var& v : free_vars(e)) {
      visit(v);
      var_memo_.insert(v.get());
      declarations += "free_var " + result_memo_.at(v.get()) + ";\n";
    }
    return declarations;
  }

  // How many parent edges point at each node (TVM's dependency graph).
  void count_uses(const Expr& root) {
    uses_.clear();
    post_order_visit(root, [&](const Expr& e) { for_each_child(*e, [&](const Expr& c) { ++uses_[c.get()]; }); });
  }

  bool is_unique(const ExprNode* e) const {
    auto it = uses_.find(e);
    return it == uses_.end() || it->second <= 1;
  }

  static bool always_inline(const ExprNode& e) {
    return e.kind == ExprKind::kGlobalVar || e.kind == ExprKind::kConstant || e.kind == ExprKind::kOp ||
           e.kind == ExprKind::kVar;
  }

  std::string optional_info(const ExprNode& e) {
    if (!options_.show_types || !opt_info_memo_.insert(&e).second) return "";
    switch (e.kind) {
      case ExprKind::kConstant:
      case ExprKind::kCall:
      case ExprKind::kVar:
      case ExprKind::kFunction:
      case ExprKind::kTuple:
      case ExprKind::kTupleGetItem:
        if (e.has_type()) return " /* ty=" + type_to_text(e.checked_type()) + " */";
        return "";
      default:
        return "";
    }
  }

  // Names a variable at its binding site: "%x: Tensor[...]" (uses print "%x").
  std::string alloc_var(const VarNode& v) {
    // A variable bound twice is malformed; print it anyway, marked.
    if (auto it = memo_.find(&v); it != memo_.end()) return it->second + "-malformed-ir";
    std::string val = "%" + names_.unique(printable_name(v.name_hint));
    memo_[&v] = val;
    if (v.type_annotation) val += ": " + type_to_text(v.type_annotation);
    return val + optional_info(v);
  }

  std::string print_scope(const Expr& e) {
    doc_stack_.emplace_back();
    std::string doc = print(e, /*try_inline=*/true);
    doc = doc_stack_.back() + doc;
    doc_stack_.pop_back();
    return doc;
  }

  std::string print_body(const Expr& e, const std::string& preamble = "") {
    return "{" + indent("\n" + preamble + print_scope(e)) + "\n}";
  }

  // TVM's PrintExpr: inline the node or bind it to a temporary in the current scope.
  std::string print(const Expr& e, bool try_inline = false) {
    const ExprNode* n = e.get();
    bool inline_expr = always_inline(*n) || (try_inline && is_unique(n));
    std::string printed;
    if (!inline_expr && n->kind == ExprKind::kLet) {
      printed = "(" + indent("\n" + visit(e)) + "\n)";
    } else {
      printed = visit(e);
    }
    printed += optional_info(*n);
    if (n->kind == ExprKind::kVar) {
      // First sight of a variable nothing binds: declare it.
      if (var_memo_.insert(n).second)
        if (auto it = result_memo_.find(n); it != result_memo_.end())
          doc_stack_.back() += "free_var " + it->second + ";\n";
      return memo_.at(n);
    }
    if (inline_expr) {
      memo_[n] = printed;
      return printed;
    }
    if (!var_memo_.insert(n).second) return memo_.at(n);
    std::string temp = "%" + std::to_string(temp_counter_++);
    memo_[n] = temp;
    doc_stack_.back() += temp + " = " + printed + ";\n";
    return temp;
  }

  // The text of e, walking its not-yet-printed dataflow inputs first.
  std::string visit(const Expr& e) {
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    detail::post_order(
        e, [&](const ExprNode* n) { return memo_.count(n) > 0; },
        [&](const ExprNode* n) { visit_leaf(Expr(const_cast<ExprNode*>(n))); },
        [](const ExprNode& n, const auto& fn) {
          // Only dataflow nodes are expanded; scopes are printed when reached.
          if (n.kind == ExprKind::kCall || n.kind == ExprKind::kTuple || n.kind == ExprKind::kTupleGetItem)
            for_each_child(n, fn);
        });
    return memo_.at(e.get());
  }

  void visit_leaf(const Expr& e) {
    if (memo_.count(e.get())) return;
    std::string result = visit_node(e);
    // Some handlers record their own memo (a free variable's short name, a
    // constant's meta reference); keep the long form aside for them.
    if (!memo_.count(e.get())) memo_[e.get()] = std::move(result);
    else result_memo_[e.get()] = std::move(result);
  }

  std::string visit_node(const Expr& e) {
    switch (e->kind) {
      case ExprKind::kVar: return alloc_var(static_cast<const VarNode&>(*e));
      case ExprKind::kGlobalVar: return "@" + static_cast<const GlobalVarNode&>(*e).name;
      case ExprKind::kOp: return static_cast<const OpNode&>(*e).name();
      case ExprKind::kConstant: return print_constant(static_cast<const ConstantNode&>(*e));
      case ExprKind::kCall: return print_call(static_cast<const CallNode&>(*e));
      case ExprKind::kFunction: return print_func("fn ", static_cast<const FunctionNode&>(*e));
      case ExprKind::kTuple: {
        auto& t = static_cast<const TupleNode&>(*e);
        std::vector<std::string> fields;
        for (const auto& f : t.fields) fields.push_back(print(f));
        return "(" + join(fields) + (t.fields.size() == 1 ? "," : "") + ")";
      }
      case ExprKind::kTupleGetItem: {
        auto& t = static_cast<const TupleGetItemNode&>(*e);
        return print(t.tuple) + "." + std::to_string(t.index);
      }
      case ExprKind::kLet: return print_let(e);
      case ExprKind::kIf: {
        auto& i = static_cast<const IfNode&>(*e);
        std::string out = "if (" + print(i.cond) + ") ";
        out += print_body(i.then_branch);
        return out + " else " + print_body(i.else_branch);
      }
    }
    throw InternalError(__FILE__, __LINE__, "unknown expression kind");
  }

  std::string print_constant(const ConstantNode& c) {
    if (is_simple_scalar(c.data)) return scalar_text(c.data);
    auto [it, fresh] = meta_index_.try_emplace(&c, meta_constants_.size());
    if (fresh) meta_constants_.push_back(Constant(const_cast<ConstantNode*>(&c)));
    std::string ref = "meta[relay.Constant][" + std::to_string(it->second) + "]";
    memo_[&c] = ref;
    return ref;
  }

  std::string print_call(const CallNode& c) {
    // Arguments first, so their temporaries are bound before the call.
    std::vector<std::string> args;
    for (const auto& a : c.args) args.push_back(print(a));
    const OpDef* def = c.op->kind == ExprKind::kOp ? static_cast<const OpNode&>(*c.op).def : nullptr;
    if (c.attrs) {
      for (const auto& [key, value] : c.attrs->entries) {
        // As TVM's VisitNonDefaultAttrs: attrs equal to the default the parser
        // fills in (the reference's C++ attrs default) are left out.
        const AttrField* field = def ? def->attrs.find(key) : nullptr;
        if (field && field->default_for(AttrDefaults::kText) == value) continue;
        args.push_back(key + "=" + value.str());
      }
    }
    return print(c.op) + "(" + join(args) + ")";
  }

  std::string print_func(const std::string& prefix, const FunctionNode& fn, const std::string& preamble = "") {
    std::vector<std::string> params;
    for (const auto& p : fn.params) params.push_back(alloc_var(*p));
    if (fn.attrs)
      for (const auto& [key, value] : fn.attrs->entries) params.push_back(key + "=" + value.str());
    std::string out = prefix + "(" + join(params) + ") ";
    if (fn.ret_type) out += "-> " + type_to_text(fn.ret_type) + " ";
    return out + print_body(fn.body, preamble);
  }

  // A chain of lets prints as one flat sequence in a loop, not nested scopes.
  std::string print_let(const Expr& e) {
    size_t base = doc_stack_.size();
    Expr cur = e;
    while (cur->kind == ExprKind::kLet) {
      auto& l = static_cast<const LetNode&>(*cur);
      std::string binding = "let " + alloc_var(*l.var) + " = ";
      // A let as the value would read back as one let chain that swallows
      // the body, so it gets its own parenthesised scope.
      if (l.value->kind == ExprKind::kLet)
        binding += "(" + indent("\n" + print_scope(l.value)) + "\n)";
      else
        binding += print(l.value, /*try_inline=*/true);
      binding += ";\n";
      doc_stack_.push_back(std::move(binding));
      cur = l.body;
    }
    std::string body = print_scope(cur);
    std::string out;
    for (size_t i = base; i < doc_stack_.size(); ++i) out += doc_stack_[i];
    doc_stack_.resize(base);
    return out + body;
  }

  PrintOptions options_;
  std::vector<std::string> doc_stack_;
  std::unordered_map<const ExprNode*, std::string> memo_;         // text or temp name per node
  std::unordered_map<const ExprNode*, std::string> result_memo_;  // a free var's declaration
  std::unordered_set<const ExprNode*> var_memo_;                  // nodes already bound or declared
  std::unordered_set<const ExprNode*> opt_info_memo_;
  NameAllocator names_;
  std::unordered_map<const ExprNode*, int> uses_;
  std::unordered_map<const ConstantNode*, size_t> meta_index_;
  std::vector<Constant> meta_constants_;
  size_t temp_counter_ = 0;
};

}  // namespace

std::string to_text(const IRModule& mod, const PrintOptions& options) {
  return TextPrinter(options).print_module(mod);
}

std::string to_text(const Expr& expr, const PrintOptions& options) {
  WEFT_ICHECK(expr.defined(), "to_text of a null expression");
  return TextPrinter(options).print_final(expr);
}

}  // namespace weft

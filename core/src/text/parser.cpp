// The Relay text parser: tokens to an IRModule or an expression (text.h).
//
// Recursive descent over TVM's grammar, except that a body's bindings
// (`let %x = ...;`, `%N = ...;`, `free_var`, `e;`) are read in a loop and the
// lets built afterwards, so a 100,000-long chain costs no stack. Only real
// lexical nesting (parentheses, blocks, function bodies, branches, argument
// lists, types, attr lists) recurses, and that is capped at kMaxNesting.
#include <fstream>
#include <memory>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "boxed_ints.h"
#include "meta_attrs.h"
#include "metadata.h"
#include "token.h"
#include "weft/op.h"
#include "weft/text.h"
#include "weft/type.h"

namespace weft {

namespace text {
namespace {

constexpr int kMaxNesting = 100;

class Parser {
 public:
  Parser(std::string_view source, std::string name) : name_(std::move(name)) {
    TokenizedText t = tokenize(source, name_);
    tokens_ = std::move(t.tokens);
    has_metadata_ = t.metadata_loc.line > 0;
    if (has_metadata_) meta_ = read_metadata(t.metadata, t.metadata_loc);
  }

  IRModule parse_module() {
    parse_version();
    // What astext() prints for a lone Function or expression: its main.
    if (peek().kind != TokenKind::kDef && peek().kind != TokenKind::kEof) {
      Expr e = parse_expr();
      expect(TokenKind::kEof, "end of input");
      check_globals_defined(IRModule());
      return IRModule::from_expr(e);
    }
    IRModule mod;
    while (peek().kind == TokenKind::kDef) {
      next();
      const Token& name = expect(TokenKind::kGlobal, "a function name (`@name`)");
      if (mod.contains(name.text)) fail_at(name, "function @" + name.text + " is defined twice");
      graph_.clear();  // `%N` numbers are per definition
      GlobalVar gv = global(name);
      mod.add(gv, parse_function(name));
    }
    expect(TokenKind::kEof, "`def` or end of input");
    check_globals_defined(mod);
    return mod;
  }

  void check_globals_defined(const IRModule& mod) const {
    for (const auto& [gname, ref] : global_refs_)
      if (!mod.contains(gname)) fail_at(ref, "undefined function @" + gname + "; expected a `def @" + gname + "`");
  }

  Expr parse_single_expr() {
    parse_version();
    Expr e = parse_expr();
    expect(TokenKind::kEof, "end of input");
    return e;
  }

 private:
  // ---- tokens ---------------------------------------------------------------
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  const Token& previous() const { return tokens_[pos_ == 0 ? 0 : pos_ - 1]; }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool accept(TokenKind k) {
    if (peek().kind != k) return false;
    next();
    return true;
  }
  const Token& expect(TokenKind k, const std::string& what = {}) {
    if (peek().kind != k) fail_at(peek(), "expected " + (what.empty() ? describe(k) : what) + ", found " + describe(peek()));
    return next();
  }
  SourceLoc loc(const Token& t) const { return SourceLoc{name_, t.line, t.column}; }
  [[noreturn]] void fail_at(const Token& t, const std::string& message) const { throw Error(message).at(loc(t)); }

  template <typename T>
  T located(T e, const Token& t) const {
    auto* node = const_cast<ExprNode*>(static_cast<const ExprNode*>(e.get()));
    if (!node->span) node->span = std::make_shared<const SourceLoc>(loc(t));
    return e;
  }

  // Bounds the recursion of nested constructs (hostile or generated input).
  struct Nesting {
    explicit Nesting(Parser& p) : p(p) {
      if (++p.depth_ > kMaxNesting)
        p.fail_at(p.peek(), "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    }
    ~Nesting() { --p.depth_; }
    Parser& p;
  };

  void parse_version() {
    if (peek().kind != TokenKind::kVersion) return;
    const Token& v = next();
    if (v.text != "\"0.0.5\"") fail_at(v, "unsupported text format version " + v.text + "; expected \"0.0.5\"");
  }

  // ---- scopes ---------------------------------------------------------------
  // name -> its bindings, innermost last; an undo log of names restores the
  // outer scopes, so lookups cost O(1) however long a let chain grows.
  void bind(const Var& v) {
    locals_[v->name_hint].push_back(v);
    bound_.push_back(v->name_hint);
  }
  size_t scope_mark() const { return bound_.size(); }
  void pop_scope(size_t mark) {
    while (bound_.size() > mark) {
      auto it = locals_.find(bound_.back());
      it->second.pop_back();
      if (it->second.empty()) locals_.erase(it);
      bound_.pop_back();
    }
  }
  Var lookup_local(const Token& t) const {
    if (auto it = locals_.find(t.text); it != locals_.end()) return it->second.back();
    if (auto it = free_vars_.find(t.text); it != free_vars_.end()) return it->second;
    fail_at(t, "undefined variable %" + t.text);
  }
  // As TVM's parser, a `free_var` is visible from its declaration to the end
  // of the text, whatever scope it sits in: TVM's printer declares a free
  // variable where it is first used, which may be inside one branch of an
  // `if` that uses it in the other branch too. Declaring it again names the
  // same variable (weft prints a variable free in two definitions in both).
  void declare_free_var(const Token& name, Type annotation) {
    auto [it, fresh] = free_vars_.try_emplace(name.text);
    if (fresh) {
      it->second = new_var(name, std::move(annotation));
      return;
    }
    const Type& first = it->second->type_annotation;
    if (first.defined() != annotation.defined() || (first.defined() && !type_equal(first, annotation)))
      fail_at(name, "free variable %" + name.text + " is declared again with another type; expected " +
                        (first.defined() ? type_to_text(first) : std::string("no type")) + " as at " +
                        it->second->span->str());
  }
  GlobalVar global(const Token& t) {
    auto [it, fresh] = globals_.try_emplace(t.text);
    if (fresh) it->second = global_var(t.text);
    return it->second;
  }
  Var new_var(const Token& t, Type annotation) { return located(var(t.text, std::move(annotation)), t); }

  // ---- expressions ----------------------------------------------------------
  struct Binding {
    Var var;
    Expr value;
    Token at;
  };

  // expr := (binding ';')* value, with binding := `let %x (: T)? = value`
  //         | `%N = value` | `free_var %x (: T)?` | value
  Expr parse_expr() {
    Nesting guard(*this);
    size_t mark = scope_mark();
    std::vector<Binding> lets;
    Expr body;
    while (true) {
      const Token& t = peek();
      if (t.kind == TokenKind::kFreeVar) {
        next();
        const Token& name = expect(TokenKind::kLocal, "a variable (`%name`)");
        Type ty = accept(TokenKind::kColon) ? parse_type() : nullptr;
        declare_free_var(name, std::move(ty));
        expect(TokenKind::kSemicolon);
        continue;
      }
      if (t.kind == TokenKind::kLet) {
        Token at = next();
        const Token& name = expect(TokenKind::kLocal, "a variable (`%name`)");
        Type ty = accept(TokenKind::kColon) ? parse_type() : nullptr;
        Var v = new_var(name, std::move(ty));
        expect(TokenKind::kEqual);
        // A function sees its own name (a recursive closure); any other value
        // sees the name's outer binding, so `let %x = f(%x);` shadows.
        bool recursive = peek().kind == TokenKind::kFn;
        if (recursive) bind(v);
        Expr value = parse_value();
        if (!recursive) bind(v);
        expect(TokenKind::kSemicolon);
        lets.push_back({v, value, at});
        continue;
      }
      if (t.kind == TokenKind::kGraph && peek(1).kind == TokenKind::kEqual) {
        int64_t number = next().int_value;
        next();
        Expr value = parse_value();
        expect(TokenKind::kSemicolon);
        graph_[number] = value;
        continue;
      }
      Token at = t;
      Expr value = parse_value();
      if (accept(TokenKind::kSemicolon)) {  // `e1; e2` evaluates e1 for nothing, as TVM
        lets.push_back({located(var(""), at), value, at});
        continue;
      }
      body = value;
      break;
    }
    pop_scope(mark);
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) body = located(let(it->var, it->value, body), it->at);
    return body;
  }

  // value := atom ('.' INT | '(' args ')')*
  Expr parse_value() {
    const Token start = peek();
    Expr e = parse_atom();
    while (true) {
      if (peek().kind == TokenKind::kPeriod) {
        next();
        const Token& index = expect(TokenKind::kInt, "a tuple index");
        if (index.int_value < 0 || index.int_value > std::numeric_limits<int>::max())
          fail_at(index, "tuple index " + index.text + " is out of range");
        e = located(get_item(e, static_cast<int>(index.int_value)), start);
      } else if (peek().kind == TokenKind::kLParen) {
        e = parse_call(e, start);
      } else {
        return e;
      }
    }
  }

  Expr parse_call(const Expr& callee, const Token& start) {
    Nesting guard(*this);
    expect(TokenKind::kLParen);
    std::vector<Expr> args;
    std::vector<std::pair<std::string, AttrValue>> attrs;
    while (!accept(TokenKind::kRParen)) {
      if (starts_attr()) {
        parse_attrs(attrs);
        expect(TokenKind::kRParen, "`,` or `)`");
        break;
      }
      if (starts_meta_attrs()) {
        attrs = meta_call_attrs(callee, next());
        accept(TokenKind::kComma);
        expect(TokenKind::kRParen, "`)` after the call's attributes");
        break;
      }
      args.push_back(parse_expr());
      if (!accept(TokenKind::kComma)) {
        expect(TokenKind::kRParen, "`,` or `)`");
        break;
      }
    }
    resolve_boxed_ints(callee->kind == ExprKind::kOp ? downcast<OpNode>(callee)->name() : std::string(), attrs);
    if (callee->kind == ExprKind::kOp) {
      try {
        // Attrs TVM left out equal its C++ attrs defaults, not its Python wrappers'.
        return located(
            call(downcast<OpNode>(callee), std::move(args), make_attrs(std::move(attrs)), AttrDefaults::kText), start);
      } catch (Error& e) {
        if (!e.loc().known()) e.at(loc(start));
        throw;
      }
    }
    if (!attrs.empty()) fail_at(start, "only operator calls take attributes (`key=value`)");
    return located(call_function(callee, std::move(args)), start);
  }

  Expr parse_atom() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::kInt:
      case TokenKind::kFloat:
      case TokenKind::kBool: {
        next();
        return located(constant(scalar_tensor(t)), t);
      }
      case TokenKind::kLocal: return lookup_local(next());
      case TokenKind::kGlobal: {
        const Token& g = next();
        global_refs_.try_emplace(g.text, g);
        return global(g);
      }
      case TokenKind::kGraph: {
        const Token& g = next();
        auto it = graph_.find(g.int_value);
        if (it == graph_.end()) fail_at(g, "undefined binding %" + g.text + "; expected `%" + g.text + " = ...;` before it");
        return it->second;
      }
      case TokenKind::kIdent: return parse_op();
      case TokenKind::kMetaRef: return meta_constant(next());
      case TokenKind::kFn: return parse_function(next());
      case TokenKind::kIf: return parse_if();
      case TokenKind::kLParen: return parse_parenthesized();
      case TokenKind::kLCurly: {
        next();
        Expr e = parse_expr();
        expect(TokenKind::kRCurly);
        return e;
      }
      default: fail_at(t, "expected an expression, found " + describe(t));
    }
  }

  // `nn.conv2d` arrives as identifier, `.`, identifier.
  Expr parse_op() {
    const Token& first = next();
    std::string name = first.text;
    while (peek().kind == TokenKind::kPeriod && peek(1).kind == TokenKind::kIdent) {
      next();
      name += "." + next().text;
    }
    const OpDef* def = OpRegistry::global().find(name);
    if (!def) {
      throw Error("unknown operator `" + name + "`; expected an op a plugin provides")
          .at(loc(first))
          .status(StatusCode::kNotFound);
    }
    return def->expr();
  }

  // meta[relay.attrs.X][N] or meta[DictAttrs][N]: a call's attrs, which TVM's
  // printer puts in the metadata section when their type is not the one the
  // op registers.
  static bool is_attrs_type(std::string_view type_key) {
    return type_key.starts_with("relay.attrs.") || type_key == "DictAttrs";
  }

  bool starts_meta_attrs() const {
    return peek().kind == TokenKind::kMetaRef && is_attrs_type(peek().text);
  }

  std::vector<std::pair<std::string, AttrValue>> meta_call_attrs(const Expr& callee, const Token& t) const {
    if (callee->kind != ExprKind::kOp) fail_at(t, describe(t) + ": only operator calls take attributes");
    const std::string& op = downcast<OpNode>(callee)->name();
    if (!has_metadata_)
      throw Error(describe(t) + " refers to a metadata section the text does not have")
          .op(op)
          .expected("`#[metadata]` at the end (astext(show_meta_data=True))")
          .at(loc(t));
    return read_meta_call_attrs(meta_, t.text, t.int_value, op, loc(t));
  }

  Expr meta_constant(const Token& t) {
    if (is_attrs_type(t.text))
      fail_at(t, describe(t) + " is a call's attributes; expected it as the last argument of an operator call");
    if (t.text != "relay.Constant")
      fail_at(t, "unsupported meta reference " + describe(t) + "; expected meta[relay.Constant][N]");
    if (!has_metadata_)
      fail_at(t, describe(t) + " refers to a metadata section the text does not have; expected `#[metadata]` at the end");
    if (t.int_value < 0 || static_cast<uint64_t>(t.int_value) >= meta_.constants.size())
      fail_at(t, describe(t) + " is out of range: the metadata section holds " +
                     std::to_string(meta_.constants.size()) + " constants");
    return meta_.constants[static_cast<size_t>(t.int_value)];
  }

  Tensor scalar_tensor(const Token& t) const {
    if (t.kind == TokenKind::kBool) return Tensor::scalar(static_cast<double>(t.int_value), DataType::Bool());
    if (t.kind == TokenKind::kFloat) return Tensor::scalar(t.float_value, t.dtype);
    Tensor out = Tensor::empty({}, t.dtype);  // written directly: int64 does not fit a double
    switch (t.dtype.bits) {
      case 8: *out.data_as<int8_t>() = static_cast<int8_t>(t.int_value); break;
      case 16: *out.data_as<int16_t>() = static_cast<int16_t>(t.int_value); break;
      case 32: *out.data_as<int32_t>() = static_cast<int32_t>(t.int_value); break;
      default: *out.data_as<int64_t>() = t.int_value; break;
    }
    return out;
  }

  // `()`, `(e)`, `(e,)`, `(e1, e2, ...)`
  Expr parse_parenthesized() {
    const Token& open = next();
    if (accept(TokenKind::kRParen)) return located(tuple({}), open);
    Expr first = parse_expr();
    if (accept(TokenKind::kRParen)) return first;
    expect(TokenKind::kComma, "`,` or `)`");
    std::vector<Expr> fields{first};
    while (!accept(TokenKind::kRParen)) {
      fields.push_back(parse_expr());
      if (!accept(TokenKind::kComma)) {
        expect(TokenKind::kRParen, "`,` or `)`");
        break;
      }
    }
    return located(tuple(std::move(fields)), open);
  }

  // After `fn` or `def @name`: `(%p: T, ..., key=value) -> T { body }`.
  Function parse_function(const Token& start) {
    Nesting guard(*this);
    size_t mark = scope_mark();
    expect(TokenKind::kLParen);
    std::vector<Var> params;
    std::vector<std::pair<std::string, AttrValue>> attrs;
    while (!accept(TokenKind::kRParen)) {
      if (starts_attr()) {
        parse_attrs(attrs);
        expect(TokenKind::kRParen, "`,` or `)`");
        break;
      }
      const Token& name = expect(TokenKind::kLocal, "a parameter (`%name`) or `)`");
      Type ty = accept(TokenKind::kColon) ? parse_type() : nullptr;
      Var p = new_var(name, std::move(ty));
      bind(p);
      params.push_back(p);
      if (!accept(TokenKind::kComma)) {
        expect(TokenKind::kRParen, "`,` or `)`");
        break;
      }
    }
    resolve_boxed_ints("", attrs);
    Type ret = accept(TokenKind::kArrow) ? parse_type() : nullptr;
    expect(TokenKind::kLCurly, "`{` or `->`");
    Expr body = parse_expr();
    expect(TokenKind::kRCurly, "`}`");
    pop_scope(mark);
    return located(function(std::move(params), body, std::move(ret), attrs.empty() ? nullptr : make_attrs(std::move(attrs))),
                   start);
  }

  Expr parse_if() {
    const Token& start = next();
    expect(TokenKind::kLParen, "`(` after `if`");
    Expr cond = parse_expr();
    expect(TokenKind::kRParen);
    Expr then_branch = parse_block();
    expect(TokenKind::kElse, "`else`");
    Expr else_branch = parse_block();
    return located(if_then_else(cond, then_branch, else_branch), start);
  }

  Expr parse_block() {
    expect(TokenKind::kLCurly);
    Expr e = parse_expr();
    expect(TokenKind::kRCurly);
    return e;
  }

  // ---- attributes -----------------------------------------------------------
  bool starts_attr() const { return peek().kind == TokenKind::kIdent && peek(1).kind == TokenKind::kEqual; }

  // key=value (, key=value)* [,]  -- stops before the closing `)`.
  void parse_attrs(std::vector<std::pair<std::string, AttrValue>>& out) {
    while (true) {
      const Token& key = expect(TokenKind::kIdent, "an attribute name");
      for (const auto& [k, v] : out)
        if (k == key.text) fail_at(key, "attribute `" + key.text + "` is given twice");
      expect(TokenKind::kEqual);
      out.emplace_back(key.text, parse_attr_value(key.text));
      if (!accept(TokenKind::kComma) || peek().kind == TokenKind::kRParen) return;
    }
  }

  // `depth` counts the lists around the value; `element` is its place in the
  // innermost one.
  AttrValue parse_attr_value(const std::string& key, int depth = 0, size_t element = 0) {
    Nesting guard(*this);
    const Token& t = next();
    switch (t.kind) {
      case TokenKind::kMetaRef: return boxed_int(t, key, depth, element);
      case TokenKind::kInt: return AttrValue(t.int_value);
      case TokenKind::kFloat: return AttrValue(t.float_value);
      case TokenKind::kBool: return AttrValue(t.int_value != 0);
      case TokenKind::kString: return AttrValue(t.text);
      // None leaves an optional attr unset; another bare name reads as a string (dtype=float32).
      case TokenKind::kIdent: return t.text == "None" || t.text == "nullptr" ? AttrValue() : AttrValue(t.text);
      case TokenKind::kLSquare: {
        std::vector<AttrValue> items;
        while (!accept(TokenKind::kRSquare)) {
          items.push_back(parse_attr_value(key, depth + 1, items.size()));
          if (!accept(TokenKind::kComma)) {
            expect(TokenKind::kRSquare, "`,` or `]`");
            break;
          }
        }
        return AttrValue(std::move(items));
      }
      case TokenKind::kLParen: {
        AttrValue v = parse_attr_value(key, depth, element);
        expect(TokenKind::kRParen);
        return v;
      }
      default: fail_at(t, "expected an attribute value (number, bool, string, list or None), found " + describe(t));
    }
  }

  // meta[runtime.BoxInt][N]: from the metadata section; without one, a None
  // that resolve_boxed_ints fills in once the call's annotation is read.
  AttrValue boxed_int(const Token& t, const std::string& key, int depth, size_t element) {
    if (t.text != "runtime.BoxInt")
      fail_at(t, "unsupported meta reference " + describe(t) + " in attribute `" + key +
                     "`; expected meta[runtime.BoxInt][N]");
    if (has_metadata_) {
      if (t.int_value < 0 || static_cast<uint64_t>(t.int_value) >= meta_.boxed_ints.size())
        fail_at(t, describe(t) + " is out of range: the metadata section holds " +
                       std::to_string(meta_.boxed_ints.size()) + " boxed integers");
      return AttrValue(meta_.boxed_ints[static_cast<size_t>(t.int_value)]);
    }
    std::optional<size_t> place;
    if (depth == 1) place = element;
    pending_boxed_.push_back({t, {key, place}, depth <= 1});
    return AttrValue();
  }

  // Without a metadata section, the boxed integers of the attrs just read
  // (those of a call to `op`, or of a function when `op` is empty) come from
  // the `/* ty=... */` annotation after their closing `)` where it determines
  // them; any other is an error naming the attr.
  void resolve_boxed_ints(const std::string& op, std::vector<std::pair<std::string, AttrValue>>& attrs) {
    if (pending_boxed_.empty()) return;
    std::vector<PendingBoxedInt> pending = std::move(pending_boxed_);
    pending_boxed_.clear();
    Type result = op.empty() ? Type() : annotated_type(previous());
    for (const PendingBoxedInt& p : pending) {
      std::optional<int64_t> value;
      if (p.recoverable) value = recover_boxed_int(op, p.site, attrs, result);
      if (!value) {
        Error e(describe(p.at) + " refers to the metadata section, which this text does not have (TVM printed it " +
                "with show_meta_data=False), and the program does not determine its value" +
                (result.defined() || op.empty() ? "" : " (the call has no `/* ty=... */` annotation)"));
        if (!op.empty()) e.op(op);
        throw e.attr(p.site.attr).expected("the text with its `#[metadata]` section (astext(show_meta_data=True))")
            .at(loc(p.at));
      }
      for (auto& [key, attr] : attrs) {
        if (key != p.site.attr) continue;
        if (!p.site.element) {
          attr = AttrValue(*value);
          continue;
        }
        std::vector<AttrValue> items = attr.as_list();
        items[*p.site.element] = AttrValue(*value);
        attr = AttrValue(std::move(items));
      }
    }
  }

  // The type in a `/* ty=T */` (or `/* ty=T span=... */`) note; null when the
  // note holds none.
  Type annotated_type(const Token& t) const {
    std::string_view note = t.note;
    size_t start = note.find_first_not_of(' ');
    if (start == std::string_view::npos || note.substr(start, 3) != "ty=") return nullptr;
    note = note.substr(start + 3);
    note = note.substr(0, note.find(" span="));
    try {
      Parser type_text(note, name_);
      Type type = type_text.parse_type();
      return type_text.peek().kind == TokenKind::kEof ? type : nullptr;
    } catch (const Error&) {
      return nullptr;
    }
  }

  // ---- types ----------------------------------------------------------------
  Type parse_type() {
    Nesting guard(*this);
    const Token& t = next();
    switch (t.kind) {
      case TokenKind::kLParen: return tuple_type(parse_type_list());
      case TokenKind::kFn: {
        expect(TokenKind::kLParen, "`(` after `fn`");
        std::vector<Type> params = parse_type_list();
        expect(TokenKind::kArrow);
        return func_type(std::move(params), parse_type());
      }
      case TokenKind::kIdent: {
        if (t.text == "_") return incomplete_type();
        if (t.text != "Tensor") return scalar_type(parse_dtype(t));
        expect(TokenKind::kLSquare, "`[` after `Tensor`");
        expect(TokenKind::kLParen, "a shape `(d1, d2, ...)`");
        std::vector<Dim> shape;
        while (!accept(TokenKind::kRParen)) {
          const Token& d = next();
          if (d.kind == TokenKind::kQuestion) shape.push_back(kAnyDim);
          else if (d.kind == TokenKind::kInt && d.int_value >= 0) shape.push_back(d.int_value);
          else fail_at(d, "expected a dimension (a non-negative integer or `?`), found " + describe(d));
          if (!accept(TokenKind::kComma)) {
            expect(TokenKind::kRParen, "`,` or `)`");
            break;
          }
        }
        expect(TokenKind::kComma, "`,` and a dtype");
        DataType dtype = parse_dtype(expect(TokenKind::kIdent, "a dtype"));
        expect(TokenKind::kRSquare);
        try {
          return tensor_type(std::move(shape), dtype);
        } catch (Error& e) {  // a shape past the limits: point at the type
          throw e.at(loc(t));
        }
      }
      default: fail_at(t, "expected a type, found " + describe(t));
    }
  }

  // After `(`: `)`, `T)`, `T,)`, `T1, T2)`.
  std::vector<Type> parse_type_list() {
    std::vector<Type> out;
    while (!accept(TokenKind::kRParen)) {
      out.push_back(parse_type());
      if (!accept(TokenKind::kComma)) {
        expect(TokenKind::kRParen, "`,` or `)`");
        break;
      }
    }
    return out;
  }

  DataType parse_dtype(const Token& t) const {
    try {
      return DataType::parse(t.text);
    } catch (const Error&) {
      fail_at(t, "expected a type (`Tensor[...]`, a dtype, a tuple or `fn`), found " + describe(t));
    }
  }

  std::string name_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool has_metadata_ = false;
  Metadata meta_;
  // meta[runtime.BoxInt] references of the attrs being read, in a text with
  // no metadata section; `recoverable` when they sit where a program may
  // determine them (the attr itself or an element of its list).
  struct PendingBoxedInt {
    Token at;
    BoxedIntSite site;
    bool recoverable;
  };
  std::vector<PendingBoxedInt> pending_boxed_;
  std::unordered_map<std::string, std::vector<Var>> locals_;
  std::unordered_map<std::string, Var> free_vars_;
  std::vector<std::string> bound_;
  std::unordered_map<int64_t, Expr> graph_;
  std::unordered_map<std::string, GlobalVar> globals_;
  std::unordered_map<std::string, Token> global_refs_;
};

}  // namespace
}  // namespace text

IRModule parse_module(std::string_view source, std::string_view source_name) {
  return text::Parser(source, std::string(source_name)).parse_module();
}

IRModule parse_module_file(const std::filesystem::path& path) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path, ec)) throw Error("cannot read Relay text file " + path.string()).expected("a readable file");
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) throw Error("cannot read Relay text file " + path.string()).expected("a readable file");
  return parse_module(content.str(), path.string());
}

Expr parse_expr(std::string_view source, std::string_view source_name) {
  return text::Parser(source, std::string(source_name)).parse_single_expr();
}

}  // namespace weft

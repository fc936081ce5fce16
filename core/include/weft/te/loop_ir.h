// The loop-level IR that TE lowers to: loop nests over buffers, as TVM's TIR
// after flattening of the schedule. Statements are immutable and
// reference-counted; expressions are TE's PrimExpr with loads from buffers
// (buffer.h) in place of tensor reads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "weft/te/buffer.h"
#include "weft/te/expr.h"

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft::te {

enum class StmtKind : uint8_t { kFor, kStore, kAllocate, kIfThenElse, kLet, kSeq };

class StmtNode : public Object {
 public:
  const StmtKind kind;

 protected:
  explicit StmtNode(StmtKind kind) : kind(kind) {}
};
using Stmt = Ref<const StmtNode>;

/// How a loop's iterations may run: in order, on several cores, as the lanes
/// of a vector, or unrolled. Every kind computes what the serial loop does.
enum class ForKind : uint8_t { kSerial, kParallel, kVectorized, kUnrolled };

/// for var in [min, min + extent): body
class ForNode : public StmtNode {
 public:
  ForNode(Var var, int64_t min, int64_t extent, ForKind for_kind, Stmt body)
      : StmtNode(StmtKind::kFor), var(std::move(var)), min(min), extent(extent), for_kind(for_kind), body(std::move(body)) {}
  const Var var;
  const int64_t min, extent;
  const ForKind for_kind;
  const Stmt body;
};

/// buffer[indices] = value
class BufferStoreNode : public StmtNode {
 public:
  BufferStoreNode(Buffer buffer, std::vector<PrimExpr> indices, PrimExpr value)
      : StmtNode(StmtKind::kStore), buffer(std::move(buffer)), indices(std::move(indices)), value(std::move(value)) {}
  const Buffer buffer;
  const std::vector<PrimExpr> indices;
  const PrimExpr value;
};

/// Scratch storage for `buffer`, live while `body` runs (an intermediate stage).
class AllocateNode : public StmtNode {
 public:
  AllocateNode(Buffer buffer, Stmt body) : StmtNode(StmtKind::kAllocate), buffer(std::move(buffer)), body(std::move(body)) {}
  const Buffer buffer;
  const Stmt body;
};

class IfThenElseNode : public StmtNode {
 public:
  IfThenElseNode(PrimExpr cond, Stmt then_case, Stmt else_case)
      : StmtNode(StmtKind::kIfThenElse), cond(std::move(cond)), then_case(std::move(then_case)), else_case(std::move(else_case)) {}
  const PrimExpr cond;
  const Stmt then_case;
  const Stmt else_case;  // may be null
};

/// let var = value in body
class LetStmtNode : public StmtNode {
 public:
  LetStmtNode(Var var, PrimExpr value, Stmt body)
      : StmtNode(StmtKind::kLet), var(std::move(var)), value(std::move(value)), body(std::move(body)) {}
  const Var var;
  const PrimExpr value;
  const Stmt body;
};

class SeqStmtNode : public StmtNode {
 public:
  explicit SeqStmtNode(std::vector<Stmt> stmts) : StmtNode(StmtKind::kSeq), stmts(std::move(stmts)) {}
  const std::vector<Stmt> stmts;
};

Stmt for_loop(Var var, int64_t min, int64_t extent, ForKind kind, Stmt body);
/// Error when the value's dtype is not the buffer's or the index count its rank.
Stmt buffer_store(Buffer buffer, std::vector<PrimExpr> indices, PrimExpr value);
Stmt allocate(Buffer buffer, Stmt body);
Stmt if_then_else(PrimExpr cond, Stmt then_case, Stmt else_case = Stmt());
Stmt let_stmt(Var var, PrimExpr value, Stmt body);
/// The statements in order; a single one is returned as itself.
Stmt seq(std::vector<Stmt> stmts);

/// A lowered kernel: reads `inputs`, writes `outputs` (the function's
/// parameters, in that order), allocates its intermediates in `body`.
struct LoweredFunc {
  std::string name;
  std::vector<Buffer> inputs;
  std::vector<Buffer> outputs;
  Stmt body;
};

std::string_view for_kind_name(ForKind kind);

}  // namespace weft::te

#pragma GCC visibility pop

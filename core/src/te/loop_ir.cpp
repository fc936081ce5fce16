#include "weft/te/loop_ir.h"

namespace weft::te {

Stmt for_loop(Var var, int64_t min, int64_t extent, ForKind kind, Stmt body) {
  WEFT_ICHECK(var && body, "a loop needs a variable and a body");
  return make_ref<ForNode>(std::move(var), min, extent, kind, std::move(body));
}

Stmt buffer_store(Buffer buffer, std::vector<PrimExpr> indices, PrimExpr value) {
  if (!value || value.dtype() != buffer->dtype) {
    throw Error("store of " + (value ? value.dtype().str() : std::string("nothing")) + " into buffer '" +
                buffer->name + "'")
        .expected(buffer->dtype.str() + ", the buffer's dtype");
  }
  // buffer_load checks the indices against the buffer the same way.
  (void)buffer_load(buffer, indices);
  return make_ref<BufferStoreNode>(std::move(buffer), std::move(indices), std::move(value));
}

Stmt allocate(Buffer buffer, Stmt body) { return make_ref<AllocateNode>(std::move(buffer), std::move(body)); }

Stmt if_then_else(PrimExpr cond, Stmt then_case, Stmt else_case) {
  WEFT_ICHECK(cond && cond.dtype().is_bool(), "an if needs a bool condition");
  return make_ref<IfThenElseNode>(std::move(cond), std::move(then_case), std::move(else_case));
}

Stmt let_stmt(Var var, PrimExpr value, Stmt body) {
  WEFT_ICHECK(value && value.dtype() == var->dtype, "a let's value has its variable's dtype");
  return make_ref<LetStmtNode>(std::move(var), std::move(value), std::move(body));
}

Stmt seq(std::vector<Stmt> stmts) {
  if (stmts.size() == 1) return stmts[0];
  return make_ref<SeqStmtNode>(std::move(stmts));
}

std::string_view for_kind_name(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "serial";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unrolled";
  }
  return "?";
}

}  // namespace weft::te

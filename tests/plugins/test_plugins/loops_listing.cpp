// A target that reads loop programs through the SDK (ABI 1.10): its compile
// lowers the group (with the traits its options give) and declines it with
// a listing of every node, variable and buffer of the program, so a test can
// check the tables against the program by hand. Option `lower_body` lowers
// the group's body (a call, not a function) instead: the host's refusal.
#include <weft/plugin.hpp>

#include <string>

namespace sdk = weft::sdk;

namespace {

const char* kind_name(weft_loop_node_kind_t kind) {
  switch (kind) {
    case WEFT_LOOP_INT: return "int";
    case WEFT_LOOP_FLOAT: return "float";
    case WEFT_LOOP_VAR: return "var";
    case WEFT_LOOP_BINARY: return "binary";
    case WEFT_LOOP_SELECT: return "select";
    case WEFT_LOOP_CAST: return "cast";
    case WEFT_LOOP_CALL: return "call";
    case WEFT_LOOP_LOAD: return "load";
    case WEFT_LOOP_FOR: return "for";
    case WEFT_LOOP_STORE: return "store";
    case WEFT_LOOP_ALLOCATE: return "allocate";
    case WEFT_LOOP_IF: return "if";
    case WEFT_LOOP_LET: return "let";
    case WEFT_LOOP_SEQ: return "seq";
  }
  return "?";
}

const char* role_name(weft_loop_buffer_role_t role) {
  switch (role) {
    case WEFT_LOOP_BUFFER_ARG: return "arg";
    case WEFT_LOOP_BUFFER_CONSTANT: return "constant";
    case WEFT_LOOP_BUFFER_SCRATCH: return "scratch";
  }
  return "?";
}

std::string dims(const int64_t* v, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return "(" + out + ")";
}

/// "buffer 0 p0 float32 (3) strides (1) 3 elements arg 0", then one line per
/// variable and per node: "node 4: load float32 buffer 0 [3]".
std::string listing(const sdk::LoopProgram& p) {
  std::string out;
  for (size_t i = 0; i < p.num_buffers(); ++i) {
    const weft_loop_buffer_t& b = p.buffer(static_cast<int32_t>(i));
    out += "buffer " + std::to_string(i) + " " + b.name + " " + sdk::dtype_name(b.dtype) + " " + dims(b.shape, b.ndim) +
           " strides " + dims(b.strides, b.ndim) + " " + std::to_string(b.num_elements) + " elements " +
           role_name(b.role) + (b.role == WEFT_LOOP_BUFFER_ARG ? " " + std::to_string(b.arg) : "") + "\n";
  }
  for (size_t i = 0; i < p.num_vars(); ++i) {
    const weft_loop_var_t& v = p.var(static_cast<int32_t>(i));
    out += "var " + std::to_string(i) + " " + v.name + " " + sdk::dtype_name(v.dtype) + "\n";
  }
  for (size_t i = 0; i < p.num_nodes(); ++i) {
    const weft_loop_node_t& n = p.node(static_cast<int32_t>(i));
    out += "node " + std::to_string(i) + ": " + kind_name(n.kind);
    if (n.kind <= WEFT_LOOP_LOAD) out += std::string(" ") + sdk::dtype_name(n.dtype);
    if (n.kind == WEFT_LOOP_INT) out += " " + std::to_string(n.int_value);
    if (n.kind == WEFT_LOOP_FLOAT) out += " " + std::to_string(n.float_value);
    if (n.kind == WEFT_LOOP_BINARY || n.kind == WEFT_LOOP_CALL || n.kind == WEFT_LOOP_SELECT)
      out += " op " + std::to_string(n.op);
    if (n.kind == WEFT_LOOP_FOR)
      out += " kind " + std::to_string(n.op) + " from " + std::to_string(n.int_value) + " extent " +
             std::to_string(n.extent);
    if (n.var >= 0) out += " var " + std::to_string(n.var);
    if (n.buffer >= 0) out += " buffer " + std::to_string(n.buffer);
    out += " [";
    for (size_t k = 0; k < n.num_operands; ++k) out += (k ? "," : "") + std::to_string(n.operands[k]);
    out += "]\n";
  }
  out += "body " + std::to_string(p.body()) + ", " + std::to_string(p.num_args()) + " args\n";
  return out;
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.target("lister")
      .describe("Declines every group with a listing of its loop program.")
      .option("vector_lanes", int64_t{1}, "The traits' vector lanes.")
      .option("lower_body", false, "Lower the group's body instead of the group.")
      .supports([](const sdk::TargetInstance&, const sdk::Expr& call) { return sdk::te_supported(call); })
      .compile([](const sdk::TargetInstance& target, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        sdk::TargetTraits traits;
        traits.vector_lanes = static_cast<int32_t>(target.options().get_int("vector_lanes"));
        const sdk::Expr what = target.options().get_bool("lower_body") ? group.primitive.body() : group.primitive;
        throw sdk::Unsupported(listing(sdk::LoopProgram::lower(what, traits)));
      });
}

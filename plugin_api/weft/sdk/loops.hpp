// weft plugin SDK: loop programs (ABI 1.10), what a code-generating target
// compiles. A fused group's TE, lowered by the host under the default
// schedules for the target's traits, comes as flat tables (plugin.h's
// weft_loop_program_t); LoopProgram owns one and reads its entries with the
// strides the host wrote them with.
//
//   .supports([](const sdk::TargetInstance&, const sdk::Expr& call) { return sdk::te_supported(call); })
//   .compile([](const sdk::TargetInstance&, const sdk::CompileArgs& group) {
//     sdk::LoopProgram program = sdk::LoopProgram::lower(group.primitive, {.vector_lanes = 16, .cores = 2});
//     ... walk program.node(program.body()) ...
//   });
//
// Part of plugin.hpp; include that. docs/te.md describes the loop IR.
#pragma once

#include <weft/sdk/ir.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace weft::sdk {

/// Whether the TE layer describes this typed op call (its op has a TE
/// compute and its shapes are static): a code-generating target's supports().
inline bool te_supported(const Expr& call) {
  int out = 0;
  check(host().te_call_supported(call.get(), &out));
  return out != 0;
}

/// What the default schedules are told about a target; 0 takes the default.
struct TargetTraits {
  int32_t vector_lanes = 0;
  int32_t cores = 0;
  int32_t vector_registers = 0;
  bool many_threads = false;  // a GPU: each stage one parallel loop, an iteration per thread
};

/// A lowered group (move-only; frees its tables).
class LoopProgram {
 public:
  /// `primitive` (a typed Primitive function of TE-described calls) lowered
  /// for `traits`. Error naming the call the TE layer cannot describe.
  static LoopProgram lower(const Expr& primitive, const TargetTraits& traits = {}) {
    weft_target_traits_t t{};
    t.struct_size = sizeof t;
    t.vector_lanes = traits.vector_lanes;
    t.cores = traits.cores;
    t.vector_registers = traits.vector_registers;
    t.many_threads = traits.many_threads ? 1 : 0;
    const weft_loop_program_t* out = nullptr;
    check(host().loop_program_lower(primitive.get(), &t, &out));
    return LoopProgram(out);
  }

  LoopProgram(LoopProgram&& other) noexcept : p_(std::exchange(other.p_, nullptr)) {}
  LoopProgram& operator=(LoopProgram&& other) noexcept {
    std::swap(p_, other.p_);
    return *this;
  }
  LoopProgram(const LoopProgram&) = delete;
  LoopProgram& operator=(const LoopProgram&) = delete;
  ~LoopProgram() {
    if (p_) host().loop_program_release(p_);
  }

  const weft_loop_program_t& c() const { return *p_; }
  const char* name() const { return p_->name; }
  /// The program as `weft opt --emit loops` prints it.
  const char* text() const { return p_->text; }
  int32_t body() const { return p_->body; }
  size_t num_args() const { return p_->num_args; }

  size_t num_nodes() const { return p_->num_nodes; }
  const weft_loop_node_t& node(int32_t i) const { return at(p_->nodes, p_->num_nodes, i, "node"); }
  /// The k-th operand of a node, as a node.
  const weft_loop_node_t& operand(const weft_loop_node_t& n, size_t k) const {
    if (k >= n.num_operands) throw Error("a loop-program node has no operand " + std::to_string(k), WEFT_STATUS_INTERNAL);
    return node(n.operands[k]);
  }
  size_t num_vars() const { return p_->num_vars; }
  const weft_loop_var_t& var(int32_t i) const { return at(p_->vars, p_->num_vars, i, "variable"); }
  size_t num_buffers() const { return p_->num_buffers; }
  const weft_loop_buffer_t& buffer(int32_t i) const { return at(p_->buffers, p_->num_buffers, i, "buffer"); }

 private:
  explicit LoopProgram(const weft_loop_program_t* p) : p_(p) {}

  /// Entry i of a table the host wrote with its own struct size.
  template <typename T>
  static const T& at(const T* table, size_t count, int32_t i, const char* what) {
    if (i < 0 || static_cast<size_t>(i) >= count)
      throw Error(std::string("a loop program refers to ") + what + " " + std::to_string(i) + " of " +
                      std::to_string(count),
                  WEFT_STATUS_INTERNAL);
    const size_t stride = table[0].struct_size;
    return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(table) + stride * static_cast<size_t>(i));
  }

  const weft_loop_program_t* p_;
};

}  // namespace weft::sdk

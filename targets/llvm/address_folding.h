// A clean-up after LLVM's O3 pipeline, for register tiles: LICM hoists each
// constant part of an address out of the loops (gep(gep(p, C_k), i) for the
// k-th column of a tile), so a 14-column tile holds 14 base pointers, more
// than x86-64 has registers, and reloads them from the stack between its
// multiply-adds. fold_constant_offsets rewrites each such chain as
// gep(gep(p, i), C_k): the variable part is one value the columns share and
// the constants become displacements of the loads' addressing modes.
#pragma once

namespace llvm {
class Module;
}

namespace llvm_target {

void fold_constant_offsets(llvm::Module& module);

}  // namespace llvm_target

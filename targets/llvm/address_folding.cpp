#include "address_folding.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <map>
#include <utility>
#include <vector>

namespace llvm_target {
namespace {

/// One step of a chain of single-index GEPs: its element type and index.
struct Step {
  llvm::Type* element;
  llvm::Value* index;
};

/// The chain of single-index, scalar GEPs ending at `gep`, innermost first,
/// and the pointer it starts from.
std::pair<llvm::Value*, std::vector<Step>> chain_of(llvm::GetElementPtrInst* gep) {
  std::vector<Step> steps;
  llvm::Value* at = gep;
  while (auto* g = llvm::dyn_cast<llvm::GetElementPtrInst>(at)) {
    if (g->getNumIndices() != 1 || g->getType()->isVectorTy() || g->getOperand(1)->getType()->isVectorTy()) break;
    steps.push_back({g->getSourceElementType(), g->getOperand(1)});
    at = g->getPointerOperand();
  }
  return {at, std::vector<Step>(steps.rbegin(), steps.rend())};
}

void erase_if_dead(llvm::Value* v) {
  auto* gep = llvm::dyn_cast<llvm::GetElementPtrInst>(v);
  if (!gep || !gep->use_empty()) return;
  llvm::Value* inner = gep->getPointerOperand();
  gep->eraseFromParent();
  erase_if_dead(inner);
}

}  // namespace

void fold_constant_offsets(llvm::Module& module) {
  const llvm::DataLayout& layout = module.getDataLayout();
  for (llvm::Function& fn : module) {
    for (llvm::BasicBlock& block : fn) {
      // The variable part of each rewritten chain, shared within the block.
      std::map<std::pair<llvm::Value*, std::vector<std::pair<llvm::Type*, llvm::Value*>>>, llvm::Value*> shared;
      std::vector<llvm::GetElementPtrInst*> geps;
      for (llvm::Instruction& i : block)
        if (auto* g = llvm::dyn_cast<llvm::GetElementPtrInst>(&i)) geps.push_back(g);
      for (llvm::GetElementPtrInst* gep : geps) {
        // Only addresses of loads and stores: other uses may compare them.
        bool addresses_only = !gep->use_empty();
        for (llvm::User* u : gep->users()) addresses_only &= llvm::isa<llvm::LoadInst>(u) || llvm::isa<llvm::StoreInst>(u);
        if (!addresses_only) continue;
        auto [base, steps] = chain_of(gep);
        if (steps.size() < 2) continue;
        int64_t constant = 0;
        bool inner_constant = false;
        std::vector<std::pair<llvm::Type*, llvm::Value*>> variable;
        for (size_t k = 0; k < steps.size(); ++k) {
          if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(steps[k].index)) {
            constant += c->getSExtValue() * static_cast<int64_t>(layout.getTypeAllocSize(steps[k].element));
            inner_constant |= k + 1 < steps.size();
          } else {
            variable.push_back({steps[k].element, steps[k].index});
          }
        }
        if (!inner_constant || variable.empty()) continue;  // the constant is outermost already, or all of it
        llvm::IRBuilder<> b(gep);
        llvm::Value*& pointer = shared[{base, variable}];
        if (!pointer) {
          pointer = base;
          for (const auto& [element, index] : variable) pointer = b.CreateGEP(element, pointer, index);
        }
        llvm::Value* address = constant ? b.CreateGEP(b.getInt8Ty(), pointer, b.getInt64(static_cast<uint64_t>(constant)))
                                        : pointer;
        gep->replaceAllUsesWith(address);
        erase_if_dead(gep);
      }
    }
  }
}

}  // namespace llvm_target

#include "jit.h"

#include <weft/plugin.hpp>

#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/Mangling.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/xxhash.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "address_folding.h"
#include "codegen.h"
#include "thread_pool.h"

namespace sdk = weft::sdk;

namespace llvm_target {
namespace {

template <typename T>
T take(llvm::Expected<T> value, const std::string& what) {
  if (!value) throw sdk::Error(what + ": " + llvm::toString(value.takeError()), WEFT_STATUS_INTERNAL);
  return std::move(*value);
}

void check(llvm::Error error, const std::string& what) {
  if (error) throw sdk::Error(what + ": " + llvm::toString(std::move(error)), WEFT_STATUS_INTERNAL);
}

/// LLVM's O3 pipeline with the host's target machine (without it the loop
/// vectorizer has no cost model and vectorizes nothing).
void optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, modules);
}

class OrcJit;

/// The optimized module as LLVM IR or as the host's assembly.
std::string text_of(llvm::Module& module, Emit emit, llvm::TargetMachine& machine) {
  std::string text;
  llvm::raw_string_ostream out(text);
  if (emit == Emit::kLlvm) {
    module.print(out, nullptr);
    return out.str();
  }
  llvm::SmallString<0> assembly;
  llvm::raw_svector_ostream assembly_out(assembly);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, assembly_out, nullptr, llvm::CodeGenFileType::AssemblyFile))
    throw sdk::Error("LLVM cannot print assembly for this CPU", WEFT_STATUS_INTERNAL);
  std::unique_ptr<llvm::Module> copy = llvm::CloneModule(module);  // codegen changes what it runs on
  passes.run(*copy);
  return std::string(assembly.str());
}

/// A hash of this plugin's own file: kernels on disk made by another build
/// of the generator are not trusted.
std::string generator_identity() {
  static const std::string identity = [] {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&generator_identity), &info) || !info.dli_fname) return std::string("unknown");
    std::ifstream in(info.dli_fname, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(llvm::xxh3_64bits(bytes)));
    return std::string(hex);
  }();
  return identity;
}

class OrcKernel : public KernelCode {
 public:
  OrcKernel(std::shared_ptr<OrcJit> jit, llvm::orc::ResourceTrackerSP code, KernelFn entry, std::string listing,
            bool from_disk)
      : jit_(std::move(jit)), code_(std::move(code)), entry_(entry), listing_(std::move(listing)), from_disk_(from_disk) {}
  ~OrcKernel() override;
  KernelFn entry() const override { return entry_; }
  const std::string& listing() const override { return listing_; }
  bool from_disk() const override { return from_disk_; }

 private:
  std::shared_ptr<OrcJit> jit_;  // the code lives in its session
  llvm::orc::ResourceTrackerSP code_;
  KernelFn entry_;
  std::string listing_;
  bool from_disk_;
};

class OrcJit : public Jit, public std::enable_shared_from_this<OrcJit> {
 public:
  explicit OrcJit(const std::string& cache_dir) : disk_(cache_dir, "llvm-kernel") {
    static std::once_flag initialized;
    std::call_once(initialized, [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
    });
    // The host's CPU and its exact features: a VM may hide some that the
    // CPU's name implies.
    llvm::orc::JITTargetMachineBuilder host = take(llvm::orc::JITTargetMachineBuilder::detectHost(), "LLVM cannot target this CPU");
    host.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
    cpu_ = host.getCPU();
    for (const std::string& f : host.getFeatures().getFeatures())
      if (!f.empty() && f[0] == '+') features_.push_back(f.substr(1));
    machine_ = take(host.createTargetMachine(), "LLVM cannot make a target machine for this CPU");
    jit_ = take(llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(host).create(), "LLVM's JIT does not start");
    // Kernels call libm (tanhf, erff, expf) and the C allocator.
    jit_->getMainJITDylib().addGenerator(take(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                                                  jit_->getDataLayout().getGlobalPrefix()),
                                              "the JIT cannot see this process's symbols"));
    vector_math_ = define_vector_math();
    llvm::orc::MangleAndInterner mangle(jit_->getExecutionSession(), jit_->getDataLayout());
    check(jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(
              {{mangle(kParallelFor),
                {llvm::orc::ExecutorAddr::fromPtr(&weft_llvm_parallel_for), llvm::JITSymbolFlags::Exported}}})),
          "the JIT cannot define " + std::string(kParallelFor));
  }

  int float_lanes() const override {
    if (has("avx512f")) return 16;
    if (has("avx")) return 8;
    return 4;
  }

  int vector_registers() const override { return has("avx512f") ? 32 : 16; }

  std::string cpu_description() const override {
    std::ostringstream out;
    out << cpu_ << " (";
    for (size_t i = 0; i < features_.size(); ++i) out << (i ? "," : "") << features_[i];
    out << ")";
    return out.str();
  }

  std::shared_ptr<KernelCode> compile(const sdk::LoopProgram& program, bool parallel, Emit emit) override {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string key = cache_key(program, parallel, emit);
    if (auto cached = cache_.find(key); cached != cache_.end()) {
      if (std::shared_ptr<KernelCode> code = cached->second.lock()) return code;
    }
    std::shared_ptr<KernelCode> code = emit == Emit::kNone ? from_disk(program, key) : nullptr;
    if (!code) code = generate(program, key, parallel, emit);
    std::erase_if(cache_, [](const auto& entry) { return entry.second.expired(); });
    cache_[key] = code;
    return code;
  }

  /// Takes a kernel's code out of the JIT (under the lock compile holds, so
  /// a kernel of the same name is never added while this one leaves).
  void remove(llvm::orc::ResourceTracker& code) {
    std::lock_guard<std::mutex> lock(mutex_);
    llvm::consumeError(code.remove());
  }

 private:
  /// What a kernel's code depends on: the loop program (its text shows every
  /// shape, dtype, loop and expression; the constants' values are read at
  /// run time), whether it runs in parallel, the listing asked for, and the
  /// machine, LLVM and generator that compile it (for the disk cache).
  std::string cache_key(const sdk::LoopProgram& program, bool parallel, Emit emit) const {
    std::ostringstream key;
    key << "llvm " << LLVM_VERSION_STRING << ", generator " << generator_identity() << ", cpu " << cpu_description()
        << ", vector math " << vector_math_ << ", parallel " << parallel << ", emit " << static_cast<int>(emit) << "\n"
        << program.text();
    return key.str();
  }

  /// The function a program's code is entered by, unique to its key.
  static std::string entry_name(const sdk::LoopProgram& program, const std::string& key) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(llvm::xxh3_64bits(key)));
    return "weft_" + std::string(program.name()) + "_" + hash;
  }

  /// The kernel the disk cache holds for `key`, loaded; null where it holds
  /// none, or one the JIT cannot link (a warning says so).
  std::shared_ptr<KernelCode> from_disk(const sdk::LoopProgram& program, const std::string& key) {
    std::optional<std::string> object = disk_.read(key);
    if (!object) return nullptr;
    const std::string name = entry_name(program, key);
    llvm::orc::ResourceTrackerSP code = jit_->getMainJITDylib().createResourceTracker();
    using Address = llvm::Expected<llvm::orc::ExecutorAddr>;
    Address entry = [&]() -> Address {
      if (llvm::Error e = jit_->addObjectFile(code, llvm::MemoryBuffer::getMemBufferCopy(*object))) return Address(std::move(e));
      return jit_->lookup(name);
    }();
    if (!entry) {
      std::fprintf(stderr, "weft: warning: llvm cannot load group %s from %s (%s); compiling it again\n",
                   program.name(), disk_.path_of(key).c_str(), llvm::toString(entry.takeError()).c_str());
      llvm::consumeError(code->remove());
      return nullptr;
    }
    return std::make_shared<OrcKernel>(shared_from_this(), std::move(code), entry->toPtr<KernelFn>(), "", true);
  }

  std::shared_ptr<KernelCode> generate(const sdk::LoopProgram& program, const std::string& key, bool parallel,
                                       Emit emit) {
    const std::string name = entry_name(program, key);
    auto context = std::make_unique<llvm::LLVMContext>();
    // The optimizer's remarks (a hinted loop it did not vectorize) are no
    // errors of the group; the default handler would print them to stderr.
    context->setDiagnosticHandlerCallBack([](const llvm::DiagnosticInfo*, void*) {});
    auto module = std::make_unique<llvm::Module>(name, *context);
    module->setDataLayout(jit_->getDataLayout());
    module->setTargetTriple(machine_->getTargetTriple().str());
    emit_kernel(program, name, *module, parallel, float_lanes(), vector_math_);
    for (llvm::Function& fn : *module) {  // the kernel and its outlined parallel bodies
      if (fn.isDeclaration()) continue;
      fn.addFnAttr("target-cpu", machine_->getTargetCPU());
      fn.addFnAttr("target-features", machine_->getTargetFeatureString());
      if (has("avx512f")) fn.addFnAttr("prefer-vector-width", "512");  // zmm, not the ymm LLVM picks by default
    }
    optimize(*module, *machine_);
    fold_constant_offsets(*module);
    std::string listing = emit == Emit::kNone ? "" : text_of(*module, emit, *machine_);

    std::unique_ptr<llvm::MemoryBuffer> object =
        take(llvm::orc::SimpleCompiler(*machine_)(*module), "LLVM cannot compile group " + std::string(program.name()));
    if (emit == Emit::kNone) disk_.write(key, std::string(object->getBuffer()));
    llvm::orc::ResourceTrackerSP code = jit_->getMainJITDylib().createResourceTracker();
    check(jit_->addObjectFile(code, std::move(object)), "LLVM's JIT rejects group " + std::string(program.name()));
    llvm::orc::ExecutorAddr entry = take(jit_->lookup(name), "LLVM's JIT cannot link group " + std::string(program.name()));
    return std::make_shared<OrcKernel>(shared_from_this(), std::move(code), entry.toPtr<KernelFn>(), std::move(listing),
                                       false);
  }

  /// Makes glibc's vector math functions of this machine's width known to
  /// the JIT (libmvec is no dependency of the process, so it is opened here
  /// and stays open). False when any is missing: kernels then compute those
  /// functions lane by lane.
  bool define_vector_math() {
    // libmvec's variants of each width need their ISA: AVX-512 for 16 floats,
    // AVX2 for 8 (a CPU with AVX alone has 8-float vectors but not AVX2).
    const int lanes = float_lanes();
    if ((lanes == 16 && !has("avx512f")) || (lanes == 8 && !has("avx2")) || (lanes == 4 && !has("sse4.1")))
      return false;
    void* library = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) return false;
    llvm::orc::SymbolMap symbols;
    llvm::orc::MangleAndInterner mangle(jit_->getExecutionSession(), jit_->getDataLayout());
    for (const auto& [name, arity] : kVectorMathFunctions) {
      const std::string symbol = vector_math_symbol(name, arity, lanes);
      void* address = dlsym(library, symbol.c_str());
      if (!address) return false;
      symbols[mangle(symbol)] = {llvm::orc::ExecutorAddr::fromPtr(address), llvm::JITSymbolFlags::Exported};
    }
    return !jit_->getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols)));
  }

  bool has(const std::string& feature) const {
    return std::find(features_.begin(), features_.end(), feature) != features_.end();
  }

  std::string cpu_;
  std::vector<std::string> features_;  // those on
  std::unique_ptr<llvm::TargetMachine> machine_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  bool vector_math_ = false;  // libmvec's functions are defined in the JIT
  std::mutex mutex_;  // compiles one group at a time
  std::unordered_map<std::string, std::weak_ptr<KernelCode>> cache_;  // by cache_key
  sdk::DiskCache disk_;  // kernels' object code, by cache_key
};

OrcKernel::~OrcKernel() { jit_->remove(*code_); }

}  // namespace

std::shared_ptr<Jit> Jit::create(const std::string& cache_dir) { return std::make_shared<OrcJit>(cache_dir); }

}  // namespace llvm_target

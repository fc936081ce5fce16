#include "spirv.h"

#include <weft/plugin.hpp>

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <mutex>
#include <sstream>

namespace sdk = weft::sdk;

namespace vulkan_target {
namespace {

/// glslang's process state, set up once and kept (its finalize is not safe
/// to call while another thread may compile).
void initialize_glslang() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

std::string numbered(const std::string& source) {
  std::istringstream in(source);
  std::ostringstream out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) out << n << ": " << line << "\n";
  return out.str();
}

}  // namespace

std::vector<uint32_t> compile_glsl(const std::string& glsl, const std::string& name) {
  initialize_glslang();
  glslang::TShader shader(EShLangCompute);
  const char* text = glsl.c_str();
  shader.setStrings(&text, 1);
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  // A bug of the generator, never of the user's program.
  auto fail = [&](const char* stage, const char* log) {
    return sdk::Error("glslang cannot " + std::string(stage) + " the shader of group " + name + ":\n" + log + "\n" +
                          numbered(glsl),
                      WEFT_STATUS_INTERNAL);
  };
  if (!shader.parse(GetDefaultResources(), 450, false, messages)) throw fail("compile", shader.getInfoLog());
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) throw fail("link", program.getInfoLog());
  std::vector<uint32_t> spirv;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv);  // the driver optimizes
  return spirv;
}

}  // namespace vulkan_target

// GLSL compute shaders compiled to SPIR-V by glslang, in process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vulkan_target {

/// `glsl` (a compute shader) as SPIR-V 1.5 for Vulkan 1.2, or an error
/// naming `name` with glslang's log and the numbered source.
std::vector<uint32_t> compile_glsl(const std::string& glsl, const std::string& name);

}  // namespace vulkan_target

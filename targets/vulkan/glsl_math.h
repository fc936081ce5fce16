// The functions generated shaders call for the loop IR's float intrinsics
// where GLSL lacks them (erf; every transcendental of a double) or leaves
// them undefined where the reference is not (pow of a negative base, tanh of
// a large argument, C's fmod). Each is GLSL source, defined in a shader once,
// after the functions it calls.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace vulkan_target {

/// The helper functions one shader defines, in order of first use.
class GlslHelpers {
 public:
  /// Defines `name` as `definition` unless it is defined; returns name.
  const std::string& need(const std::string& name, const std::string& definition) {
    if (defined_.insert(name).second) text_ += definition + "\n";
    return name;
  }
  const std::string& text() const { return text_; }

 private:
  std::set<std::string> defined_;
  std::string text_;
};

/// The function computing intrinsic `op` (weft_te_intrinsic_t: EXP, LOG,
/// TANH, ERF, SIGMOID, POW, FMOD) of `type` ("float" or "double") as the
/// reference kernels define it, defined in `helpers` where it is not a GLSL
/// builtin; empty for another intrinsic.
std::string float_intrinsic(GlslHelpers& helpers, int32_t op, const std::string& type);

}  // namespace vulkan_target

// Where libweft_core runs from, and the install prefix that follows from it:
// the plugin loader finds its default plugin folder from it, the run configs
// their installed folder.
#pragma once

#include <filesystem>

namespace weft {

/// The folder of libweft_core itself; empty if the system cannot tell.
std::filesystem::path core_library_dir();
/// <prefix>, where libweft_core is <prefix>/<libdir>/libweft_core.so; empty
/// if core_library_dir() is.
std::filesystem::path install_prefix();
/// Whether libweft_core runs from the build tree whose libraries are in
/// `build_library_dir` (then build-tree folders serve it, installed ones not).
bool core_runs_from_build_tree(const std::filesystem::path& build_library_dir);

}  // namespace weft

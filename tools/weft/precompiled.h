// The third-party and standard headers most of the `weft` tool's files
// include, precompiled once for the tool (tools/CMakeLists.txt): CLI11 and the
// JSON library were most of each command file's compile time. Only
// third-party and standard headers, so a file that forgets an include of its
// own still fails to build.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

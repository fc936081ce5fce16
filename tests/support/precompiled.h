// The headers nearly every test suite includes, precompiled once for all
// suites (weft_test_pch in cmake/WeftTesting.cmake): parsing them was most of each test file's
// compile time. Only third-party and standard headers, so a test that forgets
// to include a weft header still fails to build.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

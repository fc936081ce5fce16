# Test helpers shared by tests/ and by plugins' own tests/ folders.
#
# weft_add_test_suite(<name> <dir> [INSTRUMENTED] [libs...]): one GoogleTest
#   executable from <dir>/*.cpp, linked with the core, registered with CTest
#   (label = name), and built by the target weft_test_suites.
# weft_add_plugin_tests(<plugin> [DEPENDS plugins...]): the suite in the calling
#   plugin's tests/ folder, run against the built plugin folder.
set(WEFT_TESTS_DIR ${CMAKE_SOURCE_DIR}/tests)

# Every GoogleTest suite and what it needs, and nothing else: the sanitized
# build in tools/dev builds only this and runs every test but the packaging
# ones (label sdk_package), which install the tree and run in the Release build.
add_custom_target(weft_test_suites)

# GoogleTest patterns (':'-separated) of the whole-model tests the sanitized
# build leaves out; see weft_add_test_suite.
set(WEFT_SANITIZED_BUILD_SKIPS
  "InceptionV3.RunsOnTheInterpreter:Densenet.RunsOnTheInterpreter:Models/ZooAtO3.*:ResnetFusion.Resnet18GivesTheSameOutputBeforeAndAfterFuseOps:ResnetLayout.*:DeepProgramsAtO3.*:ZooCliTest.RunResnet18TheMainJob:Conformance/ZooOnTargets.*")

# The GoogleTest, JSON and standard headers every suite includes, precompiled
# once for all suites: parsing them was most of each test file's compile time,
# and one header per suite cost ~10 s of CI per suite. The owner is an object
# library with exactly the suites' code-generation flags (-O1, and -fPIE as
# executables get it, not the -fPIC an object library would), and no compile
# definitions: a suite may add its own, but one the header was built with and a
# suite lacked would make clang refuse it.
add_library(weft_test_pch OBJECT ${WEFT_TESTS_DIR}/support/precompiled.cpp)
target_link_libraries(weft_test_pch PRIVATE GTest::gtest GTest::gmock nlohmann_json::nlohmann_json)
set_target_properties(weft_test_pch PROPERTIES POSITION_INDEPENDENT_CODE OFF)
target_precompile_headers(weft_test_pch PRIVATE ${WEFT_TESTS_DIR}/support/precompiled.h)

# A suite's own code is built for compile speed (the bulk of CI's build time):
# -O1, and in the sanitized tree -O0 without the sanitizers' instrumentation,
# which made a test file's compile five times slower (gtest's assertions are
# mostly template code) for checks of code that is not under test. The code
# under test (the core, plugins, targets, weft) keeps the tree's optimisation
# and instrumentation, and the suites link the sanitizers' runtimes. A suite
# whose code under test is header-only (the SDK's) passes INSTRUMENTED to keep
# the instrumentation, and builds without the shared precompiled header.
function(weft_suite_code_options target)
  if(WEFT_SANITIZE)
    get_target_property(options ${target} COMPILE_OPTIONS)
    list(REMOVE_ITEM options ${WEFT_INSTRUMENTATION})
    set_property(TARGET ${target} PROPERTY COMPILE_OPTIONS ${options} -O0)
  else()
    target_compile_options(${target} PRIVATE -O1)
  endif()
endfunction()
weft_suite_code_options(weft_test_pch)
target_compile_options(weft_test_pch PRIVATE -fPIE)

function(weft_add_test_suite name dir)
  cmake_parse_arguments(S "INSTRUMENTED" "" "" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp)
  if(NOT sources)
    return()
  endif()
  add_executable(${name} ${sources})
  target_link_libraries(${name} PRIVATE weft::core GTest::gtest GTest::gmock GTest::gtest_main ${S_UNPARSED_ARGUMENTS})
  target_include_directories(${name} PRIVATE ${WEFT_TESTS_DIR} ${dir})
  # -Winvalid-pch: GCC would otherwise fall back to parsing the headers
  # silently if the shared header stopped matching.
  if(NOT (S_INSTRUMENTED AND WEFT_SANITIZE))
    weft_suite_code_options(${name})
    target_compile_options(${name} PRIVATE -Winvalid-pch)
    target_precompile_headers(${name} REUSE_FROM weft_test_pch)
  endif()
  target_compile_definitions(${name} PRIVATE
    WEFT_GOLDEN_DIR="${WEFT_TESTS_DIR}/golden"
    WEFT_TEST_BUILD_PLUGIN_DIR="${WEFT_PLUGIN_BUILD_DIR}")
  # Each suite runs as one process: starting one (loading every plugin) costs
  # more than most tests. The sanitized build leaves out the tests that run
  # whole models on the interpreter: they run the same kernels as the op cases,
  # at 10-60 s each under ASan, and run in the Release build.
  #
  # Under the sanitizers every suite runs with one OpenMP thread: with
  # libgomp's workers alive at exit, LeakSanitizer's tracer (clang 14) crashes
  # reading a thread's TLS, in the suite or in a `weft` it runs (the default
  # config runs onednn, which runs on libgomp).
  #
  # Every Vulkan device a suite opens runs under the validation layer, and
  # any message it gives fails the run (targets/vulkan).
  if(WEFT_SANITIZE)
    target_compile_definitions(${name} PRIVATE WEFT_TEST_UNDER_SANITIZERS)
    add_test(NAME ${name} COMMAND ${name} --gtest_filter=-${WEFT_SANITIZED_BUILD_SKIPS})
    set_tests_properties(${name} PROPERTIES LABELS ${name} ENVIRONMENT "OMP_NUM_THREADS=1;WEFT_VULKAN_VALIDATION=1")
  else()
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES LABELS ${name} ENVIRONMENT WEFT_VULKAN_VALIDATION=1)
  endif()
  add_dependencies(weft_test_suites ${name})
endfunction()

function(weft_add_plugin_tests plugin)
  cmake_parse_arguments(P "" "" "DEPENDS" ${ARGN})
  set(name weft_${plugin}_tests)
  weft_add_test_suite(${name} ${CMAKE_CURRENT_SOURCE_DIR}/tests nlohmann_json::nlohmann_json)
  if(TARGET ${name})
    target_compile_definitions(${name} PRIVATE WEFT_PLUGIN_GOLDEN_DIR="${CMAKE_CURRENT_SOURCE_DIR}/tests/golden")
    add_dependencies(${name} weft_plugin_${plugin})
    foreach(dep ${P_DEPENDS})
      add_dependencies(${name} weft_plugin_${dep})
    endforeach()
  endif()
endfunction()

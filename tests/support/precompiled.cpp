// The translation unit that builds the test suites' shared precompiled header
// (weft_test_pch in cmake/WeftTesting.cmake); it has no code of its own.

# weft_add_plugin(NAME <name> SOURCES <files...> [LIBS <libs...>])
#
# Builds a plugin: a shared library that links only the plugin API (never
# libweft_core), exports only its entry symbol, and sits with its manifest
# (weft-plugin.yaml from the calling folder) in lib/weft/plugins/<name>/ of the
# build tree and of the install tree.
function(weft_add_plugin)
  cmake_parse_arguments(P "" "NAME" "SOURCES;LIBS" ${ARGN})
  set(target weft_plugin_${P_NAME})
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE weft::plugin_api ${P_LIBS})
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME weft_${P_NAME}
    PREFIX lib
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${WEFT_PLUGIN_BUILD_DIR}/${P_NAME})
  if(NOT WEFT_SANITIZE)
    # Catch unresolved symbols at link time, not at dlopen (sanitizer runtimes
    # resolve from the host executable, so the check cannot apply there).
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
  target_link_options(${target} PRIVATE -Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/weft-plugin.map)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/weft-plugin.map)
  # Suites that run the CLI over the build tree's plugin folder depend on all of them.
  set_property(GLOBAL APPEND PROPERTY WEFT_PLUGIN_TARGETS ${target})
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/weft-plugin.yaml
                 ${WEFT_PLUGIN_BUILD_DIR}/${P_NAME}/weft-plugin.yaml COPYONLY)
  install(TARGETS ${target} LIBRARY DESTINATION ${WEFT_PLUGIN_INSTALL_DIR}/${P_NAME})
  install(FILES ${CMAKE_CURRENT_SOURCE_DIR}/weft-plugin.yaml DESTINATION ${WEFT_PLUGIN_INSTALL_DIR}/${P_NAME})
endfunction()

# weft_add_plugin_folders(): add_subdirectory for every subfolder of the
# calling folder that has a CMakeLists.txt (plugins/, targets/: one plugin each).
function(weft_add_plugin_folders)
  file(GLOB children RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/*)
  foreach(child ${children})
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${child}/CMakeLists.txt)
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()

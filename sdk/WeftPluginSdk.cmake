# Building plugins out of tree against an installed weft (docs/sdk.md).
#
# weft_add_plugin(NAME <name> SOURCES <files...> [KIND <kind>] [MANIFEST <file>]
#                 [LIBS <libs...>])
#   A shared library linking only Weft::plugin_api, exporting only its entry
#   symbol (weft-plugin.map), placed with its manifest (MANIFEST, default weft-plugin.yaml of the
#   calling folder) in ${CMAKE_BINARY_DIR}/plugins/<name>/. KIND, when given,
#   must be the manifest's `kind:`. After each build the installed `weft`
#   loads it (`weft plugins --check <name>`), so a library that registers
#   other names than its manifest declares fails the build with the loader's
#   message. `cmake --install` puts both in <prefix>/lib/weft/plugins/<name>/,
#   where a weft installed at the same prefix finds them; elsewhere, point
#   weft at the folder with WEFT_PLUGIN_PATH or a run config's plugin_paths.
#
# weft_add_plugin_test(<test>...)
#   Runs the named CTest tests with the build tree's plugins in weft's search
#   path (WEFT_PLUGIN_PATH=${CMAKE_BINARY_DIR}/plugins).
include_guard(GLOBAL)
include(GNUInstallDirs)
# Beside this file: the linker script that exports a plugin's entry alone.
set(WEFT_PLUGIN_EXPORTS ${CMAKE_CURRENT_LIST_DIR}/weft-plugin.map)

function(weft_add_plugin)
  cmake_parse_arguments(P "" "NAME;KIND;MANIFEST" "SOURCES;LIBS" ${ARGN})
  if(NOT P_NAME OR NOT P_SOURCES)
    message(FATAL_ERROR "weft_add_plugin: NAME and SOURCES are required")
  endif()
  if(NOT P_MANIFEST)
    set(P_MANIFEST ${CMAKE_CURRENT_SOURCE_DIR}/weft-plugin.yaml)
  endif()
  if(NOT EXISTS ${P_MANIFEST})
    message(FATAL_ERROR "weft_add_plugin(${P_NAME}): no manifest ${P_MANIFEST} (docs/sdk.md shows one)")
  endif()
  # The manifest's name and kind, read as the loader reads them (one `key: value` line each).
  file(STRINGS ${P_MANIFEST} name_line REGEX "^name:")
  file(STRINGS ${P_MANIFEST} kind_line REGEX "^kind:")
  string(REGEX REPLACE "^name:[ \t]*\"?([^\" \t#]*).*" "\\1" manifest_name "${name_line}")
  string(REGEX REPLACE "^kind:[ \t]*\"?([^\" \t#]*).*" "\\1" manifest_kind "${kind_line}")
  if(NOT manifest_name STREQUAL P_NAME)
    message(FATAL_ERROR "weft_add_plugin(${P_NAME}): ${P_MANIFEST} names the plugin '${manifest_name}'")
  endif()
  if(P_KIND AND NOT manifest_kind STREQUAL P_KIND)
    message(FATAL_ERROR "weft_add_plugin(${P_NAME}): KIND is ${P_KIND} but ${P_MANIFEST} says kind: ${manifest_kind}")
  endif()

  set(target weft_plugin_${P_NAME})
  set(folder ${CMAKE_BINARY_DIR}/plugins/${P_NAME})
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE Weft::plugin_api ${P_LIBS})
  target_compile_features(${target} PRIVATE cxx_std_20)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME weft_${P_NAME}
    PREFIX lib
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${folder})
  target_link_options(${target} PRIVATE -Wl,--no-undefined -Wl,--version-script=${WEFT_PLUGIN_EXPORTS})
  configure_file(${P_MANIFEST} ${folder}/weft-plugin.yaml COPYONLY)
  if(TARGET Weft::weft)
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND ${CMAKE_COMMAND} -E env WEFT_PLUGIN_PATH=${CMAKE_BINARY_DIR}/plugins
              $<TARGET_FILE:Weft::weft> plugins --check ${P_NAME}
      COMMENT "Loading plugin ${P_NAME} with weft: its registrations against its manifest"
      VERBATIM)
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/weft/plugins/${P_NAME})
  install(FILES ${P_MANIFEST} DESTINATION ${CMAKE_INSTALL_LIBDIR}/weft/plugins/${P_NAME} RENAME weft-plugin.yaml)
endfunction()

function(weft_add_plugin_test)
  foreach(test ${ARGN})
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT WEFT_PLUGIN_PATH=${CMAKE_BINARY_DIR}/plugins)
  endforeach()
endfunction()

# weft_add_plugin(NAME <name> SOURCES <files...> [LIBS <libs...>]) for plugins
# built out of tree: a shared library linking only Weft::plugin_api, exporting
# only its entry symbol, placed with its manifest (weft-plugin.yaml from the
# calling folder) in ${CMAKE_BINARY_DIR}/plugins/<name>/. Point weft at it with
# WEFT_PLUGIN_PATH=${CMAKE_BINARY_DIR}/plugins or a run config's plugin_paths.
function(weft_add_plugin)
  cmake_parse_arguments(P "" "NAME" "SOURCES;LIBS" ${ARGN})
  set(target weft_plugin_${P_NAME})
  add_library(${target} MODULE ${P_SOURCES})
  target_link_libraries(${target} PRIVATE Weft::plugin_api ${P_LIBS})
  target_compile_features(${target} PRIVATE cxx_std_17)
  set_target_properties(${target} PROPERTIES
    OUTPUT_NAME weft_${P_NAME}
    PREFIX lib
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/plugins/${P_NAME})
  target_link_options(${target} PRIVATE -Wl,--no-undefined)
  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/weft-plugin.yaml
                 ${CMAKE_BINARY_DIR}/plugins/${P_NAME}/weft-plugin.yaml COPYONLY)
endfunction()

/* A library that forgot WEFT_PLUGIN_ENTRY: it exports something else. */
#include <weft/plugin.h>

WEFT_PLUGIN_EXPORT int weft_plugin_entry_misspelled(void) { return 0; }

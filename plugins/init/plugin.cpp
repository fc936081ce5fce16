// The init plugin: parameter initializers for create_workload.
#include "init.h"

WEFT_PLUGIN(reg) {
  weft_init::register_xavier(reg);
  weft_init::register_basic_initializers(reg);
}

// Placeholder until this family's ops land (issue 4).
#include "nn_ops.h"

namespace weft_nn {

void register_dense_ops(weft::sdk::Registrar&) {}

}  // namespace weft_nn

// Runs example.softplus on [0, 1, -1] through weft's interpreter and prints the
// result: the op is found through WEFT_PLUGIN_PATH and loaded on first use.
#include <weft/interpreter.h>

#include <cstdio>

int main() {
  using namespace weft;
  try {
    Tensor data = Tensor::empty({3}, DataType::Float(32));
    float* d = data.data_as<float>();
    d[0] = 0.0f, d[1] = 1.0f, d[2] = -1.0f;
    Value out = evaluate(call("example.softplus", {constant(data)}));
    const float* o = out.tensor().data_as<float>();
    std::printf("%.6f %.6f %.6f\n", o[0], o[1], o[2]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

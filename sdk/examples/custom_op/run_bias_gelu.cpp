// A program embedding weft: runs acme.bias_gelu on [0.5, -0.5, 1, -2] plus a
// bias of 0.5 through weft's interpreter and prints the result. The op's
// plugin is found through WEFT_PLUGIN_PATH and loaded on first use.
#include <weft/interpreter.h>

#include <cstdio>

int main() {
  using namespace weft;
  try {
    Tensor data = Tensor::empty({1, 4}, DataType::Float(32)), bias = Tensor::empty({4}, DataType::Float(32));
    const float x[] = {0.5f, -0.5f, 1.0f, -2.0f};
    for (int i = 0; i < 4; ++i) data.data_as<float>()[i] = x[i], bias.data_as<float>()[i] = 0.5f;
    Value out = evaluate(call("acme.bias_gelu", {constant(data), constant(bias)}));
    const float* o = out.tensor().data_as<float>();
    std::printf("%.6f %.6f %.6f %.6f\n", o[0], o[1], o[2], o[3]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}

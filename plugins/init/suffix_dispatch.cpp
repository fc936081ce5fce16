// Name-suffix dispatch and the element stores shared by every initializer.
#include <weft/sdk/float_convert.hpp>

#include "init.h"

namespace weft_init {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void* raw_data(const sdk::TensorView& out) { return static_cast<char*>(out.dl().data) + out.dl().byte_offset; }

template <typename T>
void fill_as(const sdk::TensorView& out, T value) {
  T* data = out.data<T>();
  for (int64_t i = 0; i < out.numel(); ++i) data[i] = value;
}

}  // namespace

sdk::InitializerBuilder::Fill dispatch_on_suffix(WeightRule weight) {
  return [weight = std::move(weight)](const std::string& name, const sdk::TensorView& out) {
    // The reference's order matters: "moving_mean" ends in "mean", "gamma_bias" in "bias".
    if (ends_with(name, "weight")) weight(name, out);
    else if (ends_with(name, "bias")) fill_value(out, 0.0);
    else if (ends_with(name, "gamma")) fill_value(out, 1.0);
    else if (ends_with(name, "beta")) fill_value(out, 0.0);
    else if (ends_with(name, "mean")) fill_value(out, 0.0);
    else if (ends_with(name, "var")) fill_value(out, 1.0);
    else {
      throw sdk::Error("unknown initialization pattern for " + name +
                       ": the name must end in weight, bias, gamma (1.0), beta (0.0), mean (0.0) or var (1.0)");
    }
  };
}

void fill_value(const sdk::TensorView& out, double value) {
  const DLDataType t = out.dtype();
  if (sdk::is_storable_float(t)) {
    void* data = raw_data(out);
    for (int64_t i = 0; i < out.numel(); ++i) sdk::store_float(data, t, i, value);
    return;
  }
  if (t.lanes == 1 && t.code == kDLUInt && t.bits == 1) return fill_as<uint8_t>(out, value != 0.0);
  if (t.lanes == 1 && t.code == kDLInt) {
    switch (t.bits) {
      case 8: return fill_as<int8_t>(out, static_cast<int8_t>(value));
      case 16: return fill_as<int16_t>(out, static_cast<int16_t>(value));
      case 32: return fill_as<int32_t>(out, static_cast<int32_t>(value));
      case 64: return fill_as<int64_t>(out, static_cast<int64_t>(value));
    }
  }
  if (t.lanes == 1 && t.code == kDLUInt) {
    switch (t.bits) {
      case 8: return fill_as<uint8_t>(out, static_cast<uint8_t>(value));
      case 16: return fill_as<uint16_t>(out, static_cast<uint16_t>(value));
      case 32: return fill_as<uint32_t>(out, static_cast<uint32_t>(value));
      case 64: return fill_as<uint64_t>(out, static_cast<uint64_t>(value));
    }
  }
  throw sdk::Error("cannot fill a tensor of " + sdk::dtype_name(t), WEFT_STATUS_UNSUPPORTED);
}

void fill_random(const std::string& initializer, const std::string& name, const sdk::TensorView& out,
                 const std::function<double()>& draw) {
  const DLDataType t = out.dtype();
  if (!sdk::is_storable_float(t)) {
    throw sdk::Error(initializer + " draws floating-point weights; " + name + " is " + sdk::dtype_name(t));
  }
  void* data = raw_data(out);
  for (int64_t i = 0; i < out.numel(); ++i) sdk::store_float(data, t, i, draw());
}

std::shared_ptr<sdk::NumpyRandomState> seeded_state(const std::string& initializer, uint64_t seed) {
  if (seed > 0xffffffffULL) {
    throw sdk::Error(initializer + ": seed " + std::to_string(seed) +
                     " is out of range; NumPy's legacy generator takes seeds from 0 to 2**32 - 1");
  }
  return std::make_shared<sdk::NumpyRandomState>(static_cast<uint32_t>(seed));
}

}  // namespace weft_init

// The ResNet of relay.testing.resnet (2D) and relay.testing.resnet_3d (3D):
// the configuration get_net picks from num_layers and the image height, and
// the network resnet() builds from it.
#pragma once

#include "model_builder.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft::models::resnet {

/// Units per stage, channels (stem first, then one per stage), bottleneck.
struct Plan {
  std::vector<int64_t> units;
  std::vector<int64_t> filter_list;
  bool bottle_neck = true;
};

/// get_net's table: three stages of (num_layers-2)/9 bottleneck units
/// (num_layers >= 164) or (num_layers-2)/6 basic units (< 164) for images at
/// most 28 high; else four stages for 18, 34, 50, 101, 152, 200 or 269
/// layers. Error "no experiments done on num_layers N" otherwise.
Plan plan(int64_t num_layers, int64_t height);

/// What differs between the 2D and the 3D network.
struct Flavor {
  size_t dims;                     // spatial axes: 2 or 3
  std::string layout;              // the data layout: NCHW/NHWC, NCDHW/NDHWC
  std::string kernel_layout;       // OIHW/HWIO, OIDHW/DHWIO
  std::optional<int64_t> bn_axis;  // 2D passes the layout's C axis; 3D leaves batch_norm's default
};

/// resnet(): the whole network as a Function of its free variables.
sdk::Expr build(const Flavor& flavor, const Plan& plan, const std::vector<int64_t>& data_shape,
                DLDataType dtype, int64_t num_classes);

}  // namespace weft::models::resnet

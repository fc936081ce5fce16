// The resnet and resnet_3d families: their arguments, named variants and the
// checks get_net makes before building.
#include "resnet_builder.h"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
namespace resnet = weft::models::resnet;

/// The image height: image_shape is (C, H, W) / (H, W, C), or in 3D
/// (C, D, H, W) / (D, H, W, C); the data layout's H, less the batch axis.
int64_t image_height(const std::vector<int64_t>& image_shape, const std::string& layout) {
  return image_shape[layout.find('H') - 1];
}

sdk::Expr build(const sdk::Attrs& p, size_t dims) {
  std::string layout = p.get_string("layout");
  std::vector<int64_t> image_shape = p.get_ints("image_shape");
  resnet::Flavor flavor;
  flavor.dims = dims;
  flavor.layout = layout;
  if (dims == 2) {
    flavor.kernel_layout = layout == "NCHW" ? "OIHW" : "HWIO";
    flavor.bn_axis = static_cast<int64_t>(layout.find('C'));
  } else {
    flavor.kernel_layout = layout == "NCDHW" ? "OIDHW" : "DHWIO";
  }
  resnet::Plan plan = resnet::plan(p.get_int("num_layers"), image_height(image_shape, layout));
  return resnet::build(flavor, plan, models::batch_shape(p.get_int("batch_size"), image_shape), p.get_dtype("dtype"),
                       p.get_int("num_classes"));
}

void declare(sdk::Registrar& reg, const std::string& name, size_t dims) {
  const bool is_2d = dims == 2;
  std::vector<std::string> layouts = is_2d ? std::vector<std::string>{"NCHW", "NHWC"}
                                           : std::vector<std::string>{"NCDHW", "NDHWC"};
  reg.model(name)
      .describe(is_2d ? "ResNet v2, pre-activation (relay.testing.resnet): 18, 34, 50, 101, 152, 200 or 269 "
                        "layers on ImageNet-sized images; (n-2)/6 basic or (n-2)/9 bottleneck units per stage on "
                        "images at most 28 high."
                      : "3D ResNet for action recognition (relay.testing.resnet_3d), the 2D network's structure "
                        "with conv3d.")
      .param("batch_size", int64_t{1}, "The batch size.")
      .normalize(models::positive_int("batch_size"))
      .param("num_classes", int64_t{1000}, "Number of classes.")
      .normalize(models::positive_int("num_classes"))
      .param("num_layers", int64_t{18}, "Number of layers.",
             "18, 34, 50, 101, 152, 200 or 269; or for small images 6k+2 (< 164) or 9k+2 (>= 164)")
      .param("image_shape", is_2d ? std::vector<int64_t>{3, 224, 224} : std::vector<int64_t>{3, 16, 112, 112},
             is_2d ? "The input image shape, in the layout's order without the batch." :
                     "The input clip shape, in the layout's order without the batch.",
             is_2d ? "3 positive ints, e.g. 3x224x224" : "4 positive ints, e.g. 3x16x112x112")
      .normalize(models::positive_ints("image_shape", dims + 1))
      .param("layout", layouts[0], "The data layout.", layouts[0] + " or " + layouts[1])
      .normalize(models::one_of("layout", layouts))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .variant("{num_layers}", {}, "num_layers, e.g. " + name + "-18, " + name + "-50")
      .build([dims](const sdk::Attrs& p) { return build(p, dims); });
}

}  // namespace

WEFT_PLUGIN(reg) {
  declare(reg, "resnet", 2);
  declare(reg, "resnet_3d", 3);
}

// The pre-activation ResNet of relay.testing.resnet and resnet_3d, built as
// the reference builds it: the same layer names, attrs and order, so the
// parameters come out named, shaped and ordered as the reference's.
#include "resnet_builder.h"

namespace weft::models::resnet {

namespace {

using sdk::Expr;
namespace layers = sdk::layers;

std::vector<int64_t> same(size_t dims, int64_t v) { return std::vector<int64_t>(dims, v); }

class Net {
 public:
  explicit Net(const Flavor& f) : f_(f) {}

  Expr batch_norm(const Expr& data, const std::string& name, bool scale = true) const {
    sdk::AttrList attrs;
    if (f_.bn_axis) attrs.emplace_back("axis", *f_.bn_axis);
    attrs.emplace_back("epsilon", 2e-5);
    if (!scale) attrs.emplace_back("scale", false);
    return layers::batch_norm_infer(data, name, attrs);
  }

  Expr conv(const Expr& data, const std::string& name, int64_t channels, std::vector<int64_t> kernel,
            std::vector<int64_t> strides, std::optional<std::vector<int64_t>> padding) const {
    sdk::AttrList attrs{{"channels", channels}, {"kernel_size", std::move(kernel)}, {"strides", std::move(strides)}};
    if (padding) attrs.emplace_back("padding", std::move(*padding));
    attrs.emplace_back("data_layout", f_.layout);
    attrs.emplace_back("kernel_layout", f_.kernel_layout);
    return f_.dims == 2 ? layers::conv2d(data, name, attrs) : layers::conv3d(data, name, attrs);
  }

  Expr relu(const Expr& x) const { return sdk::call("nn.relu", {x}); }

  /// residual_unit(): bn-relu-conv twice (basic) or three times with a 1/4
  /// wide bottleneck; the shortcut is the input, or a 1x1 conv of the first
  /// activation when the shape changes.
  Expr residual_unit(const Expr& data, int64_t num_filter, int64_t stride, bool dim_match, const std::string& name,
                     bool bottle_neck) const {
    const size_t n = f_.dims;
    Expr act1 = relu(batch_norm(data, name + "_bn1"));
    Expr out;
    if (bottle_neck) {
      Expr conv1 = conv(act1, name + "_conv1", num_filter / 4, same(n, 1), same(n, stride), same(n, 0));
      Expr act2 = relu(batch_norm(conv1, name + "_bn2"));
      Expr conv2 = conv(act2, name + "_conv2", num_filter / 4, same(n, 3), same(n, 1), same(n, 1));
      Expr act3 = relu(batch_norm(conv2, name + "_bn3"));
      out = conv(act3, name + "_conv3", num_filter, same(n, 1), same(n, 1), same(n, 0));
    } else {
      Expr conv1 = conv(act1, name + "_conv1", num_filter, same(n, 3), same(n, stride), same(n, 1));
      Expr act2 = relu(batch_norm(conv1, name + "_bn2"));
      out = conv(act2, name + "_conv2", num_filter, same(n, 3), same(n, 1), same(n, 1));
    }
    Expr shortcut =
        dim_match ? data : conv(act1, name + "_sc", num_filter, same(n, 1), same(n, stride), std::nullopt);
    return sdk::call("add", {out, shortcut});
  }

  /// The stem: a 3x3 conv for images at most 32 high (cifar10); else the
  /// ImageNet stem (7x7/2 conv, bn, relu and, in 2D, a 3x3/2 max pool; 3D
  /// keeps depth with a (3, 7, 7) kernel strided (1, 2, 2) and no pool).
  Expr stem(const Expr& data, int64_t channels, int64_t height) const {
    const size_t n = f_.dims;
    if (height <= 32) return conv(data, "conv0", channels, same(n, 3), same(n, 1), same(n, 1));
    Expr body = n == 2 ? conv(data, "conv0", channels, {7, 7}, {2, 2}, std::vector<int64_t>{3, 3})
                       : conv(data, "conv0", channels, {3, 7, 7}, {1, 2, 2}, std::vector<int64_t>{1, 3, 3});
    body = relu(batch_norm(body, "bn0"));
    if (n == 2) {
      body = sdk::call("nn.max_pool2d", {body},
                       {{"pool_size", std::vector<int64_t>{3, 3}},
                        {"strides", std::vector<int64_t>{2, 2}},
                        {"padding", std::vector<int64_t>{1, 1}},
                        {"layout", f_.layout}});
    }
    return body;
  }

  Expr head(const Expr& body, int64_t num_classes) const {
    Expr relu1 = relu(batch_norm(body, "bn1"));
    // relay.nn.global_avg_pool3d is a Python wrapper over adaptive_avg_pool3d
    // with output_size (1, 1, 1); the graph holds the latter.
    Expr pool1 = f_.dims == 2 ? sdk::call("nn.global_avg_pool2d", {relu1}, {{"layout", f_.layout}})
                              : sdk::call("nn.adaptive_avg_pool3d", {relu1},
                                          {{"output_size", std::vector<int64_t>{1, 1, 1}}, {"layout", f_.layout}});
    Expr flat = sdk::call("nn.batch_flatten", {pool1});
    Expr fc1 = layers::dense_add_bias(flat, "fc1", {{"units", num_classes}});
    return sdk::call("nn.softmax", {fc1});
  }

 private:
  const Flavor& f_;
};

}  // namespace

Plan plan(int64_t num_layers, int64_t height) {
  auto no_experiments = [&] { return sdk::Error("no experiments done on num_layers " + std::to_string(num_layers)); };
  Plan p;
  if (height <= 28) {
    int64_t per_unit = 0;
    if ((num_layers - 2) % 9 == 0 && num_layers >= 164) {
      per_unit = (num_layers - 2) / 9;
      p.filter_list = {16, 64, 128, 256};
      p.bottle_neck = true;
    } else if ((num_layers - 2) % 6 == 0 && num_layers < 164) {
      per_unit = (num_layers - 2) / 6;
      p.filter_list = {16, 16, 32, 64};
      p.bottle_neck = false;
    } else {
      throw no_experiments();
    }
    // As in the reference, a stage always gets its first unit, so 2 (or a
    // negative depth that divides) still builds one unit per stage.
    p.units.assign(3, per_unit);
    return p;
  }
  if (num_layers >= 50) {
    p.filter_list = {64, 256, 512, 1024, 2048};
    p.bottle_neck = true;
  } else {
    p.filter_list = {64, 64, 128, 256, 512};
    p.bottle_neck = false;
  }
  switch (num_layers) {
    case 18: p.units = {2, 2, 2, 2}; break;
    case 34: p.units = {3, 4, 6, 3}; break;
    case 50: p.units = {3, 4, 6, 3}; break;
    case 101: p.units = {3, 4, 23, 3}; break;
    case 152: p.units = {3, 8, 36, 3}; break;
    case 200: p.units = {3, 24, 36, 3}; break;
    case 269: p.units = {3, 30, 48, 8}; break;
    default: throw no_experiments();
  }
  return p;
}

sdk::Expr build(const Flavor& flavor, const Plan& plan, const std::vector<int64_t>& data_shape, DLDataType dtype,
                int64_t num_classes) {
  Net net(flavor);
  Expr data = sdk::var("data", sdk::Type::tensor(data_shape, dtype));
  data = net.batch_norm(data, "bn_data", /*scale=*/false);
  int64_t height = data_shape[flavor.layout.find('H')];
  Expr body = net.stem(data, plan.filter_list[0], height);
  for (size_t i = 0; i < plan.units.size(); ++i) {
    int64_t filters = plan.filter_list[i + 1];
    std::string stage = "stage" + std::to_string(i + 1) + "_unit";
    body = net.residual_unit(body, filters, i == 0 ? 1 : 2, false, stage + "1", plan.bottle_neck);
    for (int64_t j = 0; j < plan.units[i] - 1; ++j) {
      body = net.residual_unit(body, filters, 1, true, stage + std::to_string(j + 2), plan.bottle_neck);
    }
  }
  return function_of_free_vars(net.head(body, num_classes));
}

}  // namespace weft::models::resnet

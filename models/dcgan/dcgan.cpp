// dcgan: the generator of relay.testing.dcgan (Radford et al. 2015): a dense
// layer from the random code to 4x4 maps, then transposed convolutions that
// double the size up to 64x64, each but the last with batch norm and relu.
#include <array>

#include "model_builder.hpp"

namespace {

namespace sdk = weft::sdk;
namespace models = weft::models;
using sdk::Expr;

/// deconv2d(): a 4x4/2 transposed conv to `channels` maps of `target` size,
/// padding (k-1)/2 and the output_padding that makes the size exact.
Expr deconv2d(const Expr& data, const std::string& name, int64_t channels, std::array<int64_t, 2> target,
              const std::string& layout) {
  const std::array<int64_t, 2> kernel{4, 4}, stride{2, 2};
  std::vector<int64_t> pad(2), adj(2);
  for (size_t i = 0; i < 2; ++i) {
    pad[i] = (kernel[i] - 1) / 2;
    adj[i] = (target[i] + 2 * pad[i] - kernel[i]) % stride[i];
  }
  return sdk::layers::conv2d_transpose(data, name,
                                       {{"channels", channels},
                                        {"kernel_size", std::vector<int64_t>{kernel[0], kernel[1]}},
                                        {"strides", std::vector<int64_t>{stride[0], stride[1]}},
                                        {"padding", pad},
                                        {"output_padding", adj},
                                        {"data_layout", layout},
                                        {"kernel_layout", std::string(layout == "NCHW" ? "IOHW" : "HWOI")}});
}

/// deconv2d_bn_relu(): the deconv `<prefix>_deconv`, batch norm
/// `<prefix>_batch_norm` without scale, relu.
Expr deconv2d_bn_relu(const Expr& data, const std::string& prefix, int64_t channels, int64_t size,
                      const std::string& layout) {
  Expr net = deconv2d(data, prefix + "_deconv", channels, {size, size}, layout);
  net = sdk::layers::batch_norm_infer(net, prefix + "_batch_norm",
                                      {{"axis", static_cast<int64_t>(layout.find('C'))},
                                       {"epsilon", 1e-5 + 1e-12},
                                       {"scale", false}});
  return sdk::call("nn.relu", {net});
}

Expr build_dcgan(const sdk::Attrs& p) {
  std::vector<int64_t> oshape = p.get_ints("oshape");
  if (oshape[oshape.size() - 1] != 64 || oshape[oshape.size() - 2] != 64) {
    throw sdk::Error("Only support 64x64 image (oshape is " + std::to_string(oshape[oshape.size() - 2]) + "x" +
                     std::to_string(oshape[oshape.size() - 1]) + ")");
  }
  const int64_t ngf = p.get_int("ngf");
  const std::string layout = p.get_string("layout");
  Expr code = sdk::var("data", sdk::Type::tensor({p.get_int("batch_size"), p.get_int("random_len")},
                                                 p.get_dtype("dtype")));
  Expr dense = sdk::call("nn.dense", {code, sdk::var("dense_weight")}, {{"units", 4 * 4 * ngf * 8}});
  Expr relu = sdk::call("nn.relu", {dense});
  std::vector<int64_t> newshape = layout == "NCHW" ? std::vector<int64_t>{-1, ngf * 8, 4, 4}
                                                   : std::vector<int64_t>{-1, 4, 4, ngf * 8};
  Expr net = sdk::call("reshape", {relu}, {{"newshape", newshape}});
  net = deconv2d_bn_relu(net, "g2", ngf * 4, 8, layout);
  net = deconv2d_bn_relu(net, "g3", ngf * 2, 16, layout);
  net = deconv2d_bn_relu(net, "g4", ngf, 32, layout);
  // oshape[-3:] is (channels, height, width) in either layout.
  net = deconv2d(net, "g5_deconv", oshape[oshape.size() - 3], {oshape[oshape.size() - 2], oshape.back()}, layout);
  return models::function_of_free_vars(sdk::call("tanh", {net}));
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.model("dcgan")
      .describe("The DCGAN generator (relay.testing.dcgan): dense to 4x4x(8 ngf), then 4x4/2 transposed convs "
                "with batch norm and relu to 8, 16 and 32, a last one to the 64x64 image, and tanh.")
      .param("batch_size", int64_t{1}, "The batch size (the reference has no default; weft takes 1).")
      .normalize(models::positive_int("batch_size"))
      .param("oshape", std::vector<int64_t>{3, 64, 64}, "The output image shape (channels, height, width).",
             "3 positive ints, 64 high and wide, e.g. 3x64x64")
      .normalize(models::positive_ints("oshape", 3))
      .param("ngf", int64_t{128}, "The number of final feature maps in the generator.")
      .normalize(models::positive_int("ngf"))
      .param("random_len", int64_t{100}, "The length of the random code.")
      .normalize(models::positive_int("random_len"))
      .param("layout", std::string("NCHW"), "The layout of the transposed convolutions.", "NCHW or NHWC")
      .normalize(models::one_of("layout", {"NCHW", "NHWC"}))
      .param("dtype", sdk::dtype::float32, "The data type.")
      .build(build_dcgan);
}

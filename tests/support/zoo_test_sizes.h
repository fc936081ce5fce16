// Every zoo model family at the small size its tests run, for the suites that
// run whole models through the compiler (-O3 in tests/pipeline, every target
// in tests/conformance).
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace weft::testing {

/// Model specs (parse_model_spec's form): the sizes the families' own tests
/// run, or smaller images where those run the full size (densenet's final 7x7
/// pooling needs 224x224). Every family but inception_v3: its 8x8 pooling
/// needs 299x299 images, over a minute on the interpreter.
inline const std::vector<std::string>& zoo_test_specs() {
  static const std::vector<std::string> specs = {"mlp",
                                                 "dqn",
                                                 "dcgan:ngf=16",
                                                 "lstm:iterations=3,num_hidden=4",
                                                 "mobilenet:alpha=0.25,image_shape=3x32x32,num_classes=10",
                                                 "squeezenet-1.1:image_shape=3x32x32,num_classes=10",
                                                 "vgg-11-bn:image_shape=3x32x32,num_classes=10",
                                                 "resnet-18:image_shape=3x32x32,num_classes=10",
                                                 "densenet-121:batch_size=1,classes=10",
                                                 "synthetic"};
  return specs;
}

/// A GoogleTest name for the spec at `index`: its family, "resnet_18_7".
inline std::string zoo_test_name(const std::string& spec, size_t index) {
  std::string name = spec.substr(0, spec.find(':'));
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name + "_" + std::to_string(index);
}

}  // namespace weft::testing

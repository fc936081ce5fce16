"""The PyTorch networks that stand beside weft's zoo models (models/): a
torchvision network where it has the zoo's graph, otherwise the zoo's graph
rebuilt here, or the nearest torchvision network with the difference named."""

from dataclasses import dataclass
from typing import Callable

# The lstm's size: 3 steps, as the "3-step lstm"; a hidden state small
# enough that the run is bound by dispatch, not by arithmetic.
LSTM_STEPS = 3
LSTM_HIDDEN = 128


@dataclass(frozen=True)
class ZooPeer:
    name: str  # how the table names it
    weft_spec: str  # what `weft bench` takes (batch 1)
    peer_net: str  # what the PyTorch side runs
    differences: str  # how its graph differs from weft's ("" when it has the same layers)
    build: Callable  # () -> torch.nn.Module taking the weft program's inputs in order


def _torchvision(factory, **kwargs):
    def build():
        import torchvision

        return getattr(torchvision.models, factory)(weights=None, **kwargs)

    return build


def _mobilenet_v1():
    """relay.testing.mobilenet at alpha 1: a 3x3/2 conv, 13 depthwise
    separable blocks (depthwise 3x3 then pointwise 1x1, each without bias,
    with batch norm and relu), global average pooling and a dense layer."""
    import torch.nn as nn

    def conv_bn_relu(cin, cout, kernel, stride, groups):
        return [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
                nn.BatchNorm2d(cout, eps=1e-5), nn.ReLU()]

    # (input channels, output channels, stride of the depthwise conv)
    blocks = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2)]
    blocks += [(512, 512, 1)] * 5 + [(512, 1024, 2), (1024, 1024, 1)]
    layers = conv_bn_relu(3, 32, 3, 2, 1)
    for cin, cout, stride in blocks:
        layers += conv_bn_relu(cin, cin, 3, stride, cin) + conv_bn_relu(cin, cout, 1, 1, 1)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1024, 1000)]
    return nn.Sequential(*layers)


def _mlp():
    """relay.testing.mlp: 784 -> 128 -> 64 -> 10 with relu between."""
    import torch.nn as nn

    return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def _lstm():
    """relay.testing.lstm: per step its own i2h and h2h dense layers of
    4 * hidden units, their sum split into the input, forget, transform and
    output gates; the state starts at zeros; returns the last hidden state."""
    import torch
    import torch.nn as nn

    class UnrolledLstm(nn.Module):
        def __init__(self):
            super().__init__()
            self.i2h = nn.ModuleList(nn.Linear(LSTM_HIDDEN, 4 * LSTM_HIDDEN) for _ in range(LSTM_STEPS))
            self.h2h = nn.ModuleList(nn.Linear(LSTM_HIDDEN, 4 * LSTM_HIDDEN) for _ in range(LSTM_STEPS))

        def forward(self, *steps):
            h = torch.zeros(steps[0].shape[0], LSTM_HIDDEN)
            c = torch.zeros_like(h)
            for x, i2h, h2h in zip(steps, self.i2h, self.h2h):
                in_gate, forget_gate, transform, out_gate = (i2h(x) + h2h(h)).chunk(4, dim=1)
                c = torch.sigmoid(forget_gate) * c + torch.sigmoid(in_gate) * torch.tanh(transform)
                h = torch.sigmoid(out_gate) * torch.tanh(c)
            return h

    return UnrolledLstm()


RESNET_V1 = ("torchvision's ResNet is v1 (batch norm and relu after each conv); weft's zoo, as "
             "relay.testing.resnet, is v2 (pre-activation: batch norm and relu before each conv)")

SQUEEZENET = ("torchvision's SqueezeNet does not pad its first conv (relay.testing's pads 3 for 1.0, 1 for 1.1) and its max "
              "pools round up (ceil_mode), so its feature maps differ by a pixel")

ZOO_PEERS = [
    ZooPeer("resnet-18", "resnet-18", "torchvision resnet18", RESNET_V1, _torchvision("resnet18")),
    ZooPeer("resnet-50", "resnet-50", "torchvision resnet50", RESNET_V1, _torchvision("resnet50")),
    ZooPeer("vgg-16", "vgg-16", "torchvision vgg16", "", _torchvision("vgg16")),
    ZooPeer("inception_v3", "inception_v3", "torchvision inception_v3 without its auxiliary head, at 299x299", "",
            _torchvision("inception_v3", aux_logits=False, init_weights=False)),
    ZooPeer("mobilenet", "mobilenet", "MobileNet v1 rebuilt in torch", "", _mobilenet_v1),
    ZooPeer("squeezenet-1.0", "squeezenet-1.0", "torchvision squeezenet1_0", SQUEEZENET,
            _torchvision("squeezenet1_0")),
    ZooPeer("squeezenet-1.1", "squeezenet-1.1", "torchvision squeezenet1_1", SQUEEZENET,
            _torchvision("squeezenet1_1")),
    ZooPeer("densenet-121", "densenet-121:batch_size=1", "torchvision densenet121",
            "torchvision's dense layers read every earlier layer's output of their block; weft's, as "
            "relay.testing.densenet, read only the previous layer's (a block concatenates at its end)",
            _torchvision("densenet121")),
    ZooPeer("mlp", "mlp", "the zoo's mlp in torch", "", _mlp),
    ZooPeer(f"lstm ({LSTM_STEPS} steps)", f"lstm:iterations={LSTM_STEPS},num_hidden={LSTM_HIDDEN}",
            "the zoo's unrolled lstm in torch", "", _lstm),
]

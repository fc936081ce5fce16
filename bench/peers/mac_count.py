"""Multiply-accumulates of a PyTorch network, counted the way `weft bench
--json` counts a weft program's `macs` (tools/weft/model_cost.cpp): every
convolution and matrix product, nothing else."""

import math


def conv_macs(out_shape, in_channels, groups, kernel_size):
    """Each output element of a convolution reads in_channels / groups input
    channels over the kernel window."""
    return math.prod(out_shape) * (in_channels // groups) * math.prod(kernel_size)


def dense_macs(out_shape, in_features):
    """Each output element of x @ W.T is a sum of in_features products."""
    return math.prod(out_shape) * in_features


def count_torch_macs(model, inputs):
    """Runs `model` once on `inputs` (a tuple) and sums the MACs of its
    nn.Conv1d/2d/3d and nn.Linear calls, each call as often as it runs."""
    import torch

    total = 0

    def on_conv(module, _args, out):
        nonlocal total
        total += conv_macs(out.shape, module.in_channels, module.groups, module.kernel_size)

    def on_linear(module, _args, out):
        nonlocal total
        total += dense_macs(out.shape, module.in_features)

    hooks = []
    for module in model.modules():
        if isinstance(module, (torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.Conv3d)):
            hooks.append(module.register_forward_hook(on_conv))
        elif isinstance(module, torch.nn.Linear):
            hooks.append(module.register_forward_hook(on_linear))
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for hook in hooks:
            hook.remove()
    return total

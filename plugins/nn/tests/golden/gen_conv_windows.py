#!/usr/bin/python3
"""Golden cases for the convolution windows the other conv files leave out:
conv1d/conv3d and the transposed convs with groups, dilation, strides,
asymmetric padding and output_padding together, float32, with a NumPy
oracle written from the ops' definitions (TVM's topi conv and
conv_transpose: a transposed conv scatters x[n, c, i] * w[c, o', k] onto
y[n, group(c) * O' + o', i * stride - pad_before + k * dilation], weight
(in_channels, channels / groups, k...), output_padding extending the end).

Run once with Debian's python3 (python3-numpy):
    /usr/bin/python3 gen_conv_windows.py   # writes conv_windows.json beside it
"""
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(23)
HERE = os.path.dirname(os.path.abspath(__file__))


def relayout(a, canonical, layout):
    """A canonical-order array (NCHW, OIHW, IOHW, ...) in the plain permutation `layout`."""
    return np.ascontiguousarray(a.transpose([canonical.index(c) for c in layout]))


def conv(x, w, strides, pad_before, pad_after, dilation, groups):
    """y[n, o, p] = sum over the group's channels c and taps k of
    x_padded[n, c, p * stride + k * dilation] * w[o, c, k]."""
    dims = x.ndim - 2
    xp = np.pad(x, [(0, 0), (0, 0)] + list(zip(pad_before, pad_after)))
    out_c, in_per_group = w.shape[0], w.shape[1]
    out_per_group = out_c // groups
    kernel = w.shape[2:]
    out = [(xp.shape[2 + i] - (kernel[i] - 1) * dilation[i] - 1) // strides[i] + 1 for i in range(dims)]
    y = np.zeros((x.shape[0], out_c) + tuple(out))
    for g in range(groups):
        xs = xp[:, g * in_per_group:(g + 1) * in_per_group]
        ws = w[g * out_per_group:(g + 1) * out_per_group]
        for k in itertools.product(*[range(n) for n in kernel]):
            window = tuple(slice(k[i] * dilation[i], k[i] * dilation[i] + (out[i] - 1) * strides[i] + 1, strides[i])
                           for i in range(dims))
            y[:, g * out_per_group:(g + 1) * out_per_group] += np.einsum(
                "nc...,oc->no...", xs[(slice(None), slice(None)) + window], ws[(slice(None), slice(None)) + k])
    return y


def conv_transpose(x, w, strides, pad_before, pad_after, output_padding, dilation, groups):
    """Each x[n, c, i] adds x * w[c, o', k] at i * stride + k * dilation of
    the unpadded result, which is then cropped by the padding (output_padding
    rows past the end stay as computed, zero where nothing lands)."""
    dims = x.ndim - 2
    in_c, out_per_group = w.shape[0], w.shape[1]
    in_per_group = in_c // groups
    kernel = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dilation[i] + 1 for i in range(dims)]
    out = [full[i] - pad_before[i] - pad_after[i] + output_padding[i] for i in range(dims)]
    span = [max(full[i], pad_before[i] + out[i]) for i in range(dims)]
    y = np.zeros((x.shape[0], out_per_group * groups) + tuple(span))
    for g in range(groups):
        xs = x[:, g * in_per_group:(g + 1) * in_per_group]
        ws = w[g * in_per_group:(g + 1) * in_per_group]
        for k in itertools.product(*[range(n) for n in kernel]):
            window = tuple(slice(k[i] * dilation[i], k[i] * dilation[i] + (x.shape[2 + i] - 1) * strides[i] + 1,
                                 strides[i]) for i in range(dims))
            y[(slice(None), slice(g * out_per_group, (g + 1) * out_per_group)) + window] += np.einsum(
                "nc...,co->no...", xs, ws[(slice(None), slice(None)) + k])
    crop = tuple(slice(pad_before[i], pad_before[i] + out[i]) for i in range(dims))
    return y[(slice(None), slice(None)) + crop]


SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def window_case(name, op, xshape, wshape, attrs, data_layout=None, kernel_layout=None):
    """A case of `op` on random float32 data and weights in canonical shapes
    (NC..., and OI... or, transposed, IO...), stored in the given layouts."""
    dims = len(xshape) - 2
    transposed = op.endswith("_transpose")
    x = rng.standard_normal(xshape).astype("float32")
    w = rng.standard_normal(wshape).astype("float32")
    padding = attrs.get("padding", [0] * 2 * dims)
    args = (attrs.get("strides", [1] * dims), padding[:dims], padding[dims:])
    dilation, groups = attrs.get("dilation", [1] * dims), attrs.get("groups", 1)
    if transposed:
        y = conv_transpose(x.astype("float64"), w.astype("float64"), *args, attrs.get("output_padding", [0] * dims),
                           dilation, groups)
    else:
        y = conv(x.astype("float64"), w.astype("float64"), *args, dilation, groups)
    data_canon = "NC" + SPATIAL[dims]
    kernel_canon = ("IO" if transposed else "OI") + SPATIAL[dims]
    attrs = dict(attrs)
    if data_layout:
        attrs["data_layout"] = data_layout
        x, y = relayout(x, data_canon, data_layout), relayout(y, data_canon, data_layout)
    if kernel_layout:
        attrs["kernel_layout"] = kernel_layout
        w = relayout(w, kernel_canon, kernel_layout)
    return case(name, op, attrs, [x, w], y.astype("float32"))


cases = [
    window_case("conv1d_groups3_stride2_dilation2_asym_pad", "nn.conv1d", (2, 6, 11), (9, 2, 3),
                {"strides": [2], "padding": [2, 1], "dilation": [2], "groups": 3}),
    window_case("conv1d_depthwise_nwc_wio_dilation3", "nn.conv1d", (1, 4, 10), (4, 1, 3),
                {"padding": [3, 0], "dilation": [3], "groups": 4}, "NWC", "WIO"),
    window_case("conv3d_groups2_stride_dilation_asym_pad", "nn.conv3d", (1, 4, 5, 6, 7), (6, 2, 2, 3, 2),
                {"strides": [1, 2, 2], "padding": [0, 1, 1, 1, 0, 2], "dilation": [2, 1, 3], "groups": 2}),
    window_case("conv1d_transpose_groups2_stride3_dilation2_outpad2", "nn.conv1d_transpose", (2, 4, 5), (4, 3, 3),
                {"strides": [3], "padding": [1, 2], "output_padding": [2], "dilation": [2], "groups": 2}),
    window_case("conv2d_transpose_groups2_dilation_outpad_asym_pad", "nn.conv2d_transpose", (1, 4, 4, 5), (4, 3, 3, 2),
                {"strides": [2, 3], "padding": [1, 0, 2, 1], "output_padding": [1, 2], "dilation": [2, 1],
                 "groups": 2}),
    window_case("conv2d_transpose_depthwise_nhwc_hwoi_outpad", "nn.conv2d_transpose", (1, 3, 4, 4), (3, 1, 3, 3),
                {"strides": [2, 2], "padding": [1, 1, 1, 1], "output_padding": [1, 0], "groups": 3}, "NHWC", "HWOI"),
    # output_padding under the dilation but not under the stride: TVM allows
    # it; oneDNN's deconvolution cannot express it (a target runs it on ref).
    window_case("conv2d_transpose_outpad_under_dilation", "nn.conv2d_transpose", (1, 2, 4, 4), (2, 3, 3, 3),
                {"output_padding": [1, 1], "dilation": [2, 2]}),
    window_case("conv3d_transpose_groups2_stride_dilation_outpad", "nn.conv3d_transpose", (1, 4, 3, 2, 3),
                (4, 2, 2, 3, 2),
                {"strides": [2, 1, 2], "padding": [1, 0, 0, 0, 1, 1], "output_padding": [1, 0, 1],
                 "dilation": [1, 2, 1], "groups": 2}, "NDHWC", "DHWOI"),
]

write_cases(os.path.join(HERE, "conv_windows.json"), os.path.basename(__file__), cases)

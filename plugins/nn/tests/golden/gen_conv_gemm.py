#!/usr/bin/python3
"""Golden cases for nn.contrib_conv2d_gemm_weight_transform and
nn.contrib_conv2d_gemm_without_weight_transform. The transform is TOPI's
conv2d_gemm_weight_transform re-implemented in NumPy (flatten HWIO to K x N,
pad K to a multiple of 4 * tile_K and N to a multiple of tile_N, cut into
tiles, transposing each tile for int8/uint8); the convolution's oracle is
PyTorch's conv2d on the untransformed weight.

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_conv_gemm.py   # writes conv_gemm.json beside it
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import tensor, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(41)
HERE = os.path.dirname(os.path.abspath(__file__))


def gemm_transform(w, tile_n, tile_k):
    kh, kw, ic, oc = w.shape
    k, n = kh * kw * ic, oc
    flat = w.reshape(k, n)  # row (kh * KW + kw) * IC + ic, as TOPI's weight_flatten indexes it
    pad_n = (tile_n - n % tile_n) % tile_n
    pad_k = (4 * tile_k - k % (4 * tile_k)) % (4 * tile_k)
    flat = np.pad(flat, ((0, pad_k), (0, pad_n)))
    kp, np_ = flat.shape
    tiles = flat.reshape(kp // tile_k, tile_k, np_ // tile_n, tile_n)  # [y, z, x, w] = flat[z + tile_k*y, w + tile_n*x]
    if w.dtype in (np.int8, np.uint8):
        return np.ascontiguousarray(tiles.transpose(2, 0, 3, 1))  # (x, y, n-in-tile, k-in-tile)
    return np.ascontiguousarray(tiles.transpose(2, 0, 1, 3))  # (x, y, k-in-tile, n-in-tile)


def conv_nhwc(x, w, strides, padding, dilation):
    """PyTorch conv2d of NHWC data and an HWIO weight, padding (top, left, bottom, right)."""
    xt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)).astype(np.float64))
    xt = F.pad(xt, [padding[1], padding[3], padding[0], padding[2]])
    wt = torch.from_numpy(np.ascontiguousarray(w.transpose(3, 2, 0, 1)).astype(np.float64))
    y = F.conv2d(xt, wt, stride=strides, dilation=dilation).numpy()
    return y.transpose(0, 2, 3, 1)


def rand(shape, dt):
    if dt == "int8":
        return rng.integers(-8, 8, size=shape).astype(dt)
    if dt == "uint8":
        return rng.integers(0, 16, size=shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


cases = []
for name, wshape, tn, tk, dt in [
    ("f32_3x3_pads_k_and_n", (3, 3, 2, 5), 4, 4, "float32"),
    ("f64_1x1_small_tiles", (1, 1, 3, 4), 2, 2, "float64"),
    ("f64_2x3_no_n_padding", (2, 3, 2, 6), 3, 1, "float64"),
    ("int8_tiles_transposed", (3, 3, 2, 5), 4, 4, "int8"),
    ("uint8_tiles_transposed", (2, 2, 3, 3), 2, 3, "uint8"),
]:
    w = rand(wshape, dt)
    cases.append({"name": name, "op": "nn.contrib_conv2d_gemm_weight_transform",
                  "attrs": {"tile_N": tn, "tile_K": tk}, "inputs": [tensor(w)],
                  "output": tensor(gemm_transform(w, tn, tk))})

for name, xshape, wshape, strides, padding, dilation, tn, tk, dt, layout, out_dtype in [
    ("f32_nhwc_3x3_pad1", (1, 5, 5, 2), (3, 3, 2, 5), 1, [1, 1, 1, 1], 1, 4, 4, "float32", "NHWC", None),
    ("f64_nhwc_stride2_asym_pad", (2, 6, 5, 3), (3, 2, 3, 4), 2, [1, 0, 0, 1], 1, 2, 2, "float64", "NHWC", None),
    ("f64_nhwc_dilation2", (1, 7, 7, 2), (3, 3, 2, 3), 1, [0, 0, 0, 0], 2, 4, 1, "float64", "NHWC", None),
    ("f32_nchw_data", (1, 5, 4, 3), (3, 3, 3, 4), 1, [1, 1, 1, 1], 1, 4, 4, "float32", "NCHW", None),
    ("f64_nchw_data_1x1", (2, 3, 3, 5), (1, 1, 5, 6), 1, [0, 0, 0, 0], 1, 4, 2, "float64", "NCHW", None),
    ("int8_nhwc_int32_out", (1, 4, 4, 3), (3, 3, 3, 5), 1, [1, 1, 1, 1], 1, 4, 4, "int8", "NHWC", "int32"),
    ("uint8_nhwc_int32_out", (1, 4, 5, 2), (2, 2, 2, 3), 1, [0, 0, 0, 0], 1, 2, 3, "uint8", "NHWC", "int32"),
]:
    x, w = rand(xshape, dt), rand(wshape, dt)
    y = conv_nhwc(x, w, [strides] * 2, padding, [dilation] * 2)
    y = y.astype(out_dtype or dt)
    attrs = {"strides": strides, "padding": padding, "dilation": dilation, "channels": wshape[3],
             "kernel_size": [wshape[0], wshape[1]], "data_layout": layout, "kernel_layout": "HWIO"}
    if out_dtype:
        attrs["out_dtype"] = out_dtype
    if layout == "NCHW":
        x_in, y = x.transpose(0, 3, 1, 2), y.transpose(0, 3, 1, 2)
    else:
        x_in = x
    cases.append({"name": name, "op": "nn.contrib_conv2d_gemm_without_weight_transform", "attrs": attrs,
                  "inputs": [tensor(x_in), tensor(gemm_transform(w, tn, tk))], "output": tensor(y),
                  "hwio_weight": tensor(w), "tiles": {"tile_N": tn, "tile_K": tk}})

write_cases(os.path.join(HERE, "conv_gemm.json"), "gen_conv_gemm.py", cases)

#!/usr/bin/python3
"""Golden cases that close gaps in the other nn golden files: op, layout and
dtype combinations that had no case of their own (conv2d kernel layouts in
the float dtype they lacked, NHWC data with an OIHW kernel, conv1d/conv3d
with channel-last kernels beside channel-first data, conv3d on int8, conv1d
and batch_matmul on uint8, the transposed convs with OIHW-family and
channel-last kernels, contrib_dense_pack's NC4n4c weight in floats, adaptive
max pooling in channel-last layouts, conv1d/conv3d kernels in WOI/OWI and
DHWOI/ODHWI, int8/uint8 for the transposed and NCHWc convs).
Oracles: PyTorch (convs, adaptive max pooling) in float64, NumPy for layouts.

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_coverage.py   # writes coverage.json beside it
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(53)
HERE = os.path.dirname(os.path.abspath(__file__))


def permute(a, canonical, layout):
    """A canonical-order array rearranged into an unblocked permutation `layout`."""
    return np.ascontiguousarray(a.transpose([canonical.index(c) for c in layout]))


def block(a, axis, factor):
    """Splits `axis` into (extent / factor, factor) with the inner part moved last."""
    shape = list(a.shape)
    shape[axis:axis + 1] = [shape[axis] // factor, factor]
    return np.moveaxis(a.reshape(shape), axis + 1, -1)


def conv(x, w, padding, stride=1):
    n = x.ndim - 2
    fn = [F.conv1d, F.conv2d, F.conv3d][n - 1]
    return fn(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)), padding=padding,
              stride=stride).numpy()


cases = []
for dt in ("float32", "float64"):
    def randn(*shape):
        return rng.standard_normal(shape).astype(dt)

    # conv2d: every kernel layout beside NCHW and NHWC data, plus out_layout and blocked layouts.
    x, w = randn(1, 4, 5, 5), randn(6, 4, 3, 3)
    y = conv(x, w, 1).astype(dt)
    for data_layout in ("NCHW", "NHWC"):
        for kernel_layout in ("OIHW", "HWIO", "HWOI", "OHWI"):
            attrs = {"padding": 1, "data_layout": data_layout, "kernel_layout": kernel_layout}
            cases.append(case(f"conv2d_{data_layout}_{kernel_layout}_{dt}", "nn.conv2d", attrs,
                              [permute(x, "NCHW", data_layout), permute(w, "OIHW", kernel_layout)],
                              permute(y, "NCHW", data_layout)))
    cases.append(case(f"conv2d_NCHW_out_NHWC_{dt}", "nn.conv2d", {"padding": 1, "out_layout": "NHWC"}, [x, w],
                      permute(y, "NCHW", "NHWC")))
    xb = np.ascontiguousarray(block(x, 1, 2))  # NCHW2c
    wb = np.ascontiguousarray(block(block(w, 0, 2), 1, 2))  # OIHW2o2i: (O/2, I/2, H, W, 2o, 2i)
    wb = np.ascontiguousarray(wb.transpose(0, 1, 2, 3, 5, 4))  # OIHW2i2o
    cases.append(case(f"conv2d_NCHW2c_OIHW2i2o_{dt}", "nn.conv2d",
                      {"padding": 1, "data_layout": "NCHW2c", "kernel_layout": "OIHW2i2o"}, [xb, wb],
                      np.ascontiguousarray(block(y, 1, 2))))

    # conv1d and conv3d: channel-first data with channel-last kernels, and the reverse.
    x1, w1 = randn(2, 3, 7), randn(4, 3, 3)
    y1 = conv(x1, w1, 1).astype(dt)
    cases.append(case(f"conv1d_NCW_WIO_{dt}", "nn.conv1d", {"padding": 1, "kernel_layout": "WIO"},
                      [x1, permute(w1, "OIW", "WIO")], y1))
    cases.append(case(f"conv1d_NWC_OIW_{dt}", "nn.conv1d", {"padding": 1, "data_layout": "NWC"},
                      [permute(x1, "NCW", "NWC"), w1], permute(y1, "NCW", "NWC")))
    x3, w3 = randn(1, 2, 4, 4, 3), randn(3, 2, 2, 3, 2)
    y3 = conv(x3, w3, 0).astype(dt)
    cases.append(case(f"conv3d_NCDHW_DHWIO_{dt}", "nn.conv3d", {"kernel_layout": "DHWIO"},
                      [x3, permute(w3, "OIDHW", "DHWIO")], y3))
    cases.append(case(f"conv3d_NDHWC_OIDHW_{dt}", "nn.conv3d", {"data_layout": "NDHWC"},
                      [permute(x3, "NCDHW", "NDHWC"), w3], permute(y3, "NCDHW", "NDHWC")))

    # contrib_dense_pack with a 4-D NC4n4c weight: packed[a, kb, b, kc] = w[a*4 + b, kb*4 + kc].
    d, wp = randn(3, 8), randn(8, 8)
    packed = np.ascontiguousarray(wp.reshape(2, 4, 2, 4).transpose(0, 2, 1, 3))
    cases.append(case(f"dense_pack_NC4n4c_{dt}", "nn.contrib_dense_pack", {"weight_layout": "NC4n4c"},
                      [d, packed], (d.astype(np.float64) @ wp.astype(np.float64).T).astype(dt)))

    # adaptive max pooling in channel-last layouts (windows [floor(i*in/out), ceil((i+1)*in/out))).
    for op, shape, layout, canon, out_size, fn in [
        ("nn.adaptive_max_pool1d", (2, 3, 7), "NWC", "NCW", [3], F.adaptive_max_pool1d),
        ("nn.adaptive_max_pool2d", (1, 2, 5, 7), "NHWC", "NCHW", [2, 3], F.adaptive_max_pool2d),
        ("nn.adaptive_max_pool3d", (1, 2, 4, 5, 6), "NDHWC", "NCDHW", [2, 3, 4], F.adaptive_max_pool3d),
    ]:
        xp = randn(*shape)
        yp = fn(torch.from_numpy(xp.astype(np.float64)), out_size).numpy().astype(dt)
        cases.append(case(f"{op[3:]}_{layout}_{dt}", op, {"output_size": out_size, "layout": layout},
                          [permute(xp, canon, layout)], permute(yp, canon, layout)))

    # Transposed convs with O-first / channel-last kernels (canonical IOW, IOHW, IODHW: in, out, window).
    for op, dims, canon_x, canon_w, layouts in [
        ("nn.conv1d_transpose", 1, "NCW", "IOW", [("NCW", "OIW"), ("NWC", "WIO")]),
        ("nn.conv2d_transpose", 2, "NCHW", "IOHW", [("NCHW", "OIHW"), ("NHWC", "HWIO")]),
        ("nn.conv3d_transpose", 3, "NCDHW", "IODHW", [("NCDHW", "OIDHW"), ("NDHWC", "DHWIO")]),
    ]:
        xt, wt = randn(1, 3, *([4] * dims)), randn(3, 2, *([3] * dims))
        fn = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][dims - 1]
        yt = fn(torch.from_numpy(xt.astype(np.float64)), torch.from_numpy(wt.astype(np.float64)), stride=2,
                padding=1, output_padding=1).numpy().astype(dt)
        for data_layout, kernel_layout in layouts:
            attrs = {"strides": 2, "padding": 1, "output_padding": 1, "data_layout": data_layout,
                     "kernel_layout": kernel_layout}
            cases.append(case(f"{op[3:]}_{data_layout}_{kernel_layout}_{dt}", op, attrs,
                              [permute(xt, canon_x, data_layout), permute(wt, canon_w, kernel_layout)],
                              permute(yt, canon_x, data_layout)))

# conv3d on int8 with int32 accumulation, as conv1d/conv2d have.
xi = rng.integers(-8, 8, (1, 2, 3, 4, 4)).astype("int8")
wi = rng.integers(-8, 8, (3, 2, 2, 2, 2)).astype("int8")
cases.append(case("conv3d_int8_to_int32", "nn.conv3d", {"out_dtype": "int32"}, [xi, wi],
                  conv(xi, wi, 0).astype("int32")))

# uint8 where the family files have only int8: conv1d and batch_matmul with int32 accumulation.
xu = rng.integers(0, 16, (2, 3, 6)).astype("uint8")
wu = rng.integers(0, 16, (4, 3, 3)).astype("uint8")
cases.append(case("conv1d_uint8_to_int32", "nn.conv1d", {"out_dtype": "int32", "padding": 1}, [xu, wu],
                  conv(xu, wu, 1).astype("int32")))
au = rng.integers(0, 16, (2, 3, 5)).astype("uint8")
bu = rng.integers(0, 16, (2, 4, 5)).astype("uint8")
cases.append(case("batch_matmul_uint8_to_int32", "nn.batch_matmul", {"out_dtype": "int32"}, [au, bu],
                  (au.astype(np.int64) @ bu.astype(np.int64).transpose(0, 2, 1)).astype("int32")))

# conv1d/conv3d kernels with the output axis last or first after the window (WOI/OWI, DHWOI/ODHWI).
for dt in ("float32", "float64"):
    x1, w1 = rng.standard_normal((1, 3, 6)).astype(dt), rng.standard_normal((2, 3, 3)).astype(dt)
    y1 = conv(x1, w1, 0).astype(dt)
    for kl in ("WOI", "OWI"):
        cases.append(case(f"conv1d_NWC_{kl}_{dt}", "nn.conv1d", {"data_layout": "NWC", "kernel_layout": kl},
                          [permute(x1, "NCW", "NWC"), permute(w1, "OIW", kl)], permute(y1, "NCW", "NWC")))
    x3, w3 = rng.standard_normal((1, 2, 3, 4, 3)).astype(dt), rng.standard_normal((2, 2, 2, 2, 2)).astype(dt)
    y3 = conv(x3, w3, 0).astype(dt)
    for kl in ("DHWOI", "ODHWI"):
        cases.append(case(f"conv3d_NDHWC_{kl}_{dt}", "nn.conv3d", {"data_layout": "NDHWC", "kernel_layout": kl},
                          [permute(x3, "NCDHW", "NDHWC"), permute(w3, "OIDHW", kl)],
                          permute(y3, "NCDHW", "NDHWC")))

# int8/uint8 with int32 accumulation for conv2d_transpose and the blocked NCHWc conv.
xi = rng.integers(-8, 8, (1, 4, 3, 3)).astype("int8")
wi = rng.integers(-8, 8, (4, 2, 3, 3)).astype("int8")  # IOHW
yi = F.conv_transpose2d(torch.from_numpy(xi.astype(np.float64)), torch.from_numpy(wi.astype(np.float64)),
                        stride=2, padding=1).numpy().astype("int32")
cases.append(case("conv2d_transpose_int8_to_int32", "nn.conv2d_transpose",
                  {"strides": 2, "padding": 1, "out_dtype": "int32"}, [xi, wi], yi))
xu = rng.integers(0, 16, (1, 8, 4, 4)).astype("uint8")
wu = rng.integers(-8, 8, (4, 8, 3, 3)).astype("int8")
yu = conv(xu, wu, 1).astype("int32")
wu_blocked = np.ascontiguousarray(block(block(wu, 0, 4), 1, 4).transpose(0, 1, 2, 3, 5, 4))  # OIHW4i4o
cases.append(case("conv2d_NCHWc_uint8_int8_to_int32", "nn.contrib_conv2d_NCHWc",
                  {"channels": 4, "kernel_size": [3, 3], "padding": 1, "data_layout": "NCHW4c",
                   "kernel_layout": "OIHW4i4o", "out_dtype": "int32"},
                  [np.ascontiguousarray(block(xu, 1, 4)), wu_blocked], np.ascontiguousarray(block(yu, 1, 4))))

# int8 with int32 accumulation for conv1d_transpose, conv3d_transpose and the blocked depthwise conv.
for op, dims in (("nn.conv1d_transpose", 1), ("nn.conv3d_transpose", 3)):
    xi = rng.integers(-8, 8, (1, 2) + (3,) * dims).astype("int8")
    wi = rng.integers(-8, 8, (2, 3) + (2,) * dims).astype("int8")  # IOW / IODHW
    fn = [F.conv_transpose1d, None, F.conv_transpose3d][dims - 1]
    yi = fn(torch.from_numpy(xi.astype(np.float64)), torch.from_numpy(wi.astype(np.float64)), stride=2).numpy()
    cases.append(case(f"{op[3:]}_int8_to_int32", op, {"strides": 2, "out_dtype": "int32"}, [xi, wi],
                      yi.astype("int32")))
xd = rng.integers(-8, 8, (1, 4, 4, 4)).astype("int8")
wd = rng.integers(-8, 8, (8, 1, 3, 3)).astype("int8")  # channel multiplier 2
yd = F.conv2d(torch.from_numpy(xd.astype(np.float64)), torch.from_numpy(wd.astype(np.float64)), padding=1,
              groups=4).numpy().astype("int32")
wd_blocked = np.ascontiguousarray(block(block(wd, 0, 4), 1, 1).transpose(0, 1, 2, 3, 5, 4))  # OIHW1i4o
cases.append(case("depthwise_conv2d_NCHWc_int8_to_int32", "nn.contrib_depthwise_conv2d_NCHWc",
                  {"groups": 4, "channels": 8, "kernel_size": [3, 3], "padding": 1, "data_layout": "NCHW4c",
                   "kernel_layout": "OIHW1i4o", "out_dtype": "int32"},
                  [np.ascontiguousarray(block(xd, 1, 4)), wd_blocked], np.ascontiguousarray(block(yd, 1, 4))))

write_cases(os.path.join(HERE, "coverage.json"), "gen_coverage.py", cases)

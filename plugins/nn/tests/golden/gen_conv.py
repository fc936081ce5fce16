#!/usr/bin/python3
"""Golden cases for the nn convolution ops (conv1d/2d/3d and their
transposes), computed with PyTorch in float64. Layout variants (NHWC, HWIO,
NCHW4c, OIHW4i4o, ...) are the canonical oracle transposed; asymmetric padding
is an explicit pad (conv) or a crop of the unpadded result (transposes).

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_conv.py   # writes conv.json and conv_transpose.json beside it
"""
import os
import sys
import re

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(19)
HERE = os.path.dirname(os.path.abspath(__file__))


def to_layout(a, canonical, layout):
    """A canonical-order array (NCHW, OIHW, ...) rearranged into `layout`,
    where "4c" splits axis C into blocks of 4 (the inner part)."""
    axes = re.findall(r"(\d*)([A-Za-z])", layout)
    blocks = {c.upper(): int(f) for f, c in axes if f}
    shape, names = [], []
    for ax, ext in zip(canonical, a.shape):
        if ax in blocks:
            shape += [ext // blocks[ax], blocks[ax]]
            names += [ax, ax.lower()]
        else:
            shape.append(ext)
            names.append(ax)
    return np.ascontiguousarray(a.reshape(shape).transpose([names.index(c) for _, c in axes]))


def pad_tuple(padding, n):
    """Relay's get_pad_tuple{1,2,3}d: befores then afters."""
    if isinstance(padding, int):
        padding = [padding] * n
    if len(padding) == n:
        return list(padding) + list(padding)
    return list(padding)


def rand(shape, dt):
    if dt in ("int8", "uint8"):
        lo, hi = (-8, 8) if dt == "int8" else (0, 16)
        return rng.integers(lo, hi, size=shape).astype(dt)
    return rng.standard_normal(shape).astype(dt)


def conv_oracle(x, w, strides, padding, dilation, groups):
    n = x.ndim - 2
    pads = pad_tuple(padding, n)
    xt = torch.from_numpy(x.astype(np.float64))
    torch_pad = []
    for i in reversed(range(n)):  # F.pad lists the last axis first
        torch_pad += [pads[i], pads[n + i]]
    xt = F.pad(xt, torch_pad)
    fn = [F.conv1d, F.conv2d, F.conv3d][n - 1]
    return fn(xt, torch.from_numpy(w.astype(np.float64)), stride=strides, dilation=dilation, groups=groups).numpy()


def transpose_oracle(x, w, strides, padding, output_padding, dilation, groups):
    n = x.ndim - 2
    pads = pad_tuple(padding, n)
    fn = [F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d][n - 1]
    full = fn(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w.astype(np.float64)), stride=strides,
              output_padding=output_padding, groups=groups, dilation=dilation).numpy()
    crop = tuple([slice(None), slice(None)] + [slice(pads[i], full.shape[2 + i] - pads[n + i]) for i in range(n)])
    return full[crop]


CANON = {1: ("NCW", "OIW", "IOW"), 2: ("NCHW", "OIHW", "IOHW"), 3: ("NCDHW", "OIDHW", "IODHW")}


def conv_case(name, op, xshape, wshape, dt="float32", attrs=None, data_layout=None, kernel_layout=None,
              out_layout=None, out_dtype=None, weight_view=None):
    """weight_view: the shape the weight is handed over in (canonical order), e.g. Relay's depthwise (C, m, kh, kw)."""
    attrs = dict(attrs or {})
    n = len(xshape) - 2
    dcanon, kcanon, _ = CANON[n]
    x, w = rand(xshape, dt), rand(wshape, dt if out_dtype is None else ("int8" if dt == "uint8" else dt))
    y = conv_oracle(x, w, attrs.get("strides", 1), attrs.get("padding", 0), attrs.get("dilation", 1),
                    attrs.get("groups", 1))
    out_dt = out_dtype or dt
    y = y.astype(out_dt)
    if weight_view is not None:
        w = w.reshape(weight_view)
    if data_layout:
        attrs["data_layout"] = data_layout
    if kernel_layout:
        attrs["kernel_layout"] = kernel_layout
    if out_layout:
        attrs["out_layout"] = out_layout
    if out_dtype:
        attrs["out_dtype"] = out_dtype
    xl = to_layout(x, dcanon, data_layout or dcanon)
    wl = to_layout(w, kcanon, kernel_layout or kcanon)
    yl = to_layout(y, dcanon, out_layout or data_layout or dcanon)
    return case(name, op, attrs, [xl, wl], yl)


def transpose_case(name, op, xshape, wshape, dt="float32", attrs=None, data_layout=None, kernel_layout=None):
    attrs = dict(attrs or {})
    n = len(xshape) - 2
    dcanon, _, kcanon = CANON[n]
    x, w = rand(xshape, dt), rand(wshape, dt)
    opad = attrs.get("output_padding", 0)
    y = transpose_oracle(x, w, attrs.get("strides", 1), attrs.get("padding", 0),
                         opad if isinstance(opad, int) else tuple(opad), attrs.get("dilation", 1),
                         attrs.get("groups", 1)).astype(dt)
    if data_layout:
        attrs["data_layout"] = data_layout
    if kernel_layout:
        attrs["kernel_layout"] = kernel_layout
    return case(name, op, attrs, [to_layout(x, dcanon, data_layout or dcanon), to_layout(w, kcanon, kernel_layout or kcanon)],
                to_layout(y, dcanon, data_layout or dcanon))


conv = []
for dt in ("float32", "float64"):
    c2 = "nn.conv2d"
    conv += [
        conv_case(f"conv2d_default_{dt}", c2, (1, 3, 5, 5), (4, 3, 3, 3), dt),
        conv_case(f"conv2d_stride2_pad1_{dt}", c2, (2, 3, 6, 7), (4, 3, 3, 3), dt, {"strides": 2, "padding": 1}),
        conv_case(f"conv2d_pad_2form_{dt}", c2, (1, 2, 5, 4), (3, 2, 3, 2), dt, {"padding": [1, 2], "strides": [1, 2]}),
        conv_case(f"conv2d_pad_4form_{dt}", c2, (1, 2, 5, 5), (3, 2, 3, 3), dt, {"padding": [0, 1, 2, 1]}),
        conv_case(f"conv2d_dilation2_{dt}", c2, (1, 2, 7, 6), (2, 2, 3, 2), dt, {"dilation": [2, 3], "padding": 1}),
        conv_case(f"conv2d_groups2_{dt}", c2, (1, 4, 5, 5), (6, 2, 3, 3), dt, {"groups": 2, "padding": 1}),
        conv_case(f"conv2d_depthwise_{dt}", c2, (1, 3, 5, 5), (3, 1, 3, 3), dt,
                  {"groups": 3, "padding": 1, "channels": 3, "kernel_size": 3}),
        conv_case(f"conv2d_channels_kernel_size_{dt}", c2, (1, 3, 4, 4), (5, 3, 1, 2), dt,
                  {"channels": 5, "kernel_size": [1, 2]}),
        conv_case(f"conv2d_nhwc_hwio_{dt}", c2, (1, 3, 5, 6), (4, 3, 3, 3), dt, {"padding": 1, "strides": [1, 2]},
                  "NHWC", "HWIO"),
    ]
c2 = "nn.conv2d"
conv += [
    # Relay's depthwise weight with a channel multiplier: (C, multiplier, kh, kw) in OIHW terms.
    conv_case("conv2d_depthwise_multiplier2", c2, (1, 2, 4, 4), (4, 1, 3, 3), "float32",
              {"groups": 2, "channels": 4, "kernel_size": 3, "padding": 1}, weight_view=(2, 2, 3, 3)),
    conv_case("conv2d_depthwise_nhwc_hwoi", c2, (1, 4, 5, 5), (4, 1, 3, 3), "float32",
              {"groups": 4, "padding": 1}, "NHWC", "HWOI"),
    conv_case("conv2d_nchw_ohwi", c2, (1, 3, 4, 5), (2, 3, 2, 3), "float64", {"strides": 2}, "NCHW", "OHWI"),
    conv_case("conv2d_nhwc_ohwi_groups", c2, (1, 4, 4, 4), (4, 2, 3, 3), "float32", {"groups": 2}, "NHWC", "OHWI"),
    conv_case("conv2d_nchw_out_nhwc", c2, (2, 3, 4, 4), (2, 3, 3, 3), "float32", {"padding": 1}, out_layout="NHWC"),
    conv_case("conv2d_blocked_nchw2c_oihw2i2o", c2, (1, 4, 4, 4), (4, 4, 3, 3), "float32", {"padding": 1},
              "NCHW2c", "OIHW2i2o"),
    conv_case("conv2d_int8_to_int32", c2, (1, 3, 5, 5), (4, 3, 3, 3), "int8", {"padding": 1}, out_dtype="int32"),
    conv_case("conv2d_uint8_int8_to_int32_nhwc", c2, (1, 3, 4, 4), (2, 3, 2, 2), "uint8", {"strides": 2},
              "NHWC", "HWIO", out_dtype="int32"),
    conv_case("conv2d_float32_to_float64", c2, (1, 2, 4, 4), (2, 2, 3, 3), "float32", out_dtype="float64"),
]
for dt in ("float32", "float64"):
    conv += [
        conv_case(f"conv1d_default_{dt}", "nn.conv1d", (2, 3, 7), (4, 3, 3), dt),
        conv_case(f"conv1d_stride_pad_dilation_{dt}", "nn.conv1d", (1, 2, 9), (3, 2, 3), dt,
                  {"strides": 2, "padding": [1, 2], "dilation": 2}),
        conv_case(f"conv1d_groups_nwc_wio_{dt}", "nn.conv1d", (1, 4, 6), (4, 2, 2), dt, {"groups": 2, "padding": 1},
                  "NWC", "WIO"),
        conv_case(f"conv3d_default_{dt}", "nn.conv3d", (1, 2, 4, 4, 4), (3, 2, 3, 3, 3), dt),
        conv_case(f"conv3d_stride_pad_6form_{dt}", "nn.conv3d", (1, 2, 5, 4, 5), (2, 2, 3, 2, 3), dt,
                  {"strides": [2, 1, 2], "padding": [1, 0, 1, 0, 1, 2], "dilation": [1, 2, 1]}),
        conv_case(f"conv3d_ndhwc_dhwio_groups_{dt}", "nn.conv3d", (1, 4, 3, 4, 4), (2, 2, 2, 3, 3), dt,
                  {"groups": 2, "padding": 1}, "NDHWC", "DHWIO"),
    ]
conv.append(conv_case("conv1d_int8_to_int32", "nn.conv1d", (1, 3, 6), (2, 3, 3), "int8", out_dtype="int32"))

transpose = []
for dt in ("float32", "float64"):
    t2 = "nn.conv2d_transpose"
    transpose += [
        transpose_case(f"conv2d_transpose_default_{dt}", t2, (1, 3, 4, 4), (3, 2, 3, 3), dt),
        transpose_case(f"conv2d_transpose_stride2_pad1_outpad1_{dt}", t2, (2, 2, 3, 4), (2, 3, 3, 3), dt,
                       {"strides": 2, "padding": 1, "output_padding": 1}),
        transpose_case(f"conv2d_transpose_pad_4form_{dt}", t2, (1, 2, 4, 3), (2, 2, 3, 3), dt,
                       {"strides": [2, 1], "padding": [0, 1, 2, 1]}),
        transpose_case(f"conv2d_transpose_groups_dilation_{dt}", t2, (1, 4, 3, 3), (4, 1, 2, 3), dt,
                       {"groups": 2, "dilation": [2, 1]}),
        transpose_case(f"conv2d_transpose_nhwc_hwoi_{dt}", t2, (1, 3, 3, 4), (3, 2, 3, 2), dt,
                       {"strides": 2, "output_padding": [1, 0]}, "NHWC", "HWOI"),
        transpose_case(f"conv1d_transpose_{dt}", "nn.conv1d_transpose", (1, 2, 5), (2, 3, 3), dt,
                       {"strides": 2, "padding": 1, "output_padding": 1}),
        transpose_case(f"conv1d_transpose_nwc_groups_{dt}", "nn.conv1d_transpose", (1, 4, 4), (4, 2, 2), dt,
                       {"groups": 2}, "NWC", "WOI"),
        transpose_case(f"conv3d_transpose_{dt}", "nn.conv3d_transpose", (1, 2, 3, 3, 2), (2, 2, 2, 3, 2), dt,
                       {"strides": [2, 1, 2], "padding": [1, 1, 0], "output_padding": [1, 0, 1]}),
        transpose_case(f"conv3d_transpose_ndhwc_{dt}", "nn.conv3d_transpose", (1, 2, 2, 3, 3), (2, 3, 2, 2, 2), dt,
                       {"padding": [0, 1, 0, 1, 0, 1]}, "NDHWC", "DHWOI"),
    ]



def winograd_matrices(m, r):
    """TOPI's winograd_transform_matrices(m, r) (topi/nn/winograd_util.py):
    Cook-Toom with the interpolation points of Barabasz et al."""
    tables = {
        3: [0, -1, 1], 4: [0, -1, 1, 1 / 2], 5: [0, -1, 1, 1 / 2, -2], 6: [0, -1, 1, 1 / 2, -2, -1 / 2],
        7: [0, -1, 1, 1 / 2, -1 / 2, 2, -2], 8: [0, -1, 1, 1 / 2, -1 / 2, 2, -2, -1 / 4],
    }
    a = np.array(tables[m + r - 2], dtype=np.float64)
    n = m + r - 1
    f = np.array([np.prod([a[i] - a[k] for k in range(n - 1) if k != i]) for i in range(n - 1)] + [1.0])
    fs = f.copy()
    if fs[0] < 0:
        fs[0] = -fs[0]
    powers = lambda cols: np.vstack([[a[i] ** j for j in range(cols)] for i in range(n - 1)] + [np.eye(cols)[-1]])
    A = powers(m)
    G = powers(r) / fs[:, None]
    # Column c of B (before scaling): the coefficients of prod_{k != c} (x - a_k), lowest first.
    F = np.array([np.poly1d(np.poly([a[k] for k in range(n - 1) if k != c])).coef[::-1] / f[c] for c in range(n - 1)])
    T = np.hstack([np.eye(n - 1), -(a[:, None] ** (n - 1))])
    B = np.vstack([F.T.dot(T), np.eye(n)[-1]]).dot(np.diag(fs))
    return A, B, G


def winograd_case(name, xshape, co, tile, k, dt, padding, layout="NCHW"):
    x = rand(xshape, dt)
    g = rand((co, xshape[1], k, k), dt)
    _, _, G = winograd_matrices(tile, k)
    u = np.einsum("ek,oikl,nl->enoi", G, g.astype(np.float64), G)
    y = conv_oracle(x, g, 1, padding, 1, 1).astype(dt)
    attrs = {"tile_size": tile, "channels": co, "kernel_size": k, "padding": padding}
    if layout == "NHWC":
        attrs["data_layout"] = "NHWC"
        attrs["kernel_layout"] = "HWIO"
        return case(name, "nn.contrib_conv2d_winograd_without_weight_transform", attrs,
                    [to_layout(x, "NCHW", "NHWC"), u.transpose(0, 1, 3, 2).astype(dt)], to_layout(y, "NCHW", "NHWC"))
    return case(name, "nn.contrib_conv2d_winograd_without_weight_transform", attrs, [x, u.astype(dt)], y)


winograd = []
for dt in ("float32", "float64"):
    for tile, k in ((2, 3), (4, 3), (3, 5)):
        g = rand((3, 2, k, k), dt)
        _, _, G = winograd_matrices(tile, k)
        u = np.einsum("ek,oikl,nl->enoi", G, g.astype(np.float64), G).astype(dt)
        winograd.append(case(f"weight_transform_tile{tile}_k{k}_{dt}", "nn.contrib_conv2d_winograd_weight_transform",
                             {"tile_size": tile}, [g], u))
    winograd += [
        winograd_case(f"winograd_tile2_{dt}", (1, 2, 6, 6), 3, 2, 3, dt, 1),
        winograd_case(f"winograd_tile4_ragged_{dt}", (2, 3, 7, 9), 2, 4, 3, dt, [1, 0, 2, 1]),
        winograd_case(f"winograd_tile3_k5_{dt}", (1, 2, 8, 7), 2, 3, 5, dt, 2),
        winograd_case(f"winograd_nhwc_{dt}", (1, 2, 5, 6), 3, 2, 3, dt, 1, "NHWC"),
    ]



def winograd3d_case(name, xshape, co, tile, kshape, dt, padding, strides=1):
    """Winograd conv3d on TOPI's pre-transformed weight: (alpha, alpha, alpha, CO, CI) when
    2 < kd < 8 and kd == kh, else (alpha, alpha, kd, CO, CI); the oracle is the direct conv3d."""
    x = rand(xshape, dt)
    g = rand((co, xshape[1]) + kshape, dt)
    kd, r = kshape[0], kshape[1]
    _, _, G = winograd_matrices(tile, r)
    g64 = g.astype(np.float64)
    if 2 < kd < 8 and kd == r:
        u = np.einsum("ad,bh,cw,oidhw->abcoi", G, G, G, g64)
    else:
        u = np.einsum("bh,cw,oidhw->bcdoi", G, G, g64)
    y = conv_oracle(x, g, strides, padding, 1, 1).astype(dt)
    attrs = {"tile_size": tile, "channels": co, "kernel_size": list(kshape), "padding": padding, "strides": strides}
    return case(name, "nn.contrib_conv3d_winograd_without_weight_transform", attrs, [x, u.astype(dt)], y), \
        case(name.replace("winograd3d", "weight_transform3d"), "nn.contrib_conv3d_winograd_weight_transform",
             {"tile_size": tile}, [g], u.astype(dt))


def backward_weight_case(name, xshape, wshape, dt, attrs, layouts=None):
    """conv2d_backward_weight: PyTorch autograd of conv2d's weight. layouts:
    (grad/data layout, weight layout), e.g. ("NHWC", "HWIO")."""
    x, w = rand(xshape, dt), rand(wshape, dt)
    n = 2
    pads = pad_tuple(attrs.get("padding", 0), n)
    xt = F.pad(torch.from_numpy(x.astype(np.float64)), [pads[1], pads[3], pads[0], pads[2]])
    wt = torch.from_numpy(w.astype(np.float64)).requires_grad_()
    y = F.conv2d(xt, wt, stride=attrs.get("strides", 1), dilation=attrs.get("dilation", 1), groups=attrs.get("groups", 1))
    dy = rand(tuple(y.shape), dt)
    y.backward(torch.from_numpy(dy.astype(np.float64)))
    dw = wt.grad.numpy().astype(dt)
    attrs = dict(attrs, kernel_size=list(wshape[2:]))
    if layouts:
        attrs.update(data_layout=layouts[0], kernel_layout=layouts[0], out_layout=layouts[1])
        return case(name, "nn.conv2d_backward_weight", attrs,
                    [to_layout(dy, "NCHW", layouts[0]), to_layout(x, "NCHW", layouts[0])], to_layout(dw, "OIHW", layouts[1]))
    return case(name, "nn.conv2d_backward_weight", attrs, [dy, x], dw)


def topi_bilinear(plane, y, x):
    """topi bilinear_sample_nchw inside deformable_conv2d: zero outside [0, H) x [0, W),
    corners past the last row/column count as zero."""
    h, w = plane.shape
    if y < 0 or x < 0 or y >= h or x >= w:
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    wy, wx = y - y0, x - x0
    val = 0.0
    for yy, fy in ((y0, 1 - wy), (y0 + 1, wy)):
        for xx, fx in ((x0, 1 - wx), (x0 + 1, wx)):
            if 0 <= yy <= h - 1 and 0 <= xx <= w - 1:
                val += fy * fx * plane[yy, xx]
    return val


def deformable_case(name, xshape, wshape, dt, attrs, layouts=None):
    x, w = rand(xshape, dt), rand(wshape, dt)
    s = attrs.get("strides", [1, 1])
    d = attrs.get("dilation", [1, 1])
    pads = pad_tuple(attrs.get("padding", 0), 2)
    dg = attrs.get("deformable_groups", 1)
    n_, c_, h_, w_ = xshape
    o_, _, kh, kw = wshape
    oh = (h_ + pads[0] + pads[2] - (1 + (kh - 1) * d[0])) // s[0] + 1
    ow = (w_ + pads[1] + pads[3] - (1 + (kw - 1) * d[1])) // s[1] + 1
    off = (rng.uniform(-1.5, 1.5, size=(n_, 2 * kh * kw * dg, oh, ow))).astype(dt)
    xd, wd, od = x.astype(np.float64), w.astype(np.float64), off.astype(np.float64)
    y = np.zeros((n_, o_, oh, ow))
    per = c_ // dg
    for n in range(n_):
        for c in range(c_):
            for i in range(kh):
                for j in range(kw):
                    ch = (c // per) * (kh * kw * 2) + (i * kw + j) * 2
                    for a in range(oh):
                        for b in range(ow):
                            v = topi_bilinear(xd[n, c], a * s[0] - pads[0] + i * d[0] + od[n, ch, a, b],
                                              b * s[1] - pads[1] + j * d[1] + od[n, ch + 1, a, b])
                            y[n, :, a, b] += v * wd[:, c, i, j]
    attrs = dict(attrs, kernel_size=[kh, kw])
    y = y.astype(dt)
    if layouts:
        attrs.update(data_layout=layouts[0], kernel_layout=layouts[1])
        return case(name, "nn.deformable_conv2d", attrs,
                    [to_layout(x, "NCHW", layouts[0]), to_layout(off, "NCHW", layouts[0]), to_layout(w, "OIHW", layouts[1])],
                    to_layout(y, "NCHW", layouts[0]))
    return case(name, "nn.deformable_conv2d", attrs, [x, off, w], y)


def correlation_case(name, shape, dt, k, md, s1, s2, padding, multiply):
    """topi correlation_nchw, written out."""
    a, b = rand(shape, dt), rand(shape, dt)
    pads = pad_tuple(padding, 2)
    pa = np.pad(a.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    pb = np.pad(b.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    border = md + (k - 1) // 2
    radius = md // s2
    size = 2 * radius + 1
    n_, c_, ph, pw = pa.shape
    oh, ow = (ph - 2 * border + s1 - 1) // s1, (pw - 2 * border + s1 - 1) // s1
    out = np.zeros((n_, size * size, oh, ow))
    for q in range(size * size):
        for i in range(oh):
            for j in range(ow):
                y1, x1 = i * s1 + md, j * s1 + md
                y2, x2 = y1 + (q // size - radius) * s2, x1 + (q % size - radius) * s2
                p1 = pa[:, :, y1:y1 + k, x1:x1 + k]
                p2 = pb[:, :, y2:y2 + k, x2:x2 + k]
                out[:, q, i, j] = (p1 * p2 if multiply else np.abs(p1 - p2)).sum(axis=(1, 2, 3))
    out /= k * k * c_
    attrs = {"kernel_size": k, "max_displacement": md, "stride1": s1, "stride2": s2, "padding": padding,
             "is_multiply": multiply}
    return case(name, "nn.correlation", attrs, [a, b], out.astype(dt))


special = []
for dt in ("float32", "float64"):
    nchwc = "nn.contrib_conv2d_NCHWc"
    special += [
        conv_case(f"nchwc_4c_{dt}", nchwc, (1, 8, 5, 5), (8, 8, 3, 3), dt, {"channels": 8, "kernel_size": 3, "padding": 1},
                  "NCHW4c", "OIHW4i4o"),
        conv_case(f"nchwc_8c_to_nchw2c_{dt}", nchwc, (1, 8, 4, 4), (4, 8, 1, 1), dt,
                  {"channels": 4, "kernel_size": 1, "strides": 2}, "NCHW8c", "OIHW8i2o", out_layout="NCHW2c"),
        backward_weight_case(f"backward_weight_{dt}", (2, 3, 6, 6), (4, 3, 3, 3), dt, {"padding": 1}),
        backward_weight_case(f"backward_weight_strided_groups_{dt}", (1, 4, 7, 6), (4, 2, 3, 2), dt,
                             {"strides": 2, "padding": [0, 1, 1, 0], "dilation": [1, 2], "groups": 2}),
        backward_weight_case(f"backward_weight_depthwise_nhwc_{dt}", (1, 3, 5, 5), (3, 1, 3, 3), dt,
                             {"groups": 3, "channels": 3, "padding": 1}, ("NHWC", "HWIO")),
        deformable_case(f"deformable_{dt}", (1, 4, 5, 5), (3, 4, 3, 3), dt, {"padding": 1, "deformable_groups": 2}),
        deformable_case(f"deformable_strided_dilated_{dt}", (2, 2, 7, 6), (2, 2, 2, 3), dt,
                        {"strides": [2, 1], "dilation": [2, 1], "padding": [1, 0, 1, 1]}),
        deformable_case(f"deformable_nhwc_hwio_{dt}", (1, 2, 4, 5), (3, 2, 3, 3), dt, {"padding": 1}, ("NHWC", "HWIO")),
        correlation_case(f"correlation_multiply_{dt}", (1, 3, 6, 7), dt, 1, 2, 1, 1, 2, True),
        correlation_case(f"correlation_k3_strided_{dt}", (2, 2, 9, 8), dt, 3, 2, 2, 2, [2, 1], True),
        correlation_case(f"correlation_abs_diff_{dt}", (1, 2, 6, 6), dt, 3, 1, 1, 1, [1, 2, 1, 0], False),
    ]

for dt in ("float32", "float64"):
    winograd += [c for pair in (
        winograd3d_case(f"winograd3d_depth_{dt}", (1, 2, 4, 5, 5), 2, 2, (3, 3, 3), dt, 1),
        winograd3d_case(f"winograd3d_no_depth_strided_{dt}", (1, 2, 6, 4, 5), 3, 2, (2, 3, 3), dt, [1, 1, 0],
                        [2, 1, 1]),
    ) for c in pair]

for dt in ("float32", "float64"):
    special += [
        conv_case(f"depthwise_nchwc_{dt}", "nn.contrib_depthwise_conv2d_NCHWc", (1, 8, 5, 5), (8, 1, 3, 3), dt,
                  {"groups": 8, "padding": 1}, "NCHW4c", "OIHW1i4o"),
        conv_case(f"depthwise_nchwc_multiplier2_{dt}", "nn.contrib_depthwise_conv2d_NCHWc", (1, 4, 4, 6),
                  (8, 1, 3, 3), dt, {"groups": 4, "strides": [1, 2]}, "NCHW2c", "OIHW1i4o"),
    ]

for fname, cases in (("conv.json", conv), ("conv_transpose.json", transpose), ("conv_winograd.json", winograd),
                     ("conv_special.json", special)):
    write_cases(os.path.join(HERE, fname), "gen_conv.py", cases, newline=True)

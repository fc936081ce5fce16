#!/usr/bin/python3
"""Golden cases for the nn data-movement ops (pad, mirror_pad, dilate,
upsampling, upsampling3d, fifo_buffer, depth_to_space, space_to_depth,
space_to_batch_nd, batch_to_space_nd).

The oracles follow the reference (TVM v0.19 TOPI) where frameworks differ and
are written in NumPy: TOPI's resize (upsampling: 'asymmetric' coordinates
unless align_corners, nearest rounds half to even under align_corners and
floors with a 1e-5 epsilon otherwise, bicubic alpha -0.5), TensorFlow's
space/batch and depth/space orders. Where PyTorch agrees with the reference the
script cross-checks the NumPy oracle against it (np.pad, pixel_shuffle,
interpolate) and stops on any disagreement.

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_transform.py   # writes transform.json beside it
"""
import itertools
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(44)
DTYPES = ["float32", "float64"]


def data(shape, dt):
    return np.round(rng.standard_normal(shape) * 4, 3).astype(dt)


def agree(a, b, what):
    if not np.allclose(a, b, rtol=1e-5, atol=1e-6):
        raise SystemExit(f"oracle disagrees with PyTorch: {what}")


# ---- TOPI resize in NumPy ------------------------------------------------------------------


def source_coord(x, n_in, n_out, mode):
    scale = n_in / n_out
    if mode == "half_pixel":
        return (x + 0.5) * scale - 0.5
    if mode == "align_corners":
        return (n_in - 1) / (n_out - 1) * x if n_out > 1 else 0.0
    return scale * x  # asymmetric


def axis_taps(n_in, n_out, method, mode, alpha=-0.5):
    clamp = lambda i: min(max(i, 0), n_in - 1)
    taps = []
    for x in range(n_out):
        s = source_coord(x, n_in, n_out, mode)
        if method == "nearest":
            r = np.round(s) if mode == "align_corners" else np.floor(s + 1e-5)
            taps.append([(clamp(int(r)), 1.0)])
        elif method == "linear":
            i0 = int(np.floor(s))
            t = s - i0
            taps.append([(clamp(i0), 1 - t), (clamp(i0 + 1), t)])
        else:
            i0 = int(np.floor(s))
            t = s - i0
            w = [alpha * (t**3 - 2 * t**2 + t), (alpha + 2) * t**3 - (3 + alpha) * t**2 + 1,
                 -(alpha + 2) * t**3 + (3 + 2 * alpha) * t**2 - alpha * t, -alpha * t**3 + alpha * t**2]
            taps.append([(clamp(i0 - 1 + k), w[k]) for k in range(4)])
    return taps


def resize_nc(x, out_spatial, method, mode):
    """Resizes the trailing spatial axes of an N, C, spatial... array."""
    n_sp = len(out_spatial)
    in_spatial = x.shape[2:]
    taps = [axis_taps(i, o, method, mode) for i, o in zip(in_spatial, out_spatial)]
    out = np.zeros(x.shape[:2] + tuple(out_spatial), dtype=np.float64)
    for pos in itertools.product(*[range(o) for o in out_spatial]):
        acc = np.zeros(x.shape[:2])
        for combo in itertools.product(*[taps[a][pos[a]] for a in range(n_sp)]):
            w = np.prod([c[1] for c in combo])
            idx = (slice(None), slice(None)) + tuple(c[0] for c in combo)
            acc = acc + w * x[idx].astype(np.float64)
        out[(slice(None), slice(None)) + pos] = acc
    return out.astype(x.dtype)


def scaled(n, s):
    return int(np.round(n * s))  # half to even, as TVM's round of a constant


cases = []

# ---- nn.pad -------------------------------------------------------------------------------------
for dt in DTYPES:
    x = data((2, 3, 4), dt)
    widths = [[0, 1], [2, 0], [1, 2]]
    for mode in ["constant", "edge", "reflect"]:
        want = np.pad(x, widths, mode=mode, constant_values=1.5) if mode == "constant" else np.pad(x, widths, mode=mode)
        cases.append(case(f"pad_{mode}_{dt}", "nn.pad", {"pad_width": widths, "pad_mode": mode},
                          [x, np.array(1.5, dtype=dt)], want))
    # The reference's Python API passes a Python number as an int32 constant.
    cases.append(case(f"pad_int32_value_{dt}", "nn.pad", {"pad_width": [[1, 1], [0, 0], [0, 2]]},
                      [x, np.array(-3, dtype="int32")], np.pad(x, [[1, 1], [0, 0], [0, 2]], constant_values=-3)))
    # PyTorch's replicate/reflect padding of the last two axes cross-checks the modes.
    img = data((1, 2, 3, 4), dt)
    for mode, tmode in [("edge", "replicate"), ("reflect", "reflect")]:
        w = [[0, 0], [0, 0], [2, 1], [1, 3]]
        want = np.pad(img, w, mode=mode)
        agree(want, F.pad(torch.from_numpy(img), (1, 3, 2, 1), mode=tmode).numpy(), f"pad {mode}")
        cases.append(case(f"pad_{mode}_nchw_{dt}", "nn.pad", {"pad_width": w, "pad_mode": mode},
                          [img, np.array(0, dtype="int32")], want))

# ---- nn.mirror_pad ------------------------------------------------------------------------------
for dt in DTYPES:
    x = data((3, 4), dt)
    for mode, np_mode in [("SYMMETRIC", "symmetric"), ("REFLECT", "reflect")]:
        widths = [[2, 1], [1, 3]] if mode == "REFLECT" else [[3, 2], [4, 1]]
        cases.append(case(f"mirror_pad_{mode}_{dt}", "nn.mirror_pad", {"pad_width": widths, "mode": mode}, [x],
                          np.pad(x, widths, mode=np_mode)))

# ---- nn.dilate ----------------------------------------------------------------------------------
for dt in DTYPES:
    x = data((2, 3, 3), dt)
    strides = [1, 2, 3]
    out = np.full([(n - 1) * s + 1 for n, s in zip(x.shape, strides)], -1.25, dtype=dt)
    out[::1, ::2, ::3] = x
    cases.append(case(f"dilate_{dt}", "nn.dilate", {"strides": strides, "dilation_value": -1.25}, [x], out))
    y = data((2, 2, 3, 2), dt)
    out = np.zeros([3, 2, 5, 2], dtype=dt)
    out[::2, :, ::2, :] = y
    cases.append(case(f"dilate_default_value_{dt}", "nn.dilate", {"strides": [2, 1, 2, 1]}, [y], out))

# ---- nn.upsampling -------------------------------------------------------------------------------
UPS = [
    ("nearest_neighbor", False, 2.0, 3.0),
    ("nearest_neighbor", True, 2.0, 1.5),
    ("nearest_neighbor", False, 1.5, 0.5),
    ("bilinear", False, 2.0, 2.5),
    ("bilinear", True, 2.0, 3.0),
    ("bicubic", False, 2.0, 1.5),
    ("bicubic", True, 1.5, 2.0),
]
for dt in DTYPES:
    x = data((1, 2, 3, 4), dt)
    for method, align, sh, sw in UPS:
        oh, ow = scaled(3, sh), scaled(4, sw)
        mode = "align_corners" if align else "asymmetric"
        kind = {"nearest_neighbor": "nearest", "bilinear": "linear", "bicubic": "cubic"}[method]
        want = resize_nc(x, (oh, ow), kind, mode)
        t = torch.from_numpy(x.astype(np.float64))
        if method == "bilinear" and align:
            agree(want, F.interpolate(t, size=(oh, ow), mode="bilinear", align_corners=True).numpy(), "bilinear")
        if method == "nearest_neighbor" and not align and sh == 2.0 and sw == 3.0:
            agree(want, F.interpolate(t, size=(oh, ow), mode="nearest").numpy(), "nearest")
        attrs = {"scale_h": sh, "scale_w": sw, "method": method, "align_corners": align}
        name = f"upsampling_{method}_{'align_' if align else ''}{sh}x{sw}_{dt}"
        cases.append(case(name + "_nchw", "nn.upsampling", attrs, [x], want))
        cases.append(case(name + "_nhwc", "nn.upsampling", dict(attrs, layout="NHWC"),
                          [x.transpose(0, 2, 3, 1)], want.transpose(0, 2, 3, 1)))

# ---- nn.upsampling3d -----------------------------------------------------------------------------
UPS3 = [
    ("nearest_neighbor", "half_pixel", (2.0, 2.0, 2.0)),
    ("nearest_neighbor", "asymmetric", (1.0, 2.0, 3.0)),
    ("nearest_neighbor", "align_corners", (2.0, 1.5, 2.0)),
    ("trilinear", "half_pixel", (2.0, 1.5, 2.0)),
    ("trilinear", "align_corners", (1.5, 2.0, 2.0)),
    ("trilinear", "asymmetric", (2.0, 2.0, 1.5)),
]
for dt in DTYPES:
    x = data((1, 2, 2, 3, 2), dt)
    for method, mode, (sd, sh, sw) in UPS3:
        out = (scaled(2, sd), scaled(3, sh), scaled(2, sw))
        want = resize_nc(x, out, "nearest" if method == "nearest_neighbor" else "linear", mode)
        if method == "trilinear" and mode in ("half_pixel", "align_corners"):
            t = torch.from_numpy(x.astype(np.float64))
            agree(want, F.interpolate(t, size=out, mode="trilinear", align_corners=mode == "align_corners").numpy(),
                  f"trilinear {mode}")
        attrs = {"scale_d": sd, "scale_h": sh, "scale_w": sw, "method": method,
                 "coordinate_transformation_mode": mode}
        name = f"upsampling3d_{method}_{mode}_{dt}"
        cases.append(case(name + "_ncdhw", "nn.upsampling3d", attrs, [x], want))
        cases.append(case(name + "_ndhwc", "nn.upsampling3d", dict(attrs, layout="NDHWC"),
                          [x.transpose(0, 2, 3, 4, 1)], want.transpose(0, 2, 3, 4, 1)))

# ---- nn.fifo_buffer ------------------------------------------------------------------------------
for dt in DTYPES:
    for axis, dshape, bshape in [(1, (2, 1, 3), (2, 4, 3)), (-1, (2, 3, 2), (2, 3, 5)), (0, (2, 3), (3, 3))]:
        d, b = data(dshape, dt), data(bshape, dt)
        ax = axis % len(bshape)
        cat = np.concatenate([b, d], axis=ax)
        want = np.take(cat, range(dshape[ax], dshape[ax] + bshape[ax]), axis=ax)
        cases.append(case(f"fifo_buffer_axis{axis}_{dt}", "nn.fifo_buffer", {"axis": axis}, [d, b], want))

# ---- nn.depth_to_space / nn.space_to_depth ---------------------------------------------------------


def depth_to_space(x, b, mode):
    n, c, h, w = x.shape
    if mode == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


def space_to_depth(x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


for dt in DTYPES:
    x = data((2, 8, 2, 3), dt)
    for mode in ["DCR", "CRD"]:
        want = depth_to_space(x, 2, mode)
        if mode == "CRD":
            agree(want, F.pixel_shuffle(torch.from_numpy(x), 2).numpy(), "pixel_shuffle")
        attrs = {"block_size": 2, "mode": mode}
        cases.append(case(f"depth_to_space_{mode}_{dt}_nchw", "nn.depth_to_space", attrs, [x], want))
        cases.append(case(f"depth_to_space_{mode}_{dt}_nhwc", "nn.depth_to_space", dict(attrs, layout="NHWC"),
                          [x.transpose(0, 2, 3, 1)], want.transpose(0, 2, 3, 1)))
    y = data((1, 3, 4, 6), dt)
    want = space_to_depth(y, 2)
    # space_to_depth inverts DCR depth_to_space.
    agree(depth_to_space(want, 2, "DCR"), y, "space_to_depth inverse")
    cases.append(case(f"space_to_depth_{dt}_nchw", "nn.space_to_depth", {"block_size": 2}, [y], want))
    cases.append(case(f"space_to_depth_{dt}_nhwc", "nn.space_to_depth", {"block_size": 2, "layout": "NHWC"},
                      [y.transpose(0, 2, 3, 1)], want.transpose(0, 2, 3, 1)))
    z = data((1, 2, 6, 3), dt)
    cases.append(case(f"space_to_depth_block3_{dt}", "nn.space_to_depth", {"block_size": 3}, [z], space_to_depth(z, 3)))

# ---- nn.space_to_batch_nd / nn.batch_to_space_nd ---------------------------------------------------


def space_to_batch(x, block, pads, value):
    m = len(block)
    x = np.pad(x, [[0, 0]] + pads + [[0, 0]] * (x.ndim - 1 - m), constant_values=value)
    batch, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    shape = [batch]
    for s, b in zip(spatial, block):
        shape += [s // b, b]
    y = x.reshape(shape + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, y.ndim))
    y = y.transpose(perm)
    return y.reshape([batch * int(np.prod(block))] + [s // b for s, b in zip(spatial, block)] + list(rest))


def batch_to_space(x, block, crops):
    m = len(block)
    batch, spatial, rest = x.shape[0], x.shape[1:1 + m], x.shape[1 + m:]
    out_batch = batch // int(np.prod(block))
    y = x.reshape(list(block) + [out_batch] + list(spatial) + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(1 + 2 * m, y.ndim))
    y = y.transpose(perm).reshape([out_batch] + [s * b for s, b in zip(spatial, block)] + list(rest))
    idx = (slice(None),) + tuple(slice(c[0], s * b - c[1]) for c, s, b in zip(crops, spatial, block))
    return y[idx]


for dt in DTYPES:
    x = data((2, 3, 4, 2), dt)
    for block, pads, value in [([2, 2], [[1, 0], [0, 2]], 0.0), ([3, 1], [[0, 0], [1, 1]], -2.5), ([2], [[0, 1]], 0.5)]:
        want = space_to_batch(x, block, pads, value)
        agree(batch_to_space(want, block, pads), x, "batch_to_space inverts space_to_batch")
        attrs = {"block_shape": block, "paddings": pads, "pad_value": value}
        tag = "x".join(map(str, block))
        cases.append(case(f"space_to_batch_nd_{tag}_{dt}", "nn.space_to_batch_nd", attrs, [x], want))
        cases.append(case(f"batch_to_space_nd_{tag}_{dt}", "nn.batch_to_space_nd",
                          {"block_shape": block, "crops": pads}, [want], x))
    y = data((8, 1, 2, 3), dt)
    cases.append(case(f"batch_to_space_nd_crop_{dt}", "nn.batch_to_space_nd",
                      {"block_shape": [2, 2], "crops": [[0, 1], [1, 0]]}, [y], batch_to_space(y, [2, 2], [[0, 1], [1, 0]])))

write_cases(os.path.join(os.path.dirname(os.path.abspath(__file__)), "transform.json"), "gen_transform.py", cases)
print(len(cases), "cases")

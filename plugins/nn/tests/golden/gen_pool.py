#!/usr/bin/python3
"""Golden data for the nn plugin's pooling family (plugins/nn/tests/pool).

Run once with Debian's python3 (python3-numpy, python3-torch) from this folder:
    /usr/bin/python3 gen_pool.py
It writes pool.json (max/avg pool 1d/2d/3d), pool_adaptive.json (adaptive and
global pools) and pool_grad.json (max/avg_pool2d_grad).

The oracle is NumPy, written from TVM's TOPI definitions (pool_impl_nd,
adaptive_pool_impl, pool_grad_impl), because TVM and PyTorch disagree on
ceil_mode (TVM lets a window start in the tail padding), on what max pooling
pads with (the dtype's lowest value, not -inf) and on dilated average pooling.
Wherever PyTorch's conventions coincide (same output shape, symmetric
padding) the NumPy result is asserted equal to PyTorch's.
"""
import itertools
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import float_tensor, write_cases  # noqa: E402 (found through the path above)

RNG = np.random.RandomState(4)
DTYPES = ("float32", "float64")


def tdiv(a, b):
    """C (and TVM) integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def layout_axes(layout, spatial):
    return [layout.index(c) for c in spatial]


def to_layout(x_nc, layout, spatial):
    """x_nc is N, C, spatial...; returns it transposed to `layout`."""
    canonical = "NC" + spatial
    return np.transpose(x_nc, [canonical.index(c) for c in layout])


# ---- max/avg pool --------------------------------------------------------------------------


def topi_pool(x, axes, k, s, d, ph, pt, ceil, is_max, cip, dtype):
    n = len(axes)
    off = [s[i] - 1 if ceil else 0 for i in range(n)]
    pad_value = np.finfo(dtype).min if is_max else 0.0
    width = [(0, 0)] * x.ndim
    for i, a in enumerate(axes):
        width[a] = (ph[i], pt[i] + off[i])
    xp = np.pad(x, width, constant_values=pad_value)
    out_shape = list(x.shape)
    for i, a in enumerate(axes):
        out_shape[a] = (x.shape[a] + ph[i] + pt[i] + off[i] - (k[i] - 1) * d[i] - 1) // s[i] + 1
    out = np.zeros(out_shape)
    for idx in np.ndindex(*out_shape):
        sl = list(idx)
        for i, a in enumerate(axes):
            b = idx[a] * s[i]
            sl[a] = slice(b, b + (k[i] - 1) * d[i] + 1, d[i])
        window = xp[tuple(sl)]
        if is_max:
            out[idx] = window.max()
            continue
        count = 1
        for i, a in enumerate(axes):
            start = idx[a] * s[i] - ph[i]
            end = start + (k[i] - 1) * d[i]
            if cip:
                end = min(end, x.shape[a] + pt[i] - 1)
                count *= tdiv(end - start, d[i]) + 1
            else:
                jumps = max(tdiv(d[i] - 1 - start, d[i]), 0)
                end = min(end, x.shape[a] - 1)
                count *= tdiv(end - (start + d[i] * jumps), d[i]) + 1
        if not cip:
            count = max(count, 1)
        out[idx] = window.sum() / count
    return out


def torch_pool(x_nc, k, s, d, p, ceil, is_max, cip):
    t = torch.from_numpy(x_nc)
    n = len(k)
    if is_max:
        f = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[n - 1]
        return f(t, k, s, p, d, ceil_mode=ceil).numpy()
    f = (F.avg_pool1d, F.avg_pool2d, F.avg_pool3d)[n - 1]
    return f(t, k, s, p, ceil_mode=ceil, count_include_pad=cip).numpy()


def expand(v, n):
    return list(v) if isinstance(v, (list, tuple)) else [v] * n


def pad_pair(padding, n):
    """(heads, tails) as get_pad_tuple reads an int or 1, n or 2n values."""
    p = padding if isinstance(padding, list) else [padding]
    if len(p) == 1:
        p = p * n
    if len(p) == n:
        return p, p
    return p[:n], p[n:]


def pool_case(name, op, nc_shape, layout, attrs, is_max):
    spatial = {1: "W", 2: "HW", 3: "DHW"}[len(nc_shape) - 2]
    n = len(spatial)
    k = expand(attrs.get("pool_size", 1), n)
    s = expand(attrs.get("strides", 1), n)
    d = expand(attrs.get("dilation", 1), n)
    ph, pt = pad_pair(attrs.get("padding", 0), n)
    ceil = attrs.get("ceil_mode", False)
    cip = attrs.get("count_include_pad", False)
    cases = []
    for dtype in DTYPES:
        x_nc = RNG.uniform(-2, 2, size=nc_shape).astype(dtype).astype("float64")
        x = to_layout(x_nc, layout, spatial)
        y = topi_pool(x, layout_axes(layout, spatial), k, s, d, ph, pt, ceil, is_max, cip, dtype)
        comparable = ph == pt and all(2 * p <= kk for p, kk in zip(ph, k)) and (is_max or d == [1] * n)
        if comparable:
            ref = torch_pool(x_nc, k, s, d, ph, ceil, is_max, cip)
            canonical = "NC" + spatial
            ref = np.transpose(ref, [canonical.index(c) for c in layout])
            if ref.shape == y.shape:
                np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12, err_msg=name)
        case_attrs = dict(attrs)
        if layout != "NC" + spatial:
            case_attrs["layout"] = layout
        cases.append({"name": f"{name}_{dtype}", "op": op, "attrs": case_attrs,
                      "inputs": [float_tensor(x, dtype)], "output": float_tensor(y, dtype)})
    return cases


def pool_cases():
    out = []
    def add(name, op, shape, layout, attrs):
        out.extend(pool_case(name, op, shape, layout, attrs, op.startswith("nn.max")))

    s2 = (1, 2, 5, 6)
    add("max2d_k2s2", "nn.max_pool2d", s2, "NCHW", {"pool_size": 2, "strides": 2})
    add("max2d_k3_pad1", "nn.max_pool2d", s2, "NCHW", {"pool_size": [3, 3], "padding": 1})
    add("max2d_pad_two_form", "nn.max_pool2d", s2, "NCHW", {"pool_size": [3, 2], "strides": [2, 1], "padding": [1, 0]})
    add("max2d_pad_four_form", "nn.max_pool2d", s2, "NCHW", {"pool_size": [2, 3], "strides": [2, 1], "padding": [0, 1, 1, 0]})
    add("max2d_dilation2", "nn.max_pool2d", s2, "NCHW", {"pool_size": 2, "dilation": 2, "padding": 1})
    add("max2d_ceil_mode", "nn.max_pool2d", (1, 2, 5, 7), "NCHW", {"pool_size": 2, "strides": 2, "ceil_mode": True})
    # TVM only: the last window starts in the bottom padding and reads the lowest float.
    add("max2d_ceil_window_in_padding", "nn.max_pool2d", (1, 1, 3, 4), "NCHW",
        {"pool_size": 2, "strides": 2, "padding": 1, "ceil_mode": True})
    add("max2d_nhwc", "nn.max_pool2d", s2, "NHWC", {"pool_size": 3, "strides": 2, "padding": 1})
    add("max2d_nhwc_dilation", "nn.max_pool2d", s2, "NHWC", {"pool_size": 2, "dilation": [2, 1], "padding": [1, 0, 0, 1]})
    add("avg2d_k2s2", "nn.avg_pool2d", s2, "NCHW", {"pool_size": 2, "strides": 2})
    add("avg2d_pad1_exclude_pad", "nn.avg_pool2d", s2, "NCHW", {"pool_size": 3, "padding": 1})
    add("avg2d_pad1_include_pad", "nn.avg_pool2d", s2, "NCHW", {"pool_size": 3, "padding": 1, "count_include_pad": True})
    add("avg2d_ceil_include_pad", "nn.avg_pool2d", s2, "NCHW",
        {"pool_size": 3, "strides": 2, "padding": 1, "ceil_mode": True, "count_include_pad": True})
    add("avg2d_ceil_exclude_pad", "nn.avg_pool2d", s2, "NCHW",
        {"pool_size": 3, "strides": 2, "padding": 1, "ceil_mode": True})
    add("avg2d_ceil_window_in_padding_include", "nn.avg_pool2d", (1, 1, 3, 4), "NCHW",
        {"pool_size": 2, "strides": 2, "padding": 1, "ceil_mode": True, "count_include_pad": True})
    add("avg2d_ceil_window_in_padding_exclude", "nn.avg_pool2d", (1, 1, 3, 4), "NCHW",
        {"pool_size": 2, "strides": 2, "padding": 1, "ceil_mode": True})
    add("avg2d_dilation_exclude_pad", "nn.avg_pool2d", s2, "NCHW", {"pool_size": 2, "dilation": 2, "padding": 1})
    add("avg2d_dilation_include_pad", "nn.avg_pool2d", s2, "NCHW",
        {"pool_size": [2, 3], "dilation": [2, 2], "padding": [2, 1], "count_include_pad": True})
    add("avg2d_asymmetric_pad", "nn.avg_pool2d", s2, "NCHW", {"pool_size": 2, "strides": 2, "padding": [1, 0, 0, 1]})
    add("avg2d_nhwc_ceil", "nn.avg_pool2d", s2, "NHWC",
        {"pool_size": 3, "strides": 2, "padding": 1, "ceil_mode": True, "count_include_pad": True})

    s1 = (2, 2, 7)
    add("max1d_k3s2_pad1", "nn.max_pool1d", s1, "NCW", {"pool_size": 3, "strides": 2, "padding": 1})
    add("max1d_nwc_dilation", "nn.max_pool1d", s1, "NWC", {"pool_size": 2, "dilation": 3, "padding": [1, 2]})
    add("avg1d_ceil_include_pad", "nn.avg_pool1d", s1, "NCW",
        {"pool_size": 2, "strides": 2, "padding": 1, "ceil_mode": True, "count_include_pad": True})
    add("avg1d_nwc_dilation", "nn.avg_pool1d", s1, "NWC", {"pool_size": 3, "dilation": 2, "padding": [1, 2]})

    s3 = (1, 2, 4, 5, 3)
    add("max3d_k2s2", "nn.max_pool3d", s3, "NCDHW", {"pool_size": 2, "strides": 2})
    add("max3d_ndhwc_pad", "nn.max_pool3d", s3, "NDHWC", {"pool_size": [3, 2, 3], "padding": [1, 0, 1]})
    add("avg3d_exclude_pad", "nn.avg_pool3d", s3, "NCDHW", {"pool_size": [2, 2, 3], "padding": 1})
    add("avg3d_ndhwc_ceil", "nn.avg_pool3d", s3, "NDHWC",
        {"pool_size": 2, "strides": 2, "padding": [1, 0, 0, 0, 1, 1], "ceil_mode": True, "count_include_pad": True})
    return out


# ---- adaptive and global pools -------------------------------------------------------------


def adaptive_np(x, axes, out_sizes, is_max):
    out_shape = list(x.shape)
    for a, o in zip(axes, out_sizes):
        out_shape[a] = o
    out = np.zeros(out_shape)
    for idx in np.ndindex(*out_shape):
        sl = list(idx)
        for a in axes:
            i, o, n = idx[a], out_shape[a], x.shape[a]
            sl[a] = slice((i * n) // o, -((-(i + 1) * n) // o))
        w = x[tuple(sl)]
        out[idx] = w.max() if is_max else w.mean()
    return out


def adaptive_cases():
    out = []
    def add(name, op, nc_shape, layout, output_size, rng=RNG):
        spatial = {1: "W", 2: "HW", 3: "DHW"}[len(nc_shape) - 2]
        is_max = "max" in op
        glob = op.startswith("nn.global")
        sizes = [1] * len(spatial) if glob else output_size
        if not glob:
            if sizes is None:
                sizes = [None] * len(spatial)
            elif isinstance(sizes, int):
                sizes = [sizes] * len(spatial)
        resolved = [s if s is not None else nc_shape[2 + i] for i, s in enumerate(sizes)]
        for dtype in DTYPES:
            x_nc = rng.uniform(-2, 2, size=nc_shape).astype(dtype).astype("float64")
            x = to_layout(x_nc, layout, spatial)
            y = adaptive_np(x, layout_axes(layout, spatial), resolved, is_max)
            f = {(1, True): F.adaptive_max_pool1d, (2, True): F.adaptive_max_pool2d, (3, True): F.adaptive_max_pool3d,
                 (1, False): F.adaptive_avg_pool1d, (2, False): F.adaptive_avg_pool2d,
                 (3, False): F.adaptive_avg_pool3d}[(len(spatial), is_max)]
            ref = f(torch.from_numpy(x_nc), resolved if len(spatial) > 1 else resolved[0]).numpy()
            ref = np.transpose(ref, [("NC" + spatial).index(c) for c in layout])
            np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12, err_msg=name)
            attrs = {} if layout == "NC" + spatial else {"layout": layout}
            if not glob:
                attrs["output_size"] = output_size
            out.append({"name": f"{name}_{dtype}", "op": op, "attrs": attrs,
                        "inputs": [float_tensor(x, dtype)], "output": float_tensor(y, dtype)})

    add("global_max_nchw", "nn.global_max_pool2d", (2, 3, 4, 5), "NCHW", None)
    add("global_avg_nchw", "nn.global_avg_pool2d", (2, 3, 4, 5), "NCHW", None)
    add("global_max_nhwc", "nn.global_max_pool2d", (2, 3, 4, 5), "NHWC", None)
    add("global_avg_nhwc", "nn.global_avg_pool2d", (2, 3, 4, 5), "NHWC", None)
    add("amax1d_7_to_3", "nn.adaptive_max_pool1d", (2, 2, 7), "NCW", 3)
    add("aavg1d_3_to_4", "nn.adaptive_avg_pool1d", (2, 2, 3), "NCW", [4])
    add("aavg1d_nwc", "nn.adaptive_avg_pool1d", (1, 3, 5), "NWC", 2)
    add("amax2d_to_2x3", "nn.adaptive_max_pool2d", (1, 2, 5, 7), "NCHW", [2, 3])
    add("aavg2d_int", "nn.adaptive_avg_pool2d", (1, 2, 5, 7), "NCHW", 3)
    add("aavg2d_none_entry", "nn.adaptive_avg_pool2d", (1, 2, 5, 7), "NCHW", [None, 2])
    add("amax2d_none", "nn.adaptive_max_pool2d", (1, 2, 3, 4), "NCHW", None)
    add("aavg2d_nhwc", "nn.adaptive_avg_pool2d", (1, 2, 5, 7), "NHWC", [4, 3])
    add("amax3d_none_entry", "nn.adaptive_max_pool3d", (1, 2, 4, 5, 6), "NCDHW", [2, None, 3])
    add("aavg3d_ndhwc", "nn.adaptive_avg_pool3d", (1, 2, 4, 5, 6), "NDHWC", 2)
    # Even bins (each output extent divides the input's): the plain pooling
    # with kernel = stride = in / out that targets such as onednn run. Their
    # own random stream leaves the other cases' data as it was.
    even = np.random.RandomState(5)
    add("aavg2d_even_bins", "nn.adaptive_avg_pool2d", (1, 3, 6, 8), "NCHW", [3, 2], even)
    add("amax2d_even_bins_nhwc", "nn.adaptive_max_pool2d", (2, 4, 6, 4), "NHWC", [2, 4], even)
    return out


# ---- pool gradients ------------------------------------------------------------------------


def topi_pool_grad(dy, x, axes, k, s, ph, pt, ceil, is_max, cip, dtype):
    """pool_grad_impl read literally: each input element gathers from the
    output windows that cover it."""
    pt_eff = [pt[i] + (s[i] - 1 if ceil else 0) for i in range(2)]
    out_ext = [dy.shape[a] for a in axes]
    if is_max:
        # Argmax of each window over the padded input (pad = lowest): the first largest.
        width = [(0, 0)] * x.ndim
        for i, a in enumerate(axes):
            width[a] = (ph[i], pt_eff[i])
        xp = np.pad(x, width, constant_values=np.finfo(dtype).min)
        argmax = {}
        for idx in np.ndindex(*dy.shape):
            best, where = np.finfo(dtype).min, None
            for r in itertools.product(range(k[0]), range(k[1])):
                pos = list(idx)
                for i, a in enumerate(axes):
                    pos[a] = idx[a] * s[i] + r[i]
                if xp[tuple(pos)] > best:
                    best, where = xp[tuple(pos)], tuple(pos)
            argmax[idx] = where
    dx = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        padded = [idx[a] + ph[i] for i, a in enumerate(axes)]
        total = 0.0
        for w in itertools.product(*[range(tdiv(k[i] + s[i] - 1, s[i])) for i in range(2)]):
            o = [tdiv(padded[i], s[i]) - w[i] for i in range(2)]
            lower = [0 if padded[i] < k[i] else tdiv(padded[i] - k[i], s[i]) + 1 for i in range(2)]
            if any(o[i] < lower[i] or o[i] >= out_ext[i] for i in range(2)):
                continue
            oidx = list(idx)
            for i, a in enumerate(axes):
                oidx[a] = o[i]
            oidx = tuple(oidx)
            if is_max:
                pidx = list(idx)
                for i, a in enumerate(axes):
                    pidx[a] = padded[i]
                if argmax[oidx] == tuple(pidx):
                    total += dy[oidx]
                continue
            if cip:
                factor = k[0] * k[1]
            else:
                factor = 1
                for i, a in enumerate(axes):
                    start = o[i] * s[i] - ph[i]
                    factor *= min(start + k[i], x.shape[a]) - max(start, 0)
                factor = max(factor, 1)
            total += dy[oidx] / factor
        dx[idx] = total
    return dx


def grad_cases():
    out = []
    def add(name, op, nc_shape, layout, attrs):
        is_max = op.startswith("nn.max")
        k = expand(attrs.get("pool_size", 1), 2)
        s = expand(attrs.get("strides", 1), 2)
        ph, pt = pad_pair(attrs.get("padding", 0), 2)
        ceil = attrs.get("ceil_mode", False)
        cip = attrs.get("count_include_pad", False)
        axes = layout_axes(layout, "HW")
        for dtype in DTYPES:
            x_nc = RNG.uniform(-2, 2, size=nc_shape).astype(dtype).astype("float64")
            x = to_layout(x_nc, layout, "HW")
            fwd = topi_pool(x, axes, k, s, [1, 1], ph, pt, ceil, is_max, cip, dtype)
            dy = RNG.uniform(-1, 1, size=fwd.shape).astype(dtype).astype("float64")
            dx = topi_pool_grad(dy, x, axes, k, s, ph, pt, ceil, is_max, cip, dtype)
            if ph == pt and all(2 * p <= kk for p, kk in zip(ph, k)) and (is_max or not ceil):
                t = torch.from_numpy(x_nc).requires_grad_()
                f = F.max_pool2d if is_max else F.avg_pool2d
                kwargs = {"ceil_mode": ceil} if is_max else {"ceil_mode": ceil, "count_include_pad": cip}
                y = f(t, k, s, ph, **kwargs)
                perm = [("NCHW").index(c) for c in layout]
                if tuple(np.transpose(y.detach().numpy(), perm).shape) == dy.shape:
                    inv = np.argsort(perm)
                    y.backward(torch.from_numpy(np.ascontiguousarray(np.transpose(dy, inv))))
                    ref = np.transpose(t.grad.numpy(), perm)
                    np.testing.assert_allclose(dx, ref, rtol=1e-12, atol=1e-12, err_msg=name)
            case_attrs = dict(attrs)
            if layout != "NCHW":
                case_attrs["layout"] = layout
            out.append({"name": f"{name}_{dtype}", "op": op, "attrs": case_attrs,
                        "inputs": [float_tensor(dy, dtype), float_tensor(x, dtype)], "output": float_tensor(dx, dtype)})

    s2 = (1, 2, 5, 6)
    add("max_grad_k2s2", "nn.max_pool2d_grad", s2, "NCHW", {"pool_size": 2, "strides": 2})
    add("max_grad_overlapping", "nn.max_pool2d_grad", s2, "NCHW", {"pool_size": 3, "padding": 1})
    add("max_grad_ceil_asymmetric", "nn.max_pool2d_grad", s2, "NCHW",
        {"pool_size": 3, "strides": 2, "padding": [0, 1, 1, 0], "ceil_mode": True})
    add("max_grad_nhwc", "nn.max_pool2d_grad", s2, "NHWC", {"pool_size": [3, 2], "strides": [2, 1], "padding": 1})
    add("avg_grad_exclude_pad", "nn.avg_pool2d_grad", s2, "NCHW", {"pool_size": 3, "strides": 2, "padding": 1})
    add("avg_grad_include_pad", "nn.avg_pool2d_grad", s2, "NCHW",
        {"pool_size": 3, "strides": 2, "padding": 1, "count_include_pad": True})
    add("avg_grad_ceil_include_pad", "nn.avg_pool2d_grad", s2, "NCHW",
        {"pool_size": 3, "strides": 2, "padding": 1, "ceil_mode": True, "count_include_pad": True})
    add("avg_grad_nhwc", "nn.avg_pool2d_grad", s2, "NHWC", {"pool_size": 2, "strides": [1, 2]})
    return out


if __name__ == "__main__":
    write_cases("pool.json", "gen_pool.py", pool_cases(), compact=True, newline=True)
    write_cases("pool_adaptive.json", "gen_pool.py", adaptive_cases(), compact=True, newline=True)
    write_cases("pool_grad.json", "gen_pool.py", grad_cases(), compact=True, newline=True)

#!/usr/bin/python3
"""Golden data for the nn plugin's normalization family (plugins/nn/tests/norm).

Run once with Debian's python3 (python3-numpy, python3-torch) from this folder:
    /usr/bin/python3 gen_norm.py
It writes norm.json.

The oracle is NumPy, written from Relay's definitions (TOPI's batch_norm, lrn
and l2_normalize; SimplifyInference's expansion of instance_norm, layer_norm
and group_norm). PyTorch confirms it where its conventions coincide: channel
axis 1 for batch/instance/group norm, the last axes for layer_norm, and lrn
(with k = bias). TVM's group_norm on a channel axis other than 1 reduces only
over the axes after it, and l2_normalize floors the sum of squares (not the
norm) at eps; PyTorch has neither, so NumPy alone covers them.
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import float_tensor, write_cases  # noqa: E402 (found through the path above)

RNG = np.random.RandomState(5)
DTYPES = ("float32", "float64")


def rand(shape, dtype, lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, size=shape).astype(dtype).astype("float64")


def along(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


def normalize(x, axes, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def affine(y, gamma, beta, axis, scale, center):
    if scale:
        y = y * along(gamma, y.ndim, axis)
    if center:
        y = y + along(beta, y.ndim, axis)
    return y


def close(a, b, name):
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-10, err_msg=name)


def batch_norm_cases():
    out = []
    def add(name, shape, attrs):
        axis = attrs.get("axis", 1)
        axis = axis if axis >= 0 else len(shape) + axis
        eps, center, scale = attrs.get("epsilon", 1e-5), attrs.get("center", True), attrs.get("scale", True)
        for dtype in DTYPES:
            c = shape[axis]
            x, gamma, beta, mean = rand(shape, dtype), rand(c, dtype), rand(c, dtype), rand(c, dtype, -0.5, 0.5)
            var = rand(c, dtype, 0.1, 2.0)
            y = (x - along(mean, x.ndim, axis)) / np.sqrt(along(var, x.ndim, axis) + eps)
            y = affine(y, gamma, beta, axis, scale, center)
            xt = torch.from_numpy(np.ascontiguousarray(np.moveaxis(x, axis, 1)))
            ref = F.batch_norm(xt, torch.from_numpy(mean), torch.from_numpy(var),
                               torch.from_numpy(gamma) if scale else None, torch.from_numpy(beta) if center else None,
                               training=False, eps=eps).numpy()
            close(y, np.moveaxis(ref, 1, axis), name)
            out.append({"name": f"{name}_{dtype}", "op": "nn.batch_norm", "attrs": attrs,
                        "inputs": [float_tensor(v, dtype) for v in (x, gamma, beta, mean, var)],
                        "outputs": [float_tensor(y, dtype), float_tensor(mean, dtype), float_tensor(var, dtype)]})
    add("nchw", (2, 3, 4, 5), {})
    add("axis_last_is_minus_one", (2, 4, 5, 3), {"axis": -1})
    add("axis_3_eps", (2, 4, 5, 3), {"axis": 3, "epsilon": 1e-3})
    add("no_center", (3, 4), {"center": False})
    add("no_scale_axis0", (4, 3, 2), {"axis": 0, "scale": False})
    return out


def affine_norm_cases():
    out = []
    def add(name, op, shape, attrs):
        default_axis = -1 if op == "nn.layer_norm" else 1
        axis = attrs.get("axis", default_axis)
        axis = axis if axis >= 0 else len(shape) + axis
        eps, center, scale = attrs.get("epsilon", 1e-5), attrs.get("center", True), attrs.get("scale", True)
        for dtype in DTYPES:
            c = shape[axis]
            x, gamma, beta = rand(shape, dtype), rand(c, dtype), rand(c, dtype)
            if op == "nn.instance_norm":
                y = normalize(x, tuple(d for d in range(1, x.ndim) if d != axis), eps)
            elif op == "nn.layer_norm":
                y = normalize(x, (axis,), eps)
            else:
                g = attrs["num_groups"]
                grouped = x.reshape(shape[:axis] + (g, c // g) + shape[axis + 1:])
                y = normalize(grouped, tuple(range(axis + 1, grouped.ndim)), eps).reshape(shape)
            y = affine(y, gamma, beta, axis, scale, center)
            tg = torch.from_numpy(gamma) if scale else None
            tb = torch.from_numpy(beta) if center else None
            ref = None
            if op == "nn.instance_norm" and axis == 1:
                ref = F.instance_norm(torch.from_numpy(x), weight=tg, bias=tb, eps=eps).numpy()
            elif op == "nn.layer_norm" and axis == x.ndim - 1:
                ref = F.layer_norm(torch.from_numpy(x), (c,), tg, tb, eps).numpy()
            elif op == "nn.group_norm" and axis == 1:
                ref = F.group_norm(torch.from_numpy(x), attrs["num_groups"], tg, tb, eps).numpy()
            if ref is not None:
                close(y, ref, name)
            out.append({"name": f"{name}_{dtype}", "op": op, "attrs": attrs,
                        "inputs": [float_tensor(v, dtype) for v in (x, gamma, beta)], "output": float_tensor(y, dtype)})
    add("instance_nchw", "nn.instance_norm", (2, 3, 4, 5), {})
    add("instance_ncw_no_affine", "nn.instance_norm", (2, 3, 6), {"center": False, "scale": False})
    add("instance_nhwc", "nn.instance_norm", (2, 4, 5, 3), {"axis": -1, "epsilon": 1e-3})
    add("layer_last_axis", "nn.layer_norm", (2, 3, 6), {})
    add("layer_axis1", "nn.layer_norm", (2, 5, 3), {"axis": 1})
    add("layer_no_scale", "nn.layer_norm", (4, 7), {"scale": False, "epsilon": 1e-2})
    add("group_nchw", "nn.group_norm", (2, 6, 3, 2), {"num_groups": 3})
    add("group_one_group", "nn.group_norm", (2, 4, 3), {"num_groups": 1, "center": False})
    add("group_per_channel", "nn.group_norm", (2, 4, 3), {"num_groups": 4})
    # TVM reduces over the axes after the channel axis only: per (N, H, W, group) here.
    add("group_channel_last", "nn.group_norm", (2, 3, 2, 6), {"num_groups": 2, "axis": 3})
    return out


def lrn_cases():
    out = []
    def add(name, shape, attrs):
        size, axis = attrs.get("size", 5), attrs.get("axis", 1)
        bias, alpha, beta = attrs.get("bias", 2.0), attrs.get("alpha", 1e-5), attrs.get("beta", 0.75)
        for dtype in DTYPES:
            x = rand(shape, dtype, -3, 3)
            sq = np.moveaxis(x, axis, 0) ** 2
            padded = np.pad(sq, [(size // 2, size // 2)] + [(0, 0)] * (x.ndim - 1))
            s = np.stack([padded[c:c + size].sum(axis=0) for c in range(x.shape[axis])])
            y = x / (bias + alpha * np.moveaxis(s, 0, axis) / size) ** beta
            xt = torch.from_numpy(np.ascontiguousarray(np.moveaxis(x, axis, 1)))
            ref = F.local_response_norm(xt, size, alpha=alpha, beta=beta, k=bias).numpy()
            close(y, np.moveaxis(ref, 1, axis), name)
            out.append({"name": f"{name}_{dtype}", "op": "nn.lrn", "attrs": attrs,
                        "inputs": [float_tensor(x, dtype)], "output": float_tensor(y, dtype)})
    add("defaults", (1, 7, 2, 3), {})
    add("size3_strong", (2, 4, 3, 2), {"size": 3, "alpha": 0.5, "beta": 0.6, "bias": 1.0})
    add("nhwc", (1, 2, 3, 6), {"axis": 3, "size": 3, "alpha": 0.2})
    return out


def l2_cases():
    out = []
    def add(name, shape, attrs):
        axis = attrs.get("axis")
        axes = tuple(range(len(shape))) if not axis else tuple(a % len(shape) for a in axis)
        for dtype in DTYPES:
            x = rand(shape, dtype)
            y = x / np.sqrt(np.maximum((x * x).sum(axis=axes, keepdims=True), attrs["eps"]))
            out.append({"name": f"{name}_{dtype}", "op": "nn.l2_normalize", "attrs": attrs,
                        "inputs": [float_tensor(x, dtype)], "output": float_tensor(y, dtype)})
    add("axis1", (2, 3, 4), {"eps": 1e-12, "axis": [1]})
    add("all_axes", (2, 3, 4), {"eps": 1e-12})
    add("two_axes", (2, 3, 4), {"eps": 1e-10, "axis": [1, 2]})
    add("negative_axis", (3, 5), {"eps": 1e-12, "axis": [-1]})
    add("eps_floor", (2, 3), {"eps": 50.0, "axis": [1]})
    return out


if __name__ == "__main__":
    cases = batch_norm_cases() + affine_norm_cases() + lrn_cases() + l2_cases()
    write_cases("norm.json", "gen_norm.py", cases, compact=True, newline=True)

#!/usr/bin/env python3
"""Golden data for weft_te_tests: inputs and NumPy results of the TE cases.

Reductions accumulate in float32 one term at a time, in the reduce axes'
order, because that is what the loop-IR evaluator computes (as the reference
kernels do): NumPy's own sum and matmul use pairwise and blocked orders that
round differently. Run from this folder: /usr/bin/python3 make_golden.py
"""
import numpy as np

rng = np.random.default_rng(15)
f32 = np.float32


def sequential_sum(terms):
    """sum(terms) in float32, first term first."""
    acc = np.zeros_like(terms[0], dtype=f32)
    for t in terms:
        acc = (acc + t).astype(f32)
    return acc


def relu():
    x = rng.standard_normal((4, 8)).astype(f32)
    return {"x": x, "expected": np.maximum(x, f32(0))}


def broadcast_add():
    a = rng.standard_normal((3, 1, 4)).astype(f32)
    b = rng.standard_normal((5, 1)).astype(f32)
    return {"a": a, "b": b, "expected": a + b}


def matmul():
    a = rng.standard_normal((5, 7)).astype(f32)
    b = rng.standard_normal((7, 6)).astype(f32)
    c = sequential_sum([np.outer(a[:, k], b[k, :]).astype(f32) for k in range(7)])
    return {"a": a, "b": b, "expected": c}


def conv2d():
    # NCHW data, OIHW weight, padding 1, stride 2: out = (5 + 2 - 3) // 2 + 1 = 3.
    x = rng.standard_normal((1, 2, 5, 5)).astype(f32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(f32)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    terms = []
    for rc in range(2):
        for ry in range(3):
            for rx in range(3):
                window = xp[:, rc, ry:ry + 5:2, rx:rx + 5:2]  # (1, 3, 3)
                terms.append((window[:, None, :, :] * w[None, :, rc, ry, rx, None, None]).astype(f32))
    return {"x": x, "w": w, "expected": sequential_sum(terms)}


def argmax():
    # Small integers so ties occur: NumPy (and the reducer) keep the first index.
    x = rng.integers(-3, 4, size=(4, 9)).astype(f32)
    return {"x": x, "expected_index": np.argmax(x, axis=1).astype(np.int32), "expected_value": np.max(x, axis=1)}


def softmax():
    x = rng.standard_normal((3, 7)).astype(f32)
    m = np.max(x, axis=1, keepdims=True)
    e = np.exp(x - m).astype(f32)
    s = sequential_sum([e[:, k:k + 1] for k in range(7)])
    return {"x": x, "expected": (e / s).astype(f32)}


def floor_div_mod():
    x = np.arange(-9, 10, dtype=np.int32)
    return {"x": x, "div4": np.floor_divide(x, 4), "mod4": np.mod(x, 4),
            "div_neg3": np.floor_divide(x, -3), "mod_neg3": np.mod(x, -3)}


def half_axpy():
    # float16 as a compute dtype: each operation rounds to float16 (NumPy's half arithmetic).
    x = rng.standard_normal(8).astype(np.float16)
    return {"x": x, "expected": x * np.float16(3) + np.float16(1)}


def conv2d_bias_relu():
    # Enough output channels and columns for several register tiles: padding 1, stride 1.
    x = rng.standard_normal((1, 3, 6, 8)).astype(f32)
    w = rng.standard_normal((8, 3, 3, 3)).astype(f32)
    bias = rng.standard_normal(8).astype(f32)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    terms = []
    for rc in range(3):
        for ry in range(3):
            for rx in range(3):
                window = xp[:, rc, ry:ry + 6, rx:rx + 8]  # (1, 6, 8)
                terms.append((window[:, None, :, :] * w[None, :, rc, ry, rx, None, None]).astype(f32))
    conv = sequential_sum(terms)
    return {"x": x, "w": w, "bias": bias, "expected": np.maximum(conv + bias[None, :, None, None], f32(0))}


for case in [half_axpy, relu, broadcast_add, matmul, conv2d, argmax, softmax, floor_div_mod, conv2d_bias_relu]:
    np.savez(case.__name__ + ".npz", **case())

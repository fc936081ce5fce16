#!/usr/bin/python3
"""Golden cases for nn.dense, nn.contrib_dense_pack, nn.matmul, nn.batch_matmul,
nn.bias_add and nn.batch_flatten, computed with PyTorch and NumPy.

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_dense.py   # writes dense.json beside it
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(44)
DTYPES = ["float32", "float64"]


def randn(shape, dt):
    return rng.standard_normal(shape).astype(dt)


def randint(shape, dt):
    lo, hi = (-128, 128) if dt == "int8" else (0, 256)
    return rng.integers(lo, hi, shape).astype(dt)


def mm(a, b):
    return torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy()


def pack(w, n):
    """(N, K) -> (N/n, K, n) with packed[a, k, b] = w[a*n + b, k]."""
    N, K = w.shape
    return np.ascontiguousarray(w.reshape(N // n, n, K).transpose(0, 2, 1))


def pack4(w, n, c):
    """(N, K) -> (N/n, K/c, n, c) with packed[a, kb, b, kc] = w[a*n + b, kb*c + kc]."""
    N, K = w.shape
    return np.ascontiguousarray(w.reshape(N // n, n, K // c, c).transpose(0, 2, 1, 3))


cases = []
for dt in DTYPES:
    data, w = randn((2, 3, 5), dt), randn((4, 5), dt)
    cases.append(case(f"dense_3d_data_{dt}", "nn.dense", {}, [data, w], mm(data, w.T)))
    cases.append(case(f"dense_units_{dt}", "nn.dense", {"units": 4}, [data[0], w], mm(data[0], w.T)))
    vec = randn((5,), dt)
    cases.append(case(f"dense_1d_data_{dt}", "nn.dense", {}, [vec, w], mm(vec, w.T)))

    d2, wp = randn((3, 6), dt), randn((8, 6), dt)
    cases.append(case(f"dense_pack_3d_{dt}", "nn.contrib_dense_pack", {"weight_layout": "NC4n"},
                      [d2, pack(wp, 4)], mm(d2, wp.T)))
    cases.append(case(f"dense_pack_4d_{dt}", "nn.contrib_dense_pack", {"weight_layout": "NC4n2c"},
                      [d2, pack4(wp, 4, 2)], mm(d2, wp.T)))

    a, b = randn((3, 5), dt), randn((5, 4), dt)
    for ta in (False, True):
        for tb in (False, True):
            A = np.ascontiguousarray(a.T) if ta else a
            B = np.ascontiguousarray(b.T) if tb else b
            cases.append(case(f"matmul_ta{int(ta)}_tb{int(tb)}_{dt}", "nn.matmul",
                              {"transpose_a": ta, "transpose_b": tb}, [A, B], mm(a, b)))
    a3 = randn((2, 3, 5), dt)
    cases.append(case(f"matmul_3d_a_{dt}", "nn.matmul", {}, [a3, b], mm(a3, b)))
    a3t = np.ascontiguousarray(a3.transpose(0, 2, 1))
    cases.append(case(f"matmul_3d_a_transposed_{dt}", "nn.matmul", {"transpose_a": True}, [a3t, b], mm(a3, b)))
    cases.append(case(f"matmul_units_{dt}", "nn.matmul", {"units": 4}, [a, b], mm(a, b)))

    x, y = randn((2, 3, 5), dt), randn((2, 5, 4), dt)
    for ta in (False, True):
        for tb in (False, True):
            X = np.ascontiguousarray(x.transpose(0, 2, 1)) if ta else x
            Y = np.ascontiguousarray(y.transpose(0, 2, 1)) if tb else y
            attrs = {"transpose_a": ta, "transpose_b": tb}
            cases.append(case(f"batch_matmul_ta{int(ta)}_tb{int(tb)}_{dt}", "nn.batch_matmul", attrs, [X, Y], mm(x, y)))
    yt = np.ascontiguousarray(y.transpose(0, 2, 1))
    cases.append(case(f"batch_matmul_default_nt_{dt}", "nn.batch_matmul", {}, [x, yt], mm(x, y)))
    cases.append(case(f"batch_matmul_broadcast_a_{dt}", "nn.batch_matmul", {"transpose_b": False},
                      [x[:1], y], mm(x[:1], y)))
    cases.append(case(f"batch_matmul_broadcast_b_{dt}", "nn.batch_matmul", {"transpose_b": False},
                      [x, y[1:]], mm(x, y[1:])))

    t = randn((2, 3, 4), dt)
    for axis, n in ((1, 3), (-1, 4), (0, 2)):
        bias = randn((n,), dt)
        shape = [1, 1, 1]
        shape[axis] = n
        attrs = {} if axis == 1 else {"axis": axis}
        cases.append(case(f"bias_add_axis{axis}_{dt}", "nn.bias_add", attrs, [t, bias], t + bias.reshape(shape)))

    cases.append(case(f"batch_flatten_{dt}", "nn.batch_flatten", {}, [t], torch.flatten(torch.from_numpy(t), 1).numpy()))

# Integer inputs accumulate in int32 (out_dtype), as the reference casts them.
for da, db in (("int8", "int8"), ("uint8", "int8"), ("uint8", "uint8")):
    data, w = randint((3, 6), da), randint((4, 6), db)
    exact = data.astype(np.int64) @ w.astype(np.int64).T
    cases.append(case(f"dense_{da}_{db}_to_int32", "nn.dense", {"out_dtype": "int32"}, [data, w], exact.astype(np.int32)))
    b = randint((6, 4), db)
    cases.append(case(f"matmul_{da}_{db}_to_int32", "nn.matmul", {"out_dtype": "int32"},
                      [data, b], (data.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)))
wi = randint((8, 8), "int8")
di = randint((2, 8), "uint8")
cases.append(case("dense_pack_4d_uint8_int8_to_int32", "nn.contrib_dense_pack",
                  {"weight_layout": "NC4n4c", "out_dtype": "int32"}, [di, pack4(wi, 4, 4)],
                  (di.astype(np.int64) @ wi.astype(np.int64).T).astype(np.int32)))
xi, yi = randint((2, 3, 5), "int8"), randint((2, 4, 5), "int8")
cases.append(case("batch_matmul_int8_to_int32", "nn.batch_matmul", {"out_dtype": "int32"}, [xi, yi],
                  (xi.astype(np.int64) @ yi.astype(np.int64).transpose(0, 2, 1)).astype(np.int32)))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dense.json")
write_cases(path, "gen_dense.py", cases)

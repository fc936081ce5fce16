#!/usr/bin/python3
"""Golden cases for the nn activation ops (relu, leaky_relu, prelu, softmax,
fast_softmax, log_softmax, dropout), computed with PyTorch and NumPy.

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_activation.py   # writes activation.json beside it
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(4)
DTYPES = ["float32", "float64"]


def fast_exp32(x):
    """TVM's topi fast_exp for float32 (include/tvm/topi/elemwise.h), in float32 arithmetic."""
    f32 = np.float32
    v = x.astype(f32)
    c = np.maximum(np.minimum(v, f32(88.3762626647950)), f32(-88.3762626647949))
    n = np.floor(c * f32(1.44269504088896341) + f32(0.5)).astype(f32)
    f = (c - n * f32(0.6931471805599453)).astype(f32)
    p = [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1]
    y = f32(p[0])
    for coef in p[1:]:
        y = (y * f + f32(coef)).astype(f32)
    y = (y * f * f + f + f32(1.0)).astype(f32)
    two_n = ((n + f32(127)).astype(np.int32) << 23).view(np.float32)
    return np.maximum(two_n * y, v)


def fast_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    e = fast_exp32(x - m) if x.dtype == np.float32 else np.exp(x - m)
    return e / e.sum(axis=axis, keepdims=True)


cases = []
for dt in DTYPES:
    x = (rng.standard_normal((2, 3, 4)) * 2).astype(dt)
    t = torch.from_numpy(x)
    cases.append(case(f"relu_{dt}", "nn.relu", {}, [x], F.relu(t).numpy()))
    cases.append(case(f"leaky_relu_default_alpha_{dt}", "nn.leaky_relu", {}, [x], F.leaky_relu(t, 0.01).numpy()))
    cases.append(case(f"leaky_relu_alpha_0.2_{dt}", "nn.leaky_relu", {"alpha": 0.2}, [x], F.leaky_relu(t, 0.2).numpy()))

    # prelu: torch's channel dim is 1; other axes move the channel there and back.
    for axis in (1, 0, 2):
        alpha = rng.uniform(0.05, 0.5, x.shape[axis]).astype(dt)
        moved = torch.from_numpy(np.ascontiguousarray(np.moveaxis(x, axis, 1)))
        out = np.moveaxis(F.prelu(moved, torch.from_numpy(alpha)).numpy(), 1, axis)
        attrs = {} if axis == 1 else {"axis": axis}
        cases.append(case(f"prelu_axis{axis}_{dt}", "nn.prelu", attrs, [x, alpha], out))

    for axis in (-1, 0, 1):
        attrs = {} if axis == -1 else {"axis": axis}
        cases.append(case(f"softmax_axis{axis}_{dt}", "nn.softmax", attrs, [x], torch.softmax(t, axis).numpy()))
        cases.append(case(f"log_softmax_axis{axis}_{dt}", "nn.log_softmax", attrs, [x],
                          torch.log_softmax(t, axis).numpy()))
        cases.append(case(f"fast_softmax_axis{axis}_{dt}", "nn.fast_softmax", attrs, [x], fast_softmax(x, axis)))

    # Large logits: the maximum is subtracted before exponentiating.
    big = (np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0]])).astype(dt)
    cases.append(case(f"softmax_large_logits_{dt}", "nn.softmax", {}, [big], torch.softmax(torch.from_numpy(big), -1).numpy()))
    cases.append(case(f"log_softmax_large_logits_{dt}", "nn.log_softmax", {}, [big],
                      torch.log_softmax(torch.from_numpy(big), -1).numpy()))

    cases.append(case(f"dropout_inference_{dt}", "nn.dropout", {"rate": 0.3}, [x], outputs=[x, np.ones_like(x)]))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "activation.json")
write_cases(path, "gen_activation.py", cases)

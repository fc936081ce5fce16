#!/usr/bin/python3
"""Golden data for weft::testing's random tensors, written by NumPy.

Run once with Debian's python3-numpy: /usr/bin/python3 gen_random_data.py
Writes random_data.json next to this script.
"""
import json
import os

import numpy as np


def draws(dtype, shape, seed, low=0.0, high=1.0):
    np.random.seed(seed)
    arr = np.zeros(shape).astype(dtype)
    arr[:] = np.random.uniform(low, high, size=shape)
    return arr


def entry(dtype, shape, seed, low=0.0, high=1.0):
    arr = draws(dtype, shape, seed, low, high)
    bits = arr.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.itemsize])
    return {"dtype": dtype, "shape": list(shape), "seed": seed, "low": low, "high": high,
            "bits": [int(b) for b in bits.reshape(-1)]}


# Doubles whose float16 rounding is easy to get wrong: ties (to even), values
# just above a tie that round up only when rounded once from the double,
# subnormals, the largest finite value, overflow to infinity, signs.
TRICKY = [1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 1.0 + 2.0**-11 + 2.0**-40, -(1.0 + 2.0**-11 + 2.0**-40),
          2.0**-24, 2.0**-25, 2.0**-25 + 2.0**-50, 3 * 2.0**-25, 2.0**-14 - 2.0**-26, 65504.0, 65519.99,
          65520.0, 1e10, -0.0, 0.1, 1.0 / 3.0, 2.0**-30]


def random_inputs(seed):
    """One generator for all parameters, in order: data (2, 3) then w (3,)."""
    np.random.seed(seed)
    data = np.random.uniform(size=(2, 3)).astype("float32")
    w = np.random.uniform(size=(3,)).astype("float32")
    return {"seed": seed, "bits": [int(b) for b in np.concatenate([data.reshape(-1), w]).view(np.uint32)]}


with np.errstate(over="ignore"):  # 65520 and 1e10 overflow to infinity on purpose
    float16_bits = np.array(TRICKY, dtype=np.float64).astype(np.float16).view(np.uint16)

golden = {
    "rand": [entry("float32", (2, 3), 0), entry("float64", (4,), 7), entry("float16", (3, 2), 1),
             entry("float32", (5,), 3, -2.0, 5.0)],
    "random_inputs": random_inputs(5),
    "float16": {"values": TRICKY, "bits": [int(b) for b in float16_bits]},
}

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_data.json"), "w") as f:
    json.dump(golden, f)

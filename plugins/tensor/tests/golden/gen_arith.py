#!/usr/bin/python3
"""Golden cases for the arithmetic ops generate.py leaves to hand-worked
tests: add, subtract, multiply, divide (with broadcasting), negative and exp,
in float32 and float64 (and int32 for the integer-exact ones), from NumPy.

Run once with Debian's python3 (python3-numpy):
    /usr/bin/python3 gen_arith.py   # writes arith.json beside it
"""
import json
import os

import numpy as np

rng = np.random.default_rng(61)
HERE = os.path.dirname(os.path.abspath(__file__))


def t(a):
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.reshape(-1).tolist()}


def case(name, op, inputs, output):
    return {"name": name, "op": op, "attrs": {}, "inputs": [t(i) for i in inputs], "output": t(output)}


cases = []
for dt in ("float32", "float64"):
    a = rng.uniform(-2, 2, (2, 1, 3)).astype(dt)
    b = rng.uniform(-2, 2, (4, 3)).astype(dt)
    nz = (rng.uniform(0.5, 2, (4, 3)) * np.where(rng.random((4, 3)) < 0.5, -1, 1)).astype(dt)
    cases += [
        case(f"add_broadcast_{dt}", "add", [a, b], a + b),
        case(f"subtract_broadcast_{dt}", "subtract", [a, b], a - b),
        case(f"multiply_broadcast_{dt}", "multiply", [a, b], a * b),
        case(f"divide_broadcast_{dt}", "divide", [a, nz], a / nz),
        case(f"negative_{dt}", "negative", [b], -b),
        case(f"exp_{dt}", "exp", [b], np.exp(b.astype(np.float64)).astype(dt)),
    ]
ia = rng.integers(-50, 50, (3, 4)).astype("int32")
ib = rng.integers(-50, 50, (4,)).astype("int32")
cases += [
    case("add_broadcast_int32", "add", [ia, ib], ia + ib),
    case("subtract_broadcast_int32", "subtract", [ia, ib], ia - ib),
    case("multiply_broadcast_int32", "multiply", [ia, ib], ia * ib),
    case("negative_int32", "negative", [ia], -ia),
]

with open(os.path.join(HERE, "arith.json"), "w") as f:
    json.dump(cases, f)

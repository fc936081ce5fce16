#!/usr/bin/python3
"""Golden cases for the arithmetic ops generate.py leaves to hand-worked
tests: add, subtract, multiply, divide (with broadcasting), negative and exp,
in float32 and float64 (and int32 for the integer-exact ones), from NumPy;
and the integer cases C++ leaves undefined ("int_edge_*"): results that
overflow wrap as NumPy's integer arrays do (INT_MIN / -1 is INT_MIN), and
clip's bounds beyond an integer dtype's range bound nothing.

Run once with Debian's python3 (python3-numpy):
    /usr/bin/python3 gen_arith.py   # writes arith.json beside it
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
import golden_json  # noqa: E402 (found through the path above)

rng = np.random.default_rng(61)
HERE = os.path.dirname(os.path.abspath(__file__))


def case(name, op, inputs, output, attrs=None):
    return golden_json.case(name, op, attrs or {}, inputs, output)


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


def trunc_div(a, b):
    """TOPI's integer divide (toward zero), exact in int64 then wrapped to a's dtype by astype."""
    wide_a, wide_b = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(wide_a) // np.abs(wide_b) * np.sign(wide_a) * np.sign(wide_b)
    return q.astype(a.dtype)


# Every int64 value below is exact in the golden files' doubles (powers of two,
# small numbers), so the cases stay exact when read back.
EDGES = {
    "int32": dict(num=[-2**31, -2**31, -2**31 + 1, 7, -7, 0], den=[-1, 1, -1, -2, 2, -1],
                  big=[2**31 - 1, -2**31, 2**31 - 1, -2**31], step=[2**31 - 1, -1, 2, -2**31],
                  factor_a=[2**31 - 1, 2**16, -2**31], factor_b=[2, 2**16, -1]),
    "int64": dict(num=[-2**63, -2**63, -2**62, 7, -7, 0], den=[-1, 1, -1, -2, 2, -1],
                  big=[2**62, -2**63, -2**63, -2**62], step=[2**62, -2**62, -2**63, 2**61],
                  factor_a=[2**62, 2**62, -2**63], factor_b=[2, -2, -1]),
}
with np.errstate(over="ignore"):
    for dt, e in EDGES.items():
        num, den, big, step, fa, fb = (np.array(e[k], dtype=dt)
                                       for k in ("num", "den", "big", "step", "factor_a", "factor_b"))
        cases += [
            case(f"int_edge_divide_{dt}", "divide", [num, den], trunc_div(num, den)),
            case(f"int_edge_mod_{dt}", "mod", [num, den], np.fmod(num, den)),
            case(f"int_edge_floor_divide_{dt}", "floor_divide", [num, den], np.floor_divide(num, den)),
            case(f"int_edge_floor_mod_{dt}", "floor_mod", [num, den], np.mod(num, den)),
            case(f"int_edge_add_{dt}", "add", [big, step], big + step),
            case(f"int_edge_subtract_{dt}", "subtract", [big, step], big - step),
            case(f"int_edge_multiply_{dt}", "multiply", [fa, fb], fa * fb),
            case(f"int_edge_negative_{dt}", "negative", [num], -num),
            case(f"int_edge_abs_{dt}", "abs", [num], np.abs(num)),
        ]
    # Reductions accumulate in the dtype, wrapping as NumPy's do.
    acc = np.array([[2**31 - 1, 1], [-2**31, -1]], dtype="int32")
    cases += [
        case("int_edge_sum_int32", "sum", [acc], np.sum(acc, axis=1, dtype="int32"), attrs={"axis": [1]}),
        case("int_edge_prod_int32", "prod", [acc], np.prod(acc, axis=0, dtype="int32"), attrs={"axis": [0]}),
    ]
    # Bounds cast to the dtype as TOPI does (toward zero), clamped to its range.
    x = np.array([-2**31, -5, 0, 5, 2**31 - 1], dtype="int32")
    cases += [
        case("int_edge_clip_bounds_beyond_int32", "clip", [x], x, attrs={"a_min": -1e10, "a_max": 1e20}),
        case("int_edge_clip_fractional_bounds_int32", "clip", [x], np.clip(x, -3, 2**31 - 1),
             attrs={"a_min": -3.7, "a_max": 3e9}),
    ]

with open(os.path.join(HERE, "arith.json"), "w") as f:
    json.dump(cases, f)

#!/usr/bin/python3
"""Writes the tensor plugin's golden cases (NumPy oracles) next to this script.

Run once with Debian's python3 (python3-numpy); the JSON files are committed
and the tests only read them. Each file holds a list of cases:
  {"name", "op", "attrs", "inputs": [T...], "output": T}   (or "outputs": [T...])
with T = {"shape", "dtype", "data": flat C-order values}. "tuple_input": true
marks ops whose inputs travel as one Tuple argument (concatenate, stack).
Expected values come from NumPy, or from shapes worked by hand from the
reference's documentation (reshape codes, strided_slice clamping).
"""
import json
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261130)
FLOATS = ["float32", "float64"]


def t(a):
    a = np.asarray(a)
    data = a.reshape(-1).tolist()
    return {"shape": list(a.shape), "dtype": "bool" if a.dtype == np.bool_ else str(a.dtype), "data": data}


def case(name, op, inputs, output=None, outputs=None, attrs=None, tuple_input=False):
    c = {"name": name, "op": op, "attrs": attrs or {}, "inputs": [t(x) for x in inputs]}
    if outputs is not None:
        c["outputs"] = [t(x) for x in outputs]
    else:
        c["output"] = t(output)
    if tuple_input:
        c["tuple_input"] = True
    return c


def rand(shape, dtype, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def ints(shape, lo=-7, hi=8, dtype="int32"):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def nonzero_ints(shape, dtype="int32"):
    a = ints(shape, -5, 6, dtype)
    a[a == 0] = 3
    return a


def elementwise():
    cases = []
    for dt in FLOATS:
        a, b = rand((2, 3), dt), rand((3,), dt)
        pos = rand((2, 3), dt, 0.5, 3.0)
        div = rand((3,), dt, 0.5, 2.0) * np.where(rng.random(3) < 0.5, -1, 1).astype(dt)
        e = b.clip(-1.5, 2.0)
        cases += [
            case(f"power_{dt}", "power", [pos, e], np.power(pos, e)),
            case(f"maximum_broadcast_{dt}", "maximum", [a, b], np.maximum(a, b)),
            case(f"minimum_broadcast_{dt}", "minimum", [a, b], np.minimum(a, b)),
            case(f"mod_truncates_{dt}", "mod", [a * 3, div], np.fmod(a * 3, div)),
            case(f"floor_divide_{dt}", "floor_divide", [a * 3, div], np.floor((a * 3) / div)),
            case(f"floor_mod_{dt}", "floor_mod", [a * 3, div], (a * 3) - np.floor((a * 3) / div) * div),
        ]
        x = rand((2, 3, 2), dt, -3, 3)
        px = rand((2, 3, 2), dt, 0.1, 4)
        halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.2, -0.7], dtype=dt)
        cases += [
            case(f"abs_{dt}", "abs", [x], np.abs(x)),
            case(f"sign_{dt}", "sign", [np.array([-2, 0, 3.5], dtype=dt)], np.array([-1, 0, 1], dtype=dt)),
            case(f"log_{dt}", "log", [px], np.log(px)),
            case(f"sqrt_{dt}", "sqrt", [px], np.sqrt(px)),
            case(f"rsqrt_{dt}", "rsqrt", [px], (1 / np.sqrt(px.astype("float64"))).astype(dt)),
            case(f"tanh_{dt}", "tanh", [x], np.tanh(x)),
            case(f"sigmoid_{dt}", "sigmoid", [x], (1 / (1 + np.exp(-x.astype("float64")))).astype(dt)),
            case(f"erf_{dt}", "erf", [x], np.array([math.erf(v) for v in x.reshape(-1).astype("float64")])
                 .reshape(x.shape).astype(dt)),
            case(f"floor_{dt}", "floor", [x], np.floor(x)),
            case(f"ceil_{dt}", "ceil", [x], np.ceil(x)),
            case(f"round_half_to_even_{dt}", "round", [halves], np.round(halves)),
            case(f"clip_{dt}", "clip", [x], np.clip(x, -1.0, 0.5), attrs={"a_min": -1.0, "a_max": 0.5}),
        ]
    ia, ib = ints((2, 4)), nonzero_ints((4,))
    for dt in ["int32", "int64"]:
        a, b = ia.astype(dt), ib.astype(dt)
        cases += [
            case(f"maximum_{dt}", "maximum", [a, b], np.maximum(a, b)),
            case(f"minimum_{dt}", "minimum", [a, b], np.minimum(a, b)),
            case(f"mod_truncates_{dt}", "mod", [a, b], np.fmod(a, b)),
            case(f"floor_divide_{dt}", "floor_divide", [a, b], np.floor_divide(a, b)),
            case(f"floor_mod_{dt}", "floor_mod", [a, b], np.mod(a, b)),
            case(f"abs_{dt}", "abs", [a], np.abs(a)),
            case(f"sign_{dt}", "sign", [a], np.sign(a)),
            case(f"clip_{dt}", "clip", [a], np.clip(a, -2, 3), attrs={"a_min": -2.5, "a_max": 3.7}),
        ]
    return cases


def compare_logical():
    cases = []
    for dt in FLOATS + ["int32", "int64"]:
        a = ints((2, 3), -2, 3).astype(dt)
        b = ints((3,), -2, 3).astype(dt)
        for op, fn in [("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less),
                       ("less_equal", np.less_equal), ("greater", np.greater), ("greater_equal", np.greater_equal)]:
            cases.append(case(f"{op}_{dt}", op, [a, b], fn(a, b)))
    p = rng.random((2, 3)) < 0.5
    q = rng.random((3,)) < 0.5
    cases += [
        case("logical_and", "logical_and", [p, q], np.logical_and(p, q)),
        case("logical_or", "logical_or", [p, q], np.logical_or(p, q)),
        case("logical_xor", "logical_xor", [p, q], np.logical_xor(p, q)),
        case("logical_not", "logical_not", [p], np.logical_not(p)),
    ]
    for dt in FLOATS + ["int32"]:
        cond = rng.random((2, 1)) < 0.5
        x, y = ints((2, 3)).astype(dt), ints((3,)).astype(dt)
        cases.append(case(f"where_bool_condition_{dt}", "where", [cond, x, y], np.where(cond, x, y)))
        icond = np.array([[0, 2, -1]], dtype="int32")
        cases.append(case(f"where_int_condition_{dt}", "where", [icond, x, y], np.where(icond != 0, x, y)))
    return cases


def init_cast():
    cases = []
    for dt in FLOATS + ["int32", "int64"]:
        some, row = ints((2, 3)).astype(dt), ints((3,)).astype(dt)
        cases += [
            case(f"zeros_{dt}", "zeros", [], np.zeros((2, 3), dt), attrs={"shape": [2, 3], "dtype": dt}),
            case(f"ones_{dt}", "ones", [], np.ones((3,), dt), attrs={"shape": 3, "dtype": dt}),
            case(f"full_{dt}", "full", [np.array(2.5, "float32")], np.full((2, 2), 2.5).astype(dt),
                 attrs={"shape": [2, 2], "dtype": dt}),
            case(f"zeros_like_{dt}", "zeros_like", [some], np.zeros_like(some)),
            case(f"ones_like_{dt}", "ones_like", [some], np.ones_like(some)),
            case(f"full_like_{dt}", "full_like", [row, np.array(-4, dt)], np.full((3,), -4, dt)),
            case(f"copy_{dt}", "copy", [some], some.copy()),
        ]
    cases.append(case("full_takes_fill_value_dtype", "full", [np.array(7, "int64")], np.full((2,), 7, "int64"),
                      attrs={"shape": [2]}))
    f = np.array([-2.7, -0.5, 0.0, 0.5, 3.9], "float32")
    i64 = ints((4,), dtype="int64")
    cases += [
        case("cast_float32_to_int32_truncates", "cast", [f], f.astype("int32"), attrs={"dtype": "int32"}),
        case("cast_float32_to_float64", "cast", [f], f.astype("float64"), attrs={"dtype": "float64"}),
        case("cast_float32_to_bool", "cast", [f], f.astype(bool), attrs={"dtype": "bool"}),
        case("cast_bool_to_float32", "cast", [np.array([True, False])], np.array([1, 0], "float32"),
             attrs={"dtype": "float32"}),
        case("cast_int64_to_float64", "cast", [i64], i64.astype("float64"), attrs={"dtype": "float64"}),
    ]
    return cases


# reshape's codes, with output shapes worked by hand from the reference's documentation.
RESHAPES = [
    ((2, 3, 4), [4, 0, 2], (4, 3, 2)), ((2, 3, 4), [2, 0, 0], (2, 3, 4)), ((2, 3, 4), [6, 1, -1], (6, 1, 4)),
    ((2, 3, 4), [3, -1, 8], (3, 1, 8)), ((2, 3, 4), [-1], (24,)), ((2, 3, 4), [-2], (2, 3, 4)),
    ((2, 3, 4), [2, -2], (2, 3, 4)), ((2, 3, 4), [-2, 1, 1], (2, 3, 4, 1, 1)), ((2, 3, 4), [-3, 4], (6, 4)),
    ((2, 3, 4, 5), [-3, -3], (6, 20)), ((2, 3, 4), [0, -3], (2, 12)), ((2, 3, 4), [-3, -2], (6, 4)),
    ((2, 3, 4), [-4, 1, 2, -2], (1, 2, 3, 4)), ((2, 3, 4), [2, -4, -1, 3, -2], (2, 1, 3, 4)),
]


def shape_ops():
    cases = []
    for dt in FLOATS:
        for i, (shape, newshape, out) in enumerate(RESHAPES):
            x = rand(shape, dt)
            cases.append(case(f"reshape_{i}_{dt}", "reshape", [x], x.reshape(out), attrs={"newshape": newshape}))
        x = rand((1, 2, 3, 4), dt)
        flat, like = rand((2, 6), dt), rand((6, 2, 2, 3), dt)
        ones = rand((1, 3, 1, 2), dt)
        m = rand((2, 3), dt)
        cases += [
            case(f"reshape_like_whole_{dt}", "reshape_like", [flat, rand((3, 4), dt)], flat.reshape(3, 4)),
            case(f"reshape_like_ranges_{dt}", "reshape_like", [x, like], x.reshape(1, 6, 2, 2),
                 attrs={"lhs_begin": 1, "rhs_end": 3}),
            case(f"transpose_reverses_by_default_{dt}", "transpose", [x], np.transpose(x)),
            case(f"transpose_axes_{dt}", "transpose", [x], np.transpose(x, (0, 2, 3, 1)),
                 attrs={"axes": [0, 2, -1, 1]}),
            case(f"squeeze_all_{dt}", "squeeze", [ones], np.squeeze(ones)),
            case(f"squeeze_axis_{dt}", "squeeze", [ones], np.squeeze(ones, 2), attrs={"axis": [2]}),
            case(f"expand_dims_{dt}", "expand_dims", [m], m.reshape(2, 1, 1, 3), attrs={"axis": 1, "num_newaxis": 2}),
            case(f"expand_dims_negative_axis_{dt}", "expand_dims", [m], m.reshape(2, 3, 1), attrs={"axis": -1}),
        ]
    mask = np.array([[True, False, True], [False, False, True]])
    cases.append(case("transpose_bool", "transpose", [mask], mask.T))
    return cases


def join_split():
    cases = []
    for dt in FLOATS + ["int32"]:
        a, b, c = ints((2, 1, 3)).astype(dt), ints((2, 2, 3)).astype(dt), ints((2, 3, 3)).astype(dt)
        cases += [
            case(f"concatenate_axis1_{dt}", "concatenate", [a, b, c], np.concatenate([a, b, c], 1),
                 attrs={"axis": 1}, tuple_input=True),
            case(f"concatenate_negative_axis_{dt}", "concatenate", [b, b], np.concatenate([b, b], -1),
                 attrs={"axis": -1}, tuple_input=True),
            case(f"stack_axis0_{dt}", "stack", [b, b, b], np.stack([b, b, b], 0), tuple_input=True),
            case(f"stack_last_axis_{dt}", "stack", [a, a], np.stack([a, a], -1), attrs={"axis": -1},
                 tuple_input=True),
        ]
        x = ints((2, 6, 2)).astype(dt)
        cases += [
            case(f"split_sections_{dt}", "split", [x], outputs=np.split(x, 3, 1),
                 attrs={"indices_or_sections": 3, "axis": 1}),
            case(f"split_indices_{dt}", "split", [x], outputs=np.split(x, [1, 4], 1),
                 attrs={"indices_or_sections": [1, 4], "axis": -2}),
        ]
    mask = np.array([[True, False]])
    cases.append(case("concatenate_bool", "concatenate", [mask, ~mask], np.concatenate([mask, ~mask]),
                      tuple_input=True))
    return cases


def take_batched(data, indices, axis, batch_dims, mode):
    if batch_dims == 0:
        return np.take(data, indices, axis=axis, mode=mode)
    return np.stack([take_batched(d, i, axis - 1, batch_dims - 1, mode) for d, i in zip(data, indices)])


def indexing():
    cases = []
    for dt in FLOATS + ["int32"]:
        x = ints((3, 4, 2)).astype(dt)
        idx = np.array([[0, 2], [3, 1]], "int32")
        wild = np.array([-5, -1, 0, 4, 9], "int64")
        cases += [
            case(f"take_flat_{dt}", "take", [x, np.array([3, 0, 23], "int32")], x.reshape(-1)[[3, 0, 23]]),
            case(f"take_axis1_{dt}", "take", [x, idx], np.take(x, idx, 1), attrs={"axis": 1}),
            case(f"take_clip_{dt}", "take", [x, wild], np.take(x, wild, 1, mode="clip"), attrs={"axis": 1}),
            case(f"take_wrap_{dt}", "take", [x, wild], np.take(x, wild, -2, mode="wrap"),
                 attrs={"axis": -2, "mode": "wrap"}),
            case(f"take_fast_{dt}", "take", [x, idx % 3], np.take(x, idx % 3, 0), attrs={"axis": 0, "mode": "fast"}),
        ]
        bidx = np.array([[1, 0, 3], [2, 2, 0], [3, 1, 1]], "int64")
        cases.append(case(f"take_batch_dims_{dt}", "take", [x, bidx], take_batched(x, bidx, 1, 1, "clip"),
                          attrs={"axis": 1, "batch_dims": 1}))
        y = ints((4, 5, 3)).astype(dt)
        cases += [
            case(f"strided_slice_basic_{dt}", "strided_slice", [y], y[1:3, 0:5:2],
                 attrs={"begin": [1, 0], "end": [3, 5], "strides": [1, 2]}),
            case(f"strided_slice_negative_begin_{dt}", "strided_slice", [y], y[-3:, 1:-1],
                 attrs={"begin": [-3, 1], "end": [100, -1]}),
            case(f"strided_slice_negative_stride_{dt}", "strided_slice", [y], y[3:0:-1, ::-2][:, :, 1:],
                 attrs={"begin": [3, 4, 1], "end": [0, -100, 3], "strides": [-1, -2, 1]}),
            # Hand-worked: a missing end with a negative stride becomes 0, which excludes index 0.
            case(f"strided_slice_padded_negative_stride_{dt}", "strided_slice", [y], y[:, :, ::-1][:, :, :2],
                 attrs={"begin": [0, 0], "end": [4, 5], "strides": [1, 1, -1]}),
            case(f"strided_slice_axes_{dt}", "strided_slice", [y], y[:, :, 1:3],
                 attrs={"begin": [1], "end": [3], "strides": [1], "axes": [2]}),
            case(f"strided_slice_size_mode_{dt}", "strided_slice", [y], y[1:3, 2:],
                 attrs={"begin": [1, 2], "end": [2, -1], "slice_mode": "size"}),
        ]
    return cases


def broadcast():
    cases = []
    for dt in FLOATS + ["int32"]:
        x = ints((3, 1)).astype(dt)
        big = ints((2, 3, 4)).astype(dt)
        cases += [
            case(f"broadcast_to_{dt}", "broadcast_to", [x], np.broadcast_to(x, (2, 3, 4)), attrs={"shape": [2, 3, 4]}),
            case(f"broadcast_to_like_{dt}", "broadcast_to_like", [x, big], np.broadcast_to(x, (2, 3, 4))),
            case(f"collapse_sum_like_{dt}", "collapse_sum_like", [big, x], big.sum(axis=(0, 2)).reshape(3, 1).astype(dt)),
            case(f"collapse_sum_to_{dt}", "collapse_sum_to", [big], big.sum(axis=(0, 1)).astype(dt), attrs={"shape": [4]}),
            case(f"tile_{dt}", "tile", [x], np.tile(x, (2, 1, 3)), attrs={"reps": [2, 1, 3]}),
            case(f"tile_short_reps_{dt}", "tile", [big], np.tile(big, (2,)), attrs={"reps": [2]}),
            case(f"repeat_{dt}", "repeat", [big], np.repeat(big, 2, 1), attrs={"repeats": 2, "axis": 1}),
            case(f"repeat_negative_axis_{dt}", "repeat", [big], np.repeat(big, 3, -1), attrs={"repeats": 3, "axis": -1}),
        ]
    return cases


def layout():
    cases = []
    for dt in FLOATS:
        x = rand((2, 16, 3, 2), dt)
        blocked = x.reshape(2, 2, 8, 3, 2).transpose(0, 1, 3, 4, 2)
        padded = np.concatenate([x[:, :12], np.zeros((2, 4, 3, 2), dt)], 1).reshape(2, 2, 8, 3, 2)
        w = x.reshape(8, 4, 3, 2)  # a weight, OIHW, of the same values (no new draw)
        cases += [
            case(f"nchw_to_nhwc_{dt}", "layout_transform", [x], x.transpose(0, 2, 3, 1),
                 attrs={"src_layout": "NCHW", "dst_layout": "NHWC"}),
            case(f"nchw_to_nchw8c_{dt}", "layout_transform", [x], blocked,
                 attrs={"src_layout": "NCHW", "dst_layout": "NCHW8c"}),
            case(f"nchw8c_to_nchw_{dt}", "layout_transform", [blocked], x,
                 attrs={"src_layout": "NCHW8c", "dst_layout": "NCHW"}),
            case(f"nchw8c_to_nhwc_{dt}", "layout_transform", [blocked], x.transpose(0, 2, 3, 1),
                 attrs={"src_layout": "NCHW8c", "dst_layout": "NHWC"}),
            case(f"nchw8c_to_nchw4c_{dt}", "layout_transform", [blocked],
                 x.reshape(2, 4, 4, 3, 2).transpose(0, 1, 3, 4, 2),
                 attrs={"src_layout": "NCHW8c", "dst_layout": "NCHW4c"}),
            case(f"nchw_to_nchw8c_pads_with_zeros_{dt}", "layout_transform", [x[:, :12]],
                 padded.transpose(0, 1, 3, 4, 2), attrs={"src_layout": "NCHW", "dst_layout": "NCHW8c"}),
            case(f"oihw_to_oihw2i4o_{dt}", "layout_transform", [w],
                 w.reshape(2, 4, 2, 2, 3, 2).transpose(0, 2, 4, 5, 3, 1),
                 attrs={"src_layout": "OIHW", "dst_layout": "OIHW2i4o"}),
        ]
    return cases


def flat_argreduce(x, axes, fn, last):
    axes = sorted(a % x.ndim for a in axes)
    rest = [d for d in range(x.ndim) if d not in axes]
    moved = x.transpose(rest + axes).reshape([x.shape[d] for d in rest] + [-1])
    if last:
        flipped = moved[..., ::-1]
        return (moved.shape[-1] - 1 - fn(flipped, axis=-1)).astype("int32")
    return fn(moved, axis=-1).astype("int32")


def reduce():
    cases = []
    for dt in FLOATS:
        x = rand((2, 3, 4), dt)
        for op, fn in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod)]:
            cases += [
                case(f"{op}_all_{dt}", op, [x], fn(x)),
                case(f"{op}_axis1_{dt}", op, [x], fn(x, axis=1), attrs={"axis": 1}),
                case(f"{op}_axes_keepdims_{dt}", op, [x], fn(x, axis=(0, 2), keepdims=True),
                     attrs={"axis": [0, -1], "keepdims": True}),
                case(f"{op}_exclude_{dt}", op, [x], fn(x, axis=(0, 2)), attrs={"axis": [1], "exclude": True}),
            ]
        ties = np.array([[1, 3, 3, 0], [2, 2, -1, 2], [0, 0, 0, 0]], dt)
        for op, fn in [("argmax", np.argmax), ("argmin", np.argmin)]:
            cases += [
                case(f"{op}_all_{dt}", op, [x], np.array(fn(x), "int32")),
                case(f"{op}_axis2_keepdims_{dt}", op, [x], fn(x, axis=2, keepdims=True).astype("int32"),
                     attrs={"axis": 2, "keepdims": True}),
                case(f"{op}_two_axes_{dt}", op, [x], flat_argreduce(x, [0, 2], fn, False), attrs={"axis": [0, 2]}),
                case(f"{op}_ties_first_{dt}", op, [ties], fn(ties, axis=1).astype("int32"), attrs={"axis": 1}),
                case(f"{op}_ties_last_{dt}", op, [ties], flat_argreduce(ties, [1], fn, True),
                     attrs={"axis": 1, "select_last_index": True}),
            ]
        m = x.mean(axis=(0, 2), keepdims=True)
        cases += [
            case(f"variance_{dt}", "variance", [x, m], x.var(axis=(0, 2)), attrs={"axis": [0, 2]}),
            case(f"variance_unbiased_keepdims_{dt}", "variance", [x, m], x.var(axis=(0, 2), ddof=1, keepdims=True),
                 attrs={"axis": [1], "exclude": True, "unbiased": True, "keepdims": True}),
        ]
    p = rng.random((2, 3, 4)) < 0.6
    for op, fn in [("all", np.all), ("any", np.any)]:
        cases += [
            case(f"{op}_all_axes", op, [p], fn(p)),
            case(f"{op}_axis2", op, [p], fn(p, axis=2), attrs={"axis": 2}),
            case(f"{op}_exclude_keepdims", op, [p], fn(p, axis=(0, 2), keepdims=True),
                 attrs={"axis": [1], "exclude": True, "keepdims": True}),
        ]
    i = ints((3, 4), -3, 4)
    cases += [
        case("sum_int32", "sum", [i], i.sum(axis=0).astype("int32"), attrs={"axis": 0}),
        case("max_int32", "max", [i], i.max(axis=1), attrs={"axis": 1}),
        case("argmax_int32", "argmax", [i], i.argmax(axis=1).astype("int32"), attrs={"axis": 1}),
    ]
    return cases


def main():
    families = {
        "elementwise": elementwise, "compare_logical": compare_logical, "init_cast": init_cast,
        "shape": shape_ops, "join_split": join_split, "indexing": indexing, "broadcast": broadcast,
        "layout_transform": layout, "reduce": reduce,
    }
    for name, fn in families.items():
        with open(os.path.join(HERE, name + ".json"), "w") as f:
            json.dump(fn(), f, indent=None, separators=(",", ":"))
            f.write("\n")


if __name__ == "__main__":
    main()

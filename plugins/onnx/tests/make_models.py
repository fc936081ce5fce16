#!/usr/bin/python3
"""Writes the ONNX importer's test models (tests/data/*.onnx) with ONNX's
helper API (Debian's python3-onnx) and, beside each, the inputs and the
outputs NumPy computes for it (*.npz: in_<name>, out_<index>). The outputs are
computed here, independently of weft, from the ONNX operators' definitions.
Run it from anywhere: /usr/bin/python3 plugins/onnx/tests/make_models.py"""
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
rng = np.random.RandomState(7)


def save(name, graph, opset, inputs, outputs):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="weft-tests")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(DATA, name + ".onnx"))
    arrays = {"in_" + k: v for k, v in inputs.items()}
    arrays.update({"out_%d" % i: v for i, v in enumerate(outputs)})
    np.savez(os.path.join(DATA, name + ".npz"), **arrays)


def conv2d(x, w, b, strides, pads, group=1, dilations=(1, 1)):
    """ONNX Conv: pads = (top, left, bottom, right)."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (xp.shape[2] - ((kh - 1) * dilations[0] + 1)) // strides[0] + 1
    ow = (xp.shape[3] - ((kw - 1) * dilations[1] + 1)) // strides[1] + 1
    out = np.zeros((n, m, oh, ow), dtype=np.float64)
    mg = m // group
    for g in range(group):
        for o in range(g * mg, (g + 1) * mg):
            for i in range(oh):
                for j in range(ow):
                    patch = xp[:, g * cg:(g + 1) * cg,
                               i * strides[0]:i * strides[0] + (kh - 1) * dilations[0] + 1:dilations[0],
                               j * strides[1]:j * strides[1] + (kw - 1) * dilations[1] + 1:dilations[1]]
                    out[:, o, i, j] = np.sum(patch * w[o], axis=(1, 2, 3))
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def max_pool(x, k, s, pads, ceil_mode):
    n, c, h, w = x.shape
    def extent(size, p0, p1, kk, ss):
        span = size + p0 + p1 - kk
        e = (span + (ss - 1 if ceil_mode else 0)) // ss + 1
        if ceil_mode and (e - 1) * ss >= size + p0:  # the last window starts in the padding: dropped
            e -= 1
        return e
    oh, ow = extent(h, pads[0], pads[2], k[0], s[0]), extent(w, pads[1], pads[3], k[1], s[1])
    out = np.full((n, c, oh, ow), -np.inf)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pads[0], j * s[1] - pads[1]
            hs, ws = slice(max(h0, 0), min(h0 + k[0], h)), slice(max(w0, 0), min(w0 + k[1], w))
            out[:, :, i, j] = x[:, :, hs, ws].max(axis=(2, 3))
    return out


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def cnn():
    """Conv (pads, stride, bias) -> BatchNormalization -> Relu -> MaxPool
    (ceil_mode) -> GlobalAveragePool -> Flatten -> Gemm (transB) -> Softmax."""
    x = rng.randn(1, 3, 9, 9).astype(np.float32)
    w = (rng.randn(4, 3, 3, 3) * 0.3).astype(np.float32)
    b = rng.randn(4).astype(np.float32)
    gamma, beta = (rng.rand(4) + 0.5).astype(np.float32), rng.randn(4).astype(np.float32)
    mean, var = rng.randn(4).astype(np.float32), (rng.rand(4) + 0.5).astype(np.float32)
    fc_w, fc_b = rng.randn(5, 4).astype(np.float32), rng.randn(5).astype(np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in [(w, "w"), (b, "b"), (gamma, "gamma"), (beta, "beta"),
                                                         (mean, "mean"), (var, "var"), (fc_w, "fc_w"), (fc_b, "fc_b")]]
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["bn"], name="bn", epsilon=1e-3),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["fc"], name="fc", transB=1),
        helper.make_node("Softmax", ["fc"], ["y"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 9, 9])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
    c = conv2d(x.astype(np.float64), w, b, (2, 2), (1, 1, 1, 1))
    bn = (c - mean.reshape(1, -1, 1, 1)) / np.sqrt(var.reshape(1, -1, 1, 1) + 1e-3) * gamma.reshape(1, -1, 1, 1) + \
        beta.reshape(1, -1, 1, 1)
    p = max_pool(np.maximum(bn, 0), (2, 2), (2, 2), (0, 0, 0, 0), True)
    f = p.mean(axis=(2, 3))
    y = softmax(f @ fc_w.T + fc_b, axis=1)
    save("cnn", graph, 13, {"x": x}, [y.astype(np.float32)])


def elementwise_and_shapes():
    """Broadcast arithmetic, activations, a Reshape whose shape is computed
    from Shape/Gather/Concat (shape arithmetic), Transpose, Unsqueeze,
    Squeeze, Concat, MatMul (3-D by 2-D) and Cast."""
    a = rng.randn(2, 3, 4).astype(np.float32)
    b = rng.randn(4).astype(np.float32)
    m = rng.randn(4, 5).astype(np.float32)
    two = numpy_helper.from_array(np.array([2.0], np.float32), "two")
    lo, hi = numpy_helper.from_array(np.array(-0.5, np.float32), "lo"), numpy_helper.from_array(np.array(0.7, np.float32), "hi")
    idx = numpy_helper.from_array(np.array([0], np.int64), "idx")
    minus1 = numpy_helper.from_array(np.array([-1], np.int64), "minus1")
    ax0 = numpy_helper.from_array(np.array([0], np.int64), "ax0")
    nodes = [
        helper.make_node("Add", ["a", "b"], ["s"], name="add"),
        helper.make_node("Mul", ["s", "two"], ["s2"], name="mul"),
        helper.make_node("Sigmoid", ["s2"], ["sg"], name="sigmoid"),
        helper.make_node("Erf", ["s"], ["er"], name="erf"),
        helper.make_node("Sub", ["sg", "er"], ["d"], name="sub"),
        helper.make_node("Clip", ["d", "lo", "hi"], ["cl"], name="clip"),
        helper.make_node("LeakyRelu", ["s"], ["lr"], name="leaky", alpha=0.2),
        helper.make_node("Shape", ["a"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "idx"], ["batch"], name="gather", axis=0),
        helper.make_node("Concat", ["batch", "minus1"], ["newshape"], name="newshape", axis=0),
        helper.make_node("Reshape", ["lr", "newshape"], ["flat"], name="reshape"),
        helper.make_node("Transpose", ["cl"], ["t"], name="transpose", perm=[0, 2, 1]),
        helper.make_node("Unsqueeze", ["t", "ax0"], ["u"], name="unsqueeze"),
        helper.make_node("Squeeze", ["u", "ax0"], ["sq"], name="squeeze"),
        helper.make_node("MatMul", ["a", "m"], ["mm"], name="matmul"),
        helper.make_node("Cast", ["mm"], ["mm64"], name="cast", to=TensorProto.DOUBLE),
        helper.make_node("Tanh", ["flat"], ["y0"], name="tanh"),
    ]
    graph = helper.make_graph(
        nodes, "elementwise_and_shapes",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 4]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, [4, 5])],
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [2, 12]),
         helper.make_tensor_value_info("sq", TensorProto.FLOAT, [2, 4, 3]),
         helper.make_tensor_value_info("mm64", TensorProto.DOUBLE, [2, 3, 5])],
        [two, lo, hi, idx, minus1, ax0])
    s = a.astype(np.float64) + b
    sg = 1 / (1 + np.exp(-2 * s))
    er = np.vectorize(math.erf)(s)
    cl = np.clip(sg - er, -0.5, 0.7)
    lr = np.where(s > 0, s, 0.2 * s)
    y0 = np.tanh(lr.reshape(2, -1))
    sq = cl.transpose(0, 2, 1)
    mm = a.astype(np.float64) @ m
    save("elementwise_and_shapes", graph, 13, {"a": a, "b": b, "m": m},
         [y0.astype(np.float32), sq.astype(np.float32), mm.astype(np.float32).astype(np.float64)])


def opset9_same_padding():
    """An opset-9 model the version converter brings to 13 (Unsqueeze's axes
    and Clip's bounds as attributes), and a Conv with auto_pad SAME_UPPER."""
    x = rng.randn(1, 2, 5, 5).astype(np.float32)
    w = (rng.randn(3, 2, 3, 3) * 0.5).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv", auto_pad="SAME_UPPER", strides=[2, 2]),
        helper.make_node("Clip", ["c"], ["cl"], name="clip", min=-1.0, max=1.0),
        helper.make_node("Unsqueeze", ["cl"], ["y"], name="unsqueeze", axes=[0]),
    ]
    graph = helper.make_graph(nodes, "opset9", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 3, 3, 3])],
                              [numpy_helper.from_array(w, "w")])
    # SAME_UPPER, stride 2 on 5: output 3, total padding (3 - 1) * 2 + 3 - 5 = 2: 1 before, 1 after.
    c = conv2d(x.astype(np.float64), w, None, (2, 2), (1, 1, 1, 1))
    save("opset9_same_padding", graph, 9, {"x": x}, [np.clip(c, -1, 1)[None].astype(np.float32)])


def symbolic_batch():
    """An input of symbolic batch: the importer needs its shape."""
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "symbolic", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])])
    x = rng.randn(2, 3).astype(np.float32)
    save("symbolic_batch", graph, 13, {"x": x}, [np.maximum(x, 0)])


def unsupported_ops():
    """Two operators weft does not map, one of them twice."""
    nodes = [helper.make_node("Det", ["x"], ["d1"], name="det1"),
             helper.make_node("Det", ["x"], ["d2"], name="det2"),
             helper.make_node("Hardmax", ["x"], ["h"], name="hardmax"),
             helper.make_node("Relu", ["h"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "unsupported", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 3]),
                               helper.make_tensor_value_info("d1", TensorProto.FLOAT, []),
                               helper.make_tensor_value_info("d2", TensorProto.FLOAT, [])])
    x = rng.randn(3, 3).astype(np.float32)
    save("unsupported_ops", graph, 13, {"x": x}, [])


def more_ops():
    """Slice (axes, steps), Split, ReduceMean and ReduceSum (axes as an
    input), Less and Where, Expand, ConstantOfShape, HardSigmoid, variadic
    Max and Mean, InstanceNormalization, PRelu, Elu, and the logical
    ops."""
    x = rng.randn(2, 3, 4).astype(np.float32)
    y = rng.randn(2, 3, 4).astype(np.float32)
    b = rng.randn(3, 1).astype(np.float32)
    scale, bias = (rng.rand(3) + 0.5).astype(np.float32), rng.randn(3).astype(np.float32)
    slope = (rng.rand(3, 1) * 0.5).astype(np.float32)
    consts = {"starts": np.array([1, 0], np.int64), "ends": np.array([2, 3], np.int64), "axes": np.array([0, 2], np.int64),
              "steps": np.array([1, 2], np.int64), "sizes": np.array([1, 2], np.int64), "ax2": np.array([2], np.int64),
              "b": b, "shape": np.array([2, 3, 4], np.int64), "shape22": np.array([2, 2], np.int64),
              "scale": scale, "bias": bias, "slope": slope, "zero": np.array(0, np.float32)}
    inits = [numpy_helper.from_array(v, k) for k, v in consts.items()]
    nodes = [
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["sl"], name="slice"),
        helper.make_node("Split", ["x", "sizes"], ["s0", "s1"], name="split", axis=1),
        helper.make_node("ReduceMean", ["s1"], ["rm"], name="reduce_mean", axes=[1], keepdims=1),
        helper.make_node("ReduceSum", ["x", "ax2"], ["rs"], name="reduce_sum", keepdims=0),
        helper.make_node("Less", ["x", "y"], ["lt"], name="less"),
        helper.make_node("Where", ["lt", "x", "y"], ["wh"], name="where"),
        helper.make_node("Expand", ["b", "shape"], ["ex"], name="expand"),
        helper.make_node("ConstantOfShape", ["shape22"], ["co"], name="fill",
                         value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.5])),
        helper.make_node("HardSigmoid", ["x"], ["hs"], name="hard_sigmoid", alpha=0.3, beta=0.4),
        helper.make_node("Max", ["x", "y", "ex"], ["mx"], name="max"),
        helper.make_node("Mean", ["x", "y"], ["mn"], name="mean"),
        helper.make_node("InstanceNormalization", ["x", "scale", "bias"], ["inn"], name="instance_norm", epsilon=1e-5),
        helper.make_node("PRelu", ["x", "slope"], ["pr"], name="prelu"),
        helper.make_node("Elu", ["y"], ["el"], name="elu", alpha=0.7),
        helper.make_node("Greater", ["x", "zero"], ["gt"], name="greater"),
        helper.make_node("Less", ["y", "zero"], ["neg"], name="negative"),
        helper.make_node("Equal", ["gt", "neg"], ["eq"], name="equal"),
        helper.make_node("Not", ["eq"], ["ne"], name="not"),
    ]
    shapes = {"sl": [1, 3, 2], "s0": [2, 1, 4], "rm": [2, 1, 4], "rs": [2, 3], "wh": [2, 3, 4], "ex": [2, 3, 4],
              "co": [2, 2], "hs": [2, 3, 4], "mx": [2, 3, 4], "mn": [2, 3, 4], "inn": [2, 3, 4],
              "pr": [2, 3, 4], "el": [2, 3, 4]}
    outs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in shapes.items()]
    outs.append(helper.make_tensor_value_info("ne", TensorProto.BOOL, [2, 3, 4]))
    graph = helper.make_graph(nodes, "more_ops", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
                                                  helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])],
                              outs, inits)
    X, Y = x.astype(np.float64), y.astype(np.float64)
    ex = np.broadcast_to(b, (2, 3, 4))
    mean = X.mean(axis=2, keepdims=True)
    var = X.var(axis=2, keepdims=True)
    hsig = lambda v, a, c: np.clip(a * v + c, 0, 1)
    values = [X[1:2, :, 0:3:2], X[:, 0:1], X[:, 1:3].mean(axis=1, keepdims=True), X.sum(axis=2), np.where(X < Y, X, Y),
              ex, np.full((2, 2), 1.5), hsig(X, 0.3, 0.4), np.maximum(np.maximum(X, Y), ex),
              (X + Y) / 2, (X - mean) / np.sqrt(var + 1e-5) * scale.reshape(1, 3, 1) + bias.reshape(1, 3, 1),
              np.where(X < 0, X * slope, X), np.where(Y < 0, 0.7 * (np.exp(Y) - 1), Y)]
    outputs = [v.astype(np.float32) for v in values] + [np.logical_not((X > 0) == (Y < 0))]
    save("more_ops", graph, 13, {"x": x, "y": y}, outputs)


def conv_transpose(x, w, strides, pads, output_padding=(0, 0)):
    """ONNX ConvTranspose (group 1): each input element scatters w's
    (C_in, C_out, kh, kw) kernel; pads crop the full result (top, left,
    bottom, right); output_padding adds rows and columns at the end."""
    n, c, h, wd = x.shape
    _, m, kh, kw = w.shape
    full = np.zeros((n, m, (h - 1) * strides[0] + kh + output_padding[0], (wd - 1) * strides[1] + kw + output_padding[1]))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * strides[0]:i * strides[0] + kh, j * strides[1]:j * strides[1] + kw] += \
                np.einsum("nc,cmij->nmij", x[:, :, i, j], w)
    return full[:, :, pads[0]:full.shape[2] - pads[2], pads[1]:full.shape[3] - pads[3]]


def pool_nd(x, kernel, strides, pads, reduce, count_include_pad=False):
    """Max or average pooling over the trailing len(kernel) axes; pads are
    all begins then all ends (no ceil_mode)."""
    rank = len(kernel)
    spatial = x.shape[2:]
    widths = [(0, 0), (0, 0)] + [(pads[d], pads[d + rank]) for d in range(rank)]
    fill = -np.inf if reduce == "max" else 0.0
    xp = np.pad(x, widths, constant_values=fill)
    ones = np.pad(np.ones(spatial), widths[2:], constant_values=0)
    out_shape = [(spatial[d] + pads[d] + pads[d + rank] - kernel[d]) // strides[d] + 1 for d in range(rank)]
    out = np.zeros(x.shape[:2] + tuple(out_shape))
    for idx in np.ndindex(*out_shape):
        window = tuple(slice(i * s, i * s + k) for i, s, k in zip(idx, strides, kernel))
        patch = xp[(slice(None), slice(None)) + window]
        axes = tuple(range(2, 2 + rank))
        if reduce == "max":
            out[(slice(None), slice(None)) + idx] = patch.max(axis=axes)
        else:
            count = np.prod(kernel) if count_include_pad else ones[window].sum()
            out[(slice(None), slice(None)) + idx] = patch.sum(axis=axes) / count
    return out


def nn_ops():
    """ConvTranspose (pads with output_padding; output_shape), Pad in its
    three modes, 1-D max and 3-D average pooling (count_include_pad), 1-D
    global pooling, Slice with a negative step, MatMul of broadcast batches
    and of a vector, ArgMax, Tile, Reciprocal, Softplus, Sign; an explicit
    Pad before an AveragePool (PyTorch's export of a padded avg_pool2d) and a
    Pad of nothing."""
    x = rng.randn(1, 2, 3, 3).astype(np.float32)
    w = (rng.randn(2, 3, 3, 3) * 0.5).astype(np.float32)
    b = rng.randn(3).astype(np.float32)
    v = rng.randn(1, 2, 5).astype(np.float32)
    cube = rng.randn(1, 2, 4, 4, 4).astype(np.float32)
    p = rng.randn(2, 1, 3, 4).astype(np.float32)
    q = rng.randn(3, 4, 2).astype(np.float32)
    vec = rng.randn(4).astype(np.float32)
    consts = {"w": w, "b": b, "pads_c": np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64), "value": np.array(1.5, np.float32),
              "pads_r": np.array([0, 0, 2, 0, 0, 0, 1, 2], np.int64), "pads_e": np.array([0, 0, 0, 1, 0, 0, 2, -1], np.int64),
              "starts": np.array([-1, 3], np.int64), "ends": np.array([-100, 0], np.int64),
              "axes": np.array([2, 3], np.int64), "steps": np.array([-1, -2], np.int64), "reps": np.array([1, 2, 1, 1], np.int64),
              "pads_avg": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "no_pads": np.zeros(8, np.int64)}
    inits = [numpy_helper.from_array(v_, k) for k, v_ in consts.items()]
    nodes = [
        helper.make_node("ConvTranspose", ["x", "w", "b"], ["ct"], name="deconv", strides=[2, 2], pads=[1, 0, 0, 1],
                         output_padding=[1, 1]),
        helper.make_node("ConvTranspose", ["x", "w"], ["ct_shape"], name="deconv_shape", strides=[2, 2],
                         output_shape=[6, 5]),
        helper.make_node("Pad", ["x", "pads_c", "value"], ["pc"], name="pad_constant"),
        helper.make_node("Pad", ["x", "pads_r"], ["pr"], name="pad_reflect", mode="reflect"),
        helper.make_node("Pad", ["x", "pads_e"], ["pe"], name="pad_edge", mode="edge"),
        helper.make_node("MaxPool", ["v"], ["mp1"], name="max_pool_1d", kernel_shape=[2], strides=[1], pads=[1, 0]),
        helper.make_node("AveragePool", ["cube"], ["ap3"], name="avg_pool_3d", kernel_shape=[3, 2, 2], strides=[2, 2, 2],
                         pads=[1, 0, 1, 0, 0, 1], count_include_pad=1),
        helper.make_node("AveragePool", ["x"], ["ap2"], name="avg_pool_2d", kernel_shape=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["v"], ["gap1"], name="global_avg_pool_1d"),
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["rev"], name="reverse"),
        helper.make_node("MatMul", ["p", "q"], ["bmm"], name="batched_matmul"),
        helper.make_node("MatMul", ["vec", "q"], ["vmm"], name="vector_matmul"),
        helper.make_node("ArgMax", ["v"], ["am"], name="argmax", axis=2, keepdims=0),
        helper.make_node("Tile", ["x", "reps"], ["tl"], name="tile"),
        helper.make_node("Reciprocal", ["v"], ["rc"], name="reciprocal"),
        helper.make_node("Softplus", ["v"], ["sp"], name="softplus"),
        helper.make_node("Sign", ["v"], ["sg"], name="sign"),
        # PyTorch's avg_pool2d(x, 3, stride=1, padding=1): an explicit Pad, then a pool of its own padding 0.
        helper.make_node("Pad", ["x", "pads_avg"], ["x_padded"], name="explicit_pad"),
        helper.make_node("AveragePool", ["x_padded"], ["avg_padded"], name="avg_of_padded", kernel_shape=[3, 3]),
        helper.make_node("Pad", ["x", "no_pads"], ["x_same"], name="zero_pad"),
        helper.make_node("Relu", ["x_same"], ["relu_same"], name="relu_of_zero_pad"),
    ]
    X, V, C = x.astype(np.float64), v.astype(np.float64), cube.astype(np.float64)
    values = {
        "ct": conv_transpose(X, w, (2, 2), (1, 0, 0, 1), (1, 1)) + b.reshape(1, -1, 1, 1),
        # output 6x5 from 7x7: total padding 1 and 2, the larger half first (NOTSET).
        "ct_shape": conv_transpose(X, w, (2, 2), (1, 1, 0, 1)),
        "pc": np.pad(X, ((0, 0), (0, 0), (1, 2), (2, 1)), constant_values=1.5),
        "pr": np.pad(X, ((0, 0), (0, 0), (2, 1), (0, 2)), mode="reflect"),
        "pe": np.pad(X, ((0, 0), (0, 0), (0, 2), (1, 0)), mode="edge")[:, :, :, :-1],
        "mp1": pool_nd(V, (2,), (1,), (1, 0), "max"),
        "ap3": pool_nd(C, (3, 2, 2), (2, 2, 2), (1, 0, 1, 0, 0, 1), "avg", count_include_pad=True),
        "ap2": pool_nd(X, (2, 2), (1, 1), (1, 1, 1, 1), "avg"),
        "gap1": V.mean(axis=2, keepdims=True),
        "rev": X[:, :, ::-1, 3:0:-2],  # axis 2 to before its first element, axis 3 down to 0 exclusive
        "bmm": p.astype(np.float64) @ q,
        "vmm": vec.astype(np.float64) @ q,
        "am": V.argmax(axis=2),
        "tl": np.tile(X, (1, 2, 1, 1)),
        "rc": 1 / V,
        "sp": np.log(np.exp(V) + 1),
        "sg": np.sign(V),
        "avg_padded": pool_nd(X, (3, 3), (1, 1), (1, 1, 1, 1), "avg", count_include_pad=True),
        "relu_same": np.maximum(X, 0),
    }
    outs = [helper.make_tensor_value_info(k, TensorProto.INT64 if k == "am" else TensorProto.FLOAT, list(a.shape))
            for k, a in values.items()]
    graph = helper.make_graph(nodes, "nn_ops", [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(a.shape))
                                                for k, a in [("x", x), ("v", v), ("cube", cube), ("p", p), ("q", q),
                                                             ("vec", vec)]], outs, inits)
    outputs = [a.astype(np.int64) if k == "am" else a.astype(np.float32) for k, a in values.items()]
    save("nn_ops", graph, 13, {"x": x, "v": v, "cube": cube, "p": p, "q": q, "vec": vec}, outputs)


def opset17_encoder_block():
    """What torch.onnx.export writes for a transformer encoder at opset 17:
    LayerNormalization (over the last axis, and over the last two), Shape
    with start and end (opset 15), multi-head attention as 4-D MatMuls, a
    GELU of Erf, BatchNormalization with training_mode (opset 15) and
    HardSwish (opset 14)."""
    s, d, heads = 4, 6, 2
    x = rng.randn(1, s, d).astype(np.float32)
    gamma, beta = (rng.rand(d) + 0.5).astype(np.float32), rng.randn(d).astype(np.float32)
    gamma2 = (rng.rand(s, d) + 0.5).astype(np.float32)
    wq, wk = (rng.randn(d, d) * 0.4).astype(np.float32), (rng.randn(d, d) * 0.4).astype(np.float32)
    bn = [(rng.rand(s) + 0.5).astype(np.float32), rng.randn(s).astype(np.float32), rng.randn(s).astype(np.float32),
          (rng.rand(s) + 0.5).astype(np.float32)]
    consts = {"gamma": gamma, "beta": beta, "gamma2": gamma2, "wq": wq, "wk": wk,
              "split_heads": np.array([1, s, heads, d // heads], np.int64), "sqrt2": np.array(math.sqrt(2), np.float32),
              "one": np.array(1.0, np.float32), "half": np.array(0.5, np.float32),
              "bn_scale": bn[0], "bn_bias": bn[1], "bn_mean": bn[2], "bn_var": bn[3]}
    inits = [numpy_helper.from_array(v_, k) for k, v_ in consts.items()]
    nodes = [
        helper.make_node("LayerNormalization", ["x", "gamma", "beta"], ["ln"], name="layer_norm", epsilon=1e-5),
        helper.make_node("LayerNormalization", ["x", "gamma2"], ["ln2"], name="layer_norm_2d", axis=-2, epsilon=1e-3),
        helper.make_node("Shape", ["x"], ["tail"], name="shape_tail", start=-2),
        helper.make_node("MatMul", ["ln", "wq"], ["q"], name="q"),
        helper.make_node("MatMul", ["ln", "wk"], ["k"], name="k"),
        helper.make_node("Reshape", ["q", "split_heads"], ["q4"], name="q_heads"),
        helper.make_node("Reshape", ["k", "split_heads"], ["k4"], name="k_heads"),
        helper.make_node("Transpose", ["q4"], ["qt"], name="q_t", perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["k4"], ["kt"], name="k_t", perm=[0, 2, 3, 1]),
        helper.make_node("MatMul", ["qt", "kt"], ["scores"], name="scores"),
        helper.make_node("Softmax", ["scores"], ["attn"], name="softmax", axis=-1),
        helper.make_node("MatMul", ["attn", "qt"], ["ctx"], name="context"),
        helper.make_node("Div", ["ctx", "sqrt2"], ["g0"], name="gelu_div"),
        helper.make_node("Erf", ["g0"], ["g1"], name="gelu_erf"),
        helper.make_node("Add", ["g1", "one"], ["g2"], name="gelu_add"),
        helper.make_node("Mul", ["ctx", "g2"], ["g3"], name="gelu_mul"),
        helper.make_node("Mul", ["g3", "half"], ["gelu"], name="gelu_half"),
        helper.make_node("BatchNormalization", ["x", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"], name="bn",
                         training_mode=0),
        helper.make_node("HardSwish", ["x"], ["hsw"], name="hard_swish"),
    ]
    X = x.astype(np.float64)
    def layer_norm(v, axes, eps):
        mean = v.mean(axis=axes, keepdims=True)
        return (v - mean) / np.sqrt(v.var(axis=axes, keepdims=True) + eps)
    ln = layer_norm(X, (2,), 1e-5) * gamma + beta
    q = (ln @ wq).reshape(1, s, heads, d // heads).transpose(0, 2, 1, 3)
    k = (ln @ wk).reshape(1, s, heads, d // heads).transpose(0, 2, 3, 1)
    ctx = softmax(q @ k, axis=-1) @ q
    gelu = ctx * (np.vectorize(math.erf)(ctx / math.sqrt(2)) + 1) * 0.5
    bn_out = (X - bn[2].reshape(1, s, 1)) / np.sqrt(bn[3].reshape(1, s, 1) + 1e-5) * bn[0].reshape(1, s, 1) + \
        bn[1].reshape(1, s, 1)
    values = {"ln": ln, "ln2": layer_norm(X, (1, 2), 1e-3) * gamma2, "tail": np.array([s, d], np.int64),
              "gelu": gelu, "bn": bn_out, "hsw": X * np.clip(X / 6 + 0.5, 0, 1)}
    outs = [helper.make_tensor_value_info(k_, TensorProto.INT64 if k_ == "tail" else TensorProto.FLOAT, list(a.shape))
            for k_, a in values.items()]
    graph = helper.make_graph(nodes, "encoder_block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, s, d])],
                              outs, inits)
    outputs = [a if k_ == "tail" else a.astype(np.float32) for k_, a in values.items()]
    save("opset17_encoder_block", graph, 17, {"x": x}, outputs)


def resize_matrix(in_size, out_size, mode, coord, scale=None):
    """The (out x in) matrix of ONNX Resize along one axis: the source
    coordinate of each output index per coordinate_transformation_mode, then
    nearest (rounded down) or linear taps, coordinates held inside the axis."""
    scale = out_size / in_size if scale is None else scale
    x = np.arange(out_size, dtype=np.float64)
    if coord == "half_pixel":
        c = (x + 0.5) / scale - 0.5
    elif coord == "pytorch_half_pixel":
        c = (x + 0.5) / scale - 0.5 if out_size > 1 else np.zeros(out_size)
    elif coord == "align_corners":
        c = x * (in_size - 1) / (out_size - 1) if out_size > 1 else np.zeros(out_size)
    else:  # asymmetric
        c = x / scale
    m = np.zeros((out_size, in_size))
    if mode == "nearest":
        m[np.arange(out_size), np.clip(np.floor(c).astype(int), 0, in_size - 1)] = 1
        return m
    c = np.clip(c, 0, in_size - 1)
    lo = np.floor(c).astype(int)
    t = c - lo
    m[np.arange(out_size), lo] += 1 - t
    m[np.arange(out_size), np.minimum(lo + 1, in_size - 1)] += t
    return m


def resized(x, out_spatial, mode, coord, scales=None):
    """x resized over its spatial axes, one axis matrix at a time."""
    y = x.astype(np.float64)
    for k, size in enumerate(out_spatial):
        axis = 2 + k
        m = resize_matrix(x.shape[axis], size, mode, coord, None if scales is None else scales[axis])
        y = np.moveaxis(np.tensordot(m, np.moveaxis(y, axis, 0), axes=1), 0, axis)
    return y


def resize():
    """Resize as PyTorch exports F.interpolate: bilinear (pytorch_half_pixel,
    up and down), nearest (asymmetric, floor) by scales, bilinear with
    align_corners, trilinear (half_pixel) of 5-D data."""
    x = rng.randn(1, 2, 3, 4).astype(np.float32)
    v = rng.randn(1, 1, 2, 3, 3).astype(np.float32)
    consts = {"up": np.array([1, 2, 7, 5], np.int64), "down": np.array([1, 2, 2, 3], np.int64),
              "corners": np.array([1, 2, 5, 7], np.int64), "volume": np.array([1, 1, 4, 3, 6], np.int64),
              "scales": np.array([1, 1, 2, 3], np.float32), "none": np.array([], np.float32)}
    inits = [numpy_helper.from_array(v_, k) for k, v_ in consts.items()]
    nodes = [
        helper.make_node("Resize", ["x", "", "", "up"], ["bilinear_up"], name="bilinear_up", mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel"),
        helper.make_node("Resize", ["x", "", "", "down"], ["bilinear_down"], name="bilinear_down", mode="linear",
                         coordinate_transformation_mode="pytorch_half_pixel"),
        helper.make_node("Resize", ["x", "", "scales"], ["nearest"], name="nearest", mode="nearest",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        helper.make_node("Resize", ["x", "", "none", "corners"], ["aligned"], name="aligned", mode="linear",
                         coordinate_transformation_mode="align_corners"),
        helper.make_node("Resize", ["v", "", "", "volume"], ["trilinear"], name="trilinear", mode="linear",
                         coordinate_transformation_mode="half_pixel"),
    ]
    values = {"bilinear_up": resized(x, (7, 5), "linear", "pytorch_half_pixel"),
              "bilinear_down": resized(x, (2, 3), "linear", "pytorch_half_pixel"),
              "nearest": resized(x, (6, 12), "nearest", "asymmetric", scales=[1, 1, 2, 3]),
              "aligned": resized(x, (5, 7), "linear", "align_corners"),
              "trilinear": resized(v, (4, 3, 6), "linear", "half_pixel")}
    outs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, list(a.shape)) for k, a in values.items()]
    graph = helper.make_graph(nodes, "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4]),
                                                helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 1, 2, 3, 3])],
                              outs, inits)
    save("resize", graph, 13, {"x": x, "v": v}, [a.astype(np.float32) for a in values.values()])


def upsample_opset9():
    """Upsample (opset 9), which the version converter makes a Resize."""
    x = rng.randn(1, 2, 3, 2).astype(np.float32)
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    nodes = [helper.make_node("Upsample", ["x", "scales"], ["y"], name="upsample", mode="nearest")]
    graph = helper.make_graph(nodes, "upsample", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 4])], [scales])
    save("upsample_opset9", graph, 9, {"x": x}, [x.repeat(2, axis=2).repeat(2, axis=3)])


def malformed():
    """Models ONNX's checker passes and its library then trips over: a
    graph output nothing computes (the converter dereferences its missing
    producer) and a Conv weight of rank 2 (shape inference crashes). Written
    without the checker, as a fuzzer would."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])
    nodes = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "orphan_output", [x], [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])
    model.ir_version = 7
    onnx.save(model, os.path.join(DATA, "malformed_orphan_output.onnx"))
    w = numpy_helper.from_array(np.ones((3, 2), np.float32), "w")
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", auto_pad="SAME_UPPER", strides=[2, 2]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "flat_kernel", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 2, 2])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, os.path.join(DATA, "malformed_flat_kernel.onnx"))
    # Pad's mode out of its range (ONNX's checker reads no attribute values).
    pads = numpy_helper.from_array(np.zeros(8, np.int64), "pads")
    nodes = [helper.make_node("Pad", ["x", "pads"], ["y"], name="pad", mode="wrap")]
    graph = helper.make_graph(nodes, "bad_attributes", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 5, 5])],
                              [pads])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, os.path.join(DATA, "bad_attributes.onnx"))
    # Shapes that do not broadcast (ONNX's shape inference skips the node; weft's type inference does not).
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "bad_shapes", [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
                                                    helper.make_tensor_value_info("b", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, os.path.join(DATA, "malformed_shapes.onnx"))
    # A stride of 0: ONNX's Conv shape inference divides by it (SIGFPE, in the child process).
    nodes = [helper.make_node("Conv", ["x", "k"], ["y"], name="conv", strides=[0, 1])]
    k = numpy_helper.from_array(np.ones((3, 2, 3, 3), np.float32), "k")
    graph = helper.make_graph(nodes, "zero_stride", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 3, 3])],
                              [k])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, os.path.join(DATA, "malformed_zero_stride.onnx"))


def external_data():
    """A weight stored beside the model (ONNX's external data: location,
    offset, length), and a model whose weight claims a file outside its
    folder, which the importer refuses to read."""
    x = rng.randn(2, 3).astype(np.float32)
    w = rng.randn(3, 4).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    graph = helper.make_graph(nodes, "external", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                              [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="weft-tests")
    model.ir_version = 7
    # 16 bytes of something else first, so the offset is read.
    with open(os.path.join(DATA, "external_weights.bin"), "wb") as f:
        f.write(b"\0" * 16 + w.tobytes())
    t = model.graph.initializer[0]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for key, value in [("location", "external_weights.bin"), ("offset", "16"), ("length", str(w.nbytes))]:
        entry = t.external_data.add()
        entry.key, entry.value = key, value
    onnx.save(model, os.path.join(DATA, "external_data.onnx"))
    np.savez(os.path.join(DATA, "external_data.npz"), in_x=x, out_0=(x.astype(np.float64) @ w).astype(np.float32))
    t.external_data[0].value = "../tests/data/external_weights.bin"
    onnx.save(model, os.path.join(DATA, "malformed_escaping_data.onnx"))


def activations_and_reductions():
    """Selu, Celu, ThresholdedRelu, Softsign, Round, Mod (both kinds), Xor,
    the composite reductions (L1, L2, SumSquare, LogSum, LogSumExp), Size,
    a constant Range, DepthToSpace (DCR and CRD), SpaceToDepth and an
    int64 Constant's value_int."""
    x = (rng.randn(2, 3, 4) * 2).astype(np.float32)
    p = rng.rand(2, 3, 4).astype(np.float32) + 0.1
    i = rng.randint(-9, 9, size=(2, 6)).astype(np.int64)
    j = np.where(rng.rand(2, 6) < 0.5, -4, 3).astype(np.int64)
    img = rng.randn(1, 8, 2, 3).astype(np.float32)
    b1, b2 = (rng.rand(2, 6) < 0.5), (rng.rand(2, 6) < 0.5)
    consts = {"start": np.array(2, np.int64), "limit": np.array(11, np.int64), "delta": np.array(3, np.int64),
              "fstart": np.array(1.5, np.float32), "flimit": np.array(-1.0, np.float32),
              "fdelta": np.array(-0.75, np.float32)}
    inits = [numpy_helper.from_array(v_, k) for k, v_ in consts.items()]
    nodes = [
        helper.make_node("Selu", ["x"], ["selu"], name="selu"),
        helper.make_node("Celu", ["x"], ["celu"], name="celu", alpha=0.7),
        helper.make_node("ThresholdedRelu", ["x"], ["trelu"], name="thresholded_relu", alpha=0.5),
        helper.make_node("Softsign", ["x"], ["softsign"], name="softsign"),
        helper.make_node("Round", ["x"], ["round"], name="round"),
        helper.make_node("Mod", ["i", "j"], ["pymod"], name="python_mod"),
        helper.make_node("Mod", ["i", "j"], ["cmod"], name="c_fmod", fmod=1),
        helper.make_node("Xor", ["b1", "b2"], ["xor"], name="xor"),
        helper.make_node("ReduceL1", ["x"], ["l1"], name="l1", axes=[2], keepdims=0),
        helper.make_node("ReduceL2", ["x"], ["l2"], name="l2", axes=[1]),
        helper.make_node("ReduceSumSquare", ["x"], ["ss"], name="sum_square", axes=[0, 2], keepdims=0),
        helper.make_node("ReduceLogSum", ["p"], ["ls"], name="log_sum", axes=[2]),
        helper.make_node("ReduceLogSumExp", ["x"], ["lse"], name="log_sum_exp", axes=[1], keepdims=0),
        helper.make_node("Size", ["x"], ["size"], name="size"),
        helper.make_node("Range", ["start", "limit", "delta"], ["irange"], name="int_range"),
        helper.make_node("Range", ["fstart", "flimit", "fdelta"], ["frange"], name="float_range"),
        helper.make_node("DepthToSpace", ["img"], ["d2s_dcr"], name="d2s_dcr", blocksize=2),
        helper.make_node("DepthToSpace", ["img"], ["d2s_crd"], name="d2s_crd", blocksize=2, mode="CRD"),
        helper.make_node("SpaceToDepth", ["d2s_dcr"], ["s2d"], name="s2d", blocksize=2),
        # Exporters write INT64_MAX for "to the end": it must arrive exactly.
        helper.make_node("Constant", [], ["big"], name="int64_max", value_int=2**63 - 1),
    ]
    X, P = x.astype(np.float64), p.astype(np.float64)
    def d2s(v, b, mode):
        n, c, h, w = v.shape
        if mode == "DCR":
            t = v.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
        else:
            t = v.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
        return t.reshape(n, c // (b * b), h * b, w * b)
    alpha, gamma = 1.67326319217681884765625, 1.05070102214813232421875
    values = {
        "selu": gamma * np.where(X > 0, X, alpha * (np.exp(X) - 1)),
        "celu": np.maximum(X, 0) + np.minimum(0, 0.7 * (np.exp(X / 0.7) - 1)),
        "trelu": np.where(X > 0.5, X, 0),
        "softsign": X / (1 + np.abs(X)),
        "round": np.round(X),  # half to even, as ONNX's Round
        "pymod": np.mod(i, j),
        "cmod": np.fmod(i, j),
        "xor": np.logical_xor(b1, b2),
        "l1": np.abs(X).sum(axis=2),
        "l2": np.sqrt((X * X).sum(axis=1, keepdims=True)),
        "ss": (X * X).sum(axis=(0, 2)),
        "ls": np.log(P.sum(axis=2, keepdims=True)),
        "lse": np.log(np.exp(X).sum(axis=1)),
        "size": np.array(24, np.int64),
        "irange": np.arange(2, 11, 3, dtype=np.int64),
        "frange": np.arange(1.5, -1.0, -0.75),
        "d2s_dcr": d2s(img, 2, "DCR"),
        "d2s_crd": d2s(img, 2, "CRD"),
        "s2d": img,  # SpaceToDepth undoes DCR's DepthToSpace
        "big": np.array(2**63 - 1, np.int64),
    }
    def elem(k):
        return {"pymod": TensorProto.INT64, "cmod": TensorProto.INT64, "xor": TensorProto.BOOL,
                "size": TensorProto.INT64, "irange": TensorProto.INT64, "big": TensorProto.INT64}.get(k, TensorProto.FLOAT)
    outs = [helper.make_tensor_value_info(k, elem(k), list(np.shape(a))) for k, a in values.items()]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
           helper.make_tensor_value_info("p", TensorProto.FLOAT, [2, 3, 4]),
           helper.make_tensor_value_info("i", TensorProto.INT64, [2, 6]),
           helper.make_tensor_value_info("j", TensorProto.INT64, [2, 6]),
           helper.make_tensor_value_info("b1", TensorProto.BOOL, [2, 6]),
           helper.make_tensor_value_info("b2", TensorProto.BOOL, [2, 6]),
           helper.make_tensor_value_info("img", TensorProto.FLOAT, [1, 8, 2, 3])]
    graph = helper.make_graph(nodes, "activations_and_reductions", ins, outs, inits)
    outputs = [a if elem(k) != TensorProto.FLOAT else np.asarray(a).astype(np.float32) for k, a in values.items()]
    save("activations_and_reductions", graph, 13, {"x": x, "p": p, "i": i, "j": j, "b1": b1, "b2": b2, "img": img},
         outputs)


if __name__ == "__main__":
    os.makedirs(DATA, exist_ok=True)
    cnn()
    elementwise_and_shapes()
    opset9_same_padding()
    symbolic_batch()
    unsupported_ops()
    more_ops()
    nn_ops()
    opset17_encoder_block()
    resize()
    upsample_opset9()
    malformed()
    external_data()
    activations_and_reductions()

#!/usr/bin/python3
"""Writes the inputs and NumPy-computed expected outputs for tests/cli.

Run once with /usr/bin/python3 (Debian's python3-numpy); the outputs are
committed. Random inputs that `weft run` draws itself are recomputed here
with the NumPy expressions docs/cli.md documents, so the tests check that
weft draws exactly those.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def relu(v):
    return np.maximum(v, 0)


def softmax(logits):
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def main():
    # add_relu.relay with given inputs, and with inputs drawn from seed 3.
    rng = np.random.RandomState(11)
    x = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    y = rng.uniform(-1, 1, (3,)).astype(np.float32)
    np.savez(path("add_relu_inputs.npz"), x=x, y=y)
    np.savez(path("add_relu_expected.npz"), output=relu(x + y))
    np.random.seed(3)
    rx = np.random.uniform(0, 1, size=(2, 3)).astype(np.float32)
    ry = np.random.uniform(0, 1, size=(3,)).astype(np.float32)
    np.savez(path("add_relu_seed3_expected.npz"), output=relu(rx + ry))
    # y alone given: x is drawn first from seed 0.
    np.random.seed(0)
    only_x = np.random.uniform(0, 1, size=(2, 3)).astype(np.float32)
    np.savez(path("add_relu_y_only_inputs.npz"), y=y)
    np.savez(path("add_relu_y_only_expected.npz"), output=relu(only_x + y))

    # nested_tuple.relay
    a = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    b = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    np.savez(path("nested_tuple_inputs.npz"), x=a, y=b)
    np.savez(path("nested_tuple_expected.npz"), output_0=a + b, output_1=a * b, output_2=a.sum(axis=1))

    # dense_softmax.relay: data as input, weights as parameters.
    data = rng.uniform(-1, 1, (2, 4)).astype(np.float32)
    weight = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    bias = rng.uniform(-1, 1, (3,)).astype(np.float32)
    np.savez(path("dense_inputs.npz"), data=data)
    np.savez(path("dense_params.npz"), dense_weight=weight, dense_bias=bias)
    np.savez(path("dense_expected.npz"), output=softmax(data @ weight.T + bias))

    # mixed_dtypes.relay, every input drawn from seed 5 in parameter order.
    np.random.seed(5)
    ints = np.floor(np.random.uniform(0, 10, size=(4,))).astype(np.int32)
    bools = np.random.uniform(0, 1, size=(5,)) < 0.5
    halves = np.random.uniform(0, 1, size=(2, 2)).astype(np.float16)
    np.savez(path("mixed_seed5_expected.npz"), output_0=ints + ints, output_1=~bools,
             output_2=halves)

    # dynamic_dense.relay (data: Tensor[(?, 4)]) with dense_softmax's weights,
    # run at two batch sizes.
    batches = np.random.RandomState(12)
    for batch in (5, 1):
        data = batches.uniform(-1, 1, (batch, 4)).astype(np.float32)
        np.savez(path("dynamic_dense_inputs_%d.npz" % batch), data=data)
        np.savez(path("dynamic_dense_expected_%d.npz" % batch), output=softmax(data @ weight.T + bias))


if __name__ == "__main__":
    main()

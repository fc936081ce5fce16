#!/usr/bin/python3
"""Writes tvm_split_data_inputs.npz and tvm_split_data_expected.npz for tests/cli.

tvm_split_data.relay is what TVM 0.19's astext(show_meta_data=False) prints,
after InferType, for

    x = relay.var("data", shape=(1, 32)); y = relay.var("data", shape=(1, 32))
    s = relay.split(relay.subtract(x, y), 4, axis=1)
    relay.Function([x, y], relay.multiply(relay.sigmoid(s[0]), relay.tanh(s[3])))

Both inputs are named `data`, which the text shows as %data and %data1, and
the split's 4 is a boxed integer the omitted metadata section would hold.
Run once with /usr/bin/python3 (Debian's python3-numpy); the outputs are
committed.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    rng = np.random.RandomState(29)
    data = rng.uniform(-2, 2, (1, 32)).astype(np.float32)
    data1 = rng.uniform(-2, 2, (1, 32)).astype(np.float32)
    parts = np.split((data - data1).astype(np.float64), 4, axis=1)
    out = 1 / (1 + np.exp(-parts[0])) * np.tanh(parts[3])
    np.savez(os.path.join(HERE, "tvm_split_data_inputs.npz"), data=data, data1=data1)
    np.savez(os.path.join(HERE, "tvm_split_data_expected.npz"), output=out.astype(np.float32))


if __name__ == "__main__":
    main()

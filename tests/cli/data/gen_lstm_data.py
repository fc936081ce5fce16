#!/usr/bin/python3
"""Writes lstm_params.npz, lstm_inputs.npz and lstm_expected.npz for tests/cli.

The model is `lstm:iterations=3,num_hidden=8` (relay.testing.lstm): step i
reads its own input, which TVM's text shows as %data, %data1, %data2 (every
step's input is named `data`), and its own i2h_<i>_* and h2h_<i>_* weights;
the states start as zeros and the output is the last hidden state. Run once
with /usr/bin/python3 (Debian's python3-numpy); the outputs are committed.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS, HIDDEN, BATCH = 3, 8, 1


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def main():
    rng = np.random.RandomState(23)
    params, inputs = {}, {}
    for i in range(STEPS):
        for kind in ("i2h", "h2h"):
            params[f"{kind}_{i}_weight"] = rng.uniform(-0.5, 0.5, (4 * HIDDEN, HIDDEN)).astype(np.float32)
            params[f"{kind}_{i}_bias"] = rng.uniform(-0.5, 0.5, (4 * HIDDEN,)).astype(np.float32)
        inputs["data" if i == 0 else f"data{i}"] = rng.uniform(-1, 1, (BATCH, HIDDEN)).astype(np.float32)

    h = np.zeros((BATCH, HIDDEN), np.float64)
    c = np.zeros((BATCH, HIDDEN), np.float64)
    for i in range(STEPS):
        x = inputs["data" if i == 0 else f"data{i}"].astype(np.float64)
        gates = (x @ params[f"i2h_{i}_weight"].T + params[f"i2h_{i}_bias"]
                 + h @ params[f"h2h_{i}_weight"].T + params[f"h2h_{i}_bias"])
        in_gate, forget_gate, in_transform, out_gate = np.split(gates, 4, axis=1)
        c = sigmoid(forget_gate) * c + sigmoid(in_gate) * np.tanh(in_transform)
        h = sigmoid(out_gate) * np.tanh(c)

    np.savez(os.path.join(HERE, "lstm_params.npz"), **params)
    np.savez(os.path.join(HERE, "lstm_inputs.npz"), **inputs)
    np.savez(os.path.join(HERE, "lstm_expected.npz"), output=h.astype(np.float32))


if __name__ == "__main__":
    main()

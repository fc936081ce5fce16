#!/usr/bin/python3
"""Golden data for `weft run --gradient` (tests/cli/test_cli_grad_check.cpp).

The program is tanh(nn.dense(x, w)) in float64; with the output seeded with
ones (as the reference's gradient pass seeds it), NumPy gives the gradients:
  out    = tanh(x @ w.T)
  grad_x = (1 - out**2) @ w
  grad_w = (1 - out**2).T @ x
Run once with /usr/bin/python3 (Debian's python3-numpy); the files are committed.
"""
import os

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(7)
x = rng.uniform(-1, 1, size=(2, 3))
w = rng.uniform(-1, 1, size=(4, 3))
out = np.tanh(x @ w.T)
d = 1 - out**2
np.savez(os.path.join(here, "gradient_inputs.npz"), x=x, w=w)
np.savez(os.path.join(here, "gradient_expected.npz"), output=out, grad_x=d @ w, grad_w=d.T @ x)

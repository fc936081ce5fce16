#!/usr/bin/python3
"""Golden parameters for create_workload, written by NumPy.

Reimplements tvm.relay.testing's init.py (v0.19) in NumPy: Initializer's
name-suffix dispatch, Xavier (plus MXNet's gaussian variant, normal(0, scale)),
Constant, and MXNet's Normal, Uniform, Zero and One for the weights; and
create_workload's order of work: np.random.seed(seed) once, then for each
parameter but "data", in order, np.zeros(shape).astype(dtype) filled in place
(draws are float64, rounded into the parameter's dtype on assignment).

Run once with Debian's python3-numpy: /usr/bin/python3 gen_workloads.py
Writes workloads.json next to this script.
"""
import json
import os
from functools import reduce

import numpy as np


class Initializer:
    def __call__(self, desc, arr):
        if desc.endswith("weight"):
            self._init_weight(desc, arr)
        elif desc.endswith("bias"):
            arr[:] = 0.0
        elif desc.endswith("gamma"):
            arr[:] = 1.0
        elif desc.endswith("beta"):
            arr[:] = 0.0
        elif desc.endswith("mean"):
            arr[:] = 0.0
        elif desc.endswith("var"):
            arr[:] = 1.0
        else:
            raise ValueError("Unknown initialization pattern for %s" % desc)


class Xavier(Initializer):
    def __init__(self, rnd_type="uniform", factor_type="avg", magnitude=3):
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        hw_scale = 1.0
        if len(shape) < 2:
            raise ValueError("Xavier initializer cannot be applied to vector %s" % name)
        if len(shape) > 2:
            hw_scale = np.prod(shape[2:])
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        else:
            factor = fan_out
        if "depthwise" in name:
            factor = hw_scale
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            arr[:] = np.random.uniform(-scale, scale, size=arr.shape)
        else:
            arr[:] = np.random.normal(0, scale, size=arr.shape)


class Constant(Initializer):
    def _init_weight(self, name, arr):
        arr[:] = 1.0 / reduce(lambda x, y: x * y, arr.shape)


class Normal(Initializer):
    def __init__(self, sigma=0.01):
        self.sigma = sigma

    def _init_weight(self, name, arr):
        arr[:] = np.random.normal(0, self.sigma, size=arr.shape)


class Uniform(Initializer):
    def __init__(self, scale=0.07):
        self.scale = scale

    def _init_weight(self, name, arr):
        arr[:] = np.random.uniform(-self.scale, self.scale, size=arr.shape)


class Fill(Initializer):
    def __init__(self, value):
        self.value = value

    def _init_weight(self, name, arr):
        arr[:] = self.value


# The parameters of the test program (tests/workload_program.h), in order:
# conv -> bias -> batch_norm -> relu -> depthwise conv -> pool -> dense -> bias.
PARAMS = [("data", (1, 3, 8, 8)), ("conv1_weight", (4, 3, 3, 3)), ("conv1_bias", (4,)),
          ("bn1_gamma", (4,)), ("bn1_beta", (4,)), ("bn1_moving_mean", (4,)), ("bn1_moving_var", (4,)),
          ("depthwise_conv_weight", (4, 1, 3, 3)), ("fc_weight", (10, 4)), ("fc_bias", (10,))]


def create_workload(initializer, seed, dtype):
    np.random.seed(seed)
    params = []
    for name, shape in PARAMS:
        if name == "data":
            continue
        arr = np.zeros(shape).astype(dtype)
        initializer(name, arr)
        bits = arr.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.itemsize]).reshape(-1)
        params.append({"name": name, "shape": list(shape), "dtype": dtype, "bits": [int(b) for b in bits]})
    return params


CASES = [
    # name, weft initializer, its params, python initializer, seed, dtype
    ("xavier_default", "xavier", {}, Xavier(), 0, "float32"),
    ("xavier_uniform_out", "xavier", {"factor_type": "out", "magnitude": 1.5},
     Xavier(factor_type="out", magnitude=1.5), 3, "float32"),
    ("xavier_gaussian_in", "xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2.0},
     Xavier(rnd_type="gaussian", factor_type="in", magnitude=2.0), 0, "float32"),
    ("xavier_gaussian_float64", "xavier", {"rnd_type": "gaussian"}, Xavier(rnd_type="gaussian"), 0, "float64"),
    ("xavier_uniform_float16", "xavier", {}, Xavier(), 11, "float16"),
    ("constant", "constant", {}, Constant(), 0, "float32"),
    ("normal", "normal", {"sigma": 0.2}, Normal(0.2), 2, "float32"),
    ("uniform", "uniform", {"scale": 0.5}, Uniform(0.5), 1, "float32"),
    ("zeros", "zeros", {}, Fill(0.0), 0, "float32"),
    ("ones", "ones", {}, Fill(1.0), 0, "float32"),
]

golden = [{"case": name, "initializer": init, "params": params, "seed": seed, "dtype": dtype,
           "expected": create_workload(python_init, seed, dtype)}
          for name, init, params, python_init, seed, dtype in CASES]

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "workloads.json"), "w") as f:
    json.dump(golden, f)

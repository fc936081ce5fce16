#!/usr/bin/python3
"""Writes numpy_random.json: sequences from NumPy's legacy RandomState, the
oracle for weft::sdk::NumpyRandomState. Run with Debian's /usr/bin/python3
(python3-numpy); the output is committed."""
import json
import numpy as np

cases = []
for seed in [0, 1, 42, 2**32 - 1]:
    np.random.seed(seed)
    # 700 doubles = 1400 words: crosses the 624-word regeneration twice.
    sample = np.random.random_sample(700).tolist()
    np.random.seed(seed)
    uniform = np.random.uniform(-0.25, 0.75, size=(5, 7)).ravel().tolist()
    np.random.seed(seed)
    normal = np.random.normal(0.5, 2.0, size=333).tolist()  # odd: leaves a cached value
    # Interleaving: the cached Gaussian survives uniform draws in between.
    np.random.seed(seed)
    mixed = [np.random.standard_normal(), np.random.uniform(0, 1),
             np.random.standard_normal(), np.random.standard_normal()]
    cases.append({"seed": seed, "random_sample": sample, "uniform_low": -0.25,
                  "uniform_high": 0.75, "uniform": uniform, "normal_loc": 0.5,
                  "normal_scale": 2.0, "normal": normal, "mixed": mixed})

with open("numpy_random.json", "w") as f:
    json.dump({"numpy_version": np.__version__, "cases": cases}, f)

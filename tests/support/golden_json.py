"""The JSON form of golden test data, shared by the gen_*.py generators.

A golden file is {"generator": <script name>, "cases": [case, ...]} with
    case = {"name", "op", "attrs", "inputs": [T, ...], "output": T}
(or "outputs": [T, ...] for ops that yield a tuple) and
    T = {"shape": [...], "dtype": "...", "data": [flat, C order]},
the form tests/support/op_test.h reads. A generator imports this module with
    sys.path.insert(0, <repo>/tests/support)
computed from its own location, so it runs from any working directory.
"""
import json

import numpy as np


def tensor(a):
    """T for an array: its own dtype, elements as Python numbers."""
    a = np.asarray(a)
    return {"shape": list(a.shape), "dtype": str(a.dtype), "data": a.reshape(-1).tolist()}


def float_tensor(a, dtype):
    """T for an array cast to the float `dtype`, elements as Python floats."""
    a = np.asarray(a, dtype=dtype)
    return {"shape": list(a.shape), "dtype": dtype, "data": [float(v) for v in a.ravel()]}


def case(name, op, attrs, inputs, output=None, outputs=None):
    """One case: `output` for an op with one result, `outputs` for a tuple."""
    c = {"name": name, "op": op, "attrs": attrs, "inputs": [tensor(i) for i in inputs]}
    if outputs is not None:
        c["outputs"] = [tensor(o) for o in outputs]
    else:
        c["output"] = tensor(output)
    return c


def write_cases(path, generator, cases, compact=False, newline=False):
    """Writes the golden file at `path`; `compact` drops the spaces after
    separators, `newline` ends the file with one."""
    with open(path, "w") as f:
        json.dump({"generator": generator, "cases": cases}, f, **({"separators": (",", ":")} if compact else {}))
        if newline:
            f.write("\n")
    print(f"wrote {len(cases)} cases to {path}")

#!/usr/bin/python3
"""Golden outputs for the Relay text programs in this folder, computed with NumPy.

Also writes metadata_constants.relay, whose `#[metadata]` section holds its
constants the way TVM's SaveJSON writes them (dmlc JSON layout, NDArray bytes
in base64). Run once: /usr/bin/python3 generate.py
"""
import base64
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.RandomState(5)


def tensor(a):
    a = np.asarray(a)
    data = a.astype(np.float64).ravel().tolist() if a.dtype != np.bool_ else a.ravel().tolist()
    return {"shape": list(a.shape), "dtype": "bool" if a.dtype == np.bool_ else str(a.dtype), "data": data}


def conv2d_nchw(x, w, pad):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, o, h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1), dtype=np.float64)
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            patch = xp[:, :, i:i + kh, j:j + kw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return out


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def conv_net_case():
    f = np.float32
    data = rng.uniform(-1, 1, (1, 3, 8, 8)).astype(f)
    w = rng.uniform(-0.5, 0.5, (4, 3, 3, 3)).astype(f)
    b = rng.uniform(-0.1, 0.1, 4).astype(f)
    gamma = rng.uniform(0.5, 1.5, 4).astype(f)
    beta = rng.uniform(-0.2, 0.2, 4).astype(f)
    mean = rng.uniform(-0.1, 0.1, 4).astype(f)
    var = rng.uniform(0.5, 1.5, 4).astype(f)
    dw = rng.uniform(-0.3, 0.3, (10, 64)).astype(f)
    db = rng.uniform(-0.1, 0.1, 10).astype(f)
    x = conv2d_nchw(data.astype(np.float64), w.astype(np.float64), 1) + b.reshape(1, 4, 1, 1)
    x = (x - mean.reshape(1, 4, 1, 1)) / np.sqrt(var.reshape(1, 4, 1, 1) + 2e-05) * gamma.reshape(1, 4, 1, 1) \
        + beta.reshape(1, 4, 1, 1)
    x = np.maximum(x, 0)
    x = x.reshape(1, 4, 4, 2, 4, 2).max(axis=(3, 5))
    x = x.reshape(1, 64) @ dw.T.astype(np.float64) + db
    out = softmax(x).astype(f)
    return {"program": "conv_net.relay", "name": "conv_net",
            "inputs": [tensor(a) for a in (data, w, b, gamma, beta, mean, var, dw, db)],
            "outputs": [tensor(out)]}


def control_flow_cases():
    x = np.array([1.5, -2.0, 0.25, -0.5], dtype=np.float32)
    cases = []
    for flag in (True, False):
        z = np.maximum(x * 2, 0) if flag else -x
        cases.append({"program": "control_flow.relay", "name": "control_flow_" + str(flag).lower(),
                      "inputs": [tensor(x), tensor(np.array(flag))],
                      "outputs": [tensor(z.astype(np.float32)), tensor((x * np.float32(-0.5)).astype(np.float32))]})
    return cases


def gradient_case():
    x = rng.uniform(-2, 2, 3).astype(np.float32)
    y = rng.uniform(-2, 2, 3).astype(np.float32)
    return {"program": "first_order_gradient.relay", "name": "first_order_gradient",
            "inputs": [tensor(x), tensor(y)],
            "outputs": [tensor(x * y + x), tensor(y + np.float32(1)), tensor(x)]}


# ---- a program with metadata constants ---------------------------------------

NDARRAY_MAGIC = 0xDD5E40F096B4A13F
DTYPE_CODES = {"int": 0, "uint": 1, "float": 2}


def ndarray_b64(a):
    a = np.ascontiguousarray(a)
    kind = {"i": "int", "u": "uint", "f": "float"}[a.dtype.kind]
    head = struct.pack("<QQiii", NDARRAY_MAGIC, 0, 1, 0, a.ndim)
    head += struct.pack("<BBH", DTYPE_CODES[kind], a.dtype.itemsize * 8, 1)
    head += struct.pack("<%dq" % a.ndim, *a.shape) + struct.pack("<q", a.nbytes)
    return base64.b64encode(head + a.astype(a.dtype.newbyteorder("<")).tobytes()).decode()


def dmlc_json(value, indent=0):
    """JSON laid out as TVM's dmlc::JSONWriter writes it (", " then newline)."""
    pad = "  " * (indent + 1)
    if isinstance(value, dict):
        items = [pad + json.dumps(k) + ": " + dmlc_json(v, indent + 1) for k, v in value.items()]
        return "{\n" + ", \n".join(items) + "\n" + "  " * indent + "}"
    if isinstance(value, list) and value and isinstance(value[0], (dict, str)):
        return "[\n" + ", \n".join(pad + dmlc_json(v, indent + 1) for v in value) + "\n" + "  " * indent + "]"
    return json.dumps(value)


def metadata_section(arrays):
    # Node 0 is null; TVM also serializes each constant's span and virtual
    # device, which a reader must skip over.
    nodes = [{"type_key": ""},
             {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
             {"type_key": "Array", "data": [3 + i for i in range(len(arrays))]}]
    for i in range(len(arrays)):
        nodes.append({"type_key": "relay.Constant",
                      "attrs": {"_checked_type_": "0", "data": str(i), "span": "0",
                                "virtual_device_": str(3 + len(arrays))}})
    nodes.append({"type_key": "VirtualDevice",
                  "attrs": {"device_type_int": "-1", "memory_scope": str(4 + len(arrays)), "target": "0",
                            "virtual_device_id": "-1"}})
    nodes.append({"type_key": "runtime.String"})
    doc = {"root": 1, "nodes": nodes, "b64ndarrays": [ndarray_b64(a) for a in arrays],
           "attrs": {"tvm_version": "0.19.0"}}
    return dmlc_json(doc)


METADATA_PROGRAM = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) -> Tensor[(2, 2), float32] {
  %0 = multiply(%x, 2f /* ty=float32 */) /* ty=Tensor[(2, 3), float32] */;
  %1 = add(%0, meta[relay.Constant][0] /* ty=Tensor[(3), float32] */) /* ty=Tensor[(2, 3), float32] */;
  %2 = nn.dense(%1, meta[relay.Constant][1] /* ty=Tensor[(2, 3), float32] */, units=2) /* ty=Tensor[(2, 2), float32] */;
  %3 = clip(%2, a_min=-1f, a_max=1.5f) /* ty=Tensor[(2, 2), float32] */;
  %4 = cast(meta[relay.Constant][2] /* ty=Tensor[(2), int32] */, dtype="float32") /* ty=Tensor[(2), float32] */;
  subtract(%3, %4) /* ty=Tensor[(2, 2), float32] */
}

"""


def metadata_case():
    bias = np.array([0.5, -1.0, 0.25], dtype=np.float32)
    weight = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    offsets = np.array([3, -2], dtype=np.int32)
    with open(os.path.join(HERE, "metadata_constants.relay"), "w") as f:
        f.write(METADATA_PROGRAM + "#[metadata]\n" + metadata_section([bias, weight, offsets]) + "\n")
    x = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    y = np.clip((x * 2 + bias) @ weight.T, -1, 1.5) - offsets.astype(np.float32)
    return {"program": "metadata_constants.relay", "name": "metadata_constants",
            "inputs": [tensor(x)], "outputs": [tensor(y.astype(np.float32))]}


def main():
    cases = [conv_net_case()] + control_flow_cases() + [gradient_case(), metadata_case()]
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump({"generator": "tests/golden/text/generate.py", "cases": cases}, f)


if __name__ == "__main__":
    main()

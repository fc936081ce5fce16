#!/usr/bin/python3
"""Golden cases for nn.bitpack, nn.bitserial_dense and nn.bitserial_conv2d,
following TOPI's definitions literally in NumPy: bit planes packed into words
with np.packbits (first element in the most significant bit, as
topi/nn/bitserial_util.py shifts them in), then sums of
popcount(x & w) << (b1 + b2) over words and planes, minus popcount(x & ~w)
when unipolar (topi/nn/bitserial_dense.py, bitserial_conv2d.py). The dense
cases and the NCHW conv cases also come with the weight pre-packed by the
same bitpack, as TOPI accepts it.

Run once with Debian's python3 (python3-numpy):
    /usr/bin/python3 gen_bitserial.py   # writes bitserial.json beside it
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import tensor, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(31)
HERE = os.path.dirname(os.path.abspath(__file__))
WIDTH = {"uint8": 8, "uint16": 16, "uint32": 32}


def bitpack(a, bits, pack_axis, bit_axis, pack_type):
    width = WIDTH[pack_type]
    planes = []
    for b in range(bits):
        plane = ((a.astype(np.int64) >> b) & 1).astype(np.uint8)
        packed = np.packbits(plane, axis=pack_axis)  # bytes, big-endian bit order
        shape = list(packed.shape)
        shape[pack_axis:pack_axis + 1] = [shape[pack_axis] // (width // 8), width // 8]
        by = packed.reshape(shape).astype(np.uint64)
        weights = np.array([1 << (8 * (width // 8 - 1 - i)) for i in range(width // 8)], dtype=np.uint64)
        word = np.tensordot(np.moveaxis(by, pack_axis + 1, -1), weights, axes=([-1], [0]))
        planes.append(word)
    return np.stack(planes, axis=bit_axis).astype(pack_type)


def popcount(v):
    v = v.astype(np.uint64)
    return sum(((v >> np.uint64(i)) & np.uint64(1)).astype(np.int64) for i in range(64))


def not_word(v, pack_type):
    return np.invert(v.astype(pack_type))


def bitserial_dense(x, w, data_bits, weight_bits, pack_type, unipolar):
    xq = bitpack(x, data_bits, 1, 1, pack_type)  # (Y, DB, K)
    wq = bitpack(w, weight_bits, 1, 1, pack_type)  # (X, WB, K)
    out = np.zeros((x.shape[0], w.shape[0]), dtype=np.int64)
    for db in range(data_bits):
        for wb in range(weight_bits):
            a, b = xq[:, db, None, :], wq[None, :, wb, :]
            terms = popcount(a & b)
            if unipolar:
                terms = terms - popcount(a & not_word(b, pack_type))
            out += terms.sum(axis=-1) << (db + wb)
    return out


def bitserial_conv2d(x, w, layout, strides, padding, abits, wbits, pack_type, unipolar):
    """padding (top, left, bottom, right); NCHW/OIHW or NHWC/HWIO."""
    if layout == "NCHW":
        xq = bitpack(x, abits, 1, 2, pack_type)  # (N, Cq, AB, H, W)
        wq = bitpack(w, wbits, 1, 4, pack_type)  # (F, Cq, KH, KW, WB)
        xq = np.pad(xq, ((0, 0), (0, 0), (0, 0), (padding[0], padding[2]), (padding[1], padding[3])))
        xq = xq.transpose(0, 3, 4, 1, 2)  # (N, H, W, Cq, AB)
        wq = wq.transpose(2, 3, 1, 0, 4)  # (KH, KW, Cq, F, WB)
    else:
        xq = bitpack(x, abits, 3, 4, pack_type)  # (N, H, W, Cq, AB)
        wq = bitpack(w, wbits, 2, 4, pack_type)  # (KH, KW, Cq, F, WB)
        xq = np.pad(xq, ((0, 0), (padding[0], padding[2]), (padding[1], padding[3]), (0, 0), (0, 0)))
    n, hp, wp = xq.shape[:3]
    kh, kw, _, f, _ = wq.shape
    oh, ow = (hp - kh) // strides[0] + 1, (wp - kw) // strides[1] + 1
    out = np.zeros((n, oh, ow, f), dtype=np.int64)
    for y in range(oh):
        for xx in range(ow):
            patch = xq[:, y * strides[0]:y * strides[0] + kh, xx * strides[1]:xx * strides[1] + kw]
            for b1 in range(abits):
                for b2 in range(wbits):
                    a = patch[:, :, :, :, None, b1]  # (N, KH, KW, Cq, 1)
                    b = wq[None, :, :, :, :, b2]  # (1, KH, KW, Cq, F)
                    terms = popcount(a & b)
                    if unipolar:
                        terms = terms - popcount(a & not_word(b, pack_type))
                    out[:, y, xx, :] += terms.sum(axis=(1, 2, 3)) << (b1 + b2)
    return out if layout == "NHWC" else out.transpose(0, 3, 1, 2)


def ints(shape, bits, dt):
    if dt.startswith("int"):
        return rng.integers(-(1 << (bits - 1)), 1 << (bits - 1), size=shape).astype(dt)
    return rng.integers(0, 1 << bits, size=shape).astype(dt)


cases = []
for name, shape, dt, bits, pack_axis, bit_axis, pack_type in [
    ("uint8_2bits_uint8_words", (2, 16, 3), "uint8", 2, 1, 2, "uint8"),
    ("uint8_1bit_uint16_bit_axis_last", (1, 32), "uint8", 1, 1, 2, "uint16"),
    ("int8_negative_3bits_uint32_axis0", (32, 2), "int8", 3, 0, 0, "uint32"),
    ("int32_8bits_uint8_bit_axis_before_pack", (2, 3, 8), "int32", 8, 2, 1, "uint8"),
]:
    x = ints(shape, 8 if bits == 8 else bits + 1, dt)
    cases.append({"name": name, "op": "nn.bitpack",
                  "attrs": {"bits": bits, "pack_axis": pack_axis, "bit_axis": bit_axis, "pack_type": pack_type},
                  "inputs": [tensor(x)], "output": tensor(bitpack(x, bits, pack_axis, bit_axis, pack_type))})

for name, (m, k, n), dt, dbits, wbits, pack_type, unipolar, out_dtype in [
    ("uint8_1x1_unipolar", (3, 16, 4), "uint8", 1, 1, "uint8", True, "int16"),
    ("uint8_2x1_bipolar_false", (2, 16, 5), "uint8", 2, 1, "uint16", False, "int16"),
    ("uint8_2x2_unipolar_int32", (3, 32, 3), "uint8", 2, 2, "uint32", True, "int32"),
    ("int8_negative_3x2_unipolar", (2, 8, 4), "int8", 3, 2, "uint8", True, "int32"),
]:
    x, w = ints((m, k), dbits, dt), ints((n, k), wbits, dt)
    y = bitserial_dense(x, w, dbits, wbits, pack_type, unipolar).astype(out_dtype)
    attrs = {"units": n, "data_bits": dbits, "weight_bits": wbits, "pack_dtype": pack_type, "out_dtype": out_dtype,
             "unipolar": unipolar}
    cases.append({"name": name, "op": "nn.bitserial_dense", "attrs": attrs, "inputs": [tensor(x), tensor(w)],
                  "output": tensor(y)})
    cases.append({"name": name + "_prepacked", "op": "nn.bitserial_dense", "attrs": attrs,
                  "inputs": [tensor(x), tensor(bitpack(w, wbits, 1, 1, pack_type))], "output": tensor(y)})

for name, layout, (n, c, h, wd, f, kh, kw), strides, padding, abits, wbits, pack_type, unipolar, out_dtype in [
    ("nchw_3x3_pad1_unipolar", "NCHW", (1, 8, 5, 5, 4, 3, 3), 1, [1, 1, 1, 1], 2, 1, "uint8", True, "int16"),
    ("nchw_stride2_bipolar_false", "NCHW", (2, 16, 6, 5, 3, 3, 3), 2, [1, 1, 1, 1], 1, 2, "uint16", False,
     "int32"),
    ("nhwc_3x3_asym_pad_unipolar", "NHWC", (1, 8, 5, 4, 3, 3, 3), 1, [1, 0, 0, 1], 2, 2, "uint8", True, "int16"),
    ("nhwc_2x2_stride2_bipolar_false", "NHWC", (1, 32, 4, 4, 2, 2, 2), 2, [0, 0, 0, 0], 3, 1, "uint32", False,
     "int32"),
]:
    if layout == "NCHW":
        x, w = ints((n, c, h, wd), abits, "uint8"), ints((f, c, kh, kw), wbits, "uint8")
    else:
        x, w = ints((n, h, wd, c), abits, "uint8"), ints((kh, kw, c, f), wbits, "uint8")
    y = bitserial_conv2d(x, w, layout, [strides] * 2, padding, abits, wbits, pack_type, unipolar).astype(out_dtype)
    attrs = {"strides": strides, "padding": padding, "channels": f, "kernel_size": [kh, kw],
             "activation_bits": abits, "weight_bits": wbits, "data_layout": layout,
             "kernel_layout": "OIHW" if layout == "NCHW" else "HWIO", "pack_dtype": pack_type,
             "out_dtype": out_dtype, "unipolar": unipolar}
    cases.append({"name": name, "op": "nn.bitserial_conv2d", "attrs": attrs, "inputs": [tensor(x), tensor(w)],
                  "output": tensor(y)})
    if layout == "NCHW":  # TOPI takes an OIHW weight pre-packed as bitpack(w, pack_axis=1, bit_axis=4)
        cases.append({"name": name + "_prepacked", "op": "nn.bitserial_conv2d", "attrs": attrs,
                      "inputs": [tensor(x), tensor(bitpack(w, wbits, 1, 4, pack_type))], "output": tensor(y)})

write_cases(os.path.join(HERE, "bitserial.json"), "gen_bitserial.py", cases)

#!/usr/bin/python3
"""Writes the tensor-file golden data for tests/core/test_tensor_io*.cpp.

Run once with /usr/bin/python3 (Debian's python3-numpy); the outputs are
committed. The .npy/.npz files are NumPy's own (np.save, np.savez,
np.savez_compressed, np.lib.format.write_array for the 2.0/3.0 headers);
the tests compute the expected values from the formulas below. NumPy has no
safetensors writer and the `safetensors` package is not installed, so
golden.safetensors is laid out by hand from the format's specification
(8-byte little-endian header length, JSON header, packed data).
"""
import io
import json
import os
import struct
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "..", "..", "fuzz", "corpus", "npy")
SAFETENSORS_SEEDS = os.path.join(HERE, "..", "..", "fuzz", "corpus", "safetensors")


def arange(shape, dtype, scale=1, offset=0):
    n = int(np.prod(shape)) if shape else 1
    return (np.arange(n, dtype=np.float64) * scale + offset).astype(dtype).reshape(shape)


def save(name, array):
    np.save(os.path.join(HERE, name), array)


def main():
    # C order, little-endian: the tests also compare weft's bytes with these.
    save("f32_2x3.npy", arange((2, 3), np.float32, 0.5, -1))
    save("f64_scalar.npy", np.float64(-2.75))
    save("f16_5.npy", np.array([0.0, -1.5, 65504.0, 6e-08, np.inf], dtype=np.float16))
    save("i8_4.npy", np.array([-128, -1, 0, 127], dtype=np.int8))
    save("i16_3.npy", np.array([-32768, 7, 32767], dtype=np.int16))
    save("i32_2x2.npy", arange((2, 2), np.int32, 1000, -1500))
    save("i64_3.npy", np.array([-(2 ** 63), 1, 2 ** 62 + 3], dtype=np.int64))
    save("u8_2x3x1.npy", arange((2, 3, 1), np.uint8, 50))
    save("u16_2.npy", np.array([0, 65535], dtype=np.uint16))
    save("u32_2.npy", np.array([1, 4294967295], dtype=np.uint32))
    save("u64_2.npy", np.array([2, 18446744073709551615], dtype=np.uint64))
    save("bool_5.npy", np.array([True, False, True, True, False]))
    save("f32_empty_0x3.npy", np.zeros((0, 3), dtype=np.float32))
    # A five-digit first axis (less growth padding) and many dims, still no data.
    save("f32_12345x0x1x1x1x1x1x1.npy", np.zeros((12345, 0, 1, 1, 1, 1, 1, 1), dtype=np.float32))

    # Read-only cases: byte orders, Fortran order, header versions.
    save("f32_be_2x3.npy", arange((2, 3), ">f4", 0.5, -1))
    save("i64_be_3.npy", np.array([-(2 ** 63), 1, 2 ** 62 + 3], dtype=">i8"))
    save("i32_fortran_2x3x4.npy", np.asfortranarray(arange((2, 3, 4), np.int32)))
    for major in (2, 3):
        with open(os.path.join(HERE, "f32_v%d_2x3.npy" % major), "wb") as f:
            np.lib.format.write_array(f, arange((2, 3), np.float32, 0.5, -1), version=(major, 0))

    arrays = {
        "weight": arange((2, 3), np.float32, 0.5, -1),
        "ids": np.array([-(2 ** 63), 1, 2 ** 62 + 3], dtype=np.int64),
        "mask": np.array([True, False, True, True, False]),
    }
    np.savez(os.path.join(HERE, "stored.npz"), **arrays)
    np.savez_compressed(os.path.join(HERE, "deflated.npz"), **arrays)
    np.savez(os.path.join(HERE, "positional.npz"), arange((2,), np.float64, 1), arange((3,), np.int8, 1))
    np.savez(os.path.join(HERE, "empty.npz"))
    # Malformed archives (zip-level layout by Python's zipfile).
    with zipfile.ZipFile(os.path.join(HERE, "bad_not_npy_member.npz"), "w") as z:
        z.writestr("notes.txt", "not an array")
    with zipfile.ZipFile(os.path.join(HERE, "bad_truncated_member.npz"), "w") as z:
        z.writestr("x.npy", open(os.path.join(HERE, "f32_2x3.npy"), "rb").read()[:-3])
    # A zip bomb: a (2, 3) float32 header followed by 64 MiB of zeros, deflated
    # to ~64 KB. Readers must refuse it from the sizes, before inflating.
    with zipfile.ZipFile(os.path.join(HERE, "bad_inflates_past_header.npz"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("x.npy", open(os.path.join(HERE, "f32_2x3.npy"), "rb").read() + bytes(64 << 20))

    write_safetensors()
    write_hostile()

    os.makedirs(SEEDS, exist_ok=True)
    for name in ("f32_2x3.npy", "f32_be_2x3.npy", "i32_fortran_2x3x4.npy", "f32_v3_2x3.npy", "bool_5.npy",
                 "stored.npz", "deflated.npz", "golden.safetensors"):
        with open(os.path.join(HERE, name), "rb") as src, open(os.path.join(SEEDS, name), "wb") as dst:
            dst.write(src.read())


def write_safetensors():
    # Data order differs from header order on purpose: readers must follow the offsets.
    weight = arange((2, 2), np.float32, 0.25, -0.5)
    bias = np.array([1.5, -2.0], dtype=np.float16)
    ids = np.array([-3, 0, 2 ** 40], dtype=np.int64)
    mask = np.array([True, False])
    # bfloat16 = the upper half of float32 (these values are exact in bfloat16).
    bf16 = (np.array([1.0, -0.375], dtype=np.float32).view(np.uint32) >> 16).astype("<u2")
    blobs = [("ids", "I64", ids), ("weight", "F32", weight), ("bias", "F16", bias), ("bf", "BF16", bf16),
             ("mask", "BOOL", mask), ("nothing", "F32", np.zeros((0, 2), dtype=np.float32))]
    header, data, offset = {"__metadata__": {"format": "pt", "origin": "gen_tensor_io.py"}}, b"", 0
    for name, dtype, array in blobs:
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    order = ["__metadata__", "weight", "bias", "mask", "ids", "bf", "nothing"]
    text = json.dumps({k: header[k] for k in order}, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(HERE, "golden.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def npy_header(descr, shape):
    """A version 1.0 .npy header (magic to newline, 64-byte aligned) declaring `shape`, with no data."""
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    text += " " * ((64 - (10 + len(text) + 1) % 64) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode()


def write_hostile():
    """Files whose headers declare far more than they hold; readers must refuse each before allocating.

    Each is also a fuzz seed (tests/fuzz/corpus/npy and safetensors), so the fuzzers start from them."""
    hostile_npy = {
        # 2^40 x 2^40 float32: the byte count passes int64.
        "bad_huge_shape.npy": npy_header("<f4", (2 ** 40, 2 ** 40)),
        # 2^32 float32 (16 GiB, at the default limit) declared, none present.
        "bad_declares_16gib.npy": npy_header("<f4", (2 ** 32,)),
    }
    # A zip bomb that lies: its .npy header and recorded size both say 2 GiB
    # (under the size limit), but its 1 MiB of zeros deflate to ~1 KB, which
    # no deflate stream can inflate to 2 GiB (at most 1032 times its size).
    header = npy_header("<f4", (2 ** 29,))
    info = zipfile.ZipInfo("x.npy", date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(info, header + bytes(1 << 20))
    archive = bytearray(buffer.getvalue())
    real_size = struct.pack("<I", len(header) + (1 << 20))
    lie = struct.pack("<I", len(header) + 4 * 2 ** 29)
    # The uncompressed size sits at offset 22 of the local header and 24 of the central directory entry.
    local, central = archive.find(b"PK\x03\x04"), archive.find(b"PK\x01\x02")
    assert archive[local + 22:local + 26] == real_size and archive[central + 24:central + 28] == real_size
    archive[local + 22:local + 26] = lie
    archive[central + 24:central + 28] = lie
    hostile_npy["bad_lies_about_size.npz"] = bytes(archive)

    def safetensors(header):
        text = json.dumps(header, separators=(",", ":")).encode()
        return struct.pack("<Q", len(text)) + text + bytes(16)

    hostile_safetensors = {
        # 16 bytes of data behind a (2^40, 2^40) float32 entry.
        "bad_huge_shape.safetensors": safetensors(
            {"x": {"dtype": "F32", "shape": [2 ** 40, 2 ** 40], "data_offsets": [0, 16]}}),
        # An entry whose span (2^40 bytes) runs far past the data.
        "bad_span_past_data.safetensors": safetensors(
            {"x": {"dtype": "U8", "shape": [2 ** 40], "data_offsets": [0, 2 ** 40]}}),
    }
    for seeds, files in ((SEEDS, hostile_npy), (SAFETENSORS_SEEDS, hostile_safetensors)):
        os.makedirs(seeds, exist_ok=True)
        for name, content in files.items():
            for folder in (HERE, seeds):
                with open(os.path.join(folder, name), "wb") as f:
                    f.write(content)


if __name__ == "__main__":
    main()

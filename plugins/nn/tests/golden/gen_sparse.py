#!/usr/bin/python3
"""Golden cases for nn.sparse_dense, nn.sparse_transpose, nn.sparse_add and
nn.sparse_conv2d. SciPy is not installed, so the sparse matrices are built in
NumPy: a random dense matrix with blocks zeroed is encoded as CSR/BSR here,
and every oracle computes on the dense matrix (matrix products, transposes,
sums, and a PyTorch conv2d for the 3x3 sparse convolutions).

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_sparse.py   # writes sparse.json beside it
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(23)
HERE = os.path.dirname(os.path.abspath(__file__))


def sparse_dense_matrix(rows, cols, bs_r, bs_c, density, dt):
    """A dense (rows, cols) matrix whose (bs_r, bs_c) blocks are each kept with probability `density`."""
    keep = rng.random((rows // bs_r, cols // bs_c)) < density
    keep[0, 0] = True  # never empty
    mask = np.kron(keep, np.ones((bs_r, bs_c)))
    return (rng.standard_normal((rows, cols)) * mask).astype(dt), keep


def to_bsr(m, keep, bs_r, bs_c, index_dtype="int32"):
    """BSR (data, indices, indptr) of the kept blocks, block rows in order, block columns ascending."""
    data, indices, indptr = [], [], [0]
    for br in range(keep.shape[0]):
        for bc in range(keep.shape[1]):
            if keep[br, bc]:
                data.append(m[br * bs_r:(br + 1) * bs_r, bc * bs_c:(bc + 1) * bs_c])
                indices.append(bc)
        indptr.append(len(indices))
    return (np.array(data, dtype=m.dtype).reshape(-1, bs_r, bs_c), np.array(indices, dtype=index_dtype),
            np.array(indptr, dtype=index_dtype))


def to_csr(m, index_dtype="int32"):
    keep = m != 0
    data, indices, indptr = to_bsr(m, keep, 1, 1, index_dtype)
    return data.reshape(-1), indices, indptr


cases = []

# sparse_dense: D S^T (sparse_lhs false) and S D^T (sparse_lhs true), CSR and BSR.
for dt in ("float32", "float64"):
    for lhs in (False, True):
        d = rng.standard_normal((3, 8)).astype(dt)
        s, _ = sparse_dense_matrix(6, 8, 1, 1, 0.4, dt)
        data, ind, ptr = to_csr(s)
        out = s @ d.T if lhs else d @ s.T
        cases.append(case(f"csr_{dt}_lhs{int(lhs)}", "nn.sparse_dense", {"sparse_lhs": lhs}, [d, data, ind, ptr],
                          out.astype(dt)))
        s, keep = sparse_dense_matrix(6, 8, 2, 4, 0.5, dt)
        data, ind, ptr = to_bsr(s, keep, 2, 4, "int64")
        out = s @ d.T if lhs else d @ s.T
        cases.append(case(f"bsr_2x4_{dt}_lhs{int(lhs)}", "nn.sparse_dense", {"sparse_lhs": lhs}, [d, data, ind, ptr],
                          out.astype(dt)))

# sparse_transpose: square CSR, including an empty row.
for dt in ("float32", "float64"):
    s, _ = sparse_dense_matrix(5, 5, 1, 1, 0.4, dt)
    s[3, :] = 0
    data, ind, ptr = to_csr(s)
    t_data, t_ind, t_ptr = to_csr(np.ascontiguousarray(s.T))
    cases.append(case(f"csr_{dt}", "nn.sparse_transpose", {}, [data, ind, ptr], outputs=[t_data, t_ind, t_ptr]))

# sparse_add: dense + CSR.
for dt in ("float32", "float64"):
    d = rng.standard_normal((4, 6)).astype(dt)
    s, _ = sparse_dense_matrix(4, 6, 1, 1, 0.3, dt)
    data, ind, ptr = to_csr(s)
    cases.append(case(f"csr_{dt}", "nn.sparse_add", {}, [d, data, ind, ptr], (d + s).astype(dt)))


def conv_oracle_nchw(x, w_oihw, padding):
    return F.conv2d(torch.from_numpy(x.astype(np.float64)), torch.from_numpy(w_oihw.astype(np.float64)),
                    padding=padding).numpy()


# sparse_conv2d 1x1: weight (CO, C) as BSR with 3-D blocks, or 2-D blocks (bs_c = 1).
for dt in ("float32", "float64"):
    for layout in ("NHWC", "NCHW"):
        for bs_r, bs_c, two_d in ((2, 2, False), (2, 1, True)):
            x_nchw = rng.standard_normal((2, 4, 3, 3)).astype(dt)
            w, keep = sparse_dense_matrix(6, 4, bs_r, bs_c, 0.5, dt)
            data, ind, ptr = to_bsr(w, keep, bs_r, bs_c)
            if two_d:
                data = data.reshape(data.shape[0], bs_r)
            y = conv_oracle_nchw(x_nchw, w.reshape(6, 4, 1, 1), 0).astype(dt)
            x = x_nchw.transpose(0, 2, 3, 1) if layout == "NHWC" else x_nchw
            y = y.transpose(0, 2, 3, 1) if layout == "NHWC" else y
            cases.append(case(f"1x1_{layout}_{dt}_bs{bs_r}x{bs_c}{'_2d' if two_d else ''}", "nn.sparse_conv2d",
                              {"layout": layout, "kernel_size": 1}, [x, data, ind, ptr], y))

# sparse_conv2d 3x3 (padding 1): weight rows are output channels; columns
# (kh * 3 + kw) * C + c for NHWC, c * 9 + kh * 3 + kw for NCHW (blocks 1 wide).
for dt in ("float32", "float64"):
    c_in, c_out = 2, 4
    x_nchw = rng.standard_normal((1, c_in, 4, 5)).astype(dt)
    w_oihw = rng.standard_normal((c_out, c_in, 3, 3)).astype(dt)
    w_oihw[:, :, 0, 2] = 0
    w_oihw[1:3] = 0
    y = conv_oracle_nchw(x_nchw, w_oihw, 1).astype(dt)
    w_nhwc = np.ascontiguousarray(w_oihw.transpose(0, 2, 3, 1)).reshape(c_out, 9 * c_in)
    keep = (w_nhwc.reshape(c_out // 2, 2, 9, 2) != 0).any(axis=(1, 3))
    data, ind, ptr = to_bsr(w_nhwc, keep, 2, 2)
    cases.append(case(f"3x3_NHWC_{dt}", "nn.sparse_conv2d", {"layout": "NHWC", "kernel_size": [3, 3]},
                      [x_nchw.transpose(0, 2, 3, 1), data, ind, ptr], y.transpose(0, 2, 3, 1)))
    w_nchw = w_oihw.reshape(c_out, c_in * 9)
    keep = (w_nchw.reshape(c_out // 2, 2, 9 * c_in, 1) != 0).any(axis=(1, 3))
    data, ind, ptr = to_bsr(w_nchw, keep, 2, 1)
    cases.append(case(f"3x3_NCHW_{dt}", "nn.sparse_conv2d", {"layout": "NCHW", "kernel_size": 3},
                      [x_nchw, data, ind, ptr], y))

write_cases(os.path.join(HERE, "sparse.json"), "gen_sparse.py", cases)

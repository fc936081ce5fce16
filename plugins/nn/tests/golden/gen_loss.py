#!/usr/bin/python3
"""Golden cases for nn.cross_entropy, nn.cross_entropy_with_logits and
nn.nll_loss, computed with PyTorch and NumPy.

Run once with Debian's python3 (python3-numpy, python3-torch):
    /usr/bin/python3 gen_loss.py   # writes loss.json beside it
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "support"))
from golden_json import case, write_cases  # noqa: E402 (found through the path above)

rng = np.random.default_rng(444)
DTYPES = ["float32", "float64"]


cases = []
for dt in DTYPES:
    logits = torch.from_numpy(rng.standard_normal((3, 4)).astype(dt))
    probs = torch.softmax(logits, 1)
    targets = torch.softmax(torch.from_numpy(rng.standard_normal((3, 4)).astype(dt)), 1)
    # cross_entropy(x = softmax(logits), y) == torch's soft-label cross entropy of the logits.
    ce = F.cross_entropy(logits, targets, reduction="sum") / 3
    cases.append(case(f"cross_entropy_{dt}", "nn.cross_entropy", {}, [probs.numpy(), targets.numpy()], ce.numpy()))
    logp = torch.log_softmax(logits, 1)
    cases.append(case(f"cross_entropy_with_logits_{dt}", "nn.cross_entropy_with_logits", {},
                      [logp.numpy(), targets.numpy()], (-(logp * targets).sum() / 3).numpy()))

    pred = torch.log_softmax(torch.from_numpy(rng.standard_normal((5, 4)).astype(dt)), 1)
    weights = torch.from_numpy(rng.uniform(0.5, 2.0, 4).astype(dt))
    tgt = torch.tensor([0, 3, -100, 1, 3])
    for reduction in ("mean", "sum", "none"):
        out = F.nll_loss(pred, tgt, weight=weights, reduction=reduction)
        attrs = {} if reduction == "mean" else {"reduction": reduction}
        cases.append(case(f"nll_loss_{reduction}_{dt}", "nn.nll_loss", attrs,
                          [pred.numpy(), tgt.numpy(), weights.numpy()], out.numpy()))
    tgt2 = torch.tensor([2, 2, 0, 1, 3])
    out = F.nll_loss(pred, tgt2, weight=weights, ignore_index=2)
    cases.append(case(f"nll_loss_ignore_index_2_{dt}", "nn.nll_loss", {"ignore_index": 2},
                      [pred.numpy(), tgt2.numpy().astype(np.int32), weights.numpy()], out.numpy()))

    # Spatial: predictions (N, C, d1, d2), targets (N, d1, d2).
    pred4 = torch.log_softmax(torch.from_numpy(rng.standard_normal((2, 3, 2, 2)).astype(dt)), 1)
    w3 = torch.from_numpy(rng.uniform(0.5, 2.0, 3).astype(dt))
    tgt4 = torch.from_numpy(rng.integers(0, 3, (2, 2, 2)))
    for reduction in ("mean", "none"):
        out = F.nll_loss(pred4, tgt4, weight=w3, reduction=reduction)
        attrs = {} if reduction == "mean" else {"reduction": reduction}
        cases.append(case(f"nll_loss_spatial_{reduction}_{dt}", "nn.nll_loss", attrs,
                          [pred4.numpy(), tgt4.numpy(), w3.numpy()], out.numpy()))

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "loss.json")
write_cases(path, "gen_loss.py", cases)

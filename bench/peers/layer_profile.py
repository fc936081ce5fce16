#!/usr/bin/python3
"""Where a model's time goes, layer by layer, against this machine's FLOP rate.

For each model, `weft bench MODEL --config C --profile --json` times every
fused group; a group with convolutions or matrix products gets its GFLOP/s
(two per multiply-accumulate) and that rate as a share of the ceiling: the
GFLOP/s the same config reaches on one large matrix product (a 512x1024 by
1024x1024 nn.dense), measured in the same run. Groups without MACs (pooling,
elementwise, concatenation) are summed apart: their time is what fusion and
layouts can still remove. Writes layers.json and layers.md into --out.
"""

import argparse
import json
import os
import sys
import tempfile

from weft_vs_pytorch import REPO, Weft, cpu_model

CEILING_PROGRAM = """def @main(%x: Tensor[(512, 1024), float32], %w: Tensor[(1024, 1024), float32]) {
  nn.dense(%x, %w, units=1024)
}
"""


def gflops(macs, ms):
    return 2.0 * macs / (ms * 1e6) if ms > 0 else 0.0


def summarize(profile, ceiling_gflops, top):
    """The model's figures from its `profile` list: time in groups with MACs
    and without, their overall rate, and the `top` slowest groups."""
    with_macs = [g for g in profile if g.get("macs", 0) > 0]
    mac_ms = sum(g["ms"] for g in with_macs)
    macs = sum(g["macs"] for g in with_macs)
    rows = []
    for g in sorted(profile, key=lambda g: -g["ms"])[:top]:
        rate = gflops(g.get("macs", 0), g["ms"]) if g.get("macs", 0) > 0 else None
        rows.append({"group": g["group"], "target": g["target"], "ops": g["ops"], "ms": g["ms"],
                     "gflops": rate, "of_ceiling": rate / ceiling_gflops if rate and ceiling_gflops else None})
    return {"total_ms": sum(g["ms"] for g in profile), "mac_ms": mac_ms,
            "other_ms": sum(g["ms"] for g in profile) - mac_ms,
            "mac_gflops": gflops(macs, mac_ms) if mac_ms else None,
            "mac_of_ceiling": gflops(macs, mac_ms) / ceiling_gflops if mac_ms and ceiling_gflops else None,
            "slowest": rows}


def _pct(value):
    return "-" if value is None else f"{100 * value:.0f}%"


def _rate(value):
    return "-" if value is None else f"{value:.1f}"


def markdown(results):
    lines = [f"Machine: {results['machine']}; config {results['config']}; ceiling "
             f"{results['ceiling_gflops']:.1f} GFLOP/s (512x1024x1024 nn.dense).", "",
             "| model | kernels ms | conv/dense ms | their GFLOP/s | of ceiling | other ms |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, m in results["models"].items():
        lines.append(f"| {name} | {m['total_ms']:.2f} | {m['mac_ms']:.2f} | {_rate(m['mac_gflops'])} | "
                     f"{_pct(m['mac_of_ceiling'])} | {m['other_ms']:.2f} |")
    for name, m in results["models"].items():
        lines += ["", f"{name}, slowest groups:", "",
                  "| group | target | ms | GFLOP/s | of ceiling | ops |", "|---:|---|---:|---:|---:|---|"]
        for r in m["slowest"]:
            lines.append(f"| {r['group']} | {r['target']} | {r['ms']:.3f} | {_rate(r['gflops'])} | "
                         f"{_pct(r['of_ceiling'])} | {', '.join(r['ops'])} |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", nargs="+", default=["resnet-18", "resnet-50", "mobilenet", "squeezenet-1.1"])
    parser.add_argument("--config", default="configs/onednn.yaml")
    parser.add_argument("--repeat", type=int, default=10, help="profiled runs per model (default 10)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--top", type=int, default=8, help="slowest groups listed per model (default 8)")
    parser.add_argument("--weft", default=os.path.join(REPO, "build", "bin", "weft"))
    parser.add_argument("--out", default="bench-out")
    args = parser.parse_args()
    weft = Weft(args.weft, args.threads, None)

    with tempfile.NamedTemporaryFile("w", suffix=".relay", delete=False) as f:
        f.write(CEILING_PROGRAM)
    try:
        ceiling = weft.bench(f.name, args.config, 2, args.repeat)
    finally:
        os.unlink(f.name)
    ceiling_gflops = gflops(ceiling["macs"], ceiling["latency_ms"]["median"])
    print(f"ceiling: {ceiling_gflops:.1f} GFLOP/s", file=sys.stderr)

    results = {"machine": cpu_model(), "config": args.config, "ceiling_gflops": ceiling_gflops, "models": {}}
    for model in args.models:
        out = weft.bench(model, args.config, 1, args.repeat, "--profile")
        results["models"][model] = summarize(out["profile"], ceiling_gflops, args.top)
        print(f"{model}: {results['models'][model]['total_ms']:.2f} ms in kernels", file=sys.stderr)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "layers.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(args.out, "layers.md"), "w") as f:
        f.write(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()

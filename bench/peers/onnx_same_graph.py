#!/usr/bin/python3
"""weft against PyTorch on identical graphs: torchvision's networks and a
transformer encoder exported to ONNX, imported by weft's onnx frontend.

For each network (seeded, eval mode, batch 1, float32) it
  1. exports the PyTorch module with torch.onnx.export (opset --opset) into
     --out/models/NAME.onnx, and times `weft import` of it;
  2. runs the ONNX file on weft with every config given, on one random input,
     and compares the output with PyTorch's on that input: the largest
     |weft - PyTorch| over the largest |PyTorch| must stay within --tolerance;
  3. alternates rounds of `weft bench NAME.onnx --config C` with frozen
     TorchScript and eager PyTorch, as weft_vs_pytorch.py does.
Writes results.json, results.md (the timing table, then the accuracy and
import table) and results.png into --out; docs/performance.md shows them.

Needs Debian's python3-torch, python3-torchvision and python3-onnx (torch's
exporter uses it); without them it says so and stops.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

import report
from mac_count import count_torch_macs
from weft_vs_pytorch import REPO, Weft, bench_round, cpu_model, load_torch, round_median, usable_configs

IMAGE = (1, 3, 224, 224)


def _torchvision(factory, shape=IMAGE, **kwargs):
    def build(torch):
        import torchvision

        return getattr(torchvision.models, factory)(weights=None, **kwargs), (torch.rand(*shape),)

    return build


def _transformer_encoder(torch):
    """A BERT-style encoder: 2 post-norm layers of 256 wide, 4 heads, a GELU
    feed-forward of 1024, over 128 tokens."""
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, activation="gelu", batch_first=True)
    return torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False), (torch.rand(1, 128, 256),)


NETWORKS = {
    "resnet18": _torchvision("resnet18"),
    "resnet50": _torchvision("resnet50"),
    "mobilenet_v2": _torchvision("mobilenet_v2"),
    "squeezenet1_1": _torchvision("squeezenet1_1"),
    "densenet121": _torchvision("densenet121"),
    "inception_v3": _torchvision("inception_v3", (1, 3, 299, 299), aux_logits=False, init_weights=False),
    "efficientnet_b0": _torchvision("efficientnet_b0"),
    "transformer_encoder": _transformer_encoder,
}


def calibrate_batch_norms(torch, net, inputs):
    """Fresh batch norms hold mean 0 and variance 1, so a deep network's
    activations fade to nothing and its output is its last bias alone (an
    empty comparison). One training-mode pass over a random batch of 4 sets
    every running statistic to that batch's, as a trained network's are."""
    norms = [m for m in net.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for m in norms:
        m.momentum = 1.0
    net.train()
    with torch.no_grad():
        net(*(torch.rand(4, *x.shape[1:]) for x in inputs))


class Network:
    """One PyTorch network, its ONNX export and PyTorch's timings of it."""

    def __init__(self, torch, name, build, folder, opset):
        torch.manual_seed(0)
        self.torch, self.name = torch, name
        self.eager, self.inputs = build(torch)
        calibrate_batch_norms(torch, self.eager, self.inputs)
        self.eager.eval()
        self.path = os.path.join(folder, name + ".onnx")
        # Exported with autograd on: under no_grad, eval-mode transformer layers take
        # a fused fast path that has no ONNX form.
        torch.onnx.export(self.eager, self.inputs, self.path, opset_version=opset, input_names=["input"],
                          output_names=["output"])
        with torch.no_grad():
            self.expected = self.eager(*self.inputs).numpy()
            self.macs = count_torch_macs(self.eager, self.inputs)
            traced = torch.jit.trace(self.eager, self.inputs)
            self.torchscript = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
            for _ in range(3):  # the profiling executor compiles after its first runs: part of its build
                self.torchscript(*self.inputs)

    def time(self, mode, warmup, repeat):
        with self.torch.no_grad():
            return round_median(getattr(self, mode), self.inputs, warmup, repeat)


class WeftRunner(Weft):
    def call_plain(self, *args):
        """Runs weft for its effect (a file it writes); RuntimeError with its message on failure."""
        done = subprocess.run([self.binary, *args], capture_output=True, text=True, timeout=self.timeout)
        if done.returncode != 0:
            raise RuntimeError(done.stderr.strip())


def import_seconds(weft, path):
    """Wall times (process start and plugin loading included) of importing
    the model into a typed program (`weft show --json`) and of also writing
    it out (`weft import -o NAME.relay --params-out NAME.safetensors`)."""
    stem = os.path.splitext(path)[0]
    times = []
    for args in (["show", "--json", path], ["import", path, "-o", stem + ".relay", "--params-out", stem + ".safetensors"]):
        start = time.perf_counter()
        subprocess.run([weft.binary, *args], check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def relative_error(weft, net, config, folder):
    """max |weft - PyTorch| / max |PyTorch| on the network's input."""
    import numpy as np

    inputs, outputs = os.path.join(folder, net.name + ".in.npz"), os.path.join(folder, net.name + ".out.npz")
    np.savez(inputs, input=net.inputs[0].numpy())
    weft.call_plain("run", net.path, "--inputs", inputs, "--output", outputs, "--config", config)
    with np.load(outputs) as got:
        values = got[got.files[0]]
    return float(np.abs(values - net.expected).max() / np.abs(net.expected).max())


def bench_network(net, weft, args, configs, folder):
    entry = {"model": net.name, "weft_spec": net.path, "peer_net": "the same ONNX graph's PyTorch module",
             "differences": "", "runs": {}, "errors": {}, "weft": {}, "peer_macs": net.macs, "accuracy": {}}
    entry["import_s"], entry["import_and_write_s"] = import_seconds(weft, net.path)
    for config in configs:
        try:
            entry["accuracy"][config] = relative_error(weft, net, config, folder)
        except RuntimeError as e:
            entry["errors"][config] = str(e)
            print(f"  weft {config}: {e}", file=sys.stderr)
    for r in range(args.rounds):
        bench_round(weft, net.path, configs, entry, args)
        for mode in report.PEER_MODES:
            entry["runs"].setdefault(mode, []).append(net.time(mode, args.warmup, args.repeat))
        print(f"  round {r + 1}: " + ", ".join(f"{k} {v[-1]:.3g} ms" for k, v in entry["runs"].items()),
              file=sys.stderr)
    return entry


def accuracy_table(results, tolerance):
    lines = ["| network | import s | import and write s | " +
             " | ".join(f"error on {c}" for c in results["settings"]["configs"]) + " |",
             "|---|---|---|" + "---|" * len(results["settings"]["configs"])]
    for model in results["models"]:
        cells = []
        for config in results["settings"]["configs"]:
            error = model["accuracy"].get(config)
            cells.append("failed" if error is None else f"{error:.1e}" + ("" if error <= tolerance else " (over)"))
        lines.append(f"| {model['model']} | {model['import_s']:.2f} | {model['import_and_write_s']:.2f} | " +
                     " | ".join(cells) + " |")
    return "\n".join(lines) + (f"\n\nError: max |weft - PyTorch| / max |PyTorch| on one random input; "
                               f"the goal is at most {tolerance:g}. Import: wall time of `weft show --json` (the "
                               "model read, mapped and type-inferred); import and write: of `weft import` writing the "
                               "program and its weights apart. Both include process start and plugin loading.\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", default=["configs/default.yaml", "configs/onednn.yaml", "configs/llvm.yaml"],
                        help="weft run configs (default configs/default.yaml, onednn.yaml and llvm.yaml)")
    parser.add_argument("--models", nargs="+", default=list(NETWORKS), choices=list(NETWORKS), metavar="NETWORK",
                        help="the networks (default all: " + ", ".join(NETWORKS) + ")")
    parser.add_argument("--opset", type=int, default=14, help="the ONNX opset of the export (default 14, torch's)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per round and engine (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per round and engine (default 5)")
    parser.add_argument("--threads", type=int, default=2, help="threads for PyTorch and weft (default 2)")
    parser.add_argument("--tolerance", type=float, default=1e-4, help="the largest relative error accepted")
    parser.add_argument("--weft", default=os.path.join(REPO, "build", "bin", "weft"), help="the weft binary")
    parser.add_argument("--timeout", type=float, default=None, help="seconds one weft call may take")
    parser.add_argument("--out", default="bench-onnx-out", help="directory for the models and results")
    args = parser.parse_args()
    if args.rounds < 1 or args.repeat < 1 or args.warmup < 0:
        parser.error("--rounds and --repeat must be at least 1, --warmup at least 0")
    torch, missing = load_torch(args.threads)
    if missing:
        sys.exit(f"onnx_same_graph.py needs PyTorch: {missing}")
    try:
        import onnx  # noqa: F401 (torch.onnx.export writes through it)
    except ImportError:
        sys.exit("onnx_same_graph.py needs python3-onnx: sudo apt-get install --no-install-recommends python3-onnx")

    weft = WeftRunner(args.weft, args.threads, args.timeout)
    configs, skipped = usable_configs(weft, args.configs)
    folder = os.path.join(args.out, "models")
    os.makedirs(folder, exist_ok=True)
    results = {
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "note": f"ONNX opset {args.opset}, same graphs",
                    "torch": torch.__version__,
                    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")},
        "settings": {"configs": configs, "skipped_configs": skipped, "rounds": args.rounds, "warmup": args.warmup,
                     "repeat": args.repeat, "threads": args.threads},
        "peer_skipped": None,
        "models": [],
    }
    for name in args.models:
        print(f"{name}:", file=sys.stderr)
        net = Network(torch, name, NETWORKS[name], folder, args.opset)
        results["models"].append(bench_network(net, weft, args, configs, folder))

    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    table = report.markdown_table(results) + "\n" + accuracy_table(results, args.tolerance)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(table)
    print(table)
    report.bar_chart(results, os.path.join(args.out, "results.png"))
    failed = [m["model"] for m in results["models"]
              if m["errors"] or any(e > args.tolerance for e in m["accuracy"].values())]
    if failed:
        sys.exit("outside the tolerance or failed: " + ", ".join(failed))


if __name__ == "__main__":
    main()

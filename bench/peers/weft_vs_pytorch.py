#!/usr/bin/python3
"""weft against PyTorch on the zoo models, on the same machine in one run.

For each model it alternates, round after round: `weft bench MODEL --config C
--json` for every config given, then PyTorch frozen TorchScript
(torch.jit.trace -> torch.jit.freeze -> torch.jit.optimize_for_inference) and
eager, batch 1, float32. Each round times `--repeat` runs after `--warmup`
untimed ones and keeps their median; a figure is the median of the rounds'.
Writes results.json, results.md (the table, with weft / best peer) and
results.png (a bar chart) into --out. docs/performance.md shows the latest.

PyTorch is optional: on Debian
    sudo apt-get install --no-install-recommends python3-torch python3-torchvision python3-matplotlib
Without it weft runs alone and the table says why the peer is missing.
"""

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import report
from mac_count import count_torch_macs
from zoo_peers import ZOO_PEERS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INSTALL = ("install it with `sudo apt-get install --no-install-recommends python3-torch python3-torchvision` "
           "(Debian's packages)")


def cpu_model():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return platform.processor() or "unknown CPU"


class Weft:
    def __init__(self, binary, threads, timeout):
        self.binary, self.threads, self.timeout = binary, threads, timeout

    def call(self, *args):
        """Runs weft with `args`; its JSON output, or raises RuntimeError with
        its message."""
        try:
            done = subprocess.run([self.binary, *args], capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"`weft {' '.join(args)}` ran past --timeout {self.timeout} s")
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if line.startswith("error")]
            raise RuntimeError(" ".join(errors) or f"weft exited with {done.returncode}: {done.stderr.strip()}")
        return json.loads(done.stdout)

    def bench(self, spec, config, warmup, repeat, *extra):
        # A relative path not found here is read from the repository root, so
        # the default works from any directory; anything else is left to weft
        # (an installed config's name).
        if not os.path.exists(config) and os.path.exists(os.path.join(REPO, config)):
            config = os.path.join(REPO, config)
        args = ["bench", spec, "--config", config, "--warmup", str(warmup), "--repeat", str(repeat), "--json"]
        if self.threads:
            args += ["--threads", str(self.threads)]
        return self.call(*args, *extra)

    def show(self, spec):
        return self.call("show", "--json", spec)


def usable_configs(weft, configs):
    """The configs a tiny model builds with; the others with weft's reason."""
    usable, skipped = [], {}
    for config in configs:
        try:
            weft.bench("mlp", config, 0, 1)
            usable.append(config)
        except RuntimeError as e:
            skipped[config] = str(e)
            print(f"config {config} skipped: {e}", file=sys.stderr)
    return usable, skipped


def round_median(run, inputs, warmup, repeat):
    for _ in range(warmup):
        run(*inputs)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run(*inputs)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


class TorchPeer:
    """The PyTorch network of one zoo model in both modes, built once."""

    def __init__(self, torch, zoo_peer, program):
        self.torch = torch
        net = zoo_peer.build()
        if "nn.softmax" in program["op_counts"]:  # weft's zoo ends in softmax, torchvision's do not
            net = torch.nn.Sequential(net, torch.nn.Softmax(dim=1))
        net.eval()
        self.inputs = tuple(torch.rand(*i["shape"], dtype=torch.float32) for i in program["inputs"])
        self.eager = net
        self.macs = count_torch_macs(net, self.inputs)
        with torch.no_grad():
            traced = torch.jit.trace(net, self.inputs)
            self.torchscript = torch.jit.optimize_for_inference(torch.jit.freeze(traced))
            # TorchScript's profiling executor records shapes over the first
            # runs and only then compiles its optimized graph: part of its
            # build, as weft's build is not timed either.
            for _ in range(3):
                self.torchscript(*self.inputs)

    def time(self, mode, warmup, repeat):
        with self.torch.no_grad():
            return round_median(getattr(self, mode), self.inputs, warmup, repeat)


def load_torch(threads):
    try:
        import torch
        import torchvision  # noqa: F401 (the zoo peers need it)
    except ImportError as e:
        return None, f"{e.name or e} is not installed; {INSTALL}"
    torch.set_num_threads(threads)
    return torch, None


def bench_round(weft, spec, configs, entry, args):
    """One round of `weft bench SPEC` on every config that has not failed,
    recorded in `entry` (its runs, MACs, build facts and errors)."""
    for config in configs:
        if config in entry["errors"]:
            continue
        try:
            out = weft.bench(spec, config, args.warmup, args.repeat)
        except RuntimeError as e:
            entry["errors"][config] = str(e)
            print(f"  weft {config}: {e}", file=sys.stderr)
            continue
        entry["weft_macs"] = out["macs"]
        entry["weft"][config] = {k: out[k] for k in ("build_ms", "launches", "targets", "fallback_ops")}
        entry["runs"].setdefault("weft:" + config, []).append(out["latency_ms"]["median"])


def bench_model(zoo_peer, weft, torch, args, configs):
    entry = {"model": zoo_peer.name, "weft_spec": zoo_peer.weft_spec, "peer_net": zoo_peer.peer_net,
             "differences": zoo_peer.differences, "runs": {}, "errors": {}, "weft": {}}
    program = weft.show(zoo_peer.weft_spec)
    peer = None
    if torch:
        peer = TorchPeer(torch, zoo_peer, program)
        entry["peer_macs"] = peer.macs
    for r in range(args.rounds):
        bench_round(weft, zoo_peer.weft_spec, configs, entry, args)
        if peer:
            for mode in report.PEER_MODES:
                entry["runs"].setdefault(mode, []).append(peer.time(mode, args.warmup, args.repeat))
        print(f"  round {r + 1}: " + ", ".join(f"{k} {v[-1]:.3g} ms" for k, v in entry["runs"].items()),
              file=sys.stderr)
    return entry


def main():
    names = [p.name for p in ZOO_PEERS]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("configs", nargs="*", default=["configs/default.yaml", "configs/llvm.yaml"],
                        help="weft run configs (files or installed names); default configs/default.yaml "
                             "(onednn, then llvm) and configs/llvm.yaml (generated code alone)")
    parser.add_argument("--models", nargs="+", default=names, choices=names, metavar="MODEL",
                        help="the zoo models to run (default all: " + ", ".join(names) + ")")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs per round and engine (default 1)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per round and engine (default 5)")
    parser.add_argument("--threads", type=int, default=2, help="threads for PyTorch and weft (default 2)")
    parser.add_argument("--weft", default=os.path.join(REPO, "build", "bin", "weft"), help="the weft binary")
    parser.add_argument("--timeout", type=float, default=None, help="seconds one weft call may take")
    parser.add_argument("--out", default="bench-out", help="directory for results.json/.md/.png")
    parser.add_argument("--note", default="", help="a line on how the machine was loaded, kept in the results")
    args = parser.parse_args()
    if args.rounds < 1 or args.repeat < 1 or args.warmup < 0:
        parser.error("--rounds and --repeat must be at least 1, --warmup at least 0")
    if not os.access(args.weft, os.X_OK):
        parser.error(f"--weft: {args.weft} is not an executable (build it: cmake --build build --target weft)")

    weft = Weft(args.weft, args.threads, args.timeout)
    configs, skipped = usable_configs(weft, args.configs)
    torch, peer_skipped = load_torch(args.threads)
    if peer_skipped:
        print(f"PyTorch skipped: {peer_skipped}", file=sys.stderr)
    results = {
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "note": args.note,
                    "torch": torch.__version__ if torch else None,
                    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")},
        "settings": {"configs": configs, "skipped_configs": skipped, "rounds": args.rounds, "warmup": args.warmup,
                     "repeat": args.repeat, "threads": args.threads},
        "peer_skipped": peer_skipped,
        "models": [],
    }
    for zoo_peer in ZOO_PEERS:
        if zoo_peer.name in args.models:
            print(f"{zoo_peer.name}:", file=sys.stderr)
            results["models"].append(bench_model(zoo_peer, weft, torch, args, configs))

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    table = report.markdown_table(results)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(table)
    print(table)
    try:
        report.bar_chart(results, os.path.join(args.out, "results.png"))
    except ImportError:
        print("no chart: matplotlib is not installed (sudo apt-get install python3-matplotlib)", file=sys.stderr)


if __name__ == "__main__":
    main()

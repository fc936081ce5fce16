"""What a bench run's results say: each engine's latency (the median of its
rounds' medians), weft's ratio to the best PyTorch mode, the same ratio per
multiply-accumulate where the two graphs differ, as a Markdown table and a
bar chart."""

import statistics

PEER_MODES = ("torchscript", "eager")


def latency(round_medians):
    """The median over rounds of each round's median, in ms; None when the
    engine did not run."""
    return statistics.median(round_medians) if round_medians else None


def summarize(results):
    """One row per model and weft config: the latencies, the best peer mode,
    weft / best peer, and weft / best peer per MAC (latency / MACs), which
    is what compares networks of different shapes."""
    rows = []
    for model in results["models"]:
        peer = {mode: latency(model["runs"].get(mode)) for mode in PEER_MODES}
        ran = {mode: ms for mode, ms in peer.items() if ms is not None}
        best = min(ran, key=ran.get) if ran else None
        for config in results["settings"]["configs"]:
            weft_ms = latency(model["runs"].get("weft:" + config))
            row = {"model": model["model"], "config": config, "weft_ms": weft_ms, "peer_ms": peer,
                   "best_peer": best, "ratio": None, "ratio_per_mac": None,
                   "weft_macs": model.get("weft_macs"), "peer_macs": model.get("peer_macs"),
                   "differences": model.get("differences", ""), "error": model.get("errors", {}).get(config)}
            if weft_ms is not None and best is not None:
                row["ratio"] = weft_ms / ran[best]
                if row["weft_macs"] and row["peer_macs"]:
                    row["ratio_per_mac"] = row["ratio"] * row["peer_macs"] / row["weft_macs"]
            rows.append(row)
    return rows


def _ms(value):
    return "-" if value is None else f"{value:.3g}" if value < 10 else f"{value:.0f}"


def _ratio(value):
    return "-" if value is None else f"{value:.2f}x"


def _gmacs(value):
    return "-" if not value else f"{value / 1e9:.3g}"


def machine_line(results):
    """Where and how the figures were taken."""
    m, s = results["machine"], results["settings"]
    line = (f"Measured {m['date']} on {m['cpu']} ({m['cores']} cores), PyTorch {m['torch'] or 'absent'}, "
            f"{s['threads']} threads; {s['rounds']} rounds of {s['warmup']} warm-up and {s['repeat']} timed runs "
            "per engine, each figure the median of the rounds' medians.")
    return line + (f" Note: {m['note']}." if m.get("note") else "")


def markdown_table(results):
    """The table docs/performance.md shows; footnotes name how graphs differ."""
    lines = [machine_line(results), "",
             "| model | weft config | weft ms | TorchScript ms | eager ms | weft / best peer | "
             "per MAC | weft GMACs | peer GMACs |",
             "|---|---|---|---|---|---|---|---|---|"]
    notes = []
    for row in summarize(results):
        name = row["model"]
        if row["differences"]:
            if row["differences"] not in notes:
                notes.append(row["differences"])
            name += f" [{notes.index(row['differences']) + 1}]"
        weft = "failed" if row["error"] else _ms(row["weft_ms"])
        lines.append(f"| {name} | {row['config']} | {weft} | {_ms(row['peer_ms']['torchscript'])} | "
                     f"{_ms(row['peer_ms']['eager'])} | {_ratio(row['ratio'])} | {_ratio(row['ratio_per_mac'])} | "
                     f"{_gmacs(row['weft_macs'])} | {_gmacs(row['peer_macs'])} |")
    lines.append("")
    for i, note in enumerate(notes):
        lines.append(f"[{i + 1}] {note}; compare per MAC.")
    failures = [f"- {row['model']} on {row['config']}: {row['error']}" for row in summarize(results) if row["error"]]
    if failures:
        lines += ["", "weft failed on:"] + failures
    if results.get("peer_skipped"):
        lines += ["", f"PyTorch did not run: {results['peer_skipped']}"]
    for config, reason in results["settings"].get("skipped_configs", {}).items():
        lines += ["", f"Config {config} skipped: {reason}"]
    return "\n".join(lines) + "\n"


def bar_chart(results, path):
    """Latency per model and engine on a log scale, into `path` (a .png)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = [model["model"] for model in results["models"]]
    engines = ["weft:" + config for config in results["settings"]["configs"]]
    if not results.get("peer_skipped"):
        engines += list(PEER_MODES)
    width = 0.8 / len(engines)
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(models)), 4.5))
    for i, engine in enumerate(engines):
        values = [latency(model["runs"].get(engine)) or 0 for model in results["models"]]
        ax.bar([m + (i - (len(engines) - 1) / 2) * width for m in range(len(models))], values, width, label=engine)
    ax.set_xticks(range(len(models)), models, rotation=30, ha="right")
    ax.set_yscale("log")
    ax.set_ylabel("latency, ms (batch 1, float32; lower is better)")
    ax.set_title(f"weft and PyTorch on {results['machine']['cpu']}, {results['settings']['threads']} threads")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    import argparse
    import json
    import os

    parser = argparse.ArgumentParser(description="Render a bench run's results.json again as results.md/.png")
    parser.add_argument("results", type=argparse.FileType("r"), help="a results.json of weft_vs_pytorch.py")
    parser.add_argument("out", help="the directory for results.md and results.png")
    args = parser.parse_args()
    loaded = json.load(args.results)
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(markdown_table(loaded))
    bar_chart(loaded, os.path.join(args.out, "results.png"))

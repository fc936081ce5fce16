"""The bench script's own logic, without running weft or needing PyTorch:
MAC counts against hand-worked ones and the table from a canned result.
Run: cd bench/peers && python3 -m unittest test_peers (a ctest, bench_peers)."""

import json
import os
import unittest

import layer_profile
import report
from mac_count import conv_macs, count_torch_macs, dense_macs

HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import torch
except ImportError:
    torch = None


class MacCount(unittest.TestCase):
    def test_conv_multiplies_each_output_by_its_window(self):
        # 3 -> 8 channels, 3x3 kernel, 4x4 output: 8 * 16 outputs, each 3 * 9 products.
        self.assertEqual(conv_macs((1, 8, 4, 4), 3, 1, (3, 3)), 3456)
        # depthwise, 8 groups of one channel: each output reads one channel's 9 inputs.
        self.assertEqual(conv_macs((1, 8, 4, 4), 8, 8, (3, 3)), 1152)

    def test_dense_multiplies_each_output_by_its_inputs(self):
        self.assertEqual(dense_macs((1, 10), 64), 640)

    @unittest.skipUnless(torch, "PyTorch is not installed")
    def test_torch_network_counts_every_conv_and_linear_call(self):
        net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                                  torch.nn.Linear(8 * 4 * 4, 10))
        self.assertEqual(count_torch_macs(net, (torch.zeros(1, 3, 4, 4),)), 3456 + 1280)


class Report(unittest.TestCase):
    def setUp(self):
        with open(os.path.join(HERE, "testdata", "canned_results.json")) as f:
            self.results = json.load(f)

    def test_ratio_is_weft_over_the_best_peer_mode(self):
        mlp, densenet, vgg = report.summarize(self.results)
        # medians: weft 2.0, torchscript 5.0, eager 3.5 -> eager is best, 2.0 / 3.5.
        self.assertEqual(mlp["best_peer"], "eager")
        self.assertAlmostEqual(mlp["ratio"], 2.0 / 3.5)
        self.assertAlmostEqual(mlp["ratio_per_mac"], 2.0 / 3.5)
        # 10 / 8, and per MAC (10 / 2.0 G) / (8 / 2.9 G).
        self.assertEqual(densenet["best_peer"], "torchscript")
        self.assertAlmostEqual(densenet["ratio"], 1.25)
        self.assertAlmostEqual(densenet["ratio_per_mac"], 1.8125)
        self.assertIsNone(vgg["ratio"])
        self.assertIn("timeout", vgg["error"])

    def test_markdown_table_rows_notes_and_skips(self):
        lines = report.markdown_table(self.results).splitlines()
        self.assertIn("| mlp | configs/default.yaml | 2 | 5 | 3.5 | 0.57x | 0.57x | 0.000109 | 0.000109 |", lines)
        self.assertIn("| densenet-121 [1] | configs/default.yaml | 10 | 8 | 20 | 1.25x | 1.81x | 2 | 2.9 |", lines)
        self.assertIn("| vgg-16 | configs/default.yaml | failed | 300 | 250 | - | - | - | 15.5 |", lines)
        self.assertIn("[1] the graphs differ; compare per MAC.", lines)
        self.assertIn("- vgg-16 on configs/default.yaml: weft bench ran past --timeout 60 s", lines)
        self.assertIn("Config configs/onednn.yaml skipped: no such config", lines)
        self.assertEqual(lines[0], "Measured 2026-12-02T00:00:00+00:00 on Canned CPU (2 cores), PyTorch 2.1.2, "
                         "2 threads; 3 rounds of 1 warm-up and 5 timed runs per engine, each figure the median "
                         "of the rounds' medians.")

    def test_a_run_without_the_peer_says_why(self):
        self.results["peer_skipped"] = "torch is not installed"
        for model in self.results["models"]:
            model["runs"] = {k: v for k, v in model["runs"].items() if k.startswith("weft:")}
        rows = report.summarize(self.results)
        self.assertTrue(all(row["ratio"] is None and row["best_peer"] is None for row in rows))
        self.assertIn("PyTorch did not run: torch is not installed", report.markdown_table(self.results))


if __name__ == "__main__":
    unittest.main()


class LayerProfile(unittest.TestCase):
    PROFILE = [
        {"group": 3, "target": "onednn", "ops": ["nn.conv2d", "add"], "ms": 2.0, "macs": 50_000_000},
        {"group": 1, "target": "onednn", "ops": ["nn.max_pool2d"], "ms": 1.0, "macs": 0},
        {"group": 2, "target": "onednn", "ops": ["nn.dense"], "ms": 0.5, "macs": 0.0},
    ]

    def test_groups_with_macs_get_their_rate_against_the_ceiling(self):
        m = layer_profile.summarize(self.PROFILE, ceiling_gflops=100.0, top=2)
        # 2 flops per MAC: 1e8 flops in 2 ms is 50 GFLOP/s, half the ceiling.
        self.assertAlmostEqual(m["slowest"][0]["gflops"], 50.0)
        self.assertAlmostEqual(m["slowest"][0]["of_ceiling"], 0.5)
        self.assertIsNone(m["slowest"][1]["gflops"])  # the pool has no MACs
        self.assertEqual(len(m["slowest"]), 2)
        self.assertAlmostEqual(m["total_ms"], 3.5)
        self.assertAlmostEqual(m["mac_ms"], 2.0)
        self.assertAlmostEqual(m["other_ms"], 1.5)
        self.assertAlmostEqual(m["mac_of_ceiling"], 0.5)

    def test_the_table_lists_every_model_and_its_slowest_groups(self):
        results = {"machine": "test CPU", "config": "onednn", "ceiling_gflops": 100.0,
                   "models": {"resnet-18": layer_profile.summarize(self.PROFILE, 100.0, 3)}}
        md = layer_profile.markdown(results)
        self.assertIn("| resnet-18 | 3.50 | 2.00 | 50.0 | 50% | 1.50 |", md)
        self.assertIn("| 3 | onednn | 2.000 | 50.0 | 50% | nn.conv2d, add |", md)
        self.assertIn("| 1 | onednn | 1.000 | - | - | nn.max_pool2d |", md)


class SameGraphAccuracy(unittest.TestCase):
    def test_each_error_is_shown_and_one_past_the_tolerance_is_marked(self):
        import onnx_same_graph

        results = {"settings": {"configs": ["a.yaml", "b.yaml"]},
                   "models": [{"model": "net", "import_s": 0.4321, "import_and_write_s": 1.5,
                               "accuracy": {"a.yaml": 2e-7, "b.yaml": 3e-4}},
                              {"model": "broken", "import_s": 0.1, "import_and_write_s": 0.2, "accuracy": {"a.yaml": 1e-6}}]}
        table = onnx_same_graph.accuracy_table(results, 1e-4)
        self.assertIn("| net | 0.43 | 1.50 | 2.0e-07 | 3.0e-04 (over) |", table)
        self.assertIn("| broken | 0.10 | 0.20 | 1.0e-06 | failed |", table)

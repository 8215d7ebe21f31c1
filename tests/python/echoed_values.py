"""Every figure summary.json echoes from the scenario is the value the run used (issue 42).

The fixture (tests/data/echo/echoed_values.yaml) runs under every checkpoint interval policy and
strategy and every recovery policy. For each, the echoed fields are compared with what events.csv
shows the run did: the training time between two checkpoints with nothing in between is the interval
in force (to within a step, the job's granularity), a checkpoint's pause is the pause, a strategy
that drains writes them, a restart lasts the policy's restart time, a host-memory restore the
in-memory reload time.

Run by ctest (tests/CMakeLists.txt) from the source tree, with FLEETSIM set to the CLI binary:
  FLEETSIM=build/fleetsim python3 tests/python/echoed_values.py -v
"""

import csv
import json
import os
import subprocess
import tempfile
import unittest

FLEETSIM = os.path.abspath(os.environ.get("FLEETSIM", "build/fleetsim"))
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE = os.path.join(ROOT, "tests/data/echo/echoed_values.yaml")


def run(*sets):
    """(summary, events) of the fixture with `sets` at seed 1."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [FLEETSIM, "run", FIXTURE, "--quiet", "--out", tmp, "--seed", "1"]
        for s in sets:
            args += ["--set", s]
        p = subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, FLEETSIM_CACHE_DIR="off"))
        if p.returncode != 0:
            raise AssertionError(f"{' '.join(sets)}: exit {p.returncode}: {p.stderr}")
        with open(os.path.join(tmp, "summary.json")) as f:
            summary = json.load(f)
        with open(os.path.join(tmp, "events.csv")) as f:
            events = list(csv.DictReader(f))
    for e in events:
        e["time_s"] = float(e["time_s"])
        e["duration_s"] = float(e["duration_s"]) if e["duration_s"] else 0.0
    return summary, events


def training_gaps(events):
    """The training time between each two checkpoints that nothing else came between: from the end
    of one checkpoint's pause to the start of the next."""
    gaps, previous = [], None
    for e in events:
        if e["event"] == "checkpoint_drained":
            continue  # an asynchronous write draining while the job trains
        if e["event"] == "checkpoint" and e["outcome"] == "completed":
            if previous is not None:
                gaps.append(e["time_s"] - (previous["time_s"] + previous["duration_s"]))
            previous = e
        else:
            previous = None
    return gaps


def phases(events, name):
    return [e for e in events if e["event"] == name and e["outcome"] == "completed"]


class CheckpointEchoTest(unittest.TestCase):
    def check_interval(self, summary, events):
        c = summary["checkpoints"]
        step = summary["step_time_s"]
        gaps = training_gaps(events)
        self.assertGreater(len(gaps), 10)
        if c["policy"] == "adaptive":
            # The interval follows the MTBF it estimates: its first stretch trains from 0 to the first
            # checkpoint, its last complete one (with no failure after it) by about the last interval.
            first = events[0]
            self.assertEqual(first["event"], "checkpoint")
            self.assertLessEqual(abs(first["time_s"] - c["first_interval_s"]), step + 1e-6, (first, c))
            last_failure = max((e["time_s"] for e in events if e["event"] == "failure"), default=0)
            tail = [e for e in events if e["time_s"] > last_failure]
            tail_gaps = training_gaps(tail)
            self.assertGreater(len(tail_gaps), 1)
            # Between failures the estimate grows only with exposure: well under 1 % over one stretch.
            self.assertLessEqual(abs(tail_gaps[-1] - c["interval_s"]), step + 0.01 * c["interval_s"], (tail_gaps, c))
            self.assertGreater(abs(c["first_interval_s"] - c["interval_s"]), step)
        else:
            for g in gaps:
                self.assertLessEqual(abs(g - c["interval_s"]), step + 1e-6, (g, c))

    def test_every_interval_policy_reports_the_interval_it_used(self):
        for policy, extra in (("fixed", ["checkpoint.interval=45min"]), ("young", []), ("daly", []),
                              ("adaptive", ["checkpoint.prior_mtbf=1d"])):
            with self.subTest(policy=policy):
                summary, events = run(f"checkpoint.policy={policy}", *extra)
                c = summary["checkpoints"]
                self.assertEqual(c["policy"], policy)
                self.check_interval(summary, events)
                if policy == "fixed":
                    self.assertEqual(c["interval_s"], 2700)
                if policy in ("young", "daly"):
                    # Computed from the checkpoint cost and the failure model's MTBF: as the summary's own
                    # young/daly figures, not the checkpoint.interval default (30 min) the run did not read.
                    self.assertAlmostEqual(c["interval_s"], c[f"{policy}_interval_s"], delta=1e-6 * c["interval_s"])
                    self.assertNotAlmostEqual(c["interval_s"], 1800, places=0)

    def test_every_strategy_reports_the_pause_and_the_drains_it_used(self):
        for strategy, extra in (("sync", []), ("async", []),
                                ("multi_level", ["recovery.policy=in_memory", "checkpoint.remote_every=3"])):
            with self.subTest(strategy=strategy):
                summary, events = run(f"checkpoint.strategy={strategy}", "checkpoint.interval=40min", *extra)
                c = summary["checkpoints"]
                self.assertEqual(c["strategy"], strategy)
                pauses = [e["duration_s"] for e in phases(events, "checkpoint")]
                self.assertGreater(len(pauses), 10)
                for p in pauses:
                    self.assertAlmostEqual(p, c["pause_s"], delta=1e-6)
                drains = [e for e in events if e["event"] == "checkpoint_drained"]
                if strategy == "sync":
                    self.assertEqual(drains, [])
                    # A synchronous pause is the write overhead and the transfer: 5 s + 100 MB x 1,024 GPUs
                    # (102.4 GB) at 1 GB/s.
                    self.assertAlmostEqual(c["pause_s"], 5 + 102.4, delta=1e-6)
                else:
                    self.assertGreater(len(drains), 0)
                    # The device-to-host snapshot only: 100 MB per GPU at the default 25 GB/s (the write, its
                    # overhead included, drains behind training).
                    self.assertAlmostEqual(c["pause_s"], 0.1 / 25, delta=1e-9)
                if strategy == "multi_level":
                    # Every third snapshot also goes to storage: about a third of them drain.
                    self.assertAlmostEqual(len(drains) / len(pauses), 1 / 3, delta=0.05)
                self.check_interval(summary, events)


class RecoveryEchoTest(unittest.TestCase):
    def test_every_recovery_policy_reports_what_its_recoveries_did(self):
        for policy, restart_s in (("restart", 600), ("hot_spare", 90), ("elastic", 600), ("in_memory", 600)):
            with self.subTest(policy=policy):
                sets = [f"recovery.policy={policy}"]
                if policy == "hot_spare":
                    sets.append("recovery.spare_swap=90s")
                if policy == "in_memory":
                    sets.append("recovery.memory_reload=20s")
                summary, events = run(*sets)
                r = summary["recovery"]
                self.assertEqual(r["policy"], policy)
                self.assertEqual(r["spare_nodes"], 4)
                restarts = phases(events, "restart")
                self.assertGreater(len(restarts), 5)
                for e in restarts:
                    self.assertAlmostEqual(e["duration_s"], restart_s, delta=1e-6, msg=policy)
                reloads = phases(events, "reload")
                failures = [e for e in events if e["event"] == "failure"]
                self.assertEqual(summary["interruptions"]["unexpected"], len(failures))
                # Every node failure sends one node to repair: the job's (in events.csv) and the spares'.
                self.assertEqual(r["repairs"], len(failures) + r["spare_failures"])
                # A reload reads the checkpoint back: from host memory in the in-memory reload time, or
                # from storage, 100 MB x 1,024 GPUs (102.4 GB) at the 10 GB/s read bandwidth.
                reload_s = 20 if policy == "in_memory" else 102.4 / 10
                self.assertGreater(len(reloads), 5)
                for e in reloads:
                    self.assertAlmostEqual(e["duration_s"], reload_s, delta=1e-6, msg=policy)
                if policy == "in_memory":
                    # Each recovery that ends (its warm-up completes) restored once, here from memory.
                    self.assertEqual(r["memory_restores"] + r["storage_restores"], len(phases(events, "warmup")))
                    self.assertEqual(r["storage_restores"], 0)
                if policy == "elastic":
                    shrinks = [e for e in events if e["event"] == "reconfiguration"]
                    self.assertEqual(len(shrinks), r["regrows"])


if __name__ == "__main__":
    unittest.main()

"""The Python module as a notebook uses it (tools/python/): the same numbers as the CLI, scenario
errors with file, line and message, and a process that can run again and again without growing.

Run by ctest (tests/CMakeLists.txt) with Debian's python3, from the source tree, with FLEETSIM set
to the CLI binary and PYTHONPATH to build/python."""

import ctypes
import gc
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

import fleetsim

FLEETSIM = os.environ["FLEETSIM"]
LLAMA3 = "scenarios/llama3_405b_16k.yaml"
SMALL = "scenarios/young_daly_single_cause.yaml"


def cli_summary(*args):
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([FLEETSIM, "run", *args, "--quiet", "--out", tmp], check=True)
        with open(os.path.join(tmp, "summary.json")) as f:
            summary = json.load(f)
        with open(os.path.join(tmp, "timeline.csv")) as f:
            timeline_rows = sum(1 for _ in f) - 1
        with open(os.path.join(tmp, "events.csv")) as f:
            event_rows = sum(1 for _ in f) - 1
    return summary, timeline_rows, event_rows


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


_LIBC = ctypes.CDLL("libc.so.6")
_LIBC.mallinfo2.restype = _MallInfo2
_LIBC.malloc_trim.argtypes = [ctypes.c_size_t]


def rss_trimmed_kib():
    """RSS after malloc_trim(0) has handed the free pages of every arena back to the kernel: what
    the process holds, without the freed memory glibc keeps for reuse."""
    _LIBC.malloc_trim(0)
    return rss_kib()


def malloc_in_use_kib():
    """Bytes glibc's malloc has handed out and not had back (heap and mmapped chunks): what C++,
    numpy and pandas hold, without the freed memory malloc keeps for reuse."""
    info = _LIBC.mallinfo2()
    return (info.uordblks + info.hblkhd) // 1024


class RunTest(unittest.TestCase):
    def test_the_llama3_replay_gives_the_clis_numbers_and_traces(self):
        summary, timeline_rows, event_rows = cli_summary(LLAMA3, "--seed", "1")
        r = fleetsim.run(LLAMA3, seed=1)
        self.assertIsInstance(r, dict)
        self.assertEqual(r["ettr"], summary["ettr"])
        self.assertEqual(r["interruptions"], summary["interruptions"])
        self.assertEqual(r["seed"], 1)
        self.assertEqual(len(r.timeline), timeline_rows)
        self.assertEqual(len(r.events), event_rows)
        self.assertIn("state", r.timeline.columns)
        self.assertIn("cause", r.events.columns)
        # The timeline accounts for the whole window, and the productive time is the ETTR's.
        self.assertAlmostEqual(r.timeline["t_end_s"].iloc[-1], r["simulated_time_s"], places=3)
        self.assertIsNone(r.out)

    def test_overrides_and_seeds_change_the_run_as_the_cli_does(self):
        summary, _, _ = cli_summary(SMALL, "--seed", "7", "--set", "checkpoint.interval=2h")
        r = fleetsim.run(SMALL, seed=7, set={"checkpoint.interval": "2h"})
        self.assertEqual(r["ettr"], summary["ettr"])
        default = fleetsim.run(SMALL, seed=7)
        self.assertNotEqual(default["ettr"], r["ettr"])  # 31 min is not 2 h

    def test_out_keeps_the_files(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run")
            r = fleetsim.run(SMALL, seed=3, out=out)
            self.assertEqual(r.out, out)
            for name in ("summary.json", "timeline.csv", "events.csv"):
                self.assertTrue(os.path.exists(os.path.join(out, name)), name)

    def test_a_fleet_run_gives_its_jobs_as_a_dataframe(self):
        r = fleetsim.run("scenarios/fleet_kalos_30d.yaml", seed=2)
        self.assertEqual(r["kind"], "fleet")
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([FLEETSIM, "run", "scenarios/fleet_kalos_30d.yaml", "--seed", "2", "--quiet",
                            "--out", tmp], check=True)
            with open(os.path.join(tmp, "jobs.csv")) as f:
                rows = sum(1 for _ in f) - 1
        self.assertEqual(len(r.jobs), rows)
        self.assertGreater(rows, 1)
        for column in ("job_id", "wait_s", "gpus", "ettr", "state"):
            self.assertIn(column, r.jobs.columns)
        self.assertTrue(fleetsim.run(SMALL, seed=1).jobs.empty)  # a single job writes no jobs.csv

    def test_a_fleets_replayed_job_is_a_run_result_of_its_own(self):
        # The Llama 3 job replayed in a one-job fleet is the replay: the same summary and traces.
        replay = fleetsim.run(LLAMA3, seed=2)
        fleet = fleetsim.run(LLAMA3, seed=2, set={"workload.jobs.llama.runtime": "replay"})
        self.assertEqual(fleet["kind"], "fleet")
        self.assertEqual(list(fleet.replayed), ["llama"])
        job = fleet.replayed["llama"]
        self.assertEqual(job["ettr"], replay["ettr"])
        self.assertEqual(job["interruptions"], replay["interruptions"])
        self.assertTrue(job.events.equals(replay.events))
        self.assertTrue(job.timeline.equals(replay.timeline))
        self.assertEqual(job.replayed, {})
        self.assertEqual(fleet.jobs["job_id"].tolist(), ["llama"])
        self.assertEqual(replay.replayed, {})

    def test_a_hundred_runs_in_one_process_work_and_do_not_grow_it(self):
        # What a run leaves behind in the notebook's process shows in what the allocators still hand
        # out: malloc's bytes in use (C++, numpy, pandas) and Python's allocated blocks. RSS alone
        # cannot tell a leak from glibc's dynamic mmap threshold, which after a large free serves
        # later large buffers from the heap and keeps them: a one-time step of 24-33 MB whose run
        # depends on what ran before, so RSS is read after malloc_trim(0) has returned free pages.
        ettrs = []
        for i in range(10):
            ettrs.append(fleetsim.run(SMALL, seed=1)["ettr"])
        gc.collect()
        rss, heap, blocks = rss_trimmed_kib(), malloc_in_use_kib(), sys.getallocatedblocks()
        for i in range(90):
            ettrs.append(fleetsim.run(SMALL, seed=1)["ettr"])
        gc.collect()
        rss_grown, heap_grown = rss_trimmed_kib() - rss, malloc_in_use_kib() - heap
        blocks_grown = sys.getallocatedblocks() - blocks
        print(f"\n  after 10 runs: RSS {rss} KiB, malloc in use {heap} KiB, {blocks} Python blocks; over the "
              f"next 90: RSS +{rss_grown} KiB, malloc +{heap_grown} KiB, +{blocks_grown} blocks", flush=True)
        self.assertEqual(len(ettrs), 100)
        self.assertEqual(len(set(ettrs)), 1)  # deterministic, call after call
        # a run's summary dict is thousands of blocks and its DataFrames hundreds of KiB: keeping
        # one per run would fail both; pandas' and urllib's bounded caches stay well inside
        self.assertLess(heap_grown, 1024, f"malloc's bytes in use grew by {heap_grown} KiB over 90 runs")
        self.assertLess(blocks_grown, 20 * 90, f"Python's allocated blocks grew by {blocks_grown} over 90 runs")
        self.assertLess(rss_grown, 4 * 1024, f"RSS grew by {rss_grown} KiB over 90 runs")


class ErrorTest(unittest.TestCase):
    def test_a_scenario_error_carries_file_line_and_message(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.yaml")
            with open(path, "w") as f:
                f.write("name: bad\ncluster:\n  gpus: 1024\ncheckpoint:\n  intervall: 30min\n")
            with self.assertRaises(fleetsim.ScenarioError) as caught:
                fleetsim.run(path, seed=1)
            e = caught.exception
            self.assertEqual(e.file, path)
            self.assertEqual(e.line, 5)
            self.assertIn("intervall", e.message)
            self.assertIn("interval", e.message)  # did you mean
            self.assertIn(f"{path}:5:", str(e))
            self.assertIsInstance(e, ValueError)

    def test_a_bad_override_names_the_key(self):
        with self.assertRaises(fleetsim.ScenarioError) as caught:
            fleetsim.run(SMALL, set={"checkpoint.interval": "-5min"})
        self.assertIn("checkpoint.interval", str(caught.exception))

    def test_a_key_the_scenarios_choices_leave_unused_is_refused_naming_the_choice(self):
        # recovery.spare_swap is hot_spare's; the scenario restarts (recovery.policy's default).
        with self.assertRaises(fleetsim.ScenarioError) as caught:
            fleetsim.run(SMALL, set={"recovery.spare_swap": "30min"})
        message = str(caught.exception)
        self.assertIn("'recovery.spare_swap' is not used", message)
        self.assertIn("recovery.policy is restart", message)
        self.assertIn("read when recovery.policy is hot_spare", message)
        # The same key where its choice holds runs.
        r = fleetsim.run(SMALL, seed=1, set={"recovery.spare_swap": "30min", "recovery.policy": "hot_spare",
                                             "run.duration": "3d"})
        # The scenario's own recovery.restart, which hot_spare (set here) does not read, is listed.
        self.assertEqual(list(r["unused_keys"]), ["recovery.restart"])
        self.assertIn("recovery.policy swaps spares in instead", r["unused_keys"]["recovery.restart"])

    def test_a_bad_sweep_file_gives_structured_diagnostics(self):
        # The native side writes each diagnostic as data (no text is parsed): the sweep file's own
        # problems with their line and column, and a point's with the point they come from.
        with tempfile.TemporaryDirectory() as tmp:
            bad_file = os.path.join(tmp, "bad.yaml")
            with open(bad_file, "w") as f:
                f.write(f"base: {os.path.abspath(SMALL)}\nreplicas: 0\nvary: {{spares.nodes: [0, 8]}}\n")
            with self.assertRaises(fleetsim.ScenarioError) as caught:
                fleetsim.sweep(bad_file)
            d = caught.exception.diagnostics[0]
            self.assertEqual((d.file, d.line, d.column), (bad_file, 2, 11))
            self.assertIn("replicas", d.message)
            self.assertEqual(d.context, "")
            bad_point = os.path.join(tmp, "point.yaml")
            with open(bad_point, "w") as f:
                f.write(f"base: {os.path.abspath(SMALL)}\nreplicas: 1\nvary: {{checkpoint.interval: [30min, -5min]}}\n")
            with self.assertRaises(fleetsim.ScenarioError) as caught:
                fleetsim.sweep(bad_point)
            [d] = caught.exception.diagnostics
            self.assertEqual(d.context, f"point checkpoint.interval=-5min of {bad_point}")
            self.assertEqual(d.file, "command line")
            self.assertIn("checkpoint.interval", d.message)

    def test_a_bad_compare_point_is_a_scenario_error_naming_the_point(self):
        with self.assertRaises(fleetsim.ScenarioError) as caught:
            fleetsim.compare(SMALL, vary={"spares.nodes": [0, -1]})
        [d] = caught.exception.diagnostics
        self.assertEqual(d.context, "point spares.nodes=-1")
        self.assertIn("spares.nodes", d.message)

    def test_a_missing_file_is_a_scenario_error(self):
        with self.assertRaises(fleetsim.ScenarioError) as caught:
            fleetsim.run("no/such/scenario.yaml")
        self.assertEqual(caught.exception.file, "no/such/scenario.yaml")


class OtherCommandsTest(unittest.TestCase):
    def test_metrics_read_a_run_as_compare_and_sweep_do(self):
        table = fleetsim.metrics()
        self.assertIn("ettr", list(table["name"]))
        self.assertIn("wait_p99_h", list(table["name"]))
        r = fleetsim.run(SMALL, seed=2, set={"run.duration": "3d"})
        # ettr is productive time over elapsed time: derived here from the breakdown, not read back.
        breakdown = r["time_breakdown_s"]
        self.assertAlmostEqual(r.metric("ettr"), breakdown["productive"] / r["simulated_time_s"], places=12)
        self.assertAlmostEqual(sum(breakdown.values()), r["simulated_time_s"], delta=1e-6 * r["simulated_time_s"])
        self.assertAlmostEqual(r.metric("restart_h"), r["time_breakdown_s"]["restart"] / 3600, places=9)
        self.assertEqual(r.metric("unexpected_interruptions"), r["interruptions"]["unexpected"])
        self.assertTrue(math.isnan(r.metric("wait_p99_h")), "a fleet's metric has no value for a single job")
        with self.assertRaises(ValueError):
            r.metric("etr")

    def test_step_returns_the_fleet_law_breakdown(self):
        s = fleetsim.step(SMALL, analytic=True)
        self.assertIn(s["binding_term"], ("compute", "communication", "coordination"))
        self.assertGreater(s["step_time_s"], 0)
        self.assertGreater(s["mfu"], 0)
        self.assertLess(s["mfu"], 1)
        bigger = fleetsim.step(SMALL, analytic=True, set={"model.global_batch_tokens": 2097152})
        self.assertGreater(bigger["step_time_s"], s["step_time_s"])

    def test_compare_runs_points_that_leave_a_key_of_the_base_unused(self):
        # hot_spare's swap time is read at one point of two: the compare runs both (run would refuse it).
        df = fleetsim.compare(SMALL, vary={"recovery.policy": ["restart", "hot_spare"]},
                              set={"recovery.spare_swap": "30min", "run.duration": "3d"})
        self.assertEqual(len(df), 2)
        with self.assertRaises(fleetsim.ScenarioError):  # ... and unread at every point, it is refused
            fleetsim.compare(SMALL, vary={"spares.nodes": [0, 4]},
                             set={"recovery.spare_swap": "30min", "run.duration": "3d"})

    def test_compare_runs_every_point_with_the_same_seeds(self):
        df = fleetsim.compare(SMALL, vary={"checkpoint.interval": ["10min", "31min", "2h"]}, seeds=2)
        self.assertGreaterEqual(len(df), 3)
        self.assertTrue(any("ettr" in c for c in df.columns), list(df.columns))

    def test_collective_times_one_on_the_fabric(self):
        ring = fleetsim.collective("allreduce", "ring", ranks=64, size="64MB")
        # 2*63*5us + 2*63/64*64MB/50GB/s = 3.15 ms, as the CLI test has it
        self.assertAlmostEqual(ring["simulated_s"], 0.00315, places=9)
        tree = fleetsim.collective("allreduce", "tree", ranks=64, size=65536)
        self.assertEqual(tree["size_bytes"], 65536)
        self.assertLess(tree["simulated_s"], ring["simulated_s"])
        with self.assertRaises(ValueError) as caught:
            fleetsim.collective("allgather", "tree", ranks=64)
        self.assertIn("does not implement", str(caught.exception))

    def test_sweep_gives_a_confidence_interval_per_point_that_narrows_with_replicas(self):
        with tempfile.TemporaryDirectory() as tmp:
            sweep_file = os.path.join(tmp, "sweep.yaml")
            with open(sweep_file, "w") as f:
                f.write(f"base: {os.path.abspath(SMALL)}\nreplicas: 4\nseed: 1\n"
                        "vary:\n  checkpoint.interval: [10min, 2h]\n")
            few = fleetsim.sweep(sweep_file, jobs=2)
            many = fleetsim.sweep(sweep_file, replicas=16, jobs=2)
        self.assertEqual(len(few), 2)  # one row per point
        self.assertIn("ettr_ci95", few.columns)
        for df, n in ((few, 4), (many, 16)):
            self.assertTrue((df["replicas"] == n).all(), df["replicas"].tolist())
        # sd/sqrt(n): four times the replicas, about half the interval
        self.assertLess(many["ettr_ci95"].max(), few["ettr_ci95"].max())
        # a 2 h interval loses more work to failures than 10 min on this single-cause scenario
        by = few.set_index("checkpoint.interval")
        self.assertNotEqual(by.loc["10min", "ettr_mean"], by.loc["2h", "ettr_mean"])

    def test_describe_lists_every_parameter(self):
        df = fleetsim.describe()
        self.assertEqual(list(df.columns), ["key", "type", "default", "range", "applies_to", "description"])
        row = df[df["key"] == "checkpoint.interval"]
        self.assertEqual(len(row), 1)
        self.assertIn("time", row["type"].iloc[0])
        self.assertEqual(row["applies_to"].iloc[0], "job")  # a fleet's jobs have their own intervals
        self.assertEqual(df[df["key"] == "scheduler.policy"]["applies_to"].iloc[0], "fleet")
        self.assertEqual(df[df["key"] == "cluster.gpus"]["applies_to"].iloc[0], "both")

    def test_help_is_useful(self):
        doc = fleetsim.run.__doc__
        for word in ("seed", "set", "ScenarioError", "timeline", "DataFrame"):
            self.assertIn(word, doc)


if __name__ == "__main__":
    unittest.main()

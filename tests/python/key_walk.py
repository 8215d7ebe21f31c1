"""Every key of docs/scenario-reference.md, set on a fleet, either changes an output or is refused
(exit 2): a fleet never runs as if a key the user gave were not there (issue 30).

The walk runs tests/data/fleet/key_walk.yaml twice per key, as it stands and with the key set to
another valid value, both with the key's context: the other keys without which it cannot act (a
torus key needs the torus, a trace column a trace). A key the reference marks `job` (a single
job's replay only) must be refused naming itself; every other key must change summary.json,
jobs.csv or timeline.csv, or be refused. A handful of labels reach only reports and are listed
with why. The fleet-only keys are also set on a single job's scenario, which must refuse each.

Run by ctest (tests/CMakeLists.txt) from the source tree, with FLEETSIM set to the CLI binary:
  FLEETSIM=build/fleetsim python3 tests/python/key_walk.py -v
"""

import os
import re
import subprocess
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor

FLEETSIM = os.path.abspath(os.environ.get("FLEETSIM", "build/fleetsim"))
BASE = os.path.abspath("tests/data/fleet/key_walk.yaml")
JOB_SCENARIO = os.path.abspath("scenarios/young_daly_single_cause.yaml")
TRACE = os.path.abspath("tests/data/fleet/key_walk_trace.csv")
CARBON = os.path.abspath("scenarios/carbon/solar_heavy_grid.csv")
GEMM_TABLE = os.path.abspath("scenarios/hardware/kernels/a100_pcie_gemm_simumax.csv")
ATTENTION_TABLE = os.path.abspath("scenarios/hardware/kernels/h100_sxm_attention.csv")

# Labels: they name things in reports and summaries of single jobs, and change no fleet figure.
LABELS = {
    "description": "a one-line description for people reading the file",
    "accelerator.name": "the accelerator's name, for reports",
    "failures.causes.<name>.category": "a cause's category, which a replay's summary groups by; a fleet reports "
                                       "its losses by cause name",
}

# Keys whose values differ from the defaults only where this small fleet cannot show it: the walk
# checks that they change the resolved scenario (--dump-resolved) instead.
RESOLVED_ONLY = {
    "network.preset": "llama3's fabric is the defaults' but for its pods (3,072 GPUs at 1:7), wider than any job "
                      "here",
}

# The trace the trace keys act on: no preset, every column mapped but duration and nodes (a job's
# work is then end - start, and its GPUs the gpu column).
TRACE_MAPPING = {"id": "id", "user": "team", "submit": "submitted", "start": "started", "end": "ended",
                 "gpus": "gpu", "state": "status", "priority": "prio"}


def trace_context(leave_out=()):
    sets = [f"workload.trace.file={TRACE}", "workload.trace.preset=none"]
    return sets + [f"workload.trace.columns.{k}={v}" for k, v in TRACE_MAPPING.items() if k not in leave_out]


KERNELS = ["accelerator.gemm.max_efficiency=0.8"]  # kernel times by shape (docs/models/kernels-and-memory.md)
# The 8B layout needs 46.6 GB per GPU: with dropout's masks it no longer fits in 50 GB, and it fits in
# 44 GB only with the gradients or the optimizer state sharded.
FITS_JUST = ["accelerator.memory_check=true", "accelerator.memory=50GB"]
FITS_SHARDED = ["accelerator.memory_check=true", "accelerator.memory=44GB"]
GENERATOR = ["workload.generator.preset=kalos", "workload.generator.jobs=200"]
COUNTED = ["failures.causes.counted.count=20000"]  # a count-rated cause that strikes this small cluster
QUEUE = ["scheduler.policy=priority", "scheduler.preemption=kill", "workload.jobs.burst.submit=1h",
         "workload.jobs.burst.gpus=512"]

# A key that acts only together with others: the others, set in both runs.
CONTEXT = {
    "accelerator.memory": ["accelerator.memory_check=true"],
    "accelerator.memory_reserved": ["accelerator.memory_check=true"],
    "accelerator.memory_check": ["accelerator.memory=20GB"],
    "parallelism.distributed_optimizer": FITS_SHARDED,
    "parallelism.sharded_gradients": FITS_SHARDED,
    "parallelism.sharded_weights": FITS_SHARDED,
    "model.dropout": FITS_JUST,
    "model.vocabulary": KERNELS,
    "model.ffn_hidden": KERNELS,
    "model.gated_mlp": KERNELS,
    "model.kv_heads": KERNELS,
    "accelerator.hbm_bandwidth": KERNELS,
    "accelerator.gemm.kernel_overhead": KERNELS,
    "model.experts_per_token": ["model.experts=8", "model.expert_parameters=5e9", "parallelism.ep=8"],
    "model.expert_parameters": ["model.experts=8", "model.expert_parameters=5e9", "parallelism.ep=8"],
    "parallelism.virtual_stages": ["parallelism.pp=2", "parallelism.dp=4"],
    "network.rack_oversubscription": ["run.step_model=simulated"],
    "network.torus_link_bandwidth": ["run.step_model=simulated", "network.topology=torus", "network.torus_dims=4x4x4"],
    "network.torus_hop_latency": ["run.step_model=simulated", "network.topology=torus", "network.torus_dims=4x4x4"],
    "network.pod_oversubscription": ["run.step_model=simulated", "network.pod_size=32"],
    "storage.burst_bytes": ["storage.bandwidth=20GB/s", "storage.burst_bandwidth=200GB/s", "storage.burst_bytes=50GB"],
    "checkpoint.snapshot_bandwidth": ["workload.jobs.llm.checkpoint_strategy=async"],
    "checkpoint.files": ["storage.metadata_rate=100"],
    "recovery.watchdog_timeout": ["failures.causes.hang.mtbf=20d", "failures.causes.hang.scope=job",
                                  "failures.causes.hang.detected_by=watchdog"],
    "repair.distribution": ["repair.time=8h"],
    "power.gpu.off": ["repair.time=8h"],
    "lemons.rate_multiplier": ["lemons.fraction=0.2"],
    "failures.reference_gpus": COUNTED,
    "failures.reference_window": COUNTED,
    "failures.causes.<name>.count": COUNTED,
    "failures.causes.<name>.scales_with_fleet": COUNTED,
    "workload.jobs.<name>.priority": QUEUE,
    "workload.jobs.<name>.preemptible": QUEUE,
    "workload.jobs.<name>.checkpoint_cost": ["workload.jobs.small.checkpoint_interval=1h"],
    "workload.jobs.<name>.checkpoint_size": ["workload.jobs.small.checkpoint_interval=1h"],
    "workload.jobs.<name>.deferrable": [f"power.carbon.intensity={CARBON}", "scheduler.carbon_aware=true"],
    "workload.defaults.checkpoint_cost": ["workload.defaults.checkpoint_interval=1h"],
    "workload.trace.columns.duration": trace_context(),
    "workload.trace.columns.nodes": trace_context(leave_out=("gpus",)) + ["workload.trace.columns.nodes=node"],
    "workload.trace.columns.state": trace_context() + ["workload.trace.states=ok"],
    "workload.trace.columns.priority": trace_context() + ["scheduler.policy=priority", "cluster.gpus=128",
                                                          "workload.jobs.burst.gpus=64"],
    "scheduler.backfill_depth": GENERATOR + ["workload.generator.jobs=3000"],
    "scheduler.carbon_aware": [f"power.carbon.intensity={CARBON}", "workload.jobs.burst.deferrable=12h"],
    "power.dvfs_exponent": ["power.gpu_power_limit=500W"],
    "power.carbon.start_hour": [f"power.carbon.intensity={CARBON}"],
    "power.embodied.lifetime": ["power.embodied.gpu_kg=150"],
}
for _column in ("id", "user", "submit", "start", "end", "gpus"):
    CONTEXT[f"workload.trace.columns.{_column}"] = trace_context()
for _key in ("preset", "time_unit", "states"):
    CONTEXT[f"workload.trace.{_key}"] = trace_context()
for _key in ("jobs", "window", "arrivals_per_day", "gpus", "duration", "median", "sigma", "max_duration",
             "size_duration_correlation"):
    CONTEXT[f"workload.generator.{_key}"] = GENERATOR
# A job's communication share acts where jobs slow on a shared, oversubscribed fabric.
SHARED_FABRIC = ["network.fleet_fabric=shared", "network.rack_oversubscription=4", "scheduler.placement=random"]
CONTEXT["workload.defaults.comm_fraction"] = SHARED_FABRIC
CONTEXT["workload.jobs.<name>.comm_fraction"] = SHARED_FABRIC
# Jobs that checkpoint, with no checkpoint_size of their own, store from their nodes.
CONTEXT["workload.defaults.checkpoint_size_per_gpu"] = ["workload.defaults.checkpoint_interval=1h"]
# Measured kernel tables act with kernel times by shape; fused attention's with flash attention.
FLASH = KERNELS + ["model.flash_attention=true"]
CONTEXT["accelerator.gemm.table"] = KERNELS
CONTEXT["accelerator.gemm.table_scale"] = KERNELS + [f"accelerator.gemm.table={GEMM_TABLE}"]
CONTEXT["accelerator.attention.table"] = FLASH
CONTEXT["model.attention_kernel"] = FLASH + [f"accelerator.attention.table={ATTENTION_TABLE}"]
# The costs that are not GEMMs: memory-bound kernels with kernel times by shape and an HBM
# bandwidth, the slowdown under hidden traffic with TP overlap, the send cost with a pipeline.
CP_ATTENTION = FLASH + [f"accelerator.attention.table={ATTENTION_TABLE}", "parallelism.cp=2", "parallelism.dp=4"]
CONTEXT["accelerator.attention.cp_forward_efficiency"] = CP_ATTENTION
CONTEXT["accelerator.attention.cp_backward_efficiency"] = CP_ATTENTION
CONTEXT["parallelism.cp_exchange"] = CP_ATTENTION + ["accelerator.hbm_bandwidth=2TB/s"]
# Gradient and optimizer bytes are memory: they act where the layout then no longer fits.
CONTEXT["model.gradient_bytes"] = FITS_JUST
CONTEXT["model.optimizer_bytes"] = FITS_JUST
CONTEXT["parallelism.overlap_data_parallel"] = ["run.step_model=simulated"]
CONTEXT["accelerator.hbm_efficiency"] = KERNELS + ["accelerator.hbm_bandwidth=2TB/s"]
# How the memory-bound operations are implemented: their bytes at an HBM bandwidth.
MEMORY_BOUND = KERNELS + ["accelerator.hbm_bandwidth=2TB/s"]
CONTEXT["model.rotary_fraction"] = MEMORY_BOUND
CONTEXT["model.kernels"] = MEMORY_BOUND
CONTEXT["model.norm_kernel"] = MEMORY_BOUND
CONTEXT["model.loss_kernel"] = MEMORY_BOUND + ["model.vocabulary=32000"]
CONTEXT["network.overlap_slowdown"] = ["network.tp_overlap=0.5"]
CONTEXT["network.pp_overhead"] = ["parallelism.pp=2", "parallelism.dp=4"]
CONTEXT["workload.generator.shape"] = GENERATOR + ["workload.generator.duration=weibull", "workload.generator.scale=2h"]
CONTEXT["workload.generator.scale"] = GENERATOR + ["workload.generator.duration=weibull", "workload.generator.shape=0.7"]
CONTEXT["workload.generator.hourly_weights"] = GENERATOR + ["workload.generator.arrival=trace_shaped"]
CONTEXT["workload.generator.arrival"] = GENERATOR + ["workload.generator.hourly_weights=" + ",".join(["1", "5"] * 12)]

# Values the generic rule below would not pick well (a valid one that acts, or a text).
ALTERNATE = {
    "name": "other",
    "description": "another description",
    "accelerator.name": "another accelerator",
    "failures.causes.<name>.category": "another category",
    "model.sequence_length": "4096",
    "model.global_batch_tokens": "4194304",
    "model.kv_heads": "4",
    "model.ffn_hidden": "30000",
    "model.vocabulary": "256000",
    "parallelism.tp": "4",
    "accelerator.memory": "10GB",
    "accelerator.memory_reserved": "78GB",
    "network.torus_dims": "4x4x4",
    "network.topology": "torus",
    "heterogeneous.accelerator": "A100",
    "storage.client_bandwidth": "100MB/s",
    "lemons.rate_multiplier": "50",
    "network.rack_oversubscription": "4",
    "network.pod_oversubscription": "20",  # at 4 the overlap still hides the slower DP traffic
    "workload.generator.scale": "3h",
    "workload.jobs.<name>.priority": "0",
    "power.gpu.idle": "150W",
    "power.gpu.off": "300W",
    "power.floor": "600W",
    "power.carbon.intensity": CARBON,
    "failures.causes.<name>.detected_by": "watchdog",
    "workload.jobs.<name>.tokens": "1e10",
    "workload.jobs.<name>.recovery": "requeue",
    "workload.trace.file": TRACE,
    "workload.trace.preset": "acme",
    "workload.trace.states": "ok",
    "workload.trace.columns.id": "team",
    "workload.trace.columns.user": "status",
    "workload.trace.columns.submit": "other_time",
    "workload.trace.columns.start": "submitted",
    "workload.trace.columns.end": "other_time",
    "workload.trace.columns.duration": "dur",
    "workload.trace.columns.gpus": "node",
    "workload.trace.columns.nodes": "gpu",
    "workload.trace.columns.state": "team",
    "workload.trace.columns.priority": "gpu",
    "workload.generator.preset": "helios",
    "workload.generator.hourly_weights": ",".join(["1", "3"] * 12),
    "workload.generator.gpus": "8:1,64:1",
    "scheduler.backfill_depth": "1",
    "accelerator.gemm.table": GEMM_TABLE,
    "accelerator.attention.table": ATTENTION_TABLE,
    "model.attention_kernel": "flash3",
    "accelerator.hbm_efficiency": "0.5",
    "model.gradient_bytes": "8",
    "accelerator.attention.cp_forward_efficiency": "0.5",
    "accelerator.attention.cp_backward_efficiency": "0.5",
    "network.pp_overhead": "50us",
    "parallelism.cp_exchange": "ring",
}

# Concrete names for the reference's <name> keys: a cause and a job of the fixture (or of the
# context that declares them).
CONCRETE = {
    "failures.causes.<name>.count": "counted",
    "failures.causes.<name>.scales_with_fleet": "counted",
    "workload.jobs.<name>.tokens": "small",
    "workload.jobs.<name>.checkpoint_strategy": "llm",
    "workload.jobs.<name>.deferrable": "burst",
    "workload.jobs.<name>.priority": "burst",
}
NO_UNIT_DEFAULT = {"time": "1h", "size": "1GB", "bandwidth": "10GB/s", "power": "100W", "flop rate": "100TFLOPS"}


def reference_keys():
    """(key, type, range, runs) of every row of docs/scenario-reference.md's generated table."""
    with open("docs/scenario-reference.md") as f:
        text = f.read()
    table = text[text.index("<!-- BEGIN GENERATED"):text.index("<!-- END GENERATED")]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.split(" | ")]
        if line.startswith("| `") and len(cells) >= 6:
            rows.append((cells[0].strip("|` "), cells[1], cells[3], cells[4]))
    return rows


def concrete(key):
    if "<name>" not in key:
        return key
    default = "node_fault" if key.startswith("failures.") else "small"
    return key.replace("<name>", CONCRETE.get(key, default))


def fleetsim(scenario, sets, out=None, dump=False):
    args = [FLEETSIM, "run", scenario, "--quiet"]
    args += ["--dump-resolved"] if dump else ["--out", out]
    for s in sets:
        args += ["--set", s]
    return subprocess.run(args, capture_output=True, text=True, env=dict(os.environ, FLEETSIM_CACHE_DIR="off"))


def resolved(sets):
    """The scenario's values with `sets`, from --dump-resolved: {dotted key: text}."""
    values, stack = {}, []
    for line in fleetsim(BASE, sets, dump=True).stdout.splitlines():
        m = re.match(r"^( *)([^:#]+):(?: (.*?))?(?:  #.*)?$", line)
        if m:
            stack = stack[:len(m.group(1)) // 2] + [m.group(2).strip()]
            if m.group(3):
                values[".".join(stack)] = m.group(3).strip("\"'")
    return values


def alternate(key, kind, current, valid):
    """Another valid value than `current`: the next choice, the other boolean, or a number moved
    inside its range (a zero quantity becomes a typical one)."""
    if key in ALTERNATE:
        return ALTERNATE[key]
    if kind.startswith("one of:"):
        return next(c for c in kind[len("one of:"):].split() if c != current)
    if kind == "boolean":
        return "false" if current == "true" else "true"
    high = re.search(r"<=? ([0-9.e+-]+)", valid)
    high = float(high.group(1)) if high else None
    number = re.match(r"^([0-9.eE+-]+)(.*)$", current or "")
    if kind == "integer":
        v = int(float(number.group(1))) if number else 1
        return str(v + 1 if high is None or v + 1 <= high else v - 1)
    if kind == "number":
        v = float(number.group(1)) if number else 0.0
        moved = v * 1.5 if v else 0.5
        return "%g" % (moved if high is None or moved <= high else (v + high) / 2)
    if kind in NO_UNIT_DEFAULT:
        if number and float(number.group(1)) != 0:
            return "%g%s" % (float(number.group(1)) * 2, number.group(2))
        return NO_UNIT_DEFAULT[kind]
    raise AssertionError(f"no alternate value for {key} ({kind}): add one to ALTERNATE")


def outputs(sets):
    """(exit code, the run's files as one text or its first error line)."""
    with tempfile.TemporaryDirectory() as tmp:
        p = fleetsim(BASE, sets, out=os.path.join(tmp, "out"))
        if p.returncode != 0:
            return p.returncode, (p.stderr.strip().splitlines() or [""])[0]
        text = ""
        for name in sorted(os.listdir(os.path.join(tmp, "out"))):
            with open(os.path.join(tmp, "out", name)) as f:
                body = f.read()
            text += name + "\n" + re.sub(r'"wall_time_s": [0-9.e+-]+', "", body)
        return 0, text


def walk(row):
    key, kind, valid, runs = row
    name = concrete(key)
    context = CONTEXT.get(key, [])
    values = resolved(context)
    value = alternate(key, kind, values.get(name, ""), valid)
    if key in RESOLVED_ONLY:
        return key, name, value, runs, (0, str(values)), (0, str(resolved(context + [f"{name}={value}"])))
    return key, name, value, runs, outputs(context), outputs(context + [f"{name}={value}"])


class KeyWalkTest(unittest.TestCase):
    def test_every_key_set_on_a_fleet_changes_an_output_or_is_refused(self):
        rows = reference_keys()
        self.assertGreater(len(rows), 200)
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(walk, rows))
        problems = []
        counts = {"changed": 0, "refused": 0, "label": 0, "resolved": 0}
        for key, name, value, runs, before, after in results:
            what = f"{name}={value}"
            if runs == "job":
                if after[0] != 2 or name not in after[1] or "single job's replay" not in after[1]:
                    problems.append(f"{what}: a replay-only key must be refused naming itself, got exit "
                                    f"{after[0]}: {after[1][:200]}")
                counts["refused"] += 1
            elif key in LABELS:
                if after[0] != 0:
                    problems.append(f"{what}: a label must not fail the run: {after[1]}")
                counts["label"] += 1
            elif after == before:
                problems.append(f"{what}: changed nothing (exit {after[0]}; a fleet ignores it: refuse it, or give it "
                                f"a context here that makes it act){': ' + after[1] if after[0] else ''}")
            elif after[0] not in (0, 2):
                problems.append(f"{what}: exit {after[0]}, neither a run nor a refusal: {after[1]}")
            elif after[0] == 2:
                counts["refused"] += 1
            elif key in RESOLVED_ONLY:
                counts["resolved"] += 1
            else:
                counts["changed"] += 1
        print(f"\n  {len(rows)} keys: {counts['changed']} changed an output, {counts['refused']} refused, "
              f"{counts['resolved']} changed the resolved scenario only, {counts['label']} labels", flush=True)
        self.assertEqual(problems, [], "\n".join(problems))

    def test_a_single_jobs_scenario_refuses_every_fleet_only_key(self):
        problems = []
        for key, kind, valid, runs in reference_keys():
            if runs != "fleet" or key.startswith(("workload.jobs.", "workload.trace.", "workload.generator.")):
                continue  # a job, a trace or a generator makes the scenario a fleet
            name = concrete(key)
            value = ALTERNATE.get(key) or alternate(key, kind, "", valid)
            with tempfile.TemporaryDirectory() as tmp:
                p = fleetsim(JOB_SCENARIO, [f"{name}={value}"], out=os.path.join(tmp, "out"))
            if p.returncode != 2 or name not in p.stderr or "applies to a fleet" not in p.stderr:
                problems.append(f"{name}={value}: exit {p.returncode}: {p.stderr.strip()[:200]}")
        self.assertEqual(problems, [], "\n".join(problems))


if __name__ == "__main__":
    unittest.main()

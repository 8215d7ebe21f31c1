"""Every key a scenario can give either acts or is refused (issue 42, CONVENTIONS.md 14).

For every key of docs/scenario-reference.md and every shipped scenario that does not give it, the
walk sets the key to another valid value and runs the scenario: the run must refuse it (exit 2,
naming the key) or change an output (summary.json, jobs.csv, timeline.csv, events.csv, ...). No
context is supplied: a key that needs another choice to act (a recovery policy, the simulated step,
a kernel table, a shared fabric, a generator's law) is exactly the case the run must refuse when
that choice is not made, naming the key, the choice and the value that would use it.

A key's "another valid value" is tried in a few forms (the next choice, a number doubled, then ten
times or a tenth of it) until one acts or is refused: a value the scenario's other keys make invalid
(a tensor-parallel degree that does not divide the layout) or one whose effect a model hides (a
latency under full overlap) moves on to the next; the key fails the walk only when none of them
acts and none is refused.

Run by ctest (tests/CMakeLists.txt, one test per shipped scenario) from the source tree, with
FLEETSIM set to the CLI binary; exit 1 when a key neither acts nor is refused:
  FLEETSIM=build/fleetsim python3 tests/python/key_walk.py              # every shipped scenario
  FLEETSIM=build/fleetsim python3 tests/python/key_walk.py -v scenarios/no_failures.yaml --key recovery.
"""

import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

FLEETSIM = os.path.abspath(os.environ.get("FLEETSIM", "build/fleetsim"))
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The Python module's loader (tools/python/, built beside the CLI in build/python): a refusal is a
# load error, so the walk asks the loader in this process first and spawns a run only for a scenario
# that loads. More than half of the walk's settings are refused; each run of the CLI for one cost
# about 0.1 s of process start, the whole of its time. Without the module, every setting is run.
try:
    sys.path.insert(0, os.path.join(os.path.dirname(FLEETSIM), "python"))
    from fleetsim import _native
except ImportError:
    _native = None
TRACE = os.path.join(ROOT, "tests/data/fleet/key_walk_trace.csv")
CARBON = os.path.join(ROOT, "scenarios/carbon/solar_heavy_grid.csv")
GEMM_TABLE = os.path.join(ROOT, "scenarios/hardware/kernels/a100_pcie_gemm_simumax.csv")
ATTENTION_TABLE = os.path.join(ROOT, "scenarios/hardware/kernels/h100_sxm_attention.csv")

# Every runnable scenario the project ships: the examples and the labs' (single jobs and fleets).
# The validation cases (scenarios/validation/) are one iteration each, read by `fleetsim step` and
# `reproduce`; their inputs are held apart from the calibration cases by ValidationCases tests.
# And tests/data/fleet/key_walk.yaml, a small fleet with a job declared by tokens, one that stores its
# checkpoints and jobs that recover in place: keys no shipped fleet reads.
SCENARIOS = sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.yaml")) +
                   glob.glob(os.path.join(ROOT, "scenarios", "labs", "*.yaml"))) + [
                       os.path.join(ROOT, "tests", "data", "fleet", "key_walk.yaml")]

# Labels: they name things for people reading a file or a report and change no figure. Each is
# listed with where it goes.
LABELS = {
    "description": "a one-line description for people reading the file",
    "accelerator.name": "the accelerator's name, for reports",
}

# Keys the run reads whose effect this scenario's own figures hide, with why (a key of this list
# must act elsewhere in the walk; it is counted as masked).
MASKED = {
    ("model.loss_kernel", "scenarios/llama3_405b_16k.yaml"): "the loss has a pipeline chunk of its own on the last "
    "stage (parallelism.embedding_chunks), which is not the critical stage: its cost does not reach the step",
    ("model.loss_kernel", "scenarios/llama3_recovery.yaml"): "as llama3_405b_16k",
    ("model.loss_kernel", "scenarios/fleet_shared_fabric.yaml"): "as llama3_405b_16k",
    ("scheduler.backfill_depth", "scenarios/fleet_carbon_aware.yaml"): "at most a handful of jobs ever wait, fewer "
    "than any depth tried",
    ("scheduler.backfill_depth", "tests/data/fleet/key_walk.yaml"): "at most a handful of jobs ever wait",
    # A job that stores its checkpoints (checkpoint_size) takes as long as its transfers take: its cost is
    # only the scheduler's estimate, for reservations behind it and checkpoint-then-preempt, neither of
    # which this fleet's jobs meet.
    ("workload.jobs.<name>.checkpoint_cost", "tests/data/fleet/key_walk.yaml"): "llm stores its checkpoints",
    ("workload.defaults.checkpoint_cost", "tests/data/fleet/key_walk.yaml"): "llm, the job that takes it, stores "
    "its checkpoints",
    # network.preset llama3 sets 3,072-GPU pods (and the 1:7 between them, which a fleet's isolated fabric
    # does not read): the placement reads the pods, but these clusters fit in one.
    ("network.preset", "scenarios/fleet_carbon_aware.yaml"): "1,536 GPUs: one 3,072-GPU pod",
    ("network.preset", "scenarios/fleet_kalos_sizing.yaml"): "1,024 GPUs: one 3,072-GPU pod",
    ("network.preset", "scenarios/fleet_kalos_trace.yaml"): "256 GPUs: one 3,072-GPU pod",
    ("network.preset", "scenarios/labs/scheduler.yaml"): "1,536 GPUs: one 3,072-GPU pod",
}

# Values the generic rule below would not pick well (a text, or a value that is valid anywhere).
ALTERNATE = {
    "name": ["other"],
    "description": ["another description"],
    "accelerator.name": ["another accelerator"],
    "heterogeneous.accelerator": ["A100"],
    "failures.causes.<name>.category": ["another category"],
    "network.torus_dims": ["4x4x4"],
    "power.carbon.intensity": [CARBON],
    "workload.trace.file": [TRACE],
    "workload.trace.columns.id": ["team"],
    "workload.trace.columns.user": ["status"],
    "workload.trace.columns.submit": ["other_time"],
    "workload.trace.columns.start": ["submitted"],
    "workload.trace.columns.end": ["other_time"],
    "workload.trace.columns.duration": ["dur"],
    "workload.trace.columns.gpus": ["node"],
    "workload.trace.columns.nodes": ["gpu"],
    "workload.trace.columns.state": ["team"],
    "workload.trace.columns.priority": ["gpu"],
    "workload.trace.states": ["ok"],
    "workload.generator.hourly_weights": [",".join(["1", "3"] * 12)],
    "workload.generator.gpus": ["8:1,64:1"],
    "accelerator.gemm.table": [GEMM_TABLE],
    "accelerator.attention.table": [ATTENTION_TABLE],
    "model.attention_kernel": ["flash3", "flash2"],
}

def reference_keys():
    """(key, type, valid range, runs) of every row of docs/scenario-reference.md's generated table."""
    with open(os.path.join(ROOT, "docs/scenario-reference.md")) as f:
        text = f.read()
    table = text[text.index("<!-- BEGIN GENERATED"):text.index("<!-- END GENERATED")]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.split(" | ")]
        if line.startswith("| `") and len(cells) >= 6:
            rows.append((cells[0].strip("|` "), cells[1], cells[3], cells[4]))
    return rows


def fleetsim(args, cache):
    env = dict(os.environ, FLEETSIM_CACHE_DIR=cache)
    return subprocess.run([FLEETSIM, *args], capture_output=True, text=True, env=env, cwd=ROOT)


def resolved(scenario, cache):
    """{dotted key: (text, given)} of the scenario's resolved values (--dump-resolved): given is
    False for a default."""
    p = fleetsim(["run", scenario, "--dump-resolved"], cache)
    if p.returncode != 0:
        raise AssertionError(f"{scenario}: --dump-resolved failed: {p.stderr}")
    values, stack = {}, []
    for line in p.stdout.splitlines():
        m = re.match(r"^( *)([^:#]+):(?: (.*?))?(?:  # (.*))?$", line)
        if m:
            stack = stack[:len(m.group(1)) // 2] + [m.group(2).strip()]
            if m.group(3) is not None:
                note = m.group(4) or ""
                values[".".join(stack)] = (m.group(3).strip("\"'"), note != "default" and not note.startswith("preset"))
    return values


def names_under(values, prefix):
    names = []
    for key in values:
        if key.startswith(prefix):
            name = key[len(prefix):].split(".")[0]
            if name not in names:
                names.append(name)
    return names


def concrete(key, values):
    """The key with its <name> replaced by an entry the scenario has (its first cause, its first
    job), or by a new entry "walk" when it has none."""
    if "<name>" not in key:
        return key
    prefix = key[:key.index("<name>")]
    names = names_under(values, prefix)
    return key.replace("<name>", names[0] if names else "walk")


def number_forms(text):
    m = re.match(r"^([0-9.eE+-]+)(.*)$", text or "")
    if not m:
        return None, ""
    try:
        return float(m.group(1)), m.group(2)
    except ValueError:
        return None, ""


# Values for a quantity the scenario leaves at 0 or unset: a typical one first, then far apart.
FRESH = {"time": ["1h", "1s", "30d"], "size": ["1GB", "1TB", "1MB"], "bandwidth": ["10GB/s", "100MB/s", "10TB/s"],
         "power": ["600W", "100W", "50W"], "flop rate": ["100TFLOPS", "2000TFLOPS"]}


def candidates(key, kind, current, valid):
    """Other valid values than `current`, the likeliest to act first: the next choice, or a number
    doubled, then moved an order of magnitude either way."""
    if key in ALTERNATE:
        return [v for v in ALTERNATE[key] if v != current]
    if kind.startswith("one of:"):
        return [c for c in kind[len("one of:"):].split() if c != current]
    if kind == "boolean":
        return ["false" if current == "true" else "true"]
    low = re.search(r">(=?) ([0-9.e+-]+)", valid)
    high = re.search(r"<= ([0-9.e+-]+)", valid)
    low_v = float(low.group(2)) if low and kind in ("integer", "number") else None
    high_v = float(high.group(1)) if high and kind in ("integer", "number") else None

    def inside(x):
        return (low_v is None or x > low_v or (low.group(1) == "=" and x == low_v)) and (high_v is None or x <= high_v)

    v, unit = number_forms(current)
    out = []

    def keep(forms, fmt):
        for x in forms:
            if x != v and inside(x) and fmt(x) not in out:
                out.append(fmt(x))

    if kind == "integer":
        v = int(v) if v is not None else 0
        keep((v * 2, v + 1, v - 1, v * 10, v // 2, 1, 2), str)
        return out
    if kind == "number":
        v = v if v is not None else 0.0
        forms = (v * 2, v / 2, v * 10, v / 10, v * 1.5) if v else (0.5, 10, 1000, 0.1, 1)
        keep(forms + (((v + high_v) / 2,) if high_v is not None else ()), lambda x: "%g" % x)
        return out
    if kind in FRESH:
        if v:
            return ["%g%s" % (v * f, unit) for f in (2, 10, 0.1)]
        return FRESH[kind]
    raise AssertionError(f"no alternate value for {key} ({kind}): add one to ALTERNATE")


def load_errors(scenario, sets):
    """The loader's errors for the scenario with these --set values, as the CLI prints them ("" when
    it loads, None without the module)."""
    if _native is None:
        return None
    return "\n".join((f"{f}:{line}:{col}" if line > 0 else f) + f": error: {message}"
                     for f, line, col, message in _native.check(scenario, sets, False))


def outputs(scenario, sets, cache, seed=None):
    """(exit code, the run's files as one text, or its stderr)."""
    refused = load_errors(scenario, sets) if sets else None
    if refused:
        return 2, refused
    with tempfile.TemporaryDirectory() as tmp:
        args = ["run", scenario, "--quiet", "--out", os.path.join(tmp, "out")]
        if seed is not None:
            args += ["--seed", str(seed)]
        for s in sets:
            args += ["--set", s]
        p = fleetsim(args, cache)
        if p.returncode != 0:
            return p.returncode, p.stderr.strip()
        text = ""
        root = os.path.join(tmp, "out")
        for folder, dirs, files in sorted(os.walk(root)):
            dirs.sort()
            for name in sorted(files):
                with open(os.path.join(folder, name)) as f:
                    body = f.read()
                text += os.path.relpath(os.path.join(folder, name), root) + "\n"
                text += re.sub(r'"wall_time_s": [0-9.e+-]+', "", body)
        return 0, text


def refused_for_it(text, name, value):
    """A refusal the key caused: its message names the key or its value, or a key the value left
    unused (a cause's own repair time leaves repair.time unread)."""
    return name in text or f"'{value}'" in text or (os.sep in value and value in text) or " is not used: " in text


def walk_one(scenario, base, values, row, cache, bases):
    """(verdict, detail): verdict is changed, refused, label, masked or a problem's text."""
    key, kind, valid, _ = row
    name = concrete(key, values)
    current = values.get(name, ("", False))[0]
    tried, last = [], ""
    for value in candidates(key, kind, current, valid)[:6]:
        code, text = outputs(scenario, [f"{name}={value}"], cache)
        tried.append(value)
        if code == 2 and refused_for_it(text, name, value):
            return "refused", f"{name}={value}: {text.splitlines()[0]}"
        if code == 0 and text != base:
            return ("label" if key in LABELS else "changed"), f"{name}={value}"
        if code not in (0, 2):
            return f"{name}={value}: exit {code}, neither a run nor a refusal: {text[:300]}", ""
        last = f"refused without naming the key or its value: {text.splitlines()[0][:200]}" if code == 2 else ""
    if not last and tried:
        # Read, but nothing it acts on happened at this seed (a failure cause that struck no job): the
        # first values again at other seeds, against the scenario at those seeds.
        for value in tried[:3]:
            for seed in range(2, 7):
                if (scenario, seed) not in bases:
                    bases[(scenario, seed)] = outputs(scenario, [], cache, seed)
                if outputs(scenario, [f"{name}={value}"], cache, seed) != bases[(scenario, seed)]:
                    return ("label" if key in LABELS else "changed"), f"{name}={value} (seed {seed})"
        last = "changed nothing (seeds 1-6)"
    if key in LABELS:
        return "label", name
    if (key, os.path.relpath(scenario, ROOT)) in MASKED:
        return "masked", f"{name}: {MASKED[(key, os.path.relpath(scenario, ROOT))]}"
    return f"{name}={'|'.join(tried)}: {last}", ""


def walk_scenario(scenario, rows, cache, pool):
    values = resolved(scenario, cache)
    code, base = outputs(scenario, [], cache)
    if code != 0:
        raise AssertionError(f"{scenario}: the scenario itself fails: {base}")
    fleet = any(k.startswith(("workload.jobs.", "workload.trace.file", "workload.generator.")) and given
                for k, (_, given) in values.items())
    todo = []
    for row in rows:
        name = concrete(row[0], values)
        if values.get(name, ("", False))[1]:
            continue  # the scenario gives it
        if row[0].startswith(("workload.jobs.", "workload.trace.", "workload.generator.")) and not fleet:
            continue  # a job, a trace or a generator would make a single job's scenario a fleet
        if "<name>" in row[0] and not names_under(values, row[0][:row[0].index("<name>")]):
            continue  # no cause or job to set it on: a new one needs its other keys (a rate, its work)
        todo.append(row)
    bases = {}  # (scenario, seed) -> its outputs at that seed, for the keys that need other seeds
    results = list(pool.map(lambda r: (r[0], walk_one(scenario, base, values, r, cache, bases)), todo))
    return results


def run_walk(scenarios, rows, jobs, verbose):
    problems, counts = [], {}
    cache_root = os.environ.get("FLEETSIM_CACHE_DIR", "")
    with tempfile.TemporaryDirectory() as own_cache, ThreadPoolExecutor(jobs) as pool:
        # The tests' shared step cache when there is one (a step varied here is simulated once for all
        # the scenarios that share it), else a cache of the walk's own.
        cache = cache_root if cache_root and cache_root != "off" else own_cache
        for scenario in scenarios:
            rel = os.path.relpath(scenario, ROOT)
            for key, (verdict, detail) in walk_scenario(scenario, rows, cache, pool):
                if verdict in ("changed", "refused", "label", "masked"):
                    counts[verdict] = counts.get(verdict, 0) + 1
                    if verbose:
                        print(f"  {rel}: {verdict}: {detail}", flush=True)
                else:
                    problems.append(f"{rel}: {verdict}")
    return problems, counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scenario", nargs="*", help="the scenarios to walk (default: every shipped one)")
    parser.add_argument("--key", action="append", help="walk only the keys starting with these")
    parser.add_argument("-j", type=int, default=os.cpu_count() or 2, help="runs at once")
    parser.add_argument("-v", action="store_true", help="print every key's verdict")
    args = parser.parse_args()
    rows = [r for r in reference_keys() if not args.key or any(r[0].startswith(k) for k in args.key)]
    if len(rows) < 200 and not args.key:
        sys.exit(f"key_walk: only {len(rows)} keys in docs/scenario-reference.md")
    scenarios = [os.path.abspath(s) for s in args.scenario] or SCENARIOS
    problems, counts = run_walk(scenarios, rows, args.j, args.v)
    print(f"{len(rows)} keys on {len(scenarios)} scenario(s): " +
          ", ".join(f"{n} {k}" for k, n in sorted(counts.items())), flush=True)
    for p in problems:
        print("PROBLEM " + p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

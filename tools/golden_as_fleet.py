#!/usr/bin/env python3
"""Every single-job golden scenario, run as a one-job fleet whose job is replayed, gives the golden
outputs of its replay (issue 30: the replay and a fleet's replayed job are the same job).

For each golden of a single job (tests/golden/<name>/seed-<s>/files.txt lists events.csv), the
scenario runs with the golden's own arguments plus
    --set workload.jobs.job.runtime=replay --set cluster.gpus=<job GPUs + spare nodes' GPUs>
and the replayed job's timeline.csv and events.csv (jobs/job/) must hash as the golden's, its
summary.json equal the golden's but for the wall time.

    python3 tools/golden_as_fleet.py [NAME ...]      exit 1 naming what differs

FLEETSIM (default build/fleetsim) is the binary.
"""
import hashlib
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
FLEETSIM = os.environ.get("FLEETSIM", str(ROOT / "build" / "fleetsim"))


def variants():
    out = {}
    for line in (ROOT / "tests/golden/variants.txt").read_text().splitlines():
        words = shlex.split(line, comments=True)
        if words:
            out[words[0]] = (words[1], [words[2]], words[3:])
    return out


def goldens(names):
    var = variants()
    for d in sorted((ROOT / "tests/golden").iterdir()):
        if not d.is_dir() or (names and d.name not in names):
            continue
        for seed_dir in sorted(d.glob("seed-*")):
            files = (seed_dir / "files.txt").read_text()
            if "events.csv" not in files:
                continue  # a fleet's golden
            seed = seed_dir.name.split("-", 1)[1]
            scenario, _, extra = var.get(d.name, (d.name, None, []))
            yield d.name, f"scenarios/{scenario}.yaml", seed, extra, seed_dir


def run(args):
    return subprocess.run([FLEETSIM, *args], cwd=ROOT, capture_output=True, text=True)


class MergingLoader(yaml.SafeLoader):
    """--dump-resolved writes keys in the parameter table's order, so a section may appear twice:
    its keys are merged."""


def _merged_mapping(loader, node):
    out = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        value = loader.construct_object(value_node, deep=True)
        if isinstance(out.get(key), dict) and isinstance(value, dict):
            out[key].update(value)
        else:
            out[key] = value
    return out


MergingLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _merged_mapping)


def one_job_cluster(scenario, seed, extra):
    r = run(["run", scenario, "--seed", seed, *extra, "--dump-resolved"])
    if r.returncode != 0:
        raise RuntimeError(r.stdout + r.stderr)
    s = yaml.load(r.stdout, Loader=MergingLoader)
    p = s["parallelism"]
    gpus = p["tp"] * p["cp"] * p["pp"] * p["dp"]
    return gpus + int(s["spares"]["nodes"]) * int(s["cluster"]["gpus_per_node"])


def main(names):
    problems, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, scenario, seed, extra, golden in goldens(names):
            out = pathlib.Path(tmp) / f"{name}-{seed}"
            gpus = one_job_cluster(scenario, seed, extra)
            r = run(["run", scenario, "--seed", seed, *extra, "--set", "workload.jobs.job.runtime=replay",
                     "--set", f"cluster.gpus={gpus}", "--quiet", "--out", str(out)])
            what = f"{name} seed {seed}"
            if r.returncode != 0:
                problems.append(f"{what}: the one-job fleet failed (exit {r.returncode}): {r.stdout}{r.stderr}")
                continue
            job = out / "jobs" / "job"
            for line in (golden / "files.txt").read_text().splitlines():
                digest, file = line.split()[:2]
                got = hashlib.sha256((job / file).read_bytes()).hexdigest()
                if got != digest:
                    problems.append(f"{what}: {file} differs from the replay's golden")
            summary = json.loads((job / "summary.json").read_text())
            summary["wall_time_s"] = 0
            if summary != json.loads((golden / "summary.json").read_text()):
                problems.append(f"{what}: summary.json differs from the replay's golden")
            checked += 1
    for p in problems:
        print("golden-as-fleet: " + p)
    print(f"golden-as-fleet: {checked} single-job goldens run as one-job fleets, {len(problems)} problem(s)")
    return 1 if problems or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""fleetsim from Python: replay ML training runs on a simulated fleet.

The same simulator as the ``fleetsim`` command line, driven from a notebook::

    import fleetsim
    r = fleetsim.run("scenarios/llama3_405b_16k.yaml", seed=1)
    r["ettr"]            # the summary, as a dict (summary.json; fleetsim.summary names its keys)
    r.timeline           # pandas DataFrame: one row per state interval (timeline.csv)
    r.events             # pandas DataFrame: failures, checkpoints, recoveries (events.csv)

    fleetsim.step("scenarios/llama3_405b_16k.yaml")["mfu"]
    fleetsim.compare("scenarios/llama3_405b_16k.yaml",
                     vary={"checkpoint.interval": ["15min", "30min", "60min"]}, seeds=4)
    fleetsim.collective("allreduce", "ring", ranks=256, size="64MB")["simulated_s"]
    fleetsim.describe()  # every scenario parameter

Every call that simulates runs in a forked child process (SimGrid allows one simulation per
process), so a notebook can call again and again. A scenario with errors raises
:class:`ScenarioError`, which carries the file, line and message of each error.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from . import summary

__all__ = [
    "run",
    "step",
    "compare",
    "collective",
    "sweep",
    "describe",
    "metrics",
    "scenario_path",
    "summary",
    "RunResult",
    "ScenarioError",
    "SimulationError",
    "Diagnostic",
    "DEFAULT_SCENARIO",
]

#: The scenario the CLI replays when given none: Llama 3 405B on 16,384 GPUs.
DEFAULT_SCENARIO = "scenarios/llama3_405b_16k.yaml"

PathLike = Union[str, "os.PathLike[str]"]
Settings = Optional[Mapping[str, Any]]


@dataclass(frozen=True)
class Diagnostic:
    """One error in a scenario: where it is and what is wrong."""

    file: str
    line: int
    column: int
    message: str
    context: str = ""  # what the CLI was loading: "point spares.nodes=8 of sweep.yaml", "" for the scenario

    def __str__(self) -> str:
        where = self.file
        if self.line > 0:
            where += f":{self.line}"
            if self.column > 0:
                where += f":{self.column}"
        return f"{where}: error: {self.message}"


class ScenarioError(ValueError):
    """A scenario (or a ``set=`` override) that fleetsim rejects.

    ``file``, ``line``, ``column`` and ``message`` are those of the first error;
    ``diagnostics`` lists every error, as the CLI prints them (exit code 2 there).
    """

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        first = self.diagnostics[0]
        self.file: str = first.file
        self.line: int = first.line
        self.column: int = first.column
        self.message: str = first.message
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class SimulationError(RuntimeError):
    """A fleetsim command that did not succeed (exit code 1 or 3 at the CLI)."""

    def __init__(self, exit_code: int, stderr: str):
        self.exit_code = exit_code
        self.stderr = stderr
        super().__init__(f"fleetsim exited with {exit_code}: {stderr.strip()}")


class RunResult(dict):
    """A replay's summary (the keys of summary.json: ``ettr``, ``goodput_ratio``,
    ``interruptions``, ``time_breakdown_s``...) with its traces as DataFrames:
    ``timeline`` (timeline.csv), ``events`` (events.csv), ``storage`` (storage.csv) and,
    for a fleet of jobs under a scheduler, ``jobs`` (jobs.csv: one row per job, its wait,
    GPUs, interruptions, ETTR and energy; empty for a single job), and ``out``, the directory the files were kept in (None when they were not kept).
    A fleet's jobs declared ``runtime: replay`` are in ``replayed``, by job id: each a
    RunResult of its own, what a replay of that job gives (docs/models/fleet.md)."""

    timeline: "Any"
    events: "Any"
    storage: "Any"
    jobs: "Any"
    out: Optional[str]
    replayed: Dict[str, "RunResult"]

    def metric(self, name: str) -> float:
        """The value of an output metric (``fleetsim.metrics()`` lists them: ``ettr``,
        ``restart_h``, ``wait_p99_h``...) in this run, read from its summary exactly as
        ``compare`` and ``sweep`` read it; NaN when the run has none (a fleet's metric on a single
        job). Raises ValueError for an unknown name."""
        return _native.metric_value(name, json.dumps(self))


def scenario_path(path: PathLike) -> str:
    """The file fleetsim reads for `path`: `path` itself when it exists from the working
    directory, else the same path in fleetsim's source tree (so that a notebook in docs/labs/
    can name "scenarios/..."), else `path` unchanged."""
    return _native.source_path(os.fspath(path))


_resolve = scenario_path


def _value_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _overrides(settings: Settings) -> List[str]:
    if not settings:
        return []
    return [f"{k}={_value_text(v)}" for k, v in settings.items()]


def _check(scenario: str, sets: List[str], list_unused: bool = False) -> None:
    found = [Diagnostic(*d) for d in _native.check(scenario, sets, list_unused)]
    if found:
        raise ScenarioError(found)


def _cli(args: List[str]) -> Tuple[int, str, str, List[Diagnostic]]:
    """Runs one command line in a forked child: its exit code, standard output and error, and the
    diagnostics it reported, as the native side wrote them (one JSON object per line: no text is
    parsed here)."""
    with tempfile.TemporaryDirectory(prefix="fleetsim-") as tmp:
        out, err = os.path.join(tmp, "stdout"), os.path.join(tmp, "stderr")
        diags = os.path.join(tmp, "diagnostics.jsonl")
        code = _native.cli(args, out, err, diags)
        with open(out, encoding="utf-8", errors="replace") as f:
            stdout = f.read()
        with open(err, encoding="utf-8", errors="replace") as f:
            stderr = f.read()
        found: List[Diagnostic] = []
        if os.path.exists(diags):
            with open(diags, encoding="utf-8") as f:
                for line in f:
                    d = json.loads(line)
                    found.append(Diagnostic(d["file"], d["line"], d["column"], d["message"], d["context"]))
    return code, stdout, stderr, found


def _command(args: List[str]) -> str:
    code, stdout, stderr, diagnostics = _cli(args)
    if code == 2 and diagnostics:
        raise ScenarioError(diagnostics)
    if code != 0:
        raise SimulationError(code, stderr or stdout)
    return stdout


def _set_args(sets: List[str]) -> List[str]:
    args: List[str] = []
    for s in sets:
        args += ["--set", s]
    return args


class _OutputDir:
    """The directory a command writes into: `out` kept, or a temporary one removed after."""

    def __init__(self, out: Optional[PathLike]):
        self.keep = out is not None
        self.path = os.fspath(out) if out is not None else tempfile.mkdtemp(prefix="fleetsim-out-")
        if not self.keep:
            os.rmdir(self.path)  # the command creates it

    def __enter__(self) -> "_OutputDir":
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self.keep:
            shutil.rmtree(self.path, ignore_errors=True)


def _read_csv(path: str) -> "Any":
    import pandas as pd

    return pd.read_csv(path) if os.path.exists(path) else pd.DataFrame()


def run(
    scenario: PathLike = DEFAULT_SCENARIO,
    seed: Optional[int] = None,
    set: Settings = None,
    out: Optional[PathLike] = None,
) -> RunResult:
    """Replay one training run, as ``fleetsim run SCENARIO --seed SEED --set K=V ...``.

    Args:
        scenario: the scenario file (a path from the working directory, or from fleetsim's
            source tree, e.g. ``"scenarios/llama3_405b_16k.yaml"``).
        seed: the replica's seed; None takes the scenario's ``seed``.
        set: overrides, ``{"checkpoint.interval": "30min", "recovery.policy": "hot_spare"}``,
            exactly as ``--set`` takes them (values with units are strings).
        out: keep the run's files (summary.json, timeline.csv, events.csv, storage.csv,
            jobs.csv) in this directory; by default they are read and removed.

    Returns:
        A :class:`RunResult`: the summary as a dict, with ``timeline``, ``events``,
        ``storage`` and ``jobs`` (fleet scenarios) as pandas DataFrames. The same seed gives the same numbers as the CLI.

    Raises:
        ScenarioError: the scenario or an override is invalid (file, line and message).
        SimulationError: the run failed.
    """
    path = _resolve(scenario)
    sets = _overrides(set)
    _check(path, sets)
    with _OutputDir(out) as d:
        args = ["run", path, "--quiet", "--out", d.path] + _set_args(sets)
        if seed is not None:
            args += ["--seed", str(int(seed))]
        _command(args)
        result = _read_result(d.path, d.keep)
    return result


def _read_result(path: str, keep: bool) -> RunResult:
    """The run's files in `path` as a RunResult, its replayed jobs' (``jobs/<id>/``) included."""
    with open(os.path.join(path, "summary.json"), encoding="utf-8") as f:
        result = RunResult(json.load(f))
    result.timeline = _read_csv(os.path.join(path, "timeline.csv"))
    result.events = _read_csv(os.path.join(path, "events.csv"))
    result.storage = _read_csv(os.path.join(path, "storage.csv"))
    result.jobs = _read_csv(os.path.join(path, "jobs.csv"))
    result.out = path if keep else None
    result.replayed = {
        job[summary.REPLAYED_JOB_ID]: _read_result(os.path.join(path, job[summary.REPLAYED_JOB_OUTPUTS]), keep)
        for job in result.get(summary.REPLAYED_JOBS, [])
    }
    return result


def step(scenario: PathLike = DEFAULT_SCENARIO, set: Settings = None, analytic: bool = False) -> Dict[str, Any]:
    """One training iteration, as ``fleetsim step SCENARIO``: simulated on the scenario's fabric,
    or by the analytic fleet law with ``analytic=True``.

    Returns step.json as a dict: ``step_time_s``, the fleet-law terms (``compute_s``,
    ``comm_exposed_s``, ``sync_s``, ``bubble_s``...), ``mfu``, ``hfu``, ``binding_term`` (the C3
    term that binds: compute, communication or coordination) and the layout.

    Raises:
        ScenarioError: the scenario or an override is invalid.
        SimulationError: the step failed.
    """
    path = _resolve(scenario)
    sets = _overrides(set)
    if analytic:
        sets.append("run.step_model=analytic")
    _check(path, sets)
    with _OutputDir(None) as d:
        _command(["step", path, "--quiet", "--out", d.path] + _set_args(sets))
        with open(os.path.join(d.path, "step.json"), encoding="utf-8") as f:
            return json.load(f)


def collective(
    op: str = "allreduce",
    algo: str = "ring",
    ranks: Optional[int] = None,
    size: Union[str, int] = "1GB",
    scenario: PathLike = DEFAULT_SCENARIO,
    groups: int = 1,
    mode: str = "reduced",
    set: Settings = None,
) -> Dict[str, Any]:
    """One collective on the scenario's simulated fabric, as ``fleetsim collective``.

    Args:
        op: allreduce, reducescatter, allgather, broadcast, alltoall or sendrecv.
        algo: ring, tree, doubletree, hierarchical or direct.
        ranks: ranks taking part (default: the scenario's data-parallel degree).
        size: bytes per rank, a string with a unit ("64MB") or a number of bytes.
        groups: that many copies at once (member i of group g on GPU i*groups+g), as the
            data-parallel groups of a layout run side by side.
        mode: "reduced" (one group's flows, the others by symmetry) or "full" (every flow).

    Returns:
        collective.json as a dict: ``simulated_s``, the alpha-beta ``predicted_s``,
        ``bus_bandwidth_bytes_per_s``, ``wire_bytes`` by link class and the fabric's description.
    """
    path = _resolve(scenario)
    sets = _overrides(set)
    _check(path, sets)
    size_text = f"{int(size)}B" if isinstance(size, (int, float)) else str(size)
    with _OutputDir(None) as d:
        args = ["collective", path, "--quiet", "--out", d.path, "--op", op, "--algo", algo,
                "--size", size_text, "--groups", str(int(groups)), "--mode", mode] + _set_args(sets)
        if ranks is not None:
            args += ["--ranks", str(int(ranks))]
        code, stdout, stderr, diagnostics = _cli(args)
        if code == 2 and diagnostics:
            raise ScenarioError(diagnostics)
        if code == 2:  # a bad option: the command line's own message
            raise ValueError(stderr.strip().removeprefix("fleetsim: error: "))
        if code != 0:
            raise SimulationError(code, stderr or stdout)
        with open(os.path.join(d.path, "collective.json"), encoding="utf-8") as f:
            return json.load(f)


def compare(
    scenario: PathLike = DEFAULT_SCENARIO,
    vary: Optional[Mapping[str, Sequence[Any]]] = None,
    seeds: int = 1,
    set: Settings = None,
    out: Optional[PathLike] = None,
) -> "Any":
    """Run the scenario at every combination of the varied values, the same seeds at every
    point, as ``fleetsim compare SCENARIO --vary K=V1,V2 --seeds N``.

    Args:
        vary: ``{"recovery.policy": ["restart", "hot_spare"], "checkpoint.interval": ["30min", "1h"]}``.
        seeds: replicas per point.

    Returns:
        compare.csv as a pandas DataFrame: one row per point (and seed), with ETTR, goodput,
        interruptions and where the time went.
    """
    if not vary:
        raise ValueError("compare needs vary={key: [values...]}")
    path = _resolve(scenario)
    sets = _overrides(set)
    _check(path, sets, list_unused=True)  # the points' choices decide what is read (the CLI says where not)
    with _OutputDir(out) as d:
        args = ["compare", path, "--quiet", "--out", d.path, "--seeds", str(int(seeds))] + _set_args(sets)
        for key, values in vary.items():
            args += ["--vary", f"{key}=" + ",".join(_value_text(v) for v in values)]
        _command(args)
        return _read_csv(os.path.join(d.path, "compare.csv"))


def sweep(
    sweep_file: PathLike,
    replicas: Optional[int] = None,
    jobs: Optional[int] = None,
    out: Optional[PathLike] = None,
) -> "Any":
    """A Monte Carlo sweep, as ``fleetsim sweep SWEEP.yaml``: every point of the sweep file's
    grid, ``replicas`` seeds each, ``jobs`` processes at once.

    Returns:
        results.csv as a pandas DataFrame: per point and metric, the mean, standard deviation,
        95% confidence interval, p5 and p95. With ``out``, replicas.csv and every run's files are
        kept there.
    """
    path = _resolve(sweep_file)
    with _OutputDir(out) as d:
        args = ["sweep", path, "--quiet", "--out", d.path]
        if replicas is not None:
            args += ["--replicas", str(int(replicas))]
        if jobs is not None:
            args += ["-j", str(int(jobs))]
        code, stdout, stderr, diagnostics = _cli(args)
        if code == 2:
            raise ScenarioError(diagnostics or [Diagnostic(path, 0, 0, stderr.strip())])
        if code != 0:
            raise SimulationError(code, stderr or stdout)
        return _read_csv(os.path.join(d.path, "results.csv"))


def describe() -> "Any":
    """Every scenario parameter, as ``fleetsim describe`` prints them: a pandas DataFrame with
    columns key, type, default, range, applies_to (``both``, ``job``: a single job's replay only, or
    ``fleet``: a scenario with a workload only) and description."""
    import pandas as pd

    return pd.DataFrame(_native.parameters(), columns=["key", "type", "default", "range", "applies_to", "description"])


def metrics() -> "Any":
    """Every output metric, as compare.csv and a sweep's results.csv name them: a pandas DataFrame
    with columns name, unit and description (the built-ins, then any registered ones).
    ``RunResult.metric(name)`` reads one from a run."""
    import pandas as pd

    return pd.DataFrame(_native.metrics(), columns=["name", "unit", "description"])

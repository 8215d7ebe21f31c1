#!/usr/bin/env python3
"""summary.json against its schema (docs/summary.schema.json; issue 43, "outputs declared once").

The schema is generated from the declaration in models/summary/ by ``fleetsim schema``:
- SchemaFile: the file in docs/ is what the binary generates, and the names the Python package
  types (tools/python/fleetsim/summary.py) are declared there;
- Goldens: every golden summary (tests/golden/*/seed-*/summary.json) conforms, and summaries with a
  missing key, a wrong type or an undeclared key do not (the check can fail);
- FreshRuns: runs that write the optional objects no golden has (a token target, the memory check)
  conform too.

Run: FLEETSIM=build/fleetsim python3 tests/python/summary_schema_test.py -v [CLASS]
Standard library only: the package's validator is loaded from its source file, without _native.
"""

from __future__ import annotations

import copy
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLEETSIM = os.environ.get("FLEETSIM", os.path.join(ROOT, "build", "fleetsim"))
SCHEMA_FILE = os.path.join(ROOT, "docs", "summary.schema.json")


def _load_summary_module():
    spec = importlib.util.spec_from_file_location(
        "fleetsim_summary", os.path.join(ROOT, "tools", "python", "fleetsim", "summary.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


summary = _load_summary_module()


def _schema():
    with open(SCHEMA_FILE, encoding="utf-8") as f:
        return json.load(f)


def _golden(name):
    with open(os.path.join(ROOT, "tests", "golden", name, "seed-1", "summary.json"), encoding="utf-8") as f:
        return json.load(f)


class SchemaFile(unittest.TestCase):
    def test_docs_schema_is_what_the_declaration_generates(self):
        generated = subprocess.run([FLEETSIM, "schema"], capture_output=True, text=True, check=True).stdout
        with open(SCHEMA_FILE, encoding="utf-8") as f:
            self.assertEqual(f.read(), generated,
                             "docs/summary.schema.json is stale: regenerate it with "
                             "build/fleetsim schema > docs/summary.schema.json")

    def test_it_describes_both_kinds_of_summary(self):
        s = _schema()
        self.assertEqual(s["$schema"], "https://json-schema.org/draft/2020-12/schema")
        self.assertEqual(sorted(s["$defs"]), ["fleet", "run"])
        self.assertIn("ettr", s["$defs"]["run"]["required"])
        self.assertEqual(s["$defs"]["fleet"]["properties"]["kind"]["const"], "fleet")

    def test_the_python_names_are_declared(self):
        s = _schema()
        for name, (kind, parents) in summary.DECLARED_AT.items():
            node = s["$defs"][kind]
            for p in parents:
                node = node["properties"][p]
                node = node.get("items", node)
            self.assertIn(name, node["properties"], f"fleetsim.summary names '{name}', which {kind} does not declare")


class Goldens(unittest.TestCase):
    def test_every_golden_summary_conforms(self):
        schema = _schema()
        files = sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*", "seed-*", "summary.json")))
        self.assertGreaterEqual(len(files), 39)
        kinds = set()
        for path in files:
            with open(path, encoding="utf-8") as f:
                s = json.load(f)
            kinds.add(summary.is_fleet(s))
            self.assertEqual(summary.validate(s, schema), [], os.path.relpath(path, ROOT))
        self.assertEqual(kinds, {True, False}, "the goldens hold both kinds of summary")

    def assertRejected(self, s, expected):
        errors = summary.validate(s, _schema())
        self.assertTrue(any(expected in e for e in errors), f"expected '{expected}' in {errors}")

    def test_a_missing_key_is_rejected(self):
        run = _golden("llama3_405b_16k")
        del run["ettr"]
        self.assertRejected(run, '/: the required key "ettr" is missing')
        fleet = _golden("fleet_kalos_30d")
        del fleet["jobs"]["finished"]
        self.assertRejected(fleet, '/jobs: the required key "finished" is missing')
        fleet = _golden("fleet_kalos_30d")
        del fleet["wait_s_by_gpus"]["513+"]  # a map whose keys the declaration names
        self.assertRejected(fleet, '/wait_s_by_gpus: the required key "513+" is missing')

    def test_a_wrong_type_is_rejected(self):
        run = _golden("llama3_405b_16k")
        run["seed"] = "1"
        self.assertRejected(run, "/seed: \"1\" is not of type integer")
        run = _golden("llama3_405b_16k")
        run["interruptions"]["unexpected"] = 1.5
        self.assertRejected(run, "/interruptions/unexpected: 1.5 is not of type integer")
        run = _golden("llama3_405b_16k")
        run["ettr"] = None
        self.assertRejected(run, "/ettr: null is not of type number")
        run = _golden("llama3_405b_16k")
        run["interruptions"]["by_cause"]["faulty_gpu"] = "many"
        self.assertRejected(run, "/interruptions/by_cause/faulty_gpu")
        fleet = _golden("fleet_kalos_30d")
        fleet["kind"] = "job"
        self.assertRejected(fleet, '/kind: "job" is not "fleet"')

    def test_an_undeclared_key_is_rejected(self):
        run = _golden("llama3_405b_16k")
        run["etr"] = 0.9
        self.assertRejected(run, '/: the key "etr" is not declared')
        run = _golden("llama3_405b_16k")
        run["checkpoints"]["interval"] = 600
        self.assertRejected(run, '/checkpoints: the key "interval" is not declared')

    def test_what_the_declaration_allows_is_accepted(self):
        run = _golden("llama3_405b_16k")
        run["checkpoints"]["job_mtbf_s"] = None  # nullable
        run["recovery"]["a_policys_counter"] = 3  # a policy's own counters
        run["metrics"] = {"registered": None, "other": 1.5}
        self.assertEqual(summary.validate(run, _schema()), [])


class FreshRuns(unittest.TestCase):
    def run_fleetsim(self, scenario, *sets):
        with tempfile.TemporaryDirectory(prefix="fleetsim-schema-") as out:
            args = [FLEETSIM, "run", os.path.join(ROOT, "scenarios", scenario), "--quiet", "--out", out]
            for s in sets:
                args += ["--set", s]
            subprocess.run(args, check=True, capture_output=True, text=True)
            with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
                return json.load(f)

    def test_optional_objects_conform(self):
        s = self.run_fleetsim("moe_mixtral_8x7b_1k.yaml", "run.duration=1d", "run.token_target=1e9",
                              "accelerator.memory_check=true")
        for key in ("token_target", "memory"):
            self.assertIn(key, s)
        self.assertEqual(summary.validate(s, _schema()), [])


if __name__ == "__main__":
    sys.exit(unittest.main())

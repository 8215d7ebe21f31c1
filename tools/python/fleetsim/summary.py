"""summary.json's names and schema, for Python.

The summary is declared once in C++ (models/summary/); ``fleetsim schema`` generates its JSON Schema,
docs/summary.schema.json, which this package ships beside this file. The names the package reads are
typed here once, each checked against that schema by tests/python/summary_schema_test.py, and
:func:`validate` checks a summary against the schema with the standard library only (the subset of
JSON Schema 2020-12 the generated schema uses)::

    from fleetsim import summary
    summary.validate(json.load(open("out/summary.json")))   # [] when it conforms
    r[summary.ETTR]
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List, Optional

# The names the package and its users read, as (key) or (parent.key) in the schema.
KIND = "kind"  # "fleet" in a fleet's summary; absent in a single job's
FLEET = "fleet"  # ... its value
ETTR = "ettr"
GOODPUT_RATIO = "goodput_ratio"
TOKENS_TRAINED = "tokens_trained"
SEED = "seed"
SCENARIO = "scenario"
INTERRUPTIONS = "interruptions"
TIME_BREAKDOWN_S = "time_breakdown_s"
METRICS = "metrics"
WALL_TIME_S = "wall_time_s"
REPLAYED_JOBS = "replayed_jobs"  # a fleet's replayed jobs: each has ...
REPLAYED_JOB_ID = "id"  # ... its id
REPLAYED_JOB_OUTPUTS = "outputs"  # ... and its outputs' directory, relative to the summary's

#: Each name above, where the schema declares it: (definition, path of parent keys).
DECLARED_AT = {
    ETTR: ("run", []),
    GOODPUT_RATIO: ("run", []),
    TOKENS_TRAINED: ("run", []),
    SEED: ("run", []),
    SCENARIO: ("run", []),
    INTERRUPTIONS: ("run", []),
    TIME_BREAKDOWN_S: ("run", []),
    METRICS: ("run", []),
    WALL_TIME_S: ("run", []),
    KIND: ("fleet", []),
    REPLAYED_JOBS: ("fleet", []),
    REPLAYED_JOB_ID: ("fleet", [REPLAYED_JOBS]),
    REPLAYED_JOB_OUTPUTS: ("fleet", [REPLAYED_JOBS]),
}


def is_fleet(summary: Dict[str, Any]) -> bool:
    """Whether `summary` is a fleet's (its "kind" is "fleet") rather than a single job's."""
    return summary.get(KIND) == FLEET


def schema_path() -> Path:
    """The schema file: beside this module in a built package, else docs/ of the source tree."""
    here = Path(__file__).resolve().parent
    shipped = here / "summary.schema.json"
    return shipped if shipped.exists() else here.parents[2] / "docs" / "summary.schema.json"


def load_schema(path: Optional[Path] = None) -> Dict[str, Any]:
    with open(path or schema_path(), encoding="utf-8") as f:
        return json.load(f)


_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}
_KNOWN = {"$schema", "$defs", "$ref", "title", "description", "type", "const", "oneOf", "properties",
          "required", "additionalProperties", "patternProperties", "items"}


def _check(value: Any, schema: Dict[str, Any], root: Dict[str, Any], where: str, errors: List[str]) -> None:
    unknown = set(schema) - _KNOWN
    if unknown:  # a keyword this validator would silently ignore: refuse instead
        raise ValueError(f"summary schema: unsupported keyword(s) {sorted(unknown)} at {where or '/'}")
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"summary schema: unsupported $ref {ref}")
        _check(value, root["$defs"][ref[len("#/$defs/"):]], root, where, errors)
    if "oneOf" in schema:
        results = []
        for branch in schema["oneOf"]:
            found: List[str] = []
            _check(value, branch, root, where, found)
            results.append(found)
        passed = sum(1 for r in results if not r)
        if passed != 1:
            if passed == 0:  # the errors of the branch that came closest
                errors.extend(min(results, key=len))
            else:
                errors.append(f"{where or '/'}: matches {passed} of oneOf's schemas, not one")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](value) for t in types):
            errors.append(f"{where or '/'}: {json.dumps(value)[:60]} is not of type {' or '.join(types)}")
            return
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where or '/'}: {json.dumps(value)[:60]} is not {json.dumps(schema['const'])}")
    if isinstance(value, dict):
        _check_object(value, schema, root, where, errors)
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            _check(v, schema["items"], root, f"{where}/{i}", errors)


def _check_object(value: Dict[str, Any], schema: Dict[str, Any], root: Dict[str, Any], where: str,
                  errors: List[str]) -> None:
    for key in schema.get("required", []):
        if key not in value:
            errors.append(f"{where or '/'}: the required key \"{key}\" is missing")
    props = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extra = schema.get("additionalProperties", True)
    for key, v in value.items():
        at = f"{where}/{key}"
        matched = [s for p, s in patterns.items() if re.search(p, key)]
        if key in props:
            _check(v, props[key], root, at, errors)
        for s in matched:
            _check(v, s, root, at, errors)
        if key in props or matched:
            continue
        if extra is False:
            errors.append(f"{where or '/'}: the key \"{key}\" is not declared")
        elif isinstance(extra, dict):
            _check(v, extra, root, at, errors)


def validate(summary: Any, schema: Optional[Dict[str, Any]] = None) -> List[str]:
    """What is wrong with `summary` against the schema (docs/summary.schema.json by default), one
    line each as "/path/to/key: what"; [] when it conforms."""
    schema = schema if schema is not None else load_schema()
    errors: List[str] = []
    _check(summary, schema, schema, "", errors)
    return errors

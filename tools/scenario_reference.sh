#!/usr/bin/env bash
# Regenerates the parameter table of docs/scenario-reference.md from `fleetsim describe --markdown`
# (the Docs.ScenarioReferenceMatchesDescribe test compares them). FLEETSIM: the binary (build/fleetsim).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fleetsim="${FLEETSIM:-$root/build/fleetsim}"
doc="$root/docs/scenario-reference.md"
table="$(mktemp)"
trap 'rm -f "$table" "$doc.tmp"' EXIT
"$fleetsim" describe --markdown > "$table"
awk -v table="$table" '
  /^<!-- BEGIN GENERATED: build\/fleetsim describe --markdown -->$/ { print; while ((getline line < table) > 0) print line; skip = 1; next }
  /^<!-- END GENERATED -->$/ { skip = 0 }
  !skip { print }
' "$doc" > "$doc.tmp"
mv "$doc.tmp" "$doc"
echo "scenario-reference: $(grep -c '^| `' "$doc") parameters"

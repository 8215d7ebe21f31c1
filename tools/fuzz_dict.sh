#!/usr/bin/env bash
# Regenerates the key lines of tests/fuzz/fleetsim.dict (the libFuzzer dictionary of tools/fuzz.sh):
# every scenario key of the parameter table, dotted and split into its segments, and every value of
# a "one of" key. They are read from `fleetsim describe --markdown` (FLEETSIM=build/fleetsim), or,
# without a binary, from docs/scenario-reference.md, which a test keeps equal to that output. Only
# the block between "# BEGIN GENERATED" and "# END GENERATED" changes; the rest (YAML syntax, units,
# numbers, sweep keys, metric names, the fixtures' paths, CSV headers) is written by hand.
#   bash tools/fuzz_dict.sh            rewrite the block
#   bash tools/fuzz_dict.sh --check    exit 1 if the block is stale
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dict="$root/tests/fuzz/fleetsim.dict"
table="$(mktemp)"
trap 'rm -f "$table" "$dict.tmp"' EXIT
if [ -n "${FLEETSIM:-}" ]; then
  "$FLEETSIM" describe --markdown > "$table"
else
  cp "$root/docs/scenario-reference.md" "$table"
fi
# Rows look like: | `workload.trace.preset` | one of: acme helios philly none | acme |  | ... |
block="$(awk -F'|' '
  /^\| `/ {
    key = $2; gsub(/[ `]/, "", key); keys[key] = 1
    n = split(key, seg, "."); for (i = 1; i <= n; i++) words[seg[i]] = 1
    type = $3
    if (type ~ /one of:/) { sub(/.*one of: */, "", type); m = split(type, v, " "); for (i = 1; i <= m; i++) words[v[i]] = 1 }
  }
  END { for (k in keys) print "\"" k "\""; for (w in words) print "\"" w "\"" }' "$table" | LC_ALL=C sort -u)"
[ -n "$block" ] || { echo "fuzz_dict: no parameter rows found" >&2; exit 1; }
awk -v block="$block" '
  /^# BEGIN GENERATED/ { print; print block; skip = 1; next }
  /^# END GENERATED/ { skip = 0 }
  !skip { print }' "$dict" > "$dict.tmp"
if [ "${1:-}" = --check ]; then
  cmp -s "$dict" "$dict.tmp" || { echo "fuzz_dict: $dict is stale: run bash tools/fuzz_dict.sh" >&2; exit 1; }
  exit 0
fi
mv "$dict.tmp" "$dict"
echo "fuzz_dict: $(printf '%s\n' "$block" | wc -l) generated entries"

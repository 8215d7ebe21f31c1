#!/usr/bin/env bash
# Golden outputs: every shipped scenario (scenarios/*.yaml) at two seeds, run by the fleetsim binary,
# against what tests/golden/ records of it:
#   tests/golden/<scenario>/seed-<N>/summary.json  the summary, wall_time_s set to 0 (the only value
#                                                   that is not a function of scenario and seed)
#   tests/golden/<scenario>/seed-<N>/files.txt      SHA-256 and row count of timeline.csv, events.csv
#                                                   (or jobs.csv, for a fleet) and storage.csv
#                                                   (megabytes each: their hashes, not their text)
#
#   bash tools/golden.sh check  [SCENARIO ...]   exit 1, saying what differs, if any output moved
#   bash tools/golden.sh update [SCENARIO ...]   rewrite the golden files, printing what changed
#
# Beyond the shipped scenarios, tests/golden/variants.txt names variants of them that reach code the
# scenarios alone do not (the other recovery policies, stragglers and drains, every failure scope,
# mixed generations), one per line: NAME SCENARIO SEED [--set KEY=VALUE ...]; they run at their seed.
#
# SCENARIO is a name under scenarios/ (llama3_405b_16k) or a variant's NAME; none = all. FLEETSIM (default
# build/fleetsim) is the binary. A change of results must be on purpose: regenerate with `update`,
# read what it prints, and say in the commit why the outputs moved.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fleetsim="${FLEETSIM:-$root/build/fleetsim}"
seeds=(1 7)
mode="${1:-}"
case "$mode" in
  check|update) shift ;;
  *) echo "usage: bash tools/golden.sh check|update [SCENARIO ...]" >&2; exit 2 ;;
esac
[ -x "$fleetsim" ] || { echo "golden: no fleetsim binary at $fleetsim (build first: bash tools/setup.sh)" >&2; exit 2; }
names=("$@")
declare -A variant_line=()
while read -r vname rest; do
  case "$vname" in ''|'#'*) continue ;; esac
  variant_line[$vname]="$rest"
done < tests/golden/variants.txt
if [ ${#names[@]} -eq 0 ]; then
  for f in scenarios/*.yaml; do names+=("$(basename "$f" .yaml)"); done
  while read -r vname rest; do
    case "$vname" in ''|'#'*) continue ;; esac
    names+=("$vname")
  done < tests/golden/variants.txt
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The record of one run's outputs in $1, written to $2.
record() {
  local out="$1" dest="$2"
  mkdir -p "$dest"
  sed -E 's/^( *"wall_time_s": ).*/\10/' "$out/summary.json" > "$dest/summary.json"
  for f in timeline.csv events.csv jobs.csv storage.csv; do
    [ -f "$out/$f" ] || continue  # a fleet writes jobs.csv, a single-job replay events.csv
    printf '%s  %s  %s rows\n' "$(sha256sum < "$out/$f" | cut -d' ' -f1)" "$f" "$(($(wc -l < "$out/$f") - 1))"
  done > "$dest/files.txt"
}

status=0
for name in "${names[@]}"; do
  extra=()
  run_seeds=("${seeds[@]}")
  if [ -n "${variant_line[$name]:-}" ]; then
    read -r -a words <<< "${variant_line[$name]}"
    scenario="scenarios/${words[0]}.yaml"
    run_seeds=("${words[1]}")
    extra=("${words[@]:2}")
  else
    scenario="scenarios/$name.yaml"
  fi
  [ -f "$scenario" ] || { echo "golden: no scenario or variant '$name'" >&2; exit 2; }
  for seed in "${run_seeds[@]}"; do
    out="$work/$name-$seed"
    if ! "$fleetsim" run "$scenario" --seed "$seed" --out "$out" --quiet "${extra[@]}"; then
      echo "golden: $scenario seed $seed: fleetsim run failed" >&2
      status=1
      continue
    fi
    golden="tests/golden/$name/seed-$seed"
    record "$out" "$work/record-$name-$seed"
    fresh="$work/record-$name-$seed"
    if [ -f "$golden/summary.json" ] && cmp -s "$golden/summary.json" "$fresh/summary.json" &&
       cmp -s "$golden/files.txt" "$fresh/files.txt"; then
      echo "golden: $name seed $seed: unchanged"
      continue
    fi
    if [ ! -f "$golden/summary.json" ]; then
      echo "golden: $name seed $seed: no golden record yet"
    else
      echo "golden: $name seed $seed: CHANGED"
      diff -u "$golden/summary.json" "$fresh/summary.json" | sed -n '3,$p' | grep -E '^[-+]' | sed 's/^/    summary.json /' || true
      diff "$golden/files.txt" "$fresh/files.txt" | grep -E '^[<>]' | sed -e 's/^</    was/' -e 's/^>/    now/' || true
    fi
    if [ "$mode" = update ]; then
      mkdir -p "$golden"
      cp "$fresh/summary.json" "$fresh/files.txt" "$golden/"
      echo "    updated $golden"
    else
      status=1
    fi
  done
done
exit $status

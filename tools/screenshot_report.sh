#!/usr/bin/env bash
# Renders a report with headless Chromium into a PNG.
#   tools/screenshot_report.sh DIR OUT.png [WIDTHxHEIGHT [SECTION]]
# DIR is a run's or a sweep's output directory: its report.html is made first if it is missing
# (build/fleetsim report DIR). The default size is 1280x2200; the page is cut at HEIGHT. With
# SECTION (the id of a heading, e.g. energy), the page starts at that heading: a copy of it whose
# style hides everything before.
set -euo pipefail

if [ $# -lt 2 ] || [ $# -gt 4 ]; then
  echo "usage: $0 DIR OUT.png [WIDTHxHEIGHT [SECTION]]" >&2
  exit 2
fi
dir="$1"
out="$2"
size="${3:-1280x2200}"
section="${4:-}"
if ! [[ "$size" =~ ^[0-9]+x[0-9]+$ ]]; then
  echo "$0: error: size '$size' is not WIDTHxHEIGHT, e.g. 1280x2200" >&2
  exit 2
fi
command -v chromium >/dev/null || { echo "$0: error: chromium is missing: run bash tools/setup.sh" >&2; exit 1; }

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fleetsim="${FLEETSIM_BUILD:-$root/build}/fleetsim"
if [ ! -f "$dir/report.html" ]; then
  "$fleetsim" report "$dir" --quiet
fi

html="$(cd "$dir" && pwd)/report.html"
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
log="$profile/chromium.log"
if [ -n "$section" ]; then
  if ! [[ "$section" =~ ^[a-z][a-z0-9-]*$ ]] || ! grep -q "<h2 id=\"$section\">" "$html"; then
    echo "$0: error: $html has no section with the id '$section'" >&2
    exit 2
  fi
  sed "s|<style>|<style>main>*:not(#$section):not(#$section ~ *){display:none}|" "$html" >"$profile/report.html"
  html="$profile/report.html"
fi
if ! timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-color-profile=srgb \
    --user-data-dir="$profile" --screenshot="$(realpath -m "$out")" --window-size="${size/x/,}" \
    --enable-logging=stderr --v=0 "file://$html" >/dev/null 2>"$log"; then
  cat "$log" >&2
  echo "$0: error: chromium failed" >&2
  exit 1
fi
echo "$out: $(stat -c %s "$out") bytes"

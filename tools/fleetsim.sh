#!/usr/bin/env bash
# Installs what the CLI needs, builds it (the CLI and `import fleetsim`, not the tests), then runs
# fleetsim with the given arguments from the repository root. With no arguments it replays the default scenario, Llama 3 405B on 16,384 GPUs:
#   bash tools/fleetsim.sh run
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
fleetsim_install_deps
fleetsim_build_cli
cd "$FLEETSIM_ROOT"
if [ $# -eq 0 ]; then
  set -- run
fi
exec "$FLEETSIM_BUILD/fleetsim" "$@"

# Sourced by tools/test_sanitized.sh and tools/fuzz.sh: how the sanitizers run (docs/hardening.md).
# Options already in the environment win.
FLEETSIM_ROOT="${FLEETSIM_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
fleetsim_supp() { [ -f "$FLEETSIM_ROOT/tools/sanitizers/$1.supp" ] && echo ":suppressions=$FLEETSIM_ROOT/tools/sanitizers/$1.supp"; true; }
# detect_stack_use_after_return=0: SimGrid switches actor stacks itself (raw contexts), which ASan's
# fake stacks cannot follow. abort_on_error=1: a report ends the process with SIGABRT, never exit 0.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_stack_use_after_return=0:abort_on_error=1$(fleetsim_supp asan)}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1$(fleetsim_supp ubsan)}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-$(fleetsim_supp lsan | cut -c2-)}"

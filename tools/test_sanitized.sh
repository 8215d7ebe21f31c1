#!/usr/bin/env bash
# The sanitized tier alone: bash tools/test.sh sanitized [CTEST ARGS] (docs/testing.md).
exec bash "$(dirname "${BASH_SOURCE[0]}")/test.sh" sanitized "$@"

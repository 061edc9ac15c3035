#!/usr/bin/env bash
# scratch-run.sh COMMAND [ARGS...]: runs COMMAND with TMPDIR set to a folder of its own (odds-test-run-*),
# so every scratch folder it and its children make (stores, stacks, each test's servers and files) lands
# there, and removes that folder when COMMAND ends, however it ended: passed, failed or interrupted.
# KEEP_TEST_DATA=1 keeps it, with every process's log, for a post-mortem, and prints where.
# Exits with COMMAND's status.
set -euo pipefail
scratch="$(mktemp -d -t odds-test-run-XXXXXX)"
finish() {
  if [[ -n ${KEEP_TEST_DATA:-} ]]; then echo "kept the run's scratch folders in $scratch"; else rm -rf "$scratch"; fi
}
trap finish EXIT
TMPDIR="$scratch" "$@"

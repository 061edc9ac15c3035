#!/usr/bin/env bash
# npm test: lint (buf, eslint, prettier), then unit, service (real FerretDB + redis-server)
# and end-to-end (the whole stack as real processes) tests. Safe beside a running dev stack:
# tests use their own data folders and free ports.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash deploy/local/prepare.sh
bash deploy/local/prepare-test-tools.sh
npm run lint --silent
results="$(mktemp -t odds-jest-XXXXXX.json)"
# Every scratch folder of the run (the stores, the stacks, each test's own servers and files) is
# made under one folder, removed when the run ends however it ended; KEEP_TEST_DATA=1 keeps it,
# with every process's log, for a post-mortem. Jest keeps its transform cache outside it.
scratch="$(mktemp -d -t odds-test-run-XXXXXX)"
jest_cache="$(dirname "$scratch")/odds-jest-cache"
finish() {
  rm -f "$results"
  if [[ -n ${KEEP_TEST_DATA:-} ]]; then echo "kept the run's scratch folders in $scratch"; else rm -rf "$scratch"; fi
}
trap finish EXIT
status=0
TMPDIR="$scratch" npx jest --cacheDirectory="$jest_cache" --json --outputFile="$results" "$@" || status=$?
# One plain closing line, whatever reads the output: "tests: N passed, N failed".
node -e '
const text = require("node:fs").readFileSync(process.argv[1], "utf8");
if (!text.trim()) process.stdout.write("tests: none reported (Jest stopped before running them; see above)\n");
else {
  const r = JSON.parse(text);
  process.stdout.write(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed\n`);
}' "$results" || true
exit "$status"

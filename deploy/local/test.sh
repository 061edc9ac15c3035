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
trap 'rm -f "$results"' EXIT
status=0
# Every scratch folder of the run lands in one folder, removed when Jest ends however it ended
# (scratch-run.sh; KEEP_TEST_DATA=1 keeps it). Jest's transform cache stays outside it, shared by runs.
bash deploy/local/scratch-run.sh npx jest --cacheDirectory="$(dirname "$results")/odds-jest-cache" \
  --json --outputFile="$results" "$@" || status=$?
# One plain closing line, whatever reads the output: "tests: N passed, N failed".
node -e '
const text = require("node:fs").readFileSync(process.argv[1], "utf8");
if (!text.trim()) process.stdout.write("tests: none reported (Jest stopped before running them; see above)\n");
else {
  const r = JSON.parse(text);
  process.stdout.write(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed\n`);
}' "$results" || true
exit "$status"

#!/usr/bin/env bash
# npm test: lint (buf, eslint, prettier), then unit, service (real FerretDB + redis-server)
# and end-to-end (the whole stack as real processes) tests. Safe beside a running dev stack:
# tests use their own data folders and free ports.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash deploy/local/prepare.sh
npm run lint --silent
npx jest "$@"

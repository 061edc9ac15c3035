#!/usr/bin/env bash
# Everything a fresh clone needs before it can run: npm dependencies, redis-server,
# the embedded FerretDB program and the TypeScript build (generated contracts included).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi
bash deploy/local/ensure-redis.sh
bash deploy/local/ensure-chromium.sh
bash deploy/local/build-ferretdb.sh
npm run build --silent

#!/usr/bin/env bash
# What running the stack needs (npm start, npm run bench): npm dependencies, redis-server,
# the embedded FerretDB program and the TypeScript build (generated contracts included).
# The test tools (Chromium, Helm, the offline validators) are prepared by prepare-test-tools.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source deploy/local/steps.sh
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  step "installing npm packages (npm ci)" "1 minute" npm ci --no-audit --no-fund
fi
bash deploy/local/ensure-redis.sh
bash deploy/local/build-ferretdb.sh
step "building TypeScript and the generated contracts" "40 s" npm run build --silent

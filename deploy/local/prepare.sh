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
# Deployment checks (test/deploy): Helm and the Envoy config validator, from the Go module proxy.
helm_version=v3.22.0
if [[ "$(cat .tools/bin/.helm-version 2>/dev/null)" != "$helm_version" || ! -x .tools/bin/helm ]]; then
  echo "building helm $helm_version into .tools/bin (first build takes about 3 minutes)..."
  GOBIN="$PWD/.tools/bin" go install "helm.sh/helm/v3/cmd/helm@$helm_version"
  echo "$helm_version" >.tools/bin/.helm-version
fi
validator=.tools/bin/envoy-validate
if [[ ! -x $validator || deploy/envoy/validate/main.go -nt $validator || deploy/envoy/validate/go.sum -nt $validator ]]; then
  echo "building the Envoy config validator (go-control-plane) into .tools/bin..."
  (cd deploy/envoy/validate && go build -trimpath -o ../../../$validator .)
fi
npm run build --silent

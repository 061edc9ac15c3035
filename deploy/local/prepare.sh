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
# Envoy config check (go-control-plane) and strict Kubernetes decoding (k8s.io/api).
for check in deploy/envoy/validate:envoy-validate test/deploy/kube-strict:kube-strict; do
  src=${check%%:*} bin=$PWD/.tools/bin/${check##*:}
  if [[ ! -x $bin || $src/main.go -nt $bin || $src/go.sum -nt $bin ]]; then
    echo "building $bin from $src..."
    (cd "$src" && go build -buildvcs=false -trimpath -o "$bin" .)
  fi
done
npm run build --silent

#!/usr/bin/env bash
# Helm, built from the Go module proxy into .tools/bin (no release binaries can be downloaded
# here); skipped when this version is there. Used by the offline chart checks (npm test) and by
# the local cluster (npm run test:cluster).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source deploy/local/steps.sh
helm_version=v3.22.0
if [[ "$(cat .tools/bin/.helm-version 2>/dev/null)" != "$helm_version" || ! -x .tools/bin/helm ]]; then
  step "building helm $helm_version into .tools/bin from the Go module proxy" "3 minutes" \
    env GOBIN="$PWD/.tools/bin" go install "helm.sh/helm/v3/cmd/helm@$helm_version"
  echo "$helm_version" >.tools/bin/.helm-version
fi

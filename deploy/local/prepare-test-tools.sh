#!/usr/bin/env bash
# What only the tests need, on top of prepare.sh: Chromium for the docs page test, Helm plus the
# Envoy and strict-Kubernetes validators for the offline deployment checks (test/deploy), and
# pyarrow (from PyPI, in .tools/python) as the independent reader of the v1 Parquet history files.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source deploy/local/steps.sh
bash deploy/local/ensure-chromium.sh
bash deploy/local/build-helm.sh
# Envoy config check (go-control-plane) and strict Kubernetes decoding (k8s.io/api).
for check in deploy/envoy/validate:envoy-validate test/deploy/kube-strict:kube-strict; do
  src=${check%%:*} bin=$PWD/.tools/bin/${check##*:}
  if [[ ! -x $bin || $src/main.go -nt $bin || $src/go.sum -nt $bin ]]; then
    step "building $bin from $src" "1 minute" bash -c "cd '$src' && go build -buildvcs=false -trimpath -o '$bin' ."
  fi
done
pyarrow_version=21.0.0
if [[ "$(.tools/python/bin/python -c 'import pyarrow; print(pyarrow.__version__)' 2>/dev/null)" != "$pyarrow_version" ]]; then
  step "installing pyarrow $pyarrow_version into .tools/python from PyPI" "1 minute" \
    bash -c "python3 -m venv .tools/python && .tools/python/bin/pip install --quiet 'pyarrow==$pyarrow_version'"
fi

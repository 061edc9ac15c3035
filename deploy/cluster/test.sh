#!/usr/bin/env bash
# npm run test:cluster: the chart installed for real. Builds what is missing (Kubernetes and
# CoreDNS from the Go module proxy, the images on a debootstrapped base), starts a single-node
# cluster, installs the chart with values-local.yaml, waits for every Deployment, runs
# `helm test`, the e2e contract checks through a port-forward and the cluster checks
# (test/cluster: rolling update under load, killed pods, the archiver CronJob), then uninstalls
# and stops everything, on failure too. Needs root. Timings: see README ("Local Kubernetes cluster").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"
started=$SECONDS
step() { log "[$((SECONDS - started))s] $*"; }

((EUID == 0)) || die "the local cluster runs kubelet, containerd and dockerd: run as root"
step "host packages"
bash "$here/ensure-host.sh"
step "project preparation (npm ci, FerretDB program, TypeScript build, Helm)"
bash "$ROOT/deploy/local/prepare.sh"
bash "$ROOT/deploy/local/build-helm.sh"
need helm "built by deploy/local/build-helm.sh into .tools/bin"
step "Kubernetes and CoreDNS binaries"
bash "$here/build-kubernetes.sh"

diagnose() {
  log "diagnostics: pods, recent events and logs of pods that are not ready"
  kubectl get pods -o wide 2>&1 | sed 's/^/  /' >&2 || true
  kubectl get events --sort-by=.lastTimestamp 2>&1 | tail -25 | sed 's/^/  /' >&2 || true
  for pod in $(kubectl get pods -o jsonpath='{range .items[?(@.status.containerStatuses[0].ready==false)]}{.metadata.name}{" "}{end}' 2>/dev/null); do
    log "logs of $pod:"
    kubectl logs "$pod" --all-containers --tail=30 2>&1 | sed 's/^/  /' >&2 || true
  done
  for d in kubelet containerd kube-apiserver; do
    log "last lines of $d's log:"
    tail -8 "$STATE/$d.log" 2>/dev/null | sed 's/^/  /' >&2 || true
  done
}
finish() {
  local status=$?
  trap - EXIT INT TERM
  ((status == 0)) || diagnose
  step "stopping the cluster"
  bash "$here/down.sh"
  ((status == 0)) && step "test:cluster passed" || step "test:cluster FAILED (exit $status)"
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM

step "starting the cluster"
bash "$here/up.sh"
step "building and importing images"
bash "$here/images.sh"
stop_daemon dockerd # image builds are done; it holds memory the pods want

step "in-cluster stores (FerretDB, Redis)"
kubectl apply -n "$NAMESPACE" -f "$here/stores.yaml" >/dev/null
kubectl rollout status -n "$NAMESPACE" deployment/odds-mongodb deployment/odds-redis-master --timeout=300s >/dev/null

# The chart as Helm loads it offline: its optional bitnami dependencies (disabled here) are
# stubbed, as in the offline chart tests.
chart="$STATE/chart/odds-read-api"
rm -rf "$STATE/chart" && mkdir -p "$STATE/chart"
cp -rL "$ROOT/charts/odds-read-api" "$chart"
for dep in mongodb:16.0.0 redis:21.0.0; do
  mkdir -p "$chart/charts/${dep%%:*}"
  printf 'apiVersion: v2\nname: %s\nversion: %s\n' "${dep%%:*}" "${dep##*:}" >"$chart/charts/${dep%%:*}/Chart.yaml"
done
step "helm install (values-local.yaml), waiting for every Deployment"
helm install "$RELEASE" "$chart" -n "$NAMESPACE" -f "$chart/values-local.yaml" --wait --timeout 15m >/dev/null
for deployment in $(kubectl get deployments -n "$NAMESPACE" -o name); do
  kubectl rollout status -n "$NAMESPACE" "$deployment" --timeout=300s >/dev/null
done
kubectl get deployments -n "$NAMESPACE" >&2
step "helm test"
helm test "$RELEASE" -n "$NAMESPACE" --timeout 5m --hide-notes

step "e2e contract checks through a port-forward to the edge Service, then the cluster checks"
export CLUSTER_CHART_DIR="$chart" CLUSTER_NAMESPACE="$NAMESPACE" CLUSTER_RELEASE="$RELEASE"
(cd "$ROOT" && npx jest -c test/cluster/jest.config.js --runInBand test/edge/contract.test.ts)
(cd "$ROOT" && npx jest -c test/cluster/jest.config.js --runInBand test/cluster/)

step "helm uninstall"
helm uninstall "$RELEASE" -n "$NAMESPACE" --wait --timeout 5m >/dev/null

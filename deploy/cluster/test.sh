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
# One cluster per machine (one bridge, fixed addresses, one machine-wide cache): a second run started
# meanwhile waits for the first to end (CLUSTER_LOCK_WAIT_S, 25 minutes: longer than a cold run), then
# fails naming the lock. The lock goes with this process (fd 9; daemons and collectors close it).
need flock "util-linux"
lock=/run/lock/odds-read-api-cluster.lock
mkdir -p "$(dirname "$lock")"
exec 9>"$lock"
if ! flock -n 9; then
  log "another test:cluster run holds $lock on this machine: waiting for it to end"
  flock -w "${CLUSTER_LOCK_WAIT_S:-1500}" 9 || die "another test:cluster run still holds $lock after ${CLUSTER_LOCK_WAIT_S:-1500} s"
fi
# With the lock held no other run is live, so any cluster state found now is a run's that was killed
# before its own cleanup (its EXIT trap never ran: a SIGKILL, a machine stopped mid-run). Left, it
# breaks this run: its daemons keep the addresses, and its etcd still holds the release, so
# `helm install` fails with "cannot re-use a name that is still in use". down.sh clears all of it.
if [[ -e $STATE/daemons || -d $STATE/etcd ]]; then
  log "a cluster left by a run that never stopped it: stopping it first"
  bash "$here/down.sh"
fi
step "host packages"
bash "$here/ensure-host.sh"
step "project preparation (npm ci, FerretDB program, TypeScript build, Helm)"
bash "$ROOT/deploy/local/prepare.sh"
bash "$ROOT/deploy/local/build-helm.sh"
need helm "built by deploy/local/build-helm.sh into .tools/bin"

diagnose() {
  running kube-apiserver || return 0
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
# keep_logs <dir>: while the cluster checks run, keeps what a pod replaced by the rolling update
# or a kill takes with it: every container log of the release (copied from the node as it grows,
# so an old pod's last lines survive its removal), and the watched events, pods and endpoints,
# each line time-stamped. Read it after a failure (and kept after a pass: CLUSTER_LOGS).
CLUSTER_LOGS="${CLUSTER_LOGS:-$ROOT/.local/cluster-logs/$(date -u +%Y%m%dT%H%M%SZ)}"
keep_logs() {
  local dir=$1
  mkdir -p "$dir/pods"
  log "keeping pod logs, events, pods and endpoints in $dir"
  local what
  # Each collector closes fd 9 (the machine-wide lock: a collector that outlived a killed run would hold
  # it, and refuse every later run) and ends with this run ($$) if nothing stopped it.
  for what in events pods endpointslices; do
    setsid bash -c 'kubectl get "$1" -n "$2" -o wide --watch-only --output-watch-events 2>&1 |
      while IFS= read -r line && kill -0 "$3" 2>/dev/null; do printf "%s %s\n" "$(date -u +%H:%M:%S.%3N)" "$line"; done' \
      _ "$what" "$NAMESPACE" "$$" >"$dir/$what.log" </dev/null 9>&- &
    echo $! >>"$dir/.collectors"
  done
  setsid bash -c 'while sleep 0.5 && kill -0 "$3" 2>/dev/null; do cp -a -u /var/log/pods/"$1"_* "$2/pods/" 2>/dev/null; done' \
    _ "$NAMESPACE" "$dir" "$$" </dev/null >/dev/null 2>&1 9>&- &
  echo $! >>"$dir/.collectors"
}
stop_keeping_logs() {
  local dir=$1 pid
  [[ -f $dir/.collectors ]] || return 0
  while read -r pid; do kill -TERM -- "-$pid" 2>/dev/null || true; done <"$dir/.collectors"
  rm -f "$dir/.collectors"
  cp -a -u /var/log/pods/"$NAMESPACE"_* "$dir/pods/" 2>/dev/null || true
}

images_pid=""
finish() {
  local status=$?
  trap - EXIT INT TERM
  # The image builds, when they still run beside a failed Kubernetes build.
  [[ -z $images_pid ]] || kill -TERM -- "-$images_pid" 2>/dev/null || true
  stop_keeping_logs "$CLUSTER_LOGS"
  ((status == 0)) || diagnose
  step "stopping the cluster"
  bash "$here/down.sh"
  ((status == 0)) && step "test:cluster passed" || step "test:cluster FAILED (exit $status)"
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM

# The two longest steps of a cold run side by side: the Go build of Kubernetes and CoreDNS, and the
# image builds (debootstrap, npm ci, tsc, apt-get: much of it network waits). Their own process
# group, so finish can stop them.
step "Kubernetes and CoreDNS binaries, and beside them the images"
start_dockerd
setsid bash "$here/images.sh" build &
images_pid=$!
bash "$here/build-kubernetes.sh"
wait "$images_pid" || die "building the images failed (see above)"
images_pid=""
step "starting the cluster"
bash "$here/up.sh"
step "importing the images"
bash "$here/images.sh" import
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
(cd "$ROOT" && npx jest -c test/cluster/jest.config.js --runInBand test/edge/contract.test.ts) 9>&-
keep_logs "$CLUSTER_LOGS"
(cd "$ROOT" && npx jest -c test/cluster/jest.config.js --runInBand test/cluster/) 9>&-

step "helm uninstall"
helm uninstall "$RELEASE" -n "$NAMESPACE" --wait --timeout 5m >/dev/null

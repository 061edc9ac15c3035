# Shared settings and helpers of the local-cluster scripts (sourced, never run).
# CLUSTER_CACHE: built binaries, the base image, Docker's and containerd's stores (kept between
# runs) and the state of a running cluster. The default is one folder per machine, outside any
# checkout, so every clone on the machine (CI clones afresh for each run) reuses what an earlier
# run built; the scripts run as root, hence /var/cache.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
# Resolved: the mounts down.sh must undo are listed under the real path, never a symlink's.
CLUSTER_CACHE="$(realpath -m "${CLUSTER_CACHE:-/var/cache/odds-read-api/cluster}")"
K8S_VERSION=v1.32.4
K8S_STAGING_VERSION=v0.32.4
COREDNS_VERSION=v1.12.1
KBIN="$CLUSTER_CACHE/bin"
STATE="$CLUSTER_CACHE/run"
# Pod network: one bridge whose gateway address is also the node, API server and DNS address.
POD_CIDR=10.244.0.0/16
NODE_IP=10.244.0.1
SERVICE_CIDR=10.96.0.0/16
NODE_NAME=odds-local
NAMESPACE=odds
RELEASE=odds
IMAGE_PREFIX=odds-local
# Docker's storage for the image builds. overlay2 shares layers; vfs (for a host that refuses overlay
# mounts) copies every layer in full: the first image's build stage alone took 7.8 GB that way.
DOCKER_STORAGE_DRIVER="${DOCKER_STORAGE_DRIVER:-overlay2}"
export PATH="$KBIN:$ROOT/.tools/bin:$PATH"
export KUBECONFIG="$STATE/admin.kubeconfig"
export DOCKER_HOST="unix://$STATE/docker.sock"
# Debian's docker.io CLI (a newer CLI elsewhere on PATH may want the buildx plugin).
DOCKER=/usr/bin/docker
CTR=(ctr --address "$STATE/containerd.sock" -n k8s.io)

log() { printf '[cluster %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf '[cluster] FAILED: %s\n' "$*" >&2; exit 1; }
# need <command> <what provides it>: names the missing piece instead of failing obscurely.
need() { command -v "$1" >/dev/null 2>&1 || die "missing '$1' ($2)"; }

# start_daemon <name> <command...>: runs in the background, pid in $STATE/<name>.pid, log in $STATE/<name>.log.
start_daemon() {
  local name=$1
  shift
  mkdir -p "$STATE"
  # (fd 9: test.sh's machine-wide lock, which a daemon must not hold.)
  setsid "$@" >"$STATE/$name.log" 2>&1 </dev/null 9>&- &
  echo $! >"$STATE/$name.pid"
  echo "$name" >>"$STATE/daemons"
}

running() { [[ -f $STATE/$1.pid ]] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null; }

# start_dockerd: Debian's Docker engine, for the image builds only; overlay2 storage kept in
# $CLUSTER_CACHE/docker, so a second run hits the layer cache.
start_dockerd() {
  running dockerd && return 0
  mkdir -p "$STATE"
  # dockerd creates its default bridge docker0 and its iptables chains and rules, sets the FORWARD policy to DROP,
  # and leaves all of it behind: down.sh removes them, and restores the policy, when no Docker engine ran before.
  if ! ip link show docker0 >/dev/null 2>&1; then
    touch "$STATE/docker0.ours"
    iptables -S FORWARD | sed -n 's/^-P FORWARD //p' >"$STATE/forward-policy"
  fi
  start_daemon dockerd dockerd --storage-driver="$DOCKER_STORAGE_DRIVER" --data-root "$CLUSTER_CACHE/docker" --exec-root "$STATE/docker-exec" \
    --pidfile "$STATE/dockerd-own.pid" -H "$DOCKER_HOST" --iptables=true
  wait_for 60 dockerd $DOCKER version
}

# stop_daemon <name>: SIGTERM, then SIGKILL after 15 s.
stop_daemon() {
  local pidfile="$STATE/$1.pid" pid
  [[ -f $pidfile ]] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

# wait_for <seconds> <description> <command...>: polls until the command succeeds.
wait_for() {
  local limit=$1 what=$2
  local deadline=$((SECONDS + limit))
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "timed out after ${limit}s waiting for $what"
    sleep 1
  done
}

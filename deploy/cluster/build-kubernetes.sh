#!/usr/bin/env bash
# Builds the Kubernetes components (kube-apiserver, kube-controller-manager, kube-scheduler,
# kubelet, kube-proxy, kubectl) and CoreDNS from the Go module proxy into $CLUSTER_CACHE/bin.
# No release binaries can be downloaded here, so the k8s.io/kubernetes module is built as an
# ordinary module: its vendor/ and go.work are dropped and the ./staging/src/k8s.io/X replaces
# point at the published k8s.io/X modules of the same release. About 9 minutes on two idle
# cores; skipped when the binaries of this version are already there.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need go "the Go toolchain, https://go.dev"
mkdir -p "$KBIN"
components=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
# CoreDNS, a separate module, builds beside Kubernetes (its downloads overlap the compile; on a machine
# shared with other work, two builds also get a larger share of it).
coredns_pid=""
if [[ "$(cat "$KBIN/.coredns-version" 2>/dev/null)" != "$COREDNS_VERSION" || ! -x "$KBIN/coredns" ]]; then
  log "building CoreDNS $COREDNS_VERSION from the Go module proxy..."
  (
    GOBIN="$KBIN" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
    echo "$COREDNS_VERSION" >"$KBIN/.coredns-version"
  ) &
  coredns_pid=$!
  # Stopped with this script if the Kubernetes build fails.
  trap '[[ -z $coredns_pid ]] || { pkill -TERM -P "$coredns_pid"; kill -TERM "$coredns_pid"; } 2>/dev/null || true' EXIT
fi
stamp="$KBIN/.kubernetes-version"
if [[ "$(cat "$stamp" 2>/dev/null)" != "$K8S_VERSION" ]] || ! (cd "$KBIN" && ls "${components[@]}" >/dev/null 2>&1); then
  log "building Kubernetes $K8S_VERSION from the Go module proxy (about 9 minutes on two idle cores)..."
  src_dir=$(GOSUMDB=off GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  [[ -d "$src_dir" ]] || die "could not download k8s.io/kubernetes@$K8S_VERSION from the Go module proxy"
  work="$CLUSTER_CACHE/src/kubernetes-$K8S_VERSION"
  if [[ ! -f "$work/.prepared" ]]; then
    rm -rf "$work" && mkdir -p "$(dirname "$work")"
    cp -r "$src_dir" "$work" && chmod -R u+w "$work"
    rm -rf "$work/vendor" "$work"/go.work*
    sed -i -E "s#^(\s*)(k8s\.io/[a-z0-9-]+) => \./staging/src/k8s\.io/[a-z0-9-]+#\1\2 => \2 $K8S_STAGING_VERSION#" "$work/go.mod"
    touch "$work/.prepared"
  fi
  vpkg=k8s.io/component-base/version cpkg=k8s.io/client-go/pkg/version
  ldflags="-s -w"
  for p in $vpkg $cpkg; do
    ldflags+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=32 -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  pkgs=()
  for c in "${components[@]}"; do pkgs+=("./cmd/$c"); done
  (cd "$work" && GOSUMDB=off GOFLAGS=-mod=mod CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$KBIN/" "${pkgs[@]}") \
    || die "building Kubernetes $K8S_VERSION failed (see the go output above)"
  echo "$K8S_VERSION" >"$stamp"
fi
if [[ -n $coredns_pid ]]; then
  wait "$coredns_pid" || { coredns_pid=""; die "building CoreDNS $COREDNS_VERSION failed (see the go output above)"; }
  coredns_pid=""
fi

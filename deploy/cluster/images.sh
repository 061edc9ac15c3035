#!/usr/bin/env bash
# Builds every image the local cluster runs, with Debian's Docker engine (overlay2 storage, its data
# kept in $CLUSTER_CACHE/docker so a second run hits the layer cache), and imports them into the
# cluster's containerd:
#   - a bookworm base (debootstrap --variant=minbase; no registry can be reached) carrying this
#     machine's Node.js runtime (Debian's own nodejs is 18; the project needs 20+) and its CA bundle,
#   - the six service images from deploy/docker/Dockerfile on that base, plus a second edition of
#     each (only a label differs) for the rolling update,
#   - odds-local/support (redis-server, the FerretDB program, curl: in-cluster stores and the
#     chart's helm-test pod) and the pause image, compiled from Kubernetes' pause.c.
# images.sh build: the base, service and support images (needs dockerd only: test.sh runs it beside
# the Kubernetes build). images.sh import: the pause image (needs the Kubernetes sources) and the
# import into containerd (needs the cluster: up.sh). No argument: both.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BASE="$IMAGE_PREFIX/base:bookworm-node"
SERVICES=(edge events history catalogue usage ingest)

base_image() {
  if $DOCKER image inspect "$BASE" >/dev/null 2>&1; then return; fi
  need node "Node.js 20+ on this machine: the base image carries the same runtime"
  local node_bin node_lib major rootfs="$CLUSTER_CACHE/rootfs-bookworm"
  node_bin=$(readlink -f "$(command -v node)")
  major=$(node -p 'process.versions.node.split(".")[0]')
  ((major >= 20)) || die "Node.js $major on this machine; the images need 20+"
  node_lib=$(dirname "$node_bin")/../lib/node_modules
  [[ -f $node_lib/npm/bin/npm-cli.js ]] || die "npm not found beside $node_bin (expected $node_lib/npm)"
  if [[ ! -f $rootfs/.complete ]]; then
    log "debootstrap --variant=minbase bookworm (about a minute)..."
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$CLUSTER_CACHE/debootstrap.log" 2>&1 \
      || die "debootstrap failed (see $CLUSTER_CACHE/debootstrap.log)"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    touch "$rootfs/.complete"
  fi
  log "importing the base image $BASE (bookworm + Node.js $(node -v))"
  local tmp
  tmp=$(mktemp -d)
  cp -a "$rootfs/." "$tmp/" && rm -f "$tmp/.complete"
  mkdir -p "$tmp/usr/lib/node_modules"
  cp "$node_bin" "$tmp/usr/bin/node"
  cp -r "$node_lib/npm" "$tmp/usr/lib/node_modules/"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tmp/usr/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tmp/usr/bin/npx"
  # This machine's trust store (it may reach the npm registry through a TLS-inspecting proxy).
  local ca=/etc/ssl/certs/ca-certificates.crt
  [[ -f $ca ]] || die "no CA bundle at $ca (Debian: ca-certificates)"
  mkdir -p "$tmp/etc/ssl/certs" && cp "$ca" "$tmp/etc/ssl/certs/"
  tar -C "$tmp" -c . | $DOCKER import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_EXTRA_CA_CERTS=$ca" --change 'CMD ["/bin/bash"]' - "$BASE" >/dev/null
  rm -rf "$tmp"
}

# build <tag> <context> [docker build args...]
build() {
  local tag=$1 context=$2 started=$SECONDS
  shift 2
  DOCKER_BUILDKIT=1 $DOCKER build --quiet -t "$tag" "$@" "$context" >"$STATE/build-${tag//[\/:]/_}.log" 2>&1 \
    || { tail -30 "$STATE/build-${tag//[\/:]/_}.log" >&2; die "docker build of $tag failed"; }
  log "built $tag in $((SECONDS - started)) s"
}

# Each build runs in the background; wait_all <pid...> fails if any of them failed.
wait_all() {
  local pid status=0
  for pid; do wait "$pid" || status=1; done
  return "$status"
}

# The Dockerfile names a dockerfile:1.7 frontend image, which needs a registry; the builder's
# built-in frontend already knows everything it uses (cache mounts, multi-stage), so build from
# a copy without that line.
dockerfile="$STATE/Dockerfile.offline"

# service_image <service> <edition>: edition 2 is the rolling update's target, the same build with
# one more label, so a different image.
service_image() {
  local args=(-f "$dockerfile" --build-arg NODE_IMAGE="$BASE" --build-arg SERVICE="$1")
  [[ $2 == 1 ]] || args+=(--label "org.opencontainers.image.revision=rollout-$2")
  build "$IMAGE_PREFIX/odds-$1:$2" "$ROOT" "${args[@]}"
}

support_image() {
  local support="$STATE/support-context"
  rm -rf "$support" && mkdir -p "$support"
  cp "$ROOT/deploy/local/bin/ferretdb-local" "$support/"
  cp "$(dirname "${BASH_SOURCE[0]}")/support.Dockerfile" "$support/Dockerfile"
  build "$IMAGE_PREFIX/support:1" "$support" --build-arg BASE="$BASE"
}

build_images() {
  base_image
  mkdir -p "$STATE"
  sed '/^# syntax=/d' "$ROOT/deploy/docker/Dockerfile" >"$dockerfile"
  log "building the service and support images (first build: npm ci and tsc inside Docker, several minutes)..."
  # The support image (apt-get inside: mostly network waits) beside the first service image, which
  # runs the Dockerfile's shared stages (the build, the production dependencies); the other eleven
  # service images then reuse those stages from the cache, all at once.
  local support pids=() service edition
  support_image &
  support=$!
  service_image "${SERVICES[0]}" 1 || { wait "$support"; die "docker build of the first service image failed"; }
  for service in "${SERVICES[@]}"; do
    for edition in 1 2; do
      [[ $service == "${SERVICES[0]}" && $edition == 1 ]] && continue
      service_image "$service" "$edition" &
      pids+=($!)
    done
  done
  wait_all "$support" "${pids[@]}" || die "building the images failed (see above)"
}

pause_image() {
  local pause_src pause="$STATE/pause-context"
  pause_src=$(find "$CLUSTER_CACHE/src" -path '*/build/pause/linux/pause.c' | head -1)
  [[ -n $pause_src ]] || die "pause.c not found under $CLUSTER_CACHE/src (run deploy/cluster/build-kubernetes.sh)"
  need gcc "a C compiler (Debian: gcc), for the pause image"
  rm -rf "$pause" && mkdir -p "$pause"
  gcc -Os -static -DVERSION=3.10-local -o "$pause/pause" "$pause_src" || die "compiling pause.c failed (needs gcc and libc6-dev)"
  printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$pause/Dockerfile"
  build "$IMAGE_PREFIX/pause:3.10" "$pause"
}

# Imports into containerd only what it lacks (same image ID), so a second run imports nothing.
import_images() {
  pause_image
  local images=("$IMAGE_PREFIX/pause:3.10" "$IMAGE_PREFIX/support:1") missing=() service image id have
  for service in "${SERVICES[@]}"; do images+=("$IMAGE_PREFIX/odds-$service:1" "$IMAGE_PREFIX/odds-$service:2"); done
  for image in "${images[@]}"; do
    id=$($DOCKER image inspect --format '{{.Id}}' "$image") || die "image $image is missing (run deploy/cluster/images.sh build)"
    have=$("${CTR[@]}" images ls "name==docker.io/$image" -q 2>/dev/null | head -1)
    [[ -n $have && "$(cat "$CLUSTER_CACHE/imported/${image//[\/:]/_}" 2>/dev/null)" == "$id" ]] || missing+=("$image")
  done
  if ((${#missing[@]})); then
    log "importing ${#missing[@]} images into containerd..."
    $DOCKER save "${missing[@]}" | "${CTR[@]}" images import - >/dev/null || die "ctr images import failed"
    mkdir -p "$CLUSTER_CACHE/imported"
    for image in "${missing[@]}"; do
      $DOCKER image inspect --format '{{.Id}}' "$image" >"$CLUSTER_CACHE/imported/${image//[\/:]/_}"
    done
  fi
}

case "${1:-all}" in
  build) build_images ;;
  import) import_images ;;
  all)
    build_images
    import_images
    ;;
  *) die "usage: images.sh [build|import]" ;;
esac

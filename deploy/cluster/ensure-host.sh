#!/usr/bin/env bash
# Host packages of the local cluster, from Debian: the Docker engine (image builds), debootstrap
# (the base image; no registry can be reached), etcd, containerd and the CNI plugins. Installed
# only when missing; needs root (or sudo) and an apt mirror.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
declare -A provides=(
  [dockerd]=docker.io [debootstrap]=debootstrap [etcd]=etcd-server [containerd]=containerd
  [ctr]=containerd [runc]=runc [iptables]=iptables [conntrack]=conntrack [ip]=iproute2
)
missing=()
for cmd in "${!provides[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${provides[$cmd]}")
done
[[ -x /usr/lib/cni/bridge && -x /usr/lib/cni/host-local && -x /usr/lib/cni/loopback && -x /usr/lib/cni/portmap ]] \
  || missing+=(containernetworking-plugins)
if ((${#missing[@]})); then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  log "installing from Debian: ${missing[*]}"
  command -v apt-get >/dev/null || die "missing packages ${missing[*]} and no apt-get to install them"
  sudo=""
  ((EUID == 0)) || { need sudo "root or sudo, to install ${missing[*]}"; sudo=sudo; }
  export DEBIAN_FRONTEND=noninteractive
  apt_get() { $sudo apt-get -o DPkg::Lock::Timeout=600 -y -q "$@"; }
  apt_get install --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { apt_get update >/dev/null && apt_get install --no-install-recommends "${missing[@]}"; } \
    || die "could not install ${missing[*]} with apt-get"
fi
((EUID == 0)) || die "the local cluster runs kubelet, containerd and dockerd, which need root"

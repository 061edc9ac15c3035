#!/usr/bin/env bash
# Stops everything up.sh started (in reverse order), pods included, and removes the bridge and
# the firewall rules: nothing is left running. Safe to run twice or after a failed start.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
if [[ -f $STATE/daemons ]]; then
  log "stopping the cluster..."
  # Pods first, while kubelet and containerd still run, so their processes end cleanly.
  if [[ -f $STATE/kubelet.pid ]] && kill -0 "$(cat "$STATE/kubelet.pid")" 2>/dev/null; then
    kubectl delete namespace "$NAMESPACE" --wait=true --timeout=60s >/dev/null 2>&1 || true
  fi
  mapfile -t daemons < <(tac "$STATE/daemons")
  for name in "${daemons[@]}"; do
    [[ $name == containerd ]] && continue
    stop_daemon "$name"
  done
  # Whatever containers remain (a pod that did not stop), then containerd itself.
  if [[ -S $STATE/containerd.sock ]]; then
    for task in $("${CTR[@]}" tasks ls -q 2>/dev/null); do "${CTR[@]}" tasks kill -s KILL "$task" >/dev/null 2>&1; done
    sleep 1
    for task in $("${CTR[@]}" tasks ls -q 2>/dev/null); do "${CTR[@]}" tasks delete -f "$task" >/dev/null 2>&1; done
    for c in $("${CTR[@]}" containers ls -q 2>/dev/null); do "${CTR[@]}" containers delete "$c" >/dev/null 2>&1; done
  fi
  stop_daemon containerd
  # containerd-shim processes of this cluster, if any outlived it.
  for pid in $(pgrep -f "containerd-shim.*-address $STATE/containerd.sock" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  rm -f "$STATE/daemons"
fi
# Mounts left by kubelet (secrets, emptyDirs) and containerd, deepest first.
if [[ -d $STATE ]]; then
  findmnt -rn -o TARGET | grep -F "$STATE/" | sort -r | while read -r mnt; do umount -l "$mnt" 2>/dev/null; done
  findmnt -rn -o TARGET | grep -F "$CLUSTER_CACHE/containerd/" | sort -r | while read -r mnt; do umount -l "$mnt" 2>/dev/null; done
fi
rm -rf /var/log/pods/"${NAMESPACE}"_* # container logs kubelet left behind
ip link del odds0 2>/dev/null || true
# kube-proxy's iptables chains (KUBE-*) outlive it.
[[ -x $KBIN/kube-proxy ]] && "$KBIN/kube-proxy" --cleanup >/dev/null 2>&1
# kubelet's own iptables chains (KUBE-FIREWALL and canaries) outlive it too.
for table in filter nat mangle; do
  for hook in INPUT OUTPUT; do iptables -t "$table" -D "$hook" -j KUBE-FIREWALL 2>/dev/null || true; done
  for chain in KUBE-FIREWALL KUBE-KUBELET-CANARY KUBE-PROXY-CANARY KUBE-MARK-MASQ KUBE-IPTABLES-HINT; do
    iptables -t "$table" -F "$chain" 2>/dev/null && iptables -t "$table" -X "$chain" 2>/dev/null
  done
done
if [[ -f $STATE/docker0.ours ]]; then
  ip link del docker0 2>/dev/null || true
  # Docker's rules in the built-in chains (those naming docker0 or jumping to its chains), then its chains.
  for table in filter nat; do
    iptables -t "$table" -S | grep -E '^-A [A-Z]+ .*(docker0|-j DOCKER)' | grep -v '^-A DOCKER' | sed 's/^-A /-D /' |
      while read -ra rule; do iptables -t "$table" "${rule[@]}" 2>/dev/null; done
    chains=$(iptables -t "$table" -S | sed -n 's/^-N \(DOCKER[A-Z0-9-]*\)$/\1/p')
    for chain in $chains; do iptables -t "$table" -F "$chain" 2>/dev/null; done
    for chain in $chains; do iptables -t "$table" -X "$chain" 2>/dev/null; done
  done
  [[ -s $STATE/forward-policy ]] && iptables -P FORWARD "$(cat "$STATE/forward-policy")"
  rm -f "$STATE/docker0.ours" "$STATE/forward-policy"
fi
iptables -D FORWARD -s "$POD_CIDR" -j ACCEPT 2>/dev/null || true
iptables -D FORWARD -d "$POD_CIDR" -j ACCEPT 2>/dev/null || true
# Per-run state goes; the caches (binaries, images, certificates) stay for the next run.
rm -rf "$STATE/etcd" "$STATE/kubelet" "$STATE/cni-ipam" "$STATE/containerd" "$STATE/docker-exec" "$STATE"/*.sock
exit 0

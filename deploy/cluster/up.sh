#!/usr/bin/env bash
# Starts the single-node cluster as host processes: dockerd (image builds only), containerd
# (CRI), etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubelet, kube-proxy and
# CoreDNS. Every process is recorded in $STATE (down.sh stops them all). Throwaway PKI: one CA,
# the API server's serving certificate and one admin client certificate that every component
# uses (a local test cluster, not a template for a real one).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
for cmd in dockerd containerd etcd runc iptables openssl ip; do need "$cmd" "run deploy/cluster/ensure-host.sh"; done
for bin in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl coredns; do
  [[ -x $KBIN/$bin ]] || die "missing $KBIN/$bin (run deploy/cluster/build-kubernetes.sh)"
done
running kube-apiserver && die "a cluster is running already ($STATE); stop it with deploy/cluster/down.sh"
mkdir -p "$STATE" "$CLUSTER_CACHE/pki"
pki=$CLUSTER_CACHE/pki

# ---- PKI (kept between runs)
if [[ ! -f $pki/admin.crt ]]; then
  log "creating the cluster's certificates..."
  (
    cd "$pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj /CN=odds-local-ca 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null && openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    sign() { # name subject [extensions]
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 3650 ${3:+-extfile <(printf '%s' "$3")} 2>/dev/null
    }
    sign apiserver /CN=kube-apiserver "subjectAltName=IP:$NODE_IP,IP:127.0.0.1,IP:10.96.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost
extendedKeyUsage=serverAuth"
    sign admin "/O=system:masters/CN=admin" "extendedKeyUsage=clientAuth"
  )
fi
cat >"$KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters: [{name: local, cluster: {server: "https://$NODE_IP:6443", certificate-authority: "$pki/ca.crt"}}]
users: [{name: admin, user: {client-certificate: "$pki/admin.crt", client-key: "$pki/admin.key"}}]
contexts: [{name: local, context: {cluster: local, user: admin, namespace: $NAMESPACE}}]
current-context: local
YAML

# ---- the pod network's bridge, created first so the node address exists for everything below
if ! ip link show odds0 >/dev/null 2>&1; then
  ip link add odds0 type bridge && ip addr add "$NODE_IP/16" dev odds0 && ip link set odds0 up \
    || die "cannot create the odds0 bridge (needs CAP_NET_ADMIN)"
fi
echo 1 >/proc/sys/net/ipv4/ip_forward 2>/dev/null || true
# Docker sets the FORWARD policy to DROP; pod traffic (bridged or routed) is let through.
iptables -C FORWARD -s "$POD_CIDR" -j ACCEPT 2>/dev/null || iptables -I FORWARD -s "$POD_CIDR" -j ACCEPT
iptables -C FORWARD -d "$POD_CIDR" -j ACCEPT 2>/dev/null || iptables -I FORWARD -d "$POD_CIDR" -j ACCEPT
mkdir -p "$STATE/cni"
cat >"$STATE/cni/10-odds.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "odds",
  "plugins": [
    {
      "type": "bridge", "bridge": "odds0", "isGateway": true, "ipMasq": true, "hairpinMode": true,
      "ipam": {
        "type": "host-local", "dataDir": "$STATE/cni-ipam",
        "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$NODE_IP" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
JSON

# ---- containerd (CRI) and dockerd
cat >"$STATE/containerd.toml" <<TOML
version = 2
root = "$CLUSTER_CACHE/containerd"
state = "$STATE/containerd"
[grpc]
  address = "$STATE/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/$IMAGE_PREFIX/pause:3.10"
  # Without CAP_SYS_RESOURCE runc cannot lower oom_score_adj: keep what the parent has.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$STATE/cni"
TOML
log "starting containerd and dockerd..."
running containerd || start_daemon containerd containerd --config "$STATE/containerd.toml"
wait_for 60 containerd "${CTR[@]}" version
start_dockerd

# ---- control plane
log "starting etcd and the control plane..."
start_daemon etcd etcd --data-dir "$STATE/etcd" --listen-client-urls http://127.0.0.1:23790 \
  --advertise-client-urls http://127.0.0.1:23790 --listen-peer-urls http://127.0.0.1:23800 --unsafe-no-fsync
wait_for 60 etcd curl -fsS http://127.0.0.1:23790/health
start_daemon kube-apiserver kube-apiserver --etcd-servers=http://127.0.0.1:23790 \
  --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port=6443 \
  --service-cluster-ip-range="$SERVICE_CIDR" --client-ca-file="$pki/ca.crt" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --kubelet-client-certificate="$pki/admin.crt" --kubelet-client-key="$pki/admin.key" \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --authorization-mode=Node,RBAC --anonymous-auth=false --kubelet-preferred-address-types=InternalIP
wait_for 120 kube-apiserver kubectl get --raw /readyz
start_daemon kube-controller-manager kube-controller-manager --kubeconfig="$KUBECONFIG" \
  --authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" --bind-address=127.0.0.1 \
  --service-account-private-key-file="$pki/sa.key" --root-ca-file="$pki/ca.crt" \
  --cluster-signing-cert-file="$pki/ca.crt" --cluster-signing-key-file="$pki/ca.key" --leader-elect=false
start_daemon kube-scheduler kube-scheduler --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" \
  --authorization-kubeconfig="$KUBECONFIG" --bind-address=127.0.0.1 --leader-elect=false

# ---- node
cat >"$STATE/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
readOnlyPort: 0
authentication: { anonymous: { enabled: false }, webhook: { enabled: false }, x509: { clientCAFile: "$pki/ca.crt" } }
authorization: { mode: AlwaysAllow }
containerRuntimeEndpoint: unix://$STATE/containerd.sock
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
clusterDNS: [$NODE_IP]
clusterDomain: cluster.local
resolvConf: /etc/resolv.conf
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: { memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%" }
serializeImagePulls: false
YAML
log "starting kubelet, kube-proxy and CoreDNS..."
start_daemon kubelet kubelet --config="$STATE/kubelet.yaml" --kubeconfig="$KUBECONFIG" --hostname-override="$NODE_NAME" \
  --node-ip="$NODE_IP" --root-dir="$STATE/kubelet"
cat >"$STATE/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: "$KUBECONFIG" }
hostnameOverride: $NODE_NAME
mode: iptables
clusterCIDR: $POD_CIDR
iptables: { masqueradeAll: true }
# Leave the host's conntrack sysctls alone (not writable here, and not ours to change).
conntrack: { maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s }
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
YAML
start_daemon kube-proxy kube-proxy --config="$STATE/kube-proxy.yaml"
cat >"$STATE/Corefile" <<CORE
cluster.local:53 in-addr.arpa:53 {
  bind $NODE_IP
  errors
  kubernetes cluster.local in-addr.arpa {
    kubeconfig $KUBECONFIG local
    pods insecure
  }
  cache 5
}
CORE
start_daemon coredns coredns -conf "$STATE/Corefile"
wait_for 120 "node $NODE_NAME to be Ready" kubectl wait --for=condition=Ready "node/$NODE_NAME" --timeout=5s
kubectl get namespace "$NAMESPACE" >/dev/null 2>&1 || kubectl create namespace "$NAMESPACE" >/dev/null
log "cluster up: kubectl --kubeconfig $KUBECONFIG"

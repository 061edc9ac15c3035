#!/usr/bin/env bash
# Makes sure Debian's redis-server is installed; installs it when we can, else says how.
set -euo pipefail
command -v redis-server >/dev/null && exit 0
if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null; then
  source "$(dirname "${BASH_SOURCE[0]}")/steps.sh"
  export DEBIAN_FRONTEND=noninteractive
  install_redis() { apt-get update -qq >/dev/null && apt-get install -y -qq redis-server >/dev/null; }
  step "installing redis-server (apt-get)" "30 s" install_redis
  # The package starts a system service on 6379; the stack runs its own instances.
  (service redis-server stop || true) >/dev/null 2>&1
  exit 0
fi
echo "redis-server is not installed. Install it (Debian/Ubuntu: sudo apt-get install -y redis-server) and run again." >&2
exit 1

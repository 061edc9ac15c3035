#!/usr/bin/env bash
# Debian's chromium for the /v2/docs browser test (driven by playwright-core; no downloaded browser).
# Installed when we can; otherwise that test says how and the rest of the suite runs.
set -euo pipefail
command -v chromium >/dev/null && exit 0
if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null; then
  echo "prepare: installing chromium (apt-get; first time about 2 minutes)..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "chromium is not installed (Debian/Ubuntu: sudo apt-get install -y chromium); the /v2/docs browser test needs it." >&2

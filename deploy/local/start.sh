#!/usr/bin/env bash
# npm start: install, build and run the whole stack locally (simulated feed, local stores).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bash deploy/local/prepare.sh
exec node deploy/local/dist/cli.js up "$@"

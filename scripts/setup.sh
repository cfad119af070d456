#!/usr/bin/env bash
# One command from a fresh clone: provision Node >= 22.19 if needed, install, build, and run the
# demo on its embedded sample (a real database in a temporary project, read back through the CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/use-node.sh
npm ci --no-audit --no-fund --loglevel=error
npm run build
npm run demo
echo
echo "Set up with node $(node --version) at $(command -v node)."
echo "Run the tests with: PATH=\"$(dirname "$(command -v node)"):\$PATH\" npm test"

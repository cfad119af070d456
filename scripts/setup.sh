#!/usr/bin/env bash
# One command from a fresh clone: provision Node >= 22.19 if needed, install, build, and run the
# demo on its embedded sample (a real database in a temporary project, read back through the CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/use-node.sh
bash scripts/install.sh
npm run build
npm run demo
echo
echo "Set up with node $(node --version) at $(command -v node)."
echo "Run the tests with: npm test (it uses this Node when the one on your PATH is older)."

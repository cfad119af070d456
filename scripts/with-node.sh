#!/usr/bin/env bash
# Runs a command (npm test, npm run demo, npm run bench) with Node >= 22.19 first on PATH: the one on PATH
# if it is recent enough, else the one scripts/setup.sh installed (~/.cache/ralph-mem/node24, or
# $RALPH_MEM_NODE_HOME).
# Without either it fails at once, naming the Node it found and the fix, instead of letting an old
# Node run the suite into errors.
set -uo pipefail
found="$(node --version 2>/dev/null || echo "no node") at $(command -v node || echo "nowhere on PATH")"
# shellcheck source=use-node.sh
if ! source "$(dirname "$0")/use-node.sh" --no-install; then
  echo "ralph-mem needs Node.js 22.19 or newer to run $*; found $found." >&2
  echo "Run \`bash scripts/setup.sh\` (it installs Node 24 into ~/.cache/ralph-mem/node24)," \
    "or put Node 22.19+ first on PATH." >&2
  exit 1
fi
exec "$@"

# Sourced by scripts/setup.sh (and scripts/with-node.sh with --no-install): makes sure `node` on PATH
# is >= 22.19. When it is older, uses the npm registry's `node@24` package installed outside the repo
# ($RALPH_MEM_NODE_HOME, default ~/.cache/ralph-mem/node24: the hooks and the CLI look there too),
# installing it first unless --no-install is given, and puts it first on PATH.
node_is_recent() {
  node -e 'const [a, b] = process.versions.node.split(".").map(Number)
    process.exit(a > 22 || (a === 22 && b >= 19) ? 0 : 1)' 2>/dev/null
}

if ! node_is_recent; then
  RALPH_MEM_NODE_HOME="${RALPH_MEM_NODE_HOME:-$HOME/.cache/ralph-mem/node24}"
  if [ ! -x "$RALPH_MEM_NODE_HOME/node_modules/node/bin/node" ]; then
    [ "${1:-}" = "--no-install" ] && return 1
    echo "Node is $(node --version 2>/dev/null || echo missing); installing node@24 into $RALPH_MEM_NODE_HOME" >&2
    mkdir -p "$RALPH_MEM_NODE_HOME"
    npm install --prefix "$RALPH_MEM_NODE_HOME" --no-save --no-audit --no-fund --loglevel=error node@24 >&2 || return 1
  fi
  export PATH="$RALPH_MEM_NODE_HOME/node_modules/node/bin:$PATH"
  node_is_recent || return 1
fi

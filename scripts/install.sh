#!/usr/bin/env bash
# Installs the workspace's dependencies (npm ci) with no compiler, no Node headers and no download
# besides the npm registry. Run by scripts/setup.sh (and so by .ci/run).
#
# better-sqlite3 ships prebuilt binaries (prebuilds/, which it loads itself), but it also ships a
# binding.gyp, and npm ci then runs a synthetic `node-gyp rebuild` for it (npm reads `gypfile: false`
# from the package, not from the lockfile), which needs a C++ toolchain and Node's headers from the
# internet. So the install runs no scripts, and then only the install scripts of the packages listed
# here run (`npm rebuild` of them): the lockfile's packages that declare install scripts.
# tests/setup.test.ts checks this list against the lockfile. dprint's script only links its binary out of
# its platform package (@dprint/linux-x64-glibc and the like, installed with it from the registry).
RALPH_MEM_SCRIPTED_PACKAGES=(esbuild @anthropic-ai/claude-code dprint)

npm ci --ignore-scripts --no-audit --no-fund --loglevel=error "$@" &&
  npm rebuild --ignore-scripts=false --no-audit --no-fund --loglevel=error "${RALPH_MEM_SCRIPTED_PACKAGES[@]}"

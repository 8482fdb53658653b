#!/usr/bin/env bash
# Builds the two images, outpost-control-plane and outpost-agent (tagged with package.json's
# version and latest), without any image registry:
#   1. the Debian base (base.sh; cached in dist/container/cache, made once as root) imported
#      into the engine as localhost/outpost-base:<its tarball's name>;
#   2. the compiled code: npm run build's steps and the dashboard (each skipped when current);
#   3. the build contexts staged in dist/container (stage.mjs: production node_modules);
#   4. `build` of both Containerfiles with --network none.
#   deploy/container/build.sh [--podman | --docker | --engine COMMAND] [--refresh-base]
# The engine defaults to podman, else docker. --engine takes any command that accepts podman's
# or docker's arguments (a wrapper adding storage flags, say). Needs x64 Linux, Node.js and npm
# with the repository's dev dependencies installed, and a C++ compiler for the native add-ons.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$root/deploy/container"
out="$root/dist/container"
engine=()
refresh=
while [ $# -gt 0 ]; do
  case "$1" in
    --podman) engine=(podman) ;;
    --docker) engine=(docker) ;;
    --engine) engine=("${2:?--engine needs a command}"); shift ;;
    --refresh-base) refresh=--refresh ;;
    *) echo "usage: $0 [--podman | --docker | --engine COMMAND] [--refresh-base]" >&2; exit 2 ;;
  esac
  shift
done
if [ ${#engine[@]} -eq 0 ]; then
  if command -v podman >/dev/null; then engine=(podman); elif command -v docker >/dev/null; then engine=(docker); else
    echo "build: neither podman nor docker is installed" >&2; exit 1
  fi
fi
log() { printf 'build: %s\n' "$*" >&2; }
started=$SECONDS

base=$("$here/base.sh" "$out/cache" $refresh)
base_tarball=${base%%$'\n'*}
node_dir=${base#*$'\n'}
base_image="localhost/outpost-base:$(basename "$base_tarball" .tar | sed 's/^outpost-base-//')"
if [ -n "$refresh" ] || ! "${engine[@]}" image inspect "$base_image" >/dev/null 2>&1; then
  log "importing $base_image"
  "${engine[@]}" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    "$base_tarball" "$base_image" >/dev/null
fi

log "compiling (skipped when dist/ is current)"
(cd "$root" && node scripts/build.mjs && node scripts/build-pglite-template.mjs && node scripts/build-web.mjs)
node "$here/stage.mjs" --node-dir "$node_dir" --out "$out"

version=$(node -p "require('$root/package.json').version")
# Podman writes OCI images by default, which have no HEALTHCHECK; docker's format keeps it.
format=()
"${engine[@]}" --version 2>/dev/null | grep -qi podman && format=(--format docker)
for image in control-plane agent; do
  log "building outpost-$image:$version"
  "${engine[@]}" build "${format[@]}" --network none --build-arg "BASE_IMAGE=$base_image" \
    --file "$here/$image.Containerfile" --tag "outpost-$image:$version" --tag "outpost-$image:latest" \
    "$out/$image"
done
log "done in $((SECONDS - started)) s: outpost-control-plane:$version, outpost-agent:$version"

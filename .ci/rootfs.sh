#!/usr/bin/env bash
# The root file system the container engines' test images are made from (.ci/container-engine.sh for podman,
# .ci/docker-engine.sh for Docker): Debian bookworm minbase with procps, built once with debootstrap (images cannot
# be pulled on these machines; about 2 minutes) and cached as a tar in /var/cache/dsh-ci. Sourced; defines only.

DSH_CI_ROOTFS=/var/cache/dsh-ci/rootfs-bookworm-minbase.tar

# Builds $DSH_CI_ROOTFS when it is missing, installing debootstrap first if need be (only as root with apt). On a
# failure it says why and returns nonzero.
dsh_ci_rootfs() (
  set -euo pipefail
  [ -s "$DSH_CI_ROOTFS" ] && exit 0
  if ! command -v debootstrap >/dev/null; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      echo "debootstrap is missing and this is not a root apt machine: install it first" >&2
      exit 1
    fi
    echo "== install debootstrap (to build the containers' root file system)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi
  cache="$(dirname "$DSH_CI_ROOTFS")"
  echo "== build the bookworm minbase root file system once (debootstrap, about 2 minutes; cached in $cache)"
  mkdir -p "$cache"
  build="$(mktemp -d "$cache/build.XXXXXX")"
  debootstrap --variant=minbase --include=procps bookworm "$build/rootfs" http://deb.debian.org/debian >"$build/log" 2>&1 ||
    { tail -20 "$build/log" >&2; rm -rf "$build"; exit 1; }
  rm -rf "$build/rootfs/var/cache/apt/archives/"*.deb "$build/rootfs/var/lib/apt/lists/"*
  tar -C "$build/rootfs" -cf "$DSH_CI_ROOTFS.partial" .
  mv "$DSH_CI_ROOTFS.partial" "$DSH_CI_ROOTFS"
  rm -rf "$build"
)

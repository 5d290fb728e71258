#!/usr/bin/env bash
# The container engine the @dsh/tool-bash-container tests need: rootful podman (Debian's, with runc) serving the
# Docker Engine API on a private socket, with a Debian bookworm minbase image built once with debootstrap (no
# registry is needed) and cached in /var/cache/dsh-ci.
#
#   source .ci/container-engine.sh        .ci/run: exports DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE for the
#                                          tests; the engine stops when the sourcing shell exits. A failure here only
#                                          prints why: the container tests then fail under CI=true and name the fix.
#   .ci/container-engine.sh start DIR     a developer machine: starts the engine with its state in DIR, leaves it
#                                          running and prints the export lines (stop it: kill "$(cat DIR/engine.pid)").
#
# Everything private: store, run root, socket and configuration live in one directory; the system's podman store is
# never touched. Installs packages only when missing, and only as root with apt. The root file system comes from
# .ci/rootfs.sh (shared with .ci/docker-engine.sh).

# shellcheck source=rootfs.sh
source "$(dirname "${BASH_SOURCE[0]}")/rootfs.sh"

dsh_container_engine_setup() (
  set -euo pipefail
  state="$1"
  mkdir -p "$state"
  if ! command -v podman >/dev/null || ! command -v runc >/dev/null || { [ ! -s "$DSH_CI_ROOTFS" ] && ! command -v debootstrap >/dev/null; }; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      echo "podman, runc and debootstrap are missing and this is not a root apt machine: install them first" >&2
      exit 1
    fi
    echo "== install podman, runc, debootstrap (the container executor tests need them)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      podman runc conmon catatonit debootstrap uidmap >/dev/null
  fi
  dsh_ci_rootfs
  rootfs="$DSH_CI_ROOTFS"
  # runc: this VM kind's hybrid cgroups make crun refuse; explicit ulimits: the VM cannot raise hard limits.
  nofile="$(ulimit -Hn)"; [ "$nofile" = unlimited ] && nofile=1048576
  [ "$nofile" -gt 20000 ] && nofile=20000
  cat >"$state/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=32768:32768"]
[engine]
runtime = "runc"
EOF
  podman=(podman --root "$state/store" --runroot "$state/run" --tmpdir "$state/tmp")
  export CONTAINERS_CONF="$state/containers.conf"
  image=localhost/dsh-ci:bookworm
  if ! "${podman[@]}" image exists "$image" 2>/dev/null; then
    "${podman[@]}" import --change 'CMD ["/bin/bash"]' "$rootfs" "$image" >/dev/null
  fi
  rm -f "$state/podman.sock"
  setsid "${podman[@]}" system service --time=0 "unix://$state/podman.sock" </dev/null >"$state/engine.log" 2>&1 &
  echo $! >"$state/engine.pid"
  for _ in $(seq 1 100); do
    [ -S "$state/podman.sock" ] && break
    sleep 0.1
  done
  [ -S "$state/podman.sock" ] || { cat "$state/engine.log" >&2; exit 1; }
  printf 'export DSH_CONTAINER_SOCKET=%q DSH_CONTAINER_IMAGE=%q\n' "$state/podman.sock" "$image" >"$state/env"
)

dsh_container_engine_stop() {
  local pid
  pid="$(cat "$1/engine.pid" 2>/dev/null || true)"
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  # podman 4.3 can leave the exec sessions' conmon processes of this private store behind: only those, by pid.
  for proc in /proc/[0-9]*; do
    if grep -qaF -- "$1/" "$proc/cmdline" 2>/dev/null && grep -qa conmon "$proc/comm" 2>/dev/null; then
      kill -KILL "${proc#/proc/}" 2>/dev/null || true
    fi
  done
  umount -R "$1/store/overlay" 2>/dev/null || true
  rm -rf "$1" 2>/dev/null || true
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  if [ "${1:-}" != start ] || [ -z "${2:-}" ]; then
    echo "usage: $0 start DIR   (or: source $0)" >&2
    exit 2
  fi
  dsh_container_engine_setup "$2"
  cat "$2/env"
else
  DSH_CI_CONTAINER_STATE="$(mktemp -d /tmp/dsh-ci-engine.XXXXXX)"
  dsh_ci_container_started=$SECONDS
  # A separate process, so that `set -e` holds inside (a function called in an `if` ignores it).
  if bash "${BASH_SOURCE[0]}" start "$DSH_CI_CONTAINER_STATE" >&2; then
    # shellcheck disable=SC1091
    source "$DSH_CI_CONTAINER_STATE/env"
    echo "== container engine ready in $((SECONDS - dsh_ci_container_started)) s: $DSH_CONTAINER_SOCKET ($DSH_CONTAINER_IMAGE)"
  else
    echo "== the container engine could not be set up (see above): the @dsh/tool-bash-container tests will fail under CI=true" >&2
  fi
  trap 'dsh_container_engine_stop "$DSH_CI_CONTAINER_STATE"' EXIT
fi

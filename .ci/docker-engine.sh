#!/usr/bin/env bash
# The Docker leg of the @dsh/tool-bash-container tests: a private dockerd (Debian's docker.io) serving the Docker
# Engine API over TCP with TLS on loopback (mutual: the tests hold a client certificate), with the bookworm minbase
# root file system of .ci/rootfs.sh imported as an image, plus a second image holding the host's node binary (an
# executor on a TCP endpoint runs its agent with the image's node).
#
#   source .ci/docker-engine.sh          .ci/run (after .ci/container-engine.sh): exports DSH_CONTAINER_DOCKER_URL,
#                                        DSH_CONTAINER_DOCKER_TLS_DIR (ca.pem, cert.pem, key.pem) and
#                                        DSH_CONTAINER_DOCKER_IMAGE; the engine stops when the sourcing shell exits. A
#                                        failure here only prints why: the Docker tests then fail under CI=true and
#                                        name the fix.
#   .ci/docker-engine.sh start DIR       a developer machine: starts the engine with its state in DIR (a later start
#                                        in the same DIR reuses its images), leaves it running and prints the export
#                                        lines.
#   .ci/docker-engine.sh stop DIR        stops it; DIR keeps the images for the next start (remove it with rm -rf).
#
# Everything private: data root, exec root (the containerd that dockerd starts keeps its state there), pid file,
# sockets, configuration, trust key and certificates live in DIR; no system service, no bridge, no iptables rules, no
# IP forwarding, and /etc/docker/daemon.json is not read. Outside DIR only /run/docker/plugins (dockerd's plugin
# directory) and the shims' sockets in /run/containerd/s (a path built into containerd) are touched; the first is
# removed again when this made it, the second by each shim as it exits. Installs packages only when missing, and
# only as root with apt.

# shellcheck source=rootfs.sh
source "$(dirname "${BASH_SOURCE[0]}")/rootfs.sh"

DSH_CI_DOCKER_BASE_IMAGE=dsh-ci:bookworm
DSH_CI_DOCKER_IMAGE=dsh-ci:bookworm-node

dsh_docker_engine_setup() (
  set -euo pipefail
  state="$(realpath -m "$1")"
  mkdir -p "$state"
  if ! command -v dockerd >/dev/null || ! command -v docker >/dev/null || ! command -v openssl >/dev/null; then
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
      echo "dockerd, docker and openssl are missing and this is not a root apt machine: install them first (Debian: docker.io, openssl)" >&2
      exit 1
    fi
    echo "== install docker.io and openssl (the Docker leg of the container executor tests needs them; no service is started)"
    # Debian starts a package's service on install unless policy-rc.d says no: this script starts its own dockerd.
    policy=/usr/sbin/policy-rc.d
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy"
      chmod +x "$policy"
      trap 'rm -f "$policy"' EXIT
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker.io openssl >/dev/null
  fi
  dsh_ci_rootfs
  node="$(node -p process.execPath)"

  # A CA, the engine's certificate (for 127.0.0.1 and localhost) and a client certificate, new at every start. The
  # client's files carry Docker's names (DOCKER_CERT_PATH), so the docker CLI can use the directory as it is.
  rm -rf "$state/tls" "$state/tls-engine"
  mkdir -p "$state/tls" "$state/tls-engine"
  (
    cd "$state/tls-engine"
    umask 077
    ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${ec[@]}" -keyout ca-key.pem -out ca.pem -days 365 -subj /CN=dsh-ci-docker-ca \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
    openssl req "${ec[@]}" -keyout key.pem -out engine.csr -subj /CN=localhost 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >engine.ext
    openssl x509 -req -in engine.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 365 -extfile engine.ext -out cert.pem 2>/dev/null
    openssl req "${ec[@]}" -keyout ../tls/key.pem -out client.csr -subj /CN=dsh-ci-docker-client 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >client.ext
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 365 -extfile client.ext -out ../tls/cert.pem 2>/dev/null
    cp ca.pem ../tls/ca.pem
  )
  # Only what the command line cannot say; the trust key of dockerd 20.10 would otherwise go to /etc/docker.
  printf '{ "deprecated-key-path": "%s/key.json" }\n' "$state" >"$state/daemon.json"
  [ -e /run/docker ] || touch "$state/made-run-docker"

  unset DOCKER_CONTEXT DOCKER_TLS_VERIFY DOCKER_CERT_PATH
  export DOCKER_CONFIG="$state/cli" DOCKER_HOST="unix://$state/docker.sock"
  # A free loopback port: asked of the kernel, then bound by dockerd (another process may take it in between: retry).
  for attempt in 1 2 3; do
    port="$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')"
    rm -f "$state/docker.sock"
    setsid dockerd --config-file "$state/daemon.json" --data-root "$state/data" --exec-root "$state/exec" \
      --pidfile "$state/docker.pid" -H "unix://$state/docker.sock" -H "tcp://127.0.0.1:$port" \
      --tlsverify --tlscacert "$state/tls-engine/ca.pem" --tlscert "$state/tls-engine/cert.pem" --tlskey "$state/tls-engine/key.pem" \
      --bridge=none --iptables=false --ip-masq=false --ip-forward=false --shutdown-timeout=5 --log-level=warn \
      </dev/null >"$state/engine.log" 2>&1 &
    pid=$!
    echo "$pid" >"$state/engine.pid"
    for _ in $(seq 1 300); do
      kill -0 "$pid" 2>/dev/null || break
      docker version >/dev/null 2>&1 && break
      sleep 0.1
    done
    if docker version >/dev/null 2>&1; then break; fi
    if kill -0 "$pid" 2>/dev/null || ! grep -q 'address already in use' "$state/engine.log" || [ "$attempt" = 3 ]; then
      tail -20 "$state/engine.log" >&2
      echo "dockerd did not answer on $DOCKER_HOST" >&2
      exit 1
    fi
  done
  # What the tests use: the TLS endpoint with the client certificate.
  docker --tlsverify --tlscacert "$state/tls/ca.pem" --tlscert "$state/tls/cert.pem" --tlskey "$state/tls/key.pem" \
    -H "tcp://127.0.0.1:$port" version >/dev/null

  if ! docker image inspect "$DSH_CI_DOCKER_BASE_IMAGE" >/dev/null 2>&1; then
    docker import --change 'CMD ["/bin/bash"]' "$DSH_CI_ROOTFS" "$DSH_CI_DOCKER_BASE_IMAGE" >/dev/null
  fi
  node_version="$("$node" --version)"
  label="$(docker image inspect --format '{{ index .Config.Labels "dev.dsh.ci.node" }}' "$DSH_CI_DOCKER_IMAGE" 2>/dev/null || true)"
  if [ "$label" != "$node_version" ]; then
    # No build step (no builder, no registry): copy the binary into a created, never started container and commit it.
    container="$(docker create "$DSH_CI_DOCKER_BASE_IMAGE")"
    docker cp -L "$node" "$container:/usr/local/bin/node" >/dev/null
    docker commit --change "LABEL dev.dsh.ci.node=$node_version" --change 'CMD ["/bin/bash"]' "$container" "$DSH_CI_DOCKER_IMAGE" >/dev/null
    docker rm "$container" >/dev/null
  fi
  printf 'export DSH_CONTAINER_DOCKER_URL=%q DSH_CONTAINER_DOCKER_TLS_DIR=%q DSH_CONTAINER_DOCKER_IMAGE=%q\n' \
    "https://127.0.0.1:$port" "$state/tls" "$DSH_CI_DOCKER_IMAGE" >"$state/env"
)

# Ends dockerd and whatever of it outlived it: its containerd and the shims of its containers (both name DIR on
# their command line), with the containers' processes. DIR and its images stay. Never fails (it runs in EXIT traps of
# `set -e` shells).
dsh_docker_engine_kill() {
  local state pid proc id comm shims=() helpers=()
  state="$(realpath -m "$1")"
  pid="$(cat "$state/engine.pid" 2>/dev/null || true)"
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    # dockerd stops the containers (--shutdown-timeout: 5 s, all at once), then its containerd.
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  for proc in /proc/[0-9]*; do
    grep -qaF -- "$state/" "$proc/cmdline" 2>/dev/null || continue
    comm="$(cat "$proc/comm" 2>/dev/null || true)"
    case "$comm" in
      containerd-shim*) shims+=("${proc#/proc/}") ;;
      containerd | dockerd) helpers+=("${proc#/proc/}") ;;
    esac
  done
  if [ "${#shims[@]}" -gt 0 ]; then
    # A killed shim would leave its container's processes running: end those first, through runc's state.
    for id in $(runc --root "$state/exec/runtime-runc/moby" list -q 2>/dev/null || true); do
      runc --root "$state/exec/runtime-runc/moby" kill --all "$id" KILL 2>/dev/null || true
      runc --root "$state/exec/runtime-runc/moby" delete --force "$id" 2>/dev/null || true
    done
    for pid in "${shims[@]}"; do
      id="$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | sed -n '/^-id$/{n;p;q}' || true)"
      kill -KILL "$pid" 2>/dev/null || true
      # Its socket (named by the hash of containerd's address, the namespace and the id) is left: remove it.
      if [ -n "$id" ]; then
        rm -f "/run/containerd/s/$(printf '%s' "$state/exec/containerd/containerd.sock/moby/$id" | sha256sum | cut -d' ' -f1)" || true
      fi
    done
  fi
  for pid in "${helpers[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  # The layers' mounts (normally gone with dockerd), innermost first.
  { awk -v prefix="$state/" 'index($5, prefix) == 1 { print $5 }' /proc/self/mountinfo | sort -r | xargs -r -n 1 umount -l; } 2>/dev/null || true
  if [ -e "$state/made-run-docker" ]; then rmdir /run/docker/plugins /run/docker 2>/dev/null || true; fi
}

# Stops the engine and removes DIR.
dsh_docker_engine_stop() {
  dsh_docker_engine_kill "$1"
  rm -rf "$1" 2>/dev/null || true
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case "${1:-} ${2:+dir}" in
    "start dir")
      # Not in an `if`: `set -e` inside the setup would be ignored there.
      dsh_docker_engine_setup "$2"
      status=$?
      if [ "$status" != 0 ]; then
        dsh_docker_engine_kill "$2"
        exit "$status"
      fi
      cat "$2/env"
      ;;
    "stop dir") dsh_docker_engine_kill "$2" ;;
    *)
      echo "usage: $0 start DIR | $0 stop DIR   (or: source $0)" >&2
      exit 2
      ;;
  esac
else
  DSH_CI_DOCKER_STATE="$(mktemp -d /tmp/dsh-ci-docker.XXXXXX)"
  dsh_ci_docker_started=$SECONDS
  # A separate process, so that `set -e` holds inside (a function called in an `if` ignores it).
  if bash "${BASH_SOURCE[0]}" start "$DSH_CI_DOCKER_STATE" >&2; then
    # shellcheck disable=SC1091
    source "$DSH_CI_DOCKER_STATE/env"
    echo "== Docker engine ready in $((SECONDS - dsh_ci_docker_started)) s: $DSH_CONTAINER_DOCKER_URL ($DSH_CONTAINER_DOCKER_IMAGE)"
  else
    echo "== the Docker engine could not be set up (see above): the Docker leg of the @dsh/tool-bash-container tests will fail under CI=true" >&2
  fi
  # Added in front of the EXIT trap already set (.ci/container-engine.sh's), which must still run.
  dsh_ci_docker_trap() {
    local previous=''
    if [ -n "$(trap -p EXIT)" ]; then
      eval "set -- $(trap -p EXIT)"
      previous="$3"
    fi
    # shellcheck disable=SC2064
    trap "dsh_docker_engine_stop \"\$DSH_CI_DOCKER_STATE\" || true${previous:+; $previous}" EXIT
  }
  dsh_ci_docker_trap
fi

import { PROXY_PORT } from './network-proxy.js'

// The bridge between a sandboxed command and the executor's network proxy. The command's seccomp filter refuses
// unix sockets, so nothing in the sandbox can connect to a proxy socket on the host; instead the host accepts the
// command's proxy connections itself. Before the command starts, a helper (this process's own Node binary) listens on
// 127.0.0.1:PROXY_PORT inside the sandbox's network namespace and sends the listening socket to the host over the
// launch's IPC channel (a socket pair the executor made, so no socket(AF_UNIX) call is needed), then exits. The
// shell then closes the channel and execs the command. So: no process besides the command lives in the sandbox, no
// race (the socket listens before the command runs; connections wait in its backlog until the host accepts), and
// nothing to reap.

/** The message the helper sends with the listening socket. */
export const BRIDGE_MESSAGE = 'dsh-sandbox-bridge'

/** The exit status of the launch when the bridge could not start (the command did not run). */
export const BRIDGE_FAILED_EXIT = 125

/** The helper: listen on the proxy port (loopback of the sandbox), send the server handle, exit once it is sent. */
const HELPER =
  "const server = require('net').createServer();" +
  "server.on('error', (error) => { process.stderr.write('dsh-sandbox: the network bridge cannot listen: ' + error.message + '\\n'); process.exit(1) });" +
  `server.listen({ host: '127.0.0.1', port: ${PROXY_PORT} }, () => process.send(${JSON.stringify(BRIDGE_MESSAGE)}, server, (error) => process.exit(error ? 1 : 0)))`

/**
 * Runs the helper, then closes the channel (its fd is in `NODE_CHANNEL_FD`, set by Node for the launch) and execs the
 * command. A helper that fails ends the launch with {@link BRIDGE_FAILED_EXIT} before the command runs.
 */
const BRIDGE =
  'case ${NODE_CHANNEL_FD:-} in ""|*[!0-9]*) echo "dsh-sandbox: the network bridge has no channel" >&2; exit ' +
  `${BRIDGE_FAILED_EXIT};; esac; ` +
  `"$1" -e "$2" </dev/null >/dev/null || { echo "dsh-sandbox: the network bridge did not start" >&2; exit ${BRIDGE_FAILED_EXIT}; }; ` +
  'eval "exec ${NODE_CHANNEL_FD}>&-"; unset NODE_CHANNEL_FD NODE_CHANNEL_SERIALIZATION_MODE; ' +
  'exec "$0" --noprofile --norc -c "$3"'

/** The argv that runs `command` in the sandbox behind the bridge. */
export function bridgeCommand(options: { shell: string; node: string; command: string }): string[] {
  return [options.shell, '--noprofile', '--norc', '-c', BRIDGE, options.shell, options.node, HELPER, options.command]
}

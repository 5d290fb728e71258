/**
 * `@dsh/code-mode/sandbox`: the opt-in runtime that runs each program in a fresh Node process inside a bubblewrap
 * sandbox (Linux). It needs `@dsh/tool-bash-sandbox` (an optional peer dependency of `@dsh/code-mode`), `bwrap` and
 * `prlimit` on the machine.
 */
export {
  SANDBOXED_NODE_MAX_STACK_BYTES,
  SandboxedNodeRuntime,
  type SandboxedNodeCheck,
  type SandboxedNodeRuntimeOptions,
  type SandboxedNodeUnavailableReason,
} from './sandboxed-node-runtime.js'

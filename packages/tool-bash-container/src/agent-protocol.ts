// The messages between the executor (host) and the agent in the session container: one JSON object per line, over
// the container's attached stdin (host → agent) and stdout (agent → host). Types only; both sides import them.
import type { BashResult, LocalBashConfig } from '@dsh/tool-bash'
import type { TunnelMessage } from './net-tunnel.js'

/** A request as the agent receives it: already validated by the agent's own `resolve`. */
export interface AgentRequest {
  readonly command: string
  readonly cwd?: string | undefined
  readonly timeoutMs?: number | undefined
}

/** What the host sends. */
export type HostMessage =
  | {
      readonly op: 'init'
      readonly config: LocalBashConfig
      readonly probeUserNamespace: boolean
      /** With a network allow list: the port on 127.0.0.1 whose connections the agent carries to the host's proxy. */
      readonly proxyPort: number | null
    }
  | { readonly op: 'resolve'; readonly id: number; readonly request: AgentRequest; readonly background: boolean }
  | { readonly op: 'run'; readonly id: number; readonly request: AgentRequest; readonly background: boolean }
  | { readonly op: 'abort'; readonly id: number }
  | { readonly op: 'kill'; readonly id: number }
  | { readonly op: 'exit' }
  | TunnelMessage

/** An error of the agent's executor, as data. */
export interface AgentError {
  readonly name: string
  readonly message: string
  readonly field?: string | undefined
  readonly cwd?: string | undefined
}

/** What the agent read, from inside, about the limits and confinement in force (its preflight). */
export interface ContainerFacts {
  /** `CapEff` of the agent, hex. */
  readonly capEff: string
  readonly noNewPrivs: boolean
  /** `Seccomp` mode: 0 none, 1 strict, 2 filter. */
  readonly seccomp: number
  /** Network interfaces other than `lo`. */
  readonly interfaces: readonly string[]
  /** The cgroup memory limit in bytes, `null` when unlimited or unreadable. */
  readonly memoryBytes: number | null
  /** Memory + swap in bytes (cgroup v1 `memsw`, v2 memory + `swap.max`), `null` when unlimited or unreadable. */
  readonly memorySwapBytes: number | null
  /** The cgroup pids limit, `null` when unlimited or unreadable. */
  readonly pidsLimit: number | null
  /** The cgroup CPU quota as a number of CPUs (quota / period), `null` when unlimited or unreadable. */
  readonly cpus: number | null
  /** The soft `RLIMIT_NOFILE`, `null` when unlimited. */
  readonly nofile: number | null
  /** True when writing to `/` failed with `EROFS`. */
  readonly readOnlyRoot: boolean
  /** Whether `unshare -U true` created a user namespace: `null` when it could not be tried (no `unshare`). */
  readonly userNamespace: boolean | null
  /**
   * Whether a child of the agent (a process with the commands' user and capabilities) could read the agent's
   * `/proc/<pid>/environ`, and so open its pipes: false when the agent is protected (not dumpable). `null`: not probed.
   */
  readonly agentInspectable: boolean | null
  /** The agent's pid inside the container. */
  readonly agentPid: number
  /** The agent's node version. */
  readonly node: string
}

/** What the agent sends. */
export type AgentMessage =
  | { readonly op: 'ready'; readonly facts: ContainerFacts }
  | { readonly op: 'fatal'; readonly message: string }
  | { readonly op: 'resolved'; readonly id: number; readonly value?: { command: string; cwd: string; timeoutMs: number }; readonly error?: AgentError }
  | { readonly op: 'started'; readonly id: number; readonly pid: number | null; readonly startedAt: number }
  | { readonly op: 'out'; readonly id: number; readonly stream: 'stdout' | 'stderr'; readonly data: string }
  | { readonly op: 'done'; readonly id: number; readonly result?: BashResult; readonly error?: AgentError }
  | { readonly op: 'swept'; readonly pids: readonly number[] }
  | TunnelMessage

import type { JsonObject } from '@dsh/tools-core'
import { CommandCgroups, type CgroupFiles, type CommandCgroup } from './command-cgroups.js'
import type { ResolvedSandboxConfig } from './sandbox-config.js'
import { locate } from './sandbox-host.js'
import { SandboxUnavailableError } from './sandbox-unavailable-error.js'

/** How one limit is enforced: a cgroup of each command (unified or legacy hierarchy), or an rlimit of each process. */
export type ResourceLimitMechanism = 'cgroup-v2' | 'cgroup-v1' | 'rlimit'

/** The limits in force for every command, and how each is enforced (`null`: not configured). */
export interface SandboxResourceLimits {
  /** The memory bound in bytes: of the whole command in a cgroup, of each process's address space as an rlimit. */
  readonly memory: { readonly bytes: number; readonly mechanism: ResourceLimitMechanism } | null
  /** The process bound: of the whole command in a cgroup, of the sandbox user (not uid 0) as an rlimit. */
  readonly processes: { readonly max: number; readonly mechanism: ResourceLimitMechanism } | null
}

/**
 * Joins the cgroups named before `--`, then execs the rest. The shell is the process the executor spawned, so the
 * join happens before anything of the command can fork: no child is ever outside the cgroup. A refused join ends
 * the launch before bwrap runs (exit 125 and a message; the command never ran).
 */
const JOIN_CGROUPS =
  'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "dsh-sandbox: cannot join the command\'s cgroup $1" >&2; exit 125; }; shift; done; shift; exec "$@"'

/** What one command's limits left to say: facts for the result's meta and, when a limit ended it, a note. */
export interface CommandLimits {
  /** Wraps the launch (bwrap and its arguments) so that it starts inside the command's cgroups. */
  wrap(shell: string, file: string, args: readonly string[]): { file: string; args: string[] }
  /** The kernel's facts about the command, for `meta.executor.limits`. */
  meta(): JsonObject
  /** A note for the model when a limit stopped the command, else undefined. */
  note(exitCode: number | null): string | undefined
  /** Removes the command's cgroups (kills what is left in them first). */
  remove(): Promise<void>
}

const mib = (bytes: number): string => `${Math.round(bytes / 1_048_576)} MiB`

/** The sandbox's resource limits: cgroups where this process may make them, rlimits (via prlimit) for the rest. */
export class ResourceLimiter {
  readonly limits: SandboxResourceLimits
  private readonly cgroups: CommandCgroups | null
  private readonly prlimit: readonly string[]

  private constructor(limits: SandboxResourceLimits, cgroups: CommandCgroups | null, prlimit: readonly string[]) {
    this.limits = limits
    this.cgroups = cgroups
    this.prlimit = prlimit
  }

  /**
   * Decides the mechanism of each configured limit and prepares it (the executor's cgroups are made here). Throws
   * {@link SandboxUnavailableError} when `resourceLimits: 'cgroup'` cannot be met or an rlimit needs a missing
   * `prlimit`.
   */
  static open(
    config: ResolvedSandboxConfig,
    log: (message: string) => void,
    isRoot: boolean,
    cgroupFiles?: CgroupFiles,
  ): ResourceLimiter {
    const { memoryBytes, maxProcesses, resourceLimits } = config
    const opened: ReturnType<typeof CommandCgroups.open> =
      resourceLimits === 'rlimit'
        ? { cgroups: null, versions: {}, problems: {} }
        : CommandCgroups.open({ memoryBytes, maxProcesses }, cgroupFiles)
    const { versions, problems } = opened
    const failed = Object.entries(problems).map(([name, problem]) => `${name}: ${problem}`)
    if (resourceLimits === 'cgroup' && failed.length > 0) {
      opened.cgroups?.dispose()
      throw new SandboxUnavailableError(
        'cgroups-unavailable',
        `resourceLimits is 'cgroup' but the command cgroups cannot be made (${failed.join('; ')})`,
        "run the agent as a user that may create cgroups under its own (root, or a delegated systemd unit with Delegate=yes), or set resourceLimits to 'auto'",
      )
    }
    const mechanism = (version: 'v1' | 'v2' | undefined): ResourceLimitMechanism => (version === undefined ? 'rlimit' : version === 'v2' ? 'cgroup-v2' : 'cgroup-v1')
    const limits: SandboxResourceLimits = Object.freeze({
      memory: memoryBytes === null ? null : Object.freeze({ bytes: memoryBytes, mechanism: mechanism(versions.memory) }),
      processes: maxProcesses === null ? null : Object.freeze({ max: maxProcesses, mechanism: mechanism(versions.pids) }),
    })
    const prlimit: string[] = []
    if (limits.memory?.mechanism === 'rlimit' || limits.processes?.mechanism === 'rlimit') {
      const path = locate('prlimit')
      if (path === undefined) {
        opened.cgroups?.dispose()
        throw new SandboxUnavailableError(
          'preflight-failed',
          `memoryBytes or maxProcesses needs an rlimit here${failed.length > 0 ? ` (no cgroup: ${failed.join('; ')})` : ''} but prlimit (util-linux) is not installed`,
          'install util-linux, run as a user that may create cgroups, or leave memoryBytes and maxProcesses out',
        )
      }
      prlimit.push(path)
      if (limits.memory?.mechanism === 'rlimit') prlimit.push(`--as=${limits.memory.bytes}`)
      if (limits.processes?.mechanism === 'rlimit') prlimit.push(`--nproc=${limits.processes.max}`)
      prlimit.push('--')
      if (resourceLimits === 'auto' && failed.length > 0) log(`resource limits fall back to rlimits (${failed.join('; ')})`)
      if (limits.processes?.mechanism === 'rlimit' && isRoot) {
        log('maxProcesses is an rlimit here, which the kernel does not enforce for commands running as root: the time limit alone ends a fork bomb')
      }
    }
    return new ResourceLimiter(limits, opened.cgroups, Object.freeze(prlimit))
  }

  /** What goes in front of the sandboxed shell (prlimit and its options), or nothing. */
  get innerPrefix(): readonly string[] {
    return this.prlimit
  }

  /** The executor's cgroup directories (empty without cgroups). */
  get cgroupDirectories(): readonly string[] {
    return this.cgroups?.directories ?? []
  }

  /** Prepares one command: its cgroups made with the limits set (throws when the kernel refuses), or nothing to do. */
  begin(): CommandLimits | null {
    if (this.limits.memory === null && this.limits.processes === null) return null
    const cgroup: CommandCgroup | null = this.cgroups?.create() ?? null
    const { memory, processes } = this.limits
    return {
      wrap: (shell, file, args) =>
        cgroup === null
          ? { file, args: [...args] }
          : { file: shell, args: ['--noprofile', '--norc', '-c', JOIN_CGROUPS, 'dsh-sandbox-join', ...cgroup.procsFiles, '--', file, ...args] },
      meta: () => {
        const report = cgroup?.report() ?? { oomKills: 0, refusedForks: 0 }
        const facts: Record<string, JsonObject> = {}
        if (memory !== null) {
          facts['memory'] = { bytes: memory.bytes, mechanism: memory.mechanism, ...(memory.mechanism === 'rlimit' ? {} : { oomKilled: report.oomKills > 0 }) }
        }
        if (processes !== null) {
          facts['processes'] = {
            max: processes.max,
            mechanism: processes.mechanism,
            ...(processes.mechanism === 'rlimit' ? {} : { refusedForks: report.refusedForks }),
          }
        }
        return facts
      },
      note: (exitCode) => {
        if (cgroup === null || exitCode === 0) return undefined
        const report = cgroup.report()
        if (memory !== null && report.oomKills > 0) {
          return (
            `Note: the sandbox's memory limit (${mib(memory.bytes)} for the whole command) was reached and the kernel killed the largest process. ` +
            'The limit cannot be changed from here: use less memory (smaller inputs, streaming, fewer parallel jobs).'
          )
        }
        if (processes !== null && report.refusedForks > 0) {
          return (
            `Note: the sandbox's process limit (${processes.max} processes and threads per command) refused ${report.refusedForks} fork(s). ` +
            'The limit cannot be changed from here: run fewer processes at once.'
          )
        }
        return undefined
      },
      remove: async () => {
        await cgroup?.remove()
      },
    }
  }

  /** Kills what is left in the command cgroups and removes every cgroup of the executor (synchronous: host exit too). */
  dispose(): void {
    this.cgroups?.dispose()
  }
}

/** A sentence for the policy text: the limits and their reach, or '' without limits. */
export function describeResourceLimits(limits: SandboxResourceLimits): string {
  const parts: string[] = []
  if (limits.memory !== null) {
    parts.push(
      limits.memory.mechanism === 'rlimit'
        ? `each process may reserve at most ${mib(limits.memory.bytes)} of address space`
        : `each command may use at most ${mib(limits.memory.bytes)} of memory in total (its processes and its /tmp files; beyond it the kernel kills the largest process)`,
    )
  }
  if (limits.processes !== null && limits.processes.mechanism !== 'rlimit') {
    parts.push(`each command may run at most ${limits.processes.max} processes and threads at once`)
  }
  if (limits.processes !== null && limits.processes.mechanism === 'rlimit') {
    parts.push(`the sandbox user may run at most ${limits.processes.max} processes`)
  }
  return parts.length === 0 ? '' : `Limits: ${parts.join('; ')}.`
}

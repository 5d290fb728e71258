import { Service, type Context } from 'cordis'
import { LocalBashExecutor, type BashExecutorLimits } from '@dsh/tool-bash'
import { describeSandboxPolicy } from './policy-note.js'
import { describeResourceLimits, type SandboxResourceLimits } from './resource-limits.js'
import { resolveSandboxedBashConfig, type ResolvedSandboxConfig, type SandboxedBashConfig } from './sandbox-config.js'
import type { SandboxPolicy } from './sandbox-profile.js'
import { SandboxRuntime } from './sandbox-runtime.js'
import type { SandboxUnavailableError } from './sandbox-unavailable-error.js'

/**
 * The sandboxed executor: a cordis plugin providing the service `bash` (the `BashExecutor` seam of
 * `@dsh/tool-bash`), so the `bash`, `bash_output` and `bash_kill` tools run unchanged on top of it. Every command
 * runs in bubblewrap (Linux): no capabilities, no network, its own pid namespace (nothing outlives it), the host
 * read-only except the working directory and the configured writable roots, a private `/tmp` and `HOME`,
 * credentials hidden, git hooks and config read-only, host sysctls and devices out of reach, no nested user
 * namespaces, and a seccomp denylist. Timeouts, aborts, output windows, spills and background tasks are the local
 * executor's, through its launch seam.
 *
 * Fail-closed: loading runs the profile once (the preflight) and checks from inside that it holds; when it cannot,
 * the load rejects with {@link SandboxUnavailableError} naming the cause and the fix, and nothing is provided as
 * `ctx.bash`. Running unsandboxed instead is only ever the deployment's explicit choice
 * (`onUnavailable: 'run-unsandboxed'`). A model gets no parameter that lowers the sandbox.
 *
 * @example
 * ```ts
 * import { Context } from 'cordis'
 * import { SandboxedBashExecutor } from '@dsh/tool-bash-sandbox'
 *
 * const ctx = new Context()
 * await ctx.plugin(SandboxedBashExecutor, { cwd: '/srv/agent/work' })
 * const result = await ctx.bash.run({ command: 'touch /etc/x' })
 * console.log(result.exitCode, result.note) // 1 'Note: the failure above looks like a sandbox policy block, …'
 * ```
 */
export class SandboxedBashExecutor extends LocalBashExecutor {
  private readonly sandbox: SandboxRuntime

  /**
   * @param ctx - the plugin's context (cordis passes it)
   * @param config - validated here; a bad one throws `BashConfigError` and the load fails
   */
  constructor(ctx: Context, config: SandboxedBashConfig = {}) {
    const resolved = resolveSandboxedBashConfig(config)
    const sandbox = new SandboxRuntime(resolved)
    super(ctx, resolved.localInput, (context) => sandbox.plan(context))
    this.sandbox = sandbox
    const logger = ctx.logger('bash-sandbox')
    sandbox.log = (message, error) => (error === undefined ? logger.warn(message) : logger.warn(message, error))
    sandbox.extraHidden = () => {
      const spills = this.spillDirectory
      return spills === null ? [] : [spills]
    }
    ctx.effect(() => () => sandbox.dispose(), 'bash sandbox')
  }

  /** Runs the preflight; a rejection fails the load (cordis then provides nothing). */
  async [Service.init](): Promise<void> {
    await this.sandbox.preflight()
    const limits: BashExecutorLimits = Object.freeze({ ...this.limits, policy: this.policyText })
    Object.defineProperty(this, 'limits', { value: limits, enumerable: true })
  }

  /** The sandbox's configuration after validation. */
  get sandboxConfig(): ResolvedSandboxConfig {
    return this.sandbox.config
  }

  /** What the profile enforces. */
  get policy(): SandboxPolicy {
    return this.sandbox.config.policy
  }

  /**
   * The memory and process limits of every command and how each is enforced (`cgroup-v2`, `cgroup-v1` or
   * `rlimit`), as the preflight decided; `null` before the preflight, after disposal, and when commands run
   * unsandboxed.
   */
  get resourceLimits(): SandboxResourceLimits | null {
    return this.sandbox.sandboxed ? (this.sandbox.limiter?.limits ?? null) : null
  }

  /** True when commands run in the sandbox; false only with `onUnavailable: 'run-unsandboxed'` after a failed preflight. */
  get sandboxed(): boolean {
    return this.sandbox.sandboxed
  }

  /** Why commands run unsandboxed (with `onUnavailable: 'run-unsandboxed'`), else `null`. */
  get unavailable(): SandboxUnavailableError | null {
    return this.sandbox.unavailable
  }

  private get policyText(): string {
    const network = this.sandbox.config.network
    const allowed = network?.rules.map((rule) => (rule.port === null ? rule.host : `${rule.host}:${rule.port}`)) ?? []
    if (this.sandbox.sandboxed) {
      const limits = this.sandbox.limiter === null ? '' : describeResourceLimits(this.sandbox.limiter.limits)
      const sockets = this.sandbox.config.allowUnixSockets ? '' : ' Unix sockets cannot be created (socket pairs, as pipes use, work).'
      return `${describeSandboxPolicy(this.sandbox.config.policy, allowed)}${sockets}${limits === '' ? '' : ` ${limits}`}`
    }
    return 'Commands run WITHOUT a sandbox on this machine (the deployment allowed it): be careful with anything destructive.'
  }
}

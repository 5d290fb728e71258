import { spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, closeSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { Server, type Socket } from 'node:net'
import { dirname, join } from 'node:path'
import type { BashLaunchContext, BashLaunchPlan } from '@dsh/tool-bash'
import type { CgroupFiles } from './command-cgroups.js'
import { NetworkProxy, proxyEnvironment } from './network-proxy.js'
import { policyBlockNote } from './policy-note.js'
import { ResourceLimiter, type CommandLimits } from './resource-limits.js'
import type { ResolvedSandboxConfig } from './sandbox-config.js'
import { BRIDGE_MESSAGE, BRIDGE_FAILED_EXIT, bridgeCommand } from './network-bridge.js'
import { closingDescriptors, inheritableDescriptors } from './inherited-descriptors.js'
import { KNOWN_FAILURES, bwrapLines, locate, readStatus, realFileSystem } from './sandbox-host.js'
import { buildSandboxProfile, type ProfileFileSystem, type SandboxStub } from './sandbox-profile.js'
import { SandboxSetupError } from './sandbox-setup-error.js'
import { SandboxUnavailableError } from './sandbox-unavailable-error.js'
import { buildSeccompProgram, currentSeccompArch, encodeSeccompProgram } from './seccomp.js'

/** Inside the sandbox: the scratch home (in the private /tmp). */
export const SANDBOX_HOME = '/tmp/home'
const SECCOMP_FD = 3
const STATUS_FD = 4
const PREFLIGHT_TIMEOUT_MS = 20_000
/** Prints the enforcement facts of the sandboxed shell itself (bash builtins only). */
const PROBE = 'while read -r key value; do case $key in CapEff:|Seccomp:|NoNewPrivs:) echo "$key $value";; esac; done < /proc/self/status'

/** How long a command's cleanup waits for each of its network bridge and proxy to close before it goes on. */
const CLEANUP_BOUND_MS = 2_000

/** True when `promise` settles within `ms`; false (and no timer left behind) when it does not. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  const settled = promise.then(
    () => true,
    () => true,
  )
  return Promise.race([settled, bound]).finally(() => clearTimeout(timer))
}

/** Everything the sandboxed executor owns besides the local executor's job machinery. */
export class SandboxRuntime {
  readonly config: ResolvedSandboxConfig
  readonly isRoot: boolean = process.getuid?.() === 0
  /** True once the preflight proved the sandbox works; false when the deployment chose to run unsandboxed. */
  sandboxed = false
  /** Why the sandbox is not in use (with `onUnavailable: 'run-unsandboxed'`). */
  unavailable: SandboxUnavailableError | null = null
  log: (message: string, error?: unknown) => void = () => {}
  /** Paths hidden on top of the policy, asked for at each launch (the executor's spill directory). */
  extraHidden: () => readonly string[] = () => []
  private bwrap: string | null = null
  /** The resource limits (cgroups or rlimits), once the preflight has prepared them. */
  limiter: ResourceLimiter | null = null
  /** The Node binary that runs the network bridge's helper inside the sandbox (this process's own). */
  private readonly node: string = process.execPath
  private directory: string | null = null
  private seccompPath = ''
  private emptyFile = ''
  private emptyDirectory = ''
  private serial = 0
  /** Whether the last planned command's bridge came up (read by the preflight, which runs one command). */
  private lastBridgeReady = false
  /** Mount points this executor made on the host, by path: how many running commands use each. */
  private readonly stubs = new Map<string, number>()
  /** Which of a command's stubs it counted (the rest existed already when it started). */
  private readonly stubsOf = new WeakMap<readonly SandboxStub[], readonly SandboxStub[]>()

  private readonly cgroupFiles: CgroupFiles | undefined

  /**
   * @param config - the validated configuration
   * @param options - `cgroupFiles`: where this process's cgroups are, instead of reading `/proc/self` (tests point
   *   it at a hierarchy this process cannot write)
   */
  constructor(config: ResolvedSandboxConfig, options: { cgroupFiles?: CgroupFiles | undefined } = {}) {
    this.config = config
    this.cgroupFiles = options.cgroupFiles
  }

  /**
   * Proves the sandbox works here: the platform, the binaries, then the real profile run once, checking from inside
   * that capabilities are gone, seccomp is on and no_new_privs is set. Throws {@link SandboxUnavailableError}
   * (unless the deployment chose `'run-unsandboxed'`, which is logged).
   */
  async preflight(): Promise<void> {
    try {
      await this.check()
      this.sandboxed = true
      // A host that exits without unloading the executor still takes the private directory with it. (A host killed
      // by a signal it does not handle, or by SIGKILL, leaves it in the temp directory: it holds no secrets.)
      process.once('exit', this.removeOnExit)
    } catch (error) {
      this.removeDirectory()
      this.limiter?.dispose()
      this.limiter = null
      if (!SandboxUnavailableError.isInstance(error) || this.config.onUnavailable === 'fail') throw error
      this.unavailable = error
      this.log(`${error.message} — running commands UNSANDBOXED, as configured (onUnavailable: 'run-unsandboxed')`)
    }
  }

  private async check(): Promise<void> {
    if (process.platform !== 'linux') {
      throw new SandboxUnavailableError(
        'unsupported-platform',
        `bubblewrap sandboxes exist on Linux only, this is ${process.platform}`,
        'run the agent on Linux (a VM or container), or load LocalBashExecutor explicitly if unsandboxed commands are acceptable',
      )
    }
    const arch = currentSeccompArch()
    if (arch === undefined) {
      throw new SandboxUnavailableError(
        'unsupported-architecture',
        `the seccomp denylist is built for x64 and arm64, this is ${process.arch}`,
        'run on x64 or arm64',
      )
    }
    this.bwrap = locate(this.config.bwrap) ?? null
    if (this.bwrap === null) {
      throw new SandboxUnavailableError(
        'bwrap-missing',
        `bubblewrap (${this.config.bwrap}) is not installed or not on PATH`,
        'install it: apt-get install -y bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), or set the bwrap option to its path',
      )
    }
    this.limiter = ResourceLimiter.open(this.config, (message) => this.log(message), this.isRoot, this.cgroupFiles)
    const directory = mkdtempSync(join(this.config.local.tempDir, 'dsh-bash-sandbox-'))
    this.directory = directory
    // Searchable, not listable: a non-root bwrap (after setpriv, or a wrapper) must reach the empty covers here.
    chmodSync(directory, 0o711)
    this.seccompPath = join(directory, 'seccomp.bpf')
    const seccomp = buildSeccompProgram(arch, { allowUnixSockets: this.config.allowUnixSockets })
    writeFileSync(this.seccompPath, encodeSeccompProgram(seccomp), { mode: 0o400 })
    this.emptyFile = join(directory, 'empty')
    writeFileSync(this.emptyFile, '', { mode: 0o444 })
    this.emptyDirectory = join(directory, 'empty.d')
    mkdirSync(this.emptyDirectory, { mode: 0o555 })
    await this.probe()
  }

  private async probe(): Promise<void> {
    const request = { command: PROBE, cwd: this.config.local.cwd, timeoutMs: PREFLIGHT_TIMEOUT_MS }
    const plan = this.planSandboxed({ request, shell: this.config.local.shell, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } })
    let stdout = ''
    let stderr = ''
    let exit: { code: number | null; signal: string | null }
    try {
      exit = await new Promise((resolve, reject) => {
        const child = spawn(plan.file, [...plan.args], {
          cwd: plan.cwd,
          env: { ...plan.env },
          stdio: ['ignore', 'pipe', 'pipe', ...(plan.extraFds ?? []), ...(plan.channel === undefined ? [] : (['ipc'] as const))],
          detached: true,
        })
        plan.channel?.(child)
        const timer = setTimeout(() => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
          } catch {
            // already gone
          }
        }, PREFLIGHT_TIMEOUT_MS)
        // Not 'close': with a launch channel that carried a handle, Node may never emit it. The exit and the end of
        // both output pipes are what the probe waits for.
        const ended = (stream: NodeJS.ReadableStream | null): Promise<void> =>
          stream === null ? Promise.resolve() : new Promise((done) => stream.once('close', () => done()))
        const pipes = Promise.all([ended(child.stdout), ended(child.stderr)])
        child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
        child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
        child.once('error', (error) => {
          clearTimeout(timer)
          reject(error)
        })
        child.once('exit', (code, signal) => {
          void pipes.then(() => {
            clearTimeout(timer)
            if (child.connected) child.disconnect()
            resolve({ code, signal })
          })
        })
      })
    } catch (error) {
      await plan.cleanup?.()
      throw new SandboxUnavailableError(
        'preflight-failed',
        `bubblewrap (${this.bwrap}) could not be executed`,
        'check that the bwrap binary is executable by this user',
        (error as Error).message,
        { cause: error },
      )
    }
    const status = readStatus(join(this.directory as string, `status-${this.serial}`))
    const bridged = this.lastBridgeReady
    await plan.cleanup?.()
    const detail = stderr.trim().slice(0, 1_000)
    if (this.config.network !== null && status.exitCode === BRIDGE_FAILED_EXIT && !bridged) {
      throw new SandboxUnavailableError(
        'network-bridge-failed',
        `the network allow list needs a bridge inside the sandbox, and it did not start (it runs ${this.node} there)`,
        'keep the Node binary of this process out of hiddenPaths and readable by the sandbox user, or leave network off',
        detail,
      )
    }
    if (status.exitCode === undefined || exit.code !== 0) {
      const known = KNOWN_FAILURES.find(({ pattern }) => pattern.test(stderr))
      if (known !== undefined) throw new SandboxUnavailableError(known.reason, known.problem, known.fix, detail)
      throw new SandboxUnavailableError(
        'preflight-failed',
        `a test command in the sandbox failed (exit ${exit.code ?? exit.signal})`,
        'run the profile by hand (see the docs: docs/reference/tool-bash-sandbox.md#preflight) and fix what bwrap reports',
        detail,
      )
    }
    const facts = new Map(stdout.trim().split('\n').map((line) => line.split(' ') as [string, string]))
    if (!/^0+$/.test(facts.get('CapEff:') ?? '') || facts.get('Seccomp:') !== '2' || facts.get('NoNewPrivs:') !== '1') {
      throw new SandboxUnavailableError(
        'profile-not-enforced',
        `the sandbox started but is not enforced (inside it: ${stdout.trim().replaceAll('\n', ', ') || 'nothing printed'})`,
        'use a bubblewrap that supports --cap-drop, --seccomp and --disable-userns (0.8.0 or newer)',
        detail,
      )
    }
  }

  /** The launcher handed to the local executor. */
  plan(context: BashLaunchContext): BashLaunchPlan {
    if (!this.sandboxed) {
      if (this.unavailable === null) throw new Error('the sandbox has not passed its preflight (or was disposed)')
      return { file: context.shell, args: ['--noprofile', '--norc', '-c', context.request.command] }
    }
    return this.planSandboxed(context)
  }

  private planSandboxed(context: BashLaunchContext): BashLaunchPlan {
    const directory = this.directory
    if (directory === null || this.bwrap === null) throw new Error('the sandbox has been disposed')
    const { policy } = this.config
    const cwd = realFileSystem.realpath(context.request.cwd) ?? context.request.cwd
    const limits = this.limiter?.innerPrefix ?? []
    const liveStubs = this.stubs
    const fs: ProfileFileSystem = {
      kind: (path) => (liveStubs.has(path) ? 'missing' : realFileSystem.kind(path)),
      realpath: realFileSystem.realpath,
      canCreate: (path) => realFileSystem.canCreate?.(path) !== false,
    }
    const hidden = [...policy.hiddenPaths, ...this.extraHidden(), directory]
    this.serial += 1
    const network = this.config.network
    const proxy = network === null ? null : new NetworkProxy({ rules: network.rules, resolve: network.resolve })
    // The bridge: a helper in the sandbox listens on the proxy port there and hands the listening socket over the
    // launch channel before the command starts; the host accepts on it. Nothing in the sandbox needs a unix socket.
    let bridge: Server | null = null
    let bridgeReady = false
    this.lastBridgeReady = false
    const channel =
      proxy === null
        ? undefined
        : (child: ChildProcess): void => {
            child.on('error', (error) => this.log('the network bridge channel failed', error))
            child.once('message', (message: unknown, handle: unknown) => {
              if (child.connected) child.disconnect()
              if (message !== BRIDGE_MESSAGE || !(handle instanceof Server)) {
                if (handle instanceof Server) handle.close()
                return
              }
              bridge = handle
              bridgeReady = true
              this.lastBridgeReady = true
              handle.on('connection', (socket: Socket) => proxy.accept(socket))
              handle.on('error', (error) => this.log('the network bridge failed', error))
            })
          }
    const profile = buildSandboxProfile(
      {
        policy: { ...policy, hiddenPaths: hidden },
        cwd,
        isRoot: this.isRoot,
        emptyFile: this.emptyFile,
        emptyDirectory: this.emptyDirectory,
        home: SANDBOX_HOME,
        seccompFd: SECCOMP_FD,
        statusFd: STATUS_FD,
        argv: [...limits, ...this.innerCommand(context.shell, context.request.command)],
      },
      fs,
    )
    const statusPath = join(directory, `status-${this.serial}`)
    let commandLimits: CommandLimits | null
    try {
      // Made before the command starts, with the limits set; the launch joins it before it execs bwrap.
      commandLimits = this.limiter?.begin() ?? null
    } catch (error) {
      void proxy?.close()
      throw error
    }
    const seccompFd = openSync(this.seccompPath, 'r')
    let statusFd: number
    try {
      statusFd = openSync(statusPath, 'w', 0o600)
    } catch (error) {
      closeSync(seccompFd)
      void proxy?.close()
      void commandLimits?.remove()
      throw error
    }
    try {
      this.makeStubs(profile.stubs)
    } catch (error) {
      closeSync(seccompFd)
      closeSync(statusFd)
      void proxy?.close()
      void commandLimits?.remove()
      throw error
    }
    let open = true
    const bwrapped = commandLimits?.wrap(context.shell, this.bwrap, profile.args) ?? { file: this.bwrap, args: [...profile.args] }
    // Only the descriptors the executor passes reach the command: stdio, the seccomp and status descriptors, and the
    // bridge's channel. Any other this process holds without close-on-exec is closed before bwrap starts.
    const passed = 3 + 2 + (channel === undefined ? 0 : 1)
    const launch = closingDescriptors(bwrapped, context.shell, inheritableDescriptors(passed), passed)
    return {
      file: launch.file,
      args: launch.args,
      env: { ...context.env, HOME: SANDBOX_HOME, TMPDIR: '/tmp', ...(proxy === null ? {} : proxyEnvironment()) },
      cwd: '/',
      extraFds: [seccompFd, statusFd],
      channel,
      settle: (result) => {
        const status = readStatus(statusPath)
        const stoppedBeforeExit = result.stopReason !== null || result.signal !== null
        if (status.exitCode === undefined && !stoppedBeforeExit) {
          return new SandboxSetupError(bwrapLines(result), result.cwd)
        }
        if (proxy !== null && !bridgeReady && !stoppedBeforeExit && status.exitCode === BRIDGE_FAILED_EXIT) {
          return new SandboxSetupError(`the network bridge did not start: ${bwrapLines(result)}`, result.cwd)
        }
        const allowed = network?.rules.map((rule) => (rule.port === null ? rule.host : `${rule.host}:${rule.port}`)) ?? []
        const denials = proxy?.denials ?? []
        let note = policyBlockNote(result, policy, allowed)
        if (denials.length > 0) {
          const refused = denials.map((denial) => `${denial.host}:${denial.port} (${denial.reason})`).join(', ')
          note = `Note: the sandbox's network policy refused ${refused}; only ${allowed.join(', ')} can be reached, and the policy cannot be changed from here.`
        }
        // A limit that ended the command explains the failure better than any guess from its output.
        note = commandLimits?.note(result.exitCode) ?? note
        const executorMeta =
          network === null && commandLimits === null
            ? undefined
            : {
                ...(network === null ? {} : { network: { allow: allowed, denials: denials.map((denial) => ({ ...denial })) } }),
                ...(commandLimits === null ? {} : { limits: commandLimits.meta() }),
              }
        if (note === undefined && executorMeta === undefined) return result
        return Object.freeze({ ...result, ...(note === undefined ? {} : { note }), ...(executorMeta === undefined ? {} : { executorMeta }) })
      },
      cleanup: async () => {
        if (!open) return
        open = false
        if (proxy !== null) {
          // The proxy first: closing it destroys every connection the bridge counts, so the bridge then closes at once.
          // Both waits are bounded: a peer in the sandbox (or a bug) must never keep the call from settling; what did
          // not close in time is logged, and the call settles anyway.
          if (!(await settlesWithin(proxy.close(), CLEANUP_BOUND_MS))) {
            this.log(`the network proxy of a command did not close within ${CLEANUP_BOUND_MS}ms; the command's result is delivered anyway`)
          }
          const listening = bridge as Server | null
          if (listening !== null && !(await settlesWithin(new Promise((resolve) => listening.close(resolve)), CLEANUP_BOUND_MS))) {
            this.log(`the network bridge of a command did not close within ${CLEANUP_BOUND_MS}ms; the command's result is delivered anyway`)
          }
        }
        closeSync(seccompFd)
        closeSync(statusFd)
        rmSync(statusPath, { force: true })
        this.releaseStubs(profile.stubs)
        await commandLimits?.remove()
      },
    }
  }

  /** What runs inside the sandbox: the shell, behind the bridge to the proxy when the network has an allow list. */
  private innerCommand(shell: string, command: string): string[] {
    if (this.config.network === null) return [shell, '--noprofile', '--norc', '-c', command]
    return bridgeCommand({ shell, node: this.node, command })
  }

  /**
   * Makes the mount points of one command's covers on the host (shallowest first), counting the commands that use
   * each. One that cannot be made throws (the command does not start); those made before it are released.
   */
  private makeStubs(stubs: readonly SandboxStub[]): void {
    const made: SandboxStub[] = []
    try {
      for (const stub of stubs) {
        const count = this.stubs.get(stub.path) ?? 0
        if (count === 0) {
          // The profile's paths are canonical: a parent that no longer resolves to itself was swapped for a link since
          // (by a command running now), and nothing is made through it.
          const parent = dirname(stub.path)
          if (realpathSync.native(parent) !== parent) throw new Error(`${parent} changed while the command was being set up`)
          try {
            if (stub.kind === 'directory') mkdirSync(stub.path, { mode: 0o700 })
            else closeSync(openSync(stub.path, 'wx', 0o600))
            // Owned like its parent: a directory made to hold a deeper mount point stays as writable for the command's
            // user as the directory the command could have made there itself.
            if (this.isRoot) {
              const owner = statSync(parent)
              lchownSync(stub.path, owner.uid, owner.gid)
            }
          } catch (error) {
            // Made in the meantime (by the host's user): it is a real path now, covered all the same, and not ours to remove.
            if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
            continue
          }
        }
        this.stubs.set(stub.path, count + 1)
        made.push(stub)
      }
    } catch (error) {
      this.releaseStubs(made)
      throw new Error(`the sandbox could not make the mount point ${stubs[made.length]?.path ?? ''} of a protected path: ${(error as Error).message}`, {
        cause: error,
      })
    }
    this.stubsOf.set(stubs, made)
  }

  /** Removes the mount points a command made once no running command uses them (deepest first). */
  private releaseStubs(stubs: readonly SandboxStub[]): void {
    for (const { path } of [...(this.stubsOf.get(stubs) ?? stubs)].reverse()) {
      const count = (this.stubs.get(path) ?? 1) - 1
      if (count > 0) {
        this.stubs.set(path, count)
        continue
      }
      this.stubs.delete(path)
      try {
        const stat = lstatSync(path)
        if (stat.isDirectory()) rmdirSync(path)
        else if (stat.isFile() && stat.size === 0) unlinkSync(path)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        // ENOTEMPTY: a directory made only to hold a mount point deeper down, in which a command wrote files (a
        // directory it could create anyway): its files are the command's output, left where they are.
        if (code !== 'ENOENT' && code !== 'ENOTEMPTY') this.log(`could not remove the sandbox mount point ${path} (${code ?? String(error)})`)
      }
    }
    this.stubsOf.delete(stubs)
  }

  private removeDirectory(): void {
    if (this.directory === null) return
    rmSync(this.directory, { recursive: true, force: true })
    this.directory = null
  }

  private readonly removeOnExit = (): void => {
    this.removeDirectory()
    this.limiter?.dispose()
  }

  dispose(): void {
    process.off('exit', this.removeOnExit)
    this.sandboxed = false
    this.unavailable = null
    this.removeDirectory()
    this.limiter?.dispose()
    this.limiter = null
  }
}

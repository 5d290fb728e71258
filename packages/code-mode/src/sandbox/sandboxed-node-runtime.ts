import { spawn, type ChildProcess } from 'node:child_process'
import type { Readable, Writable } from 'node:stream'
import { buildSeccompProgram, currentSeccompArch, encodeSeccompProgram, inheritableDescriptors } from '@dsh/tool-bash-sandbox'
import type { CodeCallOutcome, CodeLimits, CodeOutcome, CodeRunRequest, CodeRuntime } from '../code-runtime.js'
import { nodeRunnerSource } from './node-runner.js'
import { CLOCK_TICKS_PER_SECOND, descendants, findExecutable, readStat, systemMounts } from './sandbox-launch.js'
import { checkCallOutcome, checkLimits } from '../runtime-checks.js'

/** The largest V8 stack a program gets, whatever `limits.stackBytes` asks (the process's own stack is 8 MiB). */
export const SANDBOXED_NODE_MAX_STACK_BYTES = 4 * 1024 * 1024
const MIN_STACK_BYTES = 64 * 1024
const OS_STACK_BYTES = 8 * 1024 * 1024
const SECCOMP_FD = 3
const PATH = '/usr/bin:/bin'
const PROBE_TIMEOUT_MS = 20_000
const CPU_POLL_MS = 10

/** Options of {@link SandboxedNodeRuntime}. */
export interface SandboxedNodeRuntimeOptions {
  /** The bubblewrap binary: a path, or a name looked up on PATH (default `bwrap`). */
  readonly bwrap?: string
  /** The Node binary that runs programs (default: this process's own, `process.execPath`). */
  readonly node?: string
  /** `prlimit` (util-linux), which sets the process's rlimits (default `prlimit`). */
  readonly prlimit?: string
  /**
   * Address space allowed on top of what Node reserves at start and `limits.memoryBytes` (default 64 MiB): room for
   * compiled code and the threads Node starts lazily. ArrayBuffers and other memory outside the V8 heap are bounded by
   * `memoryBytes` plus this.
   */
  readonly addressSpaceSlackBytes?: number
  /**
   * Node's permission model inside the sandbox (default true): no file system, no child processes, no worker threads,
   * no native addons for the program, on top of the sandbox. `false` leaves the sandbox as the only boundary (the
   * program may then spawn processes inside it and read the read-only system directories).
   */
  readonly nodePermissions?: boolean
}

/** Why the sandbox cannot run here. */
export type SandboxedNodeUnavailableReason =
  | 'unsupported-platform'
  | 'unsupported-architecture'
  | 'bwrap-missing'
  | 'prlimit-missing'
  | 'node-missing'
  | 'preflight-failed'
  | 'profile-not-enforced'

/** What {@link SandboxedNodeRuntime.check} found. */
export type SandboxedNodeCheck =
  | {
      readonly ok: true
      /** The binaries in use (canonical paths). */
      readonly bwrap: string
      readonly node: string
      /** The address space Node reserves at start inside the sandbox, in bytes (measured). */
      readonly baseAddressSpaceBytes: number
    }
  | {
      readonly ok: false
      readonly reason: SandboxedNodeUnavailableReason
      /** What is wrong, for a log or the user (no program output in it). */
      readonly message: string
      /** What to do about it. */
      readonly fix: string
      /** What bwrap or Node printed, for the operator (never part of a run's outcome). */
      readonly detail?: string
    }

interface Ready {
  readonly bwrap: string
  readonly node: string
  readonly prlimit: string
  /** bash, to close inherited descriptors (dash cannot name descriptors above 9); undefined when absent. */
  readonly bash: string | undefined
  readonly seccomp: Buffer
  readonly baseAddressSpaceBytes: number
}

function unavailable(reason: SandboxedNodeUnavailableReason, message: string, fix: string, detail = ''): SandboxedNodeCheck {
  return detail === '' ? { ok: false, reason, message, fix } : { ok: false, reason, message, fix, detail }
}

function aborted(message = 'the run was aborted'): CodeOutcome {
  return { ok: false, kind: 'aborted', message }
}

function failed(kind: 'error' | 'timeout' | 'memory', message: string): CodeOutcome {
  return { ok: false, kind, message }
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

const clip = (value: unknown, max: number): string | undefined => (typeof value === 'string' ? value.slice(0, max) : undefined)

/** What V8 prints when it dies of memory: the heap limit, or an allocation refused by the address-space limit. */
const OUT_OF_MEMORY = /JavaScript heap out of memory|Fatal process out of memory|Fatal process OOM|Reached heap limit|Allocation failed|invalid size error|Out of memory|bad_alloc/i
const LEVELS: ReadonlySet<string> = new Set(['log', 'info', 'warn', 'error', 'debug'])

/** The flags of the sandboxed Node for one run's limits. */
function nodeFlags(limits: Pick<CodeLimits, 'memoryBytes' | 'stackBytes'>, permissions: boolean): string[] {
  const heapMb = Math.max(4, Math.floor(limits.memoryBytes / (1024 * 1024)))
  const stackKb = Math.floor(Math.min(Math.max(limits.stackBytes, MIN_STACK_BYTES), SANDBOXED_NODE_MAX_STACK_BYTES) / 1024)
  return [
    ...(permissions ? ['--experimental-permission'] : []),
    '--no-warnings',
    `--max-old-space-size=${heapMb}`,
    `--max-semi-space-size=${Math.min(16, Math.max(1, Math.floor(heapMb / 16)))}`,
    `--stack-size=${stackKb}`,
  ]
}

/** The namespaces and mounts of every run: the tool-bash-sandbox profile's namespaces, with a minimal read-only root. */
function bwrapArgs(ready: Pick<Ready, 'node'>, argv: readonly string[]): string[] {
  return [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--clearenv',
    '--setenv',
    'PATH',
    PATH,
    '--hostname',
    'sandbox',
    ...systemMounts(ready.node),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--ro-bind',
    '/proc/sys',
    '/proc/sys',
    ...['/proc/sysrq-trigger', '/proc/irq', '/proc/bus', '/proc/fs'].flatMap((path) => ['--ro-bind-try', path, path]),
    '--size',
    String(16 * 1024 * 1024),
    '--perms',
    '1777',
    '--tmpfs',
    '/tmp',
    // The root itself is bwrap's tmpfs: read-only too, so only /tmp takes writes.
    '--remount-ro',
    '/',
    '--chdir',
    '/tmp',
    '--seccomp',
    String(SECCOMP_FD),
    '--',
    ...argv,
  ]
}

interface Launch {
  readonly child: ChildProcess
  readonly stdin: Writable
  readonly stdout: Readable
  readonly stderr: Readable
}

/**
 * Starts bwrap under prlimit with a clean environment (`PATH` only: inside its PID namespace bwrap's init is process
 * 1, and `/proc/1/environ` shows what bwrap was started with), in a process group of its own, the seccomp program
 * written to descriptor 3. Descriptors the host inherited without close-on-exec are closed by bash first, which then
 * execs with an empty environment (`exec -c`: nothing of bash's own, such as `PWD` or `SHLVL`, reaches the sandbox).
 */
function launch(ready: Ready, rlimits: string[], argv: readonly string[]): Launch {
  const command = [ready.prlimit, ...rlimits, '--', ready.bwrap, ...bwrapArgs(ready, argv)]
  const inherited = inheritableDescriptors(SECCOMP_FD + 1)
  const close =
    inherited === undefined
      ? `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; [ "$fd" -gt ${SECCOMP_FD} ] && eval "exec $fd>&-"; done; `
      : inherited.length === 0
        ? undefined
        : `exec ${inherited.map((fd) => `${fd}>&-`).join(' ')}; `
  if (close !== undefined && ready.bash === undefined) throw new Error('no bash to close inherited descriptors')
  const [file, ...args] = close === undefined ? command : [ready.bash as string, '--noprofile', '--norc', '-c', `${close}exec -c "$@"`, 'dsh-code-sandbox', ...command]
  const child = spawn(file as string, args, { env: { PATH }, cwd: '/', stdio: ['pipe', 'pipe', 'pipe', 'pipe'], detached: true })
  const seccomp = child.stdio[SECCOMP_FD] as Writable
  seccomp.on('error', () => {})
  seccomp.end(ready.seccomp)
  const { stdin, stdout, stderr } = child as ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable }
  stdin.on('error', () => {})
  return { child, stdin, stdout, stderr }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    // gone already
  }
}

const PROBE = String.raw`const status = require('node:fs').readFileSync('/proc/self/status', 'utf8')
const field = (name) => (new RegExp('^' + name + ':\\s*(\\S+)', 'm').exec(status) || [])[1]
process.stdout.write(JSON.stringify({ vmKb: Number(field('VmSize')), capEff: field('CapEff'), seccomp: field('Seccomp'), noNewPrivs: field('NoNewPrivs'), pid: process.pid }))`

/**
 * A {@link CodeRuntime} that runs each program in a fresh Node process inside a bubblewrap sandbox (Linux): the
 * namespaces of `@dsh/tool-bash-sandbox`'s profile (no network, its own PIDs, IPC and hostname, a user namespace that
 * cannot make more, every capability dropped) and its seccomp filter, over a minimal read-only root (the system's
 * binary and library directories and the Node binary; a small private `/tmp`; no home, no project, no `/etc`), a
 * clean environment, a new session, and the process dies with the host. Inside, Node's permission model refuses files,
 * child processes and workers to the program as a second layer.
 *
 * Limits: the V8 heap (`--max-old-space-size` from `memoryBytes`), the address space (`RLIMIT_AS`: what Node reserves
 * at start, measured by {@link check}, plus `memoryBytes` plus a slack, so ArrayBuffers are bounded too), the V8 stack
 * (`--stack-size`, at most {@link SANDBOXED_NODE_MAX_STACK_BYTES}), CPU time (the host reads the process's CPU time
 * every 10 ms; `RLIMIT_CPU` a few seconds above the budget backs it up), and wall-clock time and the run's signal (the
 * host kills the process group, and the sandbox dies with it). The program gets the same `tools`, strict encoder and
 * bounded `console` as under QuickJS, on top of Node's own globals. Everything the process writes is hostile input to
 * the host: bounded lines, checked JSON, and nothing after the run settled.
 */
export class SandboxedNodeRuntime implements CodeRuntime {
  readonly name = 'node-sandbox'
  readonly #options: SandboxedNodeRuntimeOptions
  #check: Promise<{ check: SandboxedNodeCheck; ready?: Ready }> | undefined
  readonly #runs = new Set<SandboxRun>()
  #closed = false

  constructor(options: SandboxedNodeRuntimeOptions = {}) {
    this.#options = options
  }

  /**
   * Proves the sandbox works here, once (later calls return the same answer): Linux on x64 or arm64, the binaries, then
   * one sandboxed Node started, checking from inside that capabilities are gone, seccomp is on and no_new_privs is set,
   * and measuring the address space Node reserves at start. Never throws. A run awaits it; a host that wants to know up
   * front (to fall back to QuickJS, or to fail its own start) calls it first.
   */
  async check(): Promise<SandboxedNodeCheck> {
    this.#check ??= this.#preflight()
    return (await this.#check).check
  }

  async #preflight(): Promise<{ check: SandboxedNodeCheck; ready?: Ready }> {
    if (process.platform !== 'linux') {
      return { check: unavailable('unsupported-platform', `bubblewrap sandboxes exist on Linux only, this is ${process.platform}`, 'run the agent on Linux, or use QuickJsRuntime') }
    }
    const arch = currentSeccompArch()
    if (arch === undefined) {
      return { check: unavailable('unsupported-architecture', `the seccomp filter is built for x64 and arm64, this is ${process.arch}`, 'run on x64 or arm64, or use QuickJsRuntime') }
    }
    const bwrap = findExecutable(this.#options.bwrap ?? 'bwrap')
    if (bwrap === undefined) {
      return {
        check: unavailable('bwrap-missing', 'bubblewrap (bwrap) is not installed or not on PATH', 'install it: apt-get install -y bubblewrap (Debian, Ubuntu), dnf install bubblewrap (Fedora), or pass its path as the bwrap option'),
      }
    }
    const prlimit = findExecutable(this.#options.prlimit ?? 'prlimit')
    if (prlimit === undefined) {
      return { check: unavailable('prlimit-missing', 'prlimit (util-linux) is not installed or not on PATH', 'install util-linux, or pass its path as the prlimit option') }
    }
    const node = findExecutable(this.#options.node ?? process.execPath)
    if (node === undefined) return { check: unavailable('node-missing', 'the Node binary was not found', 'pass the path of a Node 20 binary as the node option') }
    const base: Ready = { bwrap, node, prlimit, bash: findExecutable('bash'), seccomp: encodeSeccompProgram(buildSeccompProgram(arch)), baseAddressSpaceBytes: 0 }
    const flags = nodeFlags({ memoryBytes: 64 * 1024 * 1024, stackBytes: 1024 * 1024 }, false)
    let probe: Launch
    try {
      probe = launch(base, ['--core=0', `--stack=${OS_STACK_BYTES}`], [node, ...flags, '-e', PROBE])
    } catch (error) {
      return { check: unavailable('preflight-failed', `the sandbox could not be launched (${(error as Error).message})`, 'install bash, or start the host without inheritable descriptors') }
    }
    const { child, stdout, stderr } = probe
    let out = ''
    let err = ''
    stdout.on('data', (chunk: Buffer) => (out = (out + chunk.toString('utf8')).slice(0, 4096)))
    stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-4096)))
    const timer = setTimeout(() => killGroup(child), PROBE_TIMEOUT_MS)
    const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
      child.once('error', (error) => resolve({ code: null, error }))
      child.once('close', (code) => resolve({ code }))
    })
    clearTimeout(timer)
    if (exit.error !== undefined) {
      return { check: unavailable('preflight-failed', `bubblewrap could not be executed (${exit.error.message})`, 'check that bwrap and prlimit are executable by this user') }
    }
    let facts: { vmKb?: unknown; capEff?: unknown; seccomp?: unknown; noNewPrivs?: unknown; pid?: unknown } = {}
    try {
      facts = JSON.parse(out) as typeof facts
    } catch {
      const bwrapSaid = err.split('\n').find((line) => line.startsWith('bwrap:'))
      return {
        check: unavailable(
          'preflight-failed',
          `a test run of Node in the sandbox failed (exit ${exit.code ?? 'by a signal'}${bwrapSaid === undefined ? '' : `; ${bwrapSaid.slice(0, 300)}`})`,
          'run the tool-bash-sandbox preflight (SandboxedBashExecutor) for a diagnosis; user namespaces must be allowed',
          err.trim().slice(-1000),
        ),
      }
    }
    if (!/^0+$/.test(String(facts.capEff)) || facts.seccomp !== '2' || facts.noNewPrivs !== '1' || facts.pid === 1) {
      return {
        check: unavailable(
          'profile-not-enforced',
          `the sandbox started but is not enforced (inside it: CapEff ${String(facts.capEff)}, Seccomp ${String(facts.seccomp)}, NoNewPrivs ${String(facts.noNewPrivs)})`,
          'use a bubblewrap that supports --cap-drop, --seccomp and --disable-userns (0.8.0 or newer)',
        ),
      }
    }
    const vmKb = Number(facts.vmKb)
    if (!Number.isFinite(vmKb) || vmKb <= 0) return { check: unavailable('preflight-failed', 'the test run could not measure Node in the sandbox', 'report this as a bug') }
    const ready: Ready = { ...base, baseAddressSpaceBytes: vmKb * 1024 }
    return { check: { ok: true, bwrap, node, baseAddressSpaceBytes: ready.baseAddressSpaceBytes }, ready }
  }

  run(request: CodeRunRequest): Promise<CodeOutcome> {
    return new Promise<CodeOutcome>((resolve) => {
      if (this.#closed) return resolve(aborted('the code runtime is closed'))
      const invalid = checkLimits(request?.limits)
      if (invalid !== undefined) return resolve(failed('error', invalid))
      if (request.signal.aborted) return resolve(aborted())
      const run = new SandboxRun(request, (outcome) => {
        this.#runs.delete(run)
        resolve(outcome)
      })
      this.#runs.add(run)
      this.#check ??= this.#preflight()
      this.#check.then(
        ({ check, ready }) => {
          if (run.settled) return run.release()
          if (ready === undefined || !check.ok) return run.end(failed('error', `the sandbox is not available: ${check.ok ? 'unknown' : check.message}`))
          run.start(ready, this.#options)
        },
        () => run.end(failed('error', 'the sandbox is not available: its check failed')),
      )
    })
  }

  async close(): Promise<void> {
    this.#closed = true
    const ending = [...this.#runs].map((run) => run.closed)
    for (const run of this.#runs) run.end(aborted('the code runtime was closed'))
    await Promise.all(ending)
  }
}

/** One run on the host side: its process, its watchdogs, its signal, and the protocol with the runner. */
class SandboxRun {
  readonly #request: CodeRunRequest
  readonly #limits: CodeLimits
  readonly #resolve: (outcome: CodeOutcome) => void
  #outcome: CodeOutcome | undefined
  #launch: Launch | undefined
  #done = false
  #wall: NodeJS.Timeout | undefined
  #cpu: NodeJS.Timeout | undefined
  #nodePid: number | undefined
  #cpuStart = 0
  #addressSpace = 0
  #peakVirtualBytes = 0
  #buffer = ''
  #maxLine: number
  #started = false
  readonly #seenCalls = new Set<number>()
  #logLeft: number
  #logsDropped = 0
  #stderr = ''
  #markClosed!: () => void
  /** Resolves once the process is gone (or never started). */
  readonly closed = new Promise<void>((resolve) => (this.#markClosed = resolve))
  readonly #onAbort = (): void => this.end(aborted())

  constructor(request: CodeRunRequest, resolve: (outcome: CodeOutcome) => void) {
    this.#request = request
    this.#limits = request.limits
    this.#resolve = resolve
    this.#logLeft = request.limits.maxLogBytes + 512
    // JSON text inside a JSON string may grow up to 7 times (a control character becomes \\u0000).
    this.#maxLine = 8 * Math.max(request.limits.maxArgBytes, request.limits.maxValueBytes, request.limits.maxLogBytes) + 4096
    request.signal.addEventListener('abort', this.#onAbort, { once: true })
    this.#wall = setTimeout(() => this.end(failed('timeout', `the program ran out of wall-clock time (${request.limits.wallMs} ms)`)), request.limits.wallMs)
  }

  get settled(): boolean {
    return this.#outcome !== undefined
  }

  start(ready: Ready, options: SandboxedNodeRuntimeOptions): void {
    const limits = this.#limits
    const slack = Math.max(0, options.addressSpaceSlackBytes ?? 64 * 1024 * 1024)
    const addressSpace = Math.ceil(ready.baseAddressSpaceBytes + limits.memoryBytes + slack)
    this.#addressSpace = addressSpace
    const cpuSeconds = Math.ceil(limits.cpuMs / 1000) + 2
    const rlimits = [`--as=${addressSpace}`, `--cpu=${cpuSeconds}`, `--stack=${OS_STACK_BYTES}`, '--core=0']
    const argv = [ready.node, ...nodeFlags(limits, options.nodePermissions !== false), '-e', nodeRunnerSource]
    let started: Launch
    try {
      started = launch(ready, rlimits, argv)
    } catch {
      this.end(failed('error', 'the sandbox is not available: its launch could not be prepared'))
      return
    }
    this.#launch = started
    const { child, stdout, stderr } = started
    stdout.on('data', (chunk: Buffer) => this.#receive(chunk))
    stderr.on('data', (chunk: Buffer) => (this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-16_384)))
    child.once('error', () => this.end(failed('error', 'the sandbox is not available: bwrap could not be started')))
    child.once('close', (code, signal) => {
      this.#exited(code, signal)
      this.release()
    })
  }

  #receive(chunk: Buffer): void {
    if (this.#outcome !== undefined) return
    this.#buffer += chunk.toString('utf8')
    let newline: number
    while (this.#outcome === undefined && (newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline)
      this.#buffer = this.#buffer.slice(newline + 1)
      this.#message(line)
    }
    if (this.#outcome === undefined && this.#buffer.length > this.#maxLine) {
      this.end(failed('error', 'the sandboxed program sent a message over the size limit'))
    }
  }

  #violation(): void {
    this.end(failed('error', 'the sandboxed program broke the protocol with the host (it wrote something else than its messages)'))
  }

  #message(line: string): void {
    if (line.length > this.#maxLine) return this.#violation()
    let message: Record<string, unknown>
    try {
      const parsed: unknown = JSON.parse(line)
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return this.#violation()
      message = parsed as Record<string, unknown>
    } catch {
      return this.#violation()
    }
    const type = message['t']
    if (type === 'ready') {
      if (this.#started) return this.#violation()
      this.#started = true
      this.#startProgram()
    } else if (type === 'call') {
      this.#call(message)
    } else if (type === 'log') {
      this.#log(message)
    } else if (type === 'end') {
      this.#end(message)
    } else {
      this.#violation()
    }
  }

  #startProgram(): void {
    const launched = this.#launch
    if (launched?.child.pid === undefined) return
    // The process that runs the program: the sandbox's init's child (bwrap → init → node).
    const family = descendants(launched.child.pid)
    this.#nodePid = family.find((pid) => readStat(pid)?.parent !== launched.child.pid) ?? family.at(-1)
    this.#cpuStart = this.#nodePid === undefined ? 0 : (readStat(this.#nodePid)?.ticks ?? 0)
    const { program, tools, limits } = this.#request
    const config = {
      tools: tools.map(({ identifier, tool }) => ({ identifier, tool })),
      maxArgBytes: limits.maxArgBytes,
      maxLogBytes: limits.maxLogBytes,
      maxValueBytes: limits.maxValueBytes,
    }
    this.#send({ t: 'start', program, config })
    this.#cpu = setInterval(() => this.#checkCpu(), CPU_POLL_MS)
  }

  #checkCpu(): void {
    if (this.#nodePid === undefined) return
    const stat = readStat(this.#nodePid)
    if (stat === undefined) return
    this.#peakVirtualBytes = Math.max(this.#peakVirtualBytes, stat.virtualBytes)
    const usedMs = ((stat.ticks - this.#cpuStart) * 1000) / CLOCK_TICKS_PER_SECOND
    if (usedMs > this.#limits.cpuMs) this.end(failed('timeout', `the program used up its CPU time (${this.#limits.cpuMs} ms)`))
  }

  #send(message: object): void {
    if (this.#outcome !== undefined) return
    this.#launch?.stdin.write(`${JSON.stringify(message)}\n`)
  }

  #call(message: Record<string, unknown>): void {
    const { id, tool, args } = message
    if (!this.#started || typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1 || this.#seenCalls.has(id)) return this.#violation()
    if (typeof tool !== 'string' || typeof args !== 'string') return this.#violation()
    this.#seenCalls.add(id)
    // The raw bridge is hostile input: the encoder inside may have been bypassed, so the host checks again.
    if (Buffer.byteLength(args, 'utf8') > this.#limits.maxArgBytes || !isJsonText(args)) {
      const error = { name: 'TypeError', code: 'INVALID_ARGS', message: `the argument must be JSON text of at most ${this.#limits.maxArgBytes} bytes` }
      return this.#send({ t: 'settle', id, ok: false, error })
    }
    let pending: Promise<CodeCallOutcome>
    try {
      pending = Promise.resolve(this.#request.bridge.call(tool, args))
    } catch (error) {
      pending = Promise.reject(error)
    }
    pending.then(
      (outcome) => this.#settle(id, checkCallOutcome(outcome)),
      () => this.#settle(id, checkCallOutcome(undefined)),
    )
  }

  #settle(id: number, outcome: CodeCallOutcome): void {
    this.#send(outcome.ok ? { t: 'settle', id, ok: true, json: outcome.json } : { t: 'settle', id, ok: false, error: outcome.error })
  }

  #log(message: Record<string, unknown>): void {
    const { level, text } = message
    if (typeof level !== 'string' || !LEVELS.has(level) || typeof text !== 'string') return this.#violation()
    const bytes = Buffer.byteLength(text, 'utf8') + 1
    if (bytes > this.#logLeft) {
      this.#logsDropped++
      return
    }
    this.#logLeft -= bytes
    try {
      this.#request.bridge.log(level as 'log', text)
    } catch {
      // The host's log sink failing is not the program's failure.
    }
  }

  #end(message: Record<string, unknown>): void {
    const limits = this.#limits
    if (message['ok'] === true) {
      const value = message['value']
      if (value === undefined) return this.end({ ok: true, valueJson: undefined })
      if (typeof value !== 'string') return this.#violation()
      if (Buffer.byteLength(value, 'utf8') > limits.maxValueBytes) return this.end(failed('error', `the returned value is over the limit of ${limits.maxValueBytes} bytes of JSON`))
      if (!isJsonText(value)) return this.end(failed('error', 'the returned value is not JSON'))
      return this.end({ ok: true, valueJson: value })
    }
    if (message['kind'] === 'memory') return this.end(failed('memory', `the program ran out of memory (${limits.memoryBytes} bytes)`))
    const name = clip(message['name'], 200)
    const code = clip(message['code'], 200)
    const text = clip(message['message'], 4000) ?? ''
    const line = typeof message['line'] === 'string' && /^\d{1,9}$/.test(message['line']) ? message['line'] : undefined
    const refusedValue = message['what'] === 'value'
    const composed = refusedValue || name === undefined ? text : `${name}: ${text}`
    this.end({
      ok: false,
      kind: 'error',
      message: line === undefined ? composed : `${composed} (line ${line})`,
      ...(refusedValue || name === undefined ? {} : { name }),
      ...(refusedValue || code === undefined ? {} : { code }),
    })
  }

  /** The process ended before the run had an outcome: how it died says why. */
  #exited(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#outcome !== undefined) return
    const limits = this.#limits
    if (OUT_OF_MEMORY.test(this.#stderr)) return this.end(failed('memory', `the program ran out of memory (${limits.memoryBytes} bytes)`))
    // bwrap reports a signal death of the process inside as 128 + the signal; SIGXCPU (24) is RLIMIT_CPU.
    if (signal === 'SIGXCPU' || code === 128 + 24) return this.end(failed('timeout', `the program used up its CPU time (${limits.cpuMs} ms)`))
    // Refused by the address-space limit, some allocations end in an abort or a segmentation fault without V8's
    // message. Seen near the limit (the CPU watchdog samples the address space too), that is memory; elsewhere, a crash.
    const crashed = ['SIGSEGV', 'SIGBUS', 'SIGABRT', 'SIGTRAP'].includes(signal ?? '') || [128 + 11, 128 + 7, 128 + 6, 128 + 5].includes(code ?? 0)
    if (crashed && this.#peakVirtualBytes > this.#addressSpace - limits.memoryBytes / 2 - 64 * 1024 * 1024) {
      return this.end(failed('memory', `the program ran out of memory (${limits.memoryBytes} bytes): its process crashed at its address-space limit`))
    }
    if (!this.#started) {
      const bwrapFailed = this.#stderr.split('\n').some((line) => line.startsWith('bwrap:'))
      return this.end(failed('error', bwrapFailed ? 'the sandbox is not available: bwrap could not set up the sandbox' : 'the sandboxed Node process stopped before it was ready'))
    }
    this.end(failed('error', `the sandboxed Node process ${crashed ? 'crashed' : 'stopped'} (${signal ?? `exit ${code ?? '?'}`}) before the program ended`))
  }

  /** Settles the run once; the outcome is delivered once the process (and with it the whole sandbox) is gone. */
  end(outcome: CodeOutcome): void {
    if (this.#outcome !== undefined) return
    this.#outcome = outcome
    clearTimeout(this.#wall)
    clearInterval(this.#cpu)
    this.#request.signal.removeEventListener('abort', this.#onAbort)
    if (this.#logsDropped > 0) {
      try {
        this.#request.bridge.log('warn', `… ${this.#logsDropped} more log line${this.#logsDropped === 1 ? '' : 's'} dropped by the host: the program's logs are limited to ${this.#limits.maxLogBytes} bytes`)
      } catch {
        // not the program's failure
      }
    }
    const launched = this.#launch
    if (launched === undefined) return this.release()
    launched.stdin.destroy()
    killGroup(launched.child)
  }

  /** Delivers the outcome once there is one and no process is left. */
  release(): void {
    if (this.#launch !== undefined && this.#launch.child.exitCode === null && this.#launch.child.signalCode === null) return
    if (this.#done || this.#outcome === undefined) return
    this.#done = true
    this.#markClosed()
    this.#resolve(this.#outcome)
  }
}

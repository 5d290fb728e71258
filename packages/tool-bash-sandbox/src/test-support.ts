// Helpers of this package's integration tests (not part of the build's entry, not exported).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createSocket, type Socket as UdpSocket } from 'node:dgram'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalBashExecutor, type BashExecutor, type LocalBashConfig } from '@dsh/tool-bash'
import { Context, type Fiber } from 'cordis'
import { beforeAll, describe } from 'vitest'
import type { SandboxedBashConfig } from './sandbox-config.js'
import { SandboxedBashExecutor } from './sandboxed-bash-executor.js'

/** The uid the unprivileged runs use (nobody). */
export const NOBODY = 65534

/**
 * The title of the suite every test that runs commands in a real bubblewrap sandbox sits under. The test command's
 * summary (tooling/summarize-tests.mjs) looks for it: when none of these tests ran it says so on its closing lines,
 * with the reason and the fix, and with `CI=true` that fails the run.
 */
export const SANDBOX_SUITE_TITLE = 'in a bubblewrap sandbox'

const bubblewrapFound = (): boolean => spawnSync('bwrap', ['--version'], { encoding: 'utf8' }).status === 0

/** Fails with the fix when bubblewrap is missing (the suite's first hook, so every test in it fails with this). */
function requireBubblewrap(): void {
  if (!bubblewrapFound()) {
    throw new Error('bubblewrap is not installed, so the sandbox tests cannot run. Fix: apt-get install -y bubblewrap (as root; .ci/run does it on CI).')
  }
}

/**
 * Declares tests that need a real bubblewrap, under {@link SANDBOX_SUITE_TITLE}. With bubblewrap, or with
 * `CI=true` (where a missing sandbox must fail the run: every test then fails naming the fix), they run. Without
 * bubblewrap elsewhere they are not declared at all (never skipped), and the summary line of the test command says
 * that they did not run and why.
 */
export function describeInSandbox(declare: () => void): void {
  if (!bubblewrapFound() && process.env['CI'] !== 'true') return
  describe(SANDBOX_SUITE_TITLE, () => {
    beforeAll(() => requireBubblewrap())
    declare()
  })
}

/** Everything one run of the escape matrix works with: directories owned by the run's uid, host-side targets. */
export interface MatrixHost {
  readonly uid: number
  readonly base: string
  readonly workdir: string
  readonly outside: string
  readonly outsideFile: string
  readonly secrets: string
  readonly secretToken: string
  readonly environToken: string
  readonly helperPid: number
  readonly tcpPort: number
  readonly udpPort: number
  readonly dnsPort: number
  readonly unixPath: string
  /** A stream socket outside /run and /tmp (and every hidden path): in a directory under /var/tmp. */
  readonly unixOutsidePath: string
  /** A datagram socket next to it, served by a host helper that appends what it receives to `datagramLog`. */
  readonly unixDatagramPath: string
  readonly datagramLog: string
  readonly abstractName: string
  /** The datagrams the host's UDP listeners received, as text. */
  readonly datagrams: string[]
  /** Connections the host's stream servers accepted, by server. */
  readonly accepted: { tcp: number; unix: number; unixOutside: number; abstract: number }
  /** A wrapper that runs a program as the run's uid (the program itself for root). */
  readonly asUid: (program: string) => string
  readonly close: () => Promise<void>
}

function listen(server: Server, where: string | number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    if (typeof where === 'number') server.listen(where, '127.0.0.1', () => resolve())
    else server.listen(where, () => resolve())
  })
}

function bindUdp(socket: UdpSocket): Promise<number> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject)
    socket.bind(0, '127.0.0.1', () => resolve(socket.address().port))
  })
}

/** A host process (python3: Node cannot bind unix datagram sockets) that logs every datagram sent to `path`. */
async function startDatagramListener(path: string, log: string): Promise<ChildProcess> {
  const script =
    'import os, socket, sys\n' +
    's = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nos.chmod(sys.argv[1], 0o777)\n' +
    "print('ready', flush=True)\n" +
    "while True:\n    data = s.recv(4096)\n    with open(sys.argv[2], 'ab') as f:\n        f.write(data + b'\\n')\n"
  const helper = spawn('/usr/bin/python3', ['-c', script, path, log], { stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    helper.once('error', reject)
    helper.once('exit', (code) => reject(new Error(`the datagram listener exited (${code})`)))
    helper.stdout?.once('data', () => resolve())
  })
  helper.removeAllListeners('exit')
  return helper
}

/** Creates the host side of one matrix run (as root; files chowned to `uid`). */
export async function openMatrixHost(uid: number): Promise<MatrixHost> {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `dsh-sbx-matrix-${uid}-`)))
  chmodSync(base, 0o755)
  const own = (path: string): void => chownSync(path, uid, uid)
  const make = (path: string): string => {
    mkdirSync(path, { recursive: true })
    own(path)
    return path
  }
  const workdir = make(join(base, 'work'))
  const outside = make(join(base, 'outside'))
  const outsideFile = join(outside, 'target.txt')
  writeFileSync(outsideFile, 'original\n')
  own(outsideFile)
  const secrets = make(join(base, 'secrets'))
  chmodSync(secrets, 0o700)
  const secretToken = `SECRET-${Math.random().toString(36).slice(2)}`
  writeFileSync(join(secrets, 'id_fake'), `${secretToken}\n`, { mode: 0o600 })
  own(join(secrets, 'id_fake'))
  const bin = make(join(base, 'bin'))
  const asUid = (program: string): string => {
    if (uid === 0) return program
    const wrapper = join(bin, `${program.split('/').pop() ?? 'program'}-as-${uid}`)
    if (!existsSync(wrapper)) {
      writeFileSync(
        wrapper,
        `#!/bin/sh\nexec /usr/bin/setpriv --reuid=${uid} --regid=${uid} --clear-groups --inh-caps=-all ${program} "$@"\n`,
        { mode: 0o755 },
      )
    }
    return wrapper
  }

  const environToken = `ENVIRON-${Math.random().toString(36).slice(2)}`
  const helper: ChildProcess = spawn('/usr/bin/sleep', ['3600'], {
    uid,
    gid: uid,
    env: { DSH_FAKE_TOKEN: environToken },
    stdio: 'ignore',
    detached: true,
  })
  const helperPid = helper.pid as number

  const accepted = { tcp: 0, unix: 0, unixOutside: 0, abstract: 0 }
  const stream = (kind: keyof typeof accepted): Server =>
    createServer((socket) => {
      accepted[kind] += 1
      socket.end(`host-${kind}\n`)
    })
  const tcp = stream('tcp')
  await listen(tcp, 0)
  const tcpPort = (tcp.address() as { port: number }).port
  const unixPath = `/run/dsh-sbx-${process.pid}-${uid}.sock`
  rmSync(unixPath, { force: true })
  const unix = stream('unix')
  await listen(unix, unixPath)
  chmodSync(unixPath, 0o777)
  const socketDirectory = mkdtempSync('/var/tmp/dsh-sbx-sockets-')
  chmodSync(socketDirectory, 0o755)
  const unixOutsidePath = join(socketDirectory, 'host.sock')
  const unixOutside = stream('unixOutside')
  await listen(unixOutside, unixOutsidePath)
  chmodSync(unixOutsidePath, 0o777)
  const unixDatagramPath = join(socketDirectory, 'host-dgram.sock')
  const datagramLog = join(socketDirectory, 'dgram.log')
  const datagramHelper = await startDatagramListener(unixDatagramPath, datagramLog)
  const abstractName = `dsh-sbx-abstract-${process.pid}-${uid}`
  const abstract = stream('abstract')
  await listen(abstract, `\0${abstractName}`)
  const datagrams: string[] = []
  const udp = createSocket('udp4')
  const dns = createSocket('udp4')
  for (const socket of [udp, dns]) socket.on('message', (message) => datagrams.push(message.toString('latin1')))
  const udpPort = await bindUdp(udp)
  const dnsPort = await bindUdp(dns)

  return {
    uid,
    base,
    workdir,
    outside,
    outsideFile,
    secrets,
    secretToken,
    environToken,
    helperPid,
    tcpPort,
    udpPort,
    dnsPort,
    unixPath,
    unixOutsidePath,
    unixDatagramPath,
    datagramLog,
    abstractName,
    datagrams,
    accepted,
    asUid,
    close: async () => {
      try {
        process.kill(helperPid, 'SIGKILL')
      } catch {
        // gone
      }
      datagramHelper.kill('SIGKILL')
      await Promise.all([tcp, unix, unixOutside, abstract].map((server) => new Promise((resolve) => server.close(resolve))))
      rmSync(socketDirectory, { recursive: true, force: true })
      udp.close()
      dns.close()
      rmSync(unixPath, { force: true })
      rmSync(base, { recursive: true, force: true })
    },
  }
}

/** Pids of live processes whose command line holds `token` (a unique argument of a would-be daemon). */
export function processesWith(token: string): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1')
      const state = /\) (\S)/.exec(readFileSync(`/proc/${entry}/stat`, 'latin1'))?.[1]
      if (cmdline.split('\0').includes(token) && state !== 'Z') found.push(Number(entry))
    } catch {
      // gone
    }
  }
  return found
}

/** SIGKILL to each pid (an escaped daemon of a control run). */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
}

/** A loaded executor and how to unload it. */
export interface LoadedExecutor {
  readonly bash: BashExecutor
  readonly fiber: Fiber
}

/** Loads the sandboxed executor into a fresh Context. */
export async function loadSandboxed(config: SandboxedBashConfig): Promise<LoadedExecutor> {
  const ctx = new Context()
  const fiber = await ctx.plugin(SandboxedBashExecutor, { killGraceMs: 300, ...config })
  return { bash: ctx.bash, fiber }
}

/** Loads the local executor (the negative control) into a fresh Context. */
export async function loadLocal(config: LocalBashConfig): Promise<LoadedExecutor> {
  const ctx = new Context()
  const fiber = await ctx.plugin(LocalBashExecutor, { killGraceMs: 300, ...config })
  return { bash: ctx.bash, fiber }
}

/** The text of a result's streams. */
export function outputOf(result: { stdout: { head: string; tail: string }; stderr: { head: string; tail: string } }): string {
  return result.stdout.head + result.stdout.tail + result.stderr.head + result.stderr.tail
}

/** Runs `command` with `uid`'s rights on the host (setup that must be owned by that uid). */
export function runAs(uid: number, command: string, cwd: string): void {
  const done = spawnSync('/usr/bin/bash', ['-c', command], { cwd, uid, gid: uid, encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: cwd } })
  if (done.status !== 0) throw new Error(`setup failed: ${command}: ${done.stderr}`)
}

// The escape matrix (research/bash-sandbox.md §2.16) as tests: each attempt must be blocked by the sandbox and must
// escape the local executor (the negative control that proves the test can see an escape), as root and as nobody.
// Every attempt is harmless if it escapes: markers in temp dirs, the current sysctl value rewritten, `kill -0`, a
// ptrace of a helper `sleep`, a remount of a tmpfs the test mounted itself.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { BashExecutor } from '@dsh/tool-bash'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syscallNumber, currentSeccompArch } from './seccomp.js'
import {
  NOBODY,
  killAll,
  loadLocal,
  loadSandboxed,
  openMatrixHost,
  outputOf,
  processesWith,
  describeInSandbox,
  runAs,
  type LoadedExecutor,
  type MatrixHost,
} from './test-support.js'

interface Attempt {
  readonly name: string
  /** Whether the local control can escape with this uid's rights (root-only attempts say false for nobody). */
  readonly control: (uid: number) => boolean
  readonly cwd?: (host: MatrixHost) => string
  readonly prepare?: (host: MatrixHost) => void
  readonly command: (host: MatrixHost, nonce: string) => string
  /** Runs the attempt another way than one foreground command (a background task that is killed). */
  readonly run?: (bash: BashExecutor, host: MatrixHost, nonce: string) => Promise<string>
  readonly escaped: (host: MatrixHost, output: string, nonce: string) => boolean | Promise<boolean>
  /** What the sandbox's output must show when it blocks the attempt (so a test cannot pass for a reason of its own). */
  readonly blockedWith?: RegExp
  readonly cleanup?: (host: MatrixHost, nonce: string) => void
}

const always = (): boolean => true
const rootOnly = (uid: number): boolean => uid === 0
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const arch = currentSeccompArch() ?? 'x64'

/** A DNS query for `<nonce>.example` (type A), as printf escapes for bash's /dev/udp. */
function dnsQuery(nonce: string): string {
  const bytes = [0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, nonce.length, ...Buffer.from(nonce), 7, ...Buffer.from('example'), 0, 0, 1, 0, 1]
  return bytes.map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('')
}

function connectScript(host: MatrixHost): string {
  // Not under /tmp (the sandbox's /tmp is its own): next to the sockets in /var/tmp, which the sandbox sees read-only.
  const file = join(dirname(host.unixOutsidePath), 'connect.cjs')
  if (!existsSync(file)) {
    writeFileSync(
      file,
      "const target = process.argv[2] === 'abstract' ? '\\0' + process.argv[3] : process.argv[3]\n" +
        "require('net').connect(target).on('data', (data) => { process.stdout.write(data); process.exit(0) })" +
        ".on('error', (error) => { console.log('refused: ' + error.code); process.exit(1) })\n",
      { mode: 0o644 },
    )
  }
  return file
}

/** Sends the nonce to a unix datagram socket two ways: a socket of its own, and one end of a datagram socket pair. */
const DATAGRAM_SENDER = [
  'import socket, sys',
  'for how in ("socket", "socketpair"):',
  '    try:',
  '        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) if how == "socket" else socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]',
  '        s.sendto((how + "-" + sys.argv[2]).encode(), sys.argv[1])',
  '        print(how, "sent")',
  '    except OSError as error:',
  '        print(how, "refused:", error)',
].join('\n')

const ATTEMPTS: readonly Attempt[] = [
  {
    name: 'write outside the workdir',
    control: always,
    command: (host, nonce) => `echo pwned > ${host.outside}/marker-${nonce}`,
    escaped: (host, _output, nonce) => existsSync(join(host.outside, `marker-${nonce}`)),
    cleanup: (host, nonce) => rmSync(join(host.outside, `marker-${nonce}`), { force: true }),
  },
  {
    name: 'write /etc',
    control: rootOnly,
    command: (_host, nonce) => `echo pwned > /etc/dsh-escape-${nonce}`,
    escaped: (_host, _output, nonce) => existsSync(`/etc/dsh-escape-${nonce}`),
    cleanup: (_host, nonce) => rmSync(`/etc/dsh-escape-${nonce}`, { force: true }),
  },
  {
    name: 'remount a read-only mount read-write',
    control: rootOnly,
    command: (host, nonce) => `mount -o remount,rw ${host.base}/ro && echo pwned > ${host.base}/ro/marker-${nonce}`,
    escaped: (host, _output, nonce) => existsSync(join(host.base, 'ro', `marker-${nonce}`)),
    cleanup: (host) => {
      spawnSync('mount', ['-o', 'remount,ro', join(host.base, 'ro')])
    },
  },
  {
    name: 'create a nested user namespace',
    control: always,
    command: () => 'unshare -r -m true && echo NAMESPACE-MADE',
    escaped: (_host, output) => output.includes('NAMESPACE-MADE'),
  },
  {
    name: 'make a vsock socket (the network namespace does not confine vsock: a VM host\'s services)',
    control: always,
    command: () => `/usr/bin/perl -e 'use Socket; socket(my $s, 40, SOCK_STREAM, 0) ? print "VSOCK-MADE\\n" : print "refused: $!\\n"'`,
    escaped: (_host, output) => output.includes('VSOCK-MADE'),
    blockedWith: /refused: Operation not permitted/,
  },
  {
    name: 'read a hidden secret',
    control: always,
    command: (host) => `cat ${host.secrets}/id_fake; ls -A ${host.secrets}`,
    escaped: (host, output) => output.includes(host.secretToken),
  },
  {
    name: 'read /etc/shadow',
    control: rootOnly,
    command: () => '[ -s /etc/shadow ] && head -c 1 /etc/shadow > /dev/null && echo SHADOW-READ',
    escaped: (_host, output) => output.includes('SHADOW-READ'),
  },
  {
    name: "read a host process's environment (/proc/<pid>/environ)",
    control: always,
    command: (host) =>
      `tr '\\0' '\\n' < /proc/${host.helperPid}/environ; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done 2>/dev/null | grep DSH_FAKE_TOKEN=`,
    escaped: (host, output) => output.includes(host.environToken),
  },
  {
    name: 'signal a host process',
    control: always,
    command: (host) => `kill -0 ${host.helperPid} && echo SIGNALLED`,
    escaped: (_host, output) => output.includes('SIGNALLED'),
  },
  {
    name: 'ptrace a host process',
    control: always,
    command: (host) =>
      `/usr/bin/perl -e 'my $r = syscall(${syscallNumber(arch, 'ptrace')}, 0x4206, ${host.helperPid}, 0, 0); print $r == 0 ? "TRACED\\n" : "refused: $!\\n"'`,
    escaped: (_host, output) => output.includes('TRACED'),
  },
  {
    name: 'TCP to host loopback',
    control: always,
    command: (host) => `exec 3<>/dev/tcp/127.0.0.1/${host.tcpPort} && head -1 <&3`,
    escaped: (_host, output) => output.includes('host-tcp'),
  },
  {
    name: 'UDP to host loopback',
    control: always,
    command: (host, nonce) => `echo udp-${nonce} > /dev/udp/127.0.0.1/${host.udpPort}`,
    escaped: async (host, _output, nonce) => {
      await pause(300)
      return host.datagrams.some((datagram) => datagram.includes(`udp-${nonce}`))
    },
  },
  {
    name: 'DNS to a host loopback resolver',
    control: always,
    command: (host, nonce) => `printf '${dnsQuery(nonce)}' > /dev/udp/127.0.0.1/${host.dnsPort}`,
    escaped: async (host, _output, nonce) => {
      await pause(300)
      return host.datagrams.some((datagram) => datagram.includes(nonce))
    },
  },
  {
    name: 'host unix socket (path)',
    control: always,
    blockedWith: /refused: EPERM/,
    command: (host) => `/usr/bin/node ${connectScript(host)} path ${host.unixPath}`,
    escaped: (_host, output) => output.includes('host-unix'),
  },
  {
    name: 'host unix socket outside /run and /tmp',
    control: always,
    blockedWith: /refused: EPERM/,
    command: (host) => `/usr/bin/node ${connectScript(host)} path ${host.unixOutsidePath}`,
    escaped: (_host, output) => output.includes('host-unixOutside'),
  },
  {
    name: 'host unix datagram socket outside /run and /tmp (socket, and an unbound socket pair)',
    control: always,
    blockedWith: /socket refused: \[Errno 1\] Operation not permitted\nsocketpair refused: \[Errno 1\] Operation not permitted/,
    command: (host, nonce) =>
      `/usr/bin/python3 -c '${DATAGRAM_SENDER}' ${host.unixDatagramPath} ${nonce}`,
    escaped: async (host, _output, nonce) => {
      await pause(300)
      return existsSync(host.datagramLog) && readFileSync(host.datagramLog, 'utf8').includes(nonce)
    },
  },
  {
    name: 'host unix socket (abstract)',
    control: always,
    blockedWith: /refused: EPERM/,
    command: (host) => `/usr/bin/node ${connectScript(host)} abstract ${host.abstractName}`,
    escaped: (_host, output) => output.includes('host-abstract'),
  },
  {
    name: 'write a host sysctl (its current value, rewritten)',
    control: rootOnly,
    command: () =>
      'v=$(cat /proc/sys/kernel/randomize_va_space) && echo "$v" > /proc/sys/kernel/randomize_va_space && echo SYSCTL-WRITTEN',
    escaped: (_host, output) => output.includes('SYSCTL-WRITTEN'),
  },
  {
    name: 'mknod a device',
    control: rootOnly,
    command: (host, nonce) => `mknod ${host.workdir}/null-${nonce} c 1 3 && echo MKNOD-DONE`,
    escaped: (_host, output) => output.includes('MKNOD-DONE'),
    cleanup: (host, nonce) => rmSync(join(host.workdir, `null-${nonce}`), { force: true }),
  },
  {
    name: 'hardlink a file from outside into the workdir',
    control: always,
    command: (host, nonce) => `ln ${host.outsideFile} ${host.workdir}/hl-${nonce} && echo LINKED`,
    escaped: (_host, output) => output.includes('LINKED'),
    cleanup: (host, nonce) => rmSync(join(host.workdir, `hl-${nonce}`), { force: true }),
  },
  {
    name: 'write through a symlink to outside',
    control: always,
    command: (host, nonce) => `ln -sf ${host.outsideFile} ${host.workdir}/sl-${nonce}; echo pwned-${nonce} >> ${host.workdir}/sl-${nonce}`,
    escaped: (host, _output, nonce) => readFileSync(host.outsideFile, 'utf8').includes(nonce),
    cleanup: (host, nonce) => {
      rmSync(join(host.workdir, `sl-${nonce}`), { force: true })
      writeFileSync(host.outsideFile, 'original\n')
    },
  },
  {
    name: 'plant a git hook in an existing repository',
    control: always,
    cwd: (host) => join(host.workdir, 'repo'),
    prepare: (host) => {
      rmSync(join(host.workdir, 'repo'), { recursive: true, force: true })
      runAs(host.uid, 'git init -q repo', host.workdir)
    },
    command: (_host, nonce) => `echo 'echo evil' > .git/hooks/pre-commit; git config core.hooksPath /tmp/evil-${nonce}`,
    escaped: (host, _output, nonce) =>
      existsSync(join(host.workdir, 'repo/.git/hooks/pre-commit')) ||
      readFileSync(join(host.workdir, 'repo/.git/config'), 'utf8').includes(nonce),
    cleanup: (host) => rmSync(join(host.workdir, 'repo'), { recursive: true, force: true }),
  },
  {
    name: 'plant a git hook where there is no .git',
    control: always,
    cwd: (host) => join(host.workdir, 'fresh'),
    prepare: (host) => runAs(host.uid, 'mkdir -p fresh', host.workdir),
    command: () => "mkdir -p .git/hooks && echo 'echo evil' > .git/hooks/pre-commit",
    escaped: (host) => existsSync(join(host.workdir, 'fresh/.git/hooks/pre-commit')),
    cleanup: (host) => rmSync(join(host.workdir, 'fresh/.git'), { recursive: true, force: true }),
  },
  {
    name: 'a daemon outliving its command',
    control: always,
    // The pause lets the intermediate subshell exit first, so the daemon is re-parented: nothing ties it to the command.
    command: (_host, nonce) => `(setsid /usr/bin/sleep ${nonce} </dev/null >/dev/null 2>&1 &); sleep 0.5; echo started`,
    escaped: async (_host, _output, nonce) => {
      await pause(300)
      return processesWith(nonce).length > 0
    },
    cleanup: (_host, nonce) => killAll(processesWith(nonce)),
  },
  {
    name: 'a daemon outliving bash_kill of its background task',
    control: always,
    command: (_host, nonce) => `(setsid /usr/bin/sleep ${nonce} </dev/null >/dev/null 2>&1 &); exec /usr/bin/sleep 600`,
    run: async (bash, host, nonce) => {
      const task = await bash.start({ command: ATTEMPTS_BY_NAME.get('a daemon outliving bash_kill of its background task')?.command(host, nonce) ?? '' })
      // Until the daemon has left its subshell (a parent that is not bash: the host's init, or the sandbox's): while
      // the subshell lives, the daemon is still a descendant of the command, and the local executor (the control)
      // rightly stops it with the command; under load a kill sent earlier made the control miss its escape.
      const detached = (): boolean =>
        processesWith(nonce).some((pid) => {
          try {
            const parent = /\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'latin1'))?.[1]
            return parent !== undefined && readFileSync(`/proc/${parent}/comm`, 'latin1').trim() !== 'bash'
          } catch {
            return false
          }
        })
      const deadline = Date.now() + 10_000
      while (!detached() && Date.now() < deadline) await pause(50)
      const outcome = await task.kill()
      return outcome.status === 'completed' ? outputOf(outcome.result) : outcome.error.message
    },
    escaped: async (_host, _output, nonce) => {
      await pause(300)
      return processesWith(nonce).length > 0
    },
    cleanup: (_host, nonce) => killAll(processesWith(nonce)),
  },
]
const ATTEMPTS_BY_NAME = new Map(ATTEMPTS.map((attempt) => [attempt.name, attempt]))

let serial = 0
/** A unique token per run of an attempt; numeric, so it also serves as a `sleep` duration (about 9 to 10 hours). */
function nonce(): string {
  serial += 1
  return String(33_000 + (process.pid % 1000) * 3 + serial * 7919 + Math.floor(Math.random() * 100))
}

async function attempt(loaded: LoadedExecutor, host: MatrixHost, entry: Attempt): Promise<{ escaped: boolean; output: string }> {
  const token = nonce()
  entry.prepare?.(host)
  try {
    let output: string
    if (entry.run !== undefined) {
      output = await entry.run(loaded.bash, host, token)
    } else {
      const result = await loaded.bash.run({ command: entry.command(host, token), cwd: entry.cwd?.(host), timeoutMs: 30_000 })
      output = outputOf(result)
    }
    return { escaped: await entry.escaped(host, output, token), output }
  } finally {
    entry.cleanup?.(host, token)
  }
}


describeInSandbox(() => {
  for (const uid of [0, NOBODY]) {
    describe(`the escape matrix, commands as ${uid === 0 ? 'root' : 'nobody (uid 65534)'}`, () => {
      let host: MatrixHost
      let sandboxed: LoadedExecutor
      let local: LoadedExecutor

      beforeAll(async () => {
        host = await openMatrixHost(uid)
        mkdirSync(join(host.base, 'ro'))
        const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', join(host.base, 'ro')])
        if (mounted.status !== 0) throw new Error(`could not mount the test tmpfs: ${mounted.stderr}`)
        const tempDir = join(host.base, 'priv')
        mkdirSync(tempDir)
        sandboxed = await loadSandboxed({
          cwd: host.workdir,
          tempDir,
          hiddenPaths: [host.secrets],
          // The test process is root and its home (/root, 0700) is out of nobody's reach anyway; a real non-root
          // caller runs the executor as itself, so the default secrets are under a home it can reach.
          hideDefaultSecrets: uid === 0,
          bwrap: host.asUid('/usr/bin/bwrap'),
        })
        local = await loadLocal({ cwd: host.workdir, tempDir, shell: host.asUid('/usr/bin/bash') })
      })

      afterAll(async () => {
        await sandboxed?.fiber.dispose()
        await local?.fiber.dispose()
        spawnSync('umount', [join(host.base, 'ro')])
        await host?.close()
      })

      for (const entry of ATTEMPTS) {
        const controlled = entry.control(uid)
        it(`${entry.name}: blocked in the sandbox${controlled ? ', escapes the local executor' : ''}`, async () => {
          const sandbox = await attempt(sandboxed, host, entry)
          expect(sandbox.escaped, `escaped the sandbox; output:\n${sandbox.output}`).toBe(false)
          if (entry.blockedWith !== undefined) expect(sandbox.output).toMatch(entry.blockedWith)
          if (controlled) {
            const control = await attempt(local, host, entry)
            expect(control.escaped, `the control did not escape, so this test cannot see an escape; output:\n${control.output}`).toBe(true)
          }
        })
      }

      if (uid !== 0) {
        // The rlimit fallback (RLIMIT_NPROC) binds the sandbox user; the kernel exempts uid 0, which is why root callers
        // get per-command cgroups (resource-limits.sandbox.test.ts holds the root fork bomb and its bounded control).
        it('a fork bomb stays under maxProcesses in the sandbox with the rlimit fallback, and is not bounded under the local executor', async () => {
          const limited = await loadSandboxed({
            cwd: host.workdir,
            tempDir: join(host.base, 'priv'),
            hideDefaultSecrets: false,
            bwrap: host.asUid('/usr/bin/bwrap'),
            maxProcesses: 40,
            resourceLimits: 'rlimit',
          })
          try {
            const spawned = async (executor: LoadedExecutor): Promise<number> => {
              const token = nonce()
              const task = await executor.bash.start({
                command: `for i in $(seq 1 120); do /usr/bin/sleep ${token} & done 2>/dev/null; wait`,
                timeoutMs: 60_000,
              })
              let most = 0
              const until = Date.now() + 20_000 // generous: the loop ends as soon as all 120 are seen
              while (Date.now() < until) {
                most = Math.max(most, processesWith(token).length)
                if (most >= 120) break
                await pause(100)
              }
              await task.kill()
              killAll(processesWith(token))
              return most
            }
            const inSandbox = await spawned(limited)
            expect(inSandbox).toBeGreaterThan(0) // the count sees the sandbox's processes
            expect(inSandbox).toBeLessThanOrEqual(40)
            expect(await spawned(local)).toBe(120)
          } finally {
            await limited.fiber.dispose()
          }
        })
      }

      it('allowUnixSockets (the deployment opt-out) lets commands make unix sockets, and the host socket outside /run and /tmp is reachable again: the seccomp rule is what blocks it', async () => {
        const open = await loadSandboxed({
          cwd: host.workdir,
          tempDir: join(host.base, 'priv'),
          hideDefaultSecrets: false,
          bwrap: host.asUid('/usr/bin/bwrap'),
          allowUnixSockets: true,
        })
        try {
          const result = await open.bash.run({ command: `/usr/bin/node ${connectScript(host)} path ${host.unixOutsidePath}` })
          expect(outputOf(result)).toContain('host-unixOutside')
          expect(open.bash.limits.policy).not.toContain('Unix sockets cannot be created')
          expect(sandboxed.bash.limits.policy).toContain('Unix sockets cannot be created')
        } finally {
          await open.fiber.dispose()
        }
      })

      it('leaves no mount point stub behind where it covered a missing .git', async () => {
        runAs(uid, 'mkdir -p stubless', host.workdir)
        const result = await sandboxed.bash.run({ command: 'git init -q 2>&1; ls -A', cwd: join(host.workdir, 'stubless') })
        expect(outputOf(result)).toContain('Read-only file system')
        expect(existsSync(join(host.workdir, 'stubless/.git'))).toBe(false)
      })
    })
  }
})

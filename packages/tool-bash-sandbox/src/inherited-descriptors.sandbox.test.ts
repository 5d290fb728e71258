// Descriptors the host process inherited without close-on-exec must not reach a command (issue 33, class 2). A child
// Node process holds, above fd 40, a file outside the roots opened for writing, a directory hidden from the sandbox,
// and a unix socket connected to a host server, as a supervisor or a shell redirection would leave them; it runs the
// attempts through the sandboxed executor (blocked) and the local one (the control, which must escape), with the
// commands as root and as nobody.
import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createConnection, createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closingDescriptors, inheritableDescriptors } from './inherited-descriptors.js'
import { NOBODY, describeInSandbox, openMatrixHost, type MatrixHost } from './test-support.js'

/** Where the child holds each inherited descriptor. */
const FILE_FD = 40
const DIRECTORY_FD = 41
const SOCKET_FD = 42

const ATTEMPTS = [
  {
    name: 'write outside the roots through an inherited file descriptor',
    command: (nonce: string) => `echo ${nonce} >&${FILE_FD}; echo done`,
    escaped: (seen: Seen, _output: string, nonce: string) => seen.file().includes(nonce),
  },
  {
    name: "walk the host's mount namespace through an inherited directory descriptor (/proc/self/fd/N)",
    command: () => `cat /proc/self/fd/${DIRECTORY_FD}/id_fake 2>&1; ls /proc/self/fd/${DIRECTORY_FD}/ 2>&1`,
    escaped: (seen: Seen, output: string) => output.includes(seen.secretToken),
  },
  {
    name: 'reach a host unix socket through an inherited socket descriptor',
    command: (nonce: string) => `echo ${nonce} >&${SOCKET_FD}; echo done`,
    escaped: (seen: Seen, _output: string, nonce: string) => seen.socket().includes(nonce),
  },
] as const

interface Seen {
  readonly secretToken: string
  /** What reached the file outside the roots. */
  file(): string
  /** What the host's unix server received. */
  socket(): string
}

const nonce = (): string => `n${Math.random().toString(36).slice(2, 10)}`

/** Runs `commands` through one executor in a child process holding the three descriptors; their outputs, in order. */
async function runHolding(kind: 'sandboxed' | 'local', config: object, commands: readonly string[], held: readonly [number, number, Socket]): Promise<string[]> {
  const stdio: unknown[] = ['ignore', 'pipe', 'pipe']
  while (stdio.length < FILE_FD) stdio.push('ignore')
  stdio.push(...held)
  const child = spawn(process.execPath, [join(import.meta.dirname, 'inherited-descriptors-child.mjs'), JSON.stringify({ kind, config, commands })], {
    stdio: stdio as never,
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  if (code !== 0) throw new Error(`the ${kind} child failed (${code}): ${stderr}`)
  return JSON.parse(stdout) as string[]
}

describe('inheritableDescriptors and closingDescriptors', () => {
  it('finds the descriptors without close-on-exec from a listing of fdinfo, and closes exactly them before the launch', () => {
    const dir = join(import.meta.dirname, '..', '.tmp', `fdinfo-${process.pid}`)
    mkdirSync(dir, { recursive: true })
    const files: Record<string, string> = { '2': '01', '5': '02000002', '7': '0100001', '40': '02', '41': '02004002', x: '0' }
    for (const [name, flags] of Object.entries(files)) writeFileSync(join(dir, name), `pos:\t0\nflags:\t${flags}\nmnt_id:\t1\n`, { flag: 'w' })
    expect(inheritableDescriptors(3, dir)).toEqual([7, 40])
    expect(inheritableDescriptors(8, dir)).toEqual([40])
    expect(inheritableDescriptors(3, join(dir, 'missing'))).toBeUndefined()
    const launch = { file: '/usr/bin/bwrap', args: ['--ro-bind', '/', '/'] }
    expect(closingDescriptors(launch, '/usr/bin/bash', [], 6)).toEqual(launch)
    const closing = closingDescriptors(launch, '/usr/bin/bash', [7, 40], 6)
    expect(closing.file).toBe('/usr/bin/bash')
    expect(closing.args.slice(3)).toEqual(['exec 7>&- 40>&-\nexec "$@"', 'dsh-sandbox-close', '/usr/bin/bwrap', '--ro-bind', '/', '/'])
    expect(closingDescriptors(launch, '/usr/bin/bash', undefined, 6).args[3]).toContain('/proc/$$/fd/*')
    rmSync(dir, { recursive: true, force: true })
  })
})

describeInSandbox(() => {
  for (const uid of [0, NOBODY]) {
    describe(`descriptors inherited by the host, commands as ${uid === 0 ? 'root' : 'nobody (uid 65534)'}`, () => {
      let host: MatrixHost
      let server: Server
      let received = ''
      let socketPath: string
      let outsideFile: string

      beforeAll(async () => {
        host = await openMatrixHost(uid)
        socketPath = join(host.base, `held-${uid}.sock`)
        server = createServer((socket) => socket.on('data', (chunk: Buffer) => (received += chunk.toString())))
        await new Promise<void>((resolve) => server.listen(socketPath, resolve))
        outsideFile = join(host.outside, 'held.txt')
        writeFileSync(outsideFile, '')
      })

      afterAll(async () => {
        await new Promise((resolve) => server?.close(resolve))
        await host?.close()
      })

      const run = async (kind: 'sandboxed' | 'local'): Promise<Array<{ name: string; escaped: boolean; output: string }>> => {
        const file = openSync(outsideFile, 'a')
        const directory = openSync(host.secrets, 'r')
        const socket = createConnection(socketPath)
        await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
        const tokens = ATTEMPTS.map(() => nonce())
        const config =
          kind === 'sandboxed'
            ? { cwd: host.workdir, tempDir: host.base, hiddenPaths: [host.secrets], hideDefaultSecrets: false, bwrap: host.asUid('/usr/bin/bwrap') }
            : { cwd: host.workdir, tempDir: host.base, shell: host.asUid('/usr/bin/bash') }
        try {
          const outputs = await runHolding(
            kind,
            config,
            ATTEMPTS.map((attempt, index) => attempt.command(tokens[index] as string)),
            [file, directory, socket],
          )
          await new Promise((resolve) => setTimeout(resolve, 100)) // what the socket carried reaches the server
          const seen: Seen = { secretToken: host.secretToken, file: () => readFileSync(outsideFile, 'utf8'), socket: () => received }
          return ATTEMPTS.map((attempt, index) => ({
            name: attempt.name,
            escaped: attempt.escaped(seen, outputs[index] as string, tokens[index] as string),
            output: outputs[index] as string,
          }))
        } finally {
          closeSync(file)
          closeSync(directory)
          socket.destroy()
        }
      }

      let sandboxed: Awaited<ReturnType<typeof run>>
      let local: Awaited<ReturnType<typeof run>>
      beforeAll(async () => {
        sandboxed = await run('sandboxed')
        local = await run('local')
      })

      for (const [index, attempt] of ATTEMPTS.entries()) {
        it(`${attempt.name}: blocked in the sandbox, escapes the local executor`, () => {
          expect(sandboxed[index]?.escaped, `escaped the sandbox; output:\n${sandboxed[index]?.output}`).toBe(false)
          expect(local[index]?.escaped, `the control did not escape, so this test cannot see an escape; output:\n${local[index]?.output}`).toBe(true)
        })
      }
    })
  }
})

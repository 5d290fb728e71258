// What loading does before the first command: the preflight reads back from inside the container what is really in
// force and refuses to load when a configured limit or a piece of the confinement is not; the start-up sweep removes
// the containers of dead owners. The engines of these tests enforce everything, so an engine that silently drops a
// setting (as rootless podman on cgroup v1 drops memory and pids limits) is made here: a real HTTP proxy in front of
// the tests' engine that deletes chosen settings from the create request and passes everything else through,
// attach included.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import { connect } from 'node:net'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, describe, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import type { ContainerBashConfig } from './container-config.js'
import { OWNER_LABEL, SESSION_LABEL } from './container-session.js'
import { EngineClient } from './engine-client.js'
import { describeInContainer, engineImage, engineOptions, engineSocket } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-load-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))

type CreateBody = { HostConfig: Record<string, unknown> & { SecurityOpt: string[] } }

/** A proxy on a unix socket in front of the tests' engine that applies `edit` to every container create request. */
async function lyingEngine(
  edit: (body: CreateBody) => void,
  refuseStart?: string,
): Promise<{ socketPath: string; close: () => Promise<void> }> {
  const socketPath = join(base, `lying-${Math.random().toString(36).slice(2, 8)}.sock`)
  const server: Server = createServer((request, response) => {
    if (refuseStart !== undefined && request.method === 'POST' && /\/containers\/[^/]+\/start(\?|$)/.test(request.url ?? '')) {
      response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: refuseStart }))
      return
    }
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      let body = Buffer.concat(chunks)
      if (request.method === 'POST' && /\/containers\/create(\?|$)/.test(request.url ?? '')) {
        const parsed = JSON.parse(body.toString('utf8')) as CreateBody
        edit(parsed)
        body = Buffer.from(JSON.stringify(parsed))
      }
      const headers: Record<string, string | string[] | undefined> = { ...request.headers, 'content-length': String(body.length) }
      delete headers['transfer-encoding']
      const upstream = httpRequest({ socketPath: engineSocket, method: request.method, path: request.url, headers }, (answer: IncomingMessage) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      })
      upstream.on('error', (error) => response.destroy(error))
      upstream.end(body)
    })
  })
  // Attach is hijacked: pass its request head on, then bytes both ways. close() drops these too (the server no longer
  // counts an upgraded connection).
  const hijacked = new Set<{ destroy: () => void }>()
  server.on('upgrade', (request: IncomingMessage, socket, head: Buffer) => {
    hijacked.add(socket)
    const upstream = connect(engineSocket, () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`]
      for (let index = 0; index < request.rawHeaders.length; index += 2) lines.push(`${request.rawHeaders[index]}: ${request.rawHeaders[index + 1]}`)
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`)
      if (head.length > 0) upstream.write(head)
      socket.pipe(upstream).pipe(socket)
    })
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
    socket.on('close', () => upstream.destroy())
    upstream.on('close', () => socket.destroy())
    hijacked.add(upstream)
  })
  await new Promise<void>((resolve) => server.listen(socketPath, resolve))
  return {
    socketPath,
    close: () =>
      new Promise((resolve) => {
        for (const socket of hijacked) socket.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Containers labelled as owned by this process (each test leaves none). */
async function ownContainers(): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`${OWNER_LABEL}=${hostname()}/${process.pid}`] }))
  const list = await new EngineClient({ socketPath: engineSocket }).call<{ Id: string }[]>('GET', `/containers/json?all=1&filters=${filters}`)
  return list.map((item) => item.Id)
}

async function load(config: ContainerBashConfig): Promise<{ error: unknown; ctx: Context }> {
  const ctx = new Context()
  const error = await Promise.resolve(ctx.plugin(ContainerBashExecutor, { cwd: base, ...config })).then(
    async (fiber) => {
      await fiber.dispose()
      return null
    },
    (failure: unknown) => failure,
  )
  return { error, ctx }
}

describeInContainer(() => {
  describe('the preflight refuses an engine that silently drops a setting', () => {
    it('the control: the same proxy passing everything through loads, and the limits read back are the configured ones', async () => {
      const engine = await lyingEngine(() => {})
      try {
        const ctx = new Context()
        const fiber = await ctx.plugin(ContainerBashExecutor, { ...engineOptions(), engine: { socketPath: engine.socketPath }, cwd: base, memoryBytes: 268_435_456, pidsLimit: 100, cpus: 0.5 })
        const executor = ctx.bash as ContainerBashExecutor
        expect(executor.facts).toMatchObject({ memoryBytes: 268_435_456, pidsLimit: 100, cpus: 0.5, capEff: expect.stringMatching(/^0+$/), noNewPrivs: true, seccomp: 2, userNamespace: false, readOnlyRoot: true, interfaces: [] })
        expect((await executor.run({ command: 'echo through the proxy' })).stdout.head).toBe('through the proxy\n')
        await fiber.dispose()
      } finally {
        await engine.close()
      }
      expect(await ownContainers()).toEqual([])
    })

    const cases: { name: string; config?: ContainerBashConfig; edit: (body: CreateBody) => void; reason: string; problem: RegExp }[] = [
      {
        name: 'memory and pids limits dropped (rootless podman on cgroup v1)',
        edit: (body) => {
          delete body.HostConfig['Memory']
          delete body.HostConfig['MemorySwap']
          delete body.HostConfig['PidsLimit']
        },
        reason: 'limit-not-enforced',
        problem: /memory is unlimited, not 1073741824; .*pids is (unlimited|\d+), not 512/,
      },
      {
        name: 'a CPU limit dropped',
        config: { cpus: 0.5 },
        edit: (body) => void delete body.HostConfig['NanoCpus'],
        reason: 'limit-not-enforced',
        problem: /CPU is unlimited, not 0\.5/,
      },
      {
        name: 'an open-files limit raised',
        edit: (body) => {
          for (const limit of body.HostConfig['Ulimits'] as { Name: string; Soft: number; Hard: number }[]) {
            if (limit.Name === 'nofile') Object.assign(limit, { Soft: 8192, Hard: 8192 })
          }
        },
        reason: 'limit-not-enforced',
        problem: /open files is 8192, not 4096/,
      },
      {
        name: 'the seccomp profile replaced by the engine default (user namespaces allowed)',
        edit: (body) => void (body.HostConfig.SecurityOpt = body.HostConfig.SecurityOpt.filter((option) => !option.startsWith('seccomp='))),
        reason: 'confinement-not-enforced',
        problem: /a new user namespace can be created/,
      },
      {
        name: 'capabilities kept',
        edit: (body) => void delete body.HostConfig['CapDrop'],
        reason: 'confinement-not-enforced',
        problem: /capabilities are not dropped \(CapEff [0-9a-f]*[1-9a-f][0-9a-f]*\)/,
      },
      {
        name: 'no-new-privileges dropped',
        edit: (body) => void (body.HostConfig.SecurityOpt = body.HostConfig.SecurityOpt.filter((option) => option !== 'no-new-privileges')),
        reason: 'confinement-not-enforced',
        problem: /no-new-privileges is off/,
      },
      {
        name: 'a writable root',
        edit: (body) => void (body.HostConfig['ReadonlyRootfs'] = false),
        reason: 'confinement-not-enforced',
        problem: /the root file system is writable/,
      },
    ]
    for (const { name, config, edit, reason, problem } of cases) {
      it(`${name}: the load fails with CONTAINER_UNAVAILABLE (${reason}), nothing is provided and no container is left`, async () => {
        const engine = await lyingEngine(edit)
        try {
          const { error, ctx } = await load({ ...engineOptions(), ...config, engine: { socketPath: engine.socketPath } })
          expect(error).toMatchObject({ code: 'CONTAINER_UNAVAILABLE', reason })
          expect((error as Error).message).toMatch(/^the bash container cannot start: read back from inside the container, /)
          expect((error as Error).message).toMatch(problem)
          expect((error as Error).message).toMatch(/Fix: /)
          expect(ctx.get('bash')).toBeUndefined()
        } finally {
          await engine.close()
        }
        expect(await ownContainers()).toEqual([])
      })
    }
  })

  it('an engine that creates the container but cannot start it: create-failed with the engine\'s own words, no container left', async () => {
    const engine = await lyingEngine(() => {}, 'runc create failed: error setting rlimit type 6: operation not permitted')
    try {
      const { error, ctx } = await load({ ...engineOptions(), engine: { socketPath: engine.socketPath } })
      expect(error).toMatchObject({ code: 'CONTAINER_UNAVAILABLE', reason: 'create-failed' })
      expect((error as Error).message).toMatch(/the engine could not start the container \(POST .*\/start: 500 runc create failed: error setting rlimit type 6.*\)\. Fix: check the engine log/)
      expect(ctx.get('bash')).toBeUndefined()
    } finally {
      await engine.close()
    }
    expect(await ownContainers()).toEqual([])
  })

  it('the engine goes away under a command: the call ends at once with a note, later calls fail, the container goes', async () => {
    const engine = await lyingEngine(() => {})
    const ctx = new Context()
    const fiber = await ctx.plugin(ContainerBashExecutor, { ...engineOptions(), engine: { socketPath: engine.socketPath }, cwd: base })
    const executor = ctx.bash as ContainerBashExecutor
    const running = executor.run({ command: 'sleep 60' })
    await new Promise((resolve) => setTimeout(resolve, 300))
    const dropped = Date.now()
    await engine.close()
    const result = await running
    expect(Date.now() - dropped).toBeLessThan(2_000)
    expect(result.exitCode).toBeNull()
    expect(result.note).toMatch(/the container stopped or its engine went away before the command finished; its output and exit status are unknown/)
    await expect(executor.run({ command: 'true' })).rejects.toMatchObject({ code: 'BASH_SPAWN_FAILED' })
    // The container lost its attach connection (its keeper): the agent stops and the engine removes it.
    let left = await ownContainers()
    for (let attempt = 0; attempt < 40 && left.length > 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      left = await ownContainers()
    }
    expect(left).toEqual([])
    await fiber.dispose()
  })

  it("the container's own environment is filtered as a command's: no denied name, no secret-looking name reached by a glob", async () => {
    const planted = { DSH_CT_GLOB_NAME: 'plain', DSH_CT_GLOB_API_TOKEN: 'not-for-the-container', DSH_CT_GLOB_DENIED: 'denied', DSH_CT_EXACT_TOKEN: 'named-exactly' }
    Object.assign(process.env, planted)
    try {
      const ctx = new Context()
      const fiber = await ctx.plugin(ContainerBashExecutor, {
        ...engineOptions(),
        cwd: base,
        allowEnv: ['DSH_CT_GLOB_*', 'DSH_CT_EXACT_TOKEN'],
        denyEnv: ['DSH_CT_GLOB_DENIED'],
      })
      const result = await (ctx.bash as ContainerBashExecutor).run({ command: "tr '\\0' '\\n' < /proc/1/environ | grep '^DSH_CT_' | sort; echo ---; env | grep '^DSH_CT_' | sort" })
      const expected = 'DSH_CT_EXACT_TOKEN=named-exactly\nDSH_CT_GLOB_NAME=plain\n'
      expect(result.stdout.head).toBe(`${expected}---\n${expected}`)
      await fiber.dispose()
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name]
    }
  })

  it('the start-up sweep removes the private directories of dead owners, and leaves those of living ones', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid as number
    const deadDir = join(tmpdir(), `dsh-container-${dead}-sweep1`)
    const livingDir = join(tmpdir(), `dsh-container-1-sweep1`)
    const otherDir = join(tmpdir(), `dsh-container-${dead}-not-ours`)
    for (const directory of [deadDir, livingDir, otherDir]) mkdirSync(join(directory, 'inside'), { recursive: true })
    try {
      const ctx = new Context()
      const fiber = await ctx.plugin(ContainerBashExecutor, { ...engineOptions(), cwd: base })
      await fiber.dispose()
      expect(existsSync(deadDir)).toBe(false)
      expect(existsSync(livingDir)).toBe(true)
      expect(existsSync(otherDir)).toBe(true)
    } finally {
      for (const directory of [deadDir, livingDir, otherDir]) rmSync(directory, { recursive: true, force: true })
    }
  })

  it('the start-up sweep removes the containers of dead owners on this host, reports them, and leaves the others', async () => {
    const engine = new EngineClient({ socketPath: engineSocket })
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid as number
    const create = async (owner: string): Promise<string> => {
      const labels = { [OWNER_LABEL]: owner, [SESSION_LABEL]: `sweep-test-${process.pid}` }
      return (await engine.call<{ Id: string }>('POST', '/containers/create', { Image: engineImage, Cmd: ['true'], Labels: labels })).Id
    }
    const deadOwner = `${hostname()}/${dead}`
    const stale = await create(deadOwner)
    const living = await create(`${hostname()}/1`)
    const elsewhere = await create(`another-host.example/${dead}`)
    try {
      const ctx = new Context()
      const fiber = await ctx.plugin(ContainerBashExecutor, { ...engineOptions(), cwd: base })
      expect((ctx.bash as ContainerBashExecutor).swept).toContainEqual({ id: stale, owner: deadOwner })
      expect((ctx.bash as ContainerBashExecutor).swept.map((item) => item.id)).not.toEqual(expect.arrayContaining([living]))
      await fiber.dispose()
      const filters = encodeURIComponent(JSON.stringify({ label: [`${SESSION_LABEL}=sweep-test-${process.pid}`] }))
      const left = (await engine.call<{ Id: string }[]>('GET', `/containers/json?all=1&filters=${filters}`)).map((item) => item.Id)
      expect(left.sort()).toEqual([living, elsewhere].sort())
    } finally {
      for (const id of [stale, living, elsewhere]) await engine.call('DELETE', `/containers/${id}?force=1`).catch(() => undefined)
    }
  })
})

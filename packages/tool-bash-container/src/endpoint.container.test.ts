// The two kinds of endpoint, each on its engine: podman on a unix socket, Docker over TCP with mutual TLS. The
// executor reaches the engine there and tells which engine answered; a load that cannot reach it (no engine at the
// socket path; a client without its certificate, or trusting a CA that did not sign the engine's) fails closed:
// CONTAINER_UNAVAILABLE with reason 'engine-unreachable', nothing provided as ctx.bash, no container on the engine.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterAll, expect, it } from 'vitest'
import { ContainerBashExecutor } from './container-bash-executor.js'
import type { ContainerBashConfig } from './container-config.js'
import { OWNER_LABEL } from './container-session.js'
import { ContainerUnavailableError } from './container-unavailable-error.js'
import type { ContainerEngineEndpoint } from './engine-client.js'
import { describeOnEngines, dockerTls, type TestEngine } from './test-support.js'

const base = realpathSync(mkdtempSync(join(tmpdir(), 'dsh-ct-endpoint-')))
afterAll(() => rmSync(base, { recursive: true, force: true }))

/** Containers on the engine labelled as this process's. */
async function ownContainers(engine: TestEngine): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`${OWNER_LABEL}=${hostname()}/${process.pid}`] }))
  const list = await engine.client().call<{ Id: string }[]>('GET', `/containers/json?all=1&filters=${filters}`)
  return list.map((item) => item.Id)
}

/** A CA of our own, which signed nothing the engine holds (openssl: .ci/docker-engine.sh needs it too). */
function anotherCa(): string {
  const made = spawnSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(base, 'other-ca-key.pem'), '-out', join(base, 'other-ca.pem'), '-days', '1', '-subj', '/CN=not-the-engines-ca'],
    { encoding: 'utf8' },
  )
  if (made.status !== 0) throw new Error(`openssl could not make a CA: ${made.error?.message ?? made.stderr}`)
  return readFileSync(join(base, 'other-ca.pem'), 'utf8')
}

type Refusal = readonly [string, () => ContainerEngineEndpoint]

describeOnEngines((engine) => {
  const options = (): ContainerBashConfig => ({ ...engine.options(), cwd: base })
  const url = (): string => {
    const endpoint = engine.options().engine
    return 'url' in endpoint ? endpoint.url : ''
  }

  it(`reaches the engine over its endpoint (${engine.kind === 'docker' ? 'TCP+TLS' : 'unix socket'}), which answers as ${engine.kind}`, async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(ContainerBashExecutor, options())
    const executor = ctx.bash as ContainerBashExecutor
    const result = await executor.run({ command: 'echo reached; cat /proc/1/cmdline | tr "\\0" " "' })
    expect(result.stdout.head).toMatch(new RegExp(`^reached\\n${engine.init} `))
    expect(result.executorMeta).toMatchObject({ engine: engine.kind, container: executor.containerId.slice(0, 12) })
    expect(await ownContainers(engine)).toEqual([executor.containerId])
    await fiber.dispose()
    expect(await ownContainers(engine)).toEqual([])
  })

  const refusals: readonly Refusal[] =
    engine.kind === 'docker'
      ? [
          ['a client without the client certificate', () => ({ url: url(), ca: dockerTls().ca })],
          ["a client trusting a CA that did not sign the engine's certificate", () => ({ url: url(), ca: anotherCa(), cert: dockerTls().cert, key: dockerTls().key })],
        ]
      : [['a socket path where no engine listens', () => ({ socketPath: join(base, 'no-engine.sock') })]]

  it.each(refusals)('%s: the load fails with CONTAINER_UNAVAILABLE (engine-unreachable), nothing is provided and no container is left', async (_name, endpoint) => {
    const ctx = new Context()
    const error = await Promise.resolve(ctx.plugin(ContainerBashExecutor, { ...options(), engine: endpoint() })).then(
      async (fiber) => {
        await fiber.dispose()
        return null
      },
      (failure: unknown) => failure,
    )
    expect(ContainerUnavailableError.isInstance(error)).toBe(true)
    expect(error).toMatchObject({ code: 'CONTAINER_UNAVAILABLE', reason: 'engine-unreachable' })
    if (engine.kind === 'docker') {
      expect((error as Error).message).toContain(`the engine at ${url()} refused the TLS handshake, or its certificate did not verify (`)
      expect((error as Error).message).toMatch(/\)\. Fix: pass `engine\.ca` \(the CA that signed the engine's certificate\) and `engine\.cert` \/ `engine\.key`/)
    } else {
      expect((error as Error).message).toContain('no container engine answers at unix://')
    }
    expect(ctx.get('bash')).toBeUndefined()
    expect(await ownContainers(engine)).toEqual([])
  })

  if (engine.kind === 'docker') {
    it('plain http:// to the TLS port: the load fails saying the engine speaks TLS, with the fix', async () => {
      const ctx = new Context()
      const error = await Promise.resolve(ctx.plugin(ContainerBashExecutor, { ...options(), engine: { url: url().replace(/^https:/, 'http:') } })).then(
        async (fiber) => {
          await fiber.dispose()
          return null
        },
        (failure: unknown) => failure,
      )
      expect(error).toMatchObject({ code: 'CONTAINER_UNAVAILABLE', reason: 'engine-unreachable' })
      expect((error as Error).message).toMatch(/the engine at http:\/\/127\.0\.0\.1:\d+ speaks TLS \(.*\)\. Fix: use an `https:\/\/` URL/)
      expect(ctx.get('bash')).toBeUndefined()
    })
  }
})

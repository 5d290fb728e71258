import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DshError, findUnbrandedErrorClasses } from '@dsh/tools-core'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import * as api from './index.js'
import { frameReader } from './engine-client.js'

describe('public surface', () => {
  it('exports exactly the documented runtime values, every error class branded', async () => {
    expect(Object.keys(api).sort()).toEqual(
      ['CONTAINER_DEFAULTS', 'CONTAINER_DENIED_SYSCALLS', 'CONTAINER_ERROR_CODES', 'ContainerBashExecutor', 'ContainerUnavailableError', 'ENGINE_API_VERSION', 'OWNER_LABEL', 'SESSION_LABEL', 'containerSeccompProfile', 'default', 'resolveContainerBashConfig'].sort(),
    )
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
    const error = new api.ContainerUnavailableError('engine-unreachable', 'nothing answers', 'start it')
    expect(error.toInfo()).toEqual({ name: 'ContainerUnavailableError', code: 'CONTAINER_UNAVAILABLE' })
    expect(api.ContainerUnavailableError.isInstance(error) && DshError.isInstance(error)).toBe(true)
  })
})

describe('configuration', () => {
  it('needs an image, rejects unknown keys and bad values all at once, and fills the defaults', () => {
    expect(() => api.resolveContainerBashConfig({ pidsLimit: 2, bogus: 1 } as never)).toThrow(/bogus: unknown option[\s\S]*image: required[\s\S]*pidsLimit/)
    const resolved = api.resolveContainerBashConfig({ image: 'x', cwd: tmpdir(), engine: { socketPath: '/nowhere.sock' } })
    expect(resolved).toMatchObject({ image: 'x', memoryBytes: api.CONTAINER_DEFAULTS.memoryBytes, pidsLimit: 512, nofile: 4096, agentNode: '/opt/dsh-agent/node' })
    expect(() => api.resolveContainerBashConfig({ image: 'x', engine: { url: 'https://engine:2376' }, agentNode: 'host' })).toThrow(/needs a local engine/)
    expect(api.resolveContainerBashConfig({ image: 'x', engine: { url: 'https://engine:2376' } }).agentNode).toBe('node')
    expect(api.resolveContainerBashConfig({ image: 'x', engine: { socketPath: '/nowhere.sock' } })).toMatchObject({ cpus: null, network: null })
    expect(api.resolveContainerBashConfig({ image: 'x', engine: { socketPath: '/nowhere.sock' }, cpus: 1.5, network: { allow: ['example.com'] } })).toMatchObject({
      cpus: 1.5,
      network: { allow: ['example.com'] },
    })
    expect(() => api.resolveContainerBashConfig({ image: 'x', cpus: 0, network: { allow: [] } })).toThrow(/cpus: must be a number of CPUs[\s\S]*network: must be 'off' or \{ allow/)
    expect(() => api.resolveContainerBashConfig({ image: 'x', network: { allow: ['a.com'], resolve: 'dns' } as never })).toThrow(/network\.resolve: must be a function/)
    expect(api.resolveContainerBashConfig({ image: 'x', engine: { socketPath: '/nowhere.sock' } }).protectAgent).toBe(true)
    expect(api.resolveContainerBashConfig({ image: 'x', engine: { socketPath: '/nowhere.sock' }, protectAgent: false }).protectAgent).toBe(false)
    expect(api.resolveContainerBashConfig({ image: 'x', engine: { url: 'https://engine:2376' } }).protectAgent).toBe(false)
    expect(() => api.resolveContainerBashConfig({ image: 'x', engine: { url: 'https://engine:2376' }, protectAgent: true })).toThrow(/protectAgent: needs agentNode 'host'/)
  })
})

describe('the engine stream', () => {
  it('demultiplexes frames split anywhere across chunks', () => {
    const frames: [number, string][] = []
    const read = frameReader((stream, chunk) => frames.push([stream, chunk.toString()]))
    const frame = (stream: number, text: string): Buffer => {
      const header = Buffer.alloc(8)
      header[0] = stream
      header.writeUInt32BE(Buffer.byteLength(text), 4)
      return Buffer.concat([header, Buffer.from(text)])
    }
    const all = Buffer.concat([frame(1, 'out é'), frame(2, 'err'), frame(1, '')])
    for (let index = 0; index < all.length; index += 3) read(all.subarray(index, index + 3))
    expect(frames).toEqual([[1, 'out é'], [2, 'err'], [1, '']])
  })
})

describe('the seccomp profile', () => {
  it('refuses unshare, setns, clone with CLONE_NEWUSER and clone3, and allows the rest', () => {
    const profile = api.containerSeccompProfile() as { defaultAction: string; syscalls: { names: string[]; action: string; args?: unknown[] }[] }
    expect(profile.defaultAction).toBe('SCMP_ACT_ALLOW')
    expect(profile.syscalls[0]?.names).toEqual(expect.arrayContaining(['unshare', 'setns', 'mount', 'bpf', 'keyctl', 'io_uring_setup']))
    expect(profile.syscalls.find((rule) => rule.names.includes('clone'))?.args).toEqual([{ index: 0, value: 0x10000000, valueTwo: 0x10000000, op: 'SCMP_CMP_MASKED_EQ' }])
    expect(profile.syscalls.find((rule) => rule.names.includes('clone3'))).toMatchObject({ action: 'SCMP_ACT_ERRNO', errnoRet: 38 })
  })
})

describe('honest failure at load', () => {
  it('an engine that is not there fails the load with CONTAINER_UNAVAILABLE, the reason and the fix; nothing is provided', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'dsh-ct-none-'))
    try {
      const ctx = new Context()
      const error = await Promise.resolve(ctx.plugin(api.ContainerBashExecutor, { image: 'x', cwd: directory, engine: { socketPath: join(directory, 'no.sock') } })).then(
        () => null,
        (failure: unknown) => failure,
      )
      expect(error).toMatchObject({ code: 'CONTAINER_UNAVAILABLE', reason: 'engine-unreachable' })
      expect(String((error as Error).message)).toMatch(/no container engine answers at unix:\/\/.*no\.sock[\s\S]*Fix: start one/)
      expect(ctx.get('bash')).toBeUndefined()
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })
})

describe('the network allow list at load', () => {
  it('a bad entry is INVALID_CONFIG naming it, before any engine is asked', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'dsh-ct-allow-'))
    try {
      const ctx = new Context()
      const error = await Promise.resolve(
        ctx.plugin(api.ContainerBashExecutor, { image: 'x', cwd: directory, engine: { socketPath: join(directory, 'no.sock') }, network: { allow: ['ok.example', 'bad host!'] } }),
      ).then(
        () => null,
        (failure: unknown) => failure,
      )
      expect(error).toMatchObject({ code: 'INVALID_CONFIG' })
      expect(String((error as Error).message)).toMatch(/network\.allow\[1\]/)
      expect(ctx.get('bash')).toBeUndefined()
      expect(readdirSync(tmpdir()).filter((name) => name.startsWith(`dsh-container-${process.pid}-`))).toEqual([])
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })
})

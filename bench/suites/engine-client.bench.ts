// The container executor's engine client (about 150 lines over node:http) against dockerode 5, the well-kept client
// most Node projects use, on the same engine in one run: an API round trip (`_ping`), a line through an attached container
// (the path every command takes: the executor speaks to its agent over one attach connection), and a container's whole
// life. Below the table: what each adds to an install. Needs an engine: DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE
// (`.ci/container-engine.sh start DIR` prints both).
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { PassThrough, type Duplex } from 'node:stream'
import Docker from 'dockerode'
import { defineSuite } from '../harness.js'

/** What the bench uses of the package's client (internal, not exported: loaded from its source, as tsx runs it). */
interface OurClient {
  call<T = unknown>(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<T>
  attach(id: string, listener: (stream: 1 | 2, chunk: Buffer) => void, onClose: (error?: Error) => void, timeoutMs?: number): Promise<{ write(data: string): boolean; destroy(): void }>
}

const socketPath = process.env['DSH_CONTAINER_SOCKET'] ?? ''
const image = process.env['DSH_CONTAINER_IMAGE'] ?? ''
const created: string[] = []
let ours: OurClient
let docker: Docker
const closers: (() => void)[] = []

const catBody = { Image: image, Cmd: ['cat'], OpenStdin: true, StdinOnce: false, AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false, HostConfig: { NetworkMode: 'none' } }

/** Writes a line with `write` and resolves `send` when `heard` has been given the whole line back. */
function lineEcho(write: (line: string) => unknown): { send: (line: string) => Promise<void>; heard: (chunk: Buffer) => void } {
  let waiting: ((text: string) => void) | null = null
  return {
    heard: (chunk) => waiting?.(chunk.toString()),
    send: (line) =>
      new Promise((resolve) => {
        let seen = ''
        waiting = (text) => {
          seen += text
          if (seen.endsWith('\n')) resolve()
        }
        write(line)
      }),
  }
}

/** A `cat` container attached through our client: `echo(line)` resolves when the line comes back. */
async function ourEcho(): Promise<(line: string) => Promise<void>> {
  const { Id } = await ours.call<{ Id: string }>('POST', '/containers/create', catBody)
  created.push(Id)
  const echo = lineEcho((line) => attachment.write(line))
  const attachment = await ours.attach(Id, (_, chunk) => echo.heard(chunk), () => undefined)
  closers.push(() => attachment.destroy())
  await ours.call('POST', `/containers/${Id}/start`)
  return echo.send
}

/** The same through dockerode: a hijacked attach, demultiplexed by its modem. */
async function dockerodeEcho(): Promise<(line: string) => Promise<void>> {
  const container = await docker.createContainer(catBody)
  created.push(container.id)
  const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex
  const stdout = new PassThrough()
  docker.modem.demuxStream(stream, stdout, new PassThrough())
  closers.push(() => stream.destroy())
  await container.start()
  const echo = lineEcho((line) => stream.write(line))
  stdout.on('data', (chunk: Buffer) => echo.heard(chunk))
  return echo.send
}

/** Installed bytes and package count of `name` and everything it depends on, from bench's node_modules. */
function footprint(name: string): { packages: number; bytes: number } {
  const seen = new Map<string, string>()
  const visit = (pkg: string, from: string): void => {
    let manifest: string
    try {
      manifest = createRequire(join(from, 'noop.js')).resolve(`${pkg}/package.json`)
    } catch {
      return // an optional dependency that is not installed
    }
    const root = dirname(manifest)
    if (seen.has(root)) return
    seen.set(root, pkg)
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }
    for (const dependency of Object.keys({ ...json.dependencies, ...json.optionalDependencies })) visit(dependency, root)
  }
  visit(name, import.meta.dirname)
  const size = (path: string): number => {
    const stat = statSync(path)
    if (!stat.isDirectory()) return stat.size
    return readdirSync(path).reduce((total, entry) => (entry === 'node_modules' ? total : total + size(join(path, entry))), 0)
  }
  let bytes = 0
  for (const root of seen.keys()) bytes += size(root)
  return { packages: seen.size, bytes }
}

export default defineSuite({
  name: 'engine-client',
  description:
    "The container executor's engine client (`node:http`, about 150 lines, internal to `@dsh/tool-bash-container`) against dockerode 5.0.1 on the same podman engine in one run: `GET /_ping`; one line written to an attached `cat` container and read back (the path of every command: the executor speaks to its agent over one attach connection); a container's life (create, start, wait, remove, with `true`). Below: what each adds to an install.",
  versions: {
    dockerode: JSON.parse(readFileSync(createRequire(import.meta.url).resolve('dockerode/package.json'), 'utf8')).version,
  },
  async groups() {
    if (socketPath === '' || image === '') throw new Error('the engine-client suite needs an engine: DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE (.ci/container-engine.sh start DIR prints both)')
    const { EngineClient } = (await import(new URL('../../packages/tool-bash-container/src/engine-client.ts', import.meta.url).href)) as {
      EngineClient: new (endpoint: { socketPath: string }) => OurClient
    }
    ours = new EngineClient({ socketPath })
    docker = new Docker({ socketPath })
    const ourLine = await ourEcho()
    const dockerodeLine = await dockerodeEcho()
    const life = {
      'node:http client': async () => {
        const { Id } = await ours.call<{ Id: string }>('POST', '/containers/create', { Image: image, Cmd: ['true'], HostConfig: { NetworkMode: 'none' } })
        await ours.call('POST', `/containers/${Id}/start`)
        await ours.call('POST', `/containers/${Id}/wait`)
        await ours.call('DELETE', `/containers/${Id}?force=1`)
      },
      dockerode: async () => {
        const container = await docker.createContainer({ Image: image, Cmd: ['true'], HostConfig: { NetworkMode: 'none' } })
        await container.start()
        await container.wait()
        await container.remove({ force: true })
      },
    }
    return [
      {
        title: '`GET /_ping`',
        baseline: 'dockerode',
        rounds: 3,
        options: { min_samples: 50, max_samples: 200 },
        cases: { dockerode: () => docker.ping(), 'node:http client': () => ours.call('GET', '/_ping') },
      },
      {
        title: 'a line through an attached container and back',
        baseline: 'dockerode',
        rounds: 3,
        options: { min_samples: 100, max_samples: 500 },
        cases: { dockerode: () => dockerodeLine('ping\n'), 'node:http client': () => ourLine('ping\n') },
      },
      {
        title: "a container's life: create, start, wait, remove",
        baseline: 'dockerode',
        rounds: 2,
        options: { min_samples: 8, max_samples: 12, min_cpu_time: 0 },
        cases: life,
      },
    ]
  },
  notes() {
    const kib = (bytes: number): string => `${Math.round(bytes / 1024).toLocaleString('en-US')} KiB`
    const dockerode = footprint('dockerode')
    const ourSource = statSync(new URL('../../packages/tool-bash-container/src/engine-client.ts', import.meta.url)).size
    return [
      `- dockerode 5.0.1 installs **${dockerode.packages} packages, ${kib(dockerode.bytes)}** (\`docker-modem\`, \`ssh2\`, \`protobufjs\`, \`tar-fs\`, …; \`cpu-features\` asks for a native build, refused here, as it may be elsewhere), besides \`@types/dockerode\` for types.`,
      `- The node:http client is one module of the package: ${kib(ourSource)} of TypeScript source, no dependency.`,
    ].join('\n')
  },
  async dispose() {
    for (const close of closers) close()
    for (const id of created) await ours?.call('DELETE', `/containers/${id}?force=1`).catch(() => undefined)
  },
})

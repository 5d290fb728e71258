// The container executor (issue 37) against the local executor in one run: `true` through the session agent, 200 MB
// of output against the host's memory, and loading (create + start + agent + preflight). Needs an engine: podman,
// DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE (`.ci/container-engine.sh start DIR` prints both), or, with
// DSH_BENCH_CONTAINER_ENGINE=docker, Docker over TCP+TLS: DSH_CONTAINER_DOCKER_URL, DSH_CONTAINER_DOCKER_TLS_DIR and
// DSH_CONTAINER_DOCKER_IMAGE (`.ci/docker-engine.sh start DIR` prints them). Each engine has its own section.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LocalBashExecutor, type BashExecutor } from '@dsh/tool-bash'
import { ContainerBashExecutor, type ContainerBashConfig } from '@dsh/tool-bash-container'
import { Context, type Fiber } from 'cordis'
import { defineSuite } from '../harness.js'

const OUTPUT_BYTES = 200_000_000
const memoryBudgetBytes = 100 * 1_048_576
const scratch = mkdtempSync(join(tmpdir(), 'dsh-bench-container-'))
const fibers: Fiber[] = []

const onDocker = process.env['DSH_BENCH_CONTAINER_ENGINE'] === 'docker'

function engine(): Pick<ContainerBashConfig, 'engine' | 'image'> {
  if (onDocker) {
    const url = process.env['DSH_CONTAINER_DOCKER_URL']
    const tls = process.env['DSH_CONTAINER_DOCKER_TLS_DIR']
    const image = process.env['DSH_CONTAINER_DOCKER_IMAGE']
    if (url === undefined || tls === undefined || image === undefined) {
      throw new Error(
        'DSH_BENCH_CONTAINER_ENGINE=docker needs DSH_CONTAINER_DOCKER_URL, DSH_CONTAINER_DOCKER_TLS_DIR and DSH_CONTAINER_DOCKER_IMAGE (.ci/docker-engine.sh start DIR prints them)',
      )
    }
    const pem = (name: string): string => readFileSync(join(tls, name), 'utf8')
    return { engine: { url, ca: pem('ca.pem'), cert: pem('cert.pem'), key: pem('key.pem') }, image }
  }
  const socketPath = process.env['DSH_CONTAINER_SOCKET']
  const image = process.env['DSH_CONTAINER_IMAGE']
  if (socketPath === undefined || image === undefined) {
    throw new Error('the bash-container suite needs an engine: DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE (.ci/container-engine.sh start DIR prints both)')
  }
  return { engine: { socketPath }, image }
}

async function loadContainer(): Promise<{ bash: BashExecutor; fiber: Fiber }> {
  const ctx = new Context()
  const fiber = await ctx.plugin(ContainerBashExecutor, { ...engine(), cwd: scratch })
  return { bash: ctx.bash, fiber }
}

const versions: Record<string, string> = {
  '@dsh/tool-bash-container': JSON.parse(readFileSync(new URL('../../packages/tool-bash-container/package.json', import.meta.url), 'utf8')).version,
}

let container: BashExecutor
let local: BashExecutor

export default defineSuite({
  name: onDocker ? 'bash-container-docker' : 'bash-container',
  description: `\`@dsh/tool-bash-container\` (${
    onDocker
      ? 'Docker: a private dockerd serving the Docker Engine API over TCP with mutual TLS on loopback, the agent on the image\'s node, `.ci/docker-engine.sh`; set `DSH_BENCH_CONTAINER_ENGINE=docker`'
      : 'rootful podman serving the Docker Engine API on a private socket, the agent on the host\'s node mounted read-only, `.ci/container-engine.sh`'
  }; a Debian bookworm minbase image) against \`@dsh/tool-bash\`'s local executor in the same run: \`true\` run through each (\`ctx.bash.run\`: through the session agent in the container); loading the executor (create + start the container, start the agent, the preflight that reads the limits back from inside, then dispose) against loading the local one; and, below the table, 200 MB of output from a command in each against the host's peak RSS growth (target: under 100 MB).`,
  versions,
  async groups() {
    const loaded = await loadContainer()
    fibers.push(loaded.fiber)
    container = loaded.bash
    const { kind, version } = (container as ContainerBashExecutor).engine
    versions[kind] = version
    const localCtx = new Context()
    fibers.push(await localCtx.plugin(LocalBashExecutor, { cwd: scratch, tempDir: scratch }))
    local = localCtx.bash
    return [
      {
        title: '`true`: the container executor against the local one',
        baseline: 'local executor',
        target: { case: 'container executor', maxRatio: 3, label: 'within 3×' },
        rounds: 3,
        options: { min_samples: 30, max_samples: 100 },
        cases: {
          'local executor': async () => {
            const result = await local.run({ command: 'true' })
            if (result.exitCode !== 0) throw new Error('true failed locally')
          },
          'container executor': async () => {
            const result = await container.run({ command: 'true' })
            if (result.exitCode !== 0) throw new Error('true failed in the container')
          },
        },
      },
      {
        title: 'loading the executor (and disposing it)',
        baseline: 'local executor',
        rounds: 1,
        options: { min_samples: 5, max_samples: 8, min_cpu_time: 0 },
        cases: {
          'local executor': async () => {
            const ctx = new Context()
            const fiber = await ctx.plugin(LocalBashExecutor, { cwd: scratch, tempDir: scratch })
            await fiber.dispose()
          },
          'container executor': async () => {
            const { fiber } = await loadContainer()
            await fiber.dispose()
          },
        },
      },
    ]
  },
  async notes() {
    const lines: string[] = []
    for (const [name, bash] of [
      ['local executor', local],
      ['container executor', container],
    ] as const) {
      globalThis.gc?.()
      const before = process.memoryUsage().rss
      let peak = before
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
      const started = performance.now()
      const result = await bash.run({ command: `head -c ${OUTPUT_BYTES} /dev/zero | tr '\\0' x` })
      const elapsed = performance.now() - started
      clearInterval(sampler)
      peak = Math.max(peak, process.memoryUsage().rss)
      const growth = peak - before
      if (result.stdout.totalBytes !== OUTPUT_BYTES) throw new Error(`${name}: ${result.stdout.totalBytes} bytes of stdout, not ${OUTPUT_BYTES}`)
      lines.push(
        `- 200 MB of output, ${name}: ${(elapsed / 1000).toFixed(2)} s; host RSS grew by at most **${(growth / 1_048_576).toFixed(1)} MB** (target < ${memoryBudgetBytes / 1_048_576} MB: ${growth < memoryBudgetBytes ? 'met' : '**missed**'}).`,
      )
    }
    return lines.join('\n')
  },
  async dispose() {
    for (const fiber of fibers.reverse()) await fiber.dispose()
    rmSync(scratch, { recursive: true, force: true })
  },
})

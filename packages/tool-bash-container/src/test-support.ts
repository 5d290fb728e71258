// Helpers of this package's container tests (not part of the build's entry, not exported).
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe } from 'vitest'
import type { ContainerBashConfig } from './container-config.js'
import type { ContainerEngineKind } from './container-session.js'
import { EngineClient, type ContainerEngineEndpoint } from './engine-client.js'

/** The title of the suite every test that needs a real engine sits under (the test summary looks for it). */
export const CONTAINER_SUITE_TITLE = 'in a session container'

const ci = process.env['CI'] === 'true'

/** The engine and image the tests use (.ci/container-engine.sh exports both). */
export const engineSocket = process.env['DSH_CONTAINER_SOCKET'] ?? ''
export const engineImage = process.env['DSH_CONTAINER_IMAGE'] ?? ''

/** The executor options of the tests' primary engine (podman on its unix socket). */
export const engineOptions = (): Pick<ContainerBashConfig, 'engine' | 'image'> => ({ engine: { socketPath: engineSocket }, image: engineImage })

/** The Docker engine of the tests (.ci/docker-engine.sh exports all three): its URL (TCP+TLS), the client's PEM files, the image. */
const dockerUrl = process.env['DSH_CONTAINER_DOCKER_URL'] ?? ''
const dockerTlsDir = process.env['DSH_CONTAINER_DOCKER_TLS_DIR'] ?? ''
const dockerImage = process.env['DSH_CONTAINER_DOCKER_IMAGE'] ?? ''

/** The PEM files of the Docker engine's client (`ca.pem`, `cert.pem`, `key.pem`), read at each call. */
export function dockerTls(): { readonly ca: string; readonly cert: string; readonly key: string } {
  const read = (name: string): string => readFileSync(join(dockerTlsDir, name), 'utf8')
  return { ca: read('ca.pem'), cert: read('cert.pem'), key: read('key.pem') }
}

/** An engine the container tests run on. */
export interface TestEngine {
  readonly kind: ContainerEngineKind
  /** How it is reached, for suite titles. */
  readonly title: string
  /** Whether its environment is set; when it is not, `missing` says why and how to fix it. */
  readonly configured: boolean
  readonly missing: string
  /** The executor options reaching it (plain data: PEM as strings, so a child process can take them as JSON). */
  options(): { engine: ContainerEngineEndpoint; image: string } & Pick<ContainerBashConfig, 'agentNode'>
  /** A client of its API on the same endpoint as the executor's. */
  client(): EngineClient
  /** pid 1 of a session container (`Init: true`): the engine's init. */
  readonly init: string
  /** The command name of the host process that keeps each container for the engine (its command line names the container). */
  readonly helper: string
}

/** The engines, podman first. Each is declared when its environment is set, and always under `CI=true`. */
export const testEngines: readonly TestEngine[] = [
  {
    kind: 'podman',
    title: 'podman (unix socket)',
    configured: engineSocket !== '' && engineImage !== '',
    missing:
      'DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE are not set, so the container tests cannot run. Fix: `source .ci/container-engine.sh` (as root; .ci/run does it on CI).',
    options: () => ({ engine: { socketPath: engineSocket }, image: engineImage }),
    client: () => new EngineClient({ socketPath: engineSocket }),
    init: '/run/podman-init',
    helper: 'conmon',
  },
  {
    kind: 'docker',
    title: 'Docker (TCP+TLS)',
    configured: dockerUrl !== '' && dockerTlsDir !== '' && dockerImage !== '',
    missing:
      'DSH_CONTAINER_DOCKER_URL, DSH_CONTAINER_DOCKER_TLS_DIR and DSH_CONTAINER_DOCKER_IMAGE are not set, so the Docker tests cannot run. Fix: `source .ci/docker-engine.sh` (as root; .ci/run does it on CI).',
    // A TCP endpoint cannot mount the host's node: the image has its own (agentNode 'image', the default there).
    options: () => ({ engine: { url: dockerUrl, ...dockerTls() }, image: dockerImage, agentNode: 'image' }),
    client: () => new EngineClient({ url: dockerUrl, ...dockerTls() }),
    init: '/sbin/docker-init',
    helper: 'containerd-shim',
  },
]

/** The engines whose tests are declared in this run. */
export const declaredEngines: readonly TestEngine[] = testEngines.filter((engine) => engine.configured || ci)

/**
 * Declares tests that need a real engine, under {@link CONTAINER_SUITE_TITLE}. With DSH_CONTAINER_SOCKET and
 * DSH_CONTAINER_IMAGE set, or with `CI=true` (where a missing engine must fail the run: every test then fails naming
 * the fix), they run; elsewhere they are not declared at all. They run on the primary engine ({@link engineOptions});
 * {@link describeOnEngines} runs tests on each engine.
 */
export function describeInContainer(declare: () => void): void {
  const [podman] = testEngines
  if (podman === undefined || !declaredEngines.includes(podman)) return
  describe(CONTAINER_SUITE_TITLE, () => {
    requireEngine(podman)
    declare()
  })
}

/**
 * Declares tests on the declared engines under {@link CONTAINER_SUITE_TITLE}, when there is one ({@link declaredEngines};
 * each suite for an engine calls {@link requireEngine}). A file using it runs with either engine alone
 * (vitest.config.ts), so it must hold tests for every engine.
 */
export function describeInEngines(declare: () => void): void {
  if (declaredEngines.length === 0) return
  describe(CONTAINER_SUITE_TITLE, declare)
}

/**
 * Declares, under {@link CONTAINER_SUITE_TITLE}, one suite per declared engine (`on podman (unix socket)`, `on Docker
 * (TCP+TLS)`). An engine whose environment is missing (declared only under `CI=true`) fails every test of its suite
 * naming the fix.
 */
export function describeOnEngines(declare: (engine: TestEngine) => void): void {
  describeInEngines(() => {
    for (const engine of declaredEngines) {
      describe(`on ${engine.title}`, () => {
        requireEngine(engine)
        declare(engine)
      })
    }
  })
}

/** In the suite being declared: fails its tests, naming the fix, when `engine` is not configured. */
export function requireEngine(engine: TestEngine): void {
  beforeAll(() => {
    if (!engine.configured) throw new Error(engine.missing)
  })
}

/** Host processes whose command line holds `mark` (rootful engines: the container's processes are the host's). */
export function processesWith(mark: string): number[] {
  const listing = spawnSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).stdout
  return listing
    .split('\n')
    .filter((line) => line.includes(mark) && !line.includes('ps -eo'))
    .map((line) => Number(line.trim().split(/\s+/)[0]))
}

/** The engine's helper processes for the container `id` on the host (podman's conmon, Docker's containerd-shim). */
export function engineHelpers(engine: TestEngine, id: string): number[] {
  const listing = spawnSync('ps', ['-eo', 'pid=,comm=,args='], { encoding: 'utf8' }).stdout
  return listing
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, command, ...args]) => command?.startsWith(engine.helper) === true && args.some((arg) => arg.includes(id)))
    .map(([pid]) => Number(pid))
}

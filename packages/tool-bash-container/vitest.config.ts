import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageTestConfig } from '../../vitest.shared.js'

// The files named *.container.test.ts hold only tests that run commands in a real session container (every one
// under the suite of test-support.ts's describeInContainer or describeOnEngines). They need an engine: podman on a
// unix socket (DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE, from .ci/container-engine.sh) or Docker over TCP+TLS
// (DSH_CONTAINER_DOCKER_URL, DSH_CONTAINER_DOCKER_TLS_DIR and DSH_CONTAINER_DOCKER_IMAGE, from .ci/docker-engine.sh),
// and each engine's tests are declared only when its variables are set. Without them, and not on CI, the files that
// would declare nothing are left out of the run (vitest fails a file without tests) and the test command's summary
// says so; on CI (CI=true) both engines' tests always run, and a missing engine fails them naming the fix.
const set = (...names: string[]): boolean => names.every((name) => (process.env[name] ?? '') !== '')
const podman = set('DSH_CONTAINER_SOCKET', 'DSH_CONTAINER_IMAGE')
const docker = set('DSH_CONTAINER_DOCKER_URL', 'DSH_CONTAINER_DOCKER_TLS_DIR', 'DSH_CONTAINER_DOCKER_IMAGE')
const ci = process.env['CI'] === 'true'

// With Docker alone, only the files declaring tests per engine (describeInEngines, describeOnEngines) have tests;
// describeInContainer's run on podman.
const source = join(import.meta.dirname, 'src')
const containerFiles = readdirSync(source).filter((name) => name.endsWith('.container.test.ts'))
const leftOut =
  ci || podman
    ? []
    : containerFiles.filter((name) => !docker || readFileSync(join(source, name), 'utf8').match(/\bdescribe(In|On)Engines\(/) === null)

export default packageTestConfig(import.meta.dirname, {
  include: ['src/**/*.test.ts'],
  exclude: [...leftOut.map((name) => `src/${name}`), '**/node_modules/**'],
  globalSetup: ['./vitest.global-setup.mjs'],
})

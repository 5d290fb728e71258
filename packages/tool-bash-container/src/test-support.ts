// Helpers of this package's container tests (not part of the build's entry, not exported).
import { spawnSync } from 'node:child_process'
import { beforeAll, describe } from 'vitest'
import type { ContainerBashConfig } from './container-config.js'

/** The title of the suite every test that needs a real engine sits under (the test summary looks for it). */
export const CONTAINER_SUITE_TITLE = 'in a session container'

/** The engine and image the tests use (.ci/container-engine.sh exports both). */
export const engineSocket = process.env['DSH_CONTAINER_SOCKET'] ?? ''
export const engineImage = process.env['DSH_CONTAINER_IMAGE'] ?? ''

/** The executor options of the tests' engine. */
export const engineOptions = (): Pick<ContainerBashConfig, 'engine' | 'image'> => ({ engine: { socketPath: engineSocket }, image: engineImage })

/**
 * Declares tests that need a real engine, under {@link CONTAINER_SUITE_TITLE}. With DSH_CONTAINER_SOCKET and
 * DSH_CONTAINER_IMAGE set, or with `CI=true` (where a missing engine must fail the run: every test then fails naming
 * the fix), they run; elsewhere they are not declared at all.
 */
export function describeInContainer(declare: () => void): void {
  if ((engineSocket === '' || engineImage === '') && process.env['CI'] !== 'true') return
  describe(CONTAINER_SUITE_TITLE, () => {
    beforeAll(() => {
      if (engineSocket === '' || engineImage === '') {
        throw new Error(
          'DSH_CONTAINER_SOCKET and DSH_CONTAINER_IMAGE are not set, so the container tests cannot run. Fix: `source .ci/container-engine.sh` (as root; .ci/run does it on CI).',
        )
      }
    })
    declare()
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

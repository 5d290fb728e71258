import { packageTestConfig } from '../../vitest.shared.js'

// The files named *.container.test.ts hold only tests that run commands in a real session container (every one
// under the suite of test-support.ts's describeInContainer). They need DSH_CONTAINER_SOCKET (the engine's unix
// socket) and DSH_CONTAINER_IMAGE (an image holding bash); .ci/container-engine.sh sets both up. Without them, and
// not on CI, they are left out of the run and the test command's summary says so; on CI (CI=true) they always run,
// and fail naming the fix.
const engine = (process.env['DSH_CONTAINER_SOCKET'] ?? '') !== '' && (process.env['DSH_CONTAINER_IMAGE'] ?? '') !== ''
const leaveOut = !engine && process.env['CI'] !== 'true'

export default packageTestConfig(import.meta.dirname, {
  include: ['src/**/*.test.ts'],
  exclude: leaveOut ? ['src/**/*.container.test.ts', '**/node_modules/**'] : ['**/node_modules/**'],
  globalSetup: ['./vitest.global-setup.mjs'],
})

import { spawnSync } from 'node:child_process'
import { packageTestConfig } from '../../vitest.shared.js'

// The files named *.sandbox.test.ts hold only tests that run programs in a real bubblewrap sandbox (every one under
// the suite of src/sandbox/test-support.ts's describeInSandbox). Without bubblewrap, and not on CI, they are left out of the run
// (a file with no test in it would fail as "no test suite found"), and the test command's summary says that the
// sandbox tests did not run and why. On CI (CI=true) they always run, and fail naming the fix.
const bubblewrap = spawnSync('bwrap', ['--version']).status === 0
const leaveOut = !bubblewrap && process.env['CI'] !== 'true'

export default packageTestConfig(import.meta.dirname, {
  include: ['src/**/*.test.ts'],
  exclude: leaveOut ? ['src/**/*.sandbox.test.ts', '**/node_modules/**'] : ['**/node_modules/**'],
})

import { packageBuildConfig } from '../../tsup.shared.js'
// @ts-expect-error: a plain .mjs helper next to this file, shared with the tests' global setup
import { bundleAgent } from './agent-build.mjs'

// The library (dist/index.js) and, after it, the in-container agent as one CommonJS bundle (dist/container-agent.cjs).
export default packageBuildConfig({
  onSuccess: async () => {
    await (bundleAgent as (outfile: string) => Promise<void>)(new URL('./dist/container-agent.cjs', import.meta.url).pathname)
  },
})

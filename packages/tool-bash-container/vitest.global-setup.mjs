import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundleAgent } from './agent-build.mjs'

// The tests run from src, where no bundle exists: build the agent once and point the executor at it.
export default async function setup() {
  const directory = mkdtempSync(join(tmpdir(), 'dsh-container-agent-'))
  const outfile = join(directory, 'container-agent.cjs')
  await bundleAgent(outfile)
  process.env.DSH_CONTAINER_AGENT_BUNDLE = outfile
  return () => rmSync(directory, { recursive: true, force: true })
}

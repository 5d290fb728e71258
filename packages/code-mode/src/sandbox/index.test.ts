import { describe, expect, it } from 'vitest'
import * as api from './index.js'

describe('@dsh/code-mode/sandbox public surface', () => {
  it('exports exactly the documented runtime values', () => {
    expect(Object.keys(api).sort()).toEqual(['SANDBOXED_NODE_MAX_STACK_BYTES', 'SandboxedNodeRuntime'])
  })

  it('the runner carries the guest prelude and nothing of the host', async () => {
    const { nodeRunnerSource } = await import('./node-runner.js')
    const { guestPrelude } = await import('../runtime/guest-prelude.js')
    expect(nodeRunnerSource).toContain(JSON.stringify(guestPrelude))
    expect(nodeRunnerSource).not.toMatch(/\/work\/|node_modules/)
  })
})

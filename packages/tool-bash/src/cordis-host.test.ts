import { CordisHostError } from '@dsh/tools-registry'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { BashTools, LocalBashExecutor, LocalBashTools } from './index.js'

const cordis3Like = { scope: {} } as unknown as Context

function thrownBy(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('it did not throw')
}

describe('on a host that is not cordis 4', () => {
  it.each([
    ['BashTools', BashTools.Config],
    ['LocalBashTools', LocalBashTools.Config],
  ])('regression: cordis 3 calling %s.Config(config) gets HOST_MISMATCH, not "schema is not a function"', (_label, schema) => {
    const error = thrownBy(() => (schema as unknown as (config: unknown) => unknown)({}))
    expect(CordisHostError.isInstance(error)).toBe(true)
    expect((error as CordisHostError).packageName).toBe('@dsh/tool-bash')
    expect((error as Error).message).toMatch(/^@dsh\/tool-bash needs cordis 4 \(>=4\.0\.0-rc\.10 <5\); the host has cordis \S+\. Install cordis@4\.0\.0-rc\.10\.$/)
  })

  it('the plugins and the executor refuse to start', async () => {
    expect(CordisHostError.isInstance(thrownBy(() => BashTools.apply(cordis3Like)))).toBe(true)
    expect(CordisHostError.isInstance(thrownBy(() => new LocalBashExecutor(cordis3Like)))).toBe(true)
    await expect(LocalBashTools.apply(cordis3Like)).rejects.toSatisfy((error: unknown) => CordisHostError.isInstance(error))
  })

  it('regression: after the executor failed to start, ctx.bash throws HOST_MISMATCH (cordis 3 left it undefined)', () => {
    // A cordis 3 root context and a plugin's context made from it (cordis 3 reads a property the root holds first).
    const root: Record<string, unknown> = { scope: {} }
    root.root = root
    const pluginCtx = Object.create(root) as Record<string, unknown>
    const failed = thrownBy(() => new LocalBashExecutor(pluginCtx as unknown as Context))
    expect(CordisHostError.isInstance(failed)).toBe(true)
    for (const ctx of [root, pluginCtx]) {
      const error = thrownBy(() => ctx.bash)
      expect(CordisHostError.isInstance(error)).toBe(true)
      expect((error as CordisHostError).packageName).toBe('@dsh/tool-bash')
      expect((error as Error).message).toBe((failed as Error).message)
    }
  })
})

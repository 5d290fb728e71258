import { DshError, findUnbrandedErrorClasses } from '@dsh/tools-core'
import { describe, expect, it, vi } from 'vitest'
import { HotUnloadError, InvalidTestOptionError, PluginNotActiveError, ScriptedModelError, type HotUnloadReport } from './index.js'

const report: HotUnloadReport = {
  plugin: 'p',
  cycles: 1,
  footprint: { tools: [], scopes: [], guards: 0, listeners: [], effects: [], plugins: [], services: [], emitterListeners: [] },
  leaks: [{ kind: 'tool', cycle: 1, message: 'tool "x" is still registered' }],
  clean: false,
}

describe('error classes', () => {
  it('every exported error class is branded', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  it.each([
    [new ScriptedModelError(2, 'm'), 'ScriptedModelError', 'INVALID_CALL'],
    [new InvalidTestOptionError('cycles', 'm'), 'InvalidTestOptionError', 'INVALID_CONFIG'],
    [new PluginNotActiveError('p', ['bash']), 'PluginNotActiveError', 'INVALID_CONFIG'],
    [new HotUnloadError(report), 'HotUnloadError', 'HOT_UNLOAD_LEAK'],
  ])('%s carries its name and code as data', (error, name, code) => {
    expect(error.toInfo()).toEqual({ name, code })
    expect(DshError.isInstance(error)).toBe(true)
    expect(error).toBeInstanceOf(Error)
  })

  it('isInstance holds across two installed copies of the package', async () => {
    vi.resetModules()
    const copyA = await import('./index.js')
    vi.resetModules()
    const copyB = await import('./index.js')
    expect(copyA.HotUnloadError).not.toBe(copyB.HotUnloadError)
    const error = new copyA.HotUnloadError(report)
    expect(copyB.HotUnloadError.isInstance(error)).toBe(true)
    expect(copyB.ScriptedModelError.isInstance(error)).toBe(false)
  })

  it('PluginNotActiveError says when nothing is missing that the plugin still did not start', () => {
    expect(new PluginNotActiveError('p', []).message).toBe('plugin "p" did not become active: it did not start. Load the plugins that provide them first.')
  })
})

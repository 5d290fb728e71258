// The demo runs the packages as they are published (their dist bundles), so this is where a bundler renaming shows.
import * as timeoutPolicy from '@dsh/timeout-policy'
import * as toolBash from '@dsh/tool-bash'
import * as toolsCore from '@dsh/tools-core'
import * as toolsPresentation from '@dsh/tools-presentation'
import * as toolsRegistry from '@dsh/tools-registry'
import * as toolsSchema from '@dsh/tools-schema'
import * as toolsTesting from '@dsh/tools-testing'
import { describe, expect, it } from 'vitest'

const packages: Record<string, Record<string, unknown>> = {
  '@dsh/timeout-policy': timeoutPolicy,
  '@dsh/tool-bash': toolBash,
  '@dsh/tools-core': toolsCore,
  '@dsh/tools-presentation': toolsPresentation,
  '@dsh/tools-registry': toolsRegistry,
  '@dsh/tools-schema': toolsSchema,
  '@dsh/tools-testing': toolsTesting,
}

describe('the built packages', () => {
  it.each(Object.entries(packages))('regression: %s keeps the names of its classes (no _BashConfigError in traces)', (_name, exports) => {
    const classes = Object.entries(exports).filter(
      ([, value]) => typeof value === 'function' && (value as { prototype?: unknown }).prototype instanceof Error,
    )
    expect(classes.length).toBeGreaterThan(0)
    for (const [exportName, klass] of classes) expect((klass as { name: string }).name, exportName).toBe(exportName)
  })

  it('an error from a bundle shows its class name in its stack and constructor', () => {
    const error = new toolBash.BashConfigError(['cwd: bad'])
    expect(error.constructor.name).toBe('BashConfigError')
    expect(error.stack?.startsWith('BashConfigError: ')).toBe(true)
  })
})

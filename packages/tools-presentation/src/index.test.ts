import { DshError, findUnbrandedErrorClasses } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import * as api from './index.js'

describe('package exports', () => {
  it('brands every error class', async () => {
    expect(findUnbrandedErrorClasses(await import('./index.js'))).toEqual([])
  })

  it('exports exactly the documented runtime API', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'InvalidCardError',
        'PresentationOptionsError',
        'UnknownCardError',
        'assertToolCallView',
        'assertToolResultView',
        'clientSupportsTerminalOutput',
        'codeCall',
        'codeResult',
        'computeDiffHunks',
        'contentText',
        'diffCall',
        'diffLocations',
        'diffResult',
        'fileDiff',
        'fileDiffHunks',
        'findToolCallViewIssue',
        'findToolResultViewIssue',
        'firstChangedLine',
        'formatConsoleBlock',
        'genericCall',
        'genericCallFallback',
        'genericResult',
        'genericResultFallback',
        'isAbsolutePath',
        'isToolCallView',
        'isToolResultView',
        'presentToolCall',
        'presentToolResult',
        'readTerminalResultMeta',
        'relativizeTitle',
        'renderToolCall',
        'renderToolResult',
        'resolveSessionPath',
        'shouldUseColor',
        'taskResult',
        'terminalCall',
        'terminalResult',
        'terminalResultFromMeta',
        'terminalResultMeta',
        'toAcpContentBlock',
        'toAcpSessionNotification',
        'toAcpToolCall',
        'toAcpToolCallUpdate',
      ].sort(),
    )
  })

  it('errors are DshErrors recognisable across copies by brand', () => {
    const unknown = new api.UnknownCardError({ card: 'x', path: 'card', reason: '"card" is "x"' })
    const options = new api.PresentationOptionsError('cwd', 'bad cwd')
    expect(DshError.isInstance(unknown) && DshError.isInstance(options)).toBe(true)
    expect(unknown.toInfo()).toEqual({ name: 'UnknownCardError', code: 'UNKNOWN_CARD' })
    expect(options.toInfo()).toEqual({ name: 'PresentationOptionsError', code: 'INVALID_CONFIG' })
    expect(api.UnknownCardError.isInstance(options)).toBe(false)
    expect(api.UnknownCardError.isInstance({ [Symbol.for('dsh.error.UnknownCardError')]: true })).toBe(true)
    expect(options.option).toBe('cwd')
  })
})

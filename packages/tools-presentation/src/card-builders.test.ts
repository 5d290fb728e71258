import { describe, expect, it } from 'vitest'
import {
  diffCall,
  diffLocations,
  diffResult,
  fileDiff,
  genericCall,
  genericResult,
  terminalCall,
  terminalResult,
} from './card-builders.js'
import { isToolCallView, isToolResultView } from './validate-card.js'

describe('card builders', () => {
  it('build exactly the vocabulary shapes and leave undefined fields out', () => {
    expect(genericCall({ title: 'read_file', kind: undefined, rawInput: undefined })).toEqual({ card: 'generic', title: 'read_file' })
    expect(Object.keys(genericCall({ title: 't', content: undefined, locations: undefined }))).toEqual(['card', 'title'])
    expect(
      genericCall({
        title: 'Read a.txt',
        kind: 'read',
        rawInput: { path: '/p/a.txt' },
        content: [{ type: 'text', text: 'reading' }],
        locations: [{ path: '/p/a.txt', line: 3 }],
      }),
    ).toEqual({
      card: 'generic',
      title: 'Read a.txt',
      kind: 'read',
      rawInput: { path: '/p/a.txt' },
      content: [{ type: 'text', text: 'reading' }],
      locations: [{ path: '/p/a.txt', line: 3 }],
    })
    expect(terminalCall({ title: 'ls -la', description: 'List files', cwd: '/p' })).toEqual({
      card: 'terminal',
      title: 'ls -la',
      description: 'List files',
      cwd: '/p',
    })
    expect(terminalCall({ title: 'ls', cwd: undefined })).toEqual({ card: 'terminal', title: 'ls' })
    expect(genericResult()).toEqual({ card: 'generic' })
    expect(genericResult({ title: 'Done', content: [] })).toEqual({ card: 'generic', title: 'Done', content: [] })
    expect(terminalResult({ output: 'hi\n', exitCode: null, signal: 'SIGTERM', timedOut: true })).toEqual({
      card: 'terminal',
      output: 'hi\n',
      exitCode: null,
      signal: 'SIGTERM',
      timedOut: true,
    })
    expect(terminalResult()).toEqual({ card: 'terminal' })
    expect(diffResult({ diffs: [fileDiff('/p/a', 'x', 'y')] })).toEqual({
      card: 'diff',
      diffs: [{ path: '/p/a', oldText: 'x', newText: 'y' }],
    })
  })

  it('detach arrays and objects from the input', () => {
    const locations = [{ path: '/p/a', line: 1 }]
    const content = [{ type: 'text' as const, text: 'x' }]
    const view = genericCall({ title: 't', locations, content })
    locations[0]!.line = 99
    content.push({ type: 'text', text: 'y' })
    expect(view.locations).toEqual([{ path: '/p/a', line: 1 }])
    expect(view.content).toHaveLength(1)
    const diffs = [fileDiff('/p/a', null, 'x')]
    const result = diffResult({ diffs })
    diffs[0]!.newText = 'changed'
    expect(result.diffs[0]!.newText).toBe('x')
  })

  it('diffCall derives one location per file at its first changed line unless locations are given', () => {
    const diffs = [fileDiff('/p/a.ts', 'a\nb\nc\n', 'a\nB\nc\n'), fileDiff('/p/new.ts', null, 'x'), fileDiff('/p/a.ts', 'q', 'r')]
    expect(diffCall({ title: 'Edit', diffs }).locations).toEqual([{ path: '/p/a.ts', line: 2 }, { path: '/p/new.ts', line: 1 }])
    expect(diffCall({ title: 'Edit', diffs, locations: [] }).locations).toEqual([])
    expect(diffCall({ title: 'Edit', diffs: [fileDiff('/p/same', 'x', 'x')] }).locations).toEqual([{ path: '/p/same' }])
    expect(diffCall({ title: 'Edit', diffs: [] })).toEqual({ card: 'diff', title: 'Edit', diffs: [] })
    expect(diffLocations([])).toEqual([])
  })

  it('build cards the validators accept', () => {
    expect(isToolCallView(diffCall({ title: 'x', diffs: [fileDiff('/p', null, '')] }))).toBe(true)
    expect(isToolResultView(terminalResult({ exitCode: 0 }))).toBe(true)
  })
})

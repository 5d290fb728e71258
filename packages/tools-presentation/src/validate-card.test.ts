import { describe, expect, it } from 'vitest'
import { UnknownCardError } from './unknown-card-error.js'
import {
  assertToolCallView,
  assertToolResultView,
  findToolCallViewIssue,
  findToolResultViewIssue,
  isToolCallView,
  isToolResultView,
} from './validate-card.js'

describe('card validation', () => {
  it('accepts every card kind of the vocabulary', () => {
    const calls = [
      { card: 'generic', title: 't' },
      {
        card: 'generic',
        title: 't',
        kind: 'search',
        rawInput: 1,
        content: [
          { type: 'text', text: 'x', annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-01' } },
          { type: 'image', data: 'AA==', mimeType: 'image/png' },
          { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
          { type: 'resource_link', uri: 'file:///x', name: 'x', size: 3 },
          { type: 'resource', resource: { uri: 'file:///x', text: 'x' } },
          { type: 'resource', resource: { uri: 'file:///y', blob: 'AA==', mimeType: 'application/octet-stream' } },
        ],
        locations: [{ path: '/a', line: 1 }],
      },
      { card: 'terminal', title: 'ls', description: 'd', cwd: '/p' },
      { card: 'diff', title: 'e', diffs: [{ path: '/a', oldText: null, newText: '' }], locations: [] },
    ]
    for (const call of calls) expect(findToolCallViewIssue(call)).toBeUndefined()
    const results = [
      { card: 'generic' },
      { card: 'generic', title: 't', content: [] },
      { card: 'terminal', output: 'o', exitCode: 0, signal: null, timedOut: false },
      { card: 'terminal', exitCode: null, signal: 'SIGKILL' },
      { card: 'diff', diffs: [] },
    ]
    for (const result of results) expect(findToolResultViewIssue(result)).toBeUndefined()
  })

  it('treats an optional field holding undefined as absent', () => {
    expect(isToolCallView({ card: 'terminal', title: 'ls', cwd: undefined })).toBe(true)
    expect(isToolResultView({ card: 'terminal', exitCode: undefined })).toBe(true)
  })

  it('rejects unknown card kinds with UNKNOWN_CARD', () => {
    for (const value of [{ card: 'chart', title: 'x' }, { title: 'x' }, null, 'generic', []]) {
      const issue = findToolCallViewIssue(value)
      expect(issue).toBeInstanceOf(UnknownCardError)
      expect(issue).toMatchObject({ code: 'UNKNOWN_CARD', path: 'card' })
    }
    expect(findToolCallViewIssue({ card: 'chart' })!.message).toBe(
      'Not a known tool card: "card" is "chart" (known cards: generic, terminal, diff, task, code).',
    )
    expect(findToolResultViewIssue({ card: 'chart' })!.card).toBe('chart')
  })

  it('rejects malformed fields with their path', () => {
    const withContent = (block: unknown) => ({ card: 'generic', title: 't', content: [block] })
    const cases: [unknown, string][] = [
      [{ card: 'generic' }, 'title'],
      [{ card: 'generic', title: 1 }, 'title'],
      [{ card: 'generic', title: 't', kind: 'think' }, 'kind'],
      [{ card: 'generic', title: 't', content: [{ type: 'video' }] }, 'content[0].type'],
      [{ card: 'generic', title: 't', content: [{ type: 'text' }] }, 'content[0].text'],
      [withContent({ type: 'text', text: 'x', annotations: { priority: 2 } }), 'content[0].annotations.priority'],
      [withContent({ type: 'text', text: 'x', annotations: { audience: ['bot'] } }), 'content[0].annotations.audience[0]'],
      [withContent({ type: 'resource', resource: { uri: 'u', text: 'a', blob: 'b' } }), 'content[0].resource'],
      [{ card: 'generic', title: 't', content: [{ type: 'resource_link', uri: 'u', name: 'n', size: -1 }] }, 'content[0].size'],
      [{ card: 'generic', title: 't', locations: [{ path: '/a', line: 0 }] }, 'locations[0].line'],
      [{ card: 'generic', title: 't', locations: [{ path: '/a', line: 1.5 }] }, 'locations[0].line'],
      [{ card: 'generic', title: 't', locations: {} }, 'locations'],
      [{ card: 'terminal', title: 't', cwd: 3 }, 'cwd'],
      [{ card: 'diff', title: 't' }, 'diffs'],
      [{ card: 'diff', title: 't', diffs: [{ path: '/a', newText: 'x' }] }, 'diffs[0].oldText'],
      [{ card: 'diff', title: 't', diffs: [{ path: '/a', oldText: null, newText: 1 }] }, 'diffs[0].newText'],
    ]
    for (const [value, path] of cases) {
      expect(findToolCallViewIssue(value), JSON.stringify(value)).toMatchObject({ name: 'InvalidCardError', code: 'INVALID_CARD', path })
    }
    const resultCases: [unknown, string][] = [
      [{ card: 'generic', title: 5 }, 'title'],
      [{ card: 'terminal', exitCode: 1.5 }, 'exitCode'],
      [{ card: 'terminal', signal: 9 }, 'signal'],
      [{ card: 'terminal', timedOut: 'yes' }, 'timedOut'],
      [{ card: 'terminal', output: ['x'] }, 'output'],
      [{ card: 'diff' }, 'diffs'],
    ]
    for (const [value, path] of resultCases) {
      expect(findToolResultViewIssue(value), JSON.stringify(value)).toMatchObject({ name: 'InvalidCardError', code: 'INVALID_CARD', path })
    }
    expect(findToolCallViewIssue({ card: 'diff', title: 't', diffs: [{ path: '/a', newText: 'x' }] })!.message).toBe(
      'Malformed diff card at "diffs[0].oldText": expected a string, or null for a new file, got nothing.',
    )
  })

  it('checks call and result shapes separately', () => {
    expect(isToolCallView({ card: 'generic' })).toBe(false)
    expect(isToolResultView({ card: 'generic' })).toBe(true)
  })

  it('asserts by throwing the typed error', () => {
    expect(() => assertToolCallView({ card: 'pie', title: 'x' })).toThrow(UnknownCardError)
    expect(() => assertToolResultView({ card: 'terminal', exitCode: 'zero' })).toThrow(/exitCode/)
    expect(() => assertToolCallView({ card: 'terminal', title: 'ls' })).not.toThrow()
  })
})

import { describe, expect, it } from 'vitest'
import { describeJsonPath, formatJsonPath } from './json-path.js'

describe('formatJsonPath', () => {
  it('formats identifiers with dots, indices with brackets and odd keys quoted', () => {
    expect(formatJsonPath([])).toBe('')
    expect(formatJsonPath(['servers', 1, 'host'])).toBe('servers[1].host')
    expect(formatJsonPath([0, 'a'])).toBe('[0].a')
    expect(formatJsonPath(['a b', 'c"d', '1x', '$ok'])).toBe('["a b"]["c\\"d"]["1x"].$ok')
  })

  it('describes the root and other paths', () => {
    expect(describeJsonPath('')).toBe('at the root')
    expect(describeJsonPath('a[0]')).toBe('at "a[0]"')
  })
})

import { findUnbrandedErrorClasses } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import * as mcp from './index.js'

describe('the package surface', () => {
  it('brands every exported error class', () => {
    expect(findUnbrandedErrorClasses(mcp)).toEqual([])
  })

  it('is a cordis plugin that needs the registry', () => {
    expect(mcp.default).toBe(mcp.mcpServer)
    expect(mcp.inject).toEqual(['tools'])
    expect(typeof mcp.apply).toBe('function')
  })

  it('rejects configs with a clear McpConfigError listing every issue', () => {
    let error: unknown
    try {
      mcp.resolveMcpServerConfig({ id: 'x', command: 'a', trust: 'yes', schemaPolicy: 'maybe', bogus: 1 })
    } catch (thrown) {
      error = thrown
    }
    expect(mcp.McpConfigError.isInstance(error)).toBe(true)
    expect((error as mcp.McpConfigError).code).toBe('INVALID_CONFIG')
    expect((error as mcp.McpConfigError).issues).toEqual([
      'bogus: unknown option',
      'trust: must be a boolean',
      'schemaPolicy: must be one of "reject", "transform", "pass", got "maybe"',
    ])
  })

  it('defaults the tasks config: a 10 s foreground budget, task-only tools foreground-first', () => {
    expect(mcp.resolveMcpServerConfig({ id: 'x', command: 'a' }).tasks).toEqual({ foregroundMs: 10_000, taskOnly: 'optional' })
  })

  it('defaults minListTtlMs to 1000 ms and rejects one below 1 ms', () => {
    expect(mcp.resolveMcpServerConfig({ id: 'x', url: 'http://127.0.0.1:1/mcp' }).minListTtlMs).toBe(1_000)
    expect(() => mcp.resolveMcpServerConfig({ id: 'x', url: 'http://127.0.0.1:1/mcp', minListTtlMs: 0 })).toThrow(/minListTtlMs: must be an integer from 1 to 2147483647, got 0/)
  })
})

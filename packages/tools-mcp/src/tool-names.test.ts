import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { registryToolName, serverIdProblem, TOOL_NAME_PATTERN } from './tool-names.js'

describe('registry tool names', () => {
  it('keeps a provider-safe name as mcp__<server>__<tool>', () => {
    expect(registryToolName('fs', 'read_file')).toBe('mcp__fs__read_file')
  })

  it('maps dots and a leading digit, and adds a hash of the wire name so lookalikes stay apart', () => {
    const dotted = registryToolName('srv', 'admin.tools.list')
    const underscored = registryToolName('srv', 'admin_tools_list')
    expect(dotted).toMatch(/^mcp__srv__admin_tools_list_h[0-9a-f]{16}$/)
    expect(underscored).toBe('mcp__srv__admin_tools_list')
    expect(registryToolName('srv', '1st-tool')).toBe('mcp__srv__1st-tool')
  })

  it('hashes with 64 bits (16 hex digits), not 40: a second wire name for a given name is out of reach', () => {
    // 10 hex digits (40 bits) let a server find two colliding wire names in about 2^20 hashes (seconds), and a second
    // wire name for a given tool's name in 2^40. The digest only keeps names apart; identity is the wire name.
    expect(registryToolName('srv', 'a.b')).toMatch(/_h[0-9a-f]{16}$/)
    // A plain wire name that ends like a hash is hashed too, so no plain name can equal a hashed one.
    const lookalike = `x_h${'0'.repeat(16)}`
    expect(registryToolName('srv', lookalike)).toMatch(new RegExp(`^mcp__srv__x_h0{16}_h[0-9a-f]{16}$`))
    expect(registryToolName('srv', `x_h${'0'.repeat(10)}`)).toBe(`mcp__srv__x_h${'0'.repeat(10)}`)
  })

  it('cuts a 70-character name to 64 with a stable hash', () => {
    const long = 'a'.repeat(70)
    const name = registryToolName('server', long)
    expect(name.length).toBe(64)
    expect(name).toBe(registryToolName('server', long))
    expect(TOOL_NAME_PATTERN.test(name)).toBe(true)
  })

  it('gives two servers exposing the same tool different names', () => {
    expect(registryToolName('a', 'search')).not.toBe(registryToolName('b', 'search'))
  })

  it('refuses server ids that could make one prefix look like another', () => {
    expect(serverIdProblem('a__b')).toMatch(/no "__"/)
    expect(serverIdProblem('a_')).toBeDefined()
    expect(serverIdProblem('x'.repeat(33))).toMatch(/at most 32/)
    expect(serverIdProblem('my-server_2')).toBeUndefined()
  })

  it('always yields a valid name, and never the same name for two different wire names of one server (property)', () => {
    const serverId = fc.stringMatching(/^[A-Za-z0-9]{1,8}(?:[-_][A-Za-z0-9]{1,8}){0,2}$/)
    const wireName = fc.oneof(fc.string({ maxLength: 140 }), fc.stringMatching(/^[A-Za-z0-9_.-]{1,80}$/))
    fc.assert(
      fc.property(serverId, wireName, wireName, (server, first, second) => {
        const a = registryToolName(server, first)
        expect(TOOL_NAME_PATTERN.test(a)).toBe(true)
        if (first !== second) expect(a).not.toBe(registryToolName(server, second))
      }),
      { numRuns: 2_000 },
    )
  })

  it('never gives two servers the same name for any tools (property)', () => {
    const serverId = fc.stringMatching(/^[A-Za-z0-9]{1,6}(?:[-_][A-Za-z0-9]{1,6}){0,2}$/)
    const wireName = fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/)
    fc.assert(
      fc.property(serverId, serverId, wireName, wireName, (s1, s2, t1, t2) => {
        fc.pre(s1 !== s2)
        expect(registryToolName(s1, t1)).not.toBe(registryToolName(s2, t2))
      }),
      { numRuns: 2_000 },
    )
  })
})

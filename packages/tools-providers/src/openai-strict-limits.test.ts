import type { ToolSchema } from '@dsh/tools-core'
import { describe, expect, it } from 'vitest'
import { lintToolSchemas, OPENAI_STRICT_LIMITS, ProviderSchemaError } from './index.js'
import { openaiTools } from './openai/index.js'

const tool = (parameters: Record<string, unknown>): ToolSchema => ({ name: 'big', description: 'A large schema.', parameters: parameters as ToolSchema['parameters'] })
const closed = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false })

/** Objects nested `levels` deep, the parameters being the first level. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = closed({ leaf: { type: 'string' } })
  for (let level = 1; level < levels; level++) schema = closed({ [`n${level}`]: schema })
  return schema
}
const manyProperties = (count: number) => closed(Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { type: 'string' }])))
const stringEnum = (count: number, length: number) => ({ type: 'string', enum: Array.from({ length: count }, (_, index) => String(index).padStart(length, 'v')) })
const lint = (parameters: Record<string, unknown>) => lintToolSchemas([tool(parameters)], 'openai-strict').map((issue) => `${issue.kind} ${issue.path} ${issue.keyword}`)

describe('openai-strict size limits', () => {
  it('objects nested one level deeper than OpenAI allows fail the build, naming the place; at the limit they pass', () => {
    expect(lint(nested(OPENAI_STRICT_LIMITS.nesting))).toEqual([])
    const tooDeep = nested(OPENAI_STRICT_LIMITS.nesting + 1)
    expect(lint(tooDeep)).toEqual(['unsupported n10.n9.n8.n7.n6.n5.n4.n3.n2.n1 nesting'])
    let thrown: unknown
    try {
      openaiTools([tool(tooDeep)], { profile: 'openai-strict' })
    } catch (error) {
      thrown = error
    }
    expect(ProviderSchemaError.isInstance(thrown)).toBe(true)
    expect((thrown as Error).message).toContain('objects nest 11 levels deep here; OpenAI allows at most 10 in a strict schema')
  })

  it('an array of objects and the nullable wrapper of an optional property count as the object levels they hold', () => {
    // top level → items of list (level 2) → optional object (level 3, wrapped in anyOf with null by the projection)
    const schema = { type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { opt: nested(OPENAI_STRICT_LIMITS.nesting - 2) }, additionalProperties: false } } }, additionalProperties: false }
    expect(lint(schema)).toEqual([])
    const deeper = { type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { opt: nested(OPENAI_STRICT_LIMITS.nesting - 1) }, additionalProperties: false } } }, additionalProperties: false }
    expect(lint(deeper)).toEqual(['unsupported list[].opt.n8.n7.n6.n5.n4.n3.n2.n1 nesting'])
  })

  it('more object properties in all than OpenAI allows is reported once, at the first property past the limit', () => {
    expect(lint(manyProperties(OPENAI_STRICT_LIMITS.properties))).toEqual([])
    expect(lint(manyProperties(OPENAI_STRICT_LIMITS.properties + 1))).toEqual([`unsupported p${OPENAI_STRICT_LIMITS.properties} properties`])
  })

  it('enum values: more than 1,000 in all, or a large string enum of too many characters', () => {
    const split = closed({ a: stringEnum(500, 2), b: stringEnum(500, 2) })
    expect(lint(split)).toEqual([])
    expect(lint(closed({ a: stringEnum(500, 2), b: stringEnum(501, 2) }))).toEqual(['unsupported  enum'])
    // 251 values of 60 characters: 15,060 > 15,000; of 59: 14,809.
    expect(lint(closed({ a: stringEnum(251, 59) }))).toEqual([])
    expect(lint(closed({ a: stringEnum(251, 60) }))).toEqual(['unsupported a enum'])
    // 250 values of 100 characters: a long enum, but not one of "more than 250 values".
    expect(lint(closed({ a: stringEnum(250, 100) }))).toEqual([])
  })

  it('property names, enum values and const values beyond 120,000 characters in all', () => {
    const longNames = (length: number) => closed(Object.fromEntries(Array.from({ length: 100 }, (_, index) => [String(index).padStart(length, 'k'), { type: 'string' }])))
    expect(lint(longNames(1200))).toEqual([])
    expect(lint(longNames(1201))).toEqual(['unsupported  characters'])
  })

  it('a fallback sends an oversized tool non-strict, and the non-strict profile has no size lint', () => {
    const tools = openaiTools([tool(nested(12))], { profile: 'openai-strict', fallback: 'non-strict' })
    expect(tools.chat[0]?.function.strict).toBe(false)
    expect(tools.issues.map((issue) => issue.keyword)).toContain('nesting')
    expect(lintToolSchemas([tool(nested(12))], 'openai')).toEqual([])
  })
})

// Property test: for a few zod schemas and generated values (near-valid ones and arbitrary JSON), a zod tool's
// verdict (the registry hook, `validateArguments`) is zod's own verdict (`safeParse`), and ajv compiling the JSON
// Schema the model is sent agrees with both (the schemas here have no refinements, so the JSON Schema is exact).
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool } from './define-tool.js'

// zod's .max() counts UTF-16 code units, JSON Schema's maxLength code points: the one place zod and the JSON Schema
// it emits disagree by design, so the length-bounded strings here are ASCII.
const ajv = new Ajv2020({ strict: false, allErrors: false, ownProperties: true })

const cases = {
  flat: {
    schema: z.object({ path: z.string().min(1), offset: z.int().min(0).optional(), verbose: z.boolean().optional() }),
    valid: fc.record({ path: fc.string({ minLength: 1 }), offset: fc.nat(), verbose: fc.boolean() }, { requiredKeys: ['path'] }),
    near: fc.record(
      { path: fc.oneof(fc.string({ maxLength: 3 }), fc.integer()), offset: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string()), verbose: fc.oneof(fc.boolean(), fc.constant(null)) },
      { requiredKeys: [] },
    ),
  },
  strict: {
    schema: z.strictObject({ mode: z.enum(['read', 'write']), tags: z.array(z.string().max(2)).max(2) }),
    valid: fc.record({ mode: fc.constantFrom('read', 'write'), tags: fc.array(fc.string({ unit: 'grapheme-ascii', maxLength: 2 }), { maxLength: 2 }) }),
    near: fc.record(
      { mode: fc.constantFrom('read', 'write', 'append', 1), tags: fc.array(fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 3 }), fc.integer()), { maxLength: 3 }), extra: fc.boolean() },
      { requiredKeys: ['mode', 'tags'] },
    ),
  },
  union: {
    schema: z.object({ target: z.union([z.object({ kind: z.literal('file'), path: z.string() }), z.object({ kind: z.literal('url'), href: z.string() })]), limit: z.number().positive().nullable() }),
    valid: fc.record({
      target: fc.oneof(fc.record({ kind: fc.constant('file'), path: fc.string() }), fc.record({ kind: fc.constant('url'), href: fc.string() })),
      limit: fc.oneof(fc.constant(null), fc.double({ noNaN: true, min: 0.001, max: 100 })),
    }),
    near: fc.record({
      target: fc.record({ kind: fc.constantFrom('file', 'url', 'dir'), path: fc.string({ maxLength: 2 }), href: fc.oneof(fc.string({ maxLength: 2 }), fc.integer()) }, { requiredKeys: ['kind'] }),
      limit: fc.oneof(fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true, min: -2, max: 2 })),
    }),
  },
} as const

// -0 is not lossless JSON (we refuse it before zod sees it; zod and ajv accept it): keep it out of the values.
function hasNegativeZero(value: unknown): boolean {
  if (Object.is(value, -0)) return true
  return typeof value === 'object' && value !== null && Object.values(value).some(hasNegativeZero)
}
const noNegativeZero = (value: unknown): boolean => !hasNegativeZero(value)

describe('a zod tool agrees with zod and with ajv on every value', () => {
  for (const [name, { schema, valid, near }] of Object.entries(cases)) {
    test(`${name}: validateArguments === zod safeParse === ajv on the sent JSON Schema`, () => {
      const tool = defineTool({ name, description: `The ${name} case.`, parameters: schema as z.ZodObject, execute: () => 'ok' })
      const oracle = ajv.compile(tool.parameters)
      let accepted = 0
      fc.assert(
        // Values meant to pass, near misses, and any JSON: a third of the runs at least should pass, whatever the seed.
        fc.property(fc.oneof(valid, near, fc.jsonValue()).filter(noNegativeZero), (value) => {
          const zodSays = schema.safeParse(value).success
          const check = tool.validateArguments(value)
          expect(check.ok).toBe(zodSays)
          expect(oracle(value)).toBe(zodSays)
          if (zodSays) accepted += 1
        }),
        { numRuns: 1000 },
      )
      // The generators must reach both verdicts, or the agreement says nothing (about 330 pass on any seed).
      expect(accepted).toBeGreaterThan(100)
      expect(accepted).toBeLessThan(990)
    }, 60_000)
  }
})

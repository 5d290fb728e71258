import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { compileParameters, compileValueSchema } from './compile-schema.js'
import { codePointLength, firstDuplicate, isMultipleOf } from './constraints.js'
import { defineParameters, defineValueSchema } from './define-parameters.js'
import { JsonSchemaError } from './json-schema-error.js'
import type { ParameterSchemaSpec, ValueSchemaSpec } from './schema-spec.js'
import { schemaSpecToJsonSchema, valueSchemaSpecToJsonSchema } from './schema-spec-to-json-schema.js'
import { validateStructuredValue } from './structured-output.js'
import { decimalMultiple } from './test-support.js'
import { formatViolation } from './violation.js'

const ajv = new Ajv2020({ strict: true, ownProperties: true })

function violations(spec: ValueSchemaSpec, value: unknown): string[] {
  const result = compileValueSchema(spec, { cache: false }).validate(value)
  return result.ok ? [] : result.violations.map(formatViolation)
}

function problems(spec: unknown): string[] {
  try {
    defineValueSchema(spec as ValueSchemaSpec)
    return []
  } catch (error) {
    if (!JsonSchemaError.isInstance(error)) throw error
    return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
  }
}

describe('violations name the constraint and the offending value', () => {
  const spec = defineParameters({
    path: { type: 'string', minLength: 2, maxLength: 4, pattern: '^/' },
    offset: { type: 'integer', minimum: 1 },
    ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 },
    limit: { type: 'integer', maximum: 10 },
    tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2, uniqueItems: true },
  })

  test.each([
    [{ offset: 0 }, ['offset: must be at least 1, got 0']],
    [{ limit: 11 }, ['limit: must be at most 10, got 11']],
    [{ ratio: 0 }, ['ratio: must be greater than 0, got 0']],
    [{ ratio: 1 }, ['ratio: must be less than 1, got 1']],
    [{ ratio: 0.3 }, ['ratio: must be a multiple of 0.25, got 0.3']],
    [{ path: 'a' }, ['path: must be at least 2 characters long, got 1 ("a")', 'path: must match the pattern "^/", got "a"']],
    [{ path: '/abcd' }, ['path: must be at most 4 characters long, got 5 ("/abcd")']],
    [{ tags: [] }, ['tags: must have at least 1 item, got 0']],
    [{ tags: ['a', 'b', 'c'] }, ['tags: must have at most 2 items, got 3']],
    [{ tags: ['a', 'a'] }, ['tags: must not contain duplicate items: [1] equals [0]']],
    [{ tags: ['a', 1] }, ['tags[1]: expected a string, got the number 1']],
  ])('%j', (value, expected) => {
    const result = compileParameters(spec).validate(value)
    expect(result.ok ? [] : result.violations.map(formatViolation)).toEqual(expected)
    expect(compileParameters(spec).firstViolation(value)?.keyword).toBe(result.ok ? undefined : result.violations[0]?.keyword)
  })

  test('a value that meets every constraint is accepted', () => {
    expect(compileParameters(spec).is({ path: '/ab', offset: 1, ratio: 0.75, limit: 10, tags: ['a', 'b'] })).toBe(true)
  })

  test('the keyword of each violation is the constraint broken', () => {
    const result = compileParameters(spec).validate({ offset: 0, tags: [] })
    expect(result.ok ? [] : result.violations.map((violation) => violation.keyword)).toEqual(['minimum', 'minItems'])
  })
})

describe('string lengths count Unicode code points, as JSON Schema does', () => {
  test('a surrogate pair is one character; a lone surrogate is one too', () => {
    expect(codePointLength('😀')).toBe(1)
    expect(codePointLength('a😀b')).toBe(3)
    expect(codePointLength('\ud83d')).toBe(1)
    expect(codePointLength('\ude00\ud83d')).toBe(2)
    expect(violations({ type: 'string', maxLength: 1 }, '😀')).toEqual([])
    expect(violations({ type: 'string', minLength: 2 }, '😀')).toEqual(['(root): must be at least 2 characters long, got 1 ("😀")'])
  })

  test('for every string, codePointLength is the length of its code point list, and ajv agrees on the bounds', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'é', '😀', '\ud83d', '\ude00', '\u{10ffff}'), { maxLength: 10 }).map((units) => units.join('')), fc.integer({ min: 0, max: 8 }), (text, limit) => {
        expect(codePointLength(text)).toBe([...text].length)
        const schema = { type: 'string', minLength: limit } as const
        expect(compileValueSchema(schema).is(text)).toBe(ajv.validate(schema, text))
      }),
    )
  })
})

/** `digits · 10^-scale` as the plain decimal text JavaScript prints: (123n, 2) → "1.23", (-5n, 3) → "-0.005". */
function decimalText(digits: bigint, scale: number): string {
  const raw = (digits < 0n ? -digits : digits).toString().padStart(scale + 1, '0')
  const fraction = raw.slice(raw.length - scale).replace(/0+$/, '')
  return `${digits < 0n ? '-' : ''}${raw.slice(0, raw.length - scale)}${fraction === '' ? '' : `.${fraction}`}`
}

describe('multipleOf divides the decimals of the JSON text (JSON Schema’s meaning, exact)', () => {
  test.each([
    [0.3, 0.1, true],
    [19.99, 0.01, true],
    [0.35, 0.1, false],
    [4.5, 1.5, true],
    [35, 1.5, false],
    [0.0075, 0.0001, true],
    [0.00751, 0.0001, false],
    [-6, 3, true],
    [7, 2, false],
    [1e21, 1, true],
    [1e308, 0.5, true],
    [1e308, 0.123456789, false],
    [12391239123, 1e-8, true],
    [2 ** 53 + 2, 2, true],
    [2 ** 53 + 2, 3, false],
    [5e-324, 5e-324, true],
    [1e-7, 0.1, false],
    [-0.3, 0.1, true],
  ])('%s is a multiple of %s: %s', (value, divisor, multiple) => {
    expect(isMultipleOf(value, divisor)).toBe(multiple)
    expect(compileValueSchema({ type: 'number', multipleOf: divisor }, { cache: false }).is(value)).toBe(multiple)
  })

  test('the message of a value that is not a multiple', () => {
    expect(violations({ type: 'number', multipleOf: 0.1 }, 0.35)).toEqual(['(root): must be a multiple of 0.1, got 0.35'])
    expect(violations({ type: 'number', multipleOf: 0.01 }, 19.99)).toEqual([])
  })

  test('k · d is a multiple of d, and a tenth of a last digit more is not, for decimals of up to 8 places', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 9 }), (k, m, scale, r) => {
        const divisor = decimalText(BigInt(m), scale)
        const multiple = decimalText(BigInt(k) * BigInt(m), scale)
        const off = decimalText(BigInt(k) * BigInt(m) * 10n + (k < 0 ? -BigInt(r) : BigInt(r)), scale + 1)
        // Only texts a number prints back as they are (no exponent, no rounding): those are the JSON the value is.
        fc.pre([divisor, multiple, off].every((text) => String(Number(text)) === text))
        const validator = compileValueSchema({ type: 'number', multipleOf: Number(divisor) })
        expect(validator.is(Number(multiple))).toBe(true)
        expect(validator.is(Number(off))).toBe(false)
      }),
    )
  })

  test('agrees with the decimal oracle for any number and divisor (both the scaled-integer and the BigInt path)', () => {
    const divisors = [0.1, 0.25, 0.01, 1.5, 3, 1e-8, 0.123456789, 2.5e-3, 7e22, 1e-22, 1e-23, 5e-324, 2 ** 53 + 2]
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 100), fc.integer()),
        fc.oneof(fc.constantFrom(...divisors), fc.double({ min: 1e-6, max: 1e6, noNaN: true })),
        (value, divisor) => {
          fc.pre(!Object.is(value, -0) && divisor > 0)
          expect(isMultipleOf(value, divisor)).toBe(decimalMultiple(value, divisor))
        },
      ),
      { numRuns: 2000 },
    )
  })

  test('safe integers: the remainder decides, as ajv and every JSON Schema validator agree', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.integer({ min: 1, max: 1e6 }), (value, divisor) => {
        fc.pre(!Object.is(value, -0))
        const schema = { type: 'integer', multipleOf: divisor } as const
        expect(compileValueSchema(schema).is(value)).toBe(value % divisor === 0)
        expect(ajv.validate(schema, value)).toBe(value % divisor === 0)
      }),
    )
  })
})

describe('uniqueItems compares as JSON', () => {
  test.each([
    [[{ a: 1, b: 2 }, { b: 2, a: 1 }], false],
    [[1, 1.0], false],
    [[[1, [2]], [1, [2]]], false],
    [['1', 1], true],
    [[{ a: 1 }, { a: 1, b: null }], true],
    [[null, false, 0, ''], true],
  ])('%j unique: %s', (value, unique) => {
    const schema = { type: 'array', uniqueItems: true } as const
    expect(compileValueSchema(schema).is(value)).toBe(unique)
    expect(ajv.validate(schema, value)).toBe(unique)
  })
  // The reference: every pair, compared as JSON text with sorted keys (objects in any key order, any prototype).
  const sortedText = (value: unknown): string =>
    JSON.stringify(value, (_, inner: unknown) =>
      typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1))) : inner,
    )
  function firstDuplicatePairwise(elements: readonly unknown[]): readonly [number, number] | undefined {
    for (let later = 1; later < elements.length; later++) {
      for (let earlier = 0; earlier < later; earlier++) if (sortedText(elements[earlier]) === sortedText(elements[later])) return [earlier, later]
    }
    return undefined
  }

  test('the pair found is the first later element equal to an earlier one, for short and long lists, scalars and objects', () => {
    const element = fc.oneof(
      fc.constantFrom('a', 'b', '1', 1, 2, 1.5, true, false, null, ''),
      fc.constantFrom({ a: 1 }, { b: [1] }, [1], [], {}),
      fc.dictionary(fc.constantFrom('a', 'b'), fc.constantFrom(1, 'a', null)),
    )
    fc.assert(
      fc.property(fc.array(element, { maxLength: 40 }), (elements) => {
        expect(firstDuplicate(elements)).toEqual(firstDuplicatePairwise(elements))
      }),
      { numRuns: 500 },
    )
  })

  test.each([
    ['a long list of strings', Array.from({ length: 30 }, (_, index) => (index === 24 ? 'item 7' : `item ${index}`)), [7, 24]],
    ['an object after scalars', ['x', 1, { a: 1 }, 'y', { a: 1 }], [2, 4]],
    ['a scalar after an object', [{ a: 1 }, 'x', 'x'], [1, 2]],
    ['a string that reads like an object', ['{"a":1}', { a: 1 }, { a: 1 }], [1, 2]],
  ])('%s: the violation names the pair', (_, value, [earlier, later]) => {
    expect(violations({ type: 'array', uniqueItems: true }, value)).toEqual([`(root): must not contain duplicate items: [${later}] equals [${earlier}]`])
    expect(compileValueSchema({ type: 'array', uniqueItems: true }).is(value)).toBe(false)
  })
})

describe('definition errors', () => {
  test('a pattern that does not compile with the u flag', () => {
    // `\-` outside a class is an identity escape, legal without the u flag and an error with it.
    expect(problems({ type: 'string', pattern: 'a\\-b' })[0]).toMatch(/^pattern: pattern "a\\\\-b" does not compile as an ECMA-262 regular expression with the u flag: /)
  })

  test('misplaced constraints and illegal values, every one with its path', () => {
    expect(
      problems({
        type: 'object',
        additionalProperties: false,
        properties: {
          a: { type: 'boolean', minLength: 1 },
          b: { type: 'string', minLength: 1.5, maxLength: -1 },
          c: { type: 'number', minimum: Number.NaN, multipleOf: -1 },
          d: { type: 'array', uniqueItems: 1, maxItems: '3' },
          e: { type: 'json', minimum: 0 },
          f: { type: 'integer', minimum: 5, maximum: 4 },
          g: { type: 'number', exclusiveMinimum: 1, exclusiveMaximum: 1 },
        },
      }),
    ).toEqual([
      'properties.a.minLength: "minLength" only applies to type "string"',
      'properties.b.minLength: minLength must be a non-negative integer, got the number 1.5',
      'properties.b.maxLength: maxLength must be a non-negative integer, got the number -1',
      'properties.c.minimum: minimum must be a finite number, got NaN (not a JSON number)',
      'properties.c.multipleOf: multipleOf must be a number greater than 0, got the number -1',
      'properties.d.maxItems: maxItems must be a non-negative integer, got the string "3"',
      'properties.d.uniqueItems: uniqueItems must be true or false, got the number 1',
      'properties.e.minimum: "minimum" only applies to types "number" and "integer"',
      'properties.f.maximum: minimum 5 and maximum 4 leave no value that matches',
      'properties.g.exclusiveMaximum: exclusiveMinimum 1 and exclusiveMaximum 1 leave no value that matches',
    ])
  })

  test('an enum member or const that breaks the constraints can never be accepted', () => {
    expect(problems({ type: 'string', enum: ['ab', 'a'], minLength: 2 })).toEqual([
      'enum[1]: can never be accepted: it breaks the node\'s own constraints (must be at least 2 characters long, got 1 ("a"))',
    ])
    expect(problems({ type: 'integer', const: 3, multipleOf: 2 })).toEqual([
      "const: can never be accepted: it breaks the node's own constraints (must be a multiple of 2, got 3)",
    ])
  })

  test('a default that breaks a constraint does not match its own schema', () => {
    expect(problems({ type: 'integer', minimum: 1, default: 0 })).toEqual(['default: does not match its own schema: (root): must be at least 1, got 0'])
  })
})

describe('JSON Schema emission', () => {
  test('constraints are emitted with their JSON Schema names, and ajv’s meta-schema accepts them', () => {
    const spec = {
      name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z]+$' },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      weight: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.01 },
      hosts: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 8, uniqueItems: true },
    } as const satisfies ParameterSchemaSpec
    const schema = schemaSpecToJsonSchema(spec)
    expect(schema.properties).toEqual({
      name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z]+$' },
      port: { type: 'integer', minimum: 1, maximum: 65535 },
      weight: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.01 },
      hosts: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 8, uniqueItems: true },
    })
    expect(ajv.validateSchema(schema)).toBe(true)
    expect(valueSchemaSpecToJsonSchema({ type: 'string', enum: ['ab'], minLength: 2 })).toEqual({ type: 'string', enum: ['ab'], minLength: 2 })
  })
})

describe('the structured-output subset enforces the constraints', () => {
  test('validateStructuredValue reports a broken bound with its path', () => {
    const schema = { type: 'object', properties: { score: { type: 'number', minimum: 0, maximum: 1 } }, required: ['score'] } as const
    const result = validateStructuredValue(schema, { score: 2 })
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.error.violations.map(formatViolation)).toEqual(['score: must be at most 1, got 2'])
    expect(validateStructuredValue(schema, { score: 0.5 }).ok).toBe(true)
  })
})

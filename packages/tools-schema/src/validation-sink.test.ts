// The type messages both backends build: the quick forms for strings and numbers read exactly like the general one.
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { describeValue } from './describe-value.js'
import { expectation, typeMessage } from './validation-sink.js'

const anInteger = expectation('an integer')

describe('typeMessage', () => {
  test.each([
    ['a short printable string', 'ten'],
    ['an empty string', ''],
    ['a string of exactly 38 characters', 'x'.repeat(38)],
    ['a string of 39 characters (shortened)', 'x'.repeat(39)],
    ['a string with a quote', 'say "hi"'],
    ['a string with a backslash', 'a\\b'],
    ['a string with a control character', 'a\nb'],
    ['a string with non-ASCII text', 'café'],
    ['a string with DEL', 'a\u007f'],
    ['a number', 42],
    ['a fraction', -1.5],
    ['zero', 0],
    ['-0', -0],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an object', { a: 1 }],
    ['undefined', undefined],
  ])('reads like the general message for %s', (_, value) => {
    expect(typeMessage(anInteger, value)).toBe(`expected an integer, got ${describeValue(value)}`)
  })

  test('reads like the general message for every value (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), fc.string({ unit: 'binary', maxLength: 60 }), fc.double()), (value) => {
        expect(typeMessage(anInteger, value)).toBe(`expected an integer, got ${describeValue(value)}`)
      }),
      { numRuns: 2000 },
    )
  })
})

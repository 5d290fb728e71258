// The outputSchema check (the gate's expanded schema, then checkOutput) against the JSON Schema Test Suite, draft
// 2020-12, found where @dsh/tools-schema's conformance test finds it: $DSH_CONFORMANCE_DIR/json-schema-test-suite, or
// ../shared/conformance beside the repository (where CI has it). Where it is in neither place the tests are not
// declared (the test command's summary says the suite was not found), and with CI=true, or a DSH_CONFORMANCE_DIR
// without the suite, one test fails naming the fix; tooling/test.sh puts the suite's fingerprint into every test
// task's turbo hash, so a cached result is one of the same suite. Every group whose schema
// the gate accepts is checked exactly as the suite says, except the differences listed below; a group the gate
// refuses (a recursive, remote or anchor $ref, which cannot be inlined within a bound) is not run: 320 groups
// (1,160 tests) run, 63 are refused.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { JsonObject, JsonValue } from '@dsh/tools-core'
import { checkOutput } from './output-check.js'
import { gateOutputSchema } from './schema-gate.js'

const repositoryRoot = resolve(import.meta.dirname, '../../..')
const suiteIn = (folder: string): string => join(folder, 'json-schema-test-suite', 'draft2020-12')
const configured = process.env.DSH_CONFORMANCE_DIR
const suite = configured ? suiteIn(resolve(repositoryRoot, configured)) : suiteIn(resolve(repositoryRoot, '../shared/conformance'))
const mustRun = Boolean(configured) || process.env.CI === 'true'
const bounds = { maxDepth: 64, maxNodes: 10_000 }

/** Files about what the check deliberately does not do: vocabularies of meta-schemas. */
const skippedFiles = new Set(['vocabulary.json'])

/**
 * Deliberate differences, by "file / group / test": a pattern ECMA-262 reads and RE2 does not is left out of the
 * check (the gate reports it), so the check is looser there, never stricter.
 */
const looser = new Set<string>([
  // ^\p{Letter}+$: RE2 knows Unicode classes by their short names only (\p{L}), so the gate leaves the pattern out.
  'pattern.json / pattern with Unicode property escape requires unicode mode / Digits do not match',
])

interface Group {
  readonly description: string
  readonly schema: JsonValue
  readonly tests: readonly { readonly description: string; readonly data: JsonValue; readonly valid: boolean }[]
}

// The one deliberate difference, checked with or without the suite: a pattern RE2 cannot read is left out of the
// check and reported, so the check is looser there (never stricter); a pattern it reads is enforced.
it('a pattern the linear-time engine cannot read is left out and reported; one it reads is enforced', () => {
  const unreadable = gateOutputSchema({ type: 'string', pattern: '^\\p{Letter}+$' }, 'transform', bounds)
  expect(unreadable.findings.map((finding) => [finding.code, finding.path])).toEqual([['pattern', '/pattern']])
  expect(unreadable.check).toEqual({ type: 'string' })
  const readable = gateOutputSchema({ type: 'string', pattern: '^[a-z]+$' }, 'transform', bounds)
  expect(checkOutput(readable.check as JsonObject, 'ab', 1_000).kind).toBe('valid')
  expect(checkOutput(readable.check as JsonObject, '42', 1_000).kind).toBe('invalid')
})

if (!existsSync(suite) && mustRun) {
  it('the JSON Schema Test Suite is where the test command says (CI=true or DSH_CONFORMANCE_DIR set)', () => {
    expect.fail(`the JSON Schema Test Suite is not at ${suite}: set DSH_CONFORMANCE_DIR to the folder that holds json-schema-test-suite/`)
  })
}

if (existsSync(suite)) describe('the outputSchema check against the JSON Schema Test Suite (draft 2020-12)', () => {
  const files = existsSync(suite) ? readdirSync(suite).filter((file) => file.endsWith('.json') && !skippedFiles.has(file)) : []
  for (const file of files) {
    it(file, () => {
      const groups = JSON.parse(readFileSync(join(suite, file), 'utf8')) as Group[]
      const wrong: string[] = []
      for (const group of groups) {
        const schema = typeof group.schema === 'boolean' ? { allOf: [group.schema] } : group.schema
        const gated = gateOutputSchema(schema, 'transform', bounds)
        if (gated.check === undefined) continue
        for (const test of group.tests) {
          const outcome = checkOutput(gated.check, test.data, 10_000_000)
          const name = `${file} / ${group.description} / ${test.description}`
          if (outcome.kind === 'too-costly') wrong.push(`${name}: over budget`)
          else if ((outcome.kind === 'valid') !== test.valid && !(looser.has(name) && outcome.kind === 'valid')) wrong.push(`${name}: expected ${test.valid ? 'valid' : 'invalid'}`)
        }
      }
      expect(wrong).toEqual([])
    })
  }
})

// What our rules and our violation cost on the nested schema, where the generated backend runs at ajv's speed (the
// targets of the validation suite are ≤ 1.0× ajv). The suite captures the source @dsh/tools-schema generates for the
// nested schema (through `Function`, which the generator calls) and builds variants of it that each leave out one
// thing our contract requires: the hole test of an array element, the message that names the offending value, the
// path as text. The variants are references only: each is wrong in the way its row says.
import { compileParameters, schemaSpecToJsonSchema } from '@dsh/tools-schema'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { defineSuite, withOwnCallSites, type BenchGroup } from '../harness.js'
import { inputs, specs, titles, validationVersions } from '../validation-suite.js'

type Accept = (value: unknown) => boolean
type FirstViolation = (value: unknown) => { path: string; segments: unknown } | undefined
type Factory = (...args: unknown[]) => [Accept, FirstViolation]

/** The body and the arguments of the function set the generator built for one schema. */
interface Generated {
  readonly body: string
  readonly args: unknown[]
}

/** Compiles `spec` afresh with `Function` watched, and returns what the generator built. */
function captureGenerated(spec: Parameters<typeof compileParameters>[0]): Generated {
  const original = globalThis.Function
  let body: string | undefined
  let args: unknown[] | undefined
  globalThis.Function = new Proxy(original, {
    construct(target, parameters: string[]) {
      const made = Reflect.construct(target, parameters) as Factory
      if (parameters.length !== 4) return made // the generator's factory takes (k, h, r) and the body
      body = parameters[3]
      return (...given: unknown[]) => {
        args = given
        return made(...given)
      }
    },
  })
  try {
    compileParameters(spec, { cache: false })
  } finally {
    globalThis.Function = original
  }
  if (body === undefined || args === undefined) throw new Error('validation-costs: the generator built no function set (did the host forbid code generation?)')
  return { body, args }
}

/** The generated function set with `edits` applied (each edit must find its site, or the suite stops). */
function variant(generated: Generated, name: string, edits: [RegExp, string][]): [Accept, FirstViolation] {
  let body = generated.body
  for (const [site, replacement] of edits) {
    if (!site.test(body)) throw new Error(`validation-costs: "${name}": ${String(site)} is not in the generated source any more; update this suite`)
    body = body.replace(site, replacement)
  }
  return (new Function('k', 'h', 'r', `${body}\n//${name}`) as Factory)(...generated.args)
}

/** The element read of the `files` array, with the hole test (a hole reads `undefined`, never a prototype's index). */
const holeTest = /const x1=i1 in p1&&!hop\.call\(x0,i1\)\?undefined:x0\[i1\];/
/** Where the locating walk reports `files[i].path` that is not a string. */
const pathViolation = /return W\(k\[\d+\]\(x2\),\["files",i1,"path"\],"files\["\+i1\+"\]\.path"\)/

function groups(): BenchGroup[] {
  const spec = specs.nested
  const { valid, invalid } = inputs['nested'] as { valid: unknown; invalid: unknown }
  const generated = captureGenerated(spec)
  const ours = compileParameters(spec)
  const ajv = new Ajv2020().compile(schemaSpecToJsonSchema(spec))
  const [noHoleTest] = variant(generated, 'no hole test', [[holeTest, 'const x1=x0[i1];']])
  const [, fixedMessage] = variant(generated, 'fixed message', [
    [pathViolation, 'return {path:"files["+i1+"].path",segments:["files",i1,"path"],keyword:"type",message:"must be string"}'],
  ])
  const [, noPathText] = variant(generated, 'fixed message, no path text', [
    [pathViolation, 'return {path:"",segments:["files",i1,"path"],keyword:"type",message:"must be string"}'],
  ])
  const expected = ours.firstViolation(invalid)?.path
  if (!noHoleTest(valid) || noHoleTest(invalid) || fixedMessage(invalid)?.path !== expected || noPathText(invalid) === undefined || fixedMessage(valid) !== undefined) {
    throw new Error('validation-costs: a variant does not answer as the generated code does')
  }
  const scope = { ours, ajv, valid, invalid, noHoleTest, fixedMessage, noPathText }
  return [
    {
      title: `valid: ${titles.nested}`,
      baseline: 'ajv',
      interleaved: {},
      cases: withOwnCallSites(scope, {
        ours: () => ours.is(valid),
        'reference: ours without the hole test (unsound)': () => noHoleTest(valid),
        ajv: () => ajv(valid),
      }),
    },
    {
      title: `invalid, first violation with its path: ${titles.nested}`,
      baseline: 'ajv',
      interleaved: {},
      cases: withOwnCallSites(scope, {
        ours: () => ours.firstViolation(invalid)?.path,
        'reference: ours with a fixed message': () => fixedMessage(invalid)?.path,
        'reference: ours with a fixed message and no path text': () => noPathText(invalid)?.segments,
        'ours is() only': () => ours.is(invalid),
        ajv: () => (ajv(invalid) ? undefined : ajv.errors?.[0]?.instancePath),
      }),
    },
  ]
}

export default defineSuite({
  name: 'validation-costs',
  description:
    'What the rules and the violation of `@dsh/tools-schema` cost on the nested schema, where its generated backend runs at ajv\'s speed. ' +
    'The suite captures the source the generator writes for the schema and times variants of it beside it, each leaving out one thing the ' +
    'contract requires, so each is wrong in the way its row says: reading array elements without the hole test (a hole of a sparse array ' +
    'then reads an index a polluted prototype holds), and building the first violation with ajv\'s kind of fixed message (`must be string` ' +
    'instead of `expected a string, got the number 42`), then also without the path as text. A process of its own, interleaved bursts as ' +
    'in the validation suite.',
  versions: validationVersions,
  groups,
})

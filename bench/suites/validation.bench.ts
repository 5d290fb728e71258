// Validation of tool arguments in a process that also holds many other schemas (as a registry with many tools
// does): @dsh/tools-schema's two backends against ajv's generated code, typebox's TypeCompiler and zod 4. The
// targets are measured here. The same groups in a process holding only these schemas: validation-single.
import { defineSuite } from '../harness.js'
import { OTHER_SCHEMAS, validationGroups, validationVersions } from '../validation-suite.js'

export default defineSuite({
  name: 'validation',
  description:
    `Checking tool arguments, in a process that first compiled and exercised ${OTHER_SCHEMAS} other tool schemas (flat, nested, arrays of ` +
    'objects, tagged unions; both backends and ajv), so that shapes are mixed as in a registry. `ours` is `@dsh/tools-schema` with its ' +
    'default backend, generated code (`new Function`, one function per schema); `ours (closures)` is the closure backend, used where code ' +
    'generation is forbidden. `is()` for a verdict, `firstViolation()` for the first violation with its path, `validate()` for all of them. ' +
    'ajv 8 (draft 2020-12) runs the JSON Schema our DSL emits; typebox runs its TypeCompiler and zod 4 `safeParse`. Compiling: ours checks ' +
    'the spec and compiles afresh each time (`cache: false`); ajv compiles on a fresh instance.',
  versions: validationVersions,
  notes: () =>
    [
      'Each group times its cases in interleaved bursts (`BenchGroup.interleaved`): every case is called for about 200 µs at a time',
      'through a loop of its own, the cases take turns, 400 times, and a row is the median of its bursts. Each case is also measured',
      'as three copies of itself (the same source, recreated: `withOwnCallSites`), and its row is the middle copy. Both were needed',
      'on this machine. Measured one after another (mitata, best of three rounds, as before), a case that ran through a stretch in',
      'which the machine ran at half its speed got a ratio of twice its worth. And V8 sometimes keeps a slower optimized version of',
      'one function for good: a case written once for all four schemas shared its optimized code between their groups, and the case',
      'whose loop was optimized while the validator it called was still cold ran at about 1.75 times the same case set up after it',
      '(the loops are now warmed up in turns and made afresh). Compile groups stay one after another: interleaved with ajv\'s',
      'compiles, ours paid for collecting ajv\'s garbage. Valid input: the generated check reads each key with `for…in`, marking',
      'which declared keys are own, then reads the declared values by name with the rules inlined (plain-object test, own keys',
      'only, every key looked at, lossless numbers, own undeclared keys lossless JSON); child checks are written inline, and every',
      'generated source is unique. First violation: `ours is() only` is the generated accept-only pass alone; `ours` runs the',
      'generated locating walk, which walks child objects, arrays and `oneOf`s inline too and builds the violation where it stops,',
      'its segments and path written out in one expression. The two `reference` rows are the flat schema\'s walk written by hand,',
      'building what `firstViolation` promises (the path as text and as segments, the keyword, a fresh plain object, kept as ajv',
      'keeps its errors): with a message that names the offending value (`expected an integer, got the string "ten"`) it runs',
      'where `ours` runs, and with a fixed message (`must be integer`, as ajv\'s errors carry) at ajv\'s speed. Naming the value is',
      'the whole difference on the flat schema. On the nested schema, where ours runs at ajv\'s speed, the validation-costs suite',
      'below times what each rule and each part of the violation costs. Compiling generates one function set per schema and',
      'compiles it in full (no shared script), still more than fifty times faster than a fresh ajv.',
    ].join(' '),
  groups: () => validationGroups(true),
})

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
      'Each group measures its cases in three rounds, in alternating order, and each row is that case\'s best round: measured once, the',
      'case that came first after other work often ran at about twice its later time, so the order of the list decided ratios. On this',
      'machine a whole group sometimes runs at about twice its usual time, both libraries alike; ratios hold. Valid input: the generated',
      'check reads each key with `for…in`, marking which declared keys are own, then reads the declared values by name with the rules',
      'inlined (plain-object test, own keys only, every key looked at, lossless numbers, own undeclared keys lossless JSON). A child',
      'object\'s or array\'s check is written inline in the check above it where first met, so one function holds the whole check (a call',
      'per object took about a sixth longer), and every generated source is unique: V8 returns the same compiled script for the same text,',
      'and functions of a script created twice are optimized without knowing their helpers (the nested check took about a fifth longer).',
      'Only the entry function and each `oneOf` catch what a read throws (a `try` in every function cost about a sixth). With constraints,',
      '`uniqueItems` compares a short list of scalars pair by pair (keyed in a `Map` with a string per element, as before, it took about',
      '80 ns of the row). First violation: `ours is() only` is the generated accept-only pass alone; `ours` runs the generated locating',
      'walk, which states the violation where it stops and builds its path as it unwinds. The two `reference` rows are the flat schema\'s',
      'walk written by hand, building what `firstViolation` promises (the path as text and as segments, the keyword, a fresh plain',
      'object, kept as ajv keeps its errors): with a message that names the offending value (`expected an integer, got the string',
      '"ten"`) it runs where `ours` runs, and with a fixed message (`must be integer`, as ajv\'s errors carry) at ajv\'s speed. Naming the',
      'value is the whole difference on the flat schema. Compiling generates one function set per schema and compiles it in full (no',
      'shared script), still seventy times faster than a fresh ajv.',
    ].join(' '),
  groups: () => validationGroups(true),
})

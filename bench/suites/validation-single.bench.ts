// The validation groups in a process that holds only these schemas (compare with the many-schemas process,
// validation.bench.ts, where the targets are measured).
import { defineSuite } from '../harness.js'
import { validationGroups, validationVersions } from '../validation-suite.js'

export default defineSuite({
  name: 'validation-single',
  description:
    'The groups of the validation suite, in a process that compiled nothing else (run on its own: `node --expose-gc --import tsx run.ts validation-single`). ' +
    'Compare with the many-schemas process above to see what mixing shapes costs each backend.',
  versions: validationVersions,
  groups: () => validationGroups(false),
})

import { packageTestConfig } from '../../vitest.shared.js'

// The tests sit beside the scripts (no src/); no type tests here.
export default packageTestConfig(import.meta.dirname, { include: ['*.test.ts'], typecheck: { enabled: false } })

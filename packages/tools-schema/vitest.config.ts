import { packageTestConfig } from '../../vitest.shared.js'

// Every test runs twice, once per validator backend: "generated" (the default, `new Function`) and "closures"
// (src/backend-under-test.setup.ts switches the default before each file). Type tests run once.
export default packageTestConfig(import.meta.dirname, {
  projects: [
    {
      extends: true,
      test: { name: 'generated', env: { DSH_VALIDATOR_BACKEND: 'generated' }, setupFiles: ['./src/backend-under-test.setup.ts'] },
    },
    {
      extends: true,
      test: {
        name: 'closures',
        env: { DSH_VALIDATOR_BACKEND: 'closures' },
        setupFiles: ['./src/backend-under-test.setup.ts'],
        typecheck: { enabled: false },
      },
    },
  ],
})

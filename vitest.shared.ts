import { basename, resolve } from 'node:path'
import { defineConfig, type ViteUserConfig } from 'vitest/config'

const root = import.meta.dirname

/**
 * The vitest config every package uses: unit tests beside the code (`src/**\/*.test.ts`), type tests
 * (`src/**\/*.test-d.ts`) turned on, and a JSON report per package that `tooling/summarize-tests.mjs` adds up.
 */
export function packageTestConfig(packageDir: string, overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  return defineConfig({
    test: {
      include: ['src/**/*.test.ts'],
      // Generous: tests assert behaviour, not speed, and CI runs packages side by side on 2 cores.
      testTimeout: 60_000,
      hookTimeout: 60_000,
      typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
      reporters: ['default', 'json'],
      outputFile: { json: resolve(root, '.tmp/test-reports', `${basename(packageDir)}.json`) },
      ...overrides,
    },
  })
}

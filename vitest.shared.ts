import { resolve } from 'node:path'
import { defineConfig, type ViteUserConfig } from 'vitest/config'

/**
 * The vitest config every package uses: unit tests beside the code (`src/**\/*.test.ts`), type tests
 * (`src/**\/*.test-d.ts`) turned on, and a JSON report that `tooling/summarize-tests.mjs` adds up. The report
 * lives inside the package (`.tmp/test-report.json`) because it is the declared output of the package's turbo
 * `test` task: a cached task restores it, so warm runs count what cold runs count.
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
      outputFile: { json: resolve(packageDir, '.tmp/test-report.json') },
      ...overrides,
    },
  })
}

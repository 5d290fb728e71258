import { defineConfig, type Options } from 'tsup'

/**
 * The build every published package uses: `src/index.ts` → ESM + `.d.ts` in `dist/`, for Node 20. Class and
 * function names are kept (esbuild `keepNames`): without it esbuild renames a class that refers to itself
 * (`BashConfigError.brand`) to `_BashConfigError`, and stack traces and `constructor.name` show that name.
 */
export function packageBuildConfig(overrides: Options = {}): ReturnType<typeof defineConfig> {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm'],
    target: 'node20',
    dts: true,
    clean: true,
    sourcemap: false,
    tsconfig: 'tsconfig.build.json',
    keepNames: true,
    ...overrides,
  })
}

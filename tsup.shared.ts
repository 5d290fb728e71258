import { defineConfig, type Options } from 'tsup'

/** The build every published package uses: `src/index.ts` → ESM + `.d.ts` in `dist/`, for Node 20. */
export function packageBuildConfig(overrides: Options = {}): ReturnType<typeof defineConfig> {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm'],
    target: 'node20',
    dts: true,
    clean: true,
    sourcemap: false,
    tsconfig: 'tsconfig.build.json',
    ...overrides,
  })
}

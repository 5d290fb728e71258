import { defineConfig, type Options } from 'tsup'

/**
 * The build every published package uses: `src/index.ts` → ESM + `.d.ts` in `dist/`, for Node 20.
 *
 * No esbuild `keepNames`: it wraps every named function and closure in a `__name()` call (an
 * `Object.defineProperty` each time the closure is created), which cost the pipeline about 1.5 µs per listener
 * per call. Class names survive without it as long as no class body names its own class (esbuild would turn
 * `class BashConfigError` into `class _BashConfigError` then): brands live in module constants, and
 * `tooling/check-packages.mjs` checks every exported error class's name on the built entries.
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
    ...overrides,
  })
}

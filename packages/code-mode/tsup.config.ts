import { packageBuildConfig } from '../../tsup.shared.js'

// The worker thread of the QuickJS runtime is a second entry: `QuickJsRuntime` (bundled into `index.js`) starts it as
// `new URL('./quickjs-worker.js', import.meta.url)`, the file beside it in `dist/`. The sandboxed Node runtime is the
// subpath `@dsh/code-mode/sandbox` (its own entry and declarations, so `index.js` never loads @dsh/tool-bash-sandbox).
export default packageBuildConfig({
  entry: { index: 'src/index.ts', sandbox: 'src/sandbox/index.ts', 'quickjs-worker': 'src/runtime/quickjs-worker.ts' },
  dts: { entry: { index: 'src/index.ts', sandbox: 'src/sandbox/index.ts' } },
})

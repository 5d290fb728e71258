// A child process for the tests: loads serve-stdio-entry.ts from source (through Vite's module runner, so the test
// needs no build of this package) and serves a small registry over stdio with `serveToolsStdio`. Vite logs nothing
// (stdout is the protocol) and watches nothing.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createServer, createServerModuleRunner } from 'vite'

const here = dirname(fileURLToPath(import.meta.url))
const vite = await createServer({
  configFile: false,
  root: join(here, '..', '..'),
  logLevel: 'silent',
  clearScreen: false,
  appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false, watch: null },
  ssr: { external: true },
})
const runner = createServerModuleRunner(vite.environments.ssr, { hmr: false })
// An entry of the test's own may be named as the first argument.
await runner.import(process.argv[2] ?? join(here, 'serve-stdio-entry.ts'))

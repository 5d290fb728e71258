// One replica of the multi-replica test (a plain `node` process, no vitest): serve-replica-entry.ts from source,
// through the tests' TypeScript loader. Prints `ready <port>` once it serves; see the entry for its commands.
import { register } from 'node:module'

register('./ts-loader.mjs', import.meta.url)
await import('./serve-replica-entry.ts')

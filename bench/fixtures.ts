// Shared benchmark inputs: realistic tool-call arguments of a given JSON size.

/** A nested argument object shaped like a real tool call (a multi-file edit request), about 1.6 KB as JSON. */
export function toolArguments(): Record<string, unknown> {
  return {
    description: 'Apply the refactoring to the request handlers and update the tests accordingly',
    commitMessage: 'refactor(server): make the handlers async and typed\n\nThe handlers now await their data sources and throw NotFound instead of returning null, so callers get one error path.',
    dryRun: false,
    retries: 3,
    timeoutMs: 30000,
    edits: [
      { path: '/work/app/src/server/handlers/users.ts', oldText: 'export function getUser(id) {', newText: 'export async function getUser(id: string) {', replaceAll: false },
      { path: '/work/app/src/server/handlers/orders.ts', oldText: 'const total = items.reduce(sum)', newText: 'const total = items.reduce(sum, 0)', replaceAll: true },
      { path: '/work/app/src/server/handlers/products.ts', oldText: 'if (!product) return null', newText: 'if (!product) throw new NotFound(id)', replaceAll: false },
    ],
    options: {
      format: { indent: 2, quote: 'single', semicolons: false, trailingComma: 'all' },
      include: ['src/**/*.ts', 'test/**/*.ts'],
      exclude: ['**/*.d.ts', 'dist/**', 'node_modules/**'],
      env: { NODE_ENV: 'test', CI: 'true', TZ: 'UTC' },
    },
    servers: [
      { host: 'localhost', port: 8080, tls: false, tags: ['primary', 'http'] },
      { host: '127.0.0.1', port: 8443, tls: true, tags: ['secondary', 'https'] },
    ],
    reviewers: [
      { name: 'Ada Lovelace', email: 'ada@example.com', required: true, weight: 1.5 },
      { name: 'Grace Hopper', email: 'grace@example.com', required: false, weight: 0.75 },
    ],
    labels: ['refactor', 'server', 'typescript', 'tests', 'low-risk'],
    metadata: { ticket: 'ENG-4211', sprint: 42, estimate: 3.5, blockedBy: null, notes: 'Keep the public API stable; the change is internal to the handlers.' },
  }
}

/** An object of roughly `bytes` bytes of JSON, made of repeated argument objects in an array. */
export function argumentsOfSize(bytes: number): Record<string, unknown> {
  const unit = toolArguments()
  const unitSize = JSON.stringify(unit).length
  const items = Array.from({ length: Math.max(1, Math.round(bytes / unitSize)) }, (_, index) => ({ ...toolArguments(), index }))
  return { items }
}

/** JSON byte length of a value. */
export function jsonSize(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value))
}

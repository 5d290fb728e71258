// Test support (never built or published): runs commands through one executor in a process of its own, which holds
// the descriptors its parent (inherited-descriptors.sandbox.test.ts) placed above fd 40 without close-on-exec, as a
// supervisor or a shell redirection would. Prints the commands' output as JSON on stdout.
import { register } from 'node:module'

register('./source-loader.mjs', import.meta.url)
const { Context } = await import('cordis')
const { LocalBashExecutor } = await import('@dsh/tool-bash')
const { SandboxedBashExecutor } = await import('./sandboxed-bash-executor.ts')

const { kind, config, commands } = JSON.parse(process.argv[2])
const ctx = new Context()
const fiber = await ctx.plugin(kind === 'sandboxed' ? SandboxedBashExecutor : LocalBashExecutor, { killGraceMs: 300, ...config })
const outputs = []
for (const command of commands) {
  const result = await ctx.bash.run({ command, timeoutMs: 20_000 })
  outputs.push(result.stdout.head + result.stdout.tail + result.stderr.head + result.stderr.tail)
}
await fiber.dispose()
process.stdout.write(JSON.stringify(outputs))

import { TimeoutPolicy } from '@dsh/timeout-policy'
import { ToolRegistry } from '@dsh/tools-registry'
import { defineTool } from '@dsh/tools-schema'
import { Context } from 'cordis'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
await ctx.plugin(TimeoutPolicy, { graceMs: 100 })

ctx.tools.register(
  defineTool({
    name: 'slow',
    description: 'Wait for a while.',
    parameters: { ms: { type: 'integer', required: true } },
    timeoutMs: 50,
    execute: (args, exec) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => resolve('done'), args.ms)
        exec.signal.addEventListener('abort', () => {
          clearTimeout(timer)
          reject(exec.signal.reason)
        })
      }),
  }),
)

console.log(`schemas: ${ctx.tools.schemas().map((schema) => schema.name).join(',')}`)
const result = await ctx.tools.execute({ callId: 'call_1', name: 'slow', arguments: { ms: 5_000 } })
console.log(`code: ${result.error?.code}`)
const first = result.content[0]
console.log(`text: ${first?.type === 'text' ? first.text : ''}`)
process.exit(0)

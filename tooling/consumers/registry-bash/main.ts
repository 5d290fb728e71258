import { LocalBashTools } from '@dsh/tool-bash'
import { ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'

const ctx = new Context()
await ctx.plugin(ToolRegistry)
const bash = await ctx.plugin(LocalBashTools, { executor: { cwd: process.cwd() } })

const args = { command: 'echo hi', description: 'Say hi' }
const result = await ctx.tools.execute({ callId: 'call_1', name: 'bash', arguments: args })
const first = result.content[0]
console.log(`text: ${first?.type === 'text' ? first.text.trim() : ''}`)

const tool = ctx.tools.get('bash')
const call = tool?.presentCall?.(args)
console.log(`call card: ${call?.card} ${call?.title}`)
const view = tool?.presentResult?.(args, result)
console.log(`result card: ${view?.card} exit ${view?.card === 'terminal' ? view.exitCode : '?'}`)

const failing = await ctx.tools.execute({ callId: 'call_2', name: 'bash', arguments: { command: 'exit 3' } })
const failingText = failing.content[0]
console.log(`failing: ${failingText?.type === 'text' ? failingText.text.trim() : ''} isError ${failing.isError}`)

await bash.dispose()
process.exit(0)

// A replica of a served registry, as a team would run several behind a load balancer: sessions: false (any replica
// answers any request), callers' tokens mapped onto agents, heartbeats. Tools: `echo` (global), `alice_notes` and
// `bob_notes` (one per agent's scope), `replica` (this process's pid), `record` (appends its id and this pid to the
// file named by DSH_REPLICA_LOG, so a test can tell a call that ran twice). stdin commands: `grow <name>` registers a
// global tool of that name. SIGTERM drains and exits.
import { appendFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Agent } from '@dsh/tools-core'
import { defineTool, ToolRegistry } from '@dsh/tools-registry'
import { Context } from 'cordis'
import { callerTokens, serveToolsHttp } from '../server/index.js'

const log = process.env.DSH_REPLICA_LOG ?? ''
const alice: Agent = { id: 'alice' }
const bob: Agent = { id: 'bob' }
const ctx = new Context()
await ctx.plugin(ToolRegistry)
const readOnly = { readOnlyHint: true }
ctx.tools.register(defineTool({ name: 'echo', description: 'Echoes.', annotations: readOnly, parameters: { text: { type: 'string', required: true } }, execute: ({ text }, exec) => `${exec.agent?.id ?? 'nobody'}: ${text}` }))
ctx.tools.register(defineTool({ name: 'replica', description: 'The pid of the replica that answers.', annotations: readOnly, parameters: {}, execute: () => String(process.pid) }))
ctx.tools.register(
  defineTool({
    name: 'record',
    description: 'Records a call id (not idempotent).',
    annotations: { destructiveHint: false, idempotentHint: false },
    parameters: { id: { type: 'string', required: true } },
    execute: async ({ id }) => {
      appendFileSync(log, `${id} ${process.pid}\n`)
      await new Promise((resolve) => setTimeout(resolve, 20))
      return `recorded ${id}`
    },
  }),
)
for (const agent of [alice, bob]) ctx.tools.scope(agent).register(defineTool({ name: `${agent.id}_notes`, description: `${agent.id}'s notes.`, annotations: readOnly, parameters: {}, execute: (_args, exec) => `notes of ${exec.agent?.id ?? 'nobody'}` }))

const tokens = new Map([
  ['alice-token', { id: 'alice', agent: alice }],
  ['bob-token', { id: 'bob', agent: bob }],
])
const served = await serveToolsHttp(ctx, { port: 0, sessions: false, auth: callerTokens(tokens), heartbeatMs: 5_000, metrics: true })
createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, name] = line.trim().split(' ')
  if (command === 'grow' && name !== undefined && ctx.tools.get(name) === undefined) {
    ctx.tools.register(defineTool({ name, description: 'Grown at run time.', annotations: readOnly, parameters: {}, execute: () => name }))
  }
})
process.once('SIGTERM', () => void served.drain({ timeoutMs: 5_000 }).finally(() => process.exit(0)))
process.stdout.write(`ready ${new URL(served.url).port}\n`)

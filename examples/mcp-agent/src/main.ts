import { runAgent } from './run-agent.js'

const run = await runAgent()
for (const line of run.lines) console.log(line)

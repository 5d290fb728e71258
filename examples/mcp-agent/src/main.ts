import { runAgent } from './run-agent.js'
import { serveMany } from './serve-many.js'

// `npm run example:mcp -- --served`: the registry served to two agents (tokens, sessions: false, drain).
const lines = process.argv.includes('--served') ? await serveMany() : (await runAgent()).lines
for (const line of lines) console.log(line)

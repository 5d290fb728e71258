import { defineTool, validateArgs, ToolArgsError } from '@dsh/tools-schema'
import { createToolExecutionToken, type ToolExecution } from '@dsh/tools-core'

let ran = 0
const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file.',
  parameters: {
    path: { type: 'string', required: true, description: 'File to read' },
    limit: { type: 'integer' },
  },
  async execute(args) {
    ran += 1
    const path: string = args.path
    const limit: number | undefined = args.limit
    return `${path}:${limit ?? 'all'}`
  },
})

console.log(`schema: ${JSON.stringify(readFile.parameters)}`)
const spec = { path: { type: 'string', required: true }, limit: { type: 'integer' } } as const
console.log(`valid: ${validateArgs(spec, { path: '/a', limit: 3 }).ok}`)

const exec: ToolExecution = {
  callId: 'call_1',
  name: 'read_file',
  arguments: { path: 3 },
  token: createToolExecutionToken(),
  signal: new AbortController().signal,
}
try {
  await readFile.execute({ path: 3 }, exec)
} catch (error) {
  if (ToolArgsError.isInstance(error)) console.log(`invalid: ${error.code}`)
}
await readFile.execute({ path: '/etc/hosts' }, { ...exec, arguments: { path: '/etc/hosts' } })
console.log(`body ran: ${ran}`)

import { shouldUseColor } from '@dsh/tools-presentation'
import { runDemo } from './run-demo.js'

const USAGE = `usage: npm run demo [-- --json] [-- --sandbox | --container] [-- --trace]

A scripted model drives real tools through the dsh tools pipeline; each call and result is shown as a card.
  --json     write the session's events (tool/call, tool/result, context/message) as JSON lines instead
  --sandbox  run the model's commands in the bubblewrap sandbox (@dsh/tool-bash-sandbox; Linux, needs bwrap)
  --container  run them in a session container (@dsh/tool-bash-container) on the engine at $DSH_CONTAINER_SOCKET
             (podman or Docker), from the image $DSH_CONTAINER_IMAGE (.ci/container-engine.sh start DIR sets both up)
  --trace    print the session's OpenTelemetry span tree at the end (@dsh/tools-otel)
  --help     show this text`

/** Writes lines to a stream until its reader goes away (`| head`); then the demo finishes quietly and cleans up. */
function lineWriter(stream: NodeJS.WriteStream): (line: string) => void {
  let open = true
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
    open = false
  })
  return (line) => {
    if (open) stream.write(`${line}\n`)
  }
}

const args = process.argv.slice(2)
const known = new Set(['--json', '--sandbox', '--container', '--trace', '--help', '-h'])
const unknown = args.filter((arg) => !known.has(arg))
const socketPath = process.env['DSH_CONTAINER_SOCKET']
const image = process.env['DSH_CONTAINER_IMAGE']
const container = args.includes('--container') ? (socketPath !== undefined && image !== undefined ? { socketPath, image } : null) : undefined
if (container === null) {
  console.error('--container needs DSH_CONTAINER_SOCKET (the engine socket: podman or Docker) and DSH_CONTAINER_IMAGE (a glibc image such as Debian); .ci/container-engine.sh start DIR prints both')
  process.exitCode = 2
} else if (args.includes('--help') || args.includes('-h') || unknown.length > 0) {
  if (unknown.length > 0) console.error(`unknown option: ${unknown.join(' ')}`)
  console.error(USAGE)
  process.exitCode = unknown.length > 0 ? 2 : 0
} else {
  try {
    const outcome = await runDemo({
      json: args.includes('--json'),
      sandbox: args.includes('--sandbox'),
      container,
      trace: args.includes('--trace'),
      color: shouldUseColor(process.stdout),
      write: lineWriter(process.stdout),
      warn: lineWriter(process.stderr),
    })
    process.exitCode = outcome.exitCode
  } catch (error) {
    console.error('the demo failed:', error)
    process.exitCode = 1
  }
}

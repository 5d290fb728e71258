// Child process of local-registry.mjs: runs verdaccio in-process on 127.0.0.1 and a port the kernel picks (no
// race for a "free" port), prints `listening <port>`, and exits when its parent's stdin pipe closes, so even a
// parent killed with SIGKILL leaves no registry behind.
import { runServer } from 'verdaccio'

const [configPath] = process.argv.slice(2)
const server = await runServer(configPath)
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`))
process.stdin.on('end', () => process.exit(0))
process.stdin.on('error', () => process.exit(0))
process.stdin.resume()
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0))

// What the bash suites share (bash.bench.ts and bash-sandbox.bench.ts): the 200 MB output command and the raw
// baselines they are measured against, so both suites time exactly the same peer.
import { spawn } from 'node:child_process'
import { once } from 'node:events'

/** The output of the throughput runs, in bytes. */
export const OUTPUT_BYTES = 200_000_000

/** Prints {@link OUTPUT_BYTES} zero bytes. */
export const BIG_COMMAND = `head -c ${OUTPUT_BYTES} /dev/zero`

/** The raw peer of `true`: `spawn('bash', ['-c', 'true'])` until it exits. */
export async function rawTrue(): Promise<void> {
  const child = spawn('bash', ['-c', 'true'])
  await once(child, 'exit')
}

/** The raw throughput peer: {@link BIG_COMMAND} through a piped stdout whose data is counted and discarded. */
export async function rawOutputDiscarded(): Promise<void> {
  const child = spawn('bash', ['-c', BIG_COMMAND], { stdio: ['ignore', 'pipe', 'ignore'] })
  let bytes = 0
  child.stdout.on('data', (chunk: Buffer) => {
    bytes += chunk.length
  })
  await once(child, 'close')
  if (bytes !== OUTPUT_BYTES) throw new Error(`raw read ${bytes} bytes`)
}

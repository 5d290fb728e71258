/** A bounded tail of a stream's bytes: the last `limit` bytes, decoded lossily for messages. */
export class StderrTail {
  readonly #limit: number
  #chunks: Buffer[] = []
  #size = 0
  #dropped = 0

  constructor(limit: number) {
    this.#limit = limit
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#size += chunk.length
    while (this.#size > this.#limit && this.#chunks.length > 0) {
      const first = this.#chunks[0] as Buffer
      const excess = this.#size - this.#limit
      if (first.length <= excess) {
        this.#chunks.shift()
        this.#size -= first.length
        this.#dropped += first.length
      } else {
        this.#chunks[0] = first.subarray(excess)
        this.#size -= excess
        this.#dropped += excess
      }
    }
  }

  /** The kept bytes as text, with a note of how many were dropped before them. */
  text(): string {
    const text = Buffer.concat(this.#chunks).toString('utf8').trimEnd()
    return this.#dropped > 0 ? `[${this.#dropped} earlier bytes dropped]\n${text}` : text
  }
}

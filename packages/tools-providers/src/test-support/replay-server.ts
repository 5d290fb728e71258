import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One recorded provider response: the request path it answers and the JSON body it sends. */
export interface ReplayResponse {
  /** The request path (without the query) this response answers, e.g. `/v1/chat/completions`. */
  readonly path: string
  /** The HTTP status; 200 when absent. */
  readonly status?: number
  /** The response body, sent as JSON. */
  readonly body: unknown
}

/** A request the server received. */
export interface RecordedRequest {
  readonly method: string
  /** The path without the query. */
  readonly path: string
  /** The parsed JSON body (`undefined` when there was none or it was not JSON). */
  readonly body: unknown
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
}

/** A running replay server. */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[]
  /** What went wrong: a request on the wrong path, or one after the script ran out (answered with a 400). */
  readonly problems: readonly string[]
  /** Closes the server and every open connection. */
  close(): Promise<void>
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text === '') return undefined
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

/**
 * A rule of the provider the server plays: the reason the provider would refuse the request (its 400 message), or
 * `undefined` when it would accept it.
 */
export type ProviderRule = (request: { readonly path: string; readonly body: unknown }) => string | undefined

/**
 * Starts an HTTP server on 127.0.0.1 (an ephemeral port) that answers the requests, in order, with the scripted
 * responses and records every request. A request for another path than the next response's, after the last one,
 * or one that breaks one of `rules` (as the provider would refuse it) gets a 400 (which the SDKs do not retry) and
 * is listed in `problems`. Test-only; not part of the build.
 */
export async function startReplayServer(script: readonly ReplayResponse[], rules: readonly ProviderRule[] = []): Promise<ReplayServer> {
  const requests: RecordedRequest[] = []
  const problems: string[] = []
  let next = 0
  const server = createServer((request, response) => {
    void readBody(request).then((body) => {
      const path = (request.url ?? '/').split('?')[0] ?? '/'
      requests.push({ method: request.method ?? 'GET', path, body, headers: request.headers })
      const expected = script[next]
      if (expected === undefined || expected.path !== path) {
        const problem = expected === undefined
          ? `request ${requests.length} (${request.method} ${path}) came after the script's ${script.length} responses`
          : `request ${requests.length} went to ${path}, the script expected ${expected.path}`
        problems.push(problem)
        send(response, 400, { error: { type: 'invalid_request_error', message: problem } })
        return
      }
      const refusal = rules.map((rule) => rule({ path, body })).find((reason) => reason !== undefined)
      if (refusal !== undefined) {
        problems.push(`request ${requests.length} refused: ${refusal}`)
        send(response, 400, { error: { type: 'invalid_request_error', code: 400, message: refusal } })
        return
      }
      next++
      send(response, expected.status ?? 200, expected.body)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    problems,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error === undefined ? resolve() : reject(error)))
      }),
  }
}

import type { ToolExecutionResult, ToolSchema } from '@dsh/tools-core'
import { schemaSpecToJsonSchema } from '@dsh/tools-schema'

/** A tool as the DSL emits it: required path, optional encoding (which also accepts null) and an optional object. */
export const readFile: ToolSchema = {
  name: 'read_file',
  description: 'Read a file.',
  parameters: schemaSpecToJsonSchema({
    path: { type: 'string', required: true, description: 'The file.' },
    limit: { type: 'integer', default: 100 },
    options: { type: 'object', additionalProperties: false, properties: { follow: { type: 'boolean' } } },
  }),
}

/** A tool whose schema the strict profiles cannot express: an open map and an any-JSON value. */
export const setEnv: ToolSchema = {
  name: 'set_env',
  description: 'Set variables.',
  parameters: schemaSpecToJsonSchema({ vars: { type: 'object', additionalProperties: true, required: true }, extra: { type: 'json' } }),
}

/** A successful text result. */
export const textResult = (callId: string, text: string): ToolExecutionResult => ({ callId, content: [{ type: 'text', text }], isError: false })

/** A 1×1 PNG, base64. */
export const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

/** A result with every kind of block. */
export const mixedResult = (callId: string): ToolExecutionResult => ({
  callId,
  isError: false,
  content: [
    { type: 'text', text: 'see attached' },
    { type: 'image', data: png, mimeType: 'image/png' },
    { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
    { type: 'resource', resource: { uri: 'file:///b.txt', text: 'hello', mimeType: 'text/plain' } },
    { type: 'resource', resource: { uri: 'file:///c.pdf', blob: 'JVBERi0=', mimeType: 'application/pdf' } },
    { type: 'resource', resource: { uri: 'file:///d.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
  ],
})

/** An error result as the registry makes it. */
export const errorResult = (callId: string): ToolExecutionResult => ({
  callId,
  isError: true,
  content: [{ type: 'text', text: 'Tool "nope" is not available.' }],
  error: { name: 'ToolNotFoundError', code: 'UNKNOWN_TOOL' },
})

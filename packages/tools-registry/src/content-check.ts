import { describeValue } from './describe-value.js'

type Fields = Record<string, unknown>

function stringField(block: Fields, key: string, path: string): string | undefined {
  return typeof block[key] === 'string' ? undefined : `${path}.${key} must be a string, got ${describeValue(block[key])}`
}

function blockProblem(block: unknown, path: string): string | undefined {
  if (typeof block !== 'object' || block === null || Array.isArray(block)) {
    return `${path} must be a content block object, got ${describeValue(block)}`
  }
  const fields = block as Fields
  switch (fields.type) {
    case 'text':
      return stringField(fields, 'text', path)
    case 'image':
    case 'audio':
      return stringField(fields, 'data', path) ?? stringField(fields, 'mimeType', path)
    case 'resource_link':
      return stringField(fields, 'uri', path) ?? stringField(fields, 'name', path)
    case 'resource': {
      const resource = fields.resource
      if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) {
        return `${path}.resource must be an object, got ${describeValue(resource)}`
      }
      const contents = resource as Fields
      const uri = stringField(contents, 'uri', `${path}.resource`)
      if (uri !== undefined) return uri
      if (typeof contents.text === 'string' || typeof contents.blob === 'string') return undefined
      return `${path}.resource needs a string "text" or "blob"`
    }
    default:
      return `${path}.type must be one of "text", "image", "audio", "resource_link", "resource", got ${describeValue(fields.type)}`
  }
}

/**
 * What is wrong with `value` as a list of MCP content blocks, or `undefined` when it is one. Checks the shape
 * (each block's `type` and its required string fields); lossless JSON is checked when the result is materialized.
 * May throw when a getter throws; callers treat that as a problem too.
 */
export function contentProblem(value: unknown, path: string): string | undefined {
  if (!Array.isArray(value)) return `${path} must be an array of content blocks, got ${describeValue(value)}`
  for (let index = 0; index < value.length; index++) {
    const problem = blockProblem(value[index], `${path}[${index}]`)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** What is wrong with `value` as a `HookContext` (`{ content, source? }`), or `undefined`. */
export function hookContextProblem(value: unknown, path: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `${path} must be an object { content, source? }, got ${describeValue(value)}`
  }
  const fields = value as Fields
  const content = contentProblem(fields.content, `${path}.content`)
  if (content !== undefined) return content
  if (fields.source !== undefined && typeof fields.source !== 'string') {
    return `${path}.source must be a string, got ${describeValue(fields.source)}`
  }
  return undefined
}

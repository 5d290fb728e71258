import { describeValue } from './describe-value.js'
import { isArray, isRecord, ownLength, readOwn } from './own-field.js'

function stringField(block: object, key: string, path: string): string | undefined {
  const value = readOwn(block, key, `${path}.${key}`)
  return typeof value === 'string' ? undefined : `${path}.${key} must be a string, got ${describeValue(value)}`
}

function blockProblem(block: unknown, path: string): string | undefined {
  if (!isRecord(block, path)) {
    return `${path} must be a content block object, got ${describeValue(block)}`
  }
  const type = readOwn(block, 'type', `${path}.type`)
  switch (type) {
    case 'text':
      return stringField(block, 'text', path)
    case 'image':
    case 'audio':
      return stringField(block, 'data', path) ?? stringField(block, 'mimeType', path)
    case 'resource_link':
      return stringField(block, 'uri', path) ?? stringField(block, 'name', path)
    case 'resource': {
      const resource = readOwn(block, 'resource', `${path}.resource`)
      if (!isRecord(resource, `${path}.resource`)) {
        return `${path}.resource must be an object, got ${describeValue(resource)}`
      }
      const uri = stringField(resource, 'uri', `${path}.resource`)
      if (uri !== undefined) return uri
      const text = readOwn(resource, 'text', `${path}.resource.text`)
      const blob = readOwn(resource, 'blob', `${path}.resource.blob`)
      if (typeof text === 'string' || typeof blob === 'string') return undefined
      return `${path}.resource needs a string "text" or "blob"`
    }
    default:
      return `${path}.type must be one of "text", "image", "audio", "resource_link", "resource", got ${describeValue(type)}`
  }
}

/**
 * What is wrong with `value` as a list of MCP content blocks, or `undefined` when it is one. Checks the shape
 * (each block's `type` and its required string fields, own properties only); lossless JSON is checked when the
 * result is materialized. Throws `FieldReadError` when a read throws; callers treat that as a problem too.
 */
export function contentProblem(value: unknown, path: string): string | undefined {
  if (!isArray(value, path)) return `${path} must be an array of content blocks, got ${describeValue(value)}`
  const length = ownLength(value, path)
  for (let index = 0; index < length; index++) {
    const at = `${path}[${index}]`
    const problem = blockProblem(readOwn(value, index, at), at)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** What is wrong with `value` as a `HookContext` (`{ content, source? }`, own properties only), or `undefined`. */
export function hookContextProblem(value: unknown, path: string): string | undefined {
  if (!isRecord(value, path)) {
    return `${path} must be an object { content, source? }, got ${describeValue(value)}`
  }
  const content = contentProblem(readOwn(value, 'content', `${path}.content`), `${path}.content`)
  if (content !== undefined) return content
  const source = readOwn(value, 'source', `${path}.source`)
  if (source !== undefined && typeof source !== 'string') {
    return `${path}.source must be a string, got ${describeValue(source)}`
  }
  return undefined
}

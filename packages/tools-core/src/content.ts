/**
 * Content blocks: what a tool returns to the model. The shapes follow the Model Context Protocol's content
 * blocks (text, image, audio, resource link, embedded resource) so a result can travel to an MCP client unchanged.
 */

/** Optional hints on a content block, as in MCP. */
export interface ContentAnnotations {
  /** Who the block is meant for. */
  audience?: ('user' | 'assistant')[]
  /** Importance from 0 (least) to 1 (most). */
  priority?: number
  /** ISO 8601 timestamp of the last change to the underlying data. */
  lastModified?: string
}

/** Plain text. */
export interface TextContent {
  /** Discriminant. */
  type: 'text'
  /** The text. */
  text: string
  /** Optional hints. */
  annotations?: ContentAnnotations
}

/** An image, base64-encoded. */
export interface ImageContent {
  /** Discriminant. */
  type: 'image'
  /** Base64-encoded image bytes. */
  data: string
  /** The image's MIME type, for example `image/png`. */
  mimeType: string
  /** Optional hints. */
  annotations?: ContentAnnotations
}

/** Audio, base64-encoded. */
export interface AudioContent {
  /** Discriminant. */
  type: 'audio'
  /** Base64-encoded audio bytes. */
  data: string
  /** The audio's MIME type, for example `audio/wav`. */
  mimeType: string
  /** Optional hints. */
  annotations?: ContentAnnotations
}

/** A link to a resource the client can fetch itself. */
export interface ResourceLinkContent {
  /** Discriminant. */
  type: 'resource_link'
  /** The resource's URI. */
  uri: string
  /** A programmatic name for the resource. */
  name: string
  /** A human-readable title. */
  title?: string
  /** What the resource holds. */
  description?: string
  /** The resource's MIME type, when known. */
  mimeType?: string
  /** Size in bytes, when known. */
  size?: number
  /** Optional hints. */
  annotations?: ContentAnnotations
}

/** The text of an embedded resource. */
export interface TextResourceContents {
  /** The resource's URI. */
  uri: string
  /** The resource's MIME type, when known. */
  mimeType?: string
  /** The resource's text. */
  text: string
}

/** The bytes of an embedded resource, base64-encoded. */
export interface BlobResourceContents {
  /** The resource's URI. */
  uri: string
  /** The resource's MIME type, when known. */
  mimeType?: string
  /** Base64-encoded bytes. */
  blob: string
}

/** A resource embedded in the result. */
export interface EmbeddedResourceContent {
  /** Discriminant. */
  type: 'resource'
  /** The resource's contents: text or a base64 blob. */
  resource: TextResourceContents | BlobResourceContents
  /** Optional hints. */
  annotations?: ContentAnnotations
}

/** One block of model-facing content. */
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLinkContent
  | EmbeddedResourceContent

/** The `type` of every content block. */
export type ContentBlockType = ContentBlock['type']

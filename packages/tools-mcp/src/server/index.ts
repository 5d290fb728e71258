// `@dsh/tools-mcp/server`: a registry served as an MCP server. A separate entry point, so a client-only user
// never loads `@modelcontextprotocol/server` (an optional peer dependency).
export { createToolServer, type ToolServerOptions, type ToolServerWiring } from './registry-server.js'
export type { LegacySessionOptions } from './legacy-sessions.js'
export type { ServedApprovalOptions } from './served-approval.js'
export type { ServedTaskOptions } from './served-tasks.js'
export { createToolsHttpHandler, type ToolsHttpHandler, type ToolsHttpHandlerOptions } from './http-handler.js'
export { serveToolsHttp, serveToolsStdio, type HttpServeOptions, type ServedTools, type ServedToolsHttp } from './serve.js'
export {
  callerTokens,
  oauthResourceServer,
  type OAuthResourceServer,
  type OAuthResourceServerOptions,
  type ServedAuth,
  type ServedAuthRefusal,
  type ServedAuthVerdict,
  type ServedCaller,
} from './served-auth.js'
export type { ServedMetrics } from './served-metrics.js'
export { servedCallInfo } from './served-call-info.js'
export { SERVED_CALL_CONTEXT_KEY, type ServedCallInfo } from '../trace-context.js'

// The registry's types add `ctx.tools` to cordis's Context; the import has no run-time cost.
import type {} from '@dsh/tools-registry'
import { ToolTelemetry } from './tool-telemetry.js'

export { ATTR, EVENT, INSTRUMENTATION_SCOPE, METRIC } from './attributes.js'
export { OTEL_DEFAULTS, resolveOtelConfig, type CapturedPart, type ContentCapture, type OtelConfig, type ResolvedOtelConfig } from './config.js'
export { OtelConfigError } from './otel-config-error.js'
export {
  apply,
  inject,
  isNoopTracerProvider,
  name,
  ToolTelemetry,
  toolTelemetryState,
  type ToolTelemetryPlugin,
  type ToolTelemetryState,
} from './tool-telemetry.js'

export default ToolTelemetry

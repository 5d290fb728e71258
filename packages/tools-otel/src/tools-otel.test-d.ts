import type { TracerProvider } from '@opentelemetry/api'
import { Context } from 'cordis'
import { describe, expectTypeOf, test } from 'vitest'
import ToolTelemetryDefault, { ATTR, type CapturedPart, type OtelConfig, ToolTelemetry, toolTelemetryState, type ToolTelemetryState } from './index.js'

describe('types', () => {
  test('the plugin takes an OtelConfig', () => {
    expectTypeOf(ToolTelemetryDefault).toEqualTypeOf(ToolTelemetry)
    expectTypeOf(ToolTelemetry.apply).parameter(1).toEqualTypeOf<OtelConfig | undefined>()
    expectTypeOf<OtelConfig['tracerProvider']>().toEqualTypeOf<TracerProvider | undefined>()
    expectTypeOf<NonNullable<NonNullable<OtelConfig['content']>['redact']>>().toEqualTypeOf<(text: string, part: CapturedPart) => string>()
  })

  test('the state and the attribute names', () => {
    expectTypeOf(toolTelemetryState(new Context())).toEqualTypeOf<ToolTelemetryState | undefined>()
    expectTypeOf(ATTR.GEN_AI_TOOL_CALL_ARGUMENTS).toEqualTypeOf<'gen_ai.tool.call.arguments'>()
  })

  test('a redaction must return a string', () => {
    // @ts-expect-error a redaction returns the text to record
    const config: OtelConfig = { content: { results: true, redact: (text: string) => text.length } }
    void config
  })
})

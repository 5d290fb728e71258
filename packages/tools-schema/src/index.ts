export {
  compileParameters,
  compileValueSchema,
  validateArgs,
  validateValue,
  type CompileOptions,
} from './compile-schema.js'
export { defineParameters, defineValueSchema } from './define-parameters.js'
export { RUN_IN_BACKGROUND } from './execution-policy.js'
export {
  defineTool,
  MAX_TIMEOUT_MS,
  TOOL_NAME_PATTERN,
  type DefinedTool,
  type MaybePromise,
  type ToolBodyReturn,
  type ToolContentReturn,
  type ToolInvokeResult,
  type ToolOutputSpec,
  type ToolSpec,
  type ToolSpecBase,
  type TypedToolResult,
} from './define-tool.js'
export type { InferArgs, InferValue, MaxInferDepth, Simplify } from './infer-args.js'
export { JsonSchemaError } from './json-schema-error.js'
export { OutputSchemaError } from './output-schema-error.js'
export { MAX_SCHEMA_DEPTH, MAX_SCHEMA_SIZE } from './read-schema.js'
export type { SchemaProblem } from './schema-problem.js'
export type {
  ArrayConstraintSpec,
  ArraySchemaSpec,
  BooleanSchemaSpec,
  IntegerSchemaSpec,
  JsonValueSchemaSpec,
  NullSchemaSpec,
  NumberConstraintSpec,
  NumberSchemaSpec,
  ObjectSchemaSpec,
  OneOfSchemaSpec,
  ParameterSchemaSpec,
  RawJsonSchemaHint,
  SchemaAnnotations,
  SchemaProp,
  SchemaSpec,
  SchemaType,
  StringConstraintSpec,
  StringSchemaSpec,
  KeywordPlacements,
  MisplacedSchemaKeywords,
  UnsupportedKeywordHints,
  UnsupportedSchemaKeywords,
  ValueSchemaSpec,
} from './schema-spec.js'
export {
  schemaSpecToJsonSchema,
  valueSchemaSpecToJsonSchema,
  type ParametersJsonSchema,
} from './schema-spec-to-json-schema.js'
export {
  assertStructuredSchemaNode,
  assertSupportedOutputSchema,
  validateStructuredValue,
  type StructuredOutputSchema,
  type StructuredScalar,
  type StructuredSchemaNode,
  type StructuredSchemaType,
  type StructuredValueResult,
} from './structured-output.js'
export type {
  InferStandardInput,
  InferStandardOutput,
  StandardJsonSchemaOptions,
  StandardSchemaIssue,
  StandardSchemaResult,
  StandardSchemaWithJsonSchema,
  StandardSchemaWithJsonSchemaProps,
} from './standard-schema.js'
export { StructuredValueError, type StructuredValueErrorDetails } from './structured-value-error.js'
export { ToolArgsError, type ToolArgsErrorDetails } from './tool-args-error.js'
export { ToolDefinitionError } from './tool-definition-error.js'
export type {
  ToolArgsOf,
  ToolOutputReturnOf,
  ToolOutputSchemaSpec,
  ToolOutputValueOf,
  ToolParametersSpec,
} from './tool-schema-check.js'
export { ToolOutputError, type ToolOutputErrorDetails } from './tool-output-error.js'
export {
  setDefaultValidatorBackend,
  type GenerateWhen,
  type ValidatorBackend,
  type ValidatorBackendChoice,
} from './validator-backend.js'
export { MAX_GENERATED_NODES } from './generate-validator.js'
export {
  DEFAULT_MAX_VIOLATIONS,
  GENERATE_AFTER_CALLS,
  type ValidateOptions,
  type ValidationResult,
  type Validator,
} from './validator.js'
export { formatViolation, formatViolations, type Violation, type ViolationKeyword } from './violation.js'

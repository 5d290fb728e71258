import type { DshErrorCode } from './tool-error-codes.js'

/** How an error crosses a package or process boundary: as data, never through `instanceof`. */
export interface ToolErrorInfo {
  /** The error class name, for example `ToolArgsError`. */
  name: string
  /** The machine-routable code: a core `ErrorCode` or a tool-owned `ToolErrorCode`. */
  code: DshErrorCode
}

/** Options of the {@link DshError} constructor. */
export interface DshErrorOptions {
  /** The underlying error (ES2022 `cause`). */
  cause?: unknown
}

const brandPrefix = 'dsh.error.'

/** The brand symbol of an error class with this name: `Symbol.for('dsh.error.<name>')`. */
export function errorBrand(name: string): symbol {
  return Symbol.for(brandPrefix + name)
}

interface BrandedClass {
  readonly brand?: symbol
}

const dshErrorBrand: symbol = errorBrand('DshError')

function carriesBrand(value: unknown, brand: symbol): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[brand] === true
}

/**
 * The base class of every dsh tools error: a string `code` (one of the pipeline's closed union `ErrorCode`, or a
 * tool-owned code from `defineToolErrorCodes`) and an ES2022 `cause`.
 *
 * Each class is branded with `Symbol.for('dsh.error.<Name>')` (its static `brand`), and every instance carries
 * the brands of its whole class chain, so `isInstance()` holds even when two copies of a package are installed.
 * Subclasses declare `static override readonly brand = <module constant>` (the constant holding
 * `errorBrand('<Name>')`), an own `isInstance`, and their `name`. A class body never names its own class: a
 * bundler then renames the class (`_BashConfigError`), which stack traces and `constructor.name` would show.
 */
export class DshError extends Error {
  /** The brand of this class. */
  static readonly brand: symbol = dshErrorBrand

  /** True when `value` is a {@link DshError} from any installed copy of tools-core. */
  static isInstance(value: unknown): value is DshError {
    return carriesBrand(value, dshErrorBrand)
  }

  /** True when `value` carries `brand`. Subclasses use it to implement their own `isInstance`. */
  protected static hasBrand(value: unknown, brand: symbol): boolean {
    return carriesBrand(value, brand)
  }

  override readonly name: string = 'DshError'
  /** The machine-routable code. */
  readonly code: DshErrorCode

  /**
   * @param code - the machine-routable code
   * @param message - a message a model or a person can act on
   * @param options - `cause`
   */
  constructor(code: DshErrorCode, message: string, options?: DshErrorOptions) {
    super(message, options !== undefined && 'cause' in options ? { cause: options.cause } : undefined)
    this.code = code
    let klass: unknown = new.target
    while (typeof klass === 'function') {
      const brand = Object.hasOwn(klass, 'brand') ? (klass as BrandedClass).brand : undefined
      if (typeof brand === 'symbol') {
        Object.defineProperty(this, brand, { value: true, enumerable: false })
      }
      if (brand === dshErrorBrand) break // the base class: Error and Function.prototype carry no brand
      klass = Object.getPrototypeOf(klass)
    }
  }

  /** The error as data: `{ name, code }`. */
  toInfo(): ToolErrorInfo {
    return { name: this.name, code: this.code }
  }
}

/**
 * Lists the exported error classes that are not branded as the house style requires: a class extending
 * {@link DshError} must own a static `brand` equal to `Symbol.for('dsh.error.<ClassName>')` and its own
 * static `isInstance`. Package tests call it on their module's exports and expect an empty list.
 */
export function findUnbrandedErrorClasses(moduleExports: Record<string, unknown>): string[] {
  const unbranded: string[] = []
  for (const [exportName, value] of Object.entries(moduleExports)) {
    if (typeof value !== 'function' || !(value === Error || value.prototype instanceof Error)) continue
    const klass = value as unknown as { name: string; brand?: unknown; isInstance?: unknown }
    const branded =
      extendsDshError(value) &&
      Object.hasOwn(klass, 'brand') &&
      klass.brand === errorBrand(klass.name) &&
      Object.hasOwn(klass, 'isInstance') &&
      typeof klass.isInstance === 'function'
    if (!branded) unbranded.push(exportName)
  }
  return unbranded
}

/** Structural, so it also recognises a DshError subclass from another installed copy of tools-core. */
function extendsDshError(klass: unknown): boolean {
  const root = dshErrorBrand
  for (let current = klass; typeof current === 'function'; current = Object.getPrototypeOf(current)) {
    if (Object.hasOwn(current, 'brand') && (current as BrandedClass).brand === root) return true
  }
  return false
}

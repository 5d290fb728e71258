import { isEmptyPrototype } from '@dsh/tools-core'

const prototypeVerdicts = new WeakMap<object, boolean>()

/**
 * True for `Object.prototype` of any realm: a null-prototype object whose own `constructor` is a native
 * function named `Object`. Answers are cached per prototype.
 */
function isForeignObjectPrototype(proto: object): boolean {
  let verdict = prototypeVerdicts.get(proto)
  if (verdict !== undefined) return verdict
  verdict = false
  try {
    if (Object.getPrototypeOf(proto) === null) {
      const constructor: unknown = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value
      verdict =
        typeof constructor === 'function' &&
        constructor.name === 'Object' &&
        /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(constructor))
    }
  } catch {
    verdict = false
  }
  prototypeVerdicts.set(proto, verdict)
  return verdict
}

/**
 * True when `proto` makes an object a plain JSON object: `Object.prototype` (of any realm), `null`, or a prototype
 * that inherits nothing (`SNAPSHOT_PROTOTYPE`, what every object of a `snapshotJson` copy has).
 */
export function isPlainPrototype(proto: unknown): boolean {
  return proto === Object.prototype || isEmptyPrototype(proto) || (typeof proto === 'object' && isForeignObjectPrototype(proto as object))
}

/** True when `proto` makes an array a plain JSON array: `Array.prototype` of any realm. */
export function isPlainArrayPrototype(proto: unknown): boolean {
  return proto === Array.prototype || Array.isArray(proto)
}

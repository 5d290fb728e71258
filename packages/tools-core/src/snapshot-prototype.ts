/**
 * The prototype of every object {@link snapshotJson} builds: a frozen object with no string keys whose own prototype
 * is `null` (its two symbol-keyed methods make `console.log` show a plain object and `String(value)` give
 * `[object Object]`). No string key can be inherited through it, so a key the value does not have reads `undefined`
 * even when `Object.prototype` is polluted; unlike `Object.create(null)` (a dictionary-mode object in V8, about five times
 * slower to build and to read), an object created from it keeps V8's fast shapes.
 *
 * The consequence for code that reads a snapshot: it has no `Object.prototype` methods (`hasOwnProperty`,
 * `toString`, …). Use `Object.hasOwn(value, key)`, `Object.keys`, `JSON.stringify` or a spread (`{ ...value }`
 * is an ordinary object again).
 */
export const SNAPSHOT_PROTOTYPE: object = Object.freeze(
  Object.create(null, {
    // Node's `util.inspect` (and so `console.log`) shows the object as a plain one (`{ type: 'text' }`), not as
    // `Object <[Object: null prototype] {}> { … }`: a returned object is formatted in place, at the same depth.
    [Symbol.for('nodejs.util.inspect.custom')]: {
      value: function inspectAsPlainObject(this: object): object {
        return { ...this }
      },
    },
    // A template literal or `String(value)` gives `[object Object]`, as for a plain object, instead of throwing.
    [Symbol.toPrimitive]: {
      value: function toPrimitive(): string {
        return '[object Object]'
      },
    },
  }) as object,
)

const verdicts = new WeakMap<object, boolean>()

/**
 * True when objects with prototype `proto` inherit no string-keyed property, as an object of
 * {@link SNAPSHOT_PROTOTYPE} (also one from another copy of this package): `null`, or a frozen object without string
 * keys whose own prototype is `null`. Answers are cached per prototype; never throws.
 */
export function isEmptyPrototype(proto: unknown): boolean {
  if (proto === SNAPSHOT_PROTOTYPE || proto === null) return true
  if (typeof proto !== 'object') return false
  let verdict = verdicts.get(proto)
  if (verdict === undefined) {
    try {
      verdict = Object.getPrototypeOf(proto) === null && Object.isFrozen(proto) && Object.getOwnPropertyNames(proto).length === 0
    } catch {
      verdict = false
    }
    verdicts.set(proto, verdict)
  }
  return verdict
}

/**
 * The JavaScript the worker evaluates in each fresh VM before the program: it is guest code, and so everything it does
 * runs under the run's CPU and memory limits. It is one function expression, called once with the host functions and
 * the run's configuration, before any program code exists; it captures every intrinsic it uses at that moment, and
 * after that never reads a global, a prototype's method or an array index it did not create, so a program that
 * patches `Object.prototype`, `Array.prototype` or `JSON` confuses only itself.
 *
 * It defines the program's globals `tools` (null prototype, frozen, not thenable: one async function per tool, whose
 * argument is encoded here by a strict JSON encoder with a byte cap) and `console` (five levels, lines formatted here
 * and bounded), and returns `{ start, parse, makeError, droppedLogs }` for the worker.
 *
 * Host functions, all called with strings or numbers only:
 * - `hostCall(tool, json)` → a promise the worker settles, or a string: why the call was refused.
 * - `hostLog(level, line)` → the log bytes left. Once none are left, the guest counts the lines it drops itself
 *   (`droppedLogs()`), so a flood of `console.log` costs no host call.
 * - `hostEnd(ok, ...)`: `(true, json?)` the program returned; `(false, name?, code?, message, line?, what?)` it threw
 *   (`what` = `'value'`: its returned value was refused).
 */
export const guestPrelude = String.raw`(function (hostCall, hostLog, hostEnd, configJson) {
  'use strict'
  const O = Object
  const create = O.create, freeze = O.freeze, defineProperty = O.defineProperty, getPrototypeOf = O.getPrototypeOf
  const getOwnPropertyDescriptor = O.getOwnPropertyDescriptor, hasOwn = O.hasOwn
  const ownKeys = Reflect.ownKeys, apply = Reflect.apply
  const isArray = Array.isArray, isFiniteNumber = Number.isFinite
  const objectPrototype = O.prototype, arrayPrototype = Array.prototype
  const stringify = JSON.stringify, parse = JSON.parse
  const StringOf = String, ErrorClass = Error, TypeErrorClass = TypeError, RangeErrorClass = RangeError
  const promiseThen = Promise.prototype.then
  const stringSlice = String.prototype.slice
  const symbolToString = Symbol.prototype.toString
  const dateToISOString = Date.prototype.toISOString
  const regexpExec = RegExp.prototype.exec
  const programLine = /program:(\d+)/
  const config = parse(configJson)
  const maxDepth = 256

  function slice(text, start, end) {
    return apply(stringSlice, text, [start, end])
  }
  function clip(text, max) {
    if (max <= 0) return text.length > 0 ? '…' : ''
    return text.length > max ? slice(text, 0, max) + '…' : text
  }

  // ---- the strict encoder: JSON data only, read once, capped ----

  function kindOf(value) {
    const proto = getPrototypeOf(value)
    if (proto === null) return 'an object'
    const constructor = getOwnPropertyDescriptor(proto, 'constructor')
    if (constructor !== undefined && hasOwn(constructor, 'value') && typeof constructor.value === 'function') {
      const name = getOwnPropertyDescriptor(constructor.value, 'name')
      if (name !== undefined && hasOwn(name, 'value') && typeof name.value === 'string' && name.value !== '') {
        return 'a ' + clip(name.value, 40)
      }
    }
    return 'an object with a prototype'
  }

  function encode(root, cap, what, rootPath) {
    let out = ''
    let depth = 0
    const ancestors = create(null)
    function refuse(path, why) {
      return new TypeErrorClass(what + ' must be JSON data: ' + why + ' at ' + path)
    }
    function add(text) {
      if (out.length + text.length > cap) throw new RangeErrorClass(what + ' is over the limit of ' + cap + ' bytes of JSON')
      out += text
    }
    function walk(value, path) {
      if (value === null) return add('null')
      const type = typeof value
      if (type === 'string') {
        if (value.length > cap) add(value)
        return add(stringify(value))
      }
      if (type === 'boolean') return add(value ? 'true' : 'false')
      if (type === 'number') {
        if (!isFiniteNumber(value)) throw refuse(path, StringOf(value))
        return add(stringify(value))
      }
      if (type === 'undefined') throw refuse(path, 'undefined')
      if (type === 'bigint') throw refuse(path, 'a BigInt')
      if (type === 'symbol') throw refuse(path, 'a Symbol')
      if (type === 'function') throw refuse(path, 'a function')
      for (let index = 0; index < depth; index++) {
        if (ancestors[index] === value) throw refuse(path, 'a cycle')
      }
      if (depth >= maxDepth) throw refuse(path, 'nesting deeper than ' + maxDepth + ' levels')
      ancestors[depth] = value
      depth++
      const proto = getPrototypeOf(value)
      if (isArray(value)) {
        if (proto !== arrayPrototype) throw refuse(path, kindOf(value))
        const length = getOwnPropertyDescriptor(value, 'length').value
        if (ownKeys(value).length !== length + 1) throw refuse(path, 'an array with holes or extra properties')
        add('[')
        for (let index = 0; index < length; index++) {
          const itemPath = path + '[' + index + ']'
          const item = getOwnPropertyDescriptor(value, StringOf(index))
          if (item === undefined) throw refuse(itemPath, 'a hole')
          if (!hasOwn(item, 'value')) throw refuse(itemPath, 'a getter')
          if (index > 0) add(',')
          walk(item.value, itemPath)
        }
        add(']')
      } else {
        if (proto !== objectPrototype && proto !== null) throw refuse(path, kindOf(value))
        const keys = ownKeys(value)
        add('{')
        let first = true
        for (let index = 0; index < keys.length; index++) {
          const key = keys[index]
          if (typeof key !== 'string') throw refuse(path, 'a Symbol key')
          const property = getOwnPropertyDescriptor(value, key)
          if (property === undefined || !property.enumerable) continue
          const keyPath = path + '.' + clip(key, 40)
          if (!hasOwn(property, 'value')) throw refuse(keyPath, 'a getter')
          if (!first) add(',')
          first = false
          add(stringify(key))
          add(':')
          walk(property.value, keyPath)
        }
        add('}')
      }
      depth--
      ancestors[depth] = undefined
    }
    walk(root, rootPath)
    return out
  }

  // ---- tools ----

  const tools = create(null)
  for (let index = 0; index < config.tools.length; index++) {
    const identifier = config.tools[index].identifier
    const tool = config.tools[index].tool
    const label = 'tools.' + identifier
    const call = async function (...args) {
      if (args.length > 1) throw new TypeErrorClass(label + ' takes one argument: an object')
      const json = args.length === 0 ? '{}' : encode(args[0], config.maxArgBytes, 'the argument of ' + label, 'args')
      const pending = hostCall(tool, json)
      if (typeof pending === 'string') throw new RangeErrorClass(label + ': ' + pending)
      return pending
    }
    defineProperty(call, 'name', { value: identifier })
    defineProperty(tools, identifier, { value: call, enumerable: true })
  }
  freeze(tools)

  // ---- console ----

  let logRoom = config.maxLogBytes
  let logsDropped = 0

  function inspect(value, depth, seen, room) {
    if (value === null) return 'null'
    const type = typeof value
    if (type === 'string') return depth === 0 ? clip(value, room) : stringify(clip(value, room))
    if (type === 'bigint') return StringOf(value) + 'n'
    if (type === 'symbol') return apply(symbolToString, value, [])
    if (type !== 'object' && type !== 'function') return StringOf(value)
    if (type === 'function') {
      const name = getOwnPropertyDescriptor(value, 'name')
      return '[Function' + (name !== undefined && typeof name.value === 'string' && name.value !== '' ? ': ' + clip(name.value, 80) : '') + ']'
    }
    for (let index = 0; index < seen.length; index++) if (seen[index] === value) return '[Circular]'
    if (value instanceof ErrorClass) {
      let text
      try { text = StringOf(value.stack) } catch (error) { text = '' }
      let head
      try { head = StringOf(value.name) + ': ' + StringOf(value.message) } catch (error) { head = 'Error' }
      return clip(text !== '' && text !== 'undefined' ? head + '\n' + text : head, room)
    }
    try {
      return clip(apply(dateToISOString, value, []), room)
    } catch (error) {}
    const array = isArray(value)
    if (depth >= 3) return array ? '[Array]' : '[Object]'
    const proto = getPrototypeOf(value)
    const prefix = array ? (proto === arrayPrototype ? '' : kindOf(value) + ' ') : proto === objectPrototype || proto === null ? '' : kindOf(value) + ' '
    const keys = ownKeys(value)
    const nextSeen = create(null)
    for (let index = 0; index < seen.length; index++) nextSeen[index] = seen[index]
    nextSeen[seen.length] = value
    defineProperty(nextSeen, 'length', { value: seen.length + 1 })
    let out = prefix + (array ? '[' : '{')
    let count = 0
    for (let index = 0; index < keys.length; index++) {
      const key = keys[index]
      if (array && key === 'length') continue
      const property = getOwnPropertyDescriptor(value, key)
      if (property === undefined || !property.enumerable) continue
      if (out.length > room) return out + ' …'
      out += (count > 0 ? ', ' : ' ') + (array && typeof key === 'string' && StringOf(count) === key ? '' : (typeof key === 'string' ? clip(key, 80) : apply(symbolToString, key, [])) + ': ')
      out += hasOwn(property, 'value') ? inspect(property.value, depth + 1, nextSeen, room - out.length) : '[Getter]'
      count++
    }
    return out + (count > 0 ? ' ' : '') + (array ? ']' : '}')
  }

  function format(args) {
    let line = ''
    for (let index = 0; index < args.length; index++) {
      if (index > 0) line += ' '
      let text
      try {
        text = inspect(args[index], 0, { length: 0 }, logRoom - line.length)
      } catch (error) {
        text = '[unprintable]'
      }
      line += text
      if (line.length >= logRoom) break
    }
    return line.length > logRoom ? slice(line, 0, logRoom) : line
  }

  const consoleObject = create(objectPrototype)
  const levels = ['log', 'info', 'warn', 'error', 'debug']
  for (let index = 0; index < levels.length; index++) {
    const level = levels[index]
    const method = function (...args) {
      if (logRoom > 0) logRoom = hostLog(level, format(args))
      else logsDropped++
    }
    defineProperty(method, 'name', { value: level })
    defineProperty(consoleObject, level, { value: method, writable: true, enumerable: true, configurable: true })
  }

  defineProperty(globalThis, 'tools', { value: tools, enumerable: false, writable: false, configurable: false })
  defineProperty(globalThis, 'console', { value: consoleObject, enumerable: false, writable: true, configurable: true })

  // ---- the end of the run ----

  function readString(object, key, max) {
    try {
      const value = object[key]
      return typeof value === 'string' ? clip(value, max) : undefined
    } catch (error) {
      return undefined
    }
  }

  function fail(error) {
    if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
      const stack = readString(error, 'stack', 4000)
      const match = stack === undefined ? null : apply(regexpExec, programLine, [stack])
      hostEnd(false, readString(error, 'name', 200), readString(error, 'code', 200), readString(error, 'message', 4000) ?? '', match === null ? undefined : match[1])
      return
    }
    let text
    try {
      text = typeof error === 'symbol' ? apply(symbolToString, error, []) : clip(StringOf(error), 200)
    } catch (failure) {
      text = typeof error
    }
    hostEnd(false, undefined, undefined, 'the program threw a value that is not an Error: ' + text)
  }

  function finish(value) {
    if (value === undefined) return hostEnd(true)
    let json
    try {
      json = encode(value, config.maxValueBytes, 'the returned value', 'value')
    } catch (error) {
      return hostEnd(false, undefined, undefined, readString(error, 'message', 4000) ?? 'the returned value was refused', undefined, 'value')
    }
    hostEnd(true, json)
  }

  function start(program) {
    apply(promiseThen, apply(program, undefined, []), [finish, fail])
  }

  function makeError(name, code, message) {
    const error = new ErrorClass(message)
    defineProperty(error, 'name', { value: name, writable: true, configurable: true })
    defineProperty(error, 'code', { value: code, writable: true, enumerable: true, configurable: true })
    return error
  }

  function droppedLogs() {
    return logsDropped
  }

  return freeze({ start: start, parse: parse, makeError: makeError, droppedLogs: droppedLogs })
})`

import * as Schema from "effect/Schema"

export type JsonObject = { readonly [key: string]: unknown }

const isPlainObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** How deeply a JSON request body may nest objects and arrays (the outermost counts as 1). */
export const JSON_BODY_MAX_DEPTH = 32

/** How deeply a `metadata` object may nest (itself counts as 1). */
export const METADATA_MAX_DEPTH = 16

// NUL, or a UTF-16 surrogate without its pair
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Why a string cannot be stored as written, if it cannot: PostgreSQL refuses NUL in `text` and
 * `jsonb`, and a lone surrogate is not Unicode (UTF-8 would turn it into U+FFFD).
 */
export const unstorable = (s: string): string | undefined => {
  const found = UNSTORABLE.exec(s)
  if (found === null) return undefined
  return found[0] === "\u0000"
    ? "must not contain the NUL character (U+0000)"
    : `must not contain an unpaired UTF-16 surrogate (U+${found[0].charCodeAt(0).toString(16).toUpperCase()})`
}

/** A string PostgreSQL can store as written (see `unstorable`). */
export const StorableString = Schema.String.pipe(
  Schema.filter((s) => unstorable(s) ?? true, { identifier: "StorableString" })
)

export interface JsonProblem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * What in a parsed JSON value cannot be taken as it is: strings (keys included) that cannot be
 * stored, numbers that overflowed to infinity. At most `limit` problems, in document order.
 */
export const jsonProblems = (value: unknown, limit = 10): ReadonlyArray<JsonProblem> => {
  const problems: Array<JsonProblem> = []
  const visit = (v: unknown, path: ReadonlyArray<PropertyKey>): void => {
    if (problems.length >= limit) return
    if (typeof v === "string") {
      const why = unstorable(v)
      if (why !== undefined) problems.push({ path, message: why })
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) problems.push({ path, message: "must be a finite number" })
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, [...path, i]))
    } else if (typeof v === "object" && v !== null) {
      for (const [key, item] of Object.entries(v)) {
        const why = unstorable(key)
        if (why !== undefined && problems.length < limit) {
          problems.push({ path: [...path, key], message: `the key ${why.replace("must not contain", "contains")}` })
        }
        visit(item, [...path, key])
      }
    }
  }
  visit(value, [])
  return problems
}

/** How deeply a parsed JSON value nests objects and arrays (a scalar is 0). */
export const jsonDepth = (value: unknown): number => {
  if (typeof value !== "object" || value === null) return 0
  let deepest = 0
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const depth = jsonDepth(item)
    if (depth > deepest) deepest = depth
  }
  return deepest + 1
}

/** Whether a parsed JSON value nests deeper than `max` (as `jsonDepth`), looking no deeper than that. */
export const nestsValueDeeperThan = (value: unknown, max: number): boolean => {
  if (typeof value !== "object" || value === null) return false
  if (max <= 0) return true
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    if (nestsValueDeeperThan(item, max - 1)) return true
  }
  return false
}

/**
 * Why `u` is not metadata as `JsonObjectSchema` takes it, or undefined when it is: for values that
 * did not come through a request body's checks (a CSV cell), so any depth is looked at safely.
 */
export const metadataProblem = (u: unknown, maxBytes = 16_384): string | undefined => {
  if (!isPlainObject(u)) return "must be a JSON object"
  if (nestsValueDeeperThan(u, METADATA_MAX_DEPTH)) {
    return `must nest at most ${METADATA_MAX_DEPTH} levels of objects and arrays`
  }
  const [problem] = jsonProblems(u, 1)
  if (problem !== undefined) return problem.message
  if (JSON.stringify(u).length > maxBytes) return `must be at most ${maxBytes} bytes of JSON`
  return undefined
}

/**
 * Whether a JSON text nests deeper than `max`, found without parsing it (so a hostile body never
 * reaches a recursive parser): brackets outside strings are counted.
 */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) {
      inString = true
    } else if (c === 123 || c === 91) {
      if (++depth > max) return true
    } else if (c === 125 || c === 93) {
      depth--
    }
  }
  return false
}

/**
 * A request body's text as JSON, held to the rules every JSON body meets (see `RequestRules` in the
 * http package): nesting at most `JSON_BODY_MAX_DEPTH`, valid JSON, strings storable and numbers
 * finite. For the routes that read their body themselves (a signed webhook checks its signature
 * over the raw bytes first).
 */
export const readJsonText = (
  text: string
): { readonly _tag: "Json"; readonly value: unknown } | {
  readonly _tag: "TooDeep" | "NotJson"
} | { readonly _tag: "Unstorable"; readonly problems: ReadonlyArray<JsonProblem> } => {
  if (nestsDeeperThan(text, JSON_BODY_MAX_DEPTH)) return { _tag: "TooDeep" }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { _tag: "NotJson" }
  }
  const problems = jsonProblems(value)
  return problems.length > 0 ? { _tag: "Unstorable", problems } : { _tag: "Json", value }
}

/**
 * A JSON object of at most `maxBytes` once serialised, nesting at most `METADATA_MAX_DEPTH` deep,
 * with every string storable (see `unstorable`).
 */
export const JsonObjectSchema = (maxBytes = 16_384) =>
  Schema.Unknown.pipe(
    Schema.filter((u): u is JsonObject => isPlainObject(u), { message: () => "must be a JSON object" }),
    Schema.filter((u) => !nestsValueDeeperThan(u, METADATA_MAX_DEPTH), {
      message: () => `must nest at most ${METADATA_MAX_DEPTH} levels of objects and arrays`
    }),
    Schema.filter((u) => {
      const [problem] = jsonProblems(u, 1)
      return problem === undefined || { path: problem.path, message: problem.message }
    }),
    Schema.filter((u) => JSON.stringify(u).length <= maxBytes, {
      message: () => `must be at most ${maxBytes} bytes of JSON`
    }),
    Schema.annotations({
      jsonSchema: { type: "object" },
      description: `A JSON object: at most ${maxBytes} bytes serialised, ${METADATA_MAX_DEPTH} levels deep`
    })
  ) as unknown as Schema.Schema<JsonObject>

export const Metadata = JsonObjectSchema()

/**
 * RFC 7396 JSON merge patch: objects merge key by key (recursively), `null` removes a key,
 * anything else replaces.
 */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isPlainObject(patch)) return patch
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = mergePatch(result[key], value)
  }
  return result
}

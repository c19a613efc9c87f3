import * as Schema from "effect/Schema"

export type JsonObject = { readonly [key: string]: unknown }

const isPlainObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** A JSON object of at most `maxBytes` once serialised. */
export const JsonObjectSchema = (maxBytes = 16_384) =>
  Schema.Unknown.pipe(
    Schema.filter((u): u is JsonObject => isPlainObject(u), { message: () => "must be a JSON object" }),
    Schema.filter((u) => JSON.stringify(u).length <= maxBytes, {
      message: () => `must be at most ${maxBytes} bytes of JSON`
    }),
    Schema.annotations({ jsonSchema: { type: "object" } })
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

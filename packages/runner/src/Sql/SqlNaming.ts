import * as String from "effect/String"

/**
 * Columns are snake_case in SQL and camelCase in code. JSON values are never renamed:
 * user metadata keys such as `fallback_message` arrive exactly as they were stored.
 */
export const SqlNaming = {
  toColumn: String.camelToSnake,
  toField: String.snakeToCamel
} as const

/** `int8` as a JS number when it fits (counts, money in minor units), a bigint otherwise: the same on PGlite and pg. */
export const parseInt8 = (value: string): number | bigint => {
  const n = BigInt(value)
  return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
}

import type { SqlError } from "@effect/sql/SqlError"

interface PgErrorFields {
  readonly code?: string
  readonly constraint?: string
}

const fieldsOf = (error: SqlError): PgErrorFields =>
  typeof error.cause === "object" && error.cause !== null ? error.cause as PgErrorFields : {}

/** True when the statement broke the unique constraint (or index) named `constraint`. */
export const isUniqueViolation = (error: SqlError, constraint?: string): boolean => {
  const fields = fieldsOf(error)
  return fields.code === "23505" && (constraint === undefined || fields.constraint === constraint)
}

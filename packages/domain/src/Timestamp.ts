import * as Schema from "effect/Schema"

const iso8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/**
 * A point in time. On the wire: ISO 8601 with an explicit offset on input, and always UTC with
 * milliseconds on output (`2026-11-21T07:29:49.596Z`). In code: a `Date`.
 */
export const Timestamp = Schema.String.pipe(
  Schema.pattern(iso8601, {
    message: () => "Expected an ISO 8601 timestamp with a time zone, e.g. 2026-01-31T09:00:00.000Z"
  }),
  Schema.compose(Schema.Date),
  Schema.annotations({
    identifier: "Timestamp",
    description: "ISO 8601 timestamp, UTC with milliseconds on output",
    examples: [new Date("2026-01-31T09:00:00.000Z")]
  })
)

import * as Schema from "effect/Schema"

const iso8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/

/** Years 1 to 9999 in UTC: what PostgreSQL stores and ISO 8601 writes in four digits. */
const EARLIEST = new Date("0001-01-01T00:00:00.000Z").getTime()
const LATEST = new Date("9999-12-31T23:59:59.999Z").getTime()

/**
 * A point in time. On the wire: ISO 8601 with an explicit offset on input, and always UTC with
 * milliseconds on output (`2026-11-21T07:29:49.596Z`). In code: a `Date`.
 *
 * Only instants from year 1 to 9999 in UTC: the pattern's year `0000`, and an offset that carries a
 * date past either end (`9999-12-31T23:00:00-14:00`, `0001-01-01T00:00:00+14:00`), give instants
 * JavaScript writes as `0000-…` or with six-digit years, which PostgreSQL refuses to read (a 500 once).
 */
export const Timestamp = Schema.String.pipe(
  Schema.pattern(iso8601, {
    message: () => "Expected an ISO 8601 timestamp with a time zone, e.g. 2026-01-31T09:00:00.000Z"
  }),
  Schema.filter((s) => {
    const at = new Date(s).getTime()
    // an invalid date is Schema.Date's to report
    return Number.isNaN(at) || (at >= EARLIEST && at <= LATEST)
  }, { message: () => "Expected an instant from 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z" }),
  Schema.compose(Schema.Date),
  Schema.annotations({
    identifier: "Timestamp",
    description: "ISO 8601 timestamp, UTC with milliseconds on output",
    examples: [new Date("2026-01-31T09:00:00.000Z")]
  })
)

/**
 * Entity messages given up on: a defect on every delivery that is not an outage (a bug, or input the
 * database refuses). Each is recorded once, with its payload and cause, for an operator to read
 * (`dead_letters`; `voiceagent_dead_letters` counts them), and its caller gets the failure.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"

const DeadLetterRow = Schema.Struct({
  id: Schema.String,
  entityType: Schema.String,
  entityId: Schema.String,
  rpc: Schema.String,
  requestId: Schema.String,
  payload: Schema.String,
  cause: Schema.String,
  attempts: Schema.Int,
  runner: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})

export const deadLettered = Metric.counter("voiceagent_dead_letters_total", {
  description: "Entity messages this process gave up on after their deliveries all failed, by entity type",
  incremental: true
})

export interface DeadLetter {
  readonly entityType: string
  readonly entityId: string
  readonly rpc: string
  readonly requestId: string
  readonly payload: unknown
  readonly cause: string
  readonly attempts: number
  readonly runner: string | null
  readonly at: number
}

/** Text the database stores as it is: NUL and unpaired surrogates written as escapes. */
export const storable = (text: string): string =>
  text.replace(/\u0000/g, "\\u0000").replace(
    /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`
  )

const payloadText = (payload: unknown): string => {
  try {
    // JSON.stringify escapes NUL and lone surrogates itself
    return JSON.stringify(payload, (_, v) => (typeof v === "bigint" ? v.toString() : v)) ?? "null"
  } catch {
    return storable(String(payload))
  }
}

export class DeadLetters extends Effect.Service<DeadLetters>()("Cluster/DeadLetters", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const record = (letter: DeadLetter) =>
      sql`
        INSERT INTO dead_letters (id, entity_type, entity_id, rpc, request_id, payload, cause, attempts, runner,
          created_at)
        VALUES (${uuidv7()}, ${storable(letter.entityType)}, ${
        storable(letter.entityId)
      }, ${letter.rpc}, ${letter.requestId},
          ${payloadText(letter.payload)}, ${storable(letter.cause)}, ${letter.attempts}, ${letter.runner}, ${new Date(
        letter.at
      )})
        ON CONFLICT (entity_type, entity_id, request_id) DO NOTHING
      `.pipe(
        Effect.zipRight(Metric.increment(Metric.tagged(deadLettered, "entity", letter.entityType))),
        Effect.asVoid
      )

    const list = (limit: number) =>
      Rows.findAll(DeadLetterRow, sql`SELECT * FROM dead_letters ORDER BY created_at DESC LIMIT ${limit}`).pipe(
        Effect.orDie
      )

    return { record, list } as const
  })
}) {}

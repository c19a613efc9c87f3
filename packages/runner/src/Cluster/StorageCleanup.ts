/**
 * `@effect/cluster` keeps every persisted message and its replies (`cluster_messages`,
 * `cluster_replies`) for good: about 4 KB a dial, growing for the life of the database. A processed
 * request (its final reply stored) older than the retention goes here, with its replies and the
 * envelopes sent for it, a batch at a time, on a schedule (a cluster singleton).
 *
 * What the rows did and why deleting them is safe after the retention: a persisted command's stored
 * reply answers a send of the same primary key again (a caller's retry, a redelivery after a
 * takeover). Retries come within seconds or minutes; after the retention a send of an old key is
 * delivered as new, and every command of ours is idempotent in PostgreSQL on its own as well (the
 * ledger's unique idempotency keys, the call's session row, carrier event ids). Unprocessed messages
 * (a command still to run, one scheduled for later) are never touched.
 */
import * as MachineId from "@effect/cluster/MachineId"
import * as Snowflake from "@effect/cluster/Snowflake"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Rows from "../Sql/Rows.js"

export interface ClusterStorageRetention {
  /** How long a processed request and its replies are kept. */
  readonly retention: Duration.DurationInput
  /** How often the cleanup runs. */
  readonly interval: Duration.DurationInput
  /** Requests deleted per statement (each statement its own transaction, so locks stay short). */
  readonly batchSize: number
}

export const defaultClusterStorageRetention: ClusterStorageRetention = {
  retention: "7 days",
  interval: "1 hour",
  batchSize: 5_000
}

export class ClusterStorageSettings extends Context.Reference<ClusterStorageSettings>()("Cluster/StorageSettings", {
  defaultValue: (): ClusterStorageRetention => defaultClusterStorageRetention
}) {
  static readonly layer = (options: ClusterStorageRetention = defaultClusterStorageRetention) =>
    Layer.succeed(ClusterStorageSettings, options)
}

/** The smallest message id (a snowflake) made at `timestamp`: every id below it was made before. */
const idAt = (timestamp: number) => Snowflake.make({ timestamp, machineId: MachineId.make(0), sequence: 0 }).toString()

/**
 * Deletes the processed requests whose ids were made before `before` (epoch ms), their replies and
 * envelopes, `batchSize` requests a statement until none is left; the requests deleted.
 */
export const cleanupClusterStorage = (before: number, batchSize = defaultClusterStorageRetention.batchSize) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cutoff = idAt(before)
    let deleted = 0
    for (;;) {
      const row = yield* Rows.single(
        Schema.Struct({ n: Schema.Int }),
        sql`
        WITH old AS (
          SELECT request_id FROM cluster_messages
          WHERE kind = 0 AND processed AND id < ${cutoff}
          ORDER BY id LIMIT ${batchSize}
        ), replies AS (
          DELETE FROM cluster_replies WHERE request_id IN (SELECT request_id FROM old)
        ), messages AS (
          DELETE FROM cluster_messages WHERE request_id IN (SELECT request_id FROM old)
        )
        SELECT count(*)::int AS n FROM old
      `
      )
      deleted += row.n
      if (row.n < batchSize) return deleted
    }
  })

/** Runs the cleanup every `interval`, keeping `retention`; a failed run is logged and tried next time. */
export const clusterStorageCleanup = Effect.gen(function*() {
  const settings = yield* ClusterStorageSettings
  const retention = Duration.toMillis(Duration.decode(settings.retention))
  const run = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const deleted = yield* cleanupClusterStorage(now - retention, settings.batchSize)
    if (deleted > 0) {
      yield* Effect.logInfo(
        `cluster storage: ${deleted} processed request(s) older than ${
          Duration.format(Duration.decode(settings.retention))
        } deleted`
      )
    }
  }).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("cluster storage cleanup failed; tried again next time", cause))
  )
  return yield* run.pipe(Effect.repeat(Schedule.spaced(settings.interval)), Effect.asVoid)
})

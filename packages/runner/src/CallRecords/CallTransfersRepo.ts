/**
 * A call's transfer (`call_transfers`, one row a call): claimed before the carrier is asked, then
 * done or failed. The claim is the idempotency key: however often a transfer is asked for, the
 * carrier is asked once, unless it refused (a failed transfer may be claimed again).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type { SessionId } from "@voiceagent/domain/Calls"
import { TransferMode, TransferSource } from "@voiceagent/domain/CallTransfer"
import type { TenantId } from "@voiceagent/domain/Ids"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

export const StoredTransfer = Schema.Struct({
  toNumber: Schema.String,
  mode: TransferMode,
  source: TransferSource,
  status: Schema.Literal("requested", "done", "failed"),
  failure: Schema.NullOr(Schema.String),
  requestedAt: Schema.DateFromSelf,
  doneAt: Schema.NullOr(Schema.DateFromSelf)
})
export type StoredTransfer = typeof StoredTransfer.Type

export interface TransferClaim {
  readonly sessionId: SessionId
  readonly tenantId: TenantId
  readonly toNumber: string
  readonly mode: TransferMode
  readonly source: TransferSource
  readonly at: number
}

export class CallTransfersRepo extends Effect.Service<CallTransfersRepo>()("Calls/TransfersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findRow = SqlSchema.findOne({
      Request: Schema.String,
      Result: StoredTransfer,
      execute: (sessionId) =>
        sql`
          SELECT to_number, mode, source, status, failure, requested_at, done_at
          FROM call_transfers WHERE session_id = ${sessionId}
        `
    })

    /** The call's transfer, if one was asked for. */
    const find = (sessionId: SessionId) => findRow(sessionId).pipe(Effect.orDie)

    /** Claims the call's transfer; false when one is under way or done (a failed one is claimed again). */
    const claim = (request: TransferClaim) =>
      sql`
        INSERT INTO call_transfers (session_id, tenant_id, to_number, mode, source, status, requested_at)
        VALUES (${request.sessionId}, ${request.tenantId}, ${request.toNumber}, ${request.mode}, ${request.source},
          'requested', ${new Date(request.at)})
        ON CONFLICT (session_id) DO UPDATE SET
          to_number = excluded.to_number, mode = excluded.mode, source = excluded.source,
          status = 'requested', failure = NULL, requested_at = excluded.requested_at
        WHERE call_transfers.status = 'failed'
        RETURNING session_id
      `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)

    const done = (sessionId: SessionId, at: number) =>
      sql`UPDATE call_transfers SET status = 'done', done_at = ${new Date(at)} WHERE session_id = ${sessionId}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    const failed = (sessionId: SessionId, reason: string) =>
      sql`UPDATE call_transfers SET status = 'failed', failure = ${
        reason.slice(0, 1_000)
      } WHERE session_id = ${sessionId}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    return { find, claim, done, failed } as const
  })
}) {}

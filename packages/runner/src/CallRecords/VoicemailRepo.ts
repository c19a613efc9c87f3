/**
 * A call's voicemail detection as stored (`call_sessions.answered_by`, `voicemail`): the first
 * verdict wins, each written once with its event, and only by the instance that owns the call.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SessionId } from "@voiceagent/domain/Calls"
import type { AnsweredBy, VoicemailResult } from "@voiceagent/domain/Voicemail"
import * as Effect from "effect/Effect"
import { v7 as uuidv7 } from "uuid"

export class VoicemailRepo extends Effect.Service<VoicemailRepo>()("Calls/VoicemailRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const event = (type: string, at: number, detail: unknown) =>
      sql`INSERT INTO call_events (id, session_id, type, detail, at)
        SELECT ${uuidv7()}, id, ${type}, ${JSON.stringify(detail)}::jsonb, ${new Date(at)} FROM session`

    /** Sets `column` (and writes its event) unless it was set already: true when this write set it. */
    const recordOnce = (
      column: "answered_by" | "voicemail",
      id: SessionId,
      epoch: number,
      value: string,
      at: number,
      detail: object
    ) =>
      sql`
        WITH session AS (
          UPDATE call_sessions SET ${sql(column)} = ${value}, updated_at = now()
          WHERE id = ${id} AND ${sql(column)} IS NULL AND status <> 'ENDED' AND owner_epoch = ${epoch}
          RETURNING id
        ), event AS (${event(column, at, detail)})
        SELECT id FROM session
      `.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

    /** Who answered, unless a verdict was stored already: true when this one was. */
    const recordAnsweredBy = (id: SessionId, epoch: number, answeredBy: AnsweredBy, at: number, detail: unknown) =>
      recordOnce("answered_by", id, epoch, answeredBy, at, { answeredBy, ...(detail as object) })

    /** What the agent did with the machine, once. */
    const recordVoicemail = (id: SessionId, epoch: number, result: VoicemailResult, at: number, detail: unknown) =>
      recordOnce("voicemail", id, epoch, result, at, { result, ...(detail as object) })

    return { recordAnsweredBy, recordVoicemail } as const
  })
}) {}

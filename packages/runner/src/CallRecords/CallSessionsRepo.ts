import * as SqlClient from "@effect/sql/SqlClient"
import { InsufficientFunds } from "@voiceagent/domain/Billing"
import { CallOutcome, type CallState, CallStatus, EndReasons } from "@voiceagent/domain/CallMachine"
import {
  CallDirection,
  CallLog,
  CallProvider,
  CallSession,
  CallSpec,
  directionOf,
  SessionId,
  type TranscriptLine,
  TurnLatency
} from "@voiceagent/domain/Calls"
import { AgentId, ContactId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import { ConcurrentCallLimit } from "@voiceagent/domain/TenantEntity"
import { Timestamp } from "@voiceagent/domain/Timestamp"
import { AnsweredBy, VoicemailResult } from "@voiceagent/domain/Voicemail"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"

/**
 * A transcript line as stored (`interrupted` and `latency` came with the conversation engine; older rows lack them).
 */
const StoredLine = Schema.Struct({
  speaker: Schema.Literal("agent", "customer"),
  text: Schema.String,
  at: Timestamp,
  interrupted: Schema.optional(Schema.Boolean),
  latency: Schema.optional(Schema.NullOr(TurnLatency))
})
type StoredLine = typeof StoredLine.Type

/**
 * The spec as stored (jsonb, written from its encoded form);
 * its metadata's shape is checked, not the write-time limits.
 */
const StoredSpec = Schema.Struct({ ...CallSpec.fields, metadata: Rows.JsonObjectColumn })

/**
 * A `call_sessions` row (`SELECT *`), decoded: each column as the domain's type says, jsonb documents
 * (spec, transcript, metadata) through their schemas, the `char(3)` currency trimmed.
 */
const SessionRow = Schema.Struct({
  id: SessionId,
  tenantId: TenantId,
  jobId: Schema.String,
  agentId: AgentId,
  voiceNumberId: Schema.NullOr(VoiceNumberId),
  provider: CallProvider,
  fromNumber: Schema.NullOr(Schema.String),
  toNumber: Schema.NullOr(Schema.String),
  customerId: Schema.NullOr(ContactId),
  campaignId: Schema.NullOr(Schema.String),
  campaignAttemptId: Schema.NullOr(Schema.String),
  metadata: Rows.JsonObjectColumn,
  direction: CallDirection,
  status: CallStatus,
  outcome: Schema.NullOr(CallOutcome),
  endReason: Schema.NullOr(Schema.Literal(...EndReasons)),
  providerCallId: Schema.NullOr(Schema.String),
  spec: StoredSpec,
  createdAt: Schema.DateFromSelf,
  dialedAt: Schema.NullOr(Schema.DateFromSelf),
  ringingAt: Schema.NullOr(Schema.DateFromSelf),
  answeredAt: Schema.NullOr(Schema.DateFromSelf),
  endedAt: Schema.NullOr(Schema.DateFromSelf),
  reservedSeconds: Schema.Int,
  durationSeconds: Schema.Int,
  billedSeconds: Schema.Int,
  cost: Schema.Int,
  currency: Schema.Trim,
  transcript: Schema.Array(StoredLine),
  ownerEpoch: Schema.Int,
  answeredBy: Schema.NullOr(AnsweredBy),
  voicemail: Schema.NullOr(VoicemailResult)
})
type SessionRow = typeof SessionRow.Type

/** `insertReserved`'s answer: whether the session went in, and the wallet as locked (none before its first use). */
const ReserveRow = Schema.Struct({
  inserted: Schema.Int,
  available: Schema.NullOr(Schema.Int),
  openCalls: Schema.NullOr(Schema.Int)
})

const EventRow = Schema.Struct({ type: Schema.String, at: Schema.DateFromSelf, detail: Schema.Unknown })

const IdRow = Schema.Struct({ id: SessionId })

/** `claimOrLoad`'s row: the session, and whether this statement claimed it. */
const ClaimedRow = Schema.Struct({ ...SessionRow.fields, claimed: Schema.Boolean })

/** A line of a call's transcript, as the entity holds it (`at` in epoch ms). */
export interface CallLine {
  readonly speaker: "agent" | "customer"
  readonly text: string
  readonly at: number
  readonly interrupted: boolean
  readonly latency: TurnLatency | null
}

export const storedLine = (line: CallLine): typeof StoredLine.Encoded => ({
  ...line,
  at: new Date(line.at).toISOString()
})

const callLine = (line: StoredLine): CallLine => ({
  speaker: line.speaker,
  text: line.text,
  at: line.at.getTime(),
  interrupted: line.interrupted ?? false,
  latency: line.latency ?? null
})

export const transcriptLine = (line: CallLine): TranscriptLine => ({ ...line, at: new Date(line.at) })

/** The entity's view of a session: its spec and where the state machine stands. */
export interface StoredCall {
  readonly spec: CallSpec
  readonly state: CallState
  readonly providerCallId: string | null
  readonly reservedSeconds: number
  readonly createdAt: Date
  /** What was said so far (lines are stored as they are said). */
  readonly transcript: ReadonlyArray<CallLine>
  /** Voicemail detection's verdicts so far, as stored (absent on a call not read from its row). */
  readonly answeredBy?: "human" | "machine" | "unknown" | null
  readonly voicemail?: "hung_up" | "message_left" | null
}

const ms = (d: Date | null) => d === null ? null : d.getTime()

/** A column the row's status requires, absent: the row and the state machine disagree, a defect naming the column. */
const required = <A>(row: SessionRow, column: keyof SessionRow & string, value: A | null): A => {
  if (value === null) throw new Error(`call_sessions ${row.id}: ${column} is null on a ${row.status} call`)
  return value
}

export const stateOf = (row: SessionRow): CallState => {
  switch (row.status) {
    case "QUEUED":
      return { status: "QUEUED" }
    case "DIALING":
      return { status: "DIALING", dialedAt: required(row, "dialedAt", ms(row.dialedAt)) }
    case "RINGING":
      return {
        status: "RINGING",
        dialedAt: required(row, "dialedAt", ms(row.dialedAt)),
        ringingAt: required(row, "ringingAt", ms(row.ringingAt))
      }
    case "IN_PROGRESS":
      return {
        status: "IN_PROGRESS",
        dialedAt: required(row, "dialedAt", ms(row.dialedAt)),
        ringingAt: ms(row.ringingAt),
        answeredAt: required(row, "answeredAt", ms(row.answeredAt))
      }
    case "ENDED":
      return {
        status: "ENDED",
        outcome: required(row, "outcome", row.outcome),
        reason: required(row, "endReason", row.endReason),
        dialedAt: ms(row.dialedAt),
        ringingAt: ms(row.ringingAt),
        answeredAt: ms(row.answeredAt),
        endedAt: required(row, "endedAt", ms(row.endedAt))
      }
  }
}

const logFields = (row: SessionRow) => ({
  sessionId: row.id,
  jobId: row.jobId,
  status: row.status,
  outcome: row.outcome,
  endReason: row.endReason,
  direction: row.direction,
  agentId: row.agentId,
  voiceNumberId: row.voiceNumberId,
  provider: row.provider,
  fromNumber: row.fromNumber,
  toNumber: row.toNumber,
  customerId: row.customerId,
  campaignId: row.campaignId,
  campaignAttemptId: row.campaignAttemptId,
  metadata: row.metadata,
  createdAt: row.createdAt,
  dialedAt: row.dialedAt,
  answeredAt: row.answeredAt,
  endedAt: row.endedAt,
  durationSeconds: row.durationSeconds,
  billedSeconds: row.billedSeconds,
  cost: row.cost,
  currency: row.currency,
  answeredBy: row.answeredBy,
  voicemail: row.voicemail
})

const detailOf = (detail: unknown) => detail === null || detail === undefined ? null : JSON.stringify(detail)

export interface CallLogFilter {
  readonly agentId?: string | undefined
  readonly campaignId?: string | undefined
  readonly status?: string | undefined
  readonly from?: Date | undefined
  readonly to?: Date | undefined
  readonly includeTranscript?: boolean | undefined
}

/**
 * A new session's row as JSON for `jsonb_populate_record(set)(NULL::call_sessions, …)`: the columns
 * `SESSION_INSERT_COLUMNS` names, typed by the table itself. Shared by a call's own start and a
 * campaign's claim, so both write the same row.
 */
export const sessionRowOf = (id: string, spec: CallSpec, reservedSeconds: number) => ({
  id,
  tenant_id: spec.tenantId,
  job_id: spec.jobId,
  agent_id: spec.agentId,
  voice_number_id: spec.voiceNumberId,
  provider: spec.provider,
  from_number: spec.fromNumber,
  to_number: spec.toNumber,
  customer_id: spec.customerId,
  campaign_id: spec.campaignId,
  campaign_attempt_id: spec.campaignAttemptId,
  metadata: spec.metadata,
  direction: directionOf(spec),
  status: "QUEUED",
  spec,
  currency: spec.currency,
  reserved_seconds: reservedSeconds
})

export const SESSION_INSERT_COLUMNS =
  "id, tenant_id, job_id, agent_id, voice_number_id, provider, from_number, to_number, " +
  "customer_id, campaign_id, campaign_attempt_id, metadata, direction, status, spec, currency, reserved_seconds"

/** What a call's reservation asks of the wallet: the first chunk's price, and the concurrent-call limit. */
export interface CallReservation {
  readonly amount: number
  readonly concurrencyLimit: number | null
}

export class CallSessionsRepo extends Effect.Service<CallSessionsRepo>()("Calls/SessionsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * The new session, `QUEUED` with its first reservation and owner epoch 1, and its `queued` event,
     * in one statement. False when the session exists already (another instance inserted it).
     */
    const insert = (id: SessionId, spec: CallSpec, reservedSeconds: number, at: number) =>
      sql`
        WITH session AS (
          INSERT INTO call_sessions (id, tenant_id, job_id, agent_id, voice_number_id, provider, from_number, to_number,
            customer_id, campaign_id, campaign_attempt_id, metadata, direction, status, spec, currency,
              reserved_seconds)
          VALUES (${id}, ${spec.tenantId}, ${spec.jobId}, ${spec.agentId}, ${spec.voiceNumberId}, ${spec.provider},
            ${spec.fromNumber}, ${spec.toNumber}, ${spec.customerId}, ${spec.campaignId}, ${spec.campaignAttemptId},
            ${JSON.stringify(spec.metadata)}::jsonb, ${directionOf(spec)}, 'QUEUED', ${JSON.stringify(spec)}::jsonb,
            ${spec.currency}, ${reservedSeconds})
          ON CONFLICT (id) DO NOTHING
          RETURNING id
        ), event AS (
          INSERT INTO call_events (id, session_id, type, detail, at)
          SELECT ${uuidv7()}, id, 'queued', NULL, ${new Date(at)} FROM session
        )
        SELECT id FROM session
      `.pipe(Effect.map((rows) => rows.length > 0), Effect.orDie)

    /**
     * The new session, `QUEUED`, and its reservation, in one statement (the same wallet check a
     * campaign's claim makes for k calls, here for one): the wallet row locked first, its available
     * funds and open calls checked, the session with its `queued` event, the reservation under the
     * session's id, and the wallet's reserved funds and open calls. `"exists"` when the session was
     * inserted already (a repeat, or another instance): nothing is reserved again. Refused, nothing is
     * written (not even a first wallet).
     */
    const insertReserved = Effect.fn("CallSessionsRepo.insertReserved")(
      function*(id: SessionId, spec: CallSpec, reservedSeconds: number, at: number, reservation: CallReservation) {
        const { amount, concurrencyLimit: limit } = reservation
        const take = Rows.single(
          ReserveRow,
          sql`
          WITH w AS (
            SELECT balance, reserved, balance - reserved AS available, open_calls FROM wallets
              WHERE tenant_id = ${spec.tenantId} FOR UPDATE
          ), ok AS (
            SELECT 1 FROM w WHERE w.available >= ${amount} AND (${limit}::int IS NULL OR w.open_calls < ${limit}::int)
          ), session AS (
            INSERT INTO call_sessions (${sql.literal(SESSION_INSERT_COLUMNS)})
            SELECT ${sql.literal(SESSION_INSERT_COLUMNS)}
            FROM jsonb_populate_record(NULL::call_sessions, ${
            JSON.stringify(sessionRowOf(id, spec, reservedSeconds))
          }::jsonb), ok
            ON CONFLICT (id) DO NOTHING
            RETURNING id
          ), res AS (
            INSERT INTO reservations (id, tenant_id, amount, status, purpose)
            SELECT id::text, ${spec.tenantId}::uuid, ${amount}::bigint, 'open', 'call' FROM session
            ON CONFLICT (tenant_id, id) DO NOTHING
            RETURNING amount
          ), upd AS (
            -- from the locked row's values (w), not the statement's snapshot: see Ledger's WALLET_FROM_LOCK
            UPDATE wallets SET balance = w.balance, reserved = w.reserved + ${amount}, open_calls = w.open_calls + 1,
              updated_at = now()
            FROM w WHERE wallets.tenant_id = ${spec.tenantId} AND EXISTS (SELECT 1 FROM res)
          ), event AS (
            INSERT INTO call_events (id, session_id, type, detail, at)
            SELECT ${uuidv7()}, id, 'queued', NULL, ${new Date(at)} FROM session
          )
          SELECT (SELECT count(*) FROM session)::int AS inserted, (SELECT available FROM w) AS available,
                 (SELECT open_calls FROM w) AS open_calls
        `
        )
        const decide = (row: { inserted: number; openCalls: number | null }) =>
          Effect.gen(function*() {
            if (row.inserted === 1) return "inserted" as const
            const [existing] = yield* sql`SELECT 1 FROM call_sessions WHERE id = ${id}`
            if (existing !== undefined) return "exists" as const
            if (limit !== null && (row.openCalls ?? 0) >= limit) return yield* new ConcurrentCallLimit()
            return yield* new InsufficientFunds()
          })
        const row = yield* take
        if (row.available !== null) return yield* decide(row)
        // the wallet's first use: created and the call taken in one transaction, so a refusal leaves
        // no wallet behind
        return yield* Effect.gen(function*() {
          yield* sql`
            INSERT INTO wallets (tenant_id, currency) SELECT id, currency FROM tenants WHERE id = ${spec.tenantId}
            ON CONFLICT (tenant_id) DO NOTHING
          `
          return yield* decide(yield* take)
        }).pipe(sql.withTransaction)
      },
      Effect.catchTag("SqlError", Effect.die)
    )

    const storedCall = (row: SessionRow): StoredCall => ({
      spec: row.spec,
      state: stateOf(row),
      providerCallId: row.providerCallId,
      reservedSeconds: row.reservedSeconds,
      createdAt: row.createdAt,
      transcript: row.transcript.map(callLine),
      answeredBy: row.answeredBy ?? null,
      voicemail: row.voicemail ?? null
    })

    const load = (id: SessionId) =>
      Rows.findOne(SessionRow, sql`SELECT * FROM call_sessions WHERE id = ${id}`).pipe(
        Effect.map(Option.map(storedCall)),
        Effect.orDie
      )

    /**
     * An entity instance starting for a call not over takes the next owner epoch: from then on only
     * its writes apply, and an older instance still running elsewhere finds itself fenced off.
     * `None` when the call is over (or unknown); then there is nothing to own.
     */
    const claim = (id: SessionId) =>
      Rows.findOne(
        SessionRow,
        sql`UPDATE call_sessions SET owner_epoch = owner_epoch + 1 WHERE id = ${id} AND status <> 'ENDED' RETURNING *`
      ).pipe(
        Effect.map(Option.map((row) => ({ call: storedCall(row), epoch: row.ownerEpoch }))),
        Effect.orDie
      )

    /**
     * `claim`, or when there is nothing to own (the call is over, or unknown) what is stored: one
     * statement for an entity's start. A row ended by another instance while this one waited on its
     * lock may read as it was before; the epoch fences such an instance off at its first write.
     */
    const claimOrLoad = (id: SessionId) =>
      Rows.findOne(
        ClaimedRow,
        sql`
        WITH claimed AS (
          UPDATE call_sessions SET owner_epoch = owner_epoch + 1 WHERE id = ${id} AND status <> 'ENDED' RETURNING *
        )
        SELECT true AS claimed, * FROM claimed
        UNION ALL
        SELECT false AS claimed, * FROM call_sessions WHERE id = ${id} AND NOT EXISTS (SELECT 1 FROM claimed)
      `
      ).pipe(
        Effect.map(Option.match({
          onNone: () => ({ call: undefined, epoch: undefined }),
          onSome: (row) => ({ call: storedCall(row), epoch: row.claimed ? row.ownerEpoch : undefined })
        })),
        Effect.orDie
      )

    /**
     * Adds a line to a live call's transcript as it is said (a call that moves to another runner keeps
     * what was said), unless the call is over or another instance owns it now.
     */
    const appendLine = (id: SessionId, epoch: number, line: CallLine) =>
      sql`
        UPDATE call_sessions SET transcript = transcript || ${JSON.stringify([storedLine(line)])}::jsonb
        WHERE id = ${id} AND status <> 'ENDED' AND owner_epoch = ${epoch}
      `.pipe(Effect.asVoid, Effect.orDie)

    /** Adds an event to the call's log, unless another instance owns the call now. */
    const addEvent = (id: SessionId, epoch: number, type: string, at: number, detail: unknown = null) =>
      sql`
        INSERT INTO call_events (id, session_id, type, detail, at)
        SELECT ${uuidv7()}, id, ${type}, ${detailOf(detail)}::jsonb, ${new Date(at)}
        FROM call_sessions WHERE id = ${id} AND owner_epoch = ${epoch}
      `.pipe(Effect.asVoid, Effect.orDie)

    const findLog = Effect.fn("CallSessionsRepo.findLog")(
      function*(tenantId: TenantId, id: string) {
        const found = yield* Rows.findOne(
          SessionRow,
          sql`SELECT * FROM call_sessions WHERE id = ${id} AND tenant_id = ${tenantId}`
        )
        if (Option.isNone(found)) return Option.none<CallSession>()
        const row = found.value
        const events = yield* Rows.findAll(
          EventRow,
          sql`SELECT type, at, detail FROM call_events WHERE session_id = ${id} ORDER BY at, id`
        )
        return Option.some(
          new CallSession({
            ...logFields(row),
            transcript: row.transcript.map((t) => transcriptLine(callLine(t))),
            events: events.map((e) => ({ type: e.type, at: e.at, detail: e.detail ?? null }))
          }, Rows.validated)
        )
      },
      Effect.orDie
    )

    const list = (tenantId: TenantId, filter: CallLogFilter, page: PageRequest) => {
      const conditions = [
        sql`tenant_id = ${tenantId}`,
        ...(filter.agentId === undefined ? [] : [sql`agent_id = ${filter.agentId}`]),
        ...(filter.campaignId === undefined ? [] : [sql`campaign_id = ${filter.campaignId}`]),
        ...(filter.status === undefined
          ? []
          : [sql`(status = ${filter.status} OR outcome = ${filter.status})`]),
        ...(filter.from === undefined ? [] : [sql`created_at >= ${filter.from}`]),
        ...(filter.to === undefined ? [] : [sql`created_at < ${filter.to}`])
      ]
      const where = sql.and(conditions)
      return Rows.page(
        SessionRow,
        sql`
          SELECT * FROM call_sessions WHERE ${where}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM call_sessions WHERE ${where}`
      ).pipe(
        Effect.map(({ items, total }) => ({
          items: items.map((r) =>
            new CallLog({
              ...logFields(r),
              ...(filter.includeTranscript === true
                ? { transcript: r.transcript.map((t) => transcriptLine(callLine(t))) }
                : {})
            }, Rows.validated)
          ),
          total
        }))
      )
    }

    /** Calls not ended, oldest first: the supervisor makes sure each has a running entity. */
    const live = (limit: number) =>
      Rows.findAll(IdRow, sql`SELECT id FROM call_sessions WHERE status <> 'ENDED' ORDER BY id LIMIT ${limit}`).pipe(
        Effect.map((rows) => rows.map((r) => r.id)),
        Effect.orDie
      )

    return { insert, insertReserved, load, claim, claimOrLoad, appendLine, addEvent, findLog, list, live } as const
  })
}) {}

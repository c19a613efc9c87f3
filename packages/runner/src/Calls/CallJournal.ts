/**
 * The live calls' writes of one runner, group-committed (issue 18, R5; docs/decisions/
 * 0017-group-committed-dial-write-path.md). Every `LiveCall` entity of the runner hands its session writes to this
 * journal, whose one writer fiber takes whatever is pending and writes it in a statement per kind, so calls that move
 * at the same time share their statements:
 *
 * - `dial`: `QUEUED` → `DIALING` with its event, the campaign attempt's dial time and the campaign's
 *   count of contacts dialed. Awaited: the carrier is asked only once it is durable. Only a session
 *   still `QUEUED` moves (a session past it is never dialled again), under the caller's owner epoch,
 *   or taking the next one (a call started from its claimed row without reading it first).
 * - `note`: what a live call learns as it goes (ringing, answered, the carrier's call id, a
 *   reservation extended), coalesced per session and not awaited: written with the next awaited
 *   flush or after `NOTE_DELAY`, whichever comes first, and folded into the call's end when that comes
 *   first. A crash loses only these, and a call resumed elsewhere asks its carrier where it stands.
 *   `write` is the awaited form (a reservation extension: what was held is billed from it).
 * - `end`: `ENDED` with the call's figures and events, the campaign attempt's outcome, its contact's
 *   next step and the campaign's counters, in one statement; with the call-ended listeners' outbox rows
 *   in the same transaction when a listener wants the call (most find nothing, from a cache, and then
 *   there is no transaction). Then each tenant of the calls ended settles them (`Tenant.SettleEnded`,
 *   one request per tenant and flush, not per call). Awaited: the end is acknowledged once durable and
 *   settled.
 *
 * Every write is guarded by the session's owner epoch, as a single one was: an instance of the call
 * fenced off by a newer one writes nothing. A statement that fails fails only what it carried: the
 * batch is written again one request at a time, so a bad row fails its own caller.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { CallState } from "@voiceagent/domain/CallMachine"
import type { SessionId } from "@voiceagent/domain/Calls"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import { CallEnded, type CallEndedEvent } from "../CallRecords/CallEnded.js"
import { type CallLine, storedLine } from "../CallRecords/CallSessionsRepo.js"
import { ATTEMPTS_DIALED_CTES, ATTEMPTS_ENDED_CTES } from "../Campaigns/CampaignsRepo.js"
import { deliver } from "../Cluster/Deliver.js"
import * as Rows from "../Sql/Rows.js"

/** How long informational writes wait to be coalesced (and folded into an end that follows). */
export const NOTE_DELAY_MILLIS = 20

type LiveState = Exclude<CallState, { readonly status: "QUEUED" | "ENDED" }>
type EndedState = Extract<CallState, { readonly status: "ENDED" }>

/** A line of the call's log (`call_events`). */
export interface JournalEvent {
  readonly type: string
  readonly at: number
  readonly detail?: unknown
}

export interface NoteRequest {
  readonly sessionId: SessionId
  readonly epoch: number
  /** Where the live call stands now (the latest note's state is the one written). */
  readonly state?: LiveState | undefined
  readonly providerCallId?: string | undefined
  readonly reservedSeconds?: number | undefined
  readonly event?: JournalEvent | undefined
  /** Run when the note finds the call owned by a newer instance (or over): nothing of it was written. */
  readonly onRefused?: Effect.Effect<void> | undefined
}

export interface EndRequest {
  readonly sessionId: SessionId
  readonly epoch: number
  readonly state: EndedState
  /** When the call started, for an attempt that has no dial time yet. */
  readonly startedAt: number
  readonly durationSeconds: number
  readonly billedSeconds: number
  readonly cost: number
  readonly transcript: ReadonlyArray<CallLine>
  readonly providerCallId: string | null
  /** What the call-ended listeners are given. */
  readonly event: CallEndedEvent
}

interface EventRow {
  readonly id: string
  readonly session_id: string
  readonly type: string
  readonly detail: unknown
  readonly at: string
}

interface PendingNote {
  readonly sessionId: SessionId
  epoch: number
  state: LiveState | undefined
  providerCallId: string | undefined
  reservedSeconds: number | undefined
  readonly events: Array<EventRow>
  readonly refused: Array<Effect.Effect<void>>
  readonly waiters: Array<Deferred.Deferred<boolean>>
}

interface PendingDial {
  readonly sessionId: SessionId
  readonly epoch: number | null
  readonly at: number
  readonly done: Deferred.Deferred<number | null>
}

interface PendingEnd {
  readonly request: EndRequest
  /** Whether a call-ended listener writes for it (then the end is a transaction). */
  readonly wanted: boolean
  readonly done: Deferred.Deferred<boolean>
}

interface Batch {
  readonly dials: Array<PendingDial>
  readonly notes: Map<string, PendingNote>
  readonly ends: Array<PendingEnd>
  /** Awaited writes (and `flushed` callers) in the batch: it is written without waiting for `NOTE_DELAY`. */
  waiting: number
  /** Done once the batch's flush is over (written or failed). */
  readonly done: Deferred.Deferred<void>
}

const emptyBatch = (): Batch => ({
  dials: [],
  notes: new Map(),
  ends: [],
  waiting: 0,
  done: Deferred.unsafeMake(FiberId.none)
})

const batchHolds = (batch: Batch, sessionId: string) =>
  batch.notes.has(sessionId) || batch.dials.some((d) => d.sessionId === sessionId) ||
  batch.ends.some((e) => e.request.sessionId === sessionId)

const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString()

const eventRow = (sessionId: string, event: JournalEvent): EventRow => ({
  id: uuidv7(),
  session_id: sessionId,
  type: event.type,
  detail: event.detail === undefined ? null : event.detail,
  at: new Date(event.at).toISOString()
})

const EVENT_COLUMNS = "y(id uuid, session_id uuid, type text, detail jsonb, at timestamptz)"

/**
 * The statements' answers, decoded narrowly (they run for every dial, note and end): the ids are only
 * compared with the requests' own, so they are checked as strings.
 */
const DialedRow = Schema.Struct({ id: Schema.String, epoch: Schema.Int })
const WrittenRow = Schema.Struct({ id: Schema.String })

export class CallJournal extends Effect.Service<CallJournal>()("Calls/CallJournal", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const callEnded = yield* CallEnded
    const tenants = yield* TenantEntity.client
    const scope = yield* Effect.scope

    // -----------------------------------------------------------------------
    // The statements, each for a whole batch
    // -----------------------------------------------------------------------

    const dialStatement = (dials: ReadonlyArray<PendingDial>) =>
      Rows.findAll(
        DialedRow,
        sql`
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(${
          JSON.stringify(dials.map((d) => ({ id: d.sessionId, epoch: d.epoch, at: iso(d.at), event_id: uuidv7() })))
        }::jsonb)
            AS x(id uuid, epoch int, at timestamptz, event_id uuid)
        ), s AS (
          UPDATE call_sessions c SET status = 'DIALING', dialed_at = x.at, updated_at = now(),
            owner_epoch = CASE WHEN x.epoch IS NULL THEN c.owner_epoch + 1 ELSE c.owner_epoch END
          FROM x
          WHERE c.id = x.id AND c.status = 'QUEUED' AND (x.epoch IS NULL OR c.owner_epoch = x.epoch)
          RETURNING c.id, c.owner_epoch, c.campaign_attempt_id, x.at, x.event_id
        ), ev AS (
          INSERT INTO call_events (id, session_id, type, detail, at) SELECT event_id, id, 'dialing', NULL, at FROM s
        ), dialed AS (
          SELECT campaign_attempt_id, at AS dialed_at FROM s WHERE campaign_attempt_id IS NOT NULL
        ), ${sql.literal(ATTEMPTS_DIALED_CTES)}
        SELECT id, owner_epoch AS epoch FROM s
      `
      )

    const noteStatement = (notes: ReadonlyArray<PendingNote>) =>
      Rows.findAll(
        WrittenRow,
        sql`
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(${
          JSON.stringify(notes.map((n) => ({
            id: n.sessionId,
            epoch: n.epoch,
            status: n.state?.status ?? null,
            dialed_at: n.state === undefined ? null : iso(n.state.dialedAt),
            ringing_at: n.state === undefined || n.state.status === "DIALING" ? null : iso(n.state.ringingAt),
            answered_at: n.state === undefined || n.state.status !== "IN_PROGRESS" ? null : iso(n.state.answeredAt),
            provider_call_id: n.providerCallId ?? null,
            reserved_seconds: n.reservedSeconds ?? null
          })))
        }::jsonb) AS x(id uuid, epoch int, status text, dialed_at timestamptz, ringing_at timestamptz,
            answered_at timestamptz, provider_call_id text, reserved_seconds int)
        ), s AS (
          UPDATE call_sessions c SET
            status = COALESCE(x.status, c.status),
            dialed_at = CASE WHEN x.status IS NULL THEN c.dialed_at ELSE x.dialed_at END,
            ringing_at = CASE WHEN x.status IS NULL THEN c.ringing_at ELSE x.ringing_at END,
            answered_at = CASE WHEN x.status IS NULL THEN c.answered_at ELSE x.answered_at END,
            provider_call_id = COALESCE(x.provider_call_id, c.provider_call_id),
            reserved_seconds = COALESCE(x.reserved_seconds, c.reserved_seconds),
            updated_at = now()
          FROM x WHERE c.id = x.id AND c.status <> 'ENDED' AND c.owner_epoch = x.epoch
          RETURNING c.id
        ), ev AS (
          INSERT INTO call_events (id, session_id, type, detail, at)
          SELECT y.id, y.session_id, y.type, y.detail, y.at
          FROM jsonb_to_recordset(${JSON.stringify(notes.flatMap((n) => n.events))}::jsonb) AS ${
          sql.literal(EVENT_COLUMNS)
        }
          WHERE y.session_id IN (SELECT id FROM s)
        )
        SELECT id FROM s
      `
      )

    const endStatement = (ends: ReadonlyArray<PendingEnd>, notes: ReadonlyMap<string, PendingNote>) =>
      Rows.findAll(
        WrittenRow,
        sql`
        WITH x AS (
          SELECT * FROM jsonb_to_recordset(${
          JSON.stringify(ends.map(({ request: r }) => {
            const note = notes.get(r.sessionId)
            return {
              id: r.sessionId,
              epoch: r.epoch,
              outcome: r.state.outcome,
              end_reason: r.state.reason,
              dialed_at: iso(r.state.dialedAt),
              ringing_at: iso(r.state.ringingAt),
              answered_at: iso(r.state.answeredAt),
              ended_at: iso(r.state.endedAt),
              started_at: iso(r.startedAt),
              duration_seconds: r.durationSeconds,
              billed_seconds: r.billedSeconds,
              cost: r.cost,
              transcript: r.transcript.map(storedLine),
              provider_call_id: r.providerCallId ?? note?.providerCallId ?? null,
              reserved_seconds: note?.reservedSeconds ?? null
            }
          }))
        }::jsonb) AS x(id uuid, epoch int, outcome text, end_reason text, dialed_at timestamptz, ringing_at timestamptz,
            answered_at timestamptz, ended_at timestamptz, started_at timestamptz, duration_seconds int,
            billed_seconds int, cost bigint, transcript jsonb, provider_call_id text, reserved_seconds int)
        ), s AS (
          UPDATE call_sessions c SET
            status = 'ENDED', outcome = x.outcome, end_reason = x.end_reason, dialed_at = x.dialed_at,
            ringing_at = x.ringing_at, answered_at = x.answered_at, ended_at = x.ended_at,
            duration_seconds = x.duration_seconds, billed_seconds = x.billed_seconds, cost = x.cost,
            transcript = x.transcript, provider_call_id = COALESCE(x.provider_call_id, c.provider_call_id),
            reserved_seconds = COALESCE(x.reserved_seconds, c.reserved_seconds), updated_at = now()
          FROM x WHERE c.id = x.id AND c.status <> 'ENDED' AND c.owner_epoch = x.epoch
          RETURNING c.id, c.campaign_attempt_id, x.outcome, x.ended_at, x.started_at
        ), ev AS (
          INSERT INTO call_events (id, session_id, type, detail, at)
          SELECT y.id, y.session_id, y.type, y.detail, y.at
          FROM jsonb_to_recordset(${
          JSON.stringify(ends.flatMap(({ request: r }) => [
            ...(notes.get(r.sessionId)?.events ?? []),
            eventRow(r.sessionId, {
              type: "ended",
              at: r.state.endedAt,
              detail: { outcome: r.state.outcome, reason: r.state.reason, cost: r.cost }
            })
          ]))
        }::jsonb) AS ${sql.literal(EVENT_COLUMNS)}
          WHERE y.session_id IN (SELECT id FROM s)
        ), ended AS (
          SELECT campaign_attempt_id, outcome, ended_at, started_at FROM s WHERE campaign_attempt_id IS NOT NULL
        ), ${sql.literal(ATTEMPTS_ENDED_CTES)}
        SELECT id FROM s
      `
      )

    // -----------------------------------------------------------------------
    // Flushing a batch
    // -----------------------------------------------------------------------

    /**
     * Runs `write` for the whole batch; when it fails, once per item, so that only the items whose
     * own write fails get the failure (`settle` is given the failure as an exit).
     */
    const eachOrAll = <A, B>(
      items: ReadonlyArray<A>,
      write: (items: ReadonlyArray<A>) => Effect.Effect<B, unknown>,
      settle: (items: ReadonlyArray<A>, result: Exit.Exit<B, unknown>) => Effect.Effect<void>
    ): Effect.Effect<void> =>
      Effect.exit(write(items)).pipe(
        Effect.flatMap((exit) =>
          Exit.isSuccess(exit) || items.length === 1
            ? settle(items, exit)
            : Effect.logWarning("a batch of call writes failed: writing them one at a time", exit.cause).pipe(
              Effect.zipRight(Effect.forEach(items, (item) =>
                Effect.flatMap(Effect.exit(write([item])), (one) =>
                  settle([item], one)), { discard: true }))
            )
        )
      )

    /** A failed write, as its callers get it: a defect (a `SqlError` stays one, so an outage is told apart). */
    const dieWith = (exit: Exit.Exit<unknown, unknown>) =>
      Exit.die(Exit.isFailure(exit) ? Cause.squash(exit.cause) : exit)

    const flushDials = (dials: ReadonlyArray<PendingDial>) =>
      eachOrAll(dials, dialStatement, (items, exit) =>
        Exit.isSuccess(exit)
          ? Effect.forEach(items, (d) => {
            const row = exit.value.find((r) => r.id === d.sessionId)
            return Deferred.succeed(d.done, row === undefined ? null : row.epoch)
          }, { discard: true })
          : Effect.forEach(items, (d) => Deferred.done(d.done, dieWith(exit)), { discard: true }))

    const flushNotes = (notes: ReadonlyArray<PendingNote>) =>
      eachOrAll(notes, noteStatement, (items, exit) =>
        Effect.forEach(items, (n) => {
          if (Exit.isFailure(exit)) {
            return Effect.zipRight(
              Effect.logWarning("a call's note could not be written", exit.cause),
              Effect.forEach(n.waiters, (w) => Deferred.done(w, dieWith(exit)), { discard: true })
            )
          }
          const written = exit.value.some((r) => r.id === n.sessionId)
          return Effect.zipRight(
            written ? Effect.void : Effect.all(n.refused, { discard: true }),
            Effect.forEach(n.waiters, (w) => Deferred.succeed(w, written), { discard: true })
          )
        }, { discard: true }))

    /** The end statement, with the listeners' outbox rows in its transaction when one wants a call. */
    const writeEnds = (notes: ReadonlyMap<string, PendingNote>) => (ends: ReadonlyArray<PendingEnd>) => {
      const statement = endStatement(ends, notes)
      if (!ends.some((e) => e.wanted)) return statement
      return Effect.gen(function*() {
        const rows = yield* statement
        for (const end of ends) {
          if (end.wanted && rows.some((r) => r.id === end.request.sessionId)) {
            yield* callEnded.publish(end.request.event)
          }
        }
        return rows
      }).pipe(sql.withTransaction)
    }

    /**
     * The tenants of the calls this flush ended settle them, one request per tenant (its entity settles
     * every ENDED call of the tenant in one statement); each call's `end` answers once its tenant has.
     * Forked: the next flush does not wait for the settlements. Lost with this runner, the ledger's sweep
     * settles them.
     */
    const settle = (ended: ReadonlyArray<PendingEnd>) => {
      const byTenant = new Map<string, Array<PendingEnd>>()
      for (const end of ended) {
        const tenantId = end.request.event.tenantId
        byTenant.set(tenantId, [...(byTenant.get(tenantId) ?? []), end])
      }
      return Effect.forEach(byTenant, ([tenantId, ends]) =>
        deliver(tenants(tenantId).SettleEnded()).pipe(
          Effect.orDie,
          Effect.as(true),
          Effect.exit,
          Effect.flatMap((exit) => Effect.forEach(ends, (e) => Deferred.done(e.done, exit), { discard: true })),
          Effect.forkIn(scope)
        ), { discard: true })
    }

    const flushEnds = (ends: ReadonlyArray<PendingEnd>, notes: ReadonlyMap<string, PendingNote>) =>
      eachOrAll(ends, writeEnds(notes), (items, exit) =>
        Effect.gen(function*() {
          const ended: Array<PendingEnd> = []
          for (const e of items) {
            const note = notes.get(e.request.sessionId)
            if (Exit.isFailure(exit)) {
              yield* Deferred.done(e.done, dieWith(exit))
              yield* Effect.forEach(note?.waiters ?? [], (w) => Deferred.done(w, dieWith(exit)), { discard: true })
              continue
            }
            const wrote = exit.value.some((r) => r.id === e.request.sessionId)
            if (wrote) ended.push(e)
            else yield* Deferred.succeed(e.done, false)
            yield* Effect.forEach(note?.waiters ?? [], (w) => Deferred.succeed(w, wrote), { discard: true })
          }
          yield* settle(ended)
        }))

    const flush = (batch: Batch) =>
      Effect.gen(function*() {
        if (batch.dials.length > 0) yield* flushDials(batch.dials)
        const ending = new Set(batch.ends.map((e) => e.request.sessionId as string))
        const live = [...batch.notes.values()].filter((n) => !ending.has(n.sessionId))
        if (live.length > 0) yield* flushNotes(live)
        if (batch.ends.length > 0) yield* flushEnds(batch.ends, batch.notes)
      })

    // -----------------------------------------------------------------------
    // The writer
    // -----------------------------------------------------------------------

    let pending = emptyBatch()
    /** The batch being written, while one is. */
    let inFlight: Batch | undefined
    /** Something is pending. */
    const work = yield* Queue.sliding<void>(1)
    /** Something awaited is pending: notes waiting for their delay are written now. */
    const urgent = yield* Queue.sliding<void>(1)
    const isUrgent = () => pending.dials.length > 0 || pending.ends.length > 0 || pending.waiting > 0
    const isEmpty = () => !isUrgent() && pending.notes.size === 0

    const signal = (awaited: boolean) =>
      Effect.zipRight(Queue.offer(work, undefined), awaited ? Queue.offer(urgent, undefined) : Effect.void)

    const failPending = (batch: Batch) =>
      Effect.all([
        Effect.forEach(batch.dials, (d) => Deferred.interrupt(d.done), { discard: true }),
        Effect.forEach(batch.ends, (e) => Deferred.interrupt(e.done), { discard: true }),
        Effect.forEach(batch.notes.values(), (n) => Effect.forEach(n.waiters, Deferred.interrupt, { discard: true }), {
          discard: true
        }),
        Deferred.done(batch.done, Exit.void)
      ], { discard: true })

    yield* Effect.gen(function*() {
      for (;;) {
        yield* Queue.take(work)
        // a signal left by what the last flush took already
        if (isEmpty()) continue
        if (!isUrgent()) {
          yield* Queue.takeAll(urgent)
          if (!isUrgent()) yield* Effect.raceFirst(Queue.take(urgent), Effect.sleep(NOTE_DELAY_MILLIS))
        }
        const batch = pending
        pending = emptyBatch()
        inFlight = batch
        yield* flush(batch).pipe(
          Effect.onInterrupt(() => failPending(batch)),
          Effect.catchAllCause((cause) => Effect.logError("the call journal's flush failed", cause)),
          Effect.ensuring(Effect.suspend(() => {
            inFlight = undefined
            return Deferred.done(batch.done, Exit.void)
          }))
        )
      }
    }).pipe(
      Effect.onInterrupt(() => Effect.suspend(() => failPending(pending))),
      Effect.forkScoped
    )

    const noteOf = (request: NoteRequest): PendingNote => {
      let note = pending.notes.get(request.sessionId)
      if (note === undefined) {
        note = {
          sessionId: request.sessionId,
          epoch: request.epoch,
          state: undefined,
          providerCallId: undefined,
          reservedSeconds: undefined,
          events: [],
          refused: [],
          waiters: []
        }
        pending.notes.set(request.sessionId, note)
      }
      note.epoch = request.epoch
      if (request.state !== undefined) note.state = request.state
      if (request.providerCallId !== undefined) note.providerCallId = request.providerCallId
      if (request.reservedSeconds !== undefined) note.reservedSeconds = request.reservedSeconds
      if (request.event !== undefined) note.events.push(eventRow(request.sessionId, request.event))
      if (request.onRefused !== undefined) note.refused.push(request.onRefused)
      return note
    }

    /** Whether this journal has writes of the call not yet written (pending, or being written). */
    const holds = (sessionId: SessionId) =>
      batchHolds(pending, sessionId) || (inFlight !== undefined && batchHolds(inFlight, sessionId))

    return {
      holds,
      /**
       * Waits until every write of the call handed to this journal so far is over (written or failed),
       * without waiting for `NOTE_DELAY`: what a re-read of the call's row waits for, so that a call's
       * entity started again on this runner reads what its stopped instance noted (and claims the call
       * after those notes, which are written under the epoch it had). At once when nothing is held.
       */
      flushed: (sessionId: SessionId): Effect.Effect<void> =>
        Effect.suspend(() => {
          if (batchHolds(pending, sessionId)) {
            const batch = pending
            batch.waiting++
            return Effect.zipRight(signal(true), Deferred.await(batch.done))
          }
          return inFlight !== undefined && batchHolds(inFlight, sessionId) ? Deferred.await(inFlight.done) : Effect.void
        }),
      /**
       * Writes the call `DIALING` (from `QUEUED` only), awaited. `epoch` is the caller's owner epoch;
       * `null` takes the next one. Answers the epoch the call is owned under, or `null` when it was not
       * written: the session is past `QUEUED`, gone, or owned by another instance.
       */
      dial: (sessionId: SessionId, epoch: number | null, at: number): Effect.Effect<number | null> =>
        Effect.flatMap(Deferred.make<number | null>(), (done) =>
          Effect.suspend(() => {
            pending.dials.push({ sessionId, epoch, at, done })
            return Effect.zipRight(signal(true), Deferred.await(done))
          })),
      /** Queues an informational write (not awaited). */
      note: (request: NoteRequest): Effect.Effect<void> =>
        Effect.suspend(() => {
          noteOf(request)
          return signal(false)
        }),
      /** The same, awaited: answers whether it was written (false: the call is over or owned elsewhere). */
      write: (request: NoteRequest): Effect.Effect<boolean> =>
        Effect.flatMap(Deferred.make<boolean>(), (done) =>
          Effect.suspend(() => {
            noteOf(request).waiters.push(done)
            pending.waiting++
            return Effect.zipRight(signal(true), Deferred.await(done))
          })),
      /**
       * Writes the call's end (and what its listeners write), awaited, then has its tenant settle it:
       * answers whether this wrote it (false: it was over already, or another instance owns the call,
       * and settles it).
       */
      end: Effect.fn("CallJournal.end")(
        function*(request: EndRequest) {
          const wanted = yield* callEnded.wants(request.event)
          const done = yield* Deferred.make<boolean>()
          pending.ends.push({ request, wanted, done })
          yield* signal(true)
          return yield* Deferred.await(done)
        }
      )
    } as const
  })
}) {}

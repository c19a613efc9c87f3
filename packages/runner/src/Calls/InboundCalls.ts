/**
 * Incoming calls (docs/calls.md, "Inbound calls"). A carrier's signed incoming-call webhook names the
 * number called; `InboundCallsRepo.route` finds the tenant's voice number and the active agent whose
 * voice settings name it, and `sessionFor` gives the carrier's call one session however often the
 * carrier sends the webhook again. The call's `LiveCall` then answers it (`makeInbound`, the entity's
 * `Answer`): it holds the funds and counts against the concurrent-call limit as an outgoing call does,
 * and is answered and streamed to the agent; or, with no funds or no room, it is recorded as an ended
 * `FAILED` call (`insufficient_funds`, `concurrent_call_limit`) and turned away. A caller whose number
 * is one of the tenant's contacts is that contact (`customerId`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { InsufficientFunds } from "@voiceagent/domain/Billing"
import { CallEvent, type CallState } from "@voiceagent/domain/CallMachine"
import {
  type CallProvider,
  type CallSpec,
  type InboundAnswer,
  LiveCallEntity,
  type MediaRoute,
  SessionId
} from "@voiceagent/domain/Calls"
import { AgentId, ContactId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { PhoneProvider } from "@voiceagent/domain/Phone"
import type { ConcurrentCallLimit } from "@voiceagent/domain/TenantEntity"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import type { StoredCall } from "../CallRecords/CallSessionsRepo.js"
import { CallSpecs } from "../CallRecords/CallSpecs.js"
import type { Carrier } from "../Ports/Telephony.js"
import * as Rows from "../Sql/Rows.js"

/** Who takes a call to a number: the tenant, its agent, and the voice number. */
export interface InboundRoute {
  readonly tenantId: TenantId
  readonly agentId: AgentId
  readonly voiceNumber: { readonly id: VoiceNumberId; readonly provider: PhoneProvider; readonly phoneNumber: string }
}

/** The carriers whose incoming calls are taken, as `inbound_calls.carrier`. */
export type InboundCarrier = "twilio" | "telnyx"

const RouteRow = Schema.Struct({
  tenantId: TenantId,
  agentId: AgentId,
  voiceNumberId: VoiceNumberId,
  provider: PhoneProvider,
  phoneNumber: Schema.String
})

const SessionIdRow = Schema.Struct({ sessionId: SessionId })

const ContactIdRow = Schema.Struct({ id: ContactId })

export class InboundCallsRepo extends Effect.Service<InboundCallsRepo>()("Calls/InboundCallsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * The voice number `phoneNumber` and the active agent of the same tenant whose voice settings name
     * it (with the number's provider; the oldest agent when several do). None when no tenant has such
     * an agent, or when more than one tenant does (a number registered twice is answered by nobody).
     */
    const route = (phoneNumber: string) =>
      Rows.findAll(
        RouteRow,
        sql`
        SELECT DISTINCT ON (v.tenant_id) v.tenant_id, a.id AS agent_id, v.id
          AS voice_number_id, v.provider, v.phone_number
        FROM voice_numbers v
        JOIN agents a ON a.tenant_id = v.tenant_id
          AND a.settings ->> 'phone_number' = v.phone_number AND a.settings ->> 'phone_provider' = v.provider
        WHERE v.phone_number = ${phoneNumber} AND a.is_active AND a.channel = 'VOICE'
        ORDER BY v.tenant_id, a.id
        LIMIT 2
      `
      ).pipe(
        Effect.flatMap((rows) => {
          if (rows.length > 1) {
            return Effect.as(
              Effect.logWarning("an incoming call's number is assigned in more than one tenant: not answered").pipe(
                Effect.annotateLogs({ phoneNumber })
              ),
              Option.none<InboundRoute>()
            )
          }
          return Effect.succeed(Option.map(Option.fromNullable(rows[0]), (row): InboundRoute => ({
            tenantId: row.tenantId,
            agentId: row.agentId,
            voiceNumber: {
              id: row.voiceNumberId,
              provider: row.provider,
              phoneNumber: row.phoneNumber
            }
          })))
        }),
        Effect.orDie
      )

    /**
     * The session of the carrier's call: a new one the first time, the same one every time after. Two
     * webhooks racing: the second's insert waits for the first's and does nothing, and a read in the
     * same statement cannot see the first's row (its snapshot is older), so the row is read again in a
     * statement of its own.
     */
    const sessionFor = Effect.fn("InboundCallsRepo.sessionFor")(
      function*(carrier: InboundCarrier, carrierCallId: string, tenantId: TenantId) {
        // a row found neither way was forgotten in between (a call not taken after all): insert again
        for (let attempt = 1;; attempt++) {
          const inserted = yield* Rows.findOne(
            SessionIdRow,
            sql`
            INSERT INTO inbound_calls (carrier, carrier_call_id, session_id, tenant_id)
            VALUES (${carrier}, ${carrierCallId}, ${uuidv7()}, ${tenantId})
            ON CONFLICT (carrier, carrier_call_id) DO NOTHING
            RETURNING session_id
          `
          )
          if (Option.isSome(inserted)) return inserted.value.sessionId
          const existing = yield* Rows.findOne(
            SessionIdRow,
            sql`SELECT session_id FROM inbound_calls WHERE carrier = ${carrier} AND carrier_call_id = ${carrierCallId}`
          )
          if (Option.isSome(existing)) return existing.value.sessionId
          if (attempt === 3) {
            return yield* Effect.dieMessage(`inbound call ${carrier}:${carrierCallId}: neither inserted nor found`)
          }
        }
      },
      Effect.orDie
    )

    /** The session of a carrier's call taken here before, if any. */
    const sessionOf = (carrier: InboundCarrier, carrierCallId: string) =>
      Rows.findOne(
        SessionIdRow,
        sql`SELECT session_id FROM inbound_calls WHERE carrier = ${carrier} AND carrier_call_id = ${carrierCallId}`
      ).pipe(Effect.map(Option.map((r) => r.sessionId)), Effect.orDie)

    /** The tenant's contact with the caller's number (the newest, when several lists have it). */
    const contactOf = (tenantId: TenantId, phoneNumber: string) =>
      Rows.findOne(
        ContactIdRow,
        sql`
        SELECT id FROM contacts WHERE tenant_id = ${tenantId} AND phone_number = ${phoneNumber} ORDER BY id DESC LIMIT 1
      `
      ).pipe(Effect.map(Option.match({ onNone: () => null, onSome: (row) => row.id })), Effect.orDie)

    /** Forgets a call that was not taken after all (its number's provider is another carrier's). */
    const forget = (carrier: InboundCarrier, carrierCallId: string) =>
      sql`DELETE FROM inbound_calls WHERE carrier = ${carrier} AND carrier_call_id = ${carrierCallId}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    return { route, sessionFor, sessionOf, contactOf, forget } as const
  })
}) {}

/**
 * What the `LiveCall` entity lends its `Answer` handler, which runs holding the entity's lock: `H` is
 * the lock, held (the holder's state).
 */
export interface InboundEntity<H> {
  readonly sessionId: SessionId
  readonly get: (held: H) => Effect.Effect<StoredCall | undefined>
  readonly set: (held: H, call: StoredCall) => Effect.Effect<void>
  /** The entity's `Start`: holds the funds, writes the session. */
  readonly start: (held: H, spec: CallSpec) => Effect.Effect<unknown, InsufficientFunds | ConcurrentCallLimit>
  readonly applyUnlocked: (held: H, event: CallEvent) => Effect.Effect<void>
  readonly save: (state: CallState, extra: { providerCallId?: string }) => Effect.Effect<void>
  /** Waits until the runner's journal has written what it holds of the call (its noted state). */
  readonly written: Effect.Effect<void>
  readonly mediaRoute: Effect.Effect<MediaRoute | null>
  /** Settles and writes the end (with the call-ended outbox). */
  readonly finish: (held: H) => Effect.Effect<void>
  /** Writes the session, holding nothing; false when it exists. */
  readonly insert: (spec: CallSpec, at: number) => Effect.Effect<boolean>
  readonly addEvent: (type: string, at: number, detail: unknown) => Effect.Effect<void>
  readonly carrier: (provider: CallProvider) => Carrier
}

type RefusalReason = Extract<InboundAnswer, { _tag: "Refused" }>["reason"]

const isRefusal = (reason: string): reason is RefusalReason =>
  reason === "insufficient_funds" || reason === "concurrent_call_limit"

const answerOfEnded = (state: CallState): InboundAnswer =>
  state.status === "ENDED" && isRefusal(state.reason)
    ? { _tag: "Refused", reason: state.reason }
    : { _tag: "Connected", route: null }

export const makeInbound = <H>(entity: InboundEntity<H>) => {
  const refuse = (held: H, spec: CallSpec, providerCallId: string, reason: RefusalReason) =>
    Effect.gen(function*() {
      const at = yield* Clock.currentTimeMillis
      if (!(yield* entity.insert(spec, at))) return { _tag: "Refused", reason } as const
      yield* entity.set(held, {
        spec,
        state: {
          status: "ENDED",
          outcome: "FAILED",
          reason,
          dialedAt: null,
          ringingAt: null,
          answeredAt: null,
          endedAt: at
        },
        providerCallId,
        reservedSeconds: 0,
        createdAt: new Date(at),
        transcript: []
      })
      yield* entity.addEvent("refused", at, { reason })
      yield* entity.finish(held)
      const refuseAtCarrier = entity.carrier(spec.provider).refuse
      if (refuseAtCarrier !== undefined) yield* refuseAtCarrier(providerCallId, reason)
      yield* Effect.logInfo("incoming call refused").pipe(Effect.annotateLogs({ tenantId: spec.tenantId, reason }))
      return { _tag: "Refused", reason } as const
    })

  const answer = (
    held: H,
    payload: { readonly spec: CallSpec; readonly providerCallId: string; readonly carrier: string }
  ): Effect.Effect<InboundAnswer> =>
    Effect.gen(function*() {
      const { providerCallId, spec } = payload
      if ((yield* entity.get(held)) === undefined) {
        // a number whose provider another carrier serves: its hang-ups and status would go astray
        const serving = entity.carrier(spec.provider).name
        if (serving !== payload.carrier) {
          yield* Effect.logWarning("an incoming call came from a carrier that does not serve the number's provider")
            .pipe(
              Effect.annotateLogs({ tenantId: spec.tenantId, provider: spec.provider, serving, from: payload.carrier })
            )
          return { _tag: "NotServed" } as const
        }
        const started = yield* Effect.either(entity.start(held, spec))
        if (started._tag === "Left") {
          return yield* refuse(
            held,
            spec,
            providerCallId,
            started.left._tag === "InsufficientFunds" ? "insufficient_funds" : "concurrent_call_limit"
          )
        }
      }
      const now = Clock.currentTimeMillis
      if ((yield* entity.get(held))!.state.status === "QUEUED") {
        yield* entity.applyUnlocked(held, CallEvent.Dial({ at: yield* now }))
      }
      const call = (yield* entity.get(held))!
      const carrier = entity.carrier(call.spec.provider)
      if (call.state.status === "DIALING" || call.state.status === "RINGING") {
        yield* entity.set(held, { ...call, providerCallId })
        yield* entity.save(call.state, { providerCallId })
        const route = yield* entity.mediaRoute
        if (carrier.answer !== undefined) {
          const answered = yield* Effect.either(
            carrier.answer({ sessionId: entity.sessionId, providerCallId, media: route ?? undefined })
          )
          if (answered._tag === "Left") {
            const at = yield* now
            yield* entity.addEvent("answer_refused", at, { reason: answered.left.reason })
            yield* entity.applyUnlocked(held, CallEvent.DialFailed({ at }))
            return { _tag: "Connected", route: null } as const
          }
        }
        yield* entity.applyUnlocked(held, CallEvent.Answered({ at: yield* now }))
        // the answer is noted (coalesced); the carrier's webhook is answered once it is written, so a
        // call log read after the webhook's answer shows the call IN_PROGRESS (one awaited flush per
        // incoming call, written at once)
        yield* entity.written
        return { _tag: "Connected", route } as const
      }
      if (call.state.status === "IN_PROGRESS") {
        return { _tag: "Connected", route: yield* entity.mediaRoute } as const
      }
      return answerOfEnded(call.state)
    })

  return { answer } as const
}

/**
 * An incoming call handed to its agent, whichever carrier brought it: routed by the number called
 * (`None`: no agent answers that number), given its one session, and answered by its `LiveCall` (streamed
 * to the agent, or turned away and recorded). The carriers' webhooks (http) verify and translate; this
 * decides.
 */
export class InboundCalls extends Effect.Service<InboundCalls>()("Calls/InboundCalls", {
  effect: Effect.gen(function*() {
    const inbound = yield* InboundCallsRepo
    const specs = yield* CallSpecs
    const calls = yield* LiveCallEntity.client

    const take = Effect.fn("InboundCalls.take")(
      function*(carrier: InboundCarrier, to: string, providerCallId: string, fromNumber: string) {
        const found = yield* inbound.route(to)
        if (Option.isNone(found)) return Option.none<{ sessionId: SessionId; answer: InboundAnswer }>()
        const route = found.value
        const sessionId = yield* inbound.sessionFor(carrier, providerCallId, route.tenantId)
        const customerId = yield* inbound.contactOf(route.tenantId, fromNumber)
        const spec = yield* specs.makeInbound({ ...route, fromNumber, customerId, metadata: {} })
        const answer: InboundAnswer = yield* calls(sessionId).Answer({ spec, providerCallId, carrier }).pipe(
          Effect.orDie
        )
        if (answer._tag === "NotServed") yield* inbound.forget(carrier, providerCallId)
        yield* Effect.logInfo("incoming call").pipe(
          Effect.annotateLogs({ carrier, sessionId, tenantId: route.tenantId, answer: answer._tag })
        )
        return Option.some({ sessionId, answer })
      }
    )

    return { take, sessionOf: inbound.sessionOf } as const
  }),
  dependencies: [InboundCallsRepo.Default, CallSpecs.Default]
}) {}

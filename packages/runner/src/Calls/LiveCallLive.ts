/**
 * The `LiveCall` entity: one per call session. It owns the call's state machine (the pure
 * `transition` in `domain`), its timers (ring timeout, maximum duration, reservation extension),
 * the carrier, and the end of the call: settle once, write the session and the call-ended outbox in
 * one transaction.
 *
 * State lives in `call_sessions`; timers live in the entity and are re-armed from the stored
 * deadlines whenever the entity starts (on another runner after a crash, the supervisor wakes it).
 */
import * as Entity from "@effect/cluster/Entity"
import type { Sharding } from "@effect/cluster/Sharding"
import * as SqlClient from "@effect/sql/SqlClient"
import {
  billableSeconds,
  CallEvent,
  type CallState,
  type CallStatus,
  costOf,
  isLive,
  talkSeconds,
  transition
} from "@voiceagent/domain/CallMachine"
import { LiveCallEntity, type ProviderEvent, type SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { AgentsRepo } from "../Agents/AgentsRepo.js"
import type { AgentPersona } from "../Brain/AgentBrain.js"
import { countDial, moveLiveCall } from "../Observability/PlatformMetrics.js"
import { Telephony } from "../Telephony/Telephony.js"
import { CallEnded, type CallEndedEvent } from "./CallEnded.js"
import { CallSessionsRepo, type StoredCall } from "./CallSessionsRepo.js"
import { LocalCalls } from "./LocalCalls.js"
import { withEntityLogs } from "../Cluster/EntityLogs.js"

/** Extend the reservation this long before the talk time it covers runs out. */
const EXTENSION_MARGIN_MS = 15_000

const eventFor = (kind: ProviderEvent["kind"], at: number): CallEvent => {
  switch (kind) {
    case "ringing":
      return CallEvent.Ringing({ at })
    case "answered":
      return CallEvent.Answered({ at })
    case "busy":
      return CallEvent.Busy({ at })
    case "no_answer":
      return CallEvent.NoAnswer({ at })
    case "failed":
      return CallEvent.CarrierFailed({ at })
    case "completed":
      return CallEvent.Completed({ at })
  }
}

/** `metadata.simulatedCallerLines`: what the simulated carrier's caller says, for demos and tests. */
const callerLinesOf = (metadata: { readonly [key: string]: unknown }): ReadonlyArray<string> | undefined => {
  const lines = metadata["simulatedCallerLines"]
  return Array.isArray(lines) && lines.length > 0 && lines.every((l) => typeof l === "string") ? lines as Array<string> : undefined
}

const replyOf = (state: CallState | undefined) =>
  state === undefined
    ? { status: "ENDED" as const, outcome: null }
    : { status: state.status, outcome: state.status === "ENDED" ? state.outcome : null }

export const LiveCallLive = LiveCallEntity.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const sessionId = address.entityId as string as SessionId
    const logged = yield* withEntityLogs
    const sql = yield* SqlClient.SqlClient
    const repo = yield* CallSessionsRepo
    const agents = yield* AgentsRepo
    const telephony = yield* Telephony
    const callEnded = yield* CallEnded
    const localCalls = yield* LocalCalls
    const tenantClient = yield* TenantEntity.client
    const scope = yield* Effect.scope
    const lock = yield* Effect.makeSemaphore(1)
    const entityContext = yield* Effect.context<Sharding | Entity.CurrentAddress>()
    // a live call must not be stopped for idleness: nothing may arrive for the length of a conversation
    const keepAlive = (enabled: boolean) => Entity.keepAlive(enabled).pipe(Effect.provide(entityContext))

    let call: StoredCall | undefined = Option.getOrUndefined(yield* repo.load(sessionId))
    // the state this entity counts in the live-calls gauge; given back when the entity stops
    let counted: CallStatus | undefined
    const recount = Effect.suspend(() => {
      const from = counted
      counted = call === undefined || !isLive(call.state) ? undefined : call.state.status
      return moveLiveCall(from, counted)
    })
    yield* recount
    yield* Scope.addFinalizer(scope, Effect.suspend(() => moveLiveCall(counted, undefined)))
    let transcript: ReadonlyArray<{ speaker: "agent" | "customer"; text: string; at: number }> = []
    const timers = new Map<"ring" | "max" | "extend" | "funds", Fiber.RuntimeFiber<void>>()

    const tenant = () => tenantClient(call!.spec.tenantId)

    const cancelTimer = (name: "ring" | "max" | "extend" | "funds") =>
      Effect.suspend(() => {
        const fiber = timers.get(name)
        timers.delete(name)
        return fiber === undefined ? Effect.void : Fiber.interrupt(fiber).pipe(Effect.asVoid)
      })

    /** Runs `event` through the machine at `deadline` (epoch ms), or now when it has passed. */
    const armTimer = (name: "ring" | "max" | "extend" | "funds", deadline: number, effect: Effect.Effect<void>) =>
      Effect.gen(function*() {
        yield* cancelTimer(name)
        const now = yield* Clock.currentTimeMillis
        const fiber = yield* Effect.sleep(Math.max(0, deadline - now)).pipe(
          Effect.zipRight(Effect.suspend(() => {
            timers.delete(name)
            return effect
          })),
          Effect.forkIn(scope)
        )
        timers.set(name, fiber)
      })

    const now = Clock.currentTimeMillis

    const persona = (agentId: AgentId, tenantId: TenantId): Effect.Effect<AgentPersona> =>
      Effect.map(agents.find(tenantId, agentId), (found) =>
        Option.match(found, {
          onNone: () => ({ tenantId, name: "agent", greetMessage: "Hello!", agentPrompt: "", metadata: {}, knowledgeBaseIds: [] }),
          onSome: ({ agent }) => ({
            tenantId,
            name: agent.name,
            greetMessage: agent.greetMessage,
            agentPrompt: agent.agent_prompt,
            metadata: agent.metadata,
            knowledgeBaseIds: agent.knowledgeBaseIds
          })
        }))

    // -----------------------------------------------------------------------
    // Reservation: extended in chunks while the call lasts
    // -----------------------------------------------------------------------

    const armExtension = Effect.suspend((): Effect.Effect<void> => {
      if (call === undefined || call.state.status !== "IN_PROGRESS") return Effect.void
      const coveredUntil = call.state.answeredAt + call.reservedSeconds * 1000
      return armTimer("extend", coveredUntil - EXTENSION_MARGIN_MS, extendReservation)
    })

    const extendReservation: Effect.Effect<void> = lock.withPermits(1)(Effect.gen(function*() {
      if (call === undefined || call.state.status !== "IN_PROGRESS") return
      const { spec } = call
      const step = Math.round(call.reservedSeconds / spec.reservationChunkSeconds)
      const amount = costOf(spec.reservationChunkSeconds, spec.voicePerMinute)
      const extended = yield* tenant().Extend({ reservationId: sessionId, step, amount }).pipe(
        Effect.as(true),
        Effect.catchTags({ InsufficientFunds: () => Effect.succeed(false), ReservationNotOpen: () => Effect.succeed(false) }),
        Effect.orDie
      )
      const at = yield* now
      if (extended) {
        call = { ...call, reservedSeconds: call.reservedSeconds + spec.reservationChunkSeconds }
        yield* repo.saveState(sessionId, call.state, { reservedSeconds: call.reservedSeconds }, {
          type: "reservation_extended",
          at,
          detail: { reservedSeconds: call.reservedSeconds }
        })
        yield* armExtension
      } else {
        // the wallet cannot cover more: the call goes on until the talk time already held runs out
        const state = call.state
        yield* repo.addEvent(sessionId, "reservation_refused", at, { reservedSeconds: call.reservedSeconds })
        yield* armTimer("funds", state.answeredAt + call.reservedSeconds * 1000, Effect.flatMap(now, (t) => apply(CallEvent.FundsExhausted({ at: t }))))
      }
    }))

    // -----------------------------------------------------------------------
    // Commands the machine asks for
    // -----------------------------------------------------------------------

    const placeCall = Effect.gen(function*() {
      const { spec } = call!
      const carrier = telephony.carrierFor(spec.provider)
      const agent = yield* persona(spec.agentId, spec.tenantId)
      const placed = yield* carrier.dial({
        sessionId,
        provider: spec.provider,
        from: spec.fromNumber,
        to: spec.toNumber,
        agent,
        callerLines: callerLinesOf(spec.metadata)
      }).pipe(
        Effect.either
      )
      yield* countDial(spec.provider, placed._tag === "Left" ? "refused" : "placed")
      if (placed._tag === "Left") {
        const at = yield* now
        yield* repo.addEvent(sessionId, "dial_refused", at, { reason: placed.left.reason })
        return [CallEvent.DialFailed({ at })]
      }
      call = { ...call!, providerCallId: placed.right.providerCallId }
      yield* repo.saveState(sessionId, call.state, { providerCallId: placed.right.providerCallId })
      return []
    })

    const hangUp = Effect.suspend(() => {
      const providerCallId = call?.providerCallId
      if (providerCallId === null || providerCallId === undefined) return Effect.void
      return telephony.carrierFor(call!.spec.provider).hangup(providerCallId).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("hang-up failed", cause))
      )
    })

    /** Settles once, then ends the session and writes the call-ended outbox in one transaction. */
    const finish = Effect.gen(function*() {
      yield* Effect.forEach(["ring", "max", "extend", "funds"] as const, cancelTimer, { discard: true })
      const { spec, state } = call!
      if (state.status !== "ENDED") return
      const duration = talkSeconds(state)
      const billed = billableSeconds(duration, spec.billingIncrementSeconds)
      const cost = costOf(billed, spec.voicePerMinute)
      const settled = yield* tenant().Settle({ reservationId: sessionId, amount: cost, kind: "call_charge", reference: sessionId }).pipe(
        Effect.catchTag("ReservationNotOpen", () => Effect.succeed({ charged: 0, released: 0 })),
        Effect.orDie
      )
      const said = transcript.filter((line) => line.at <= state.endedAt)
      const event: CallEndedEvent = {
        sessionId,
        tenantId: spec.tenantId,
        agentId: spec.agentId,
        campaignId: spec.campaignId,
        campaignAttemptId: spec.campaignAttemptId,
        customerId: spec.customerId,
        direction: "OUTGOING",
        fromNumber: spec.fromNumber,
        toNumber: spec.toNumber,
        outcome: state.outcome,
        endReason: state.reason,
        startedAt: new Date(state.dialedAt ?? call!.createdAt.getTime()),
        answeredAt: state.answeredAt === null ? null : new Date(state.answeredAt),
        endedAt: new Date(state.endedAt),
        durationSeconds: duration,
        billedSeconds: billed,
        cost: settled.charged,
        currency: spec.currency,
        transcript: said.map((t) => ({ ...t, at: new Date(t.at) })),
        metadata: spec.metadata
      }
      yield* Effect.gen(function*() {
        const ended = yield* repo.finish(sessionId, state, {
          durationSeconds: duration,
          billedSeconds: billed,
          cost: settled.charged,
          transcript: said
        })
        if (ended) yield* callEnded.publish(event)
      }).pipe(sql.withTransaction, Effect.orDie)
      yield* callEnded.committed(event)
      yield* Effect.logInfo("call ended").pipe(Effect.annotateLogs({
        tenantId: spec.tenantId,
        outcome: state.outcome,
        endReason: state.reason,
        durationSeconds: duration,
        cost: settled.charged
      }))
      yield* keepAlive(false)
    })

    const run = (command: { readonly _tag: string }): Effect.Effect<ReadonlyArray<CallEvent>> => {
      const spec = call!.spec
      const state = call!.state
      switch (command._tag) {
        case "PlaceCall":
          return placeCall
        case "ArmRingTimer":
          return state.status === "DIALING" || state.status === "RINGING"
            ? armTimer("ring", state.dialedAt + spec.dialTimeoutSeconds * 1000, Effect.flatMap(now, (at) => apply(CallEvent.RingTimeout({ at }))))
              .pipe(Effect.as([]))
            : Effect.succeed([])
        case "ArmMaxDurationTimer":
          return state.status === "IN_PROGRESS"
            ? cancelTimer("ring").pipe(
              Effect.zipRight(armTimer("max", state.answeredAt + spec.maxDurationSeconds * 1000, Effect.flatMap(now, (at) => apply(CallEvent.MaxDuration({ at }))))),
              Effect.zipRight(armExtension),
              Effect.as([])
            )
            : Effect.succeed([])
        case "HangUp":
          return Effect.as(hangUp, [])
        case "Finish":
          return Effect.as(finish, [])
        default:
          return Effect.succeed([])
      }
    }

    const EVENT_NAMES: Record<CallState["status"], string> = {
      QUEUED: "queued",
      DIALING: "dialing",
      RINGING: "ringing",
      IN_PROGRESS: "answered",
      ENDED: "ended"
    }

    /** Feeds one event through the machine and carries out what it asks, then any events that produces. */
    const applyUnlocked = (event: CallEvent): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (call === undefined) return
        const step = transition(call.state, event)
        if (!step.changed) return
        call = { ...call, state: step.state }
        yield* recount
        if (step.state.status !== "ENDED") {
          yield* repo.saveState(sessionId, step.state, {}, { type: EVENT_NAMES[step.state.status], at: event.at })
        }
        const followUps: Array<CallEvent> = []
        for (const command of step.commands) followUps.push(...(yield* run(command)))
        for (const next of followUps) yield* applyUnlocked(next)
      })

    const apply = (event: CallEvent) => lock.withPermits(1)(applyUnlocked(event))

    /** On (re)start of a live call: re-arm its timers and catch up with the carrier. */
    const resume = Effect.gen(function*() {
      if (call === undefined || !isLive(call.state)) return
      yield* keepAlive(true)
      const state = call.state
      const spec = call.spec
      switch (state.status) {
        case "QUEUED":
          return yield* apply(CallEvent.Dial({ at: yield* now }))
        case "DIALING":
        case "RINGING":
          yield* run({ _tag: "ArmRingTimer" })
          break
        case "IN_PROGRESS":
          yield* run({ _tag: "ArmMaxDurationTimer" })
          break
      }
      if (call.providerCallId !== null) {
        const status = yield* telephony.carrierFor(spec.provider).status(call.providerCallId)
        const at = yield* now
        // a carrier that no longer knows the call has finished it
        const kind = Option.getOrElse(status, () => "completed" as const)
        if (kind !== "dialing") yield* apply(eventFor(kind, at))
      }
    })

    const onProviderEvent = (event: ProviderEvent) =>
      Effect.gen(function*() {
        if (event.transcript !== undefined) transcript = event.transcript
        if (call !== undefined && call.providerCallId === null && event.providerCallId !== null) {
          call = { ...call, providerCallId: event.providerCallId }
        }
        yield* apply(eventFor(event.kind, event.at))
      })

    // in-process carriers report here directly (see LocalCalls)
    yield* localCalls.register(sessionId, onProviderEvent)

    yield* Effect.forkIn(resume.pipe(Effect.catchAllCause((cause) => Effect.logError("resuming call failed", cause))), scope)

    return logged({
      Start: ({ payload }) =>
        lock.withPermits(1)(Effect.gen(function*() {
          if (call !== undefined) return replyOf(call.state)
          const { spec } = payload
          yield* tenantClient(spec.tenantId).Reserve({
            reservationId: sessionId,
            amount: costOf(spec.reservationChunkSeconds, spec.voicePerMinute),
            concurrencyLimit: spec.concurrencyLimit
          }).pipe(Effect.catchTags({
            AlreadyProcessingMessage: Effect.die,
            MailboxFull: Effect.die,
            PersistenceError: Effect.die
          }))
          const createdAt = new Date(yield* now)
          yield* repo.insert(sessionId, spec, spec.reservationChunkSeconds, createdAt.getTime())
          call = { spec, state: { status: "QUEUED" }, providerCallId: null, reservedSeconds: spec.reservationChunkSeconds, createdAt }
          yield* recount
          yield* keepAlive(true)
          yield* Effect.logInfo("call queued").pipe(Effect.annotateLogs({
            tenantId: spec.tenantId,
            agentId: spec.agentId,
            provider: spec.provider,
            campaignId: spec.campaignId
          }))
          yield* Effect.forkIn(Effect.flatMap(now, (at) => apply(CallEvent.Dial({ at }))), scope)
          return replyOf(call.state)
        })),
      ProviderEvent: ({ payload }) => Effect.map(onProviderEvent(payload.event), () => replyOf(call?.state)),
      Hangup: () =>
        Effect.gen(function*() {
          const at = yield* now
          if (call !== undefined && isLive(call.state)) yield* repo.addEvent(sessionId, "hangup_requested", at)
          yield* apply(CallEvent.HangupRequested({ at }))
          return replyOf(call?.state)
        }),
      // under the lock: a call whose end is being written answers once it is written (settled, stored)
      Status: () => lock.withPermits(1)(Effect.sync(() => replyOf(call?.state)))
    })
  }),
  { maxIdleTime: "5 minutes" }
)

/**
 * The `LiveCall` entity: one per call session. It owns the call's state machine (the pure
 * `transition` in `domain`), its timers (ring timeout, maximum duration, reservation extension),
 * the carrier, and the end of the call: settle once, write the session and the call-ended outbox in
 * one transaction.
 *
 * State lives in `call_sessions`; timers are entries of the runner's `TimerWheel`, re-armed from
 * the stored deadlines whenever the entity starts (on another runner after a crash, the runner that
 * acquires the shard wakes its live calls: `Runtime`'s shard takeover).
 *
 * A call keeps its entity in memory only while something of it lives there (see `resident`): a call
 * that rings (dialled, its carrier's id stored, waiting for the callee or the dial timeout) lets it
 * go after `MAX_IDLE_MS`, leaving a wake entry in the wheel at its ring deadline (`Wake`). The
 * carrier's events (answered, busy…) start it again as they always did, as does the media stream of
 * an answered call (`OpenMedia`, through `LocalMedia`); it reads its row back, claims it and resumes.
 *
 * The call's conversation runs beside the entity, in its process (`Conversations`): prepared when
 * the call is dialled (or the entity restarts), fed by the carrier's media stream, reporting back
 * coarse events (a transcript line, the agent hanging up, the stream stopping). Lines are stored as
 * they are said; audio never leaves the process.
 *
 * What the entity knows of its call is one immutable record (`Live`) in a `SynchronizedRef`, whose
 * lock is the entity's: whatever moves the call (a request, a timer, a report that hangs up) runs
 * under it (`locked`) on its own copy (`Held`), which becomes the ref's value when it ends. What
 * needs the lock takes a `Held`; what a holder may wait on (the conversation's reports, the journal's
 * refusals, the voicemail detector) never waits for the lock and reads the record as last left.
 * What is told outside the lock has its own ref: the ownership (owner epoch, fenced by a newer
 * instance), the transcript, where the knowledge comes from (`source`). The conversation is a
 * `ScopedRef`; the stored row is read once (`Effect.cached`); the commands are a tagged enum matched
 * exhaustively (`run`), the transitions the pure `transition` in `domain`.
 */
import * as Entity from "@effect/cluster/Entity"
import type { Agent } from "@voiceagent/domain/Agents"
import {
  billableSeconds,
  CallCommand,
  CallEvent,
  type CallState,
  type CallStatus,
  costOf,
  isLive,
  knownUntil,
  talkSeconds,
  transition
} from "@voiceagent/domain/CallMachine"
import {
  type CallSpec,
  directionOf,
  LiveCallEntity,
  type MediaRoute,
  type ProviderEvent,
  type SessionId
} from "@voiceagent/domain/Calls"
import type { TransferMode, TransferSource } from "@voiceagent/domain/CallTransfer"
import type { AgentId, TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as ScopedRef from "effect/ScopedRef"
import * as SynchronizedRef from "effect/SynchronizedRef"
import { AgentsRepo } from "../Agents/AgentsRepo.js"
import type { AgentPersona } from "../Brain/AgentBrain.js"
import { CallEnded, type CallEndedEvent } from "../CallRecords/CallEnded.js"
import { type CallLine, CallSessionsRepo, type StoredCall } from "../CallRecords/CallSessionsRepo.js"
import { CallTransfersRepo } from "../CallRecords/CallTransfersRepo.js"
import { deliver } from "../Cluster/Deliver.js"
import { withEntityHandlers } from "../Cluster/EntityHandlers.js"
import { countDial, countWalletOperation, moveLiveCall } from "../Observability/PlatformMetrics.js"
import { bargeIn, firstAudio, recordTurn } from "../Observability/VoiceMetrics.js"
import { Telephony } from "../Ports/Telephony.js"
import { recordingOf } from "../Recordings/Recordings.js"
import { TimerWheel } from "../Shared/TimerWheel.js"
import type { EngineReport } from "../Voice/Engine.js"
import { MediaServer } from "../Voice/MediaServer.js"
import { scriptFromMetadata } from "../Voice/SimulatedCaller.js"
import { WebStreams } from "../Voice/WebMedia.js"
import { CallJournal, type JournalEvent } from "./CallJournal.js"
import { type ConversationHandle, Conversations } from "./Conversations.js"
import { makeInbound } from "./InboundCalls.js"
import { LocalCalls } from "./LocalCalls.js"
import { makeTransfer } from "./Transfer.js"
import { makeVoicemail } from "./Voicemail.js"

/** Asks the report writer to say when everything queued before it is written. */
interface Flush {
  readonly _tag: "Flush"
  readonly done: Deferred.Deferred<void>
}

type TimerName = "max" | "extend" | "funds" | "resident"

type LiveWrite = { readonly providerCallId?: string; readonly reservedSeconds?: number }

/** Extend the reservation this long before the talk time it covers runs out. */
const EXTENSION_MARGIN_MS = 15_000

/**
 * An idle entity is stopped after this long without a request (the cluster's entity reaper, which
 * looks every `MAX_IDLE_MS`: an entity goes 15 to 30 s after its last request). Short, so that a
 * ringing call (which may wait a minute or more for its callee) does not hold its entity, its
 * prepared conversation and their fibers (~100 KB) meanwhile.
 */
export const MAX_IDLE_MS = 15_000

/**
 * A resident call is sent a request (`Status`, volatile: no storage) this often, so the reaper never
 * finds it idle: nothing may arrive for the length of a conversation, and the call's conversation,
 * media and timers live in its entity. (Was `Entity.keepAlive`: a persisted message per call.)
 */
const RESIDENCY_TOUCH_MS = MAX_IDLE_MS / 2

/** The name of a call's ring deadline in the wheel: an entry that outlives the entity (see `wakeAt`). */
const RING = "ring"

type LiveCallClient = Effect.Effect.Success<typeof LiveCallEntity.client>

/**
 * What the wheel runs at a ring deadline: a `Wake` to the call's entity, which starts it again if it
 * let go. Made here, out of the entity's closure, so that the entry of a call whose entity stopped
 * holds the client and the call's id only (not the stopped instance's state). Volatile and idempotent
 * (a wake before the deadline arms it again): sent again on the cluster's transport errors (`deliver`).
 */
const wakeOf = (client: LiveCallClient, sessionId: SessionId): Effect.Effect<void> =>
  Effect.suspend(() => deliver(client(sessionId).Wake())).pipe(
    Effect.asVoid,
    Effect.catchAllCause((cause) => Effect.logWarning("waking a call at its ring deadline failed", cause)),
    Effect.annotateLogs({ sessionId })
  )

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

/** How many times a call's media stream may be opened again after it ended (a carrier reconnecting). */
const MAX_STREAM_RESTARTS = 3

/** Latencies as whole milliseconds. */
const roundLatency = (latency: {
  readonly endpointingMs: number
  readonly sttFinalLagMs: number | null
  readonly llmFirstTokenMs: number | null
  readonly ttsFirstByteMs: number | null
  readonly overheadMs: number
  readonly voiceToVoiceMs: number
}) => ({
  endpointingMs: Math.round(latency.endpointingMs),
  sttFinalLagMs: latency.sttFinalLagMs === null ? null : Math.round(latency.sttFinalLagMs),
  llmFirstTokenMs: latency.llmFirstTokenMs === null ? null : Math.round(latency.llmFirstTokenMs),
  ttsFirstByteMs: latency.ttsFirstByteMs === null ? null : Math.round(latency.ttsFirstByteMs),
  overheadMs: Math.round(latency.overheadMs),
  voiceToVoiceMs: Math.round(latency.voiceToVoiceMs)
})

const replyOf = (state: CallState | undefined) =>
  state === undefined
    ? { status: "ENDED" as const, outcome: null }
    : { status: state.status, outcome: state.status === "ENDED" ? state.outcome : null }

/**
 * What one instance knows of its call, held by the entity's `SynchronizedRef`. Changed only by a
 * holder of the ref's lock (`locked`), on its own copy (`Held`), which becomes the ref's value as the
 * lock is let go; read without the lock (`SynchronizedRef.get`), it is as the last holder left it.
 */
interface Live {
  readonly call: StoredCall | undefined
  /** The stored row was read back into `call` (once: see `readOnce`). */
  readonly loaded: boolean
  /** A claimed session's owner epoch is taken by its `DIALING` write. */
  readonly claimOnDial: boolean
  /** How often the media stream was opened again after it ended (see `MAX_STREAM_RESTARTS`). */
  readonly streamRestarts: number
}

/**
 * Whose the call is: this instance's owner epoch, and whether a newer instance fenced it. Apart from
 * `Live`: the journal tells a refusal from its own fiber, which a holder of the lock may be waiting on,
 * and the conversation's reports and the voicemail detector write under the epoch without the lock.
 */
interface Ownership {
  readonly epoch: number
  readonly fenced: boolean
}

/** The entity's lock, held: the holder's copy of the state (see `locked`). Only a holder has one. */
type Held = Ref.Ref<Live>

export const LiveCallLive = LiveCallEntity.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const sessionId = address.entityId as string as SessionId
    const logged = yield* withEntityHandlers
    // the entity's log annotations, for what its timers run (in fibers the runner's wheel forks)
    const entityAnnotations = yield* FiberRef.get(FiberRef.currentLogAnnotations)
    const repo = yield* CallSessionsRepo
    const journal = yield* CallJournal
    const agents = yield* AgentsRepo
    const telephony = yield* Telephony
    const callEnded = yield* CallEnded
    const localCalls = yield* LocalCalls
    const conversations = yield* Conversations
    const webStreams = yield* WebStreams
    const mediaServer = yield* Effect.serviceOption(MediaServer)
    const tenantClient = yield* TenantEntity.client
    const scope = yield* Effect.scope
    const wheel = yield* TimerWheel
    const client = yield* LiveCallEntity.client
    const self = client(sessionId)

    const state = yield* SynchronizedRef.make<Live>({
      call: undefined,
      loaded: false,
      claimOnDial: false,
      streamRestarts: 0
    })

    /**
     * Runs `body` holding the entity's lock (the ref's), on a copy of the state that becomes the ref's
     * value when `body` ends, however it ends (an interrupted holder leaves what it changed, as it
     * did in the call's row). Never run by a holder: it waits for the lock.
     */
    const locked = <A, E>(body: (held: Held) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
      Effect.flatten(
        SynchronizedRef.modifyEffect(state, (live) =>
          Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(Ref.make(live), (held) =>
              Effect.flatMap(Effect.exit(restore(body(held))), (exit) =>
                Effect.map(Ref.get(held), (next) =>
                  [exit, next] as const)))
          ))
      )

    const callOf = (held: Held) => Effect.map(Ref.get(held), (live) => live.call)
    const setCall = (held: Held, call: StoredCall | undefined) => Ref.update(held, (live) => ({ ...live, call }))
    /** The call as the last holder of the lock left it. */
    const committed = Effect.map(SynchronizedRef.get(state), (live) => live.call)

    /**
     * Where the entity's knowledge of its call comes from: nothing yet (`fresh`); the `Start` that
     * created it (`started`: a campaign's claimed session, claimed by its `DIALING` write, or a call's
     * own start, which inserts the session); or the stored row (`stored`, read by the first request
     * that needs it). Decided before the lock is waited for.
     */
    const source = yield* Ref.make<"fresh" | "started" | "stored">("fresh")
    const ownership = yield* Ref.make<Ownership>({ epoch: 1, fenced: false })
    const epochNow = Effect.map(Ref.get(ownership), (o) => o.epoch)
    const fencedNow = Effect.map(Ref.get(ownership), (o) => o.fenced)
    // the state this entity counts in the live-calls gauge; given back when the entity stops
    const counted = yield* Ref.make<CallStatus | undefined>(undefined)
    const recount = (call: StoredCall | undefined) => {
      const to = call === undefined || !isLive(call.state) ? undefined : call.state.status
      return Effect.flatMap(Ref.getAndSet(counted, to), (from) => moveLiveCall(from, to))
    }
    yield* Scope.addFinalizer(scope, Effect.flatMap(Ref.get(counted), (from) => moveLiveCall(from, undefined)))
    /** What was said, as the conversation reports it (and as stored, when the entity restarts). */
    const transcript = yield* Ref.make<ReadonlyArray<CallLine>>([])
    const tenant = (call: StoredCall) => tenantClient(call.spec.tenantId)

    /**
     * The call's timers are entries of the runner's `TimerWheel` under the session's id, by name:
     * arming one replaces the one armed before under its name. At `deadline` (epoch ms; at once
     * when it has passed) `effect` is forked in the entity's scope, so that it may cancel or arm
     * timers (the end of the call cancels them all, an extension arms the next); the entity's end
     * cancels them all.
     */
    const armTimer = (name: TimerName, deadline: number, effect: Effect.Effect<void>) =>
      wheel.arm(
        sessionId,
        name,
        deadline,
        Effect.locally(effect, FiberRef.currentLogAnnotations, entityAnnotations),
        scope
      )

    const cancelTimer = (name: TimerName | typeof RING) => wheel.cancel(sessionId, name)

    /**
     * The call's ring deadline: a `Wake` sent to the entity then (see `wakeOf`), armed apart from the
     * entity's scope so that it outlives an entity that lets its ringing call go.
     */
    const wakeAt = (deadline: number) => wheel.arm(sessionId, RING, deadline, wakeOf(client, sessionId))

    const cancelTimers = wheel.cancelAll(sessionId)
    // an entity that stops while its call rings leaves the wake at its ring deadline; any other
    // stopping instance (the call over, the shard moved, the runner stopping) takes all its timers
    yield* Scope.addFinalizer(
      scope,
      Effect.flatMap(committed, (call) => letGo(call)).pipe(
        Effect.flatMap((go) => go ? wheel.cancelAll(sessionId, [RING]) : cancelTimers)
      )
    )

    /**
     * Whether this instance may let its entity go: an outgoing call that rings, whose carrier's id
     * is stored (what a resumed call asks its carrier by), with no media stream attached. Nothing of
     * it then lives only here: its ring deadline is a wake in the wheel, its state is its row, and
     * its conversation is prepared again when the entity starts. A web call stays (its client's
     * stream is served by this process), and so does a call being dialled (the carrier not yet told).
     * So does a call on a carrier that is asked to stream again when its call is resumed in progress
     * (Telnyx's `restream`): a call answered while its entity was away would be resumed in progress
     * and asked for a second stream beside the one its dial set up (to be done: tell the two apart).
     */
    const letGo = (call: StoredCall | undefined): Effect.Effect<boolean> =>
      Effect.suspend(() => {
        if (
          call === undefined || call.providerCallId === null ||
          (call.state.status !== "DIALING" && call.state.status !== "RINGING") ||
          directionOf(call.spec) !== "OUTGOING" || call.spec.provider === "WEB" ||
          telephony.carrierFor(call.spec.provider).restream !== undefined
        ) return Effect.succeed(false)
        return Effect.zipWith(fencedNow, ScopedRef.get(conversation), (fenced, open) =>
          !fenced && !Option.exists(open, (handle) =>
            handle.attached()))
      })

    /** Whether the entity must stay in memory (see `stayResident`). */
    const resident = (call: StoredCall | undefined): Effect.Effect<boolean> =>
      call === undefined || !isLive(call.state)
        ? Effect.succeed(false)
        : Effect.zipWith(fencedNow, letGo(call), (fenced, go) => !fenced && !go)

    /**
     * Keeps a resident call's entity from being stopped as idle (see `RESIDENCY_TOUCH_MS`): a timer
     * that sends the entity a `Status` and arms itself again while the call is resident (looked at
     * under the lock: a holder may be changing that); a call that rings stops it, and its entity goes
     * once idle. The end of the call, or a newer instance, cancels it with the other timers.
     */
    const touch: Effect.Effect<void> = Effect.flatMap(
      locked((held) => Effect.flatMap(callOf(held), resident)),
      (stays) => stays ? self.Status().pipe(Effect.ignore, Effect.zipRight(armTouch)) : Effect.void
    )
    const armTouch: Effect.Effect<void> = Effect.flatMap(
      Clock.currentTimeMillis,
      (at) => armTimer("resident", at + RESIDENCY_TOUCH_MS, touch)
    )

    /** Starts the touches again when the call is resident and they stopped (a ringing call answered). */
    const stayResident = (call: StoredCall | undefined) =>
      Effect.flatMap(
        resident(call),
        (stays) => stays && wheel.deadlineOf(sessionId, "resident") === undefined ? armTouch : Effect.void
      )

    const now = Clock.currentTimeMillis

    /**
     * This instance lost the call to a newer one (or the call was ended elsewhere): it stops acting.
     * Run by a holder of the lock or by the journal's fiber (a refused note): never waits for the lock.
     */
    const stepDown = Effect.flatMap(
      Ref.getAndUpdate(ownership, (o) => ({ ...o, fenced: true })),
      (was) =>
        was.fenced
          ? Effect.void
          : Effect.zipRight(
            cancelTimers,
            Effect.logWarning("another instance of this call owns it now: this one stops")
          )
    )

    const noteOf = (epoch: number, state: CallState, extra: LiveWrite, event: JournalEvent | undefined) => ({
      sessionId,
      epoch,
      state: state.status === "QUEUED" || state.status === "ENDED" ? undefined : state,
      ...extra,
      event
    })

    /**
     * Where the live call stands, under this instance's epoch, written by the runner's journal
     * (coalesced with other calls', not awaited); refused, the call is no longer ours.
     */
    const note = (state: CallState, extra: LiveWrite = {}, event?: JournalEvent) =>
      Effect.flatMap(epochNow, (epoch) => journal.note({ ...noteOf(epoch, state, extra, event), onRefused: stepDown }))

    /** The same, awaited: what a bill rests on (the talk time held) or the carrier is told. */
    const save = (state: CallState, extra: LiveWrite = {}, event?: JournalEvent) =>
      Effect.flatMap(
        epochNow,
        (epoch) =>
          Effect.flatMap(
            journal.write(noteOf(epoch, state, extra, event)),
            (written) => written ? Effect.void : stepDown
          )
      )

    /**
     * Reads the stored call (claiming it when it is not over: the next owner epoch, so an instance of
     * this call left running on a runner that lost the shard can write nothing from now on). First
     * waits for what this runner's journal still holds of the call: an instance that let its ringing
     * call go may have noted something (ringing, the carrier's id) not yet written, under the epoch
     * this claim ends. Once (`Effect.cached`): by the first request that needs it, or by a holder
     * whose claimed call was dialled elsewhere (`writeDialing`), which puts it in its own copy.
     */
    const loadOnce = yield* Effect.cached(Effect.gen(function*() {
      yield* journal.flushed(sessionId)
      const stored = yield* repo.claimOrLoad(sessionId)
      const call = stored.call
      yield* Ref.update(ownership, (o) => ({ ...o, epoch: stored.epoch ?? 1 }))
      yield* Ref.set(transcript, call === undefined ? [] : [...call.transcript])
      if (call !== undefined) voicemail.restore(call.answeredBy ?? null, call.voicemail ?? null)
      yield* recount(call)
      return call
    }))

    /** The stored call, as the entity's, unless it was put there already. */
    const install = (held: Held, call: StoredCall | undefined) =>
      Ref.update(held, (live) => live.loaded ? live : { ...live, call, loaded: true })

    /** The stored call is read once, by the first request that needs it (none for a claimed session's `Start`). */
    const readOnce = yield* Effect.cached(Effect.flatMap(loadOnce, (call) => locked((held) => install(held, call))))

    /**
     * Catches up with the stored call (`resume`), once, under the entity's lock, taken before this
     * answers: every request that waits for the lock after reading the call (a carrier's event, a
     * `Wake`, an `OpenMedia`) acts on the resumed call, its conversation open and its timers armed.
     * Never awaited by a holder of the lock (it waits for the lock).
     */
    const resumeOnce = yield* Effect.cached(Effect.gen(function*() {
      const taken = yield* Deferred.make<void>()
      yield* Effect.forkIn(
        locked((held) => Effect.zipRight(Deferred.succeed(taken, undefined), resume(held))).pipe(
          Effect.catchAllCause((cause) => Effect.logError("resuming call failed", cause))
        ),
        scope
      )
      yield* Deferred.await(taken)
    }))

    /**
     * The first request that needs the call reads it and resumes it; never called under the lock.
     * A claimed session's `Start` (`started`) reads nothing.
     */
    const ensureRead = Effect.flatMap(
      Ref.modify(source, (from) => from === "started" ? [false, from] as const : [true, "stored"] as const),
      (read) => read ? Effect.zipRight(readOnce, resumeOnce) : Effect.void
    )

    const agentOf = (agentId: AgentId, tenantId: TenantId): Effect.Effect<Option.Option<Agent>> =>
      Effect.map(agents.findCached(tenantId, agentId), Option.map((record) => record.agent))

    const personaOf = (tenantId: TenantId, agent: Option.Option<Agent>): AgentPersona =>
      Option.match(agent, {
        onNone: () => ({
          tenantId,
          name: "agent",
          greetMessage: "Hello!",
          agentPrompt: "",
          metadata: {},
          knowledgeBaseIds: []
        }),
        onSome: (a) => ({
          tenantId,
          name: a.name,
          greetMessage: a.greetMessage,
          agentPrompt: a.agent_prompt,
          metadata: a.metadata,
          knowledgeBaseIds: a.knowledgeBaseIds
        })
      })

    // -----------------------------------------------------------------------
    // The conversation
    // -----------------------------------------------------------------------

    /** The conversation's reports are written in order by one fiber, so the engine never waits on the database. */
    const reports = yield* Queue.unbounded<EngineReport | Flush>()

    const handleReport = (report: EngineReport): Effect.Effect<void> =>
      Effect.gen(function*() {
        const at = yield* now
        switch (report._tag) {
          case "Line": {
            const said = yield* Ref.get(transcript)
            const line = said.find((l) => l.at === report.at && l.text === report.text && l.speaker === report.speaker)
            const owner = yield* Ref.get(ownership)
            if (line !== undefined && !owner.fenced) yield* repo.appendLine(sessionId, owner.epoch, line)
            if (report.latency !== null) yield* recordTurn(roundLatency(report.latency))
            return
          }
          case "MediaConnected":
            return yield* addEvent("media_connected", report.at, { streamId: report.streamId })
          case "MediaStopped":
            return yield* addEvent("media_stopped", report.at, { reason: report.reason })
          case "Notice":
            yield* Effect.logWarning(`conversation: ${report.message}`)
            return yield* addEvent("notice", at, { message: report.message })
          case "FirstAudio":
            return yield* Metric.update(firstAudio, report.afterStartMs / 1_000)
          case "BargeIn":
            return yield* Metric.update(bargeIn, report.reactionMs / 1_000)
          case "ToolCalled":
            return yield* addEvent("tool_called", at, {
              name: report.name,
              arguments: report.arguments.slice(0, 2_000),
              result: report.result.slice(0, 2_000)
            })
          case "HangUp":
            yield* addEvent("agent_hangup", at, { reason: report.reason })
            return yield* apply(CallEvent.AgentHungUp({ at }))
          case "Transfer":
            // apart from this writer: the end of the call waits for the reports written before it
            return yield* Effect.asVoid(Effect.forkIn(agentTransfer(report.to, report.mode), scope))
        }
      })

    yield* Queue.take(reports).pipe(
      Effect.flatMap((report) =>
        report._tag === "Flush"
          ? Deferred.succeed(report.done, undefined)
          : handleReport(report).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("a conversation report failed", cause))
          )
      ),
      Effect.forever,
      Effect.forkIn(scope)
    )

    /**
     * A line is the call's the moment it is said (the end of the call may come before its row is
     * written). Run by the conversation's fibers, which a holder of the lock may be waiting on (the
     * end closes the conversation): reads the call as last left, never waits for the lock.
     */
    const onReport = (report: EngineReport) =>
      Effect.gen(function*() {
        const call = yield* committed
        // (a line cut off by the end of the call comes as the conversation closes, after the end)
        if (
          report._tag === "Line" && call !== undefined &&
          (isLive(call.state) || (call.state.status === "ENDED" && report.at <= call.state.endedAt))
        ) {
          const line: CallLine = {
            speaker: report.speaker,
            text: report.text,
            at: report.at,
            interrupted: report.interrupted,
            latency: report.latency === null ? null : roundLatency(report.latency)
          }
          yield* Ref.update(transcript, (said) => [...said, line])
        }
        yield* Queue.offer(reports, report)
      })

    const addEvent = (type: string, at: number, detail: unknown) =>
      Effect.flatMap(
        Ref.get(ownership),
        (o) => o.fenced ? Effect.void : repo.addEvent(sessionId, o.epoch, type, at, detail)
      )

    const voicemail = yield* makeVoicemail({
      sessionId,
      epoch: epochNow,
      acting: Effect.map(fencedNow, (fenced) => !fenced),
      inProgress: Effect.map(committed, (call) => call !== undefined && call.state.status === "IN_PROGRESS"),
      report: onReport,
      end: (at) => apply(CallEvent.VoicemailDone({ at }))
    })

    /**
     * The call's conversation: a scoped resource, prepared when the call is dialled (or the entity
     * restarts) and closed at its end, or with the entity. Made after the finalizers above, so that
     * it closes before them (its stream detached when the entity looks whether it may let go).
     */
    const conversation = yield* ScopedRef.make(() => Option.none<ConversationHandle>())

    /**
     * Closes the conversation and waits (a bounded while) until its last reports are written, so the
     * call's log has the media's end and the last line before the call's own end.
     */
    const closeConversation = Effect.flatMap(ScopedRef.get(conversation), (open) =>
      Option.isNone(open)
        ? Effect.void
        : ScopedRef.set(conversation, Effect.succeed(Option.none<ConversationHandle>())).pipe(
          Effect.zipRight(Deferred.make<void>()),
          Effect.tap((done) => Queue.offer(reports, { _tag: "Flush", done })),
          Effect.flatMap((done) => Deferred.await(done).pipe(Effect.timeout("2 seconds"), Effect.ignore))
        ))

    /** Prepares the call's conversation (the agent's voice, the greeting) and takes its media stream when it comes. */
    const openConversation = (call: StoredCall | undefined, agent: Option.Option<Agent>) =>
      Effect.gen(function*() {
        yield* closeConversation
        if (Option.isNone(agent) || call === undefined || !isLive(call.state)) return
        if (directionOf(call.spec) === "OUTGOING") voicemail.configure(agent, telephony.carrierFor(call.spec.provider))
        yield* ScopedRef.set(
          conversation,
          Effect.map(
            conversations.prepare({
              sessionId,
              tenantId: call.spec.tenantId,
              agent: agent.value,
              history: Ref.get(transcript),
              report: onReport,
              tap: voicemail.tap,
              recording: recordingOf(agent.value, call.spec)
            }),
            Option.some
          )
        )
        voicemail.attach(Option.getOrUndefined(yield* ScopedRef.get(conversation)))
        // the call's log says what the agent cannot do here (the simulated line knows its caller's words)
        const simulated = telephony.carrierFor(call.spec.provider).name === "simulated"
        for (const message of agent.value.effectiveVoice.notices) {
          if (!(simulated && message.includes("not hear"))) yield* addEvent("notice", yield* now, { message })
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.logError("the call's conversation could not be prepared", cause)))

    const mediaRoute: Effect.Effect<MediaRoute | null> = Effect.flatMap(
      ScopedRef.get(conversation),
      Option.match({
        onNone: () => Effect.succeed(null),
        onSome: (handle) => Effect.map(handle.streamRoute, Option.getOrNull)
      })
    )

    // -----------------------------------------------------------------------
    // Reservation: extended in chunks while the call lasts
    // -----------------------------------------------------------------------

    const armExtension = (call: StoredCall | undefined): Effect.Effect<void> => {
      if (call === undefined || call.state.status !== "IN_PROGRESS") return Effect.void
      const coveredUntil = call.state.answeredAt + call.reservedSeconds * 1000
      return armTimer("extend", coveredUntil - EXTENSION_MARGIN_MS, extendReservation)
    }

    const extendReservation: Effect.Effect<void> = locked((held) =>
      Effect.gen(function*() {
        const call = yield* callOf(held)
        if (call === undefined || call.state.status !== "IN_PROGRESS") return
        const { spec } = call
        const step = Math.round(call.reservedSeconds / spec.reservationChunkSeconds)
        const amount = costOf(spec.reservationChunkSeconds, spec.voicePerMinute)
        const extended = yield* deliver(tenant(call).Extend({ reservationId: sessionId, step, amount })).pipe(
          Effect.as(true),
          Effect.catchTags({
            InsufficientFunds: () => Effect.succeed(false),
            ReservationNotOpen: () => Effect.succeed(false)
          }),
          Effect.orDie
        )
        const at = yield* now
        if (extended) {
          const next = { ...call, reservedSeconds: call.reservedSeconds + spec.reservationChunkSeconds }
          yield* setCall(held, next)
          yield* save(next.state, { reservedSeconds: next.reservedSeconds }, {
            type: "reservation_extended",
            at,
            detail: { reservedSeconds: next.reservedSeconds }
          })
          yield* armExtension(yield* callOf(held))
        } else {
          // the wallet cannot cover more: the call goes on until the talk time already held runs out
          const state = call.state
          yield* repo.addEvent(sessionId, yield* epochNow, "reservation_refused", at, {
            reservedSeconds: call.reservedSeconds
          })
          yield* armTimer(
            "funds",
            state.answeredAt + call.reservedSeconds * 1000,
            Effect.flatMap(now, (t) => apply(CallEvent.FundsExhausted({ at: t })))
          )
        }
      })
    )

    // -----------------------------------------------------------------------
    // Transfer
    // -----------------------------------------------------------------------

    const transfer = makeTransfer<Held>({
      sessionId,
      repo: yield* CallTransfersRepo,
      locked,
      call: (held) => Effect.zipWith(callOf(held), fencedNow, (call, fenced) => fenced ? undefined : call),
      carrier: (call) => telephony.carrierFor(call.spec.provider),
      now,
      addEvent,
      addLine: (line) =>
        Effect.zipRight(
          Ref.update(transcript, (said) => [...said, line]),
          Effect.flatMap(Ref.get(ownership), (o) => o.fenced ? Effect.void : repo.appendLine(sessionId, o.epoch, line))
        ),
      transferred: (held, at) => applyUnlocked(held, CallEvent.Transferred({ at })),
      replyOf: (held) => Effect.map(callOf(held), (call) => replyOf(call?.state))
    })

    /** The agent's transfer_call, once its hand-off line was said; a transfer the carrier refuses hangs up instead. */
    const agentTransfer = (toNumber: string, mode: TransferMode) =>
      transfer({ toNumber, mode, source: "agent" satisfies TransferSource }).pipe(
        Effect.catchTags({
          // the call ended meanwhile (the caller hung up during the hand-off line): nothing to do
          CallNotLive: () => Effect.void,
          TransferFailed: (error) =>
            Effect.gen(function*() {
              yield* Effect.logWarning(`the agent's transfer failed: ${error.message}`)
              const at = yield* now
              yield* addEvent("agent_hangup", at, { reason: "transfer_failed" })
              yield* apply(CallEvent.AgentHungUp({ at }))
            })
        })
      )

    // -----------------------------------------------------------------------
    // Commands the machine asks for (each run by the holder of the lock that stepped the machine)
    // -----------------------------------------------------------------------

    const placeCall = (held: Held) =>
      Effect.gen(function*() {
        const call = (yield* callOf(held))!
        const { spec } = call
        const carrier = telephony.carrierFor(spec.provider)
        const agent = yield* agentOf(spec.agentId, spec.tenantId)
        // the greeting is synthesised while the phone rings
        yield* openConversation(call, agent)
        // an incoming call is at the carrier already: it is answered by `Answer`, not dialled
        if (directionOf(spec) === "INCOMING") return []
        const media = yield* mediaRoute
        const scripted = scriptFromMetadata(spec.metadata)
        if (scripted !== undefined && scripted.problems.length > 0) {
          yield* addEvent("notice", yield* now, {
            message: `the simulated caller's script: ${scripted.problems.join("; ")}`
          })
        }
        const placed = yield* carrier.dial({
          sessionId,
          provider: spec.provider,
          from: spec.fromNumber ?? "",
          to: spec.toNumber ?? "",
          agent: personaOf(spec.tenantId, agent),
          media: media === null ? undefined : media,
          callerScript: scripted?.script,
          machineDetection: voicemail.carrierDetection()
        }).pipe(
          Effect.either
        )
        yield* countDial(spec.provider, placed._tag === "Left" ? "refused" : "placed")
        if (placed._tag === "Left") {
          const at = yield* now
          yield* repo.addEvent(sessionId, yield* epochNow, "dial_refused", at, { reason: placed.left.reason })
          return [CallEvent.DialFailed({ at })]
        }
        const dialled = { ...(yield* callOf(held))!, providerCallId: placed.right.providerCallId }
        yield* setCall(held, dialled)
        // awaited: a call resumed elsewhere asks its carrier by this id
        yield* save(dialled.state, { providerCallId: placed.right.providerCallId })
        return []
      })

    const hangUp = (call: StoredCall | undefined) => {
      const providerCallId = call?.providerCallId
      if (call === undefined || providerCallId === null || providerCallId === undefined) return Effect.void
      const state = call.state
      const reason = state.status === "ENDED" ? state.reason : undefined
      return telephony.carrierFor(call.spec.provider).hangup(providerCallId, reason).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("hang-up failed", cause))
      )
    }

    /**
     * Writes the end (the session `ENDED` with its figures, the campaign's side, the call-ended
     * outbox) through the runner's journal, awaited, then has the tenant settle it.
     */
    const finish = (held: Held) =>
      Effect.gen(function*() {
        yield* cancelTimers
        yield* closeConversation
        const call = (yield* callOf(held))!
        const { spec, state } = call
        if (state.status !== "ENDED" || (yield* fencedNow)) return
        const duration = talkSeconds(state)
        const billed = billableSeconds(duration, spec.billingIncrementSeconds)
        // charged: the cost, never more than was held for the call (its first chunk and each extension);
        // the settlement flush charges exactly this from the ENDED row
        const reserved = spec.reservationChunkSeconds > 0
          ? Math.round(call.reservedSeconds / spec.reservationChunkSeconds) *
            costOf(spec.reservationChunkSeconds, spec.voicePerMinute)
          : 0
        const settled = { charged: Math.min(costOf(billed, spec.voicePerMinute), reserved) }
        const said = (yield* Ref.get(transcript)).filter((line) => line.at <= state.endedAt)
        const event: CallEndedEvent = {
          sessionId,
          tenantId: spec.tenantId,
          agentId: spec.agentId,
          campaignId: spec.campaignId,
          campaignAttemptId: spec.campaignAttemptId,
          customerId: spec.customerId,
          direction: directionOf(spec),
          fromNumber: spec.fromNumber,
          toNumber: spec.toNumber,
          outcome: state.outcome,
          endReason: state.reason,
          startedAt: new Date(state.dialedAt ?? call.createdAt.getTime()),
          answeredAt: state.answeredAt === null ? null : new Date(state.answeredAt),
          endedAt: new Date(state.endedAt),
          durationSeconds: duration,
          billedSeconds: billed,
          cost: settled.charged,
          currency: spec.currency,
          transcript: said.map((t) => ({ ...t, at: new Date(t.at) })),
          metadata: spec.metadata,
          ...voicemail.result()
        }
        const ended = yield* journal.end({
          sessionId,
          epoch: yield* epochNow,
          state,
          startedAt: event.startedAt.getTime(),
          durationSeconds: duration,
          billedSeconds: billed,
          cost: settled.charged,
          transcript: said,
          providerCallId: call.providerCallId,
          event
        })
        // ended already, or by a newer instance: that one settles it (the journal has the tenant settle
        // what it ended, once a flush for every tenant in it)
        if (!ended) return yield* stepDown
        yield* callEnded.committed(event)
        yield* Effect.logInfo("call ended").pipe(Effect.annotateLogs({
          tenantId: spec.tenantId,
          outcome: state.outcome,
          endReason: state.reason,
          durationSeconds: duration,
          cost: settled.charged
        }))
      })

    const none: ReadonlyArray<CallEvent> = []

    /** Carries out one of the machine's commands; answers the events it produces (a refused dial). */
    const run = (held: Held, command: CallCommand): Effect.Effect<ReadonlyArray<CallEvent>> =>
      Effect.flatMap(callOf(held), (call) => {
        const { spec, state } = call!
        return CallCommand.$match(command, {
          PlaceCall: () => placeCall(held),
          ArmRingTimer: () =>
            state.status === "DIALING" || state.status === "RINGING"
              ? Effect.as(wakeAt(state.dialedAt + spec.dialTimeoutSeconds * 1000), none)
              : Effect.succeed(none),
          ArmMaxDurationTimer: () =>
            state.status === "IN_PROGRESS"
              ? cancelTimer(RING).pipe(
                Effect.zipRight(
                  armTimer(
                    "max",
                    state.answeredAt + spec.maxDurationSeconds * 1000,
                    Effect.flatMap(now, (at) => apply(CallEvent.MaxDuration({ at })))
                  )
                ),
                Effect.zipRight(armExtension(call)),
                Effect.as(none)
              )
              : Effect.succeed(none),
          HangUp: () => Effect.as(hangUp(call), none),
          Finish: () => Effect.as(finish(held), none)
        })
      })

    const EVENT_NAMES: Record<CallState["status"], string> = {
      QUEUED: "queued",
      DIALING: "dialing",
      RINGING: "ringing",
      IN_PROGRESS: "answered",
      ENDED: "ended"
    }

    /**
     * Writes `DIALING`, from `QUEUED` only, awaited: the carrier is asked only once it is durable. A
     * claimed session takes its owner epoch here. One that is not `QUEUED` any more (another instance
     * dialled it) is read back and resumed from what is stored; one owned by a newer instance is left
     * to it. Answers whether this instance dials.
     */
    const writeDialing = (held: Held, at: number) =>
      Effect.gen(function*() {
        const { claimOnDial } = yield* Ref.get(held)
        const owned = yield* journal.dial(sessionId, claimOnDial ? null : yield* epochNow, at)
        if (claimOnDial) yield* Ref.update(held, (live) => ({ ...live, claimOnDial: false }))
        if (owned !== null) {
          yield* Ref.update(ownership, (o) => ({ ...o, epoch: owned }))
          return true
        }
        if (!claimOnDial) {
          yield* stepDown
          return false
        }
        yield* Effect.logInfo("a claimed call was not waiting to be dialled: resuming it from its row")
        yield* Ref.set(source, "stored")
        yield* install(held, yield* loadOnce)
        // this request holds the lock: resumed once it lets the lock go
        yield* Effect.forkIn(resumeOnce, scope)
        return false
      })

    /**
     * Moves the machine by one event and writes where the call now stands (`DIALING` awaited, the rest
     * as notes); answers the commands to carry out: none when nothing changed, or the call is no
     * longer this instance's to act on.
     */
    const step = (held: Held, event: CallEvent): Effect.Effect<ReadonlyArray<CallCommand>> =>
      Effect.gen(function*() {
        const call = yield* callOf(held)
        if (call === undefined || (yield* fencedNow)) return []
        const next = transition(call.state, event)
        if (!next.changed) return []
        yield* setCall(held, { ...call, state: next.state })
        yield* recount(yield* callOf(held))
        if (next.state.status === "DIALING") {
          if (!(yield* writeDialing(held, next.state.dialedAt))) return []
        } else if (next.state.status !== "ENDED") {
          yield* note(next.state, {}, {
            type: EVENT_NAMES[next.state.status],
            at: Math.max(event.at, knownUntil(next.state))
          })
        }
        // a ringing call answered stays in memory from now on
        yield* stayResident(yield* callOf(held))
        return (yield* fencedNow) ? [] : next.commands
      })

    /** Carries out the machine's commands, then feeds back the events they produce. */
    const runCommands = (held: Held, commands: ReadonlyArray<CallCommand>): Effect.Effect<void> =>
      Effect.gen(function*() {
        const followUps: Array<CallEvent> = []
        for (const command of commands) followUps.push(...(yield* run(held, command)))
        for (const next of followUps) yield* applyUnlocked(held, next)
      })

    /**
     * Feeds one event through the machine and carries out what it asks, then any events that produces (the lock held).
     */
    const applyUnlocked = (held: Held, event: CallEvent): Effect.Effect<void> =>
      Effect.flatMap(step(held, event), (commands) => runCommands(held, commands))

    const apply = (event: CallEvent) => locked((held) => applyUnlocked(held, event))

    /**
     * On (re)start of a live call: catch up with the carrier, then re-arm the timers of what is left.
     * In that order: a ring deadline that passed during an outage (or while a ringing call's entity
     * was let go) must not end as unanswered a call the carrier answered meanwhile. Run by a holder
     * of the lock (`resumeOnce`, `resumeAfter`).
     */
    const resume = (held: Held): Effect.Effect<void> =>
      Effect.gen(function*() {
        const call = yield* callOf(held)
        if (call === undefined || !isLive(call.state)) return
        yield* stayResident(call)
        const spec = call.spec
        if (call.state.status === "QUEUED") return yield* applyUnlocked(held, CallEvent.Dial({ at: yield* now }))
        // a call already dialled takes its media stream here from now on (a carrier reconnecting finds it)
        yield* openConversation(call, yield* agentOf(spec.agentId, spec.tenantId))
        const carrier = telephony.carrierFor(spec.provider)
        if (call.providerCallId === null && carrier.callOf !== undefined) {
          // dialled by a runner that died before it stored the carrier's id: the carrier knows the call
          const found = yield* carrier.callOf(sessionId).pipe(
            Effect.catchAllCause(() => Effect.succeed(Option.none<string>()))
          )
          if (Option.isSome(found)) {
            const known = { ...(yield* callOf(held))!, providerCallId: found.value }
            yield* setCall(held, known)
            yield* save(known.state, { providerCallId: found.value })
          }
        }
        const providerCallId = (yield* callOf(held))!.providerCallId
        if (providerCallId !== null) {
          yield* Effect.gen(function*() {
            const status = yield* telephony.carrierFor(spec.provider).status(providerCallId)
            const at = yield* now
            if (Option.isNone(status)) {
              // a carrier that no longer knows the call has finished it (when, it does not say)
              return yield* applyUnlocked(held, CallEvent.Completed({ at }))
            }
            // what happened while no instance ran the call, at the carrier's times: a call that ended
            // during an outage is billed for the time it talked, not until it was noticed
            const { answeredAt, endedAt, phase } = status.value
            if (answeredAt !== undefined) yield* applyUnlocked(held, CallEvent.Answered({ at: answeredAt }))
            if (phase !== "dialing") {
              yield* applyUnlocked(
                held,
                eventFor(phase, phase === "ringing" || phase === "answered" ? at : endedAt ?? at)
              )
            }
          }).pipe(
            // the timers below still guard the call when the carrier cannot be asked
            Effect.catchAllCause((cause) => Effect.logWarning("asking the carrier about a resumed call failed", cause))
          )
        }
        const state = (yield* callOf(held))!.state
        // a call in progress lost its stream with the instance that ran it: a carrier that does not come
        // back by itself (Telnyx) is asked to stream here
        const restream = telephony.carrierFor(spec.provider).restream
        if (state.status === "IN_PROGRESS" && providerCallId !== null && restream !== undefined) {
          const media = yield* mediaRoute
          if (media !== null) yield* restream(providerCallId, media)
        }
        switch (state.status) {
          case "DIALING":
          case "RINGING":
            return yield* Effect.asVoid(run(held, CallCommand.ArmRingTimer()))
          case "IN_PROGRESS":
            return yield* Effect.asVoid(run(held, CallCommand.ArmMaxDurationTimer()))
        }
      })

    const onProviderEvent = (event: ProviderEvent) =>
      Effect.zipRight(
        ensureRead,
        locked((held) =>
          Effect.gen(function*() {
            const call = yield* callOf(held)
            if (call !== undefined && call.providerCallId === null && event.providerCallId !== null) {
              yield* setCall(held, { ...call, providerCallId: event.providerCallId })
            }
            yield* applyUnlocked(held, eventFor(event.kind, event.at))
          })
        )
      )

    // in-process carriers report here directly (see LocalCalls)
    yield* localCalls.register(sessionId, onProviderEvent)

    /** A call taken over by a request that holds the lock: resumed once the request lets it go. */
    const resumeAfter = Effect.forkIn(
      locked(resume).pipe(Effect.catchAllCause((cause) => Effect.logError("resuming call failed", cause))),
      scope
    )

    const startUnlocked = (held: Held, spec: CallSpec) =>
      Effect.gen(function*() {
        const known = yield* callOf(held)
        if (known !== undefined) return replyOf(known.state)
        // the session and its reservation in one statement (funds and the call limit checked in SQL);
        // a campaign's call was inserted, reserved, by its claim (see `startClaimed`)
        const createdAt = new Date(yield* now)
        const inserted = yield* countWalletOperation("reserve")(
          repo.insertReserved(sessionId, spec, spec.reservationChunkSeconds, createdAt.getTime(), {
            amount: costOf(spec.reservationChunkSeconds, spec.voicePerMinute),
            concurrencyLimit: spec.concurrencyLimit
          })
        )
        if (inserted === "exists") {
          // another instance started the call meanwhile: this one takes it over from the stored state
          const taken = yield* repo.claim(sessionId)
          if (Option.isNone(taken)) {
            // over already: what is stored answers from now on
            const stored = Option.getOrUndefined(yield* repo.load(sessionId))
            yield* setCall(held, stored)
            return replyOf(stored?.state)
          }
          const call = taken.value.call
          yield* setCall(held, call)
          yield* Ref.update(ownership, (o) => ({ ...o, epoch: taken.value.epoch }))
          yield* Ref.set(transcript, [...call.transcript])
          voicemail.restore(call.answeredBy ?? null, call.voicemail ?? null)
          yield* resumeAfter
          return replyOf(call.state)
        }
        yield* Ref.update(ownership, (o) => ({ ...o, epoch: 1 }))
        const call: StoredCall = {
          spec,
          state: { status: "QUEUED" },
          providerCallId: null,
          reservedSeconds: spec.reservationChunkSeconds,
          createdAt,
          transcript: []
        }
        yield* setCall(held, call)
        yield* recount(call)
        yield* stayResident(call)
        yield* Effect.logInfo("call queued").pipe(Effect.annotateLogs({
          tenantId: spec.tenantId,
          agentId: spec.agentId,
          provider: spec.provider,
          campaignId: spec.campaignId
        }))
        yield* Effect.forkIn(Effect.flatMap(now, (at) => apply(CallEvent.Dial({ at }))), scope)
        return replyOf(call.state)
      })

    /**
     * A campaign's call: the claim inserted its session `QUEUED` with its reservation, so the entity
     * starts from the `Start` that names it without reading it, and its `DIALING` write claims it. It
     * answers once that write is durable: when the campaign's `Start` returns, its attempt is `DIALED`.
     */
    const startClaimed = (held: Held, spec: CallSpec) =>
      Effect.gen(function*() {
        const queued: StoredCall = {
          spec,
          state: { status: "QUEUED" },
          providerCallId: null,
          reservedSeconds: spec.reservationChunkSeconds,
          createdAt: new Date(yield* now),
          transcript: []
        }
        yield* Ref.update(held, (live) => ({ ...live, claimOnDial: true, call: queued }))
        const commands = yield* step(held, CallEvent.Dial({ at: yield* now }))
        const call = yield* callOf(held)
        // no session at all: a claim made before claims inserted sessions (one undone is never started
        // again: `unclaimBatch` takes only claims whose `Start` was not sent), started as a call of its own
        if (call === undefined) return yield* startUnlocked(held, spec)
        if (commands.length > 0) {
          yield* stayResident(call)
          // after this `Start` has answered (the lock)
          yield* Effect.forkIn(locked((next) => runCommands(next, commands)), scope)
        }
        return replyOf(call.state)
      })

    const inbound = makeInbound<Held>({
      get: callOf,
      set: setCall,
      start: startUnlocked,
      applyUnlocked,
      save,
      written: journal.flushed(sessionId),
      mediaRoute,
      finish,
      insert: (spec, at) =>
        Effect.tap(
          repo.insert(sessionId, spec, 0, at),
          (inserted) => inserted ? Ref.update(ownership, (o) => ({ ...o, epoch: 1 })) : Effect.void
        ),
      addEvent: (type, at, detail) => addEvent(type, at, detail),
      carrier: (provider) => telephony.carrierFor(provider),
      sessionId
    })

    const replyNow = Effect.map(committed, (call) => replyOf(call?.state))

    return logged({
      // a new entity's `Start` needs no read: a claimed session is claimed by its `DIALING` write, and
      // a call's own start inserts its session (or finds it there, and takes it over). Decided before
      // the lock is waited for: the read of an entity started by another request resumes under it.
      Start: ({ payload }) =>
        Effect.flatMap(
          Ref.modify(source, (from) => from === "fresh" ? [true, "started"] as const : [false, from] as const),
          (fresh) => {
            if (!fresh) return Effect.zipRight(ensureRead, locked((held) => startUnlocked(held, payload.spec)))
            return locked((held) =>
              payload.spec.campaignAttemptId !== null
                ? startClaimed(held, payload.spec)
                : startUnlocked(held, payload.spec)
            )
          }
        ),
      Answer: ({ payload }) => Effect.zipRight(ensureRead, locked((held) => inbound.answer(held, payload))),
      ProviderEvent: ({ payload }) => Effect.zipRight(onProviderEvent(payload.event), replyNow),
      MachineDetected: ({ payload }) =>
        Effect.zipRight(ensureRead, Effect.zipRight(voicemail.onVerdict(payload.verdict), replyNow)),
      Transfer: ({ payload }) => Effect.zipRight(ensureRead, transfer(payload)),
      Hangup: () =>
        Effect.gen(function*() {
          yield* ensureRead
          const at = yield* now
          const call = yield* committed
          if (call !== undefined && isLive(call.state)) {
            yield* repo.addEvent(sessionId, yield* epochNow, "hangup_requested", at)
          }
          yield* apply(CallEvent.HangupRequested({ at }))
          return yield* replyNow
        }),
      // under the lock: a call whose end is being written answers once it is written (settled, stored)
      Status: () =>
        Effect.zipRight(ensureRead, locked((held) => Effect.map(callOf(held), (call) => replyOf(call?.state)))),
      // under the lock (it sent by the carrier, never by a holder): it opens the conversation again
      StreamEnded: () =>
        Effect.zipRight(
          ensureRead,
          locked((held) =>
            Effect.gen(function*() {
              const { call, streamRestarts } = yield* Ref.get(held)
              if (call === undefined || call.state.status !== "IN_PROGRESS" || (yield* fencedNow)) return null
              const restarts = streamRestarts + 1
              yield* Ref.update(held, (live) => ({ ...live, streamRestarts: restarts }))
              if (restarts > MAX_STREAM_RESTARTS) {
                yield* addEvent("notice", yield* now, {
                  message: `the media stream ended ${MAX_STREAM_RESTARTS + 1} times: the call is hung up`
                })
                return null
              }
              if (Option.isNone(yield* ScopedRef.get(conversation))) {
                yield* openConversation(call, yield* agentOf(call.spec.agentId, call.spec.tenantId))
              }
              const route = yield* mediaRoute
              yield* addEvent("media_reconnect", yield* now, { restart: restarts, routed: route !== null })
              return route
            })
          )
        ),
      // a web call is dialled here if its Start has not got to it yet: the token is for a call that waits
      WebStreamToken: () =>
        Effect.zipRight(
          ensureRead,
          locked((held) =>
            Effect.gen(function*() {
              const call = yield* callOf(held)
              if (call === undefined || call.spec.provider !== "WEB" || (yield* fencedNow)) return null
              if (call.state.status === "QUEUED") yield* applyUnlocked(held, CallEvent.Dial({ at: yield* now }))
              const status = (yield* callOf(held))!.state.status
              if (status !== "DIALING" && status !== "RINGING") return null
              return yield* webStreams.tokenFor(sessionId)
            })
          )
        ),
      // the ring deadline, from the wheel (the entity started again by it when it had let its ringing
      // call go: then read back and resumed first, and a carrier that answered meanwhile said so)
      Wake: () =>
        Effect.zipRight(
          ensureRead,
          locked((held) =>
            Effect.gen(function*() {
              const call = yield* callOf(held)
              if (
                call !== undefined && !(yield* fencedNow) &&
                (call.state.status === "DIALING" || call.state.status === "RINGING")
              ) {
                const at = yield* now
                const deadline = call.state.dialedAt + call.spec.dialTimeoutSeconds * 1000
                // (a wake that came early, by a clock's rounding, is armed again: the wheel let it go as it fired)
                if (at >= deadline) yield* applyUnlocked(held, CallEvent.RingTimeout({ at }))
                else yield* wakeAt(deadline)
              }
              return replyOf((yield* callOf(held))?.state)
            })
          )
        ),
      // the call's stream came to this runner, which had let the entity go (`LocalMedia` holds it):
      // the resume opened the conversation, which took the stream as it registered; opened here when
      // it has not (a call resumed earlier, whose conversation was closed)
      OpenMedia: () =>
        Effect.zipRight(
          ensureRead,
          locked((held) =>
            Effect.gen(function*() {
              const call = yield* callOf(held)
              if (call === undefined || !isLive(call.state) || (yield* fencedNow)) return false
              if (Option.isNone(yield* ScopedRef.get(conversation))) {
                yield* openConversation(call, yield* agentOf(call.spec.agentId, call.spec.tenantId))
              }
              // touched while the stream is attached, even before the carrier says the call was answered
              yield* armTouch
              return Option.isSome(yield* ScopedRef.get(conversation))
            })
          )
        ),
      WebStreamAddress: () =>
        Effect.zipRight(
          ensureRead,
          Effect.map(committed, (call) =>
            call === undefined || call.spec.provider !== "WEB" || !isLive(call.state) || Option.isNone(mediaServer)
              ? null
              : mediaServer.value.webStreamUrl(sessionId))
        )
    })
  }),
  { maxIdleTime: MAX_IDLE_MS, disableFatalDefects: true }
)

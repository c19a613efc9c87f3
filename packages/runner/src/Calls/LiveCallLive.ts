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
 */
import * as Entity from "@effect/cluster/Entity"
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
import type { Agent } from "@voiceagent/domain/Agents"
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
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import { AgentsRepo } from "../Agents/AgentsRepo.js"
import type { AgentPersona } from "../Brain/AgentBrain.js"
import { countDial, countWalletOperation, moveLiveCall } from "../Observability/PlatformMetrics.js"
import { Telephony } from "../Telephony/Telephony.js"
import { CallEnded, type CallEndedEvent } from "./CallEnded.js"
import { type CallLine, CallSessionsRepo, type StoredCall } from "./CallSessionsRepo.js"
import { CallJournal, type JournalEvent } from "./CallJournal.js"
import { recordingOf } from "../Recordings/Recordings.js"
import { Conversations, type ConversationHandle } from "../Voice/Conversations.js"
import type { EngineReport } from "../Voice/Engine.js"
import { scriptFromMetadata } from "../Voice/SimulatedCaller.js"
import { bargeIn, firstAudio, recordTurn } from "../Observability/VoiceMetrics.js"
import { MediaServer } from "../Voice/MediaServer.js"
import { WebStreams } from "../Voice/WebMedia.js"
import { makeInbound } from "./InboundCalls.js"
import { LocalCalls } from "./LocalCalls.js"
import { TimerWheel } from "./TimerWheel.js"
import { CallTransfersRepo } from "./CallTransfersRepo.js"
import { makeTransfer } from "./Transfer.js"
import { makeVoicemail } from "./Voicemail.js"
import { deliver } from "../Cluster/Deliver.js"
import { withEntityHandlers } from "../Cluster/EntityHandlers.js"

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
 * holds the client and the call's id only (not the stopped instance's state).
 */
const wakeOf = (client: LiveCallClient, sessionId: SessionId): Effect.Effect<void> =>
  Effect.suspend(() => client(sessionId).Wake()).pipe(
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
    const lock = yield* Effect.makeSemaphore(1)
    const wheel = yield* TimerWheel
    const client = yield* LiveCallEntity.client
    const self = client(sessionId)

    /**
     * Where the entity's knowledge of its call comes from: nothing yet (`fresh`); the `Start` that
     * created it (`started`: a campaign's claimed session, claimed by its `DIALING` write, or a call's
     * own start, which inserts the session); or the stored row (`stored`, read by the first request
     * that needs it).
     */
    let source: "fresh" | "started" | "stored" = "fresh"
    let call: StoredCall | undefined
    let epoch = 1
    /** A claimed session's owner epoch is taken by its `DIALING` write. */
    let claimOnDial = false
    /** Set once another instance owns the call: this one does nothing more. */
    let fenced = false
    // the state this entity counts in the live-calls gauge; given back when the entity stops
    let counted: CallStatus | undefined
    const recount = Effect.suspend(() => {
      const from = counted
      counted = call === undefined || !isLive(call.state) ? undefined : call.state.status
      return moveLiveCall(from, counted)
    })
    yield* Scope.addFinalizer(scope, Effect.suspend(() => moveLiveCall(counted, undefined)))
    /** What was said, as the conversation reports it (and as stored, when the entity restarts). */
    let transcript: Array<CallLine> = []
    let conversation: { readonly handle: ConversationHandle; readonly scope: Scope.CloseableScope } | undefined
    let streamRestarts = 0
    const tenant = () => tenantClient(call!.spec.tenantId)

    /**
     * The call's timers are entries of the runner's `TimerWheel` under the session's id, by name:
     * arming one replaces the one armed before under its name. At `deadline` (epoch ms; at once
     * when it has passed) `effect` is forked in the entity's scope, so that it may cancel or arm
     * timers (the end of the call cancels them all, an extension arms the next); the entity's end
     * cancels them all.
     */
    const armTimer = (name: TimerName, deadline: number, effect: Effect.Effect<void>) =>
      wheel.arm(sessionId, name, deadline, Effect.locally(effect, FiberRef.currentLogAnnotations, entityAnnotations), scope)

    const cancelTimer = (name: TimerName | typeof RING) => wheel.cancel(sessionId, name)

    /**
     * The call's ring deadline: a `Wake` sent to the entity then (see `wakeOf`), armed apart from the
     * entity's scope so that it outlives an entity that lets its ringing call go.
     */
    const wakeAt = (deadline: number) => wheel.arm(sessionId, RING, deadline, wakeOf(client, sessionId))

    const cancelTimers = wheel.cancelAll(sessionId)
    // an entity that stops while its call rings leaves the wake at its ring deadline; any other
    // stopping instance (the call over, the shard moved, the runner stopping) takes all its timers
    yield* Scope.addFinalizer(scope, Effect.suspend(() => letGo() ? wheel.cancelAll(sessionId, [RING]) : cancelTimers))

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
    const letGo = () =>
      call !== undefined && !fenced && call.providerCallId !== null &&
      (call.state.status === "DIALING" || call.state.status === "RINGING") &&
      directionOf(call.spec) === "OUTGOING" && call.spec.provider !== "WEB" &&
      telephony.carrierFor(call.spec.provider).restream === undefined &&
      !(conversation?.handle.attached() ?? false)

    /** Whether the entity must stay in memory (see `stayResident`). */
    const resident = () => call !== undefined && isLive(call.state) && !fenced && !letGo()

    /**
     * Keeps a resident call's entity from being stopped as idle (see `RESIDENCY_TOUCH_MS`): a timer
     * that sends the entity a `Status` and arms itself again while the call is resident; a call that
     * rings stops it, and its entity goes once idle. The end of the call, or a newer instance, cancels
     * it with the other timers.
     */
    const touch: Effect.Effect<void> = Effect.suspend(() =>
      resident() ? self.Status().pipe(Effect.ignore, Effect.zipRight(armTouch)) : Effect.void
    )
    const armTouch: Effect.Effect<void> = Effect.flatMap(Clock.currentTimeMillis, (at) => armTimer("resident", at + RESIDENCY_TOUCH_MS, touch))

    /** Starts the touches again when the call is resident and they stopped (a ringing call answered). */
    const stayResident = Effect.suspend(() =>
      resident() && wheel.deadlineOf(sessionId, "resident") === undefined ? armTouch : Effect.void
    )

    const now = Clock.currentTimeMillis

    /** This instance lost the call to a newer one (or the call was ended elsewhere): it stops acting. */
    const stepDown = Effect.gen(function*() {
      if (fenced) return
      fenced = true
      yield* cancelTimers
      yield* Effect.logWarning("another instance of this call owns it now: this one stops")
    })

    const noteOf = (state: CallState, extra: LiveWrite, event: JournalEvent | undefined) => ({
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
      journal.note({ ...noteOf(state, extra, event), onRefused: stepDown })

    /** The same, awaited: what a bill rests on (the talk time held) or the carrier is told. */
    const save = (state: CallState, extra: LiveWrite = {}, event?: JournalEvent) =>
      Effect.flatMap(journal.write(noteOf(state, extra, event)), (written) => written ? Effect.void : stepDown)

    /**
     * Reads the stored call (claiming it when it is not over: the next owner epoch, so an instance of
     * this call left running on a runner that lost the shard can write nothing from now on). First
     * waits for what this runner's journal still holds of the call: an instance that let its ringing
     * call go may have noted something (ringing, the carrier's id) not yet written, under the epoch
     * this claim ends.
     */
    const readStored = Effect.gen(function*() {
      yield* journal.flushed(sessionId)
      const stored = yield* repo.claimOrLoad(sessionId)
      call = stored.call
      epoch = stored.epoch ?? 1
      transcript = call === undefined ? [] : [...call.transcript]
      if (call !== undefined) voicemail.restore(call.answeredBy ?? null, call.voicemail ?? null)
      yield* recount
    })

    /** The stored call is read once, by the first request that needs it (none for a claimed session's `Start`). */
    const readOnce = yield* Effect.cached(readStored)

    /**
     * Catches up with the stored call (`resume`), once, under the entity's lock, taken before this
     * answers: every request that waits for the lock after reading the call (a carrier's event, a
     * `Wake`, an `OpenMedia`) acts on the resumed call, its conversation open and its timers armed.
     * Never run by a holder of the lock (it waits for the lock).
     */
    const resumeOnce = yield* Effect.cached(Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        lock.take(1),
        Effect.forkIn(
          restore(resume).pipe(
            Effect.catchAllCause((cause) => Effect.logError("resuming call failed", cause)),
            Effect.ensuring(lock.release(1))
          ),
          scope
        )
      )
    ))

    /**
     * The first request that needs the call reads it and resumes it; never called under the lock.
     * A claimed session's `Start` (`started`) reads nothing.
     */
    const ensureRead = Effect.suspend(() => {
      if (source === "started") return Effect.void
      source = "stored"
      return Effect.zipRight(readOnce, resumeOnce)
    })

    const agentOf = (agentId: AgentId, tenantId: TenantId): Effect.Effect<Option.Option<Agent>> =>
      Effect.map(agents.findCached(tenantId, agentId), Option.map((record) => record.agent))

    const personaOf = (tenantId: TenantId, agent: Option.Option<Agent>): AgentPersona =>
      Option.match(agent, {
        onNone: () => ({ tenantId, name: "agent", greetMessage: "Hello!", agentPrompt: "", metadata: {}, knowledgeBaseIds: [] }),
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
            const line = transcript.find((l) => l.at === report.at && l.text === report.text && l.speaker === report.speaker)
            if (line !== undefined && !fenced) yield* repo.appendLine(sessionId, epoch, line)
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
        report._tag === "Flush" ? Deferred.succeed(report.done, undefined) : handleReport(report).pipe(Effect.catchAllCause((cause) => Effect.logWarning("a conversation report failed", cause)))
      ),
      Effect.forever,
      Effect.forkIn(scope)
    )

    /** A line is the call's the moment it is said (the end of the call may come before its row is written). */
    const onReport = (report: EngineReport) =>
      Effect.suspend(() => {
        // (a line cut off by the end of the call comes as the conversation closes, after the end)
        if (
          report._tag === "Line" && call !== undefined &&
          (isLive(call.state) || (call.state.status === "ENDED" && report.at <= call.state.endedAt))
        ) {
          transcript.push({
            speaker: report.speaker,
            text: report.text,
            at: report.at,
            interrupted: report.interrupted,
            latency: report.latency === null ? null : roundLatency(report.latency)
          })
        }
        return Queue.offer(reports, report)
      })

    const addEvent = (type: string, at: number, detail: unknown) =>
      fenced ? Effect.void : repo.addEvent(sessionId, epoch, type, at, detail)

    /**
     * Closes the conversation and waits (a bounded while) until its last reports are written, so the
     * call's log has the media's end and the last line before the call's own end.
     */
    const closeConversation = Effect.suspend(() => {
      const open = conversation
      conversation = undefined
      if (open === undefined) return Effect.void
      return Scope.close(open.scope, Exit.void).pipe(
        Effect.zipRight(Deferred.make<void>()),
        Effect.tap((done) => Queue.offer(reports, { _tag: "Flush", done })),
        Effect.flatMap((done) => Deferred.await(done).pipe(Effect.timeout("2 seconds"), Effect.ignore))
      )
    })

    /** Prepares the call's conversation (the agent's voice, the greeting) and takes its media stream when it comes. */
    const openConversation = (agent: Option.Option<Agent>) =>
      Effect.gen(function*() {
        yield* closeConversation
        if (Option.isNone(agent) || call === undefined || !isLive(call.state)) return
        if (directionOf(call.spec) === "OUTGOING") voicemail.configure(agent, telephony.carrierFor(call.spec.provider))
        const conversationScope = yield* Scope.fork(scope, ExecutionStrategy.sequential)
        const handle = yield* conversations.prepare({
          sessionId,
          tenantId: call.spec.tenantId,
          agent: agent.value,
          history: () => transcript,
          report: onReport,
          tap: voicemail.tap,
          recording: recordingOf(agent.value, call.spec)
        }).pipe(Scope.extend(conversationScope))
        conversation = { handle, scope: conversationScope }
        voicemail.attach(handle)
        // the call's log says what the agent cannot do here (the simulated line knows its caller's words)
        for (const message of agent.value.effectiveVoice.notices) {
          if (!(isSimulated() && message.includes("not hear"))) yield* addEvent("notice", yield* now, { message })
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.logError("the call's conversation could not be prepared", cause)))

    const isSimulated = () => call !== undefined && telephony.carrierFor(call.spec.provider).name === "simulated"

    const voicemail = yield* makeVoicemail({
      sessionId,
      epoch: () => epoch,
      acting: () => !fenced,
      inProgress: () => call !== undefined && call.state.status === "IN_PROGRESS",
      report: onReport,
      end: (at) => apply(CallEvent.VoicemailDone({ at }))
    })

    const mediaRoute: Effect.Effect<MediaRoute | null> = Effect.suspend(() =>
      conversation === undefined
        ? Effect.succeed(null)
        : Effect.map(conversation.handle.streamRoute, Option.getOrNull)
    )

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
      const extended = yield* deliver(tenant().Extend({ reservationId: sessionId, step, amount })).pipe(
        Effect.as(true),
        Effect.catchTags({ InsufficientFunds: () => Effect.succeed(false), ReservationNotOpen: () => Effect.succeed(false) }),
        Effect.orDie
      )
      const at = yield* now
      if (extended) {
        call = { ...call, reservedSeconds: call.reservedSeconds + spec.reservationChunkSeconds }
        yield* save(call.state, { reservedSeconds: call.reservedSeconds }, {
          type: "reservation_extended",
          at,
          detail: { reservedSeconds: call.reservedSeconds }
        })
        yield* armExtension
      } else {
        // the wallet cannot cover more: the call goes on until the talk time already held runs out
        const state = call.state
        yield* repo.addEvent(sessionId, epoch, "reservation_refused", at, { reservedSeconds: call.reservedSeconds })
        yield* armTimer("funds", state.answeredAt + call.reservedSeconds * 1000, Effect.flatMap(now, (t) => apply(CallEvent.FundsExhausted({ at: t }))))
      }
    }))

    // -----------------------------------------------------------------------
    // Transfer
    // -----------------------------------------------------------------------

    const transfer = makeTransfer({
      sessionId,
      repo: yield* CallTransfersRepo,
      lock,
      call: () => (call === undefined || fenced ? undefined : call),
      carrier: () => telephony.carrierFor(call!.spec.provider),
      now,
      addEvent,
      addLine: (line) =>
        Effect.suspend(() => {
          transcript.push(line)
          return fenced ? Effect.void : repo.appendLine(sessionId, epoch, line)
        }),
      transferred: (at) => applyUnlocked(CallEvent.Transferred({ at })),
      replyOf: () => replyOf(call?.state)
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
    // Commands the machine asks for
    // -----------------------------------------------------------------------

    const placeCall = Effect.gen(function*() {
      const { spec } = call!
      const carrier = telephony.carrierFor(spec.provider)
      const agent = yield* agentOf(spec.agentId, spec.tenantId)
      // the greeting is synthesised while the phone rings
      yield* openConversation(agent)
      // an incoming call is at the carrier already: it is answered by `Answer`, not dialled
      if (directionOf(spec) === "INCOMING") return []
      const media = yield* mediaRoute
      const scripted = scriptFromMetadata(spec.metadata)
      if (scripted !== undefined && scripted.problems.length > 0) {
        yield* addEvent("notice", yield* now, { message: `the simulated caller's script: ${scripted.problems.join("; ")}` })
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
        yield* repo.addEvent(sessionId, epoch, "dial_refused", at, { reason: placed.left.reason })
        return [CallEvent.DialFailed({ at })]
      }
      call = { ...call!, providerCallId: placed.right.providerCallId }
      // awaited: a call resumed elsewhere asks its carrier by this id
      yield* save(call.state, { providerCallId: placed.right.providerCallId })
      return []
    })

    const hangUp = Effect.suspend(() => {
      const providerCallId = call?.providerCallId
      if (providerCallId === null || providerCallId === undefined) return Effect.void
      const state = call!.state
      const reason = state.status === "ENDED" ? state.reason : undefined
      return telephony.carrierFor(call!.spec.provider).hangup(providerCallId, reason).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("hang-up failed", cause))
      )
    })

    /**
     * Writes the end (the session `ENDED` with its figures, the campaign's side, the call-ended
     * outbox) through the runner's journal, awaited, then has the tenant settle it.
     */
    const finish = Effect.gen(function*() {
      yield* cancelTimers
      yield* closeConversation
      const { spec, state } = call!
      if (state.status !== "ENDED" || fenced) return
      const duration = talkSeconds(state)
      const billed = billableSeconds(duration, spec.billingIncrementSeconds)
      // charged: the cost, never more than was held for the call (its first chunk and each extension);
      // the settlement flush charges exactly this from the ENDED row
      const held = spec.reservationChunkSeconds > 0
        ? Math.round(call!.reservedSeconds / spec.reservationChunkSeconds) * costOf(spec.reservationChunkSeconds, spec.voicePerMinute)
        : 0
      const settled = { charged: Math.min(costOf(billed, spec.voicePerMinute), held) }
      const said = transcript.filter((line) => line.at <= state.endedAt)
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
        startedAt: new Date(state.dialedAt ?? call!.createdAt.getTime()),
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
        epoch,
        state,
        startedAt: event.startedAt.getTime(),
        durationSeconds: duration,
        billedSeconds: billed,
        cost: settled.charged,
        transcript: said,
        providerCallId: call!.providerCallId,
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
    const run = (command: CallCommand): Effect.Effect<ReadonlyArray<CallEvent>> => {
      const spec = call!.spec
      const state = call!.state
      return CallCommand.$match(command, {
        PlaceCall: () => placeCall,
        ArmRingTimer: () =>
          state.status === "DIALING" || state.status === "RINGING"
            ? Effect.as(wakeAt(state.dialedAt + spec.dialTimeoutSeconds * 1000), none)
            : Effect.succeed(none),
        ArmMaxDurationTimer: () =>
          state.status === "IN_PROGRESS"
            ? cancelTimer(RING).pipe(
              Effect.zipRight(armTimer("max", state.answeredAt + spec.maxDurationSeconds * 1000, Effect.flatMap(now, (at) => apply(CallEvent.MaxDuration({ at }))))),
              Effect.zipRight(armExtension),
              Effect.as(none)
            )
            : Effect.succeed(none),
        HangUp: () => Effect.as(hangUp, none),
        Finish: () => Effect.as(finish, none)
      })
    }

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
    const writeDialing = (at: number) =>
      Effect.gen(function*() {
        const owned = yield* journal.dial(sessionId, claimOnDial ? null : epoch, at)
        if (owned !== null) {
          epoch = owned
          claimOnDial = false
          return true
        }
        if (!claimOnDial) {
          yield* stepDown
          return false
        }
        claimOnDial = false
        yield* Effect.logInfo("a claimed call was not waiting to be dialled: resuming it from its row")
        source = "stored"
        yield* readOnce
        // under the lock here: resumed once this request lets the lock go
        yield* Effect.forkIn(resumeOnce, scope)
        return false
      })

    /**
     * Moves the machine by one event and writes where the call now stands (`DIALING` awaited, the rest
     * as notes); answers the commands to carry out: none when nothing changed, or the call is no
     * longer this instance's to act on.
     */
    const step = (event: CallEvent): Effect.Effect<ReadonlyArray<CallCommand>> =>
      Effect.gen(function*() {
        if (call === undefined || fenced) return []
        const next = transition(call.state, event)
        if (!next.changed) return []
        call = { ...call, state: next.state }
        yield* recount
        if (next.state.status === "DIALING") {
          if (!(yield* writeDialing(next.state.dialedAt))) return []
        } else if (next.state.status !== "ENDED") {
          yield* note(next.state, {}, { type: EVENT_NAMES[next.state.status], at: Math.max(event.at, knownUntil(call.state)) })
        }
        // a ringing call answered stays in memory from now on
        yield* stayResident
        return fenced ? [] : next.commands
      })

    /** Carries out the machine's commands, then feeds back the events they produce. */
    const runCommands = (commands: ReadonlyArray<CallCommand>): Effect.Effect<void> =>
      Effect.gen(function*() {
        const followUps: Array<CallEvent> = []
        for (const command of commands) followUps.push(...(yield* run(command)))
        for (const next of followUps) yield* applyUnlocked(next)
      })

    /** Feeds one event through the machine and carries out what it asks, then any events that produces. */
    const applyUnlocked = (event: CallEvent): Effect.Effect<void> => Effect.flatMap(step(event), runCommands)

    const apply = (event: CallEvent) => lock.withPermits(1)(applyUnlocked(event))

    /**
     * On (re)start of a live call: catch up with the carrier, then re-arm the timers of what is left.
     * In that order: a ring deadline that passed during an outage (or while a ringing call's entity
     * was let go) must not end as unanswered a call the carrier answered meanwhile. Run under the lock
     * (`resumeOnce`): the events it applies are applied unlocked.
     */
    const resume: Effect.Effect<void> = Effect.gen(function*() {
      if (call === undefined || !isLive(call.state)) return
      yield* stayResident
      const spec = call.spec
      if (call.state.status === "QUEUED") return yield* applyUnlocked(CallEvent.Dial({ at: yield* now }))
      // a call already dialled takes its media stream here from now on (a carrier reconnecting finds it)
      yield* openConversation(yield* agentOf(spec.agentId, spec.tenantId))
      const carrier = telephony.carrierFor(spec.provider)
      if (call.providerCallId === null && carrier.callOf !== undefined) {
        // dialled by a runner that died before it stored the carrier's id: the carrier knows the call
        const found = yield* carrier.callOf(sessionId).pipe(Effect.catchAllCause(() => Effect.succeed(Option.none<string>())))
        if (Option.isSome(found)) {
          call = { ...call, providerCallId: found.value }
          yield* save(call.state, { providerCallId: found.value })
        }
      }
      const providerCallId = call.providerCallId
      if (providerCallId !== null) {
        yield* Effect.gen(function*() {
          const status = yield* telephony.carrierFor(spec.provider).status(providerCallId)
          const at = yield* now
          if (Option.isNone(status)) {
            // a carrier that no longer knows the call has finished it (when, it does not say)
            return yield* applyUnlocked(CallEvent.Completed({ at }))
          }
          // what happened while no instance ran the call, at the carrier's times: a call that ended
          // during an outage is billed for the time it talked, not until it was noticed
          const { answeredAt, endedAt, phase } = status.value
          if (answeredAt !== undefined) yield* applyUnlocked(CallEvent.Answered({ at: answeredAt }))
          if (phase !== "dialing") yield* applyUnlocked(eventFor(phase, phase === "ringing" || phase === "answered" ? at : endedAt ?? at))
        }).pipe(
          // the timers below still guard the call when the carrier cannot be asked
          Effect.catchAllCause((cause) => Effect.logWarning("asking the carrier about a resumed call failed", cause))
        )
      }
      const state = call.state
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
          return yield* run(CallCommand.ArmRingTimer())
        case "IN_PROGRESS":
          return yield* run(CallCommand.ArmMaxDurationTimer())
      }
    })

    const onProviderEvent = (event: ProviderEvent) =>
      Effect.gen(function*() {
        yield* ensureRead
        if (call !== undefined && call.providerCallId === null && event.providerCallId !== null) {
          call = { ...call, providerCallId: event.providerCallId }
        }
        yield* apply(eventFor(event.kind, event.at))
      })

    // in-process carriers report here directly (see LocalCalls)
    yield* localCalls.register(sessionId, onProviderEvent)

    /** A call taken over by a request that holds the lock: resumed once the request lets it go. */
    const resumeAfter = Effect.forkIn(
      lock.withPermits(1)(resume).pipe(Effect.catchAllCause((cause) => Effect.logError("resuming call failed", cause))),
      scope
    )

    const startUnlocked = (spec: CallSpec) =>
        Effect.gen(function*() {
          if (call !== undefined) return replyOf(call.state)
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
              call = Option.getOrUndefined(yield* repo.load(sessionId))
              return replyOf(call?.state)
            }
            call = taken.value.call
            epoch = taken.value.epoch
            transcript = [...call.transcript]
            voicemail.restore(call.answeredBy ?? null, call.voicemail ?? null)
            yield* resumeAfter
            return replyOf(call.state)
          }
          epoch = 1
          call = {
            spec,
            state: { status: "QUEUED" },
            providerCallId: null,
            reservedSeconds: spec.reservationChunkSeconds,
            createdAt,
            transcript: []
          }
          yield* recount
          yield* stayResident
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
    const startClaimed = (spec: CallSpec) =>
      Effect.gen(function*() {
        claimOnDial = true
        call = {
          spec,
          state: { status: "QUEUED" },
          providerCallId: null,
          reservedSeconds: spec.reservationChunkSeconds,
          createdAt: new Date(yield* now),
          transcript: []
        }
        const commands = yield* step(CallEvent.Dial({ at: yield* now }))
        // no session at all: a claim made before claims inserted sessions (one undone is never started
        // again: `unclaimBatch` takes only claims whose `Start` was not sent), started as a call of its own
        if (call === undefined) return yield* startUnlocked(spec)
        if (commands.length > 0) {
          yield* stayResident
          // after this `Start` has answered (the lock)
          yield* Effect.forkIn(lock.withPermits(1)(runCommands(commands)), scope)
        }
        return replyOf(call.state)
      })

    const inbound = makeInbound({
      get: () => call,
      set: (next) => {
        call = next
      },
      start: startUnlocked,
      applyUnlocked,
      save,
      written: journal.flushed(sessionId),
      mediaRoute,
      finish,
      insert: (spec, at) =>
        Effect.map(repo.insert(sessionId, spec, 0, at), (inserted) => {
          if (inserted) epoch = 1
          return inserted
        }),
      addEvent: (type, at, detail) => addEvent(type, at, detail),
      carrier: (provider) => telephony.carrierFor(provider),
      sessionId
    })

    return logged({
      // a new entity's `Start` needs no read: a claimed session is claimed by its `DIALING` write, and
      // a call's own start inserts its session (or finds it there, and takes it over). Decided before
      // the lock is waited for: the read of an entity started by another request resumes under it.
      Start: ({ payload }) =>
        Effect.suspend(() => {
          if (source !== "fresh") return Effect.zipRight(ensureRead, lock.withPermits(1)(startUnlocked(payload.spec)))
          source = "started"
          return lock.withPermits(1)(payload.spec.campaignAttemptId !== null ? startClaimed(payload.spec) : startUnlocked(payload.spec))
        }),
      Answer: ({ payload }) => Effect.zipRight(ensureRead, lock.withPermits(1)(inbound.answer(payload))),
      ProviderEvent: ({ payload }) => Effect.map(onProviderEvent(payload.event), () => replyOf(call?.state)),
      MachineDetected: ({ payload }) =>
        Effect.zipRight(ensureRead, Effect.map(voicemail.onVerdict(payload.verdict), () => replyOf(call?.state))),
      Transfer: ({ payload }) => Effect.zipRight(ensureRead, transfer(payload)),
      Hangup: () =>
        Effect.gen(function*() {
          yield* ensureRead
          const at = yield* now
          if (call !== undefined && isLive(call.state)) yield* repo.addEvent(sessionId, epoch, "hangup_requested", at)
          yield* apply(CallEvent.HangupRequested({ at }))
          return replyOf(call?.state)
        }),
      // under the lock: a call whose end is being written answers once it is written (settled, stored)
      Status: () => Effect.zipRight(ensureRead, lock.withPermits(1)(Effect.sync(() => replyOf(call?.state)))),
      StreamEnded: () =>
        Effect.gen(function*() {
          yield* ensureRead
          if (call === undefined || call.state.status !== "IN_PROGRESS" || fenced) return null
          if (++streamRestarts > MAX_STREAM_RESTARTS) {
            yield* addEvent("notice", yield* now, { message: `the media stream ended ${MAX_STREAM_RESTARTS + 1} times: the call is hung up` })
            return null
          }
          if (conversation === undefined) yield* openConversation(yield* agentOf(call.spec.agentId, call.spec.tenantId))
          const route = yield* mediaRoute
          yield* addEvent("media_reconnect", yield* now, { restart: streamRestarts, routed: route !== null })
          return route
        }),
      // a web call is dialled here if its Start has not got to it yet: the token is for a call that waits
      WebStreamToken: () =>
        Effect.zipRight(ensureRead, lock.withPermits(1)(Effect.gen(function*() {
          if (call === undefined || call.spec.provider !== "WEB" || fenced) return null
          if (call.state.status === "QUEUED") yield* applyUnlocked(CallEvent.Dial({ at: yield* now }))
          if (call.state.status !== "DIALING" && call.state.status !== "RINGING") return null
          return yield* webStreams.tokenFor(sessionId)
        }))),
      // the ring deadline, from the wheel (the entity started again by it when it had let its ringing
      // call go: then read back and resumed first, and a carrier that answered meanwhile said so)
      Wake: () =>
        Effect.zipRight(ensureRead, lock.withPermits(1)(Effect.gen(function*() {
          if (call !== undefined && !fenced && (call.state.status === "DIALING" || call.state.status === "RINGING")) {
            const at = yield* now
            const deadline = call.state.dialedAt + call.spec.dialTimeoutSeconds * 1000
            // (a wake that came early, by a clock's rounding, is armed again: the wheel let it go as it fired)
            if (at >= deadline) yield* applyUnlocked(CallEvent.RingTimeout({ at }))
            else yield* wakeAt(deadline)
          }
          return replyOf(call?.state)
        }))),
      // the call's stream came to this runner, which had let the entity go (`LocalMedia` holds it):
      // the resume opened the conversation, which took the stream as it registered; opened here when
      // it has not (a call resumed earlier, whose conversation was closed)
      OpenMedia: () =>
        Effect.zipRight(ensureRead, lock.withPermits(1)(Effect.gen(function*() {
          if (call === undefined || !isLive(call.state) || fenced) return false
          if (conversation === undefined) yield* openConversation(yield* agentOf(call.spec.agentId, call.spec.tenantId))
          // touched while the stream is attached, even before the carrier says the call was answered
          yield* armTouch
          return conversation !== undefined
        }))),
      WebStreamAddress: () =>
        Effect.zipRight(
          ensureRead,
          Effect.sync(() =>
            call === undefined || call.spec.provider !== "WEB" || !isLive(call.state) || Option.isNone(mediaServer)
              ? null
              : mediaServer.value.webStreamUrl(sessionId)
          )
        )
    })
  }),
  { maxIdleTime: MAX_IDLE_MS, disableFatalDefects: true }
)

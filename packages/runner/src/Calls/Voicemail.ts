/**
 * Voicemail detection on one outbound call, beside its `LiveCall` entity (docs/voicemail.md).
 *
 * The conversation starts at once, whatever detection is on: the greeting to a person is never
 * delayed. A verdict comes from the carrier (`LiveCall.MachineDetected`: Twilio's asynchronous AMD,
 * Telnyx's answering-machine detection) or from our own detector on the callee's audio (a long
 * greeting without a pause, the beep), tapped from the media stream before the conversation hears
 * it. The first verdict is the call's `answeredBy`. On a machine, by the agent's policy: hang up at
 * once, or stop the conversation, wait for the end of the greeting (the carrier's word, or the beep
 * we hear, or `BEEP_WAIT_MS` at most), say the message (not interruptible: nothing the machine plays
 * stops it), and hang up once it has played.
 */
import type { Agent } from "@voiceagent/domain/Agents"
import type { SessionId } from "@voiceagent/domain/Calls"
import type { AnsweredBy, MachineVerdict, ResolvedVoicemail, VoicemailResult } from "@voiceagent/domain/Voicemail"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { VoicemailRepo } from "../CallRecords/VoicemailRepo.js"
import { concat, durationMs } from "../Voice/Audio.js"
import type { EngineReport } from "../Voice/Engine.js"
import { type DetectorEvent, makeMachineDetector } from "../Voice/MachineDetector.js"
import type { AudioFrame, MediaSession } from "../Voice/Media.js"
import type { TtsSession } from "../Voice/TextToSpeech.js"
import type { ConversationHandle } from "./Conversations.js"

/** The longest wait for a machine's greeting to end before the message is left anyway. */
export const BEEP_WAIT_MS = 30_000
/** How long past the message's own length its last mark may take to come back. */
const PLAYOUT_GRACE_MS = 5_000
const END_MARK = "voicemail-end"

export interface VoicemailCall {
  readonly sessionId: SessionId
  /** The owner epoch of this instance, and whether it still acts for the call. */
  readonly epoch: Effect.Effect<number>
  readonly acting: Effect.Effect<boolean>
  /** Whether the call is answered and not over. */
  readonly inProgress: Effect.Effect<boolean>
  /** The conversation's report sink (the message goes in the transcript as the agent's line). */
  readonly report: (report: EngineReport) => Effect.Effect<void>
  /** Ends the call as a voicemail (`VoicemailDone`): the entity hangs up through the carrier. */
  readonly end: (at: number) => Effect.Effect<void>
}

type Phase = "listening" | "waiting" | "leaving" | "done"

export const makeVoicemail = (call: VoicemailCall) =>
  Effect.gen(function*() {
    const repo = yield* VoicemailRepo
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock
    let settings: ResolvedVoicemail | undefined
    /** Our detector's verdict counts (no carrier verdict is coming); otherwise it only listens for the beep. */
    let ownVerdict = false
    let carrierDetection = false
    // a new call's; a call read from its row gives what was stored (`restore`)
    let answeredBy: AnsweredBy | null = null
    let result: VoicemailResult | null = null
    let phase: Phase = "listening"
    let handle: ConversationHandle | undefined
    const greetingEnded = yield* Deferred.make<number>()
    const heard = yield* Queue.unbounded<DetectorEvent>()

    /** What the agent chose and what the carrier can do: whether the dial asks the carrier for a verdict. */
    const configure = (
      agent: Option.Option<Agent>,
      carrier: { readonly machineDetection?: boolean | undefined; readonly name: string }
    ) => {
      settings = Option.isSome(agent) ? agent.value.effectiveVoice.voicemail : undefined
      const detection = settings?.detection ?? "off"
      if (detection === "off" || carrier.name === "web") {
        settings = undefined
        carrierDetection = false
        return
      }
      carrierDetection = detection === "carrier" && carrier.machineDetection === true
      ownVerdict = !carrierDetection
    }

    /** The callee's frames through our detector on their way to the conversation. */
    const tap = (media: MediaSession): MediaSession => {
      if (settings === undefined || media.listen === undefined || phase === "done") return media
      const detector = makeMachineDetector()
      const listen = media.listen
      return {
        ...media,
        listen: (listener) =>
          listen((frame: AudioFrame) => {
            if (phase !== "done") {
              for (const event of detector.push(frame.pcm, clock.unsafeCurrentTimeMillis())) {
                Queue.unsafeOffer(heard, event)
              }
            }
            listener(frame)
          })
      }
    }

    const record = (verdict: MachineVerdict) =>
      Effect.gen(function*() {
        const acting = yield* call.acting
        if (answeredBy !== null || !acting) return false
        answeredBy = verdict.answeredBy
        yield* repo.recordAnsweredBy(call.sessionId, yield* call.epoch, verdict.answeredBy, verdict.at, {
          source: verdict.source,
          raw: verdict.raw
        })
        return true
      })

    const finish = (what: VoicemailResult, at: number, detail: unknown) =>
      Effect.gen(function*() {
        if (phase === "done" && result !== null) return
        phase = "done"
        result = what
        if (yield* call.acting) yield* repo.recordVoicemail(call.sessionId, yield* call.epoch, what, at, detail)
        // the end closes the conversation, and with it the stream this may be running on: not from here
        yield* Effect.forkIn(call.end(at), scope)
      })

    /** Says the message on the stream, whole, and waits until it has played (or the stream stops). */
    const leaveMessage =
      (message: string) => (media: MediaSession, speech: TtsSession): Effect.Effect<void, never, Scope.Scope> =>
        Effect.gen(function*() {
          // a stream that comes again after the message (the carrier reconnecting before the hang-up) gets nothing
          if (result !== null) return
          // what the conversation had queued (its greeting) is dropped: the machine records only the message
          yield* media.clear
          const endedAt = yield* Deferred.await(greetingEnded).pipe(
            Effect.timeoutTo({ duration: BEEP_WAIT_MS, onTimeout: () => Option.none<number>(), onSuccess: Option.some })
          )
          phase = "leaving"
          const parts = yield* Stream.runCollect(speech.synthesize(message)).pipe(
            Effect.orElseSucceed(() => Chunk.empty())
          )
          const pcm = concat(Chunk.toReadonlyArray(parts).flatMap((part) => part._tag === "Audio" ? [part.pcm] : []))
          const startedAt = yield* Clock.currentTimeMillis
          yield* media.play(pcm)
          yield* media.mark(END_MARK)
          const played = yield* Effect.gen(function*() {
            for (;;) {
              const event = yield* Queue.take(media.events)
              if (event._tag === "Mark" && event.name === END_MARK) return true
              if (event._tag === "Stopped") return false
            }
          }).pipe(Effect.timeoutTo({
            duration: durationMs(pcm.length) + PLAYOUT_GRACE_MS,
            onTimeout: () => false,
            onSuccess: (x) => x
          }))
          const at = yield* Clock.currentTimeMillis
          yield* call.report({
            _tag: "Line",
            speaker: "agent",
            text: message,
            at: startedAt,
            interrupted: !played,
            latency: null
          })
          yield* finish("message_left", at, {
            afterBeep: Option.isSome(endedAt),
            played,
            messageMs: Math.round(durationMs(pcm.length))
          })
        })

    const onMachine = (verdict: MachineVerdict) =>
      Effect.gen(function*() {
        if (verdict.messageEnded) {
          yield* Deferred.succeed(greetingEnded, verdict.at)
        }
        const inProgress = yield* call.inProgress
        if (phase !== "listening" || settings === undefined || !inProgress) return
        // a fax takes no message
        if (settings.policy === "hangup" || verdict.raw === "fax") {
          return yield* finish("hung_up", verdict.at, { source: verdict.source })
        }
        phase = "waiting"
        if (handle === undefined) {
          return yield* finish("hung_up", verdict.at, { source: verdict.source, reason: "no conversation" })
        }
        yield* handle.takeOver(leaveMessage(settings.message))
      })

    /** A verdict from the carrier or our detector (each carrier verdict once: the entity dedupes by its id). */
    const onVerdict = (verdict: MachineVerdict) =>
      Effect.gen(function*() {
        if (settings === undefined || !(yield* call.acting)) return
        const first = yield* record(verdict)
        if (verdict.answeredBy === "machine" && (first || answeredBy === "machine")) return yield* onMachine(verdict)
        if (first) phase = "done"
      })

    // what our detector hears, in order
    yield* Queue.take(heard).pipe(
      Effect.flatMap((event) =>
        Effect.gen(function*() {
          if (event._tag === "Beep") {
            if (answeredBy === "machine" || answeredBy === null) {
              yield* Deferred.succeed(greetingEnded, event.at)
              if (answeredBy === null && ownVerdict) {
                yield* onVerdict({
                  verdictId: "audio:beep",
                  answeredBy: "machine",
                  messageEnded: true,
                  source: "audio",
                  raw: "beep",
                  at: event.at
                })
              }
            }
            return
          }
          if (ownVerdict) {
            yield* onVerdict({
              verdictId: `audio:${event.answeredBy}`,
              answeredBy: event.answeredBy,
              messageEnded: false,
              source: "audio",
              raw: event.reason,
              at: event.at
            })
          }
        })
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("voicemail detection failed", cause)),
      Effect.forever,
      Effect.forkIn(scope)
    )

    return {
      configure,
      /** Whether the dial asks the carrier for its verdict. */
      carrierDetection: () => carrierDetection,
      tap,
      attach: (conversation: ConversationHandle | undefined) => {
        handle = conversation
      },
      onVerdict,
      /** What the call's row says was decided already (a call read back after a restart). */
      restore: (storedAnsweredBy: AnsweredBy | null, storedResult: VoicemailResult | null) => {
        answeredBy = storedAnsweredBy
        result = storedResult
        phase = storedAnsweredBy === null ? "listening" : "done"
      },
      result: () => ({ answeredBy, voicemail: result })
    } as const
  })

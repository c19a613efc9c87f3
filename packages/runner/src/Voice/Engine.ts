/**
 * The conversation engine: runs one call's conversation in the process that owns the call, around
 * the pure machine (`domain/Conversation`). One fiber takes every event in order (the caller's voice
 * activity from the media stream, transcripts, the model's output, playback marks, timers), runs
 * the machine and carries out its commands; the slow work (the model, speech synthesis, tools,
 * timers, paced playout) runs in fibers of its own that report back as events. Everything is timed
 * by Effect's `Clock`, so a whole conversation runs under `TestClock`.
 *
 * Playout keeps a bounded lead: audio goes out in 100 ms chunks, each followed by a mark, and at
 * most `LEAD_MS` plus one chunk of it is ahead of what the carrier has played (from the mark
 * echoes: each echo lets the next chunk go), so a barge-in discards little and the heard position is
 * exact to a chunk, refined by the time since the last echo and the speech engine's word timings.
 *
 * What the call's entity hears of it (`EngineReport`): the media connected, each transcript line,
 * a turn's latencies, the agent ending the call, the media stopping. Audio never leaves the process.
 */
import {
  type ConversationCommand,
  ConversationEvent,
  type ConversationSettings,
  type ConversationState,
  END_CALL_TOOL,
  type HangUpReason,
  initialState,
  type Message,
  transition
} from "@voiceagent/domain/Conversation"
import {
  emptyPosition,
  heardText,
  markEchoed,
  markSent,
  type PlaybackPosition,
  playedMs,
  type SpokenSegment,
  unheardText
} from "@voiceagent/domain/Playback"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberMap from "effect/FiberMap"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { durationMs, SAMPLE_RATE } from "./Audio.js"
import { defaultKeypad, type KeypadSettings, keypadText, makeKeypad } from "./Keypad.js"
import type { LanguageModelProvider, LlmRequest, ToolSpec } from "./LanguageModel.js"
import type { AudioFrame, MediaSession } from "./Media.js"
import type { SttStream } from "./SpeechToText.js"
import { makeStreamClock } from "./StreamClock.js"
import type { TtsSession } from "./TextToSpeech.js"
import { detect, type DetectorState, initialDetector, type VadStream } from "./Vad.js"
import { makeWakeup } from "./Wakeup.js"

/** Audio the carrier may hold ahead of what it has played, before the next chunk (so 300 to 400 ms). */
export const LEAD_MS = 300
/** Each chunk sent, followed by its mark. */
export const CHUNK_MS = 100
const CHUNK_SAMPLES = (SAMPLE_RATE * CHUNK_MS) / 1_000

export interface TurnLatency {
  readonly responseId: number
  /** From the caller going quiet to their turn taken as over (the endpointing wait, STT finals included). */
  readonly endpointingMs: number
  /** From the caller going quiet to the last final transcript. */
  readonly sttFinalLagMs: number | null
  /** From asking the model to its first words. */
  readonly llmFirstTokenMs: number | null
  /** From asking for speech to its first audio. */
  readonly ttsFirstByteMs: number | null
  /** Our own part: voice-to-voice less the endpointing wait and the time spent waiting on providers after it. */
  readonly overheadMs: number
  /** From the caller going quiet to the agent's first audio sent. */
  readonly voiceToVoiceMs: number
}

export type EngineReport =
  | { readonly _tag: "MediaConnected"; readonly at: number; readonly streamId: string }
  | {
    readonly _tag: "Line"
    readonly speaker: "agent" | "customer"
    readonly text: string
    readonly at: number
    readonly interrupted: boolean
    readonly latency: TurnLatency | null
  }
  | { readonly _tag: "FirstAudio"; readonly afterStartMs: number }
  | { readonly _tag: "BargeIn"; readonly reactionMs: number }
  | { readonly _tag: "HangUp"; readonly reason: string }
  /** A tool the model called ran (end_call is not run: it becomes `HangUp`). */
  | { readonly _tag: "ToolCalled"; readonly name: string; readonly arguments: string; readonly result: string }
  | { readonly _tag: "MediaStopped"; readonly at: number; readonly reason: string }
  | { readonly _tag: "Notice"; readonly message: string }
  /** The agent hands the call on (its transfer_call tool, after its hand-off line): in place of `HangUp`. */
  | { readonly _tag: "Transfer"; readonly to: string; readonly mode: "cold" | "warm"; readonly at: number }

/** What a tool may use of the conversation. */
export interface ToolContext {
  /** Until the agent's audio sent so far has played, and nothing more is waiting to be sent. */
  readonly quiet: Effect.Effect<void>
}

/** A tool's result, and whether it finishes the agent's part of the call (see `ConversationEvent.ToolFinished`). */
export interface ToolOutcome {
  readonly result: string
  readonly finish?: { readonly text: string; readonly reason: HangUpReason } | undefined
}

export interface Prepared {
  readonly text: string
  readonly pcm: Int16Array
  readonly wordEndsMs: ReadonlyArray<number> | undefined
}

export interface EngineInput {
  readonly media: MediaSession
  readonly settings: ConversationSettings
  readonly vad: VadStream
  /** None: the agent can speak but not hear. */
  readonly stt: SttStream | undefined
  readonly tts: TtsSession
  readonly llm: LanguageModelProvider
  readonly request: Omit<LlmRequest, "messages">
  /** Synthesized before the call was answered: the greeting's sentences (see `takeSentences`). */
  readonly prepared?: ReadonlyArray<Prepared> | undefined
  /** What was said before (a conversation resumed on a new stream): the model's context from the start. */
  readonly history?: ReadonlyArray<Message> | undefined
  readonly runTool: (name: string, args: string, context: ToolContext) => Effect.Effect<string | ToolOutcome>
  /** How the caller's keys are gathered into entries (the default: `#` ends one, or 3 s without a key). */
  readonly keypad?: KeypadSettings | undefined
  readonly report: (report: EngineReport) => Effect.Effect<void>
}

/** The tools the engine offers the model; `lookup_knowledge` only when the agent has knowledge bases. */
export const toolSpecs = (
  options: { readonly endCall: boolean; readonly knowledge: boolean }
): ReadonlyArray<ToolSpec> => [
  ...(options.endCall
    ? [{
      name: END_CALL_TOOL,
      description:
        "End the call, after saying goodbye. Use it when the conversation is over or the caller asks to hang up.",
      parameters: { type: "object", properties: {}, additionalProperties: false }
    }]
    : []),
  ...(options.knowledge
    ? [{
      name: "lookup_knowledge",
      description: "Search the agent's knowledge bases for facts to answer the caller (prices, hours, policies).",
      parameters: {
        type: "object",
        properties: { query: { type: "string", description: "What to look up, in a few words" } },
        required: ["query"],
        additionalProperties: false
      }
    }]
    : [])
]

/** Removes the first `count` samples (or all there are) from the front of `queue`, as one array. */
const takeSamples = (queue: Array<Int16Array>, count: number): Int16Array => {
  const first = queue[0]
  if (first === undefined) return new Int16Array(0)
  if (first.length > count) {
    queue[0] = first.subarray(count)
    return first.subarray(0, count)
  }
  if (first.length === count || queue.length === 1) {
    queue.shift()
    return first
  }
  const out = new Int16Array(count)
  let filled = 0
  while (filled < count && queue.length > 0) {
    const head = queue[0]!
    const take = Math.min(head.length, count - filled)
    out.set(head.subarray(0, take), filled)
    filled += take
    if (take === head.length) queue.shift()
    else queue[0] = head.subarray(take)
  }
  return filled === count ? out : out.subarray(0, filled)
}

/** Sentences (or long clauses) ready for speech from `buffer`; the rest waits for more text. */
export const takeSentences = (
  buffer: string,
  final: boolean
): { readonly ready: ReadonlyArray<string>; readonly rest: string } => {
  const ready: Array<string> = []
  let rest = buffer
  for (;;) {
    const match = /^([\s\S]*?[.!?…](?:["')\]]+)?)(\s+)/.exec(rest) ??
      (rest.length > 120 ? /^([\s\S]{60,}?[,;:])(\s+)/.exec(rest) : null)
    if (match === null) break
    const sentence = match[1]!.trim()
    if (sentence !== "") ready.push(sentence)
    rest = rest.slice(match[0].length)
  }
  if (final && rest.trim() !== "") {
    ready.push(rest.trim())
    rest = ""
  }
  return { ready, rest }
}

interface Playing {
  readonly id: number
  held: boolean
  /** Stopped for the caller's speech: its audio waits, and what was not heard is said again on `Resume`. */
  paused: boolean
  /** What was heard before a pause (the segments start again after it). */
  heardBefore: string
  /** What to say again on `Resume`. */
  resumeText: string
  /** Audio synthesized and not yet sent. */
  pending: Array<Int16Array>
  pendingSamples: number
  /** Audio synthesized so far, in ms (where the next segment starts). */
  synthesizedMs: number
  segments: Array<SpokenSegment>
  position: PlaybackPosition
  /** When the audio since the last pause began (the playback position counts from it). */
  startedAt: number | null
  /** When its first audio went out, pauses or not: the line's time and its latency. */
  firstPlayedAt: number | null
  /** Text given but not yet handed to synthesis (waiting for a sentence's end). */
  text: string
  /** No more text (`EndSpeech`). */
  ended: boolean
  /** Sentences queued for synthesis, and whether one is being synthesized. */
  sentences: Array<string>
  synthesizing: boolean
  seq: number
  firstSpeakAt: number | null
  firstAudioAt: number | null
  finishedReported: boolean
}

/** When the caller's latest turn ended and was committed, and which response answers it. */
interface TurnClock {
  speechEndedAt: number | null
  lastFinalAt: number | null
  finalLagMs: number | null
  committedAt: number | null
  responseId: number | null
}

/**
 * Runs the conversation until the media stops (or the call ends it). Fails never: a provider that
 * breaks becomes an event the machine answers (a fallback line, or the end of the call).
 */
export const runConversation = (input: EngineInput): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { media, settings } = input
    const events = yield* Queue.unbounded<ConversationEvent>()
    const timers = yield* FiberMap.make<string>()
    const work = yield* FiberMap.make<string>()
    const clock = yield* Effect.clock
    const startedAt = clock.unsafeCurrentTimeMillis()
    let state: ConversationState = input.history === undefined
      ? initialState
      : { ...initialState, history: input.history }
    let detector: DetectorState = initialDetector
    /** The caller's frames are timed by the stream's clock, placed on ours (see `StreamClock`). */
    const streamClock = makeStreamClock()
    const responses = new Map<number, Playing>()
    let onAir: Playing | null = null
    const wakePacer = yield* makeWakeup
    const turn: TurnClock = {
      speechEndedAt: null,
      lastFinalAt: null,
      finalLagMs: null,
      committedAt: null,
      responseId: null
    }
    /** When each response's model round was first asked for, and gave its first words. */
    const generateAt = new Map<number, number>()
    const firstTextAt = new Map<number, number>()
    let speechStartedAt: number | null = null
    /** When the caller began the turn not yet committed: its transcript line's time. */
    let userTurnStartedAt: number | null = null
    let firstAudioReported = false

    const emit = (event: ConversationEvent) => Queue.offer(events, event)
    const now = Clock.currentTimeMillis
    let mediaStopped = false

    // -----------------------------------------------------------------------
    // Playout
    // -----------------------------------------------------------------------

    const playingOf = (id: number): Playing => {
      let playing = responses.get(id)
      if (playing === undefined) {
        playing = {
          id,
          held: false,
          paused: false,
          heardBefore: "",
          resumeText: "",
          pending: [],
          pendingSamples: 0,
          synthesizedMs: 0,
          segments: [],
          position: emptyPosition,
          startedAt: null,
          firstPlayedAt: null,
          text: "",
          ended: false,
          sentences: [],
          synthesizing: false,
          seq: 0,
          firstSpeakAt: null,
          firstAudioAt: null,
          finishedReported: false
        }
        responses.set(id, playing)
      }
      return playing
    }

    /** Sends what the lead allows of the response on air; reports its start and its end. */
    const pace: Effect.Effect<void> = Effect.gen(function*() {
      const r = onAir
      if (r === null || r.held || r.paused) return
      const t = yield* now
      while (r.pendingSamples > 0) {
        const played = playedMs(r.position, t, r.startedAt)
        // up to the lead and one chunk past it: the next chunk goes out as a mark's echo comes
        if (r.position.sentMs - played > LEAD_MS) break
        const chunk = takeSamples(r.pending, CHUNK_SAMPLES)
        r.pendingSamples -= chunk.length
        const name = `r${r.id}:${++r.seq}`
        yield* media.play(chunk)
        yield* media.mark(name)
        r.position = markSent(r.position, name, durationMs(chunk.length))
        if (r.startedAt === null) {
          r.startedAt = t
          r.firstPlayedAt ??= t
          yield* emit(ConversationEvent.PlaybackStarted({ responseId: r.id, at: t }))
          if (!firstAudioReported) {
            firstAudioReported = true
            yield* input.report({ _tag: "FirstAudio", afterStartMs: t - startedAt })
          }
        }
      }
      yield* finishIfDone(r)
    })

    const finishIfDone = (r: Playing) =>
      Effect.gen(function*() {
        if (
          r.finishedReported || r.paused || !r.ended || r.synthesizing || r.sentences.length > 0 ||
          r.text.trim() !== "" ||
          r.pendingSamples > 0
        ) return
        const last = r.position.marks.at(-1)
        if (last !== undefined && r.position.lastEchoed?.offsetMs !== last.offsetMs) return
        r.finishedReported = true
        if (onAir === r) onAir = null
        yield* emit(ConversationEvent.PlaybackFinished({ responseId: r.id, at: yield* now }))
      })

    /**
     * When the lead allows the next chunk, if time alone can allow it: the heard position moves on
     * with the clock up to the next mark not yet echoed (see `playedMs`); past it, only an echo does.
     */
    const nextSendAt = (r: Playing): number | undefined => {
      const position = r.position
      const from = position.lastEchoed?.offsetMs ?? 0
      const since = position.lastEchoed?.at ?? r.startedAt
      if (since === null) return undefined
      const cap = position.marks.find((m) => m.offsetMs > from)?.offsetMs ?? position.sentMs
      const needed = position.sentMs - LEAD_MS
      return cap >= needed ? since + Math.max(0, needed - from) : undefined
    }

    /** Wakes when the lead allows more audio (a mark echoed, or the time computed), else when told. */
    const pacer = Effect.gen(function*() {
      for (;;) {
        const r = onAir
        const at = r !== null && !r.held && !r.paused && r.pendingSamples > 0 ? nextSendAt(r) : undefined
        // an echo wakes it as the time does (an early wake only makes it look again); see `Wakeup`
        yield* at === undefined ? wakePacer.wait : wakePacer.waitUntil(at)
        yield* pace
      }
    })
    const wake = Effect.sync(wakePacer.raise)

    /** Nothing of the agent's is playing or waiting to be sent (a tool that sends audio of its own waits for this). */
    const isQuiet = (): boolean => {
      const r = onAir
      if (r === null || r.paused || r.finishedReported) return true
      const last = r.position.marks.at(-1)
      return r.pendingSamples === 0 && r.sentences.length === 0 && !r.synthesizing &&
        (last === undefined || r.position.lastEchoed?.offsetMs === last.offsetMs)
    }
    const quiet: Effect.Effect<void> = Effect.suspend(() =>
      isQuiet() ? Effect.void : Effect.zipRight(Effect.sleep(CHUNK_MS / 5), quiet)
    )

    /** Synthesizes the response's sentences in order, appending their audio. */
    const synthesize = (r: Playing): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (r.synthesizing) return
        r.synthesizing = true
        while (r.sentences.length > 0 && !r.paused) {
          const sentence = r.sentences.shift()!
          const prepared = r.id === 1 ? input.prepared?.find((p) => p.text === sentence) : undefined
          // the segment is known from its first audio on, so a pause mid-sentence counts what was heard of it
          const segment: {
            text: string
            startMs: number
            durationMs: number
            wordEndsMs?: ReadonlyArray<number> | undefined
          } = {
            text: sentence,
            startMs: r.synthesizedMs,
            durationMs: 0
          }
          r.segments.push(segment)
          let samples = 0
          let wordEndsMs: ReadonlyArray<number> | undefined
          if (prepared !== undefined) {
            r.pending.push(prepared.pcm)
            r.pendingSamples += prepared.pcm.length
            samples = prepared.pcm.length
            segment.durationMs = durationMs(samples)
            wordEndsMs = prepared.wordEndsMs
            r.firstAudioAt ??= yield* now
          } else {
            const failed = yield* input.tts.synthesize(sentence).pipe(
              Stream.runForEach((part) =>
                Effect.gen(function*() {
                  if (part._tag === "Words") {
                    wordEndsMs = part.wordEndsMs
                    return
                  }
                  r.firstAudioAt ??= yield* now
                  r.pending.push(part.pcm)
                  r.pendingSamples += part.pcm.length
                  samples += part.pcm.length
                  segment.durationMs = durationMs(samples)
                  yield* wake
                })
              ),
              Effect.as(false),
              Effect.catchAll((error) => Effect.as(Effect.logWarning("speech synthesis failed", error), true))
            )
            if (failed) {
              r.synthesizing = false
              yield* emit(
                ConversationEvent.SpeechFailed({ responseId: r.id, reason: "speech synthesis failed", at: yield* now })
              )
              return
            }
          }
          segment.durationMs = durationMs(samples)
          segment.wordEndsMs = wordEndsMs
          r.synthesizedMs += durationMs(samples)
          yield* wake
        }
        r.synthesizing = false
        yield* wake
      })

    // -----------------------------------------------------------------------
    // Commands
    // -----------------------------------------------------------------------

    const latencyOf = (responseId: number, firstAudioSentAt: number): TurnLatency | null => {
      if (turn.responseId !== responseId || turn.speechEndedAt === null || turn.committedAt === null) return null
      const r = responses.get(responseId)
      const ended = turn.speechEndedAt
      const endpointingMs = Math.max(0, turn.committedAt - ended)
      const voiceToVoiceMs = Math.max(0, firstAudioSentAt - ended)
      const asked = generateAt.get(responseId)
      const firstText = firstTextAt.get(responseId)
      const llm = firstText !== undefined && asked !== undefined ? Math.max(0, firstText - asked) : null
      const tts = r?.firstAudioAt != null && r.firstSpeakAt !== null
        ? Math.max(0, r.firstAudioAt - r.firstSpeakAt)
        : null
      const waitingForModel = firstText === undefined ? 0 : Math.max(0, firstText - turn.committedAt)
      const waitingForSpeech = r?.firstAudioAt == null || r.firstSpeakAt === null
        ? 0
        : Math.max(0, r.firstAudioAt - Math.max(r.firstSpeakAt, turn.committedAt))
      return {
        responseId,
        endpointingMs,
        sttFinalLagMs: turn.finalLagMs,
        llmFirstTokenMs: llm,
        ttsFirstByteMs: tts,
        overheadMs: Math.max(0, voiceToVoiceMs - endpointingMs - waitingForModel - waitingForSpeech),
        voiceToVoiceMs
      }
    }

    /** What the caller has heard of a response (before a pause, and since). */
    const heardOf = (r: Playing, at: number) =>
      [r.heardBefore, heardText(r.segments, playedMs(r.position, at, r.startedAt))].filter((t) => t !== "").join(" ")

    /** What the caller heard of the machine's current response, when the engine is playing it. */
    const heardOnAir = (at: number): string | null => {
      const current = state.response
      const r = current === null ? undefined : responses.get(current.id)
      return r === undefined ? null : heardOf(r, at)
    }

    const generate = (responseId: number, history: LlmRequest["messages"]) =>
      Effect.gen(function*() {
        let sawText = false
        const result = yield* input.llm.stream({ ...input.request, messages: history }).pipe(
          Stream.runForEach((chunk) =>
            Effect.gen(function*() {
              const at = yield* now
              switch (chunk._tag) {
                case "Text":
                  if (!sawText && !firstTextAt.has(responseId)) firstTextAt.set(responseId, at)
                  sawText = true
                  return yield* emit(ConversationEvent.ReplyText({ responseId, text: chunk.text, at }))
                case "ToolCalls":
                  return yield* emit(ConversationEvent.ReplyToolCalls({ responseId, calls: chunk.calls, at }))
                case "Done":
                  return
              }
            })
          ),
          Effect.either
        )
        const at = yield* now
        if (result._tag === "Left") {
          yield* Effect.logWarning("the language model failed", result.left)
          return yield* emit(ConversationEvent.ReplyFailed({ responseId, reason: result.left.reason, at }))
        }
        yield* emit(ConversationEvent.ReplyDone({ responseId, at }))
      })

    const abort = (responseId: number) =>
      Effect.gen(function*() {
        yield* FiberMap.remove(work, `llm:${responseId}`)
        yield* FiberMap.remove(work, `tts:${responseId}`)
        const r = responses.get(responseId)
        if (r !== undefined) {
          r.sentences = []
          r.text = ""
          r.pending = []
          r.pendingSamples = 0
          r.finishedReported = true
          if (onAir === r) onAir = null
        }
      })

    const execute = (command: ConversationCommand): Effect.Effect<void> =>
      Effect.gen(function*() {
        const at = yield* now
        switch (command._tag) {
          case "Speak": {
            const r = playingOf(command.responseId)
            r.firstSpeakAt ??= at
            const split = takeSentences(r.text + command.text, false)
            r.text = split.rest
            r.sentences.push(...split.ready)
            if (onAir === null && !r.held && !r.finishedReported) onAir = r
            if (split.ready.length > 0 && !r.paused) {
              yield* FiberMap.run(work, `tts:${r.id}`, synthesize(r), { onlyIfMissing: true })
            }
            return
          }
          case "EndSpeech": {
            const r = playingOf(command.responseId)
            r.ended = true
            const split = takeSentences(r.text, true)
            r.text = split.rest
            r.sentences.push(...split.ready)
            if (split.ready.length > 0 && !r.paused) {
              yield* FiberMap.run(work, `tts:${r.id}`, synthesize(r), { onlyIfMissing: true })
            }
            yield* finishIfDone(r)
            return yield* wake
          }
          case "Release": {
            const r = playingOf(command.responseId)
            r.held = false
            if (onAir === null && !r.finishedReported) onAir = r
            return yield* wake
          }
          case "Pause": {
            const r = responses.get(command.responseId)
            yield* media.clear
            if (speechStartedAt !== null) {
              yield* input.report({ _tag: "BargeIn", reactionMs: Math.max(0, at - speechStartedAt) })
            }
            if (r === undefined) {
              return yield* emit(ConversationEvent.PlaybackCleared({ responseId: command.responseId, heard: "", at }))
            }
            yield* FiberMap.remove(work, `tts:${r.id}`)
            const heardNow = heardText(r.segments, playedMs(r.position, at, r.startedAt))
            const spoken = r.segments.map((segment) => segment.text).join(" ")
            const heard = [r.heardBefore, heardNow].filter((t) => t !== "").join(" ")
            // what it had started to say is said again from the first word not heard; the rest waits as it was
            r.resumeText = unheardText(spoken, heardNow)
            r.heardBefore = heard
            r.segments = []
            r.synthesizedMs = 0
            r.position = emptyPosition
            r.startedAt = null
            r.pending = []
            r.pendingSamples = 0
            r.synthesizing = false
            r.paused = true
            return yield* emit(ConversationEvent.PlaybackCleared({ responseId: r.id, heard, at }))
          }
          case "Resume": {
            const r = responses.get(command.responseId)
            if (r === undefined) return
            r.paused = false
            r.sentences.unshift(...takeSentences(r.resumeText, true).ready)
            r.resumeText = ""
            if (onAir === null && !r.finishedReported) onAir = r
            yield* FiberMap.run(work, `tts:${r.id}`, synthesize(r), { onlyIfMissing: true })
            return yield* wake
          }
          case "Clear": {
            const r = responses.get(command.responseId)
            yield* media.clear
            const heard = r === undefined ? "" : heardOf(r, at)
            // the machine cuts a response off for the caller (a barge-in), or when its model failed
            if (state.clearing?.id === command.responseId && speechStartedAt !== null && r?.paused !== true) {
              yield* input.report({ _tag: "BargeIn", reactionMs: Math.max(0, at - speechStartedAt) })
            }
            yield* abort(command.responseId)
            return yield* emit(ConversationEvent.PlaybackCleared({ responseId: command.responseId, heard, at }))
          }
          case "Generate": {
            const r = playingOf(command.responseId)
            r.held = command.held
            if (!generateAt.has(command.responseId)) generateAt.set(command.responseId, at)
            return yield* FiberMap.run(work, `llm:${command.responseId}`, generate(command.responseId, command.history))
          }
          case "Abort":
            return yield* abort(command.responseId)
          case "RunTool": {
            // what the model said before asking for the tool is said now, not after it (a tool may wait for it)
            const r = responses.get(command.responseId)
            if (r !== undefined && r.text.trim() !== "" && !r.finishedReported) {
              const split = takeSentences(r.text, true)
              r.text = split.rest
              r.sentences.push(...split.ready)
              if (!r.paused) yield* FiberMap.run(work, `tts:${r.id}`, synthesize(r), { onlyIfMissing: true })
            }
            return yield* FiberMap.run(
              work,
              `tool:${command.call.id}`,
              input.runTool(command.call.name, command.call.arguments, { quiet }).pipe(
                Effect.map((outcome): ToolOutcome => typeof outcome === "string" ? { result: outcome } : outcome),
                Effect.catchAllCause((cause) =>
                  Effect.as(
                    Effect.logWarning("a tool failed", cause),
                    { result: `The tool ${command.call.name} failed.` } as ToolOutcome
                  )
                ),
                Effect.tap(({ result }) =>
                  input.report({
                    _tag: "ToolCalled",
                    name: command.call.name,
                    arguments: command.call.arguments,
                    result
                  })
                ),
                Effect.flatMap(({ finish, result }) =>
                  Effect.flatMap(now, (done) =>
                    emit(
                      ConversationEvent.ToolFinished({
                        responseId: command.responseId,
                        callId: command.call.id,
                        result,
                        at: done,
                        finish
                      })
                    ))
                )
              )
            )
          }
          case "StartTimer":
            return yield* FiberMap.run(
              timers,
              command.timer,
              Effect.sleep(Math.max(0, command.at - at)).pipe(
                Effect.zipRight(
                  Effect.flatMap(
                    now,
                    (fired) => emit(ConversationEvent.TimerFired({ timer: command.timer, at: fired }))
                  )
                )
              )
            )
          case "StopTimer":
            return yield* FiberMap.remove(timers, command.timer)
          case "Finalize":
            return input.stt === undefined ? undefined : yield* input.stt.finalize
          case "Commit": {
            let latency: TurnLatency | null = null
            // a line is timed from when it began: the caller's first sound of the turn, the agent's first audio
            let began = command.at
            if (command.speaker === "customer") {
              turn.committedAt = at
              turn.responseId = command.responseId
              // the turn's last final against the caller going quiet (0 when it came before the voice
              // detector heard the end); the next turn's finals are its own
              turn.finalLagMs = turn.lastFinalAt === null || turn.speechEndedAt === null
                ? null
                : Math.max(0, turn.lastFinalAt - turn.speechEndedAt)
              turn.lastFinalAt = null
              began = Math.min(userTurnStartedAt ?? command.at, command.at)
              userTurnStartedAt = null
            } else {
              const r = responses.get(command.responseId)
              if (r?.firstPlayedAt != null) {
                began = Math.min(r.firstPlayedAt, command.at)
              }
              if (turn.responseId === command.responseId) {
                latency = r?.firstPlayedAt == null
                  ? null
                  : latencyOf(command.responseId, r.firstPlayedAt)
              }
            }
            return yield* input.report({
              _tag: "Line",
              speaker: command.speaker,
              text: command.text,
              at: began,
              interrupted: command.interrupted,
              latency
            })
          }
          case "HangUp":
            return yield* input.report({ _tag: "HangUp", reason: command.reason })
        }
      })

    // -----------------------------------------------------------------------
    // Sources
    // -----------------------------------------------------------------------

    /**
     * A frame of the caller's audio: to speech-to-text, and through the voice detector. Synchronous,
     * run as the frame arrives (see `MediaSession.listen`): no fiber wakes for a frame, only the loop
     * for the detector's changes.
     */
    const hear = (frame: AudioFrame): void => {
      if (mediaStopped || deaf) return
      input.stt?.push(frame.mulaw)
      // when the frame was said, not when it was taken: a stall while it came does not move the
      // speech's onset or end (so neither the barge-in nor the turn's end waits for it)
      const at = streamClock.place(frame.at, clock.unsafeCurrentTimeMillis())
      const step = detect(detector, input.vad.isSpeech(frame.pcm), at)
      detector = step.state
      if (step.change?._tag === "Started") {
        speechStartedAt = step.change.at
        userTurnStartedAt ??= step.change.at
        Queue.unsafeOffer(events, ConversationEvent.SpeechStarted({ at: step.change.at }))
      } else if (step.change?._tag === "Ended") {
        turn.speechEndedAt = step.change.at
        Queue.unsafeOffer(events, ConversationEvent.SpeechEnded({ at: step.change.at }))
      }
    }

    /** The rest of what the line says (and its audio, from an adapter that sends it as events). */
    const inbound = Effect.gen(function*() {
      for (;;) {
        const event = yield* Queue.take(media.events)
        switch (event._tag) {
          case "Audio":
            hear(event)
            break
          case "Mark": {
            const id = Number(/^r(\d+):/.exec(event.name)?.[1])
            const r = responses.get(id)
            if (r !== undefined && onAir === r) {
              r.position = markEchoed(r.position, event.name, yield* now)
              yield* wake
            }
            break
          }
          case "Dtmf":
            // the caller is busy pressing keys, not idle, until the entry is complete
            yield* emit(ConversationEvent.KeyPressed({ at: yield* now }))
            yield* keys.press(event.digit)
            break
          case "Stopped": {
            const at = yield* now
            mediaStopped = true
            yield* emit(ConversationEvent.Stopped({ at, heard: heardOnAir(at) }))
            yield* input.report({ _tag: "MediaStopped", at, reason: event.reason })
            return
          }
        }
      }
    })

    const transcripts = (stt: SttStream) =>
      Effect.gen(function*() {
        for (;;) {
          const event = yield* Queue.take(stt.events)
          const at = yield* now
          switch (event._tag) {
            case "Interim":
              yield* emit(ConversationEvent.Transcript({ text: event.text, isFinal: false, at }))
              break
            case "Final":
              if (event.text.trim() !== "") {
                turn.lastFinalAt = at
                // a final that comes after the turn was taken as over still times that turn's lag
                if (turn.committedAt !== null && turn.finalLagMs === null && turn.speechEndedAt !== null) {
                  turn.finalLagMs = Math.max(0, at - turn.speechEndedAt)
                }
              }
              yield* emit(ConversationEvent.Transcript({ text: event.text, isFinal: true, at }))
              break
            case "SpeechStarted":
              break
            case "Reconnected":
              yield* input.report({ _tag: "Notice", message: `speech-to-text reconnected (${event.reason})` })
              break
            case "SpeechToTextError":
              yield* input.report({
                _tag: "Notice",
                message: `speech-to-text failed: ${event.reason}; the agent can no longer hear`
              })
              return
          }
        }
      })

    // -----------------------------------------------------------------------
    // The loop
    // -----------------------------------------------------------------------

    // the caller's keys, gathered into entries: each a turn of theirs
    const keys = yield* makeKeypad(input.keypad ?? defaultKeypad, (entry) =>
      Effect.suspend(() => {
        // the answer to the keys is timed from the entry's end, as a spoken turn's from the caller going quiet
        turn.speechEndedAt = entry.at
        turn.lastFinalAt = null
        return emit(ConversationEvent.Keypad({ text: keypadText(entry), at: entry.at }))
      }))
    yield* input.report({ _tag: "MediaConnected", at: startedAt, streamId: media.streamId })
    // a conversation stopped from outside (the call ended first) still says its media stopped
    // (the line on the air is kept as far as the caller heard it, as when the stream stops)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        if (mediaStopped) return
        const at = yield* now
        const step = transition(state, ConversationEvent.Stopped({ at, heard: heardOnAir(at) }), settings)
        state = step.state
        for (const command of step.commands) if (command._tag === "Commit") yield* execute(command)
        yield* input.report({ _tag: "MediaStopped", at, reason: "the call ended" })
      })
    )
    if (input.stt === undefined) {
      yield* input.report({
        _tag: "Notice",
        message: "no speech-to-text provider is configured: the agent can speak but not hear"
      })
    }
    yield* Effect.forkScoped(pacer)
    // frames the adapter hands over after the conversation is done go nowhere
    let deaf = false
    yield* Effect.addFinalizer(() => Effect.sync(() => void (deaf = true)))
    media.listen?.(hear)
    yield* Effect.forkScoped(inbound)
    if (input.stt !== undefined) yield* Effect.forkScoped(transcripts(input.stt))
    yield* emit(ConversationEvent.Started({ at: startedAt }))
    for (;;) {
      const event = yield* Queue.take(events)
      const step = transition(state, event, settings)
      state = step.state
      for (const command of step.commands) yield* execute(command)
      if (state.phase === "Ended") break
    }
    yield* FiberMap.clear(work)
    yield* FiberMap.clear(timers)
  })

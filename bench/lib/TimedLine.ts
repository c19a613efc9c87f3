/**
 * A conversation's line under measurement: the simulated caller (`Voice/SimulatedCaller`, on the
 * real clock) is the carrier, and what crosses the line is timed with `performance.now()`.
 *
 * - Out: each chunk of the agent's audio, its mark and each `clear`, as the engine hands them over.
 * - In: the caller sends a 20 ms frame every 20 ms from its start (late ones go as soon as it can,
 *   none is skipped), so frame k is due at the line's start + 20·k: the time a caller on a real line
 *   would have said it. The engine's voice detector is wrapped to count the frames as the engine
 *   takes them, and to note which it took for speech, so each utterance has its first frame with any
 *   sound (between its lines the caller sends digital silence) and the end of its last frame of
 *   speech as the engine heard it (a soft last syllable may not count).
 */
import { durationMs, FRAME_MS } from "@voiceagent/runner/Voice/Audio"
import { LEAD_MS } from "@voiceagent/runner/Voice/Engine"
import type { MediaSession } from "@voiceagent/runner/Voice/Media"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import type { VadStream } from "@voiceagent/runner/Voice/Vad"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/** A chunk of the agent's audio as the engine sent it, with the response its mark names. */
export interface SentChunk {
  readonly at: number
  readonly ms: number
  response: number
  markAt: number | null
}

/**
 * A stretch of the caller's sound: when its first frame was due, and the end of the last frame of
 * it the engine's voice detector took for speech (null: none).
 */
export interface Utterance {
  readonly onset: number
  speechEnd: number | null
}

export interface TimedLine {
  /** The engine's side of the line. */
  readonly media: MediaSession
  /** The engine's voice detector, counting and noting the caller's frames. */
  readonly vad: VadStream
  readonly caller: Caller.SimulatedCaller
  /** When the caller's line started (its first frame was due). */
  readonly startedAt: number
  readonly chunks: Array<SentChunk>
  readonly clears: Array<number>
  readonly utterances: Array<Utterance>
}

/** Silence that separates two utterances (as the engine's voice detector ends speech). */
const GAP_FRAMES = 300 / FRAME_MS

const sounds = (pcm: Int16Array) => {
  for (let i = 0; i < pcm.length; i++) if (pcm[i] !== 0) return true
  return false
}

export const startTimedLine = (
  options: Caller.CallerOptions,
  detector: VadStream
): Effect.Effect<TimedLine, never, Scope.Scope> =>
  Effect.gen(function*() {
    // the caller's clock (Date.now) starts in this millisecond or the next: its frames' times are good to 1 ms
    const startedAt = performance.now()
    const caller = yield* Caller.startCaller(options)
    const chunks: Array<SentChunk> = []
    const clears: Array<number> = []
    const utterances: Array<Utterance> = []
    let frames = 0
    let silentFrames = 0
    const vad: VadStream = {
      isSpeech: (frame) => {
        const due = startedAt + frames++ * FRAME_MS
        if (!sounds(frame)) silentFrames++
        else {
          if (utterances.length === 0 || silentFrames >= GAP_FRAMES) utterances.push({ onset: due, speechEnd: null })
          silentFrames = 0
        }
        const speech = detector.isSpeech(frame)
        const current = utterances.at(-1)
        if (speech && current !== undefined) current.speechEnd = due + FRAME_MS
        return speech
      },
      close: () => detector.close()
    }
    const media: MediaSession = {
      ...caller.media,
      play: (pcm) =>
        Effect.suspend(() => {
          chunks.push({ at: performance.now(), ms: durationMs(pcm.length), response: -1, markAt: null })
          return caller.media.play(pcm)
        }),
      mark: (name) =>
        Effect.suspend(() => {
          const last = chunks.at(-1)
          if (last !== undefined && last.markAt === null) {
            last.markAt = performance.now()
            last.response = Number(/^r(\d+):/.exec(name)?.[1] ?? -1)
          }
          return caller.media.mark(name)
        }),
      clear: Effect.suspend(() => {
        clears.push(performance.now())
        return caller.media.clear
      })
    }
    return { media, vad, caller, startedAt, chunks, clears, utterances }
  })

// ---------------------------------------------------------------------------
// What the records say
// ---------------------------------------------------------------------------

/**
 * How late each 20 ms frame of the agent left, against the engine's own schedule: a response's
 * audio (or what follows a `clear`) starts with its first chunk, and the chunk at offset `o` ms is
 * due once `o - LEAD_MS` of it has played, i.e. at `start + max(0, o - LEAD_MS)`. Every frame of a
 * chunk leaves with it. `late`: frames that left after they were due to play (the caller hears a gap).
 */
export const frameLateness = (
  line: TimedLine,
  until: number
): { readonly lateness: Array<number>; readonly late: number } => {
  const lateness: Array<number> = []
  let late = 0
  let start = 0
  let offset = 0
  let response = Number.NaN
  let clearIndex = 0
  for (const chunk of line.chunks) {
    if (chunk.at > until) break
    let cleared = false
    while (clearIndex < line.clears.length && line.clears[clearIndex]! <= chunk.at) {
      clearIndex++
      cleared = true
    }
    if (cleared || chunk.response !== response) {
      response = chunk.response
      start = chunk.at
      offset = 0
    }
    const due = start + Math.max(0, offset - LEAD_MS)
    for (let f = 0; f < Math.round(chunk.ms / FRAME_MS); f++) {
      lateness.push(chunk.at - due)
      if (chunk.at > start + offset + f * FRAME_MS) late++
    }
    offset += chunk.ms
  }
  return { lateness, late }
}

/**
 * Each of the caller's utterances that the agent answered: from the end of its speech (the last
 * frame the engine's detector took for speech) to the agent's next chunk, less `endpointingMs` (the
 * wait the agent is configured to make).
 */
export const turnGaps = (line: TimedLine, until: number, endpointingMs: number): Array<number> => {
  const gaps: Array<number> = []
  line.utterances.forEach((utterance, i) => {
    const end = utterance.speechEnd
    if (end === null) return
    const next = line.utterances[i + 1]?.onset ?? Number.POSITIVE_INFINITY
    const answer = line.chunks.find((c) => c.at >= end)
    if (answer !== undefined && answer.at <= until && answer.at < next) gaps.push(answer.at - end - endpointingMs)
  })
  return gaps
}

/** Each barge-in: from the first frame of the caller's sound over the agent to the `clear` it caused. */
export const bargeIns = (line: TimedLine, until: number): Array<number> => {
  const out: Array<number> = []
  const answered = new Set<Utterance>()
  for (const at of line.clears) {
    if (at > until) break
    let cause: Utterance | undefined
    for (const u of line.utterances) if (u.onset <= at) cause = u
    if (cause !== undefined && !answered.has(cause)) {
      answered.add(cause)
      out.push(at - cause.onset)
    }
  }
  return out
}

/** From the caller's line starting to the first audio of the greeting. */
export const greeting = (line: TimedLine, until: number): number | undefined => {
  const first = line.chunks[0]
  return first === undefined || first.at > until ? undefined : first.at - line.startedAt
}

/**
 * A call's recording on its media path: stereo, the caller on the left and, on the right, the
 * agent's audio as the caller heard it.
 *
 * The recorder sits between the carrier's `MediaSession` and the conversation engine
 * (`recordMedia`): it sees the caller's frames as they come, the agent's audio as it is sent
 * (`play`) and the `clear` that stops it. Everything is placed on the stream's own clock (a
 * frame's `at`), so the two channels line up as the caller lived them, whatever the network did:
 *
 * - the recording starts with the first stream, on the engine's clock; a stream's first frame is
 *   placed when it was said (`StreamClock`), and the frames after it by their own times, so a
 *   stream that starts sending late, or comes back after a drop, begins after silence;
 * - the caller's frame at `at` fills its 20 ms; a gap in the stream's times (a line that sends
 *   nothing while quiet, a lost packet) is silence, and so is a line quiet at the stream's end;
 * - the agent's audio plays from where the stream is when it is sent (the engine's clock mapped
 *   onto the stream's by `StreamClock`, the least lag of recent frames), or right after the audio
 *   sent before it, as a carrier plays it;
 * - `clear` cuts what was sent and not yet played at that moment: the rest of a response the
 *   caller barged into is not in the recording, as they did not hear it.
 *
 * Audio goes out as the caller's frames come (what the agent will say is held until the stream
 * reaches it), interleaved, to a sink that writes it to disk. Internally 8 kHz, the platform's
 * rate; a 16 kHz recording (web calls) doubles each channel's rate on the way out.
 */
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { FRAME_MS, SAMPLE_RATE } from "../Voice/Audio.js"
import type { AudioFrame, MediaEvent, MediaSession } from "../Voice/Media.js"
import { makeStreamClock, type StreamClock } from "../Voice/StreamClock.js"
import { makeUpsampler } from "../Voice/WebAudio.js"

const SAMPLES_PER_MS = SAMPLE_RATE / 1_000

/** A gap in a stream's times longer than this is taken as a jump of its clock, not as silence. */
export const MAX_GAP_MS = 60_000

export interface RecordingTimeline {
  /** A frame of the caller's audio, at `frame.at` on the stream's clock, taken at `now` on ours. */
  readonly caller: (frame: Pick<AudioFrame, "pcm" | "at">, now: number) => void
  /** The agent's audio sent to the caller at `now`. */
  readonly played: (pcm: Int16Array, now: number) => void
  /** The audio sent and not played by `now` is dropped. */
  readonly cleared: (now: number) => void
  /**
   * A stream of the call begins at `now` (the first: the recording's start; another: the line came
   * back, and the time it was down is silence). Frames and audio before any `restart` start one.
   */
  readonly restart: (now: number) => void
  /**
   * The stream ended at `now`: written up to then (silence where the line
   * sent nothing, the agent's audio that played); the first end counts.
   */
  readonly end: (now: number) => void
  /** Samples written per channel (at 8 kHz). */
  readonly written: () => number
}

/**
 * The two channels on one clock. `write(caller, agent)` gets equal lengths of both, in order, at
 * 8 kHz.
 */
export const makeTimeline = (write: (caller: Int16Array, agent: Int16Array) => void): RecordingTimeline => {
  let clock: StreamClock = makeStreamClock()
  /** When the recording starts, on the engine's clock. */
  let origin: number | null = null
  /** Where the current stream's time 0 is, in samples of the recording: placed by its first frame. */
  let base: number | null = null
  /** Samples written per channel. */
  let written = 0
  /** The engine's time minus the stream's, from the frames seen; null before the first. */
  let offsetMs: number | null = null
  /** The agent's audio not yet written: starting at sample `written`. */
  let pending: Array<Int16Array> = []
  let pendingHead = 0
  let pendingLength = 0
  /** The stream ended: nothing more is written until the next one. */
  let ended = false

  const start = (now: number) => {
    origin ??= now
    return origin
  }

  /** Where `now` is in the recording: on the stream's clock once a frame placed it, else on the engine's. */
  const streamNow = (now: number): number =>
    offsetMs === null || base === null
      ? Math.round((now - start(now)) * SAMPLES_PER_MS)
      : base + Math.round((now - offsetMs) * SAMPLES_PER_MS)

  const takeAgent = (n: number): Int16Array => {
    const out = new Int16Array(n)
    let filled = 0
    while (filled < n && pending.length > 0) {
      const head = pending[0]!
      const take = Math.min(n - filled, head.length - pendingHead)
      out.set(head.subarray(pendingHead, pendingHead + take), filled)
      filled += take
      pendingHead += take
      if (pendingHead === head.length) {
        pending.shift()
        pendingHead = 0
      }
    }
    pendingLength = Math.max(0, pendingLength - n)
    return out
  }

  const emit = (caller: Int16Array) => {
    if (caller.length === 0) return
    write(caller, takeAgent(caller.length))
    written += caller.length
  }

  const silenceUntil = (position: number) => {
    if (position > written) emit(new Int16Array(position - written))
  }

  const truncate = (keep: number) => {
    if (pendingLength <= keep) return
    let left = keep
    const kept: Array<Int16Array> = []
    let first = true
    for (const chunk of pending) {
      if (left <= 0) break
      const from = first ? pendingHead : 0
      first = false
      const take = Math.min(left, chunk.length - from)
      kept.push(chunk.subarray(from, from + take))
      left -= take
    }
    pending = kept
    pendingHead = 0
    pendingLength = keep
  }

  return {
    caller: (frame, now) => {
      if (ended) return
      const placed = clock.place(frame.at, now)
      offsetMs = placed - frame.at
      // the stream's first frame places it: when it was said on the engine's clock, never before what is written
      base ??= Math.max(written, Math.round((placed - start(now)) * SAMPLES_PER_MS)) -
        Math.round(frame.at * SAMPLES_PER_MS)
      let position = base + Math.round(frame.at * SAMPLES_PER_MS)
      if (position - written > MAX_GAP_MS * SAMPLES_PER_MS) {
        // the stream's clock jumped: go on from here
        base = written - Math.round(frame.at * SAMPLES_PER_MS)
        position = written
      }
      silenceUntil(position)
      // a frame that overlaps what is written (a repeated or reordered one) adds only what is new
      const skip = written - position
      if (skip < frame.pcm.length) emit(skip > 0 ? frame.pcm.subarray(skip) : frame.pcm)
    },
    played: (pcm, now) => {
      if (ended) return
      const end = written + pendingLength
      const start = streamNow(now)
      if (start > end) {
        pending.push(new Int16Array(start - end))
        pendingLength += start - end
      }
      pending.push(pcm)
      pendingLength += pcm.length
    },
    cleared: (now) => truncate(Math.max(0, streamNow(now) - written)),
    restart: (now) => {
      start(now)
      ended = false
      truncate(0)
      clock = makeStreamClock()
      offsetMs = null
      base = null
    },
    end: (now) => {
      if (ended || origin === null) return
      ended = true
      // to the stream's end: a line quiet at the end (nothing sent) is silence, and the agent's audio played until then
      // is in
      silenceUntil(Math.min(streamNow(now), written + MAX_GAP_MS * SAMPLES_PER_MS))
      truncate(0)
    },
    written: () => written
  }
}

/** Interleaves the two channels as 16-bit samples at `sampleRate` (8 or 16 kHz). */
export const makeInterleaver = (sampleRate: number, out: (interleaved: Int16Array) => void) => {
  const upCaller = sampleRate === SAMPLE_RATE ? undefined : makeUpsampler()
  const upAgent = sampleRate === SAMPLE_RATE ? undefined : makeUpsampler()
  return (caller: Int16Array, agent: Int16Array): void => {
    const left = upCaller === undefined ? caller : upCaller(caller)
    const right = upAgent === undefined ? agent : upAgent(agent)
    const both = new Int16Array(left.length * 2)
    for (let i = 0; i < left.length; i++) {
      both[2 * i] = left[i]!
      both[2 * i + 1] = right[i]!
    }
    out(both)
  }
}

/**
 * `media` with the recorder in its path: the caller's frames, the agent's audio and clears go to
 * `timeline` on their way, and the stream's end (or the scope's) ends it. Frames an adapter sends as
 * events are passed on by a fiber in the scope (the engine reads them from the wrapper's own queue).
 */
export const recordMedia = (
  media: MediaSession,
  timeline: RecordingTimeline
): Effect.Effect<MediaSession, never, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    timeline.restart(now())
    yield* Effect.addFinalizer(() => Effect.sync(() => timeline.end(now())))
    const wrapped: MediaSession = {
      ...media,
      play: (pcm) => Effect.zipRight(Effect.sync(() => timeline.played(pcm, now())), media.play(pcm)),
      clear: Effect.zipRight(Effect.sync(() => timeline.cleared(now())), media.clear)
    }
    if (media.listen !== undefined) {
      // the frames come on the hot path: the events (marks, digits, the end) go to the engine untouched
      return {
        ...wrapped,
        listen: (listener) =>
          media.listen!((frame) => {
            timeline.caller(frame, now())
            listener(frame)
          })
      }
    }
    const events = yield* Queue.unbounded<MediaEvent>()
    yield* Queue.take(media.events).pipe(
      Effect.tap((event) =>
        Effect.sync(() => {
          if (event._tag === "Audio") timeline.caller(event, now())
          else if (event._tag === "Stopped") timeline.end(now())
        })
      ),
      Effect.flatMap((event) => Queue.offer(events, event)),
      Effect.forever,
      Effect.forkScoped
    )
    return { ...wrapped, events }
  })

/** A 20 ms frame's worth of samples at 8 kHz (tests and callers that count frames). */
export const FRAME_SAMPLES = FRAME_MS * SAMPLES_PER_MS

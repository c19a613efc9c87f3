/**
 * A call's audio, both ways: the carrier media port.
 *
 * A `MediaSession` is one call's stream: the caller's audio (20 ms frames), marks echoed as the
 * agent's audio plays, DTMF digits and the stream's end come in; the agent's audio, marks and
 * `clear` go out. Adapters: Twilio Media Streams (a WebSocket from Twilio to the runner that owns
 * the call), and the simulated carrier's in-process session. Telnyx, Plivo and Vonage stream the same
 * things (Vonage as binary PCM, the others as base64 μ-law with marks and clear), so the port carries
 * PCM and leaves encoding to the adapter.
 *
 * Audio never travels as cluster messages: a stream lands on the process that owns the call's
 * `LiveCall` entity, which registers here (`LocalMedia`) for the length of the call, and the
 * conversation engine runs there.
 */
import type { SessionId } from "@voiceagent/domain/Calls"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import type { EngineReport } from "./Engine.js"
import type { SttStream } from "./SpeechToText.js"

export type MediaEvent = Data.TaggedEnum<{
  /**
   * 20 ms of the caller's audio: as it came (μ-law) and decoded. `at`: where the frame starts on the
   * stream's own clock, in ms since the stream started (the carrier's timestamp, or the frames
   * counted when it gives none), not when it arrived: the engine times the caller's speech by it
   * (see `StreamClock`).
   */
  Audio: { readonly mulaw: Uint8Array; readonly pcm: Int16Array; readonly at: number }
  /** The audio sent before this mark has played. */
  Mark: { readonly name: string; readonly at: number }
  Dtmf: { readonly digit: string; readonly at: number }
  /** The stream ended (the caller hung up, the call was ended, the socket closed). */
  Stopped: { readonly at: number; readonly reason: string }
}>
export const MediaEvent = Data.taggedEnum<MediaEvent>()

/** A frame of the caller's audio, as `MediaEvent.Audio` carries it. */
export interface AudioFrame {
  readonly mulaw: Uint8Array
  readonly pcm: Int16Array
  readonly at: number
}

export interface MediaSession {
  readonly sessionId: SessionId
  /** The carrier's id of the stream (Twilio's `streamSid`). */
  readonly streamId: string
  readonly events: Queue.Dequeue<MediaEvent>
  /** Sends 8 kHz PCM to the caller; the adapter encodes it for its carrier. */
  readonly play: (pcm: Int16Array) => Effect.Effect<void>
  /** Asks to hear back `name` once the audio sent before it has played. */
  readonly mark: (name: string) => Effect.Effect<void>
  /** Drops the audio not yet played; pending marks are echoed at once. */
  readonly clear: Effect.Effect<void>
  /** Ends the stream from our side. */
  readonly close: Effect.Effect<void>
  /**
   * The caller's audio on the hot path (optional; an adapter without it sends `Audio` events): each
   * frame handed to `listener` synchronously as it arrives, in order, from the adapter's I/O callback
   * or the simulated line's fiber, instead of as an event a fiber wakes up to take from `events` (that
   * wake-up, 50 times a second a call, was most of the engine's garbage). Frames that came before are
   * given at once; from then on `events` carries no audio. Called once, by whoever takes the stream.
   * The listener must not block: it does a frame's own work and hands anything slow to a fiber.
   */
  readonly listen?: ((listener: (frame: AudioFrame) => void) => void) | undefined
  /**
   * A line that knows its caller's words (the simulated carrier's scripted caller) gives them here,
   * in place of a speech-to-text provider.
   */
  readonly transcripts?: SttStream | undefined
  /**
   * A line that carries keys as messages of its own (a web call's client) presses them here; any
   * other gets them as tones in its audio (`CallTools.pressKeys`).
   */
  readonly sendDigits?: ((digits: string) => Effect.Effect<void>) | undefined
  /** A line that shows its caller what happens (a web call's client) is given the conversation's reports too. */
  readonly observe?: ((report: EngineReport) => Effect.Effect<void>) | undefined
}

/**
 * An adapter's side of `MediaSession.listen`: frames go to the listener once there is one, and the
 * latest `keep` of them (20 s by default) wait for it until then.
 */
export const makeAudioInlet = (keep = 1_000) => {
  let listener: ((frame: AudioFrame) => void) | undefined
  let waiting: Array<AudioFrame> = []
  return {
    listen: (next: (frame: AudioFrame) => void): void => {
      listener = next
      const early = waiting
      waiting = []
      for (const frame of early) next(frame)
    },
    push: (frame: AudioFrame): void => {
      if (listener !== undefined) return listener(frame)
      waiting.push(frame)
      if (waiting.length > keep) waiting.shift()
    }
  } as const
}

/** Who takes a call's media stream when it arrives: the call's conversation, in this process. */
export type MediaHandler = (session: MediaSession) => Effect.Effect<void>

/**
 * Wakes a call's stopped entity for a stream that reached this process (the `LiveCall` entity's
 * `OpenMedia`): answers whether the call has a conversation to take it. Provided where live calls run.
 */
export class MediaWaker extends Context.Tag("Voice/MediaWaker")<MediaWaker, {
  readonly wake: (sessionId: SessionId) => Effect.Effect<boolean>
}>() {}

/** How long a stream waits for its call's entity to start again and take it. */
const WAKE_TIMEOUT = "10 seconds"

/**
 * The calls whose media this process takes: the `LiveCall` entity registers for its call while it
 * runs here. A stream for a call registered elsewhere (the shard moved) or nowhere is refused.
 *
 * A ringing call lets its entity go (see `LiveCallLive`): when its stream comes with the answer, the
 * call is not registered. With a `MediaWaker`, the stream is attached first (parked under its call)
 * and the call's entity woken; the conversation it opens as it starts takes the parked stream when it
 * registers. A stream nobody took once the entity answers is refused.
 */
export class LocalMedia extends Effect.Service<LocalMedia>()("Voice/LocalMedia", {
  effect: Effect.gen(function*() {
    const waker = yield* Effect.serviceOption(MediaWaker)
    const handlers = new Map<string, MediaHandler>()
    /** Streams waiting for their call's conversation; `taken` once it has them. */
    const parked = new Map<string, { readonly session: MediaSession; taken: boolean }>()
    return {
      register: (sessionId: SessionId, handler: MediaHandler) =>
        Effect.acquireRelease(
          Effect.suspend(() => {
            handlers.set(sessionId, handler)
            const waiting = parked.get(sessionId)
            if (waiting === undefined) return Effect.void
            parked.delete(sessionId)
            waiting.taken = true
            return handler(waiting.session)
          }),
          () =>
            Effect.sync(() => {
              if (handlers.get(sessionId) === handler) handlers.delete(sessionId)
            })
        ),
      /**
       * Hands the stream to the call's conversation (waking the
       * call's entity if need be); false when the call is not here.
       */
      attach: (session: MediaSession): Effect.Effect<boolean> =>
        Effect.suspend(() => {
          const handler = handlers.get(session.sessionId)
          if (handler !== undefined) return Effect.as(handler(session), true)
          if (Option.isNone(waker)) return Effect.succeed(false)
          const waiting = { session, taken: false }
          parked.set(session.sessionId, waiting)
          return waker.value.wake(session.sessionId).pipe(
            Effect.timeout(WAKE_TIMEOUT),
            Effect.catchAllCause((cause) =>
              Effect.as(Effect.logWarning("waking a call for its media stream failed", cause), false)
            ),
            Effect.zipRight(Effect.sync(() => {
              if (parked.get(session.sessionId) === waiting) parked.delete(session.sessionId)
              return waiting.taken
            }))
          )
        }),
      has: (sessionId: SessionId) => handlers.has(sessionId)
    } as const
  })
}) {}

// ---------------------------------------------------------------------------
// Stream tokens
// ---------------------------------------------------------------------------

export class MediaTokenInvalid extends Data.TaggedError("MediaTokenInvalid")<{ readonly reason: string }> {}

/**
 * A stream's credential: `<sessionId>.<expiry ms>.<HMAC-SHA256 of both>`, given to the carrier in
 * the call's instructions (a Twilio `<Parameter>`, not the URL, which carriers log) and checked in
 * constant time when the stream starts.
 */
export const signMediaToken = (secret: Redacted.Redacted, sessionId: string, expiresAt: number): string => {
  const payload = `${sessionId}.${expiresAt}`
  const mac = crypto.createHmac("sha256", Redacted.value(secret)).update(payload).digest("base64url")
  return `${payload}.${mac}`
}

/** The session a token is for, if it is ours and not expired at `now`. */
export const verifyMediaToken = (
  secret: Redacted.Redacted,
  token: string,
  now: number
): { readonly sessionId: string; readonly expiresAt: number } | MediaTokenInvalid => {
  const parts = token.split(".")
  if (parts.length !== 3) return new MediaTokenInvalid({ reason: "malformed" })
  const [sessionId, expiry, mac] = parts as [string, string, string]
  const expected = Buffer.from(signMediaToken(secret, sessionId, Number(expiry)).split(".")[2]!)
  const given = Buffer.from(mac)
  if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given) || !/^\d+$/.test(expiry)) {
    return new MediaTokenInvalid({ reason: "bad signature" })
  }
  const expiresAt = Number(expiry)
  if (expiresAt < now) return new MediaTokenInvalid({ reason: "expired" })
  return { sessionId, expiresAt }
}

/**
 * Twilio's side of a bidirectional Media Stream (`<Connect><Stream>`), for tests: a WebSocket client
 * that plays Twilio as twilio.com/docs/voice/media-streams/websocket-messages documents it.
 *
 * - It connects to the `<Stream url>` of a call's TwiML (`streamOf` reads it, with its
 *   `<Parameter>`s, from the create-call request FakeTwilio received) and sends `connected`, then
 *   `start` (streamSid, callSid, `tracks: ["inbound"]`, the parameters as `customParameters`,
 *   mediaFormat `audio/x-mulaw`, 8000, 1).
 * - From `start` on, one `media` message every 20 ms (`sequenceNumber`, `chunk` from 1, `timestamp`
 *   in ms since the start, 160 bytes of base64 μ-law): the caller's audio given to `say`, silence
 *   otherwise, as a phone line sends.
 * - The agent's `media` is queued and played in real time (8 bytes a ms, from when it arrives or
 *   when what was queued before it ends); each `mark` is echoed once the audio queued before it has
 *   played; `clear` drops what has not played and echoes the pending marks at once. Everything
 *   received is recorded with its arrival time, and so is what the caller heard.
 * - `dtmf`, `stop` (then a normal close), an abrupt drop, and raw frames (`send`) for protocol tests.
 *
 * Times are Effect's Clock where the stream was connected: real time on a live clock; under the
 * TestClock frames and playout move only with it. What the platform sends that Twilio would not take
 * (not JSON, an unknown event, another streamSid, a payload that is not base64 μ-law, a mark without
 * a name) is kept in `violations`.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import WebSocket from "ws"
import { FRAME_MS, frames, mulawEncode, SAMPLES_PER_FRAME } from "../Voice/Audio.js"
import { fixtureFor, voicedTone } from "../Voice/CallerVoice.js"
import { rms } from "../Voice/Vad.js"
import { DEFAULT_ACCOUNT_SID, type FakeTwilioServer } from "./FakeTwilio.js"

/** Where a `<Stream>` connects, and its `<Parameter>`s. */
export interface StreamTarget {
  readonly url: string
  readonly parameters: Readonly<Record<string, string>>
}

/** What a TwiML document asks of Twilio, as far as the platform's documents go. */
export interface Twiml {
  readonly stream: StreamTarget | undefined
  readonly redirect: string | undefined
  readonly hangup: boolean
}

const XML_ENTITIES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }
const unescapeXml = (text: string) => text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name]!)

export const parseTwiml = (twiml: string): Twiml => {
  const stream = /<Connect>\s*<Stream\b([^>]*?)(?:\/>|>([\s\S]*?)<\/Stream>)/.exec(twiml)
  const url = stream === null ? null : /\burl="([^"]*)"/.exec(stream[1]!)
  const parameters: Record<string, string> = {}
  for (const p of (stream?.[2] ?? "").matchAll(/<Parameter\s+name="([^"]*)"\s+value="([^"]*)"\s*\/>/g)) {
    parameters[unescapeXml(p[1]!)] = unescapeXml(p[2]!)
  }
  const redirect = /<Redirect\b[^>]*>([^<]*)<\/Redirect>/.exec(twiml)
  return {
    stream: url === null ? undefined : { url: unescapeXml(url[1]!), parameters },
    redirect: redirect === null ? undefined : unescapeXml(redirect[1]!),
    hangup: /<Hangup\s*\/>/.test(twiml)
  }
}

/** The stream of a call FakeTwilio created, from the `Twiml` parameter of its create-call request. */
export const streamOf = (twilio: FakeTwilioServer, callSid: string): Effect.Effect<StreamTarget> =>
  Effect.suspend(() => {
    const twiml = twilio.call(callSid)?.twiml
    const stream = twiml === undefined ? undefined : parseTwiml(twiml).stream
    return stream === undefined
      ? Effect.dieMessage(`FakeTwilioMedia: call ${callSid} has no <Connect><Stream> in its TwiML: ${twiml}`)
      : Effect.succeed(stream)
  })

/**
 * A caller's line as 8 kHz PCM: its recorded fixture (`packages/runner/fixtures/caller`), else a
 * voiced tone as long as the words, without the silence around the speech, so the audio's first
 * frame is the caller's onset.
 */
export const callerLine = (text: string): Effect.Effect<Int16Array> =>
  Effect.map(fixtureFor(text), (fixture) => {
    const pcm = Option.getOrElse(fixture, () => voicedTone(text))
    const loud = frames(pcm).flatMap((frame, i) => rms(frame) >= 500 ? [i] : [])
    if (loud.length === 0) return pcm
    return pcm.subarray(loud[0]! * SAMPLES_PER_FRAME, (loud.at(-1)! + 1) * SAMPLES_PER_FRAME)
  })

/** The agent's audio as it reached the caller. `at`: when it arrived; it played from `from` to `until` (a `clear` cuts it short). */
export interface AgentAudio {
  readonly at: number
  readonly from: number
  readonly until: number
  readonly mulaw: Uint8Array
}

export interface AgentMark {
  readonly name: string
  readonly at: number
  /** When it was echoed; undefined while its audio plays. */
  readonly echoedAt: number | undefined
  /** Echoed by a `clear`, its audio never played. */
  readonly cleared: boolean
}

export interface FakeTwilioMediaStream {
  readonly streamSid: string
  readonly callSid: string
  /** Sends `connected` and `start` (when connected with `start: false`), then the 20 ms frames begin. */
  readonly start: Effect.Effect<void>
  /** The caller says `pcm` (8 kHz) in place of silence; answers when its first and last frames were sent. */
  readonly say: (pcm: Int16Array) => Effect.Effect<{ readonly startedAt: number; readonly endedAt: number }>
  readonly dtmf: (digit: string) => Effect.Effect<void>
  /** Twilio's end of the stream: `stop`, then a normal close. */
  readonly stop: Effect.Effect<void>
  /** The connection lost without a close frame. */
  readonly drop: Effect.Effect<void>
  /** Sends a frame as it is (text, or binary for a `Uint8Array`). */
  readonly send: (data: string | Uint8Array) => Effect.Effect<void>
  readonly audio: () => ReadonlyArray<AgentAudio>
  readonly marks: () => ReadonlyArray<AgentMark>
  /** When each `clear` arrived. */
  readonly clears: () => ReadonlyArray<number>
  /** Milliseconds of the agent's audio the caller has heard so far, of what arrived at or after `since`. */
  readonly heardMs: (since?: number) => number
  /** Whether the agent's audio is playing or queued, or a mark is still to be echoed. */
  readonly agentSpeaking: () => boolean
  readonly violations: () => ReadonlyArray<string>
  /** How the socket closed; undefined while it is open. */
  readonly closed: () => { readonly code: number; readonly reason: string } | undefined
  /**
   * Waits until `ready()` holds: checked on every message, frame and close; dies after `millis` of
   * real time (30 s unless given), saying what it waited for and what the stream saw.
   */
  readonly until: (label: string, ready: () => boolean, millis?: number) => Effect.Effect<void>
}

export interface ConnectOptions {
  readonly url: string
  readonly parameters?: Readonly<Record<string, string>>
  readonly callSid?: string
  readonly accountSid?: string
  /** Send `connected` and `start` at once; true unless set. */
  readonly start?: boolean
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const SILENCE = Buffer.from(mulawEncode(new Int16Array(SAMPLES_PER_FRAME))).toString("base64")

/** Opens a stream as Twilio does; it is dropped when the scope closes. */
export const connect = (options: ConnectOptions): Effect.Effect<FakeTwilioMediaStream, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const run = yield* FiberSet.makeRuntime<never>()
    const streamSid = `MZ${crypto.randomBytes(16).toString("hex")}`
    const callSid = options.callSid ?? `CA${crypto.randomBytes(16).toString("hex")}`
    const accountSid = options.accountSid ?? DEFAULT_ACCOUNT_SID

    const audio: Array<{ readonly at: number; readonly from: number; until: number; readonly mulaw: Uint8Array }> = []
    const marks: Array<{ readonly name: string; readonly at: number; readonly due: number; echoedAt: number | undefined; cleared: boolean }> = []
    const clears: Array<number> = []
    const violations: Array<string> = []
    const waiters: Array<{ readonly ready: () => boolean; readonly wake: () => void }> = []
    const lines: Array<{ readonly frames: ReadonlyArray<Int16Array>; sent: number; startedAt: number; readonly done: Deferred.Deferred<{ startedAt: number; endedAt: number }> }> = []
    let closed: { readonly code: number; readonly reason: string } | undefined
    let playingUntil = 0
    let sequence = 0
    let started = false

    const wake = () => {
      for (const waiter of waiters.filter((w) => w.ready())) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.wake()
      }
    }

    const socket = yield* Effect.acquireRelease(
      Effect.async<WebSocket, Error>((resume) => {
        const ws = new WebSocket(options.url)
        let opened = false
        ws.on("error", (error) => {
          if (!opened) resume(Effect.fail(error))
        })
        ws.once("open", () => {
          opened = true
          resume(Effect.succeed(ws))
        })
        return Effect.sync(() => ws.terminate())
      }),
      (ws) => Effect.sync(() => ws.terminate())
    )

    const sendJson = (message: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message))
    }

    const echo = (mark: (typeof marks)[number], at: number) => {
      mark.echoedAt = at
      sendJson({ event: "mark", sequenceNumber: String(++sequence), streamSid, mark: { name: mark.name } })
    }

    /** Echoes, in order, the marks whose audio has played by `at`. */
    const echoPlayed = (at: number) => {
      for (const mark of marks) {
        if (mark.echoedAt !== undefined) continue
        if (mark.due > at) break
        echo(mark, at)
      }
      wake()
    }

    /** Echoes `mark` once its audio has played (a timer may fire a little before the clock says it is due). */
    const playOut = (mark: (typeof marks)[number]) =>
      Effect.gen(function*() {
        while (mark.echoedAt === undefined && closed === undefined) {
          const wait = mark.due - now()
          if (wait > 0) yield* Effect.sleep(wait)
          else echoPlayed(now())
        }
      })

    const finishLines = (at: number) => {
      for (const line of lines.splice(0)) Deferred.unsafeDone(line.done, Exit.succeed({ startedAt: line.startedAt, endedAt: at }))
    }

    socket.on("message", (data, isBinary) => {
      const at = now()
      const text = Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(data as Array<Buffer>).toString("utf8")
      let message: Record<string, any> | undefined
      try {
        message = isBinary ? undefined : JSON.parse(text)
      } catch {
        message = undefined
      }
      if (typeof message !== "object" || message === null) {
        violations.push(`not a JSON object: ${text.slice(0, 80)}`)
        return wake()
      }
      if (message.streamSid !== streamSid) violations.push(`${String(message.event)} for stream ${String(message.streamSid)}`)
      switch (message.event) {
        case "media": {
          const payload = message.media?.payload
          if (typeof payload !== "string" || payload === "" || !BASE64.test(payload)) {
            violations.push(`a media payload that is not base64: ${String(payload).slice(0, 40)}`)
            break
          }
          const mulaw = new Uint8Array(Buffer.from(payload, "base64"))
          const from = Math.max(playingUntil, at)
          playingUntil = from + mulaw.length / 8
          audio.push({ at, from, until: playingUntil, mulaw })
          break
        }
        case "mark": {
          const name = message.mark?.name
          if (typeof name !== "string") {
            violations.push("a mark without a name")
            break
          }
          const mark: (typeof marks)[number] = { name, at, due: playingUntil, echoedAt: undefined, cleared: false }
          marks.push(mark)
          if (mark.due > at) run(playOut(mark))
          else echoPlayed(at)
          break
        }
        case "clear": {
          clears.push(at)
          for (const played of audio) played.until = Math.max(played.from, Math.min(played.until, at))
          playingUntil = at
          for (const mark of marks) {
            if (mark.echoedAt !== undefined) continue
            mark.cleared = true
            echo(mark, at)
          }
          break
        }
        default:
          violations.push(`an unknown event: ${String(message.event).slice(0, 40)}`)
      }
      wake()
    })
    socket.on("close", (code, reason) => {
      closed = { code, reason: reason.toString("utf8") }
      finishLines(now())
      wake()
    })

    /** One frame every 20 ms from the start: the caller's words, or silence. */
    const line = Effect.gen(function*() {
      const startedAt = now()
      for (let chunk = 1; closed === undefined; chunk++) {
        const wait = startedAt + (chunk - 1) * FRAME_MS - now()
        if (wait > 0) yield* Effect.sleep(wait)
        if (closed !== undefined || socket.readyState !== WebSocket.OPEN) return
        const at = now()
        const speaking = lines[0]
        let payload = SILENCE
        if (speaking !== undefined) {
          if (speaking.sent === 0) speaking.startedAt = at
          payload = Buffer.from(mulawEncode(speaking.frames[speaking.sent++]!)).toString("base64")
          if (speaking.sent === speaking.frames.length) {
            lines.shift()
            Deferred.unsafeDone(speaking.done, Exit.succeed({ startedAt: speaking.startedAt, endedAt: at + FRAME_MS }))
          }
        }
        sendJson({
          event: "media",
          sequenceNumber: String(++sequence),
          media: { track: "inbound", chunk: String(chunk), timestamp: String((chunk - 1) * FRAME_MS), payload },
          streamSid
        })
        wake()
      }
    })

    const start = Effect.sync(() => {
      if (started) return
      started = true
      sendJson({ event: "connected", protocol: "Call", version: "1.0.0" })
      sendJson({
        event: "start",
        sequenceNumber: String(++sequence),
        start: {
          accountSid,
          streamSid,
          callSid,
          tracks: ["inbound"],
          customParameters: options.parameters ?? {},
          mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 }
        },
        streamSid
      })
      run(line)
    })
    if (options.start !== false) yield* start

    const until = (label: string, ready: () => boolean, millis = 30_000) =>
      Effect.async<void>((resume) => {
        if (ready()) return resume(Effect.void)
        const waiter = {
          ready,
          wake: () => {
            clearTimeout(timer)
            resume(Effect.void)
          }
        }
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1)
          const seen = { audio: audio.length, marks: marks.length, clears, violations, closed }
          resume(Effect.dieMessage(`FakeTwilioMedia: waited ${millis} ms for ${label}; saw ${JSON.stringify(seen)}`))
        }, millis)
        waiters.push(waiter)
        return Effect.sync(() => {
          clearTimeout(timer)
          const index = waiters.indexOf(waiter)
          if (index >= 0) waiters.splice(index, 1)
        })
      })

    const stream: FakeTwilioMediaStream = {
      streamSid,
      callSid,
      start,
      say: (pcm) =>
        Effect.flatMap(Deferred.make<{ startedAt: number; endedAt: number }>(), (done) => {
          if (closed !== undefined) return Effect.succeed({ startedAt: now(), endedAt: now() })
          lines.push({ frames: frames(pcm), sent: 0, startedAt: 0, done })
          return Deferred.await(done)
        }),
      dtmf: (digit) =>
        Effect.sync(() => sendJson({ event: "dtmf", streamSid, sequenceNumber: String(++sequence), dtmf: { track: "inbound_track", digit } })),
      stop: Effect.sync(() => {
        sendJson({ event: "stop", sequenceNumber: String(++sequence), stop: { accountSid, callSid }, streamSid })
        socket.close(1000)
      }),
      drop: Effect.sync(() => socket.terminate()),
      send: (data) =>
        Effect.sync(() => {
          if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary: typeof data !== "string" })
        }),
      audio: () => audio.map((a) => ({ ...a })),
      marks: () => marks.map(({ due: _, ...mark }) => mark),
      clears: () => clears.slice(),
      heardMs: (since = 0) => {
        const t = now()
        return audio.reduce((sum, a) => a.at >= since ? sum + Math.max(0, Math.min(a.until, t) - a.from) : sum, 0)
      },
      agentSpeaking: () => playingUntil > now() || marks.some((m) => m.echoedAt === undefined),
      violations: () => violations.slice(),
      closed: () => closed,
      until
    }
    return stream
  })

/** Answers a call FakeTwilio created as Twilio does once it is answered: opens the stream its TwiML names. */
export const connectCall = (twilio: FakeTwilioServer, callSid: string, options: { readonly start?: boolean } = {}) =>
  Effect.flatMap(streamOf(twilio, callSid), (target) =>
    connect({ url: target.url, parameters: target.parameters, callSid, accountSid: twilio.accountSid, ...options }))

/**
 * The caller's line of a carrier's bidirectional media stream, for tests: what FakeTwilioMedia and
 * FakeTelnyxMedia share, each giving only its carrier's frames.
 *
 * - A WebSocket client to the stream's url (with the upgrade's headers, if any).
 * - Once started, one `media` frame every 20 ms (`chunk` from 1): the caller's audio given to `say`,
 *   silence otherwise, as a phone line sends.
 * - The agent's `media` is queued and played in real time (8 bytes a ms, from when it arrives or
 *   when what was queued before it ends); each `mark` is echoed once the audio queued before it has
 *   played (at once when nothing is queued); `clear` drops what has not played and echoes the
 *   pending marks at once. Everything received is recorded with its arrival time, and so is what
 *   the caller heard.
 *
 * Times are Effect's Clock where the stream was connected: real time on a live clock; under the
 * TestClock frames and playout move only with it. What the platform sends that the carrier would
 * not take (not JSON, an unknown event, a payload that is not base64 μ-law, a mark without a name,
 * and what the carrier's own checks find) is kept in `violations`.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import WebSocket from "ws"
import { FRAME_MS, frames, mulawDecode, mulawEncode, SAMPLES_PER_FRAME } from "../Voice/Audio.js"
import { fixtureFor, voicedTone } from "../Voice/CallerVoice.js"
import { detectDigits } from "../Voice/Dtmf.js"
import { rms } from "../Voice/Vad.js"
import { makeWaiters } from "./FakeHttp.js"

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

/**
 * The agent's audio as it reached the caller. `at`: when it arrived;
 * it played from `from` to `until` (a `clear` cuts it short).
 */
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

/** What a fake media stream offers whatever its carrier. */
export interface CallerLineStream {
  /** The caller says `pcm` (8 kHz) in place of silence; answers when its first and last frames were sent. */
  readonly say: (pcm: Int16Array) => Effect.Effect<{ readonly startedAt: number; readonly endedAt: number }>
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
  /**
   * The keys the agent pressed, as its audio carried them (DTMF tones,
   * read with a Goertzel detector), of what arrived at or after `since`.
   */
  readonly keysHeard: (since?: number) => string
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

/** A JSON message from the platform on the line: the fields the line reads, as it checks them. */
export interface LineMessage {
  readonly event?: unknown
  readonly media?: { readonly payload?: unknown }
  readonly mark?: { readonly name?: unknown }
  readonly [field: string]: unknown
}

/** A carrier's frames, for the line to send and check. */
export interface LineProtocol {
  /** The `chunk`th frame of the caller's audio (from 1), `payload` in base64 μ-law. */
  readonly media: (chunk: number, payload: string) => Record<string, unknown>
  /** The echo of the agent's mark `name`. */
  readonly mark: (name: string) => Record<string, unknown>
  /** What is wrong with a message from the platform beyond its event, checked before it is handled. */
  readonly checkMessage?: (message: LineMessage) => string | undefined
  /** What is wrong with the agent's audio chunk beyond its encoding. */
  readonly checkMedia?: (mulaw: Uint8Array) => string | undefined
}

export interface CallerLine {
  readonly stream: CallerLineStream
  readonly now: () => number
  /** Sends a JSON frame while the socket is open. */
  readonly sendJson: (message: Record<string, unknown>) => void
  /** Starts the 20 ms frames. */
  readonly startFrames: () => void
  /** Closes the socket with `code`. */
  readonly close: (code: number) => void
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const SILENCE = Buffer.from(mulawEncode(new Int16Array(SAMPLES_PER_FRAME))).toString("base64")

/** Opens the line's socket; it is dropped when the scope closes. `name` names the fake in its failures. */
export const openCallerLine = (options: {
  readonly name: string
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly protocol: LineProtocol
}): Effect.Effect<CallerLine, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const { protocol } = options
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const run = yield* FiberSet.makeRuntime<never>()

    const audio: Array<{ readonly at: number; readonly from: number; until: number; readonly mulaw: Uint8Array }> = []
    const marks: Array<
      {
        readonly name: string
        readonly at: number
        readonly due: number
        echoedAt: number | undefined
        cleared: boolean
      }
    > = []
    const clears: Array<number> = []
    const violations: Array<string> = []
    const waiters = makeWaiters(options.name)
    const lines: Array<
      {
        readonly frames: ReadonlyArray<Int16Array>
        sent: number
        startedAt: number
        readonly done: Deferred.Deferred<{ startedAt: number; endedAt: number }>
      }
    > = []
    let closed: { readonly code: number; readonly reason: string } | undefined
    let playingUntil = 0

    const socket = yield* Effect.acquireRelease(
      Effect.async<WebSocket, Error>((resume) => {
        const ws = new WebSocket(options.url, options.headers === undefined ? {} : { headers: options.headers })
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
      sendJson(protocol.mark(mark.name))
    }

    /** Echoes, in order, the marks whose audio has played by `at`. */
    const echoPlayed = (at: number) => {
      for (const mark of marks) {
        if (mark.echoedAt !== undefined) continue
        if (mark.due > at) break
        echo(mark, at)
      }
      waiters.wake()
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
      for (const line of lines.splice(0)) {
        Deferred.unsafeDone(line.done, Exit.succeed({ startedAt: line.startedAt, endedAt: at }))
      }
    }

    socket.on("message", (data, isBinary) => {
      const at = now()
      const text = Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(data as Array<Buffer>).toString("utf8")
      let message: LineMessage | undefined
      try {
        message = isBinary ? undefined : JSON.parse(text)
      } catch {
        message = undefined
      }
      if (typeof message !== "object" || message === null) {
        violations.push(`not a JSON object: ${text.slice(0, 80)}`)
        return waiters.wake()
      }
      const wrong = protocol.checkMessage?.(message)
      if (wrong !== undefined) violations.push(wrong)
      switch (message.event) {
        case "media": {
          const payload = message.media?.payload
          if (typeof payload !== "string" || payload === "" || !BASE64.test(payload)) {
            violations.push(`a media payload that is not base64: ${String(payload).slice(0, 40)}`)
            break
          }
          const mulaw = new Uint8Array(Buffer.from(payload, "base64"))
          const wrongMedia = protocol.checkMedia?.(mulaw)
          if (wrongMedia !== undefined) violations.push(wrongMedia)
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
      waiters.wake()
    })
    socket.on("close", (code, reason) => {
      closed = { code, reason: reason.toString("utf8") }
      finishLines(now())
      waiters.wake()
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
        sendJson(protocol.media(chunk, payload))
        waiters.wake()
      }
    })

    const stream: CallerLineStream = {
      say: (pcm) =>
        Effect.flatMap(Deferred.make<{ startedAt: number; endedAt: number }>(), (done) => {
          if (closed !== undefined) return Effect.succeed({ startedAt: now(), endedAt: now() })
          lines.push({ frames: frames(pcm), sent: 0, startedAt: 0, done })
          return Deferred.await(done)
        }),
      drop: Effect.sync(() => socket.terminate()),
      send: (data) =>
        Effect.sync(() => {
          if (socket.readyState === WebSocket.OPEN) socket.send(data, { binary: typeof data !== "string" })
        }),
      audio: () => audio.map((a) => ({ ...a })),
      keysHeard: (since = 0) => {
        const received = audio.filter((a) => a.at >= since)
        const bytes = new Uint8Array(received.reduce((n, a) => n + a.mulaw.length, 0))
        let offset = 0
        for (const a of received) {
          bytes.set(a.mulaw, offset)
          offset += a.mulaw.length
        }
        return detectDigits(mulawDecode(bytes))
      },
      marks: () => marks.map(({ due: _, ...mark }) => mark),
      clears: () => clears.slice(),
      heardMs: (since = 0) => {
        const t = now()
        return audio.reduce((sum, a) => a.at >= since ? sum + Math.max(0, Math.min(a.until, t) - a.from) : sum, 0)
      },
      agentSpeaking: () => playingUntil > now() || marks.some((m) => m.echoedAt === undefined),
      violations: () => violations.slice(),
      closed: () => closed,
      until: (label, ready, millis) =>
        waiters.until(label, ready, millis, () => {
          const seen = { audio: audio.length, marks: marks.length, clears, violations, closed }
          return `saw ${JSON.stringify(seen)}`
        })
    }
    return { stream, now, sendJson, startFrames: () => run(line), close: (code) => socket.close(code) }
  })

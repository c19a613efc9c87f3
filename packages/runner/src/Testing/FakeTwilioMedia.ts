/**
 * Twilio's side of a bidirectional Media Stream (`<Connect><Stream>`), for tests: a WebSocket client
 * that plays Twilio as twilio.com/docs/voice/media-streams/websocket-messages documents it.
 *
 * - It connects to the `<Stream url>` of a call's TwiML (`streamOf` reads it, with its
 *   `<Parameter>`s, from the create-call request FakeTwilio received) and sends `connected`, then
 *   `start` (streamSid, callSid, `tracks: ["inbound"]`, the parameters as `customParameters`,
 *   mediaFormat `audio/x-mulaw`, 8000, 1).
 * - From `start` on, one `media` message every 20 ms (`sequenceNumber`, `chunk` from 1, `timestamp`
 *   in ms since the start, 160 bytes of base64 μ-law); the caller's line itself (what `say` sends,
 *   the agent's audio played, marks echoed, `clear`, `violations`) is FakeCallerLine's.
 * - `dtmf`, `stop` (then a normal close), an abrupt drop, and raw frames (`send`) for protocol tests.
 *
 * Beyond FakeCallerLine's checks, a message for another streamSid is a violation.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import { FRAME_MS } from "../Voice/Audio.js"
import { type CallerLineStream, openCallerLine } from "./FakeCallerLine.js"
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
  /** `<Dial>`: the number dialled and the caller id shown there. */
  readonly dial: { readonly number: string; readonly callerId: string | undefined } | undefined
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
  const dial = /<Dial\b([^>]*)>\s*(?:<Number\b[^>]*>([^<]*)<\/Number>|([^<]*))\s*<\/Dial>/.exec(twiml)
  const callerId = dial === null ? null : /\bcallerId="([^"]*)"/.exec(dial[1]!)
  return {
    stream: url === null ? undefined : { url: unescapeXml(url[1]!), parameters },
    redirect: redirect === null ? undefined : unescapeXml(redirect[1]!),
    hangup: /<Hangup\s*\/>/.test(twiml),
    dial: dial === null
      ? undefined
      : {
        number: unescapeXml((dial[2] ?? dial[3] ?? "").trim()),
        callerId: callerId === null ? undefined : unescapeXml(callerId[1]!)
      }
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

export { type AgentAudio, type AgentMark, callerLine } from "./FakeCallerLine.js"

export interface FakeTwilioMediaStream extends CallerLineStream {
  readonly streamSid: string
  readonly callSid: string
  /** Sends `connected` and `start` (when connected with `start: false`), then the 20 ms frames begin. */
  readonly start: Effect.Effect<void>
  readonly dtmf: (digit: string) => Effect.Effect<void>
  /** Twilio's end of the stream: `stop`, then a normal close. */
  readonly stop: Effect.Effect<void>
}

export interface ConnectOptions {
  readonly url: string
  readonly parameters?: Readonly<Record<string, string>>
  readonly callSid?: string
  readonly accountSid?: string
  /** Send `connected` and `start` at once; true unless set. */
  readonly start?: boolean
}

/** Opens a stream as Twilio does; it is dropped when the scope closes. */
export const connect = (options: ConnectOptions): Effect.Effect<FakeTwilioMediaStream, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const streamSid = `MZ${crypto.randomBytes(16).toString("hex")}`
    const callSid = options.callSid ?? `CA${crypto.randomBytes(16).toString("hex")}`
    const accountSid = options.accountSid ?? DEFAULT_ACCOUNT_SID
    let sequence = 0
    let started = false

    const line = yield* openCallerLine({
      name: "FakeTwilioMedia",
      url: options.url,
      protocol: {
        media: (chunk, payload) => ({
          event: "media",
          sequenceNumber: String(++sequence),
          media: { track: "inbound", chunk: String(chunk), timestamp: String((chunk - 1) * FRAME_MS), payload },
          streamSid
        }),
        mark: (name) => ({ event: "mark", sequenceNumber: String(++sequence), streamSid, mark: { name } }),
        checkMessage: (message) =>
          message.streamSid !== streamSid
            ? `${String(message.event)} for stream ${String(message.streamSid)}`
            : undefined
      }
    })

    const start = Effect.sync(() => {
      if (started) return
      started = true
      line.sendJson({ event: "connected", protocol: "Call", version: "1.0.0" })
      line.sendJson({
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
      line.startFrames()
    })
    if (options.start !== false) yield* start

    const stream: FakeTwilioMediaStream = {
      ...line.stream,
      streamSid,
      callSid,
      start,
      dtmf: (digit) =>
        Effect.sync(() =>
          line.sendJson({
            event: "dtmf",
            streamSid,
            sequenceNumber: String(++sequence),
            dtmf: { track: "inbound_track", digit }
          })
        ),
      stop: Effect.sync(() => {
        line.sendJson({ event: "stop", sequenceNumber: String(++sequence), stop: { accountSid, callSid }, streamSid })
        line.close(1000)
      })
    }
    return stream
  })

/** Answers a call FakeTwilio created as Twilio does once it is answered: opens the stream its TwiML names. */
export const connectCall = (twilio: FakeTwilioServer, callSid: string, options: { readonly start?: boolean } = {}) =>
  Effect.flatMap(
    streamOf(twilio, callSid),
    (target) =>
      connect({ url: target.url, parameters: target.parameters, callSid, accountSid: twilio.accountSid, ...options })
  )

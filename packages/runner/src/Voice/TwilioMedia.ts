/**
 * Twilio Media Streams, bidirectional (`<Connect><Stream>`): Twilio opens a WebSocket to the runner
 * that placed the call and sends `connected`, `start` (with our `<Parameter name="token">`), then a
 * `media` message every 20 ms (base64 μ-law 8 kHz), `mark` echoes, `dtmf` and `stop`; we send
 * `media`, `mark` and `clear` back (twilio.com/docs/voice/media-streams/websocket-messages).
 *
 * A stream is accepted only with a valid, unexpired token that was not used before, for a call whose
 * entity runs in this process; then it becomes that call's `MediaSession`. Anything else closes the
 * socket (1008) and nothing else happens: Twilio then follows the `<Redirect>` after `<Connect>`,
 * which asks the call's current owner for a fresh stream. A protocol violation on an accepted stream
 * (not JSON, an unknown event, media for another stream, a payload that is not base64 μ-law) ends
 * the stream with that reason.
 */
import type { SessionId } from "@voiceagent/domain/Calls"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Redacted from "effect/Redacted"
import type * as Runtime from "effect/Runtime"
import * as EffectRuntime from "effect/Runtime"
import type { RawData, WebSocket } from "ws"
import { durationMs, mulawDecode, mulawEncode } from "./Audio.js"
import { makeAudioInlet, MediaEvent, type MediaSession } from "./Media.js"
import {
  attachOrRefuse,
  checkToken,
  closeReason,
  sendJson,
  startTimeout,
  useToken,
  wireSocket
} from "./StreamSession.js"

export { closeReason, START_TIMEOUT_MS } from "./StreamSession.js"

/** Where Twilio connects, under the runner's media address. */
export const TWILIO_MEDIA_PATH = "/media/twilio"

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** The largest media payload taken (1 s of audio); Twilio sends 20 ms. */
const MAX_PAYLOAD_BYTES = 8_000

const isMulaw8kMono = (format: unknown): boolean => {
  if (typeof format !== "object" || format === null) return false
  const fields = format as Record<string, unknown>
  return fields["encoding"] === "audio/x-mulaw" && Number(fields["sampleRate"]) === 8_000 &&
    Number(fields["channels"] ?? 1) === 1
}

export interface TwilioMediaOptions {
  /** This process's key for stream tokens. */
  readonly secret: Redacted.Redacted
  /** Hands an accepted stream to its call; false when the call is not in this process. */
  readonly attach: (session: MediaSession) => Effect.Effect<boolean>
  /**
   * Tokens used, with their expiry, so a replayed one is refused; an expired token is refused anyway,
   * so it is forgotten once it expires (the map holds at most the streams of one token lifetime).
   */
  readonly used: Map<string, number>
  readonly runtime: Runtime.Runtime<never>
  readonly log: (message: string, annotations: Record<string, unknown>) => void
}

interface Parsed {
  readonly event?: unknown
  readonly streamSid?: unknown
  readonly start?: {
    readonly streamSid?: unknown
    readonly customParameters?: Record<string, unknown>
    readonly mediaFormat?: unknown
  }
  readonly media?: { readonly payload?: unknown; readonly timestamp?: unknown; readonly track?: unknown }
  readonly mark?: { readonly name?: unknown }
  readonly dtmf?: { readonly digit?: unknown }
}

/** Serves one Twilio media WebSocket until it closes. */
export const serveTwilioStream = (socket: WebSocket, options: TwilioMediaOptions): void => {
  const run = EffectRuntime.runFork(options.runtime)
  const now = () => EffectRuntime.runSync(options.runtime)(Clock.currentTimeMillis)
  let session:
    | {
      readonly streamSid: string
      readonly sessionId: string
      readonly events: Queue.Queue<MediaEvent>
      readonly audio: ReturnType<typeof makeAudioInlet>
    }
    | undefined
  let ended = false
  let lastAt = 0
  /** Where the next frame starts on the stream, by the audio received (for frames without a timestamp). */
  let nextAt = 0

  const refuse = (reason: string, annotations: Record<string, unknown> = {}) => {
    options.log(`media stream refused: ${reason}`, annotations)
    ended = true
    socket.close(1008, closeReason(reason))
  }

  /** The stream is over: the call hears of it once, with the reason. */
  const end = (reason: string) => {
    if (ended) return
    ended = true
    if (session !== undefined) {
      const events = session.events
      run(Queue.offer(events, MediaEvent.Stopped({ at: lastAt, reason })))
    }
  }

  const violate = (reason: string) => {
    if (ended) return
    options.log(`media stream closed: ${reason}`, { sessionId: session?.sessionId, streamSid: session?.streamSid })
    end(reason)
    socket.close(1008, closeReason(reason))
  }

  const send = sendJson(socket)

  const stopStartTimer = startTimeout(run, () => {
    if (session === undefined && !ended) refuse("no start within 10 s")
  })

  const onStart = (message: Parsed) => {
    const streamSid = message.start?.streamSid ?? message.streamSid
    const token = message.start?.customParameters?.["token"]
    if (typeof streamSid !== "string" || streamSid === "") return refuse("start without a streamSid")
    if (typeof token !== "string") return refuse("start without a token", { streamSid })
    const checked = checkToken(options, token, now())
    if ("refused" in checked) {
      return refuse(
        checked.refused,
        checked.sessionId === undefined ? { streamSid } : { streamSid, sessionId: checked.sessionId }
      )
    }
    const format = message.start?.mediaFormat
    if (format !== undefined && !isMulaw8kMono(format)) {
      return refuse("media format is not μ-law 8 kHz mono", { streamSid })
    }
    useToken(options.used, token, checked.expiresAt, now())
    stopStartTimer()
    const events = EffectRuntime.runSync(options.runtime)(Queue.sliding<MediaEvent>(1_000))
    // the caller's audio goes to the engine from this socket's callback, frame by frame
    const audio = makeAudioInlet()
    session = { streamSid, sessionId: checked.sessionId, events, audio }
    const media: MediaSession = {
      sessionId: checked.sessionId as SessionId,
      streamId: streamSid,
      events,
      listen: audio.listen,
      play: (pcm) => {
        const bytes = mulawEncode(pcm)
        return send({
          event: "media",
          streamSid,
          media: { payload: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") }
        })
      },
      mark: (name) => send({ event: "mark", streamSid, mark: { name } }),
      clear: send({ event: "clear", streamSid }),
      close: Effect.sync(() => {
        end("closed by the platform")
        socket.close(1000)
      })
    }
    attachOrRefuse(run, options.attach(media), () => {
      session = undefined
      refuse("the call is not in this process", { sessionId: checked.sessionId, streamSid })
    })
  }

  const onMessage = (data: RawData, isBinary: boolean) => {
    if (ended) return
    if (isBinary) return violate("a binary message")
    let message: Parsed
    try {
      message = JSON.parse(data.toString("utf8")) as Parsed
    } catch {
      return session === undefined ? refuse("a message that is not JSON") : violate("a message that is not JSON")
    }
    if (typeof message !== "object" || message === null) return violate("a message that is not an object")
    switch (message.event) {
      case "connected":
        return
      case "start":
        return session === undefined ? onStart(message) : violate("a second start")
      case "media": {
        if (session === undefined) return refuse("media before start")
        if (message.streamSid !== session.streamSid) return violate("media for another stream")
        const payload = message.media?.payload
        if (typeof payload !== "string" || payload.length === 0 || !BASE64.test(payload)) {
          return violate("a media payload that is not base64")
        }
        const mulaw = new Uint8Array(Buffer.from(payload, "base64"))
        if (mulaw.length > MAX_PAYLOAD_BYTES) return violate("a media payload over 1 s")
        // the frame's place on the stream's clock (the engine times speech by it); without a timestamp,
        // the audio before it counted
        const stamp = message.media?.timestamp
        const timestamp = (typeof stamp === "string" && stamp.trim() !== "") || typeof stamp === "number"
          ? Number(stamp)
          : Number.NaN
        lastAt = Number.isFinite(timestamp) && timestamp >= 0 ? timestamp : nextAt
        nextAt = lastAt + durationMs(mulaw.length)
        session.audio.push({ mulaw, pcm: mulawDecode(mulaw), at: lastAt })
        return
      }
      case "mark": {
        if (session === undefined) return refuse("mark before start")
        const name = message.mark?.name
        if (typeof name !== "string") return violate("a mark without a name")
        Queue.unsafeOffer(session.events, MediaEvent.Mark({ name, at: lastAt }))
        return
      }
      case "dtmf": {
        if (session === undefined) return refuse("dtmf before start")
        const digit = message.dtmf?.digit
        if (typeof digit !== "string" || !/^[0-9*#A-D]$/.test(digit)) return violate("a dtmf event without a digit")
        Queue.unsafeOffer(session.events, MediaEvent.Dtmf({ digit, at: lastAt }))
        return
      }
      case "stop":
        end("the caller's stream stopped")
        socket.close(1000)
        return
      default:
        return session === undefined
          ? refuse(`an unknown event before start`)
          : violate(`an unknown event ${String(message.event).slice(0, 40)}`)
    }
  }
  wireSocket(socket, {
    onMessage,
    end,
    stopStartTimer,
    sessionId: () => session?.sessionId,
    log: options.log,
    annotations: {}
  })
}

/**
 * Telnyx Media Streaming, bidirectional RTP (`stream_url` with `stream_bidirectional_mode: "rtp"`,
 * `stream_bidirectional_codec: "PCMU"`): Telnyx opens a WebSocket to the runner that placed the call,
 * with the call's `stream_auth_token` in the `x-telnyx-streaming-auth-token` header (and in the
 * `connected` frame), and sends `connected`, `start` (`stream_id`, `start.call_control_id`,
 * `start.media_format`), then `media` frames (`media.track`, `chunk`, `timestamp`, `payload`: base64
 * RTP payload without headers), `mark` echoes, `dtmf`, `error` and `stop`; we send
 * `{"event":"media","media":{"payload"}}`, `{"event":"mark","mark":{"name"}}` and `{"event":"clear"}`
 * (developers.telnyx.com, "Stream call media over WebSocket").
 *
 * Accepted, like a Twilio stream, only with a valid, unexpired token not used before, for a call whose entity runs in
 * this process; anything else closes the socket (1008) and nothing else happens. Telnyx does not promise frame order: a
 * frame older than one already taken (by `chunk`) is dropped, its moment past, and counted as lost audio on the
 * stream's clock; frames of the outbound track (a `both_tracks` stream) are not the caller's and are skipped. An
 * `error` frame is logged and the stream goes on; an event Telnyx may add later is ignored.
 */
import type { SessionId } from "@voiceagent/domain/Calls"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as EffectRuntime from "effect/Runtime"
import type { RawData, WebSocket } from "ws"
import { durationMs, mulawDecode, mulawEncode } from "./Audio.js"
import { MediaEvent, type MediaSession } from "./Media.js"
import {
  attachOrRefuse,
  checkToken,
  closeReason,
  sendJson,
  startTimeout,
  useToken,
  wireSocket
} from "./StreamSession.js"
import { TWILIO_MEDIA_PATH, type TwilioMediaOptions } from "./TwilioMedia.js"

/** Where Telnyx connects, under the runner's media address. */
export const TELNYX_MEDIA_PATH = "/media/telnyx"

/** The upgrade request's header (and the `connected` frame's field) carrying the dial's `stream_auth_token`. */
export const TOKEN_HEADER = "x-telnyx-streaming-auth-token"

/**
 * A runner's Telnyx stream URL from its media route (whose URL is the runner's Twilio stream): the
 * same media address, Telnyx's path.
 */
export const telnyxStreamUrl = (routeUrl: string): string =>
  routeUrl.endsWith(TWILIO_MEDIA_PATH)
    ? `${routeUrl.slice(0, -TWILIO_MEDIA_PATH.length)}${TELNYX_MEDIA_PATH}`
    : `${routeUrl.replace(/\/+$/, "")}${TELNYX_MEDIA_PATH}`

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** The largest media payload taken (1 s of audio); Telnyx sends 20 ms. */
const MAX_PAYLOAD_BYTES = 8_000

const isPcmu8kMono = (format: unknown): boolean => {
  if (typeof format !== "object" || format === null) return false
  const fields = format as Record<string, unknown>
  return fields["encoding"] === "PCMU" && Number(fields["sample_rate"]) === 8_000 &&
    Number(fields["channels"] ?? 1) === 1
}

export interface TelnyxMediaOptions extends TwilioMediaOptions {
  /** The upgrade request's `x-telnyx-streaming-auth-token`, when it had one. */
  readonly headerToken: string | undefined
}

interface Parsed {
  readonly event?: unknown
  readonly stream_id?: unknown
  readonly connected?: Record<string, unknown>
  readonly start?: { readonly stream_id?: unknown; readonly call_control_id?: unknown; readonly media_format?: unknown }
  readonly media?: { readonly payload?: unknown; readonly chunk?: unknown; readonly track?: unknown }
  readonly mark?: { readonly name?: unknown }
  readonly dtmf?: { readonly digit?: unknown }
  readonly payload?: unknown
}

/** Serves one Telnyx media WebSocket until it closes. */
export const serveTelnyxStream = (socket: WebSocket, options: TelnyxMediaOptions): void => {
  const run = EffectRuntime.runFork(options.runtime)
  const now = () => EffectRuntime.runSync(options.runtime)(Clock.currentTimeMillis)
  let token = options.headerToken
  let session:
    | { readonly streamId: string; readonly sessionId: string; readonly events: Queue.Queue<MediaEvent> }
    | undefined
  let ended = false
  let lastAt = 0
  /** Where the next frame starts on the stream, by the audio received. */
  let nextAt = 0
  let lastChunk = 0

  const refuse = (reason: string, annotations: Record<string, unknown> = {}) => {
    options.log(`media stream refused: ${reason}`, { carrier: "telnyx", ...annotations })
    ended = true
    socket.close(1008, closeReason(reason))
  }

  /** The stream is over: the call hears of it once, with the reason. */
  const end = (reason: string) => {
    if (ended) return
    ended = true
    if (session !== undefined) run(Queue.offer(session.events, MediaEvent.Stopped({ at: lastAt, reason })))
  }

  const violate = (reason: string) => {
    if (ended) return
    options.log(`media stream closed: ${reason}`, {
      carrier: "telnyx",
      sessionId: session?.sessionId,
      streamId: session?.streamId
    })
    end(reason)
    socket.close(1008, closeReason(reason))
  }

  const send = sendJson(socket)

  const stopStartTimer = startTimeout(run, () => {
    if (session === undefined && !ended) refuse("no start within 10 s")
  })

  const onStart = (message: Parsed) => {
    const streamId = message.stream_id ?? message.start?.stream_id
    if (typeof streamId !== "string" || streamId === "") return refuse("start without a stream_id")
    if (token === undefined || token === "") return refuse("start without a token", { streamId })
    const checked = checkToken(options, token, now())
    if ("refused" in checked) {
      return refuse(
        checked.refused,
        checked.sessionId === undefined ? { streamId } : { streamId, sessionId: checked.sessionId }
      )
    }
    const format = message.start?.media_format
    if (format !== undefined && !isPcmu8kMono(format)) {
      return refuse("media format is not PCMU 8 kHz mono", { streamId })
    }
    useToken(options.used, token, checked.expiresAt, now())
    stopStartTimer()
    const events = EffectRuntime.runSync(options.runtime)(Queue.sliding<MediaEvent>(1_000))
    session = { streamId, sessionId: checked.sessionId, events }
    const media: MediaSession = {
      sessionId: checked.sessionId as SessionId,
      streamId,
      events,
      play: (pcm) => send({ event: "media", media: { payload: Buffer.from(mulawEncode(pcm)).toString("base64") } }),
      mark: (name) => send({ event: "mark", mark: { name } }),
      clear: send({ event: "clear" }),
      close: Effect.sync(() => {
        end("closed by the platform")
        socket.close(1000)
      })
    }
    attachOrRefuse(run, options.attach(media), () => {
      session = undefined
      refuse("the call is not in this process", { sessionId: checked.sessionId, streamId })
    })
  }

  const onMedia = (message: Parsed) => {
    if (session === undefined) return refuse("media before start")
    if (message.stream_id !== undefined && message.stream_id !== session.streamId) {
      return violate("media for another stream")
    }
    const track = message.media?.track
    if (track !== undefined && track !== "inbound" && track !== "inbound_track") return
    const payload = message.media?.payload
    if (typeof payload !== "string" || payload.length === 0 || !BASE64.test(payload)) {
      return violate("a media payload that is not base64")
    }
    const mulaw = new Uint8Array(Buffer.from(payload, "base64"))
    if (mulaw.length > MAX_PAYLOAD_BYTES) return violate("a media payload over 1 s")
    // the frame's place on the stream's clock (the engine times speech by it): the audio before it
    // counted, chunks that never came as lost audio (Telnyx's timestamp is not documented in ms)
    const frameMs = durationMs(mulaw.length)
    let at = nextAt
    const chunk = Number(message.media?.chunk)
    if (Number.isSafeInteger(chunk) && chunk > 0) {
      if (chunk <= lastChunk) return
      if (lastChunk > 0) at += (chunk - lastChunk - 1) * frameMs
      lastChunk = chunk
    }
    lastAt = at
    nextAt = at + frameMs
    run(Queue.offer(session.events, MediaEvent.Audio({ mulaw, pcm: mulawDecode(mulaw), at })))
  }

  const onMessage = (data: RawData, isBinary: boolean) => {
    if (ended) return
    if (isBinary) return session === undefined ? refuse("a binary message") : violate("a binary message")
    let message: Parsed
    try {
      message = JSON.parse(data.toString("utf8")) as Parsed
    } catch {
      return session === undefined ? refuse("a message that is not JSON") : violate("a message that is not JSON")
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      return session === undefined
        ? refuse("a message that is not an object")
        : violate("a message that is not an object")
    }
    switch (message.event) {
      case "connected": {
        const given = message.connected?.[TOKEN_HEADER]
        if (token === undefined && typeof given === "string") token = given
        return
      }
      case "start":
        return session === undefined ? onStart(message) : violate("a second start")
      case "media":
        return onMedia(message)
      case "mark": {
        if (session === undefined) return refuse("mark before start")
        const name = message.mark?.name
        if (typeof name !== "string") return violate("a mark without a name")
        run(Queue.offer(session.events, MediaEvent.Mark({ name, at: lastAt })))
        return
      }
      case "dtmf": {
        if (session === undefined) return refuse("dtmf before start")
        const digit = message.dtmf?.digit
        if (typeof digit !== "string" || !/^[0-9*#A-D]$/.test(digit)) return violate("a dtmf event without a digit")
        run(Queue.offer(session.events, MediaEvent.Dtmf({ digit, at: lastAt })))
        return
      }
      case "error":
        options.log("Telnyx reported a media stream error", {
          carrier: "telnyx",
          sessionId: session?.sessionId,
          error: JSON.stringify(message.payload ?? null).slice(0, 500)
        })
        return
      case "stop":
        if (session === undefined) return refuse("stop before start")
        end("the caller's stream stopped")
        socket.close(1000)
        return
      default:
        if (session === undefined) return refuse("an unknown event before start")
    }
  }
  wireSocket(socket, {
    onMessage,
    end,
    stopStartTimer,
    sessionId: () => session?.sessionId,
    log: options.log,
    annotations: { carrier: "telnyx" }
  })
}

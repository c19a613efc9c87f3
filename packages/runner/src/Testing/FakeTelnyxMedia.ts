/**
 * Telnyx's side of a bidirectional media stream (Call Control `stream_url`, RTP in PCMU), for tests:
 * a WebSocket client that plays Telnyx as "Stream call media over WebSocket" documents it — the
 * caller's line.
 *
 * - It connects to the dial's `stream_url` (`connectCall` reads it, with `stream_auth_token`, from
 *   the dial FakeTelnyx received), the token in the `x-telnyx-streaming-auth-token` header and in
 *   the `connected` frame (either alone when asked), then sends `start` (`stream_id`, `start` with
 *   `call_control_id`, `call_session_id`, `from`, `to`, `media_format` PCMU 8000 1).
 * - From `start` on, one `media` frame every 20 ms (`sequence_number`, `media.track: "inbound"`,
 *   `chunk` from 1, `timestamp`, 160 bytes of base64 μ-law); the caller's line itself (what `say`
 *   sends, the agent's audio played, marks echoed, `clear`, `violations`) is FakeCallerLine's.
 * - `dtmf`, `error`, `stop` (then a normal close), an abrupt drop, and raw frames for protocol tests.
 *
 * Beyond FakeCallerLine's checks, an agent's media chunk shorter than 20 ms or longer than 30 s
 * (RTP's bounds) is a violation.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import { FRAME_MS } from "../Voice/Audio.js"
import { TOKEN_HEADER } from "../Voice/TelnyxMedia.js"
import { type CallerLineStream, openCallerLine } from "./FakeCallerLine.js"
import type { FakeTelnyxServer } from "./FakeTelnyx.js"

export { callerLine } from "./FakeCallerLine.js"

export interface FakeTelnyxMediaStream extends CallerLineStream {
  readonly streamId: string
  readonly callControlId: string
  /** Sends `connected` and `start` (when connected with `start: false`), then the 20 ms frames begin. */
  readonly start: Effect.Effect<void>
  readonly dtmf: (digit: string) => Effect.Effect<void>
  /** Telnyx's end of the stream: `stop`, then a normal close. */
  readonly stop: Effect.Effect<void>
}

export interface ConnectOptions {
  readonly url: string
  /** The dial's `stream_auth_token`; none sent when undefined. */
  readonly token: string | undefined
  /** Where the token goes: the upgrade's header, the `connected` frame, or both (Telnyx's way; the default). */
  readonly tokenIn?: "header" | "connected" | "both"
  readonly callControlId?: string
  readonly from?: string
  readonly to?: string
  /** Send `connected` and `start` at once; true unless set. */
  readonly start?: boolean
}

/** Opens a stream as Telnyx does; it is dropped when the scope closes. */
export const connect = (options: ConnectOptions): Effect.Effect<FakeTelnyxMediaStream, Error, Scope.Scope> =>
  Effect.gen(function*() {
    const streamId = crypto.randomUUID()
    const callControlId = options.callControlId ?? `v3:${crypto.randomBytes(24).toString("base64url")}`
    const tokenIn = options.tokenIn ?? "both"
    let sequence = 0
    let started = false

    const line = yield* openCallerLine({
      name: "FakeTelnyxMedia",
      url: options.url,
      headers: options.token !== undefined && tokenIn !== "connected" ? { [TOKEN_HEADER]: options.token } : undefined,
      protocol: {
        media: (chunk, payload) => ({
          event: "media",
          sequence_number: String(++sequence),
          media: { track: "inbound", chunk: String(chunk), timestamp: String((chunk - 1) * FRAME_MS), payload },
          stream_id: streamId
        }),
        mark: (name) => ({ event: "mark", sequence_number: String(++sequence), stream_id: streamId, mark: { name } }),
        // RTP chunks of 20 ms to 30 s
        checkMedia: (mulaw) =>
          mulaw.length < 160 || mulaw.length > 240_000 ? `a media chunk of ${mulaw.length / 8} ms` : undefined
      }
    })

    const start = Effect.sync(() => {
      if (started) return
      started = true
      line.sendJson({
        event: "connected",
        version: "1.0.0",
        ...(options.token !== undefined && tokenIn !== "header" ? { connected: { [TOKEN_HEADER]: options.token } } : {})
      })
      line.sendJson({
        event: "start",
        sequence_number: String(++sequence),
        stream_id: streamId,
        start: {
          user_id: "3e6f995f-85f7-4705-9741-53b116d28237",
          call_control_id: callControlId,
          call_session_id: crypto.randomUUID(),
          from: options.from ?? "+14155550100",
          to: options.to ?? "+14155550101",
          tags: [],
          client_state: null,
          custom_parameters: {},
          media_format: { encoding: "PCMU", sample_rate: 8000, channels: 1 }
        }
      })
      line.startFrames()
    })
    if (options.start !== false) yield* start

    const stream: FakeTelnyxMediaStream = {
      ...line.stream,
      streamId,
      callControlId,
      start,
      dtmf: (digit) =>
        Effect.sync(() =>
          line.sendJson({
            event: "dtmf",
            stream_id: streamId,
            occurred_at: new Date(line.now()).toISOString(),
            sequence_number: String(++sequence),
            dtmf: { digit }
          })
        ),
      stop: Effect.sync(() => {
        line.sendJson({
          event: "stop",
          sequence_number: String(++sequence),
          stop: { user_id: "3e6f995f-85f7-4705-9741-53b116d28237", call_control_id: callControlId },
          stream_id: streamId
        })
        line.close(1000)
      })
    }
    return stream
  })

/** Answers a call FakeTelnyx placed as Telnyx does: opens the stream its dial names, with its token. */
export const connectCall = (
  telnyx: FakeTelnyxServer,
  callControlId: string,
  options: { readonly start?: boolean; readonly tokenIn?: "header" | "connected" | "both" } = {}
) =>
  Effect.suspend(() => {
    const call = telnyx.call(callControlId)
    if (call?.streamUrl === undefined) {
      return Effect.dieMessage(`FakeTelnyxMedia: call ${callControlId} was dialled without a stream_url`)
    }
    return connect({
      url: call.streamUrl,
      token: call.streamAuthToken,
      callControlId,
      from: call.from,
      to: call.to,
      ...options
    })
  })

/**
 * Web calls' media: a browser or an SDK streams a call's audio on a WebSocket (docs/web-calls.md).
 *
 * The client opens the call's stream and sends `{"type":"start","token":…}`; the token is a media token
 * (`signMediaToken`) for that call, signed with a key of this process (not the one of the carriers' streams, so neither
 * kind of token opens the other kind of stream), good once and for `WEB_CALL_TOKEN_SECONDS` (or the platform's
 * `calls.webCallTokenSeconds`). Then binary messages carry 16-bit little-endian mono PCM at 16 kHz both ways, brought
 * to and from the platform's 8 kHz (`WebAudio`), and JSON messages carry what Twilio's carry (`mark`, `clear`, `dtmf`)
 * plus what a client shows: the transcript as it is said and the call's `end`. The stream becomes the call's
 * `MediaSession`, so the conversation is the one a phone call has. Its start answers the call and its end (the client
 * hanging up or going away) completes it: the call is billed for the time between, to the second.
 *
 * A bad token, or anything before `start` but `start`, closes the socket (1008) and nothing else
 * happens. On a started stream, a message that is not JSON (1007), audio of an odd length (1007) or
 * over one second (1009) ends the stream, and with it the call; a JSON message of an unknown type is
 * ignored (clients may be newer than us).
 */
import type { SessionId } from "@voiceagent/domain/Calls"
import { WEB_CALL_MAX_FRAME_BYTES, WEB_CALL_SAMPLE_RATE, WEB_CALL_TOKEN_SECONDS } from "@voiceagent/domain/WebCalls"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as crypto from "node:crypto"
import type { IncomingMessage } from "node:http"
import type { Duplex } from "node:stream"
import { type RawData, type WebSocket, WebSocketServer } from "ws"
import { CallEventSink } from "../Ports/Telephony.js"
import { PlatformSettings } from "../Settings.js"
import { mulawEncode, SAMPLES_PER_FRAME } from "./Audio.js"
import { LocalMedia, MediaEvent, type MediaSession, signMediaToken, verifyMediaToken } from "./Media.js"
import { closeReason, START_TIMEOUT_MS } from "./TwilioMedia.js"
import { bytesOf, makeDownsampler, makeUpsampler, samplesOf } from "./WebAudio.js"

/** Where a runner's media server takes web calls' streams: `/media/web/{sessionId}`. */
export const WEB_MEDIA_PATH = "/media/web"

/** The largest JSON message taken from a client. */
const MAX_TEXT_BYTES = 4_096

/** A web call's id at its carrier. */
export const webCallId = (sessionId: string) => `web-${sessionId}`
export const sessionOfWebCall = (providerCallId: string) => providerCallId.replace(/^web-/, "") as SessionId

/** The ws server every refusal and every stream of this process goes through (no port of its own). */
let refusals: WebSocketServer | undefined

/**
 * Completes a WebSocket handshake only to close it with `code` and `reason`, which a browser's
 * WebSocket shows (a refused handshake it shows as 1006, with no reason).
 */
export const refuseWebSocket = (
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  code: number,
  reason: string
) => {
  refusals ??= new WebSocketServer({ noServer: true, maxPayload: 1_024 })
  refusals.handleUpgrade(request, socket, head, (ws) => ws.close(code, closeReason(reason)))
}

interface OpenStream {
  /** Ends the stream from our side: the client is told why, then the socket closes. */
  readonly end: (reason: string) => void
}

/**
 * The web calls of this process: their stream tokens, the calls waiting for their client, the
 * streams open, and the WebSocket handling of each.
 */
export class WebStreams extends Effect.Service<WebStreams>()("Voice/WebStreams", {
  scoped: Effect.gen(function*() {
    const local = yield* LocalMedia
    const sink = yield* CallEventSink
    const settings = yield* PlatformSettings
    const lifetimeMs = (settings.calls.webCallTokenSeconds ?? WEB_CALL_TOKEN_SECONDS) * 1_000
    const runtime = yield* Effect.runtime<never>()
    const run = Runtime.runFork(runtime)
    const now = () => Runtime.runSync(runtime)(Clock.currentTimeMillis)
    const secret = Redacted.make(crypto.randomBytes(32).toString("base64url"))
    const used = new Map<string, number>()
    const waiting = new Set<string>()
    const open = new Map<string, OpenStream>()
    const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1_024 })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const client of wss.clients) client.terminate()
        wss.close()
      })
    )
    const log = (message: string, annotations: Record<string, unknown>) =>
      run(Effect.logWarning(message).pipe(Effect.annotateLogs(annotations)))

    const reportTo = (sessionId: string, kind: "answered" | "completed", at: number) =>
      sink.report(sessionId as SessionId, {
        eventId: `web:${sessionId}:${kind}`,
        kind,
        at,
        providerCallId: webCallId(sessionId)
      })

    /** Serves one client's stream for the call `expected` (its URL's) until it closes. */
    const serve = (socket: WebSocket, expected: string) => {
      let session: { readonly sessionId: string; readonly events: Queue.Queue<MediaEvent> } | undefined
      let ended = false
      let announced = false
      /** The agent hung up: the conversation closes the stream before the call hears of it. */
      let agentHungUp = false
      /** The caller's audio given to the conversation, in 20 ms frames: the stream's own clock. */
      let frames = 0
      let pending = new Int16Array(0)
      const down = makeDownsampler()
      const up = makeUpsampler()
      const streamAt = () => frames * 20
      // the call hears of the answer before the end, whichever fiber gets there first
      const reports = Runtime.runSync(runtime)(Effect.makeSemaphore(1))
      const report = (sessionId: string, kind: "answered" | "completed", at: number) =>
        reports.withPermits(1)(reportTo(sessionId, kind, at))

      const sendJson = (message: unknown) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message))
      }
      const announce = () => {
        if (announced || session === undefined) return
        announced = true
        sendJson({
          type: "started",
          sessionId: session.sessionId,
          sampleRate: WEB_CALL_SAMPLE_RATE,
          encoding: "pcm_s16le",
          channels: 1
        })
      }

      const refuse = (reason: string, annotations: Record<string, unknown> = {}) => {
        log(`web call stream refused: ${reason}`, { expected, ...annotations })
        ended = true
        socket.close(1008, closeReason(reason))
      }

      /** The stream is over: the conversation hears of it once; `complete`: the call is over with it. */
      const end = (reason: string, complete: boolean) => {
        if (ended) return
        ended = true
        if (session === undefined) return
        const { sessionId, events } = session
        open.delete(sessionId)
        run(Queue.offer(events, MediaEvent.Stopped({ at: streamAt(), reason })))
        if (complete) run(report(sessionId, "completed", now()))
      }

      const violate = (code: number, reason: string) => {
        if (ended) return
        log(`web call stream closed: ${reason}`, { sessionId: session?.sessionId })
        end(reason, true)
        socket.close(code, closeReason(reason))
      }

      const startTimer = run(
        Effect.sleep(START_TIMEOUT_MS).pipe(
          Effect.zipRight(Effect.sync(() => {
            if (session === undefined && !ended) refuse("no start within 10 s")
          }))
        )
      )
      const stopStartTimer = () => run(Fiber.interrupt(startTimer))

      const onStart = (message: Record<string, unknown>) => {
        const token = message["token"]
        if (typeof token !== "string") return refuse("start without a token")
        if (message["sampleRate"] !== undefined && message["sampleRate"] !== WEB_CALL_SAMPLE_RATE) {
          return refuse(`sampleRate must be ${WEB_CALL_SAMPLE_RATE}`)
        }
        const checked = verifyMediaToken(secret, token, now())
        if ("_tag" in checked) return refuse(`token ${checked.reason}`)
        if (checked.sessionId !== expected) {
          return refuse("the token is for another call", { sessionId: checked.sessionId })
        }
        if (used.has(token)) return refuse("token already used", { sessionId: expected })
        const at = now()
        for (const [seen, expiresAt] of used) if (expiresAt < at) used.delete(seen)
        used.set(token, checked.expiresAt)
        stopStartTimer()
        const sessionId = checked.sessionId
        const events = Runtime.runSync(runtime)(Queue.sliding<MediaEvent>(1_000))
        session = { sessionId, events }
        const media: MediaSession = {
          sessionId: sessionId as SessionId,
          streamId: webCallId(sessionId),
          events,
          play: (pcm) =>
            Effect.sync(() => {
              announce()
              if (socket.readyState === socket.OPEN) socket.send(bytesOf(up(pcm)))
            }),
          mark: (name) => Effect.sync(() => (announce(), sendJson({ type: "mark", name }))),
          clear: Effect.sync(() => (announce(), sendJson({ type: "clear" }))),
          // a browser has no phone line to carry tones: the agent's keys go as a message
          sendDigits: (digits) => Effect.sync(() => (announce(), sendJson({ type: "dtmf", digits }))),
          // the conversation is over: after the agent's goodbye (the call ends as it hears of it), or
          // when it could not go on, which ends the call too (a call with no conversation is no call)
          close: Effect.sync(() => {
            if (ended) return
            const reason = agentHungUp ? "agent_hangup" : "the call ended"
            sendJson({ type: "end", reason })
            end("closed by the platform", !agentHungUp)
            socket.close(1000, closeReason(reason))
          }),
          observe: (report) =>
            Effect.sync(() => {
              if (report._tag === "HangUp") agentHungUp = true
              if (report._tag !== "Line") return
              announce()
              sendJson({
                type: "transcript",
                speaker: report.speaker,
                text: report.text,
                at: new Date(report.at).toISOString(),
                interrupted: report.interrupted
              })
            })
        }
        run(
          local.attach(media).pipe(
            Effect.flatMap((taken) => {
              if (!taken) {
                session = undefined
                return Effect.sync(() => refuse("the call is not waiting for a stream here", { sessionId }))
              }
              // the client went before the call took its stream: the end was reported, the answer never is
              if (ended) return Effect.void
              waiting.delete(sessionId)
              open.set(sessionId, {
                end: (reason) => {
                  if (ended) return
                  sendJson({ type: "end", reason })
                  end(`the call ended: ${reason}`, false)
                  socket.close(1000, closeReason(reason))
                }
              })
              announce()
              return report(sessionId, "answered", now())
            })
          )
        )
      }

      const onAudio = (bytes: Buffer) => {
        if (session === undefined) return refuse("audio before start")
        if (bytes.length % 2 !== 0) {
          return violate(1007, "an audio message of an odd length: 16-bit samples are two bytes")
        }
        if (bytes.length > WEB_CALL_MAX_FRAME_BYTES) {
          return violate(1009, `an audio message over 1 s (${WEB_CALL_MAX_FRAME_BYTES} bytes)`)
        }
        if (bytes.length === 0) return
        const halved = down(samplesOf(bytes))
        const joined = new Int16Array(pending.length + halved.length)
        joined.set(pending)
        joined.set(halved, pending.length)
        let at = 0
        for (; at + SAMPLES_PER_FRAME <= joined.length; at += SAMPLES_PER_FRAME) {
          const pcm = joined.slice(at, at + SAMPLES_PER_FRAME)
          run(Queue.offer(session.events, MediaEvent.Audio({ mulaw: mulawEncode(pcm), pcm, at: streamAt() })))
          frames++
        }
        pending = joined.slice(at)
      }

      const onText = (data: Buffer) => {
        if (data.length > MAX_TEXT_BYTES) {
          return session === undefined ? refuse("a text message over 4 KB") : violate(1009, "a text message over 4 KB")
        }
        let message: unknown
        try {
          message = JSON.parse(data.toString("utf8"))
        } catch {
          return session === undefined
            ? refuse("a message that is not JSON")
            : violate(1007, "a message that is not JSON")
        }
        const fields = typeof message === "object" && message !== null ? message as Record<string, unknown> : {}
        const type = fields["type"]
        if (session === undefined) return type === "start" ? onStart(fields) : refuse("the first message must be start")
        switch (type) {
          case "start":
            return violate(1008, "a second start")
          case "mark": {
            const name = fields["name"]
            if (typeof name !== "string" || name.length > 200) return violate(1007, "a mark without a name")
            run(Queue.offer(session.events, MediaEvent.Mark({ name, at: streamAt() })))
            return
          }
          case "dtmf": {
            const digit = fields["digit"]
            if (typeof digit !== "string" || !/^[0-9*#A-D]$/.test(digit)) {
              return violate(1007, "a dtmf message without a digit")
            }
            run(Queue.offer(session.events, MediaEvent.Dtmf({ digit, at: streamAt() })))
            return
          }
          case "hangup":
            end("the caller hung up", true)
            socket.close(1000, "hung up")
            return
          default:
            // a newer client's message: nothing we need
            return
        }
      }

      // a message this handler did not foresee ends its stream, never the process (and every call in it)
      socket.on("message", (data: RawData, isBinary: boolean) => {
        if (ended) return
        try {
          const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
          if (isBinary) onAudio(bytes)
          else onText(bytes)
        } catch (error) {
          log("web call stream failed", { sessionId: session?.sessionId, error: String(error) })
          end("the web call stream failed", true)
          socket.close(1011)
        }
      })
      socket.on("close", (code: number, reason: Buffer) => {
        stopStartTimer()
        const why = reason.length > 0 ? `, ${reason.toString("utf8")}` : ""
        end(code === 1006 ? "the client's connection dropped" : `the client closed the stream (${code}${why})`, true)
      })
      socket.on("error", (error) => {
        log("web call socket error", { sessionId: session?.sessionId, error: error.message })
        end(`the web call socket failed: ${error.message}`, true)
      })
    }

    return {
      /** A one-use token for the stream of `sessionId`, a call of this process. */
      tokenFor: (sessionId: string) =>
        Effect.map(Clock.currentTimeMillis, (at) => {
          const expiresAt = at + lifetimeMs
          return { token: signMediaToken(secret, sessionId, expiresAt), expiresAt }
        }),
      /** A web call of this process is waiting for its client. */
      expect: (sessionId: string) => Effect.sync(() => void waiting.add(sessionId)),
      /** Takes a client's WebSocket for the call `sessionId` (the handshake not yet answered). */
      handleUpgrade: (request: IncomingMessage, socket: Duplex, head: Buffer, sessionId: string) =>
        wss.handleUpgrade(request, socket, head, (ws) => serve(ws, sessionId)),
      /** The call ended on our side (`reason`: its end reason): its client is told, its stream closed. */
      hangup: (sessionId: string, reason: string) =>
        Effect.sync(() => {
          waiting.delete(sessionId)
          open.get(sessionId)?.end(reason)
        }),
      /** Where a web call of this process stands: streaming, waiting for its client, or unknown here. */
      phase: (sessionId: string): "answered" | "dialing" | undefined =>
        open.has(sessionId) ? "answered" : waiting.has(sessionId) ? "dialing" : undefined
    } as const
  })
}) {}

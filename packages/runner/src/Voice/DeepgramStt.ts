/**
 * Deepgram's streaming speech-to-text (`wss://api.deepgram.com/v1/listen`, Nova models) as a
 * `SpeechToTextProvider` named `deepgram`.
 *
 * One WebSocket per call, opened with
 * `?model=…&encoding=mulaw&sample_rate=8000&channels=1&interim_results=true&endpointing=…&utterance_end_ms=…`
 * `&vad_events=true&punctuate=true&smart_format=true&language=…[&keyterm=…]`
 * and `Authorization: Token <key>` (Deepgram's scheme; `Bearer` is for its short-lived JWTs).
 *
 * - **Audio**: the carrier's μ-law bytes go out unchanged as binary messages, `framesPerSend`
 *   frames (2 = 40 ms unless set) to a message: half the messages of one frame a send (25 a second
 *   a call) for at most 20 ms of added delay; `finalize` and the scope's close send a partial
 *   batch at once, so the end of an utterance is never held back. Audio the socket cannot take
 *   (no socket during a reconnect, or more than `maxBufferedBytes` not yet written to the network)
 *   is dropped, never kept for later: late audio is worse than none in a conversation.
 * - **KeepAlive**: `{"type":"KeepAlive"}` once `keepAliveMs` (4 s) have passed since the last
 *   audio or KeepAlive went out; Deepgram closes a socket that got neither for 10 s (`NET-0001`).
 * - **Finalize**: `{"type":"Finalize"}` (after the partial batch): Deepgram answers the words it
 *   holds as a final result (`from_finalize: true`).
 * - **Close**: when the stream's scope closes, `{"type":"CloseStream"}` and a normal close.
 * - **Results**: an interim result with words → `Interim`; a final result with words →
 *   `Final{text, speechFinal: speech_final}` (the consumer appends every final, and the utterance
 *   is over at `speechFinal`, Deepgram's documented rule); a final without words only counts when
 *   it carries `speech_final` for an utterance still open (then `Final{"", speechFinal: true}`).
 *   `SpeechStarted` → `SpeechStarted`. `UtteranceEnd` (the fallback when noise keeps
 *   `speech_final` from coming) → `Final{"", speechFinal: true}` when the utterance is still open,
 *   nothing when `speech_final` already closed it: the consumer sees one end per utterance.
 *   Every `at` is Effect's Clock when the message arrived.
 * - **Failures**: on connect, 401/403 (a bad key) and other 4xx (a bad parameter) are not
 *   retryable; a refused connection, a timeout, 408, 429 and 5xx are. When the socket drops or
 *   Deepgram closes it mid-call (a `NET-*` close, a network error), the adapter reconnects: the
 *   first attempt at once, then after `reconnectBaseDelayMs` doubling (250 ms, 500 ms, 1 s, 2 s …
 *   capped at `reconnectMaxDelayMs`), on the Clock, at most `reconnectAttempts` (5) tries; on
 *   success it emits `Reconnected` (audio in the gap was dropped, and words of an utterance cut
 *   by the drop are lost), else the events queue gets a `SpeechToTextError` and the stream stops.
 *   A close for undecodable audio (`DATA-*`, 1002/1008) is not retried.
 *
 * Docs (checked): developers.deepgram.com/reference/speech-to-text/listen-streaming,
 * /docs/endpointing, /docs/understand-endpointing-interim-results, /docs/utterance-end,
 * /docs/speech-started, /docs/audio-keep-alive, /docs/finalize, /docs/close-stream,
 * /docs/stt-troubleshooting-websocket-data-and-net-errors (`dg-error` header, close codes);
 * message types as in `@deepgram/sdk` and deepgram-go-sdk `pkg/api/live/v1/interfaces/types.go`.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import WebSocket from "ws"
import {
  SpeechToTextError,
  type SpeechToTextProvider,
  SttEvent,
  type SttOptions,
  type SttStream
} from "./SpeechToText.js"

export interface DeepgramSttOptions {
  /** The listen endpoint; `wss://api.deepgram.com/v1/listen` unless set. */
  readonly url?: string | undefined
  readonly apiKey: Redacted.Redacted
  /** `nova-3` unless set; an agent's `SttOptions.model` wins. */
  readonly model?: string | undefined
  /** Silence (ms) after which Deepgram marks `speech_final`; 300 unless set. */
  readonly endpointingMs?: number | undefined
  /** Word gap (ms) after which Deepgram sends `UtteranceEnd`; 1000 unless set. */
  readonly utteranceEndMs?: number | undefined
  /** 20 ms frames per binary message; 2 unless set. */
  readonly framesPerSend?: number | undefined
  /** KeepAlive when nothing was sent for this long (ms); 4000 unless set (Deepgram: every 3–5 s). */
  readonly keepAliveMs?: number | undefined
  /** How long a connection attempt may take (ms); 5000 unless set. */
  readonly connectTimeoutMs?: number | undefined
  /** Reconnect attempts after a drop; 5 unless set (0: never reconnect). */
  readonly reconnectAttempts?: number | undefined
  /** Delay before the second attempt (the first is immediate), doubling after; 250 ms unless set. */
  readonly reconnectBaseDelayMs?: number | undefined
  readonly reconnectMaxDelayMs?: number | undefined
  /**
   * Audio is dropped while this much is still waiting to be written to the network; 64 KiB (8 s of μ-law) unless set.
   */
  readonly maxBufferedBytes?: number | undefined
}

export const DEEPGRAM_LISTEN_URL = "wss://api.deepgram.com/v1/listen"
export const DEEPGRAM_DEFAULTS = {
  model: "nova-3",
  endpointingMs: 300,
  utteranceEndMs: 1000,
  framesPerSend: 2,
  keepAliveMs: 4000,
  connectTimeoutMs: 5000,
  reconnectAttempts: 5,
  reconnectBaseDelayMs: 250,
  reconnectMaxDelayMs: 2000,
  maxBufferedBytes: 64 * 1024
} as const

// ---------------------------------------------------------------------------
// The wire: what the client sends, and the server messages the adapter reads
// ---------------------------------------------------------------------------

/** Client control messages, exactly as documented. */
export const DeepgramControl = {
  keepAlive: JSON.stringify({ type: "KeepAlive" }),
  finalize: JSON.stringify({ type: "Finalize" }),
  closeStream: JSON.stringify({ type: "CloseStream" })
} as const

const Word = Schema.Struct({
  word: Schema.String,
  start: Schema.Number,
  end: Schema.Number,
  confidence: Schema.Number,
  punctuated_word: Schema.optional(Schema.String)
})

const Results = Schema.Struct({
  type: Schema.Literal("Results"),
  channel_index: Schema.Array(Schema.Int),
  start: Schema.Number,
  duration: Schema.Number,
  is_final: Schema.optional(Schema.Boolean),
  speech_final: Schema.optional(Schema.Boolean),
  from_finalize: Schema.optional(Schema.Boolean),
  channel: Schema.Struct({
    alternatives: Schema.Array(Schema.Struct({
      transcript: Schema.String,
      confidence: Schema.Number,
      words: Schema.Array(Word)
    }))
  })
})

const SpeechStarted = Schema.Struct({
  type: Schema.Literal("SpeechStarted"),
  channel: Schema.Array(Schema.Int),
  timestamp: Schema.Number
})

const UtteranceEnd = Schema.Struct({
  type: Schema.Literal("UtteranceEnd"),
  channel: Schema.Array(Schema.Int),
  last_word_end: Schema.Number
})

const Metadata = Schema.Struct({
  type: Schema.Literal("Metadata"),
  request_id: Schema.String
})

const ErrorMessage = Schema.Struct({
  type: Schema.Literal("Error"),
  description: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  variant: Schema.optional(Schema.String)
})

/** The server messages of the listen API the adapter acts on (extra fields are ignored). */
export const DeepgramMessage = Schema.Union(Results, SpeechStarted, UtteranceEnd, Metadata, ErrorMessage)
export type DeepgramMessage = typeof DeepgramMessage.Type

const decodeMessage = Schema.decodeUnknownEither(DeepgramMessage)

/** A text frame as a server message; `undefined` for anything else (not JSON, an unknown type). */
export const parseDeepgramMessage = (text: string): DeepgramMessage | undefined => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  return Either.getOrUndefined(decodeMessage(json))
}

/**
 * Turns server messages into port events, remembering whether an utterance is open (words heard
 * and not yet closed by `speech_final` or `UtteranceEnd`). One per connection lifetime; `reset`
 * after a reconnect (the new socket knows nothing of the old utterance).
 */
export const makeInterpreter = () => {
  let open = false
  const interpret = (message: DeepgramMessage, at: number): ReadonlyArray<SttEvent> => {
    switch (message.type) {
      case "Results": {
        const text = (message.channel.alternatives[0]?.transcript ?? "").trim()
        if (message.is_final !== true) {
          if (text === "") return []
          open = true
          return [SttEvent.Interim({ text, at })]
        }
        const speechFinal = message.speech_final === true
        if (text !== "") {
          open = !speechFinal
          return [SttEvent.Final({ text, speechFinal, at })]
        }
        if (speechFinal && open) {
          open = false
          return [SttEvent.Final({ text: "", speechFinal: true, at })]
        }
        return []
      }
      case "SpeechStarted":
        return [SttEvent.SpeechStarted({ at })]
      case "UtteranceEnd":
        if (!open) return []
        open = false
        return [SttEvent.Final({ text: "", speechFinal: true, at })]
      default:
        return []
    }
  }
  return { interpret, reset: () => void (open = false) }
}

/** The listen URL with the documented query parameters, in a fixed order. */
export const listenUrl = (
  base: string,
  settings: { readonly model: string; readonly endpointingMs: number; readonly utteranceEndMs: number },
  options: SttOptions
): string => {
  const url = new URL(base)
  const params: ReadonlyArray<readonly [string, string]> = [
    ["model", options.model ?? settings.model],
    ["encoding", "mulaw"],
    ["sample_rate", "8000"],
    ["channels", "1"],
    ["interim_results", "true"],
    ["endpointing", String(settings.endpointingMs)],
    ["utterance_end_ms", String(settings.utteranceEndMs)],
    ["vad_events", "true"],
    ["punctuate", "true"],
    ["smart_format", "true"],
    ["language", options.language],
    ...(options.keyterms ?? []).filter((term) => term.trim() !== "").map((term) => ["keyterm", term] as const)
  ]
  for (const [key, value] of params) url.searchParams.append(key, value)
  return url.toString()
}

// ---------------------------------------------------------------------------
// Connection
// ---------------------------------------------------------------------------

interface CloseInfo {
  readonly code: number
  readonly reason: string
}

interface Connection {
  readonly ws: WebSocket
  /** Completed by the socket's close, whoever closed it. */
  readonly closed: Deferred.Deferred<CloseInfo>
  /** The last `Error` message or socket error, for the reconnect's reason. */
  lastError: string | undefined
}

const handshakeError = (status: number, dgError: string | undefined, body: string): SpeechToTextError => {
  let detail = dgError
  if (detail === undefined) {
    try {
      const parsed = JSON.parse(body) as { readonly err_msg?: unknown; readonly message?: unknown }
      detail = typeof parsed.err_msg === "string"
        ? parsed.err_msg
        : typeof parsed.message === "string"
        ? parsed.message
        : undefined
    } catch {
      detail = body.trim() === "" ? undefined : body.trim().slice(0, 200)
    }
  }
  const retryable = status === 408 || status === 429 || status >= 500
  const what = status === 401 || status === 403 ? "Deepgram refused the API key" : `Deepgram refused the connection`
  return new SpeechToTextError({ reason: `${what} (${status}${detail === undefined ? "" : `: ${detail}`})`, retryable })
}

const connect = (
  url: string,
  apiKey: Redacted.Redacted,
  onText: (connection: Connection, text: string) => void
): Effect.Effect<Connection, SpeechToTextError> =>
  Effect.async<Connection, SpeechToTextError>((resume) => {
    let settled = false
    const settle = (effect: Effect.Effect<Connection, SpeechToTextError>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    const ws = new WebSocket(url, {
      headers: { Authorization: `Token ${Redacted.value(apiKey)}` },
      perMessageDeflate: false
    })
    const connection: Connection = { ws, closed: Deferred.unsafeMake<CloseInfo>(FiberId.none), lastError: undefined }
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        onText(
          connection,
          Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.concat(data as Array<Buffer>).toString("utf8")
        )
      }
    })
    ws.on("error", (error) => {
      connection.lastError = error.message
      settle(
        Effect.fail(
          new SpeechToTextError({ reason: `Deepgram could not be reached: ${error.message}`, retryable: true })
        )
      )
    })
    ws.on("unexpected-response", (_request, response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      const refuse = () => {
        const header = response.headers["dg-error"]
        settle(
          Effect.fail(
            handshakeError(
              response.statusCode ?? 0,
              Array.isArray(header) ? header[0] : header,
              Buffer.concat(chunks).toString("utf8")
            )
          )
        )
        ws.terminate()
      }
      response.on("end", refuse)
      response.on("error", refuse)
    })
    ws.on("open", () => settle(Effect.succeed(connection)))
    ws.on("close", (code, reason) => {
      Deferred.unsafeDone(connection.closed, Exit.succeed({ code, reason: reason.toString("utf8") }))
      settle(
        Effect.fail(
          new SpeechToTextError({
            reason: `Deepgram closed the connection before it opened (${code})`,
            retryable: true
          })
        )
      )
    })
    return Effect.sync(() => {
      settled = true
      ws.terminate()
    })
  })

const describeClose = (info: CloseInfo, lastError: string | undefined) =>
  `the Deepgram socket closed (${info.code}${info.reason === "" ? "" : ` ${info.reason}`})` +
  (lastError === undefined ? "" : `: ${lastError}`)

/** Deepgram could not decode the audio: reconnecting would send the same audio again. */
const permanentClose = (info: CloseInfo) => info.reason.startsWith("DATA-") || info.code === 1002 || info.code === 1008

// ---------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------

const positiveInteger = (name: string, value: number, min = 1) =>
  Number.isInteger(value) && value >= min
    ? Effect.void
    : Effect.dieMessage(`DeepgramStt: ${name} must be an integer ≥ ${min}, got ${value}`)

/** The Deepgram provider. Invalid configuration (a bad URL, a negative interval) is a defect here. */
export const make = (options: DeepgramSttOptions): Effect.Effect<SpeechToTextProvider> =>
  Effect.gen(function*() {
    const base = options.url ?? DEEPGRAM_LISTEN_URL
    if (!URL.canParse(base) || !["ws:", "wss:"].includes(new URL(base).protocol)) {
      return yield* Effect.dieMessage(`DeepgramStt: url must be a ws(s) URL, got ${base}`)
    }
    const settings = {
      model: options.model ?? DEEPGRAM_DEFAULTS.model,
      endpointingMs: options.endpointingMs ?? DEEPGRAM_DEFAULTS.endpointingMs,
      utteranceEndMs: options.utteranceEndMs ?? DEEPGRAM_DEFAULTS.utteranceEndMs,
      framesPerSend: options.framesPerSend ?? DEEPGRAM_DEFAULTS.framesPerSend,
      keepAliveMs: options.keepAliveMs ?? DEEPGRAM_DEFAULTS.keepAliveMs,
      connectTimeoutMs: options.connectTimeoutMs ?? DEEPGRAM_DEFAULTS.connectTimeoutMs,
      reconnectAttempts: options.reconnectAttempts ?? DEEPGRAM_DEFAULTS.reconnectAttempts,
      reconnectBaseDelayMs: options.reconnectBaseDelayMs ?? DEEPGRAM_DEFAULTS.reconnectBaseDelayMs,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? DEEPGRAM_DEFAULTS.reconnectMaxDelayMs,
      maxBufferedBytes: options.maxBufferedBytes ?? DEEPGRAM_DEFAULTS.maxBufferedBytes
    }
    yield* positiveInteger("endpointingMs", settings.endpointingMs, 0)
    yield* positiveInteger("utteranceEndMs", settings.utteranceEndMs)
    yield* positiveInteger("framesPerSend", settings.framesPerSend)
    yield* positiveInteger("keepAliveMs", settings.keepAliveMs)
    yield* positiveInteger("connectTimeoutMs", settings.connectTimeoutMs)
    yield* positiveInteger("reconnectAttempts", settings.reconnectAttempts, 0)
    yield* positiveInteger("reconnectBaseDelayMs", settings.reconnectBaseDelayMs, 0)
    yield* positiveInteger("reconnectMaxDelayMs", settings.reconnectMaxDelayMs, 0)
    yield* positiveInteger("maxBufferedBytes", settings.maxBufferedBytes)

    /** Before reconnect attempt `n` (1-based): none, then base, 2×base, … capped. */
    const delayBefore = (attempt: number) =>
      attempt <= 1 ? 0 : Math.min(settings.reconnectMaxDelayMs, settings.reconnectBaseDelayMs * 2 ** (attempt - 2))

    const open = (sttOptions: SttOptions) =>
      Effect.gen(function*() {
        const clock = yield* Effect.clock
        const now = () => clock.unsafeCurrentTimeMillis()
        const url = listenUrl(base, settings, sttOptions)
        const events = yield* Queue.unbounded<SttEvent | SpeechToTextError>()
        const interpreter = makeInterpreter()
        const state = {
          socket: undefined as WebSocket | undefined,
          pending: [] as Array<Uint8Array>,
          lastSentAt: now(),
          closing: false,
          failed: false
        }

        const onText = (connection: Connection, text: string) => {
          const message = parseDeepgramMessage(text)
          if (message === undefined) return
          if (message.type === "Error") {
            connection.lastError = [message.variant, message.description ?? message.message].filter((s) =>
              s !== undefined && s !== ""
            ).join(": ")
            return
          }
          // a late message from a socket that has been replaced does not belong to this utterance
          if (connection.ws !== state.socket) return
          for (const event of interpreter.interpret(message, now())) Queue.unsafeOffer(events, event)
        }

        const connectOnce = connect(url, options.apiKey, onText).pipe(
          Effect.timeoutFail({
            duration: settings.connectTimeoutMs,
            onTimeout: () =>
              new SpeechToTextError({
                reason: `Deepgram did not open the connection within ${settings.connectTimeoutMs} ms`,
                retryable: true
              })
          })
        )

        const sendText = (ws: WebSocket, text: string) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(text, () => {})
        }

        const flush = (ws: WebSocket) => {
          if (state.pending.length === 0) return
          const chunk = state.pending.length === 1 ? state.pending[0]! : Buffer.concat(state.pending)
          state.pending = []
          if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > settings.maxBufferedBytes) return
          ws.send(chunk, { binary: true }, () => {})
          state.lastSentAt = now()
        }

        const first = yield* connectOnce
        state.socket = first.ws

        const supervise = Effect.gen(function*() {
          let connection = first
          while (true) {
            const info = yield* Deferred.await(connection.closed)
            if (state.closing) return
            state.socket = undefined
            state.pending = []
            interpreter.reset()
            const reason = describeClose(info, connection.lastError)
            if (permanentClose(info) || settings.reconnectAttempts === 0) {
              state.failed = true
              yield* Queue.offer(events, new SpeechToTextError({ reason, retryable: !permanentClose(info) }))
              return
            }
            yield* Effect.logWarning(`DeepgramStt: ${reason}; reconnecting`)
            let next: Connection | undefined
            let failure: SpeechToTextError | undefined
            for (let attempt = 1; attempt <= settings.reconnectAttempts && next === undefined; attempt++) {
              yield* Effect.sleep(delayBefore(attempt))
              const result = yield* Effect.either(connectOnce)
              if (Either.isRight(result)) next = result.right
              else {
                failure = result.left
                if (!failure.retryable) break
              }
            }
            if (next === undefined) {
              state.failed = true
              yield* Queue.offer(
                events,
                new SpeechToTextError({
                  reason: `${reason}; reconnecting failed: ${failure?.reason ?? "no attempt"}`,
                  retryable: failure?.retryable ?? true
                })
              )
              return
            }
            connection = next
            state.socket = next.ws
            state.lastSentAt = now()
            yield* Queue.offer(events, SttEvent.Reconnected({ at: now(), reason }))
          }
        })

        const keepAlive = Effect.gen(function*() {
          while (true) {
            const due = state.lastSentAt + settings.keepAliveMs
            const at = yield* Clock.currentTimeMillis
            if (at < due) {
              yield* Effect.sleep(due - at)
              continue
            }
            if (state.socket !== undefined) sendText(state.socket, DeepgramControl.keepAlive)
            state.lastSentAt = at
          }
        })

        yield* Effect.forkScoped(supervise)
        yield* Effect.forkScoped(keepAlive)
        yield* Effect.addFinalizer(() =>
          Effect.gen(function*() {
            state.closing = true
            const ws = state.socket
            state.socket = undefined
            if (ws !== undefined) {
              if (ws.readyState === WebSocket.OPEN) {
                flush(ws)
                ws.send(DeepgramControl.closeStream, () => {})
                ws.close(1000)
              } else {
                ws.terminate()
              }
            }
            yield* Queue.shutdown(events)
          })
        )

        const stream: SttStream = {
          push: (frame) => {
            const ws = state.socket
            if (state.closing || state.failed || ws === undefined || ws.readyState !== WebSocket.OPEN) return
            state.pending.push(frame)
            if (state.pending.length >= settings.framesPerSend) flush(ws)
          },
          finalize: Effect.sync(() => {
            const ws = state.socket
            if (state.closing || ws === undefined) return
            flush(ws)
            sendText(ws, DeepgramControl.finalize)
          }),
          events
        }
        return stream
      }).pipe(Effect.withSpan("DeepgramStt.open", { attributes: { language: sttOptions.language } }))

    const provider: SpeechToTextProvider = { name: "deepgram", open }
    return provider
  })

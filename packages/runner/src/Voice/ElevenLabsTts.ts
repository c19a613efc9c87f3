/**
 * Text to speech with ElevenLabs over its multi-context WebSocket: provider "elevenlabs".
 *
 * One socket per session (`open`, that is per call):
 * `{url}/v1/text-to-speech/{voice_id}/multi-stream-input?model_id={model}&output_format=ulaw_8000`
 * `&sync_alignment=true&inactivity_timeout=…[&language_code=…]`
 * with the `xi-api-key` header. `ulaw_8000` is the telephone's own format: the audio is only
 * μ-law-decoded (`Audio.mulawDecode`), never resampled. The socket opens with the session (so the
 * first text does not wait for a handshake) and is opened again before a text if it dropped in
 * between (the server also closes an idle one after `inactivity_timeout`, 180 s here, its maximum).
 * A drop not yet seen when a text is sent shows as the socket closing before the server answered
 * anything of it: such a text, of which nothing was spoken, is sent once more on a new socket.
 *
 * One context per text (`synthesize`), named `{session}-{n}`:
 * 1. `{"text": "<text> ", "context_id", "flush": true}`: the whole text, ending with the space the
 *    API asks for, generated at once (plus `voice_settings` on a socket's first context only: the
 *    API refuses later changes with 1008);
 * 2. `{"context_id", "close_context": true}` right after it. Closing does not discard text already
 *    sent: the server speaks it, then sends `isFinal` for the context as its last message ("sent
 *    when a context is closed", the API reference; pipecat and LiveKit close right after their last
 *    flush for the same reason). Without the close, `isFinal` would come only when the context timed
 *    out, and an open context would hold one of the five a socket may have for 20 s.
 * Audio messages (`{audio, alignment, normalizedAlignment, contextId}`) become `Audio` parts as they
 * come; `isFinal` ends the stream, after a `Words` part when the alignment gave every word of the
 * text an end. Interrupting the stream (barge-in) stops it at once: the context was already closed,
 * so nothing more is sent (a message for a closing context is a protocol error), and whatever still
 * arrives for it is dropped; it keeps its slot until its `isFinal`. A sixth text waits for a slot.
 *
 * Word timings from the character alignment: each message's `charStartTimesMs`/`charDurationsMs`
 * count from the start of that message's audio (the API reference: "relative to the returned chunk
 * from the model, and not the full audio response"), so each is offset by the audio received before
 * it; times that already continue from earlier messages (the first one at or past three quarters of
 * the audio so far) are taken as they are. A word ends where its last character ends. `alignment`
 * (the text as sent) is used when it has as many words as the text, else `normalizedAlignment`
 * (numbers spelt out…) when that does; otherwise no `Words` part, and the engine estimates by
 * characters. Both spellings the docs use are read: `charDurationsMs`/`charsDurationsMs`,
 * `isFinal`/`is_final`, `contextId`/`context_id`.
 *
 * Errors: a refused handshake answers a status: 401/403 (the key) and 400/404/422 (a voice or model
 * that does not exist) are not retryable, others are. A socket closed with a reason about the key,
 * permissions, quota or credits, or an error message saying so, is not retryable; any other close,
 * drop, error message or silence longer than `timeoutMillis` (Effect's `Clock`: for the handshake
 * and for each next message of a text) is. A silent socket is dropped so the next text reconnects.
 * Once a handshake is refused or a socket closed for good (the key, quota…), the session makes no
 * more handshakes: every later text fails with that error.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Take from "effect/Take"
import { randomUUID } from "node:crypto"
import WebSocket from "ws"
import { durationMs, mulawDecode } from "./Audio.js"
import {
  SpeechPart,
  TextToSpeechError,
  type TextToSpeechProvider,
  type TtsOptions,
  type TtsSession
} from "./TextToSpeech.js"

export interface ElevenLabsVoiceSettings {
  readonly stability?: number
  readonly similarity_boost?: number
  readonly style?: number
  readonly use_speaker_boost?: boolean
  readonly speed?: number
}

export interface ElevenLabsOptions {
  /** `wss://api.elevenlabs.io` unless set. */
  readonly url?: string | undefined
  readonly apiKey: Redacted.Redacted<string>
  /** `eleven_flash_v2_5` unless set; `TtsOptions.model` overrides it per session. */
  readonly model?: string | undefined
  /** Sent on each socket's first context. */
  readonly voiceSettings?: ElevenLabsVoiceSettings | undefined
  /** Seconds the server keeps an idle socket; 180 (its maximum) unless set. */
  readonly inactivityTimeoutSeconds?: number | undefined
  /** How long the handshake, and then each wait for a text's next message, may take; 10 s unless set. */
  readonly timeoutMillis?: number | undefined
  /** Contexts open at once on a socket; the API's 5 unless set. */
  readonly maxContexts?: number | undefined
}

export const ELEVENLABS_DEFAULT_URL = "wss://api.elevenlabs.io"
export const ELEVENLABS_DEFAULT_MODEL = "eleven_flash_v2_5"
export const ELEVENLABS_DEFAULT_TIMEOUT_MILLIS = 10_000
export const ELEVENLABS_MAX_CONTEXTS = 5

/** The socket's address for a voice, model and language. */
export const multiStreamUrl = (
  base: string,
  fields: {
    readonly voice: string
    readonly model: string
    readonly inactivityTimeoutSeconds: number
    readonly language?: string | undefined
  }
): string => {
  const url = new URL(
    `${base.replace(/\/+$/, "")}/v1/text-to-speech/${encodeURIComponent(fields.voice)}/multi-stream-input`
  )
  url.searchParams.set("model_id", fields.model)
  url.searchParams.set("output_format", "ulaw_8000")
  url.searchParams.set("sync_alignment", "true")
  url.searchParams.set("inactivity_timeout", String(fields.inactivityTimeoutSeconds))
  if (fields.language !== undefined) url.searchParams.set("language_code", fields.language)
  return url.toString()
}

/** The two messages that speak one text in its own context (the docs' FlushContext and CloseContext). */
export const contextMessages = (
  contextId: string,
  text: string,
  voiceSettings?: ElevenLabsVoiceSettings
): readonly [Readonly<Record<string, unknown>>, Readonly<Record<string, unknown>>] => [
  {
    text: `${text.trim()} `,
    context_id: contextId,
    flush: true,
    ...(voiceSettings === undefined ? {} : { voice_settings: voiceSettings })
  },
  { context_id: contextId, close_context: true }
]

// ---------------------------------------------------------------------------
// Server messages
// ---------------------------------------------------------------------------

export interface CharAlignment {
  readonly chars: ReadonlyArray<string>
  readonly charStartTimesMs: ReadonlyArray<number>
  readonly charDurationsMs: ReadonlyArray<number>
}

export interface ServerMessage {
  readonly contextId: string | undefined
  /** The μ-law bytes of an audio message. */
  readonly audio: Uint8Array | undefined
  readonly alignment: CharAlignment | undefined
  readonly normalizedAlignment: CharAlignment | undefined
  readonly isFinal: boolean
  /** An error the server reported (`{error, message, code}`), as text. */
  readonly error: string | undefined
}

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

const numbers = (value: unknown): ReadonlyArray<number> | undefined =>
  Array.isArray(value) && value.every((n) => typeof n === "number" && Number.isFinite(n))
    ? value as Array<number>
    : undefined

const alignmentOf = (value: unknown): CharAlignment | undefined => {
  const fields = record(value)
  const chars = Array.isArray(fields.chars) && fields.chars.every((c) => typeof c === "string")
    ? fields.chars as Array<string>
    : undefined
  const starts = numbers(fields.charStartTimesMs ?? fields.char_start_times_ms)
  const durations = numbers(fields.charDurationsMs ?? fields.charsDurationsMs ?? fields.chars_durations_ms)
  if (chars === undefined || starts === undefined || durations === undefined) return undefined
  if (chars.length !== starts.length || chars.length !== durations.length) return undefined
  return { chars, charStartTimesMs: starts, charDurationsMs: durations }
}

/** A server message, in either of the spellings the docs use. */
export const parseServerMessage = (value: unknown): ServerMessage => {
  const fields = record(value)
  const contextId = typeof fields.contextId === "string"
    ? fields.contextId
    : typeof fields.context_id === "string"
    ? fields.context_id
    : undefined
  const audio = typeof fields.audio === "string" && fields.audio !== ""
    ? new Uint8Array(Buffer.from(fields.audio, "base64"))
    : undefined
  const error = fields.error === undefined || fields.error === null
    ? undefined
    : [fields.error, fields.message, fields.code].filter((part) => part !== undefined && part !== null).map(String)
      .join(": ")
  return {
    contextId,
    audio,
    alignment: alignmentOf(fields.alignment),
    normalizedAlignment: alignmentOf(fields.normalizedAlignment ?? fields.normalized_alignment),
    isFinal: fields.isFinal === true || fields.is_final === true,
    error
  }
}

// ---------------------------------------------------------------------------
// Word timings
// ---------------------------------------------------------------------------

/** Characters with their end times, in ms from the start of the text's audio. */
export interface CharTimeline {
  /** Adds one message's alignment; `audioMsBefore` is the text's audio received before that message. */
  readonly add: (alignment: CharAlignment, audioMsBefore: number) => void
  /** Each word's end (a word is a run of non-whitespace characters). */
  readonly wordEnds: () => ReadonlyArray<number>
}

export const charTimeline = (): CharTimeline => {
  const chars: Array<string> = []
  const ends: Array<number> = []
  return {
    add: (alignment, audioMsBefore) => {
      if (alignment.chars.length === 0) return
      const first = alignment.charStartTimesMs[0]!
      const continues = audioMsBefore > 0 && first >= 0.75 * audioMsBefore
      const offset = continues ? 0 : audioMsBefore
      alignment.chars.forEach((char, i) => {
        chars.push(char)
        ends.push(offset + alignment.charStartTimesMs[i]! + alignment.charDurationsMs[i]!)
      })
    },
    wordEnds: () => {
      const words: Array<number> = []
      let inWord = false
      chars.forEach((char, i) => {
        if (/^\s*$/u.test(char)) {
          inWord = false
          return
        }
        if (!inWord) words.push(ends[i]!)
        else words[words.length - 1] = Math.max(words[words.length - 1]!, ends[i]!)
        inWord = true
      })
      return words
    }
  }
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

const PERMANENT = /api.?key|unauthori[sz]ed|authenticat|forbidden|permission|quota|credit|payment|subscription/i

const permanentStatus = (status: number) =>
  status === 400 || status === 401 || status === 403 || status === 404 || status === 422

const bodyMessage = (text: string) => {
  try {
    const body = record(JSON.parse(text))
    const detail = body.detail
    if (typeof detail === "string") return detail
    const fields = record(detail)
    return [fields.status, fields.message].filter((part) => typeof part === "string").join(": ") || text
  } catch {
    return text
  }
}

// ---------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------

/** A text's socket went before the server answered any of it (internal: the text is sent again). */
class Unanswered extends Data.TaggedError("Unanswered")<{ readonly error: TextToSpeechError }> {}

interface Connection {
  readonly socket: WebSocket
  /** Whether this socket's first context has been sent (voice settings go on it only). */
  started: boolean
}

interface ContextState {
  readonly id: string
  readonly connection: Connection
  readonly queue: Queue.Queue<Take.Take<SpeechPart, TextToSpeechError | Unanswered>>
  /** Whether the stream still wants its parts (false once interrupted). */
  listening: boolean
  audioSamples: number
  readonly original: CharTimeline
  readonly normalized: CharTimeline
  readonly words: number
  /** Whether any message came for it. */
  heard: boolean
}

/**
 * The "elevenlabs" provider. An invalid URL, timeout or context count is a defect here: configuration
 * is the caller's to check.
 */
export const make = (options: ElevenLabsOptions): Effect.Effect<TextToSpeechProvider> =>
  Effect.gen(function*() {
    const base = options.url ?? ELEVENLABS_DEFAULT_URL
    const parsed = URL.canParse(base) ? new URL(base) : undefined
    if (parsed === undefined || (parsed.protocol !== "ws:" && parsed.protocol !== "wss:")) {
      return yield* Effect.dieMessage(`ElevenLabsTts: url must be a ws(s) URL, got ${base}`)
    }
    const timeoutMillis = options.timeoutMillis ?? ELEVENLABS_DEFAULT_TIMEOUT_MILLIS
    if (!(timeoutMillis > 0) || !Number.isFinite(timeoutMillis)) {
      return yield* Effect.dieMessage(`ElevenLabsTts: timeoutMillis must be positive, got ${timeoutMillis}`)
    }
    const maxContexts = options.maxContexts ?? ELEVENLABS_MAX_CONTEXTS
    if (!Number.isInteger(maxContexts) || maxContexts < 1) {
      return yield* Effect.dieMessage(`ElevenLabsTts: maxContexts must be a positive integer, got ${maxContexts}`)
    }
    const label = `ElevenLabs at ${parsed.host}`

    const open = (tts: TtsOptions): Effect.Effect<TtsSession, TextToSpeechError, Scope.Scope> =>
      Effect.gen(function*() {
        if (tts.voice === "") {
          return yield* new TextToSpeechError({ reason: "ElevenLabs needs a voice id", retryable: false })
        }
        const url = multiStreamUrl(base, {
          voice: tts.voice,
          model: tts.model ?? options.model ?? ELEVENLABS_DEFAULT_MODEL,
          inactivityTimeoutSeconds: options.inactivityTimeoutSeconds ?? 180,
          language: tts.language?.split(/[-_]/)[0]?.toLowerCase()
        })
        const session = randomUUID().slice(0, 8)
        const contexts = new Map<string, ContextState>()
        const slotWaiters = new Set<() => void>()
        let current: Connection | undefined
        // once the server refuses the key (or the quota), for good: no more handshakes in this session
        let refused: TextToSpeechError | undefined
        let texts = 0
        let closed = false

        const freeSlot = (context: ContextState) => {
          if (contexts.get(context.id) !== context) return
          contexts.delete(context.id)
          for (const wake of slotWaiters) wake()
        }

        const closedError = (code: number, reason: string) =>
          new TextToSpeechError({
            reason: `${label} closed the connection (${code}${reason === "" ? "" : ` ${reason}`})`,
            retryable: !PERMANENT.test(reason)
          })

        const failContext = (context: ContextState, error: TextToSpeechError) => {
          freeSlot(context)
          if (!context.listening) return
          // a text the server never answered: nothing of it was spoken, it can be sent again
          Queue.unsafeOffer(
            context.queue,
            Take.fail(!context.heard && error.retryable ? new Unanswered({ error }) : error)
          )
        }

        const onMessage = (connection: Connection, data: WebSocket.RawData) => {
          let value: unknown
          try {
            value = JSON.parse(String(data))
          } catch {
            return
          }
          const message = parseServerMessage(value)
          const context = message.contextId === undefined ? undefined : contexts.get(message.contextId)
          if (message.error !== undefined) {
            const error = new TextToSpeechError({
              reason: `${label} reported ${message.error}`,
              retryable: !PERMANENT.test(message.error)
            })
            const affected = context !== undefined
              ? [context]
              : [...contexts.values()].filter((c) => c.connection === connection)
            affected.forEach((c) => failContext(c, error))
            return
          }
          if (context === undefined || context.connection !== connection) return
          context.heard = true
          const audioMsBefore = durationMs(context.audioSamples)
          if (message.alignment !== undefined) context.original.add(message.alignment, audioMsBefore)
          if (message.normalizedAlignment !== undefined) {
            context.normalized.add(message.normalizedAlignment, audioMsBefore)
          }
          if (message.audio !== undefined) {
            const pcm = mulawDecode(message.audio)
            context.audioSamples += pcm.length
            if (context.listening) {
              Queue.unsafeOffer(context.queue, Take.of(SpeechPart.Audio({ pcm })))
            }
          }
          if (message.isFinal) {
            freeSlot(context)
            if (!context.listening) return
            const total = durationMs(context.audioSamples)
            const ends = [context.original.wordEnds(), context.normalized.wordEnds()]
              .find((candidate) => candidate.length === context.words)
            if (ends !== undefined) {
              Queue.unsafeOffer(
                context.queue,
                Take.of(SpeechPart.Words({ wordEndsMs: ends.map((end) => Math.min(end, total)) }))
              )
            }
            Queue.unsafeOffer(context.queue, Take.end)
          }
        }

        const connect = Effect.async<Connection, TextToSpeechError>((resume) => {
          const socket = new WebSocket(url, { headers: { "xi-api-key": Redacted.value(options.apiKey) } })
          let settled = false
          const settle = (effect: Effect.Effect<Connection, TextToSpeechError>) => {
            if (settled) return
            settled = true
            resume(effect)
          }
          socket.once("unexpected-response", (_request, response) => {
            const chunks: Array<Buffer> = []
            response.on("data", (chunk: Buffer) => chunks.push(chunk))
            response.on("end", () => {
              const status = response.statusCode ?? 0
              const detail = bodyMessage(Buffer.concat(chunks).toString("utf8"))
              settle(Effect.fail(
                new TextToSpeechError({
                  reason: `${label} refused the connection: ${status}${detail === "" ? "" : ` ${detail}`}`,
                  retryable: !permanentStatus(status)
                })
              ))
              socket.terminate()
            })
          })
          socket.on("error", (error) => {
            settle(
              Effect.fail(
                new TextToSpeechError({ reason: `${label} could not be reached: ${error.message}`, retryable: true })
              )
            )
            socket.terminate()
          })
          socket.once("close", (code, reason) => settle(Effect.fail(closedError(code, reason.toString()))))
          socket.once("open", () => {
            const connection: Connection = { socket, started: false }
            socket.on("message", (data) => onMessage(connection, data))
            socket.on("close", (code, reason) => {
              if (current === connection) current = undefined
              const error = closedError(code, reason.toString())
              if (!error.retryable) refused = error
              for (const context of [...contexts.values()]) {
                if (context.connection === connection) failContext(context, error)
              }
            })
            settle(Effect.succeed(connection))
          })
          return Effect.sync(() => {
            settled = true
            socket.terminate()
          })
        }).pipe(
          Effect.timeoutFail({
            duration: timeoutMillis,
            onTimeout: () =>
              new TextToSpeechError({
                reason: `${label} did not connect within ${timeoutMillis / 1000} s`,
                retryable: true
              })
          })
        )

        /** Ends the socket (no close handshake) and waits for its close event, so its close handler has run. */
        const closedSocket = (socket: WebSocket) =>
          Effect.async<void>((resume) => {
            if (socket.readyState === WebSocket.CLOSED) return resume(Effect.void)
            const done = () => resume(Effect.void)
            socket.once("close", done)
            socket.terminate()
            return Effect.sync(() => void socket.off("close", done))
          })

        // One handshake at a time: texts that find the socket gone wait for the same new one.
        const lock = yield* Effect.makeSemaphore(1)
        const connection = lock.withPermits(1)(Effect.suspend(() => {
          if (closed) return Effect.fail(new TextToSpeechError({ reason: "the session is closed", retryable: false }))
          if (current !== undefined && current.socket.readyState === WebSocket.OPEN) return Effect.succeed(current)
          const previous = current
          current = undefined
          // a socket on its way out: once it has closed, its close says whether to connect again
          return (previous === undefined ? Effect.void : closedSocket(previous.socket)).pipe(
            Effect.zipRight(Effect.suspend(() => refused === undefined ? connect : Effect.fail(refused))),
            Effect.tap((connection) => Effect.sync(() => (current = connection))),
            Effect.tapError((error) => Effect.sync(() => (refused = error.retryable ? undefined : error)))
          )
        }))

        /** Registers the context once its socket has fewer than `maxContexts` open (check and claim in one step). */
        const claim = (context: ContextState) =>
          Effect.async<void>((resume) => {
            const tryClaim = () => {
              if (
                [...contexts.values()].filter((c) => c.connection === context.connection).length >= maxContexts
              ) return false
              contexts.set(context.id, context)
              return true
            }
            if (tryClaim()) return resume(Effect.void)
            const wake = () => {
              if (!tryClaim()) return
              slotWaiters.delete(wake)
              resume(Effect.void)
            }
            slotWaiters.add(wake)
            return Effect.sync(() => slotWaiters.delete(wake))
          })

        yield* Effect.addFinalizer(() =>
          Effect.sync(() => {
            closed = true
            const socket = current?.socket
            current = undefined
            if (socket !== undefined && socket.readyState === WebSocket.OPEN) {
              socket.send(JSON.stringify({ close_socket: true }))
              socket.close(1000)
            } else {
              socket?.terminate()
            }
          })
        )
        current = yield* connect

        const attempt = (text: string, words: number): Stream.Stream<SpeechPart, TextToSpeechError | Unanswered> =>
          Stream.unwrapScoped(Effect.gen(function*() {
            const queue = yield* Queue.unbounded<Take.Take<SpeechPart, TextToSpeechError | Unanswered>>()
            const conn = yield* connection
            const context: ContextState = {
              id: `${session}-${++texts}`,
              connection: conn,
              queue,
              listening: true,
              audioSamples: 0,
              original: charTimeline(),
              normalized: charTimeline(),
              words,
              heard: false
            }
            yield* Effect.addFinalizer(() => Effect.sync(() => (context.listening = false)))
            yield* claim(context)
            if (conn.socket.readyState !== WebSocket.OPEN) {
              // the socket went while the text waited for a slot
              freeSlot(context)
              return yield* new Unanswered({
                error: new TextToSpeechError({ reason: `${label} closed the connection`, retryable: true })
              })
            }
            const messages = contextMessages(context.id, text, conn.started ? undefined : options.voiceSettings)
            conn.started = true
            yield* Effect.try({
              try: () => messages.forEach((message) => conn.socket.send(JSON.stringify(message))),
              catch: (error) =>
                new TextToSpeechError({
                  reason: `${label} could not be sent the text: ${String(error)}`,
                  retryable: true
                })
            }).pipe(Effect.tapError(() => Effect.sync(() => freeSlot(context))))
            return Stream.fromQueue(queue).pipe(
              Stream.flattenTake,
              Stream.timeoutFail(() => {
                // a socket that goes quiet mid-text is not trusted again: the next text reconnects
                conn.socket.terminate()
                return new TextToSpeechError({
                  reason: `${label} sent nothing for ${timeoutMillis / 1000} s`,
                  retryable: true
                })
              }, timeoutMillis)
            )
          }))

        const synthesize = (text: string): Stream.Stream<SpeechPart, TextToSpeechError> => {
          const words = text.match(/\S+/g)?.length ?? 0
          if (words === 0) return Stream.empty
          // a socket that dropped before the server answered anything of the text (it may have gone
          // between texts without the close being seen yet): once more, on a new socket
          return attempt(text, words).pipe(
            Stream.catchTag("Unanswered", () => attempt(text, words)),
            Stream.catchTag("Unanswered", ({ error }) => Stream.fail(error)),
            Stream.withSpan("ElevenLabsTts.synthesize", { attributes: { voice: tts.voice, chars: text.length } })
          )
        }

        return { synthesize }
      })

    const provider: TextToSpeechProvider = { name: "elevenlabs", open }
    return provider
  })

/**
 * Speech-to-text through an OpenAI-compatible transcription API (OpenAI's own, and servers that
 * copy its route for self-hosted Whisper: faster-whisper-server/speaches, whisper.cpp's server,
 * LocalAI, vLLM …), as a `SpeechToTextProvider` named `openai`.
 *
 * Per utterance, not streaming: `push` keeps the caller's frames; `finalize` (the engine's voice
 * detector said the caller stopped) sends what was kept as one request and the answer comes back as
 * one `Final{text, speechFinal: true}`; there are no interim results, `SpeechStarted` or
 * `Reconnected` events. Kept audio without speech (fewer than `minSpeechMs` of frames at least
 * `speechThreshold` RMS) is not sent: Whisper invents words for silence ("Thank you."). At most
 * `maxUtteranceMs` (60 s) is kept: when that is reached, what was kept is sent as a
 * `Final{speechFinal: false}` and the utterance goes on (the consumer appends finals, as with
 * Deepgram); a `finalize` with nothing left then still closes the utterance with `Final{"", true}`.
 * Requests run one at a time in the stream's scope, in order, so `push` and `finalize` never wait
 * for the network.
 *
 * The request: `POST {baseUrl}/audio/transcriptions`, `multipart/form-data` with `file` (a WAV,
 * 16-bit PCM mono at 8 kHz, the μ-law decoded), `model` (`whisper-1` unless set; an agent's
 * `SttOptions.model` wins), `language` (ISO-639-1: `en-US` is sent as `en`; left out for `multi`),
 * `prompt` (the keyterms, which Whisper's prompt steers spelling with) and `response_format=json`;
 * `Authorization: Bearer <key>` only when there is a key (local servers take none). The answer is
 * `{"text": …}`.
 *
 * Failures go to the events queue as `SpeechToTextError` (the utterance is lost): a timeout, a
 * connection error, 408, 409, 429 and 5xx are retryable, and are tried again `retries` times (1)
 * after `retryDelayMs` on the Clock first; a 429 for an exhausted quota, 400, 401, 403, 404 and an
 * answer without `text` are not, and a 401/403 stops the stream (later audio is dropped).
 *
 * Docs (checked): platform.openai.com/docs/api-reference/audio/createTranscription,
 * platform.openai.com/docs/guides/speech-to-text (formats, 25 MB limit, prompting),
 * platform.openai.com/docs/guides/error-codes.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { exchange, record, trimSlash } from "../Http/ProviderHttp.js"
import { FRAME_MS, mulawDecode, SAMPLE_RATE, writeWav } from "./Audio.js"
import {
  SpeechToTextError,
  type SpeechToTextProvider,
  SttEvent,
  type SttOptions,
  type SttStream
} from "./SpeechToText.js"
import { rms } from "./Vad.js"

export interface OpenAiTranscriptionOptions {
  /** The API's base URL, e.g. `https://api.openai.com/v1` or `http://localhost:8000/v1`. */
  readonly baseUrl: string
  /** Sent as a bearer token; no `Authorization` header when unset or empty. */
  readonly apiKey?: Redacted.Redacted | undefined
  /** `whisper-1` unless set. */
  readonly model?: string | undefined
  /** How long one request may take, answer included (ms); 30 s unless set. */
  readonly timeoutMs?: number | undefined
  /** Retries of a retryable failure; 1 unless set. */
  readonly retries?: number | undefined
  readonly retryDelayMs?: number | undefined
  /** Audio kept for one request at most (ms); 60 s unless set. */
  readonly maxUtteranceMs?: number | undefined
  /** A frame is speech at this RMS (16-bit units) or more; 500 unless set (the energy detector's). */
  readonly speechThreshold?: number | undefined
  /** Speech an utterance needs to be sent (ms); 100 unless set. */
  readonly minSpeechMs?: number | undefined
}

export const OPENAI_TRANSCRIPTION_DEFAULTS = {
  model: "whisper-1",
  timeoutMs: 30_000,
  retries: 1,
  retryDelayMs: 250,
  maxUtteranceMs: 60_000,
  speechThreshold: 500,
  minSpeechMs: 100
} as const

/** `en-US` → `en`; `multi` (or anything not a language) → undefined: the server detects it. */
export const isoLanguage = (language: string): string | undefined => {
  const primary = language.trim().toLowerCase().split(/[-_]/)[0] ?? ""
  return /^[a-z]{2}$/.test(primary) ? primary : undefined
}

/** The multipart fields besides `file`, in order. */
export const transcriptionFields = (model: string, options: SttOptions): ReadonlyArray<readonly [string, string]> => {
  const language = isoLanguage(options.language)
  const terms = (options.keyterms ?? []).map((t) => t.trim()).filter((t) => t !== "")
  return [
    ["model", options.model ?? model],
    ...(language === undefined ? [] : [["language", language] as const]),
    ...(terms.length === 0 ? [] : [["prompt", terms.join(", ")] as const]),
    ["response_format", "json"]
  ]
}

export const TranscriptionResponse = Schema.Struct({ text: Schema.String })
const decodeResponse = Schema.decodeUnknownEither(TranscriptionResponse)

const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

/** A failed request: the error for the events queue, and whether the stream must stop (bad credentials). */
interface Failure {
  readonly error: SpeechToTextError
  readonly fatal: boolean
}

const failureOf = (label: string, status: number, body: unknown): Failure => {
  const fields = record(body)
  const error = record(fields.error)
  const message = typeof error.message === "string"
    ? error.message
    : typeof fields.error === "string"
    ? fields.error
    : typeof fields.detail === "string"
    ? fields.detail
    : typeof fields.message === "string"
    ? fields.message
    : undefined
  const code = typeof error.code === "string" ? error.code : undefined
  return {
    error: new SpeechToTextError({
      retryable: retryableStatus(status) && code !== "insufficient_quota",
      reason: `${label} answered ${status}` + (message === undefined ? "" : `: ${message}`) +
        (code === undefined ? "" : ` (${code})`)
    }),
    fatal: status === 401 || status === 403
  }
}

const failure = (error: SpeechToTextError): Failure => ({ error, fatal: false })

/**
 * A `multipart/form-data` body (RFC 7578): the file part first, then the text fields. Encoded here
 * rather than through the platform's `FormData`, so it does not depend on which `HttpClient` runs it
 * (the undici package and Node's built-in `FormData` do not agree on Node 20).
 */
export const multipartBody = (
  fields: ReadonlyArray<readonly [string, string]>,
  file: { readonly name: string; readonly filename: string; readonly type: string; readonly bytes: Uint8Array }
): { readonly body: Uint8Array; readonly contentType: string } => {
  const boundary = `----voiceagent-${globalThis.crypto.randomUUID()}`
  const quoted = (s: string) => s.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c))
  const encoder = new TextEncoder()
  const parts: Array<Uint8Array> = [
    encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.name)}"; filename="${
        quoted(file.filename)
      }"\r\n` +
        `Content-Type: ${file.type}\r\n\r\n`
    ),
    file.bytes,
    encoder.encode("\r\n")
  ]
  for (const [name, value] of fields) {
    parts.push(
      encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`)
    )
  }
  parts.push(encoder.encode(`--${boundary}--\r\n`))
  return { body: concatBytes(parts), contentType: `multipart/form-data; boundary=${boundary}` }
}

interface Utterance {
  readonly frames: ReadonlyArray<Uint8Array>
  readonly speechFinal: boolean
}

/** The provider. Invalid configuration (a bad URL, a non-positive limit) is a defect here. */
export const make = (
  options: OpenAiTranscriptionOptions
): Effect.Effect<SpeechToTextProvider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const base = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined
    if (base === undefined || (base.protocol !== "http:" && base.protocol !== "https:")) {
      return yield* Effect.dieMessage(`OpenAiTranscription: baseUrl must be an http(s) URL, got ${options.baseUrl}`)
    }
    const settings = {
      model: options.model ?? OPENAI_TRANSCRIPTION_DEFAULTS.model,
      timeoutMs: options.timeoutMs ?? OPENAI_TRANSCRIPTION_DEFAULTS.timeoutMs,
      retries: options.retries ?? OPENAI_TRANSCRIPTION_DEFAULTS.retries,
      retryDelayMs: options.retryDelayMs ?? OPENAI_TRANSCRIPTION_DEFAULTS.retryDelayMs,
      maxUtteranceMs: options.maxUtteranceMs ?? OPENAI_TRANSCRIPTION_DEFAULTS.maxUtteranceMs,
      speechThreshold: options.speechThreshold ?? OPENAI_TRANSCRIPTION_DEFAULTS.speechThreshold,
      minSpeechMs: options.minSpeechMs ?? OPENAI_TRANSCRIPTION_DEFAULTS.minSpeechMs
    }
    for (
      const [name, value, min] of [
        ["timeoutMs", settings.timeoutMs, 1],
        ["retries", settings.retries, 0],
        ["retryDelayMs", settings.retryDelayMs, 0],
        ["maxUtteranceMs", settings.maxUtteranceMs, FRAME_MS],
        ["speechThreshold", settings.speechThreshold, 0],
        ["minSpeechMs", settings.minSpeechMs, 0]
      ] as const
    ) {
      if (!Number.isInteger(value) || value < min) {
        return yield* Effect.dieMessage(`OpenAiTranscription: ${name} must be an integer ≥ ${min}, got ${value}`)
      }
    }
    const label = `Transcription API at ${base.host}`
    const endpoint = `${trimSlash(options.baseUrl)}/audio/transcriptions`
    const apiKey = options.apiKey === undefined || Redacted.value(options.apiKey) === "" ? undefined : options.apiKey
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) => {
        const json = HttpClientRequest.acceptJson(request)
        return apiKey === undefined ? json : HttpClientRequest.bearerToken(json, Redacted.value(apiKey))
      })
    )
    const maxBytes = (settings.maxUtteranceMs / FRAME_MS) * (SAMPLE_RATE * FRAME_MS / 1000)

    const holdsSpeech = (pcm: Int16Array) => {
      const perFrame = (SAMPLE_RATE * FRAME_MS) / 1000
      let speechMs = 0
      for (let at = 0; at < pcm.length; at += perFrame) {
        if (rms(pcm.subarray(at, at + perFrame)) >= settings.speechThreshold) speechMs += FRAME_MS
        if (speechMs >= settings.minSpeechMs) return true
      }
      return false
    }

    const request = (pcm: Int16Array, fields: ReadonlyArray<readonly [string, string]>) => {
      const { body, contentType } = multipartBody(fields, {
        name: "file",
        filename: "utterance.wav",
        type: "audio/wav",
        bytes: writeWav(pcm, SAMPLE_RATE)
      })
      return client.execute(HttpClientRequest.post(endpoint).pipe(HttpClientRequest.bodyUint8Array(body, contentType)))
        .pipe(
          exchange(label, Duration.millis(settings.timeoutMs)),
          Effect.mapError((sent) =>
            failure(new SpeechToTextError({ reason: sent.message, retryable: sent.retryable }))
          ),
          Effect.flatMap(({ body, status }) => {
            if (status < 200 || status >= 300) return Effect.fail(failureOf(label, status, body))
            return Either.match(decodeResponse(body), {
              onLeft: () =>
                Effect.fail(
                  failure(
                    new SpeechToTextError({ reason: `${label} sent a malformed response: no text`, retryable: false })
                  )
                ),
              onRight: (response) => Effect.succeed(response.text.trim())
            })
          }),
          Effect.withSpan("OpenAiTranscription.request", { attributes: { audioMs: (pcm.length * 1000) / SAMPLE_RATE } })
        )
    }

    const withRetries = <A>(effect: Effect.Effect<A, Failure>) => {
      const attempt = (left: number): Effect.Effect<A, Failure> =>
        Effect.catchIf(
          effect,
          (failed) => failed.error.retryable && left > 0,
          () => Effect.zipRight(Effect.sleep(settings.retryDelayMs), attempt(left - 1))
        )
      return attempt(settings.retries)
    }

    const open = (sttOptions: SttOptions) =>
      Effect.gen(function*() {
        const fields = transcriptionFields(settings.model, sttOptions)
        const events = yield* Queue.unbounded<SttEvent | SpeechToTextError>()
        const work = yield* Queue.unbounded<Utterance>()
        const state = {
          frames: [] as Array<Uint8Array>,
          bytes: 0,
          /** A part of the current utterance went out as a `Final{speechFinal: false}`. */
          partial: false,
          failed: false
        }

        /** Hands the kept audio to the worker. */
        const cut = (speechFinal: boolean) => {
          const frames = state.frames
          state.frames = []
          state.bytes = 0
          if (frames.length > 0 && holdsSpeech(mulawDecode(concatBytes(frames)))) {
            Queue.unsafeOffer(work, { frames, speechFinal })
            state.partial = !speechFinal
          } else if (speechFinal && state.partial) {
            Queue.unsafeOffer(work, { frames: [], speechFinal: true })
            state.partial = false
          }
        }

        const worker = Effect.gen(function*() {
          while (!state.failed) {
            const utterance = yield* Queue.take(work)
            if (utterance.frames.length === 0) {
              yield* Queue.offer(events, SttEvent.Final({ text: "", speechFinal: true, at: yield* currentMillis }))
              continue
            }
            const pcm = mulawDecode(concatBytes(utterance.frames))
            const result = yield* Effect.either(withRetries(request(pcm, fields)))
            if (Either.isLeft(result)) {
              yield* Effect.logWarning(`OpenAiTranscription: ${result.left.error.reason}`)
              if (result.left.fatal) state.failed = true
              yield* Queue.offer(events, result.left.error)
              continue
            }
            yield* Queue.offer(
              events,
              SttEvent.Final({ text: result.right, speechFinal: utterance.speechFinal, at: yield* currentMillis })
            )
          }
        })
        yield* Effect.forkScoped(worker)
        yield* Effect.addFinalizer(() => Effect.zipRight(Queue.shutdown(work), Queue.shutdown(events)))

        const stream: SttStream = {
          push: (frame) => {
            if (state.failed) return
            state.frames.push(frame)
            state.bytes += frame.length
            if (state.bytes >= maxBytes) cut(false)
          },
          finalize: Effect.sync(() => {
            if (!state.failed) cut(true)
          }),
          events
        }
        return stream
      })

    const provider: SpeechToTextProvider = { name: "openai", open }
    return provider
  })

const currentMillis = Effect.clockWith((clock) => clock.currentTimeMillis)

const concatBytes = (chunks: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
  let at = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.length
  }
  return out
}

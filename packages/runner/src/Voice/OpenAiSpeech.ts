/**
 * Text to speech through OpenAI's `/v1/audio/speech` and the servers that copy it: provider "openai".
 *
 * One request per text: `POST {baseUrl}/audio/speech` with `Authorization: Bearer {apiKey}` (left out
 * without a key, as local servers take none) and `{model, input, voice, response_format: "pcm",
 * instructions?, speed?}`. OpenAI streams the answer as it synthesises (chunked, no length); `pcm` is
 * raw 24 kHz 16-bit little-endian mono, and there is no μ-law or 8 kHz option, so the body is read as
 * it arrives and brought to 8 kHz here. No word timings: the engine estimates by characters.
 *
 * Resampling in pieces: network chunks split samples (an odd byte is carried to the next chunk) and
 * arrive in any size, so instead of resampling each piece on its own (every piece would restart the
 * filter and click at its edges) the audio goes through one streaming decimator per request
 * (`makeDecimator`): a 193-tap Kaiser-windowed low-pass at 3.6 kHz (about 80 dB down past 4 kHz)
 * whose history carries across pieces, keeping every third sample. The output does not depend on
 * how the bytes were cut (tested), is delay-compensated (sample k of the output is input sample 3k),
 * and has exactly ⌈n/3⌉ samples for n in. Servers that stream `pcm` at another multiple of 8 kHz
 * (16, 48 kHz) are served by `sampleRate`.
 *
 * Errors, as OpenAI's SDKs retry: a timeout, a refused or reset connection (before or during the
 * audio), 408, 409, 429 and 5xx are retryable, except a 429 whose code is `insufficient_quota`;
 * 400, 401, 403, 404, 422 are not; an input over 4096 characters is refused before sending.
 * `timeoutMillis` (Effect's `Clock`) bounds the wait for the answer's headers and each wait for the
 * next piece of audio.
 *
 * Docs (checked): https://platform.openai.com/docs/api-reference/audio/createSpeech (request fields,
 * voices, 4096 characters, `pcm`), https://platform.openai.com/docs/guides/text-to-speech (24 kHz
 * pcm, streaming), https://platform.openai.com/docs/guides/error-codes.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { record, trimSlash } from "../Http/ProviderHttp.js"
import { SAMPLE_RATE } from "./Audio.js"
import {
  SpeechPart,
  TextToSpeechError,
  type TextToSpeechProvider,
  type TtsOptions,
  type TtsSession
} from "./TextToSpeech.js"

export interface OpenAiSpeechOptions {
  /** The API's base URL; `https://api.openai.com/v1` unless set. Requests go to `{baseUrl}/audio/speech`. */
  readonly baseUrl?: string | undefined
  /** Sent as a bearer token; no `Authorization` header when unset (local servers). */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** `gpt-4o-mini-tts` unless set; `TtsOptions.model` overrides it per session. */
  readonly model?: string | undefined
  /** The voice when a session names none (`TtsOptions.voice` empty); `alloy` unless set. */
  readonly voice?: string | undefined
  /** How to speak (tone, pace); not for the `tts-1` models. */
  readonly instructions?: string | undefined
  /** 0.25 to 4; the API's 1 unless set. */
  readonly speed?: number | undefined
  /** The rate of the server's `pcm`: OpenAI's 24 kHz unless set; a multiple of 8 kHz. */
  readonly sampleRate?: number | undefined
  /** How long to wait for the answer, and then for each piece of audio; 15 s unless set. */
  readonly timeoutMillis?: number | undefined
}

export const OPENAI_SPEECH_DEFAULT_URL = "https://api.openai.com/v1"
export const OPENAI_SPEECH_DEFAULT_MODEL = "gpt-4o-mini-tts"
export const OPENAI_SPEECH_DEFAULT_VOICE = "alloy"
export const OPENAI_SPEECH_SAMPLE_RATE = 24_000
export const OPENAI_SPEECH_DEFAULT_TIMEOUT_MILLIS = 15_000
export const OPENAI_SPEECH_MAX_INPUT = 4096

/** The request body, as the API documents it. */
export const speechRequestBody = (fields: {
  readonly model: string
  readonly input: string
  readonly voice: string
  readonly instructions?: string | undefined
  readonly speed?: number | undefined
}) => ({
  model: fields.model,
  input: fields.input,
  voice: fields.voice,
  response_format: "pcm",
  ...(fields.instructions === undefined ? {} : { instructions: fields.instructions }),
  ...(fields.speed === undefined ? {} : { speed: fields.speed })
})

// ---------------------------------------------------------------------------
// Streaming decimation to 8 kHz
// ---------------------------------------------------------------------------

export interface Decimator {
  /** The output for this piece of input (possibly empty: the filter waits for its look-ahead). */
  readonly push: (input: Int16Array) => Int16Array
  /** The rest, once the input has ended. */
  readonly flush: () => Int16Array
}

const besselI0 = (x: number) => {
  let sum = 1
  let term = 1
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2
    sum += term
    if (term < sum * 1e-12) break
  }
  return sum
}

const lowPass = (factor: number): Float64Array => {
  const half = 32 * factor
  const taps = new Float64Array(2 * half + 1)
  const cutoff = 3_600 / (SAMPLE_RATE * factor) // of the input rate
  const beta = 8
  let sum = 0
  for (let i = 0; i < taps.length; i++) {
    const n = i - half
    const sinc = n === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * n) / (Math.PI * n)
    const window = besselI0(beta * Math.sqrt(1 - (n / half) ** 2)) / besselI0(beta)
    taps[i] = sinc * window
    sum += taps[i]!
  }
  for (let i = 0; i < taps.length; i++) taps[i]! /= sum
  return taps
}

/**
 * Brings 16-bit PCM at `factor` × 8 kHz to 8 kHz as it streams: low-pass, then every `factor`-th
 * sample, with the filter's history kept between pieces and its delay compensated.
 */
export const makeDecimator = (factor: number): Decimator => {
  if (!Number.isInteger(factor) || factor < 1) {
    throw new RangeError(`makeDecimator: factor must be a positive integer, got ${factor}`)
  }
  if (factor === 1) return { push: (input) => input, flush: () => new Int16Array(0) }
  const taps = lowPass(factor)
  const delay = (taps.length - 1) / 2
  // pending holds input samples from index `start` on; indices before 0 are silence
  let pending = new Float64Array(delay)
  let start = -delay
  let received = 0
  let next = 0 // the next output's centre is input sample next × factor

  const emit = (until: number): Int16Array => {
    const out: Array<number> = []
    while (next * factor + delay < start + pending.length && next * factor < until) {
      const centre = next * factor
      let acc = 0
      const base = centre + delay - start
      for (let i = 0; i < taps.length; i++) acc += taps[i]! * pending[base - i]!
      out.push(Math.max(-32768, Math.min(32767, Math.round(acc))))
      next++
    }
    const keepFrom = next * factor - delay
    if (keepFrom > start) {
      pending = pending.slice(keepFrom - start)
      start = keepFrom
    }
    return Int16Array.from(out)
  }

  const append = (samples: ArrayLike<number>) => {
    const grown = new Float64Array(pending.length + samples.length)
    grown.set(pending)
    grown.set(samples, pending.length)
    pending = grown
  }

  return {
    push: (input) => {
      append(input)
      received += input.length
      return emit(Number.POSITIVE_INFINITY)
    },
    flush: () => {
      append(new Float64Array(delay))
      return emit(received)
    }
  }
}

/** Little-endian 16-bit samples from network chunks that may split a sample; the odd byte waits. */
const sampleReader = () => {
  let carry: number | undefined
  return (bytes: Uint8Array): Int16Array => {
    const total = bytes.length + (carry === undefined ? 0 : 1)
    const samples = new Int16Array(Math.floor(total / 2))
    let at = 0
    let i = 0
    if (carry !== undefined && bytes.length > 0) {
      samples[0] = carry | (bytes[0]! << 8)
      at = 1
      i = 1
      carry = undefined
    }
    for (; at + 1 < bytes.length; at += 2) samples[i++] = bytes[at]! | (bytes[at + 1]! << 8)
    if (at < bytes.length) carry = bytes[at]
    return samples
  }
}

// ---------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------

const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

/** OpenAI's `{error: {message, code}}`, and the variants compatible servers answer with. */
const failureOf = (label: string, status: number, body: unknown): TextToSpeechError => {
  const fields = record(body)
  const error = record(fields.error)
  const message = typeof error.message === "string"
    ? error.message
    : typeof fields.error === "string"
    ? fields.error
    : typeof fields.message === "string"
    ? fields.message
    : typeof fields.detail === "string"
    ? fields.detail
    : undefined
  const code = typeof error.code === "string" || typeof error.code === "number" ? String(error.code) : undefined
  return new TextToSpeechError({
    retryable: retryableStatus(status) && code !== "insufficient_quota",
    reason: `${label} answered ${status}` + (message === undefined ? "" : `: ${message}`) +
      (code === undefined ? "" : ` (${code})`)
  })
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The "openai" provider. Configuration is the caller's to check: an invalid URL, a sample rate
 * that is not a multiple of 8 kHz or a timeout out of range is a defect here.
 */
export const make = (
  options: OpenAiSpeechOptions = {}
): Effect.Effect<TextToSpeechProvider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const baseUrl = options.baseUrl ?? OPENAI_SPEECH_DEFAULT_URL
    const base = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
    if (base === undefined || (base.protocol !== "http:" && base.protocol !== "https:")) {
      return yield* Effect.dieMessage(`OpenAiSpeech: baseUrl must be an http(s) URL, got ${baseUrl}`)
    }
    const sampleRate = options.sampleRate ?? OPENAI_SPEECH_SAMPLE_RATE
    if (!Number.isInteger(sampleRate / SAMPLE_RATE) || sampleRate < SAMPLE_RATE) {
      return yield* Effect.dieMessage(
        `OpenAiSpeech: sampleRate must be a multiple of ${SAMPLE_RATE}, got ${sampleRate}`
      )
    }
    const timeoutMillis = options.timeoutMillis ?? OPENAI_SPEECH_DEFAULT_TIMEOUT_MILLIS
    if (!(timeoutMillis > 0) || !Number.isFinite(timeoutMillis)) {
      return yield* Effect.dieMessage(`OpenAiSpeech: timeoutMillis must be positive, got ${timeoutMillis}`)
    }
    const label = `Speech API at ${base.host}`
    const endpoint = `${trimSlash(baseUrl)}/audio/speech`
    const apiKey = options.apiKey === undefined ? undefined : Redacted.value(options.apiKey)
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) => {
        const accept = HttpClientRequest.setHeader(request, "accept", "application/octet-stream")
        return apiKey === undefined || apiKey === "" ? accept : HttpClientRequest.bearerToken(accept, apiKey)
      })
    )
    const stalled = () =>
      new TextToSpeechError({ reason: `${label} sent no audio for ${timeoutMillis / 1000} s`, retryable: true })

    const synthesizeWith =
      (model: string, voice: string) => (text: string): Stream.Stream<SpeechPart, TextToSpeechError> =>
        Stream.unwrap(Effect.gen(function*() {
          if (text.trim() === "") return Stream.empty
          if (text.length > OPENAI_SPEECH_MAX_INPUT) {
            return yield* new TextToSpeechError({
              reason: `${label} takes at most ${OPENAI_SPEECH_MAX_INPUT} characters; the text has ${text.length}`,
              retryable: false
            })
          }
          const body = speechRequestBody({
            model,
            input: text,
            voice,
            instructions: options.instructions,
            speed: options.speed
          })
          const response = yield* client.execute(
            HttpClientRequest.post(endpoint).pipe(HttpClientRequest.bodyText(JSON.stringify(body), "application/json"))
          ).pipe(
            Effect.mapError((error) =>
              new TextToSpeechError({ reason: `${label} could not be reached: ${error.message}`, retryable: true })
            ),
            Effect.timeoutFail({
              duration: timeoutMillis,
              onTimeout: () =>
                new TextToSpeechError({
                  reason: `${label} did not answer within ${timeoutMillis / 1000} s`,
                  retryable: true
                })
            })
          )
          if (response.status < 200 || response.status >= 300) {
            const text = yield* response.text.pipe(
              Effect.timeout(timeoutMillis),
              Effect.orElseSucceed(() => "")
            )
            return yield* failureOf(label, response.status, parseJson(text))
          }
          const read = sampleReader()
          const decimator = makeDecimator(sampleRate / SAMPLE_RATE)
          return response.stream.pipe(
            Stream.mapError((error) =>
              new TextToSpeechError({ reason: `${label} broke off the audio: ${error.message}`, retryable: true })
            ),
            Stream.timeoutFail(stalled, timeoutMillis),
            Stream.map((bytes) => decimator.push(read(bytes))),
            Stream.concat(Stream.sync(() => decimator.flush())),
            Stream.filter((pcm) => pcm.length > 0),
            Stream.map((pcm) => SpeechPart.Audio({ pcm }))
          )
        })).pipe(Stream.withSpan("OpenAiSpeech.synthesize", { attributes: { model, voice, chars: text.length } }))

    const open = (tts: TtsOptions): Effect.Effect<TtsSession, TextToSpeechError> =>
      Effect.succeed({
        synthesize: synthesizeWith(
          tts.model ?? options.model ?? OPENAI_SPEECH_DEFAULT_MODEL,
          tts.voice === "" ? options.voice ?? OPENAI_SPEECH_DEFAULT_VOICE : tts.voice
        )
      })

    const provider: TextToSpeechProvider = { name: "openai", open }
    return provider
  })

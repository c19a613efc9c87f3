/**
 * A fake of OpenAI's text-to-speech API on a loopback port, for tests, built from its documented
 * request and answer (https://platform.openai.com/docs/api-reference/audio/createSpeech):
 *
 * - `POST {url}/audio/speech` (`url` is `http://127.0.0.1:{port}/v1`; `/audio/speech` without the
 *   `/v1` is answered too), JSON `{model, input, voice, instructions?, response_format?, speed?,
 *   stream_format?}`;
 * - bearer auth when the fake has an API key: without it, or with another, 401 `invalid_api_key`;
 * - validation as documented: `model` one of `tts-1`, `tts-1-hd`, `gpt-4o-mini-tts`,
 *   `gpt-4o-mini-tts-2025-12-15` (another is a 404 `model_not_found`); `input` a non-empty string of
 *   at most 4096 characters; `voice` a built-in voice (`alloy`, `ash`, `ballad`, `coral`, `echo`,
 *   `fable`, `onyx`, `nova`, `sage`, `shimmer`, `verse`, `marin`, `cedar`) or `{id}`; `instructions`
 *   not with the `tts-1` models; `speed` from 0.25 to 4; `stream_format` `audio` (`sse` is refused by
 *   the fake, and by the API for `tts-1`); `response_format` from the documented list, of which the
 *   fake produces `pcm` (raw 24 kHz 16-bit little-endian mono, OpenAI's) and `wav`, and refuses
 *   the compressed ones with a 400 that says so;
 * - the answer: 200 with the audio streamed in chunks (chunked transfer, no length), `chunkBytes` at
 *   a time, `chunkIntervalMillis` apart. The default chunk size is odd, so samples straddle chunks,
 *   as they do on the network.
 *
 * The audio is `FakeVoice.fakeSpeech(input)` at 24 kHz: 60 ms per character divided by `speed`
 * (`pcmFor` gives it to compare against). A test can delay the first byte (`ttfbMillis`,
 * `setTtfb`), queue faults (an error answer, a hung or reset connection, a connection reset part way
 * through the audio, a delay), read what was asked, and see how many answers the client abandoned
 * before their end (`abandoned`).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as http from "node:http"
import { writeWav } from "../Voice/Audio.js"
import {
  type HttpFault,
  httpServer,
  type JsonRequest,
  listen,
  makeSleeper,
  makeWaiters,
  openAiError,
  parseJson,
  readJsonRequest,
  record,
  sendJson
} from "./FakeHttp.js"
import { FAKE_MS_PER_CHAR, fakeSpeech } from "./FakeVoice.js"

export const OPENAI_SPEECH_SAMPLE_RATE = 24_000
export const FAKE_OPENAI_SPEECH_MODELS = ["tts-1", "tts-1-hd", "gpt-4o-mini-tts", "gpt-4o-mini-tts-2025-12-15"]
export const FAKE_OPENAI_SPEECH_VOICES = [
  "alloy",
  "ash",
  "ballad",
  "coral",
  "echo",
  "fable",
  "onyx",
  "nova",
  "sage",
  "shimmer",
  "verse",
  "marin",
  "cedar"
]
const RESPONSE_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"]
const MAX_INPUT = 4096

export type RecordedSpeechRequest = JsonRequest

/**
 * What the fake does with the next request instead of answering
 * it normally (`Respond`: OpenAI's error shape unless given).
 */
export type FakeOpenAiSpeechFault =
  | HttpFault
  /** Answer 200, send this many bytes of the audio, then drop the connection. */
  | { readonly _tag: "ResetMidStream"; readonly afterBytes: number }

export interface FakeOpenAiSpeechOptions {
  /** When set, every request must carry `Authorization: Bearer {apiKey}`. */
  readonly apiKey?: string
  /** Bytes per write of the audio; 4801 unless given (odd: samples straddle writes). */
  readonly chunkBytes?: number
  /** Real time between writes; 2 ms unless given. */
  readonly chunkIntervalMillis?: number
  /** Real time before the answer starts (time to first byte); 0 unless given. */
  readonly ttfbMillis?: number
}

export interface FakeOpenAiSpeechServer {
  /** The base URL to configure: `http://127.0.0.1:{port}/v1`. */
  readonly url: string
  readonly apiKey: string | undefined
  readonly requests: () => ReadonlyArray<RecordedSpeechRequest>
  /** Queues a fault for the next request not yet answered (one fault per request, in order). */
  readonly fault: (fault: FakeOpenAiSpeechFault) => void
  readonly setTtfb: (millis: number) => void
  /** Audio answers whose client went away before their last byte. */
  readonly abandoned: () => number
  /** Audio answers sent to their end. */
  readonly completed: () => number
  /**
   * Waits until at least `count` requests have been received; dies, saying what it waited for and what
   * it saw, after `millis` of real time (30 s unless given).
   */
  readonly awaitRequests: (count: number, millis?: number) => Effect.Effect<void>
  /** Waits until `count` audio answers have ended, sent or abandoned (30 s of real time unless given). */
  readonly awaitSettled: (count: number, millis?: number) => Effect.Effect<void>
  /** The 24 kHz audio the fake streams for `input` at `speed`. */
  readonly pcmFor: (input: string, speed?: number) => Int16Array
}

const invalid = (message: string, param: string | null = null, code: string | null = "invalid_value") => ({
  status: 400,
  body: openAiError(message, "invalid_request_error", code, param)
})

const defaultFaultBody = (status: number): unknown =>
  status === 429
    ? openAiError(
      "Rate limit reached for requests per min (RPM). Please try again in 20ms.",
      "requests",
      "rate_limit_exceeded"
    )
    : status === 503
    ? openAiError("The engine is currently overloaded, please try again later", "server_error")
    : status >= 500
    ? openAiError("The server had an error while processing your request. Sorry about that!", "server_error")
    : status === 401
    ? openAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key")
    : openAiError("Bad request", "invalid_request_error")

type Answer =
  | { readonly _tag: "Error"; readonly status: number; readonly body: unknown }
  | { readonly _tag: "Audio"; readonly contentType: string; readonly bytes: Uint8Array }

const pcmBytes = (pcm: Int16Array) => {
  const bytes = new Uint8Array(pcm.length * 2)
  const view = new DataView(bytes.buffer)
  pcm.forEach((sample, i) => view.setInt16(2 * i, sample, true))
  return bytes
}

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const make = (
  options: FakeOpenAiSpeechOptions = {}
): Effect.Effect<FakeOpenAiSpeechServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const apiKey = options.apiKey
    const chunkBytes = options.chunkBytes ?? 4801
    const chunkIntervalMillis = options.chunkIntervalMillis ?? 2
    let ttfbMillis = options.ttfbMillis ?? 0
    const recorded: Array<RecordedSpeechRequest> = []
    const faults: Array<FakeOpenAiSpeechFault> = []
    const waiters = makeWaiters("FakeOpenAiSpeech")
    // Real time; the scope's close wakes every sleeper so no timer outlives the fake.
    const { sleep, wakeAll } = makeSleeper()
    let abandoned = 0
    let completed = 0

    const pcmFor = (input: string, speed = 1) => fakeSpeech(input, OPENAI_SPEECH_SAMPLE_RATE, FAKE_MS_PER_CHAR / speed)

    const speech = (request: RecordedSpeechRequest): Answer => {
      if (apiKey !== undefined && request.headers.authorization !== `Bearer ${apiKey}`) {
        return {
          _tag: "Error",
          status: 401,
          body: openAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key")
        }
      }
      if (request.method !== "POST") {
        return {
          _tag: "Error",
          status: 405,
          body: openAiError(`Invalid method for URL (${request.method} ${request.path})`, "invalid_request_error")
        }
      }
      const parsed = parseJson(request.rawBody)
      if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value)) {
        return { _tag: "Error", ...invalid("We could not parse the JSON body of your request.", null, null) }
      }
      const body = record(parsed.value)
      if (typeof body.model !== "string" || body.model === "") {
        return { _tag: "Error", ...invalid("You must provide a model parameter.", "model", null) }
      }
      if (!FAKE_OPENAI_SPEECH_MODELS.includes(body.model)) {
        return {
          _tag: "Error",
          status: 404,
          body: openAiError(
            `The model \`${body.model}\` does not exist or you do not have access to it.`,
            "invalid_request_error",
            "model_not_found"
          )
        }
      }
      const legacy = body.model.startsWith("tts-1")
      if (typeof body.input !== "string" || body.input === "") {
        return {
          _tag: "Error",
          ...invalid("Invalid 'input': empty string. Expected a string with minimum length 1.", "input", "empty_string")
        }
      }
      if (body.input.length > MAX_INPUT) {
        return {
          _tag: "Error",
          ...invalid(
            `Invalid 'input': string too long. Expected a string with maximum length ${MAX_INPUT}, but got a string ` +
              `with length ${body.input.length} instead.`,
            "input",
            "string_above_max_length"
          )
        }
      }
      const voice = body.voice
      const voiceOk = typeof voice === "string"
        ? FAKE_OPENAI_SPEECH_VOICES.includes(voice)
        : typeof record(voice).id === "string" && (record(voice).id as string) !== ""
      if (!voiceOk) {
        return {
          _tag: "Error",
          ...invalid(
            `Invalid value: '${JSON.stringify(voice)}'. Supported values are: ${
              FAKE_OPENAI_SPEECH_VOICES.map((v) => `'${v}'`).join(", ")
            }.`,
            "voice"
          )
        }
      }
      if (body.instructions !== undefined && (typeof body.instructions !== "string" || legacy)) {
        return { _tag: "Error", ...invalid("Instructions are not supported for this model.", "instructions") }
      }
      const speed = body.speed ?? 1
      if (typeof speed !== "number" || !(speed >= 0.25 && speed <= 4)) {
        return {
          _tag: "Error",
          ...invalid(`Invalid 'speed': ${JSON.stringify(speed)}. Expected a value from 0.25 to 4.`, "speed")
        }
      }
      const streamFormat = body.stream_format ?? "audio"
      if (streamFormat !== "audio") {
        return {
          _tag: "Error",
          ...invalid(
            streamFormat === "sse"
              ? legacy
                ? "stream_format 'sse' is not supported for this model."
                : "FakeOpenAiSpeech streams raw audio only (stream_format 'audio')."
              : `Invalid value: '${String(streamFormat)}'. Supported values are: 'sse' and 'audio'.`,
            "stream_format"
          )
        }
      }
      const format = body.response_format ?? "mp3"
      if (typeof format !== "string" || !RESPONSE_FORMATS.includes(format)) {
        return {
          _tag: "Error",
          ...invalid(
            `Invalid value: '${String(format)}'. Supported values are: ${
              RESPONSE_FORMATS.map((f) => `'${f}'`).join(", ")
            }.`,
            "response_format"
          )
        }
      }
      const pcm = pcmFor(body.input, speed)
      if (format === "pcm") return { _tag: "Audio", contentType: "audio/pcm", bytes: pcmBytes(pcm) }
      if (format === "wav") {
        return { _tag: "Audio", contentType: "audio/wav", bytes: writeWav(pcm, OPENAI_SPEECH_SAMPLE_RATE) }
      }
      return {
        _tag: "Error",
        ...invalid(
          `FakeOpenAiSpeech does not encode ${format}; ask for pcm or wav.`,
          "response_format",
          "unsupported_by_fake"
        )
      }
    }

    const route = (request: RecordedSpeechRequest): Answer => {
      const pathname = new URL(request.path, "http://localhost").pathname
      if (pathname === "/v1/audio/speech" || pathname === "/audio/speech") {
        return speech(request)
      }
      return {
        _tag: "Error",
        status: 404,
        body: openAiError(`Invalid URL (${request.method} ${pathname})`, "invalid_request_error")
      }
    }

    const streamAudio = async (
      incoming: http.IncomingMessage,
      response: http.ServerResponse,
      answer: Extract<Answer, { _tag: "Audio" }>,
      resetAfter: number | undefined
    ) => {
      response.writeHead(200, { "content-type": answer.contentType, "transfer-encoding": "chunked" })
      const limit = resetAfter === undefined ? answer.bytes.length : Math.min(resetAfter, answer.bytes.length)
      for (let at = 0; at < limit; at += chunkBytes) {
        if (response.destroyed) break
        response.write(answer.bytes.subarray(at, Math.min(limit, at + chunkBytes)))
        await sleep(chunkIntervalMillis)
      }
      if (response.destroyed) {
        abandoned++
      } else if (resetAfter !== undefined) {
        incoming.socket.destroy()
      } else {
        response.end()
        completed++
      }
      waiters.wake()
    }

    const handle = async (incoming: http.IncomingMessage, response: http.ServerResponse) => {
      const request: RecordedSpeechRequest = await readJsonRequest(incoming)
      recorded.push(request)
      waiters.wake()
      const fault = faults.shift()
      await sleep(ttfbMillis)
      if (response.destroyed) return
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") return void incoming.socket.destroy()
      if (fault?._tag === "Respond") {
        return sendJson(response, fault.status, fault.body ?? defaultFaultBody(fault.status))
      }
      if (fault?._tag === "Delay") await sleep(fault.millis)
      if (response.destroyed) return
      const answer = route(request)
      if (answer._tag === "Error") return sendJson(response, answer.status, answer.body)
      await streamAudio(incoming, response, answer, fault?._tag === "ResetMidStream" ? fault.afterBytes : undefined)
    }

    const port = yield* listen(
      httpServer(handle, (response, error) => sendJson(response, 500, openAiError(String(error), "server_error"))),
      wakeAll
    )

    const fake: FakeOpenAiSpeechServer = {
      url: `http://127.0.0.1:${port}/v1`,
      apiKey,
      requests: () => recorded.slice(),
      fault: (fault) => void faults.push(fault),
      setTtfb: (millis) => {
        ttfbMillis = millis
      },
      abandoned: () => abandoned,
      completed: () => completed,
      awaitRequests: (count, millis) =>
        waiters.until(`${count} request(s)`, () => recorded.length >= count, millis, () => `saw ${recorded.length}`),
      awaitSettled: (count, millis) =>
        waiters.until(
          `${count} answer(s) to end`,
          () => abandoned + completed >= count,
          millis,
          () => `saw ${completed} completed, ${abandoned} abandoned`
        ),
      pcmFor
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeOpenAiSpeech
  extends Context.Tag("Testing/FakeOpenAiSpeech")<FakeOpenAiSpeech, FakeOpenAiSpeechServer>()
{
  static readonly layer = (options: FakeOpenAiSpeechOptions = {}) => Layer.scoped(FakeOpenAiSpeech, make(options))
}

/**
 * A fake of OpenAI's transcription API on a loopback port, for tests, built from its documented
 * request and answer:
 *
 * - `POST {url}/audio/transcriptions` (`url` is `http://127.0.0.1:{port}/v1`; the route without
 *   `/v1` is answered too), `multipart/form-data` parsed by the platform's own parser (a body that
 *   is not valid multipart is a 400);
 * - bearer auth when the fake has an API key: without it, or with another, 401 `{error: {message: "Incorrect API key
 *   provided", type: "invalid_request_error", param: null, code: "invalid_api_key"}}`;
 * - validation: `file` is required and must be a file named with a supported extension
 *   (flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm); a `.wav` must be a well-formed RIFF/WAVE
 *   file (the RIFF and data sizes agree with the bytes, a `fmt ` chunk of 16-bit PCM whose byte rate
 *   and block align agree with its rate and channels) of at least 0.1 s; `model` is required and
 *   must be one the fake knows (404 `model_not_found` otherwise); `language` an ISO-639-1 code;
 *   `response_format` `json` (the default) or `text`; `prompt` and `temperature` are accepted;
 * - the answer `{"text": …, "usage": …}` (`usage` by duration for whisper-1, by tokens for the
 *   gpt-4o models), or the bare text for `response_format=text`.
 *
 * The texts answered come from a script, in order ("" once it runs out). Every request is recorded
 * with its fields and, for a WAV, its rate, channels, duration and how much of it is loud (RMS
 * ≥ 500 per 20 ms frame), so a test can check what audio the client sent. Faults as in the other
 * fakes: an answer of the test's choosing, a hung or reset connection, a delay (real time).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as http from "node:http"
import { FRAME_MS, readWav } from "../Voice/Audio.js"
import { rms } from "../Voice/Vad.js"
import {
  headersOf,
  type HttpFault,
  httpServer,
  listen,
  makeSleeper,
  makeWaiters,
  openAiError,
  readBytes
} from "./FakeHttp.js"

export interface RecordedWav {
  readonly sampleRate: number
  readonly channels: number
  readonly bitsPerSample: number
  readonly durationMs: number
  /** 20 ms frames with RMS ≥ 500, in ms. */
  readonly loudMs: number
}

export interface RecordedTranscriptionRequest {
  readonly method: string
  readonly path: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  /** The text fields in order. */
  readonly fields: ReadonlyArray<readonly [string, string]>
  readonly file: {
    readonly name: string
    readonly type: string
    readonly bytes: number
    readonly wav: RecordedWav | undefined
  } | undefined
  /** The status the fake answered (0 for a hung or reset request). */
  readonly status: number
}

export type FakeTranscriptionFault = HttpFault

export interface FakeOpenAiTranscriptionOptions {
  /** When set, every request must carry `Authorization: Bearer {apiKey}`. */
  readonly apiKey?: string
  /** `["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"]` unless given. */
  readonly models?: ReadonlyArray<string>
  /** Texts answered in order. */
  readonly texts?: ReadonlyArray<string>
}

export interface FakeOpenAiTranscriptionServer {
  /** The base URL: `http://127.0.0.1:{port}/v1`. */
  readonly url: string
  readonly requests: () => ReadonlyArray<RecordedTranscriptionRequest>
  /** Texts answered so far. */
  readonly answered: () => ReadonlyArray<string>
  readonly fault: (fault: FakeTranscriptionFault) => void
  /** Waits until `count` requests were answered (or faulted); dies after `millis` of real time. */
  readonly awaitRequests: (count: number, millis?: number) => Effect.Effect<void>
}

const SUPPORTED_EXTENSIONS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"]
const RESPONSE_FORMATS = ["json", "text", "srt", "verbose_json", "vtt"]

const invalid = (message: string, param: string | null = null, code: string | null = null) => ({
  status: 400,
  body: openAiError(message, "invalid_request_error", code, param)
})

const defaultFaultBody = (status: number) =>
  status === 401
    ? openAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key")
    : status === 429
    ? openAiError("Rate limit reached for requests", "requests", "rate_limit_exceeded")
    : status >= 500
    ? openAiError("The server had an error while processing your request. Sorry about that!", "server_error")
    : openAiError("Bad request", "invalid_request_error")

/** The WAV's format, checked strictly; a reason when it is not well formed. */
export const inspectWav = (bytes: Uint8Array): { readonly wav: RecordedWav } | { readonly problem: string } => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const text = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4))
  if (bytes.length < 44 || text(0) !== "RIFF" || text(8) !== "WAVE") return { problem: "not a RIFF/WAVE file" }
  if (view.getUint32(4, true) !== bytes.length - 8) {
    return { problem: `RIFF size ${view.getUint32(4, true)} for ${bytes.length} bytes` }
  }
  let at = 12
  let format: { channels: number; sampleRate: number; bits: number } | undefined
  while (at + 8 <= bytes.length) {
    const id = text(at)
    const size = view.getUint32(at + 4, true)
    if (id === "fmt ") {
      const audioFormat = view.getUint16(at + 8, true)
      const channels = view.getUint16(at + 10, true)
      const sampleRate = view.getUint32(at + 12, true)
      const byteRate = view.getUint32(at + 16, true)
      const blockAlign = view.getUint16(at + 20, true)
      const bits = view.getUint16(at + 22, true)
      if (audioFormat !== 1 || bits !== 16) {
        return { problem: `format ${audioFormat}, ${bits} bits: expected 16-bit PCM` }
      }
      if (channels < 1 || sampleRate < 1) return { problem: "no channels or no rate" }
      if (blockAlign !== channels * 2 || byteRate !== sampleRate * blockAlign) {
        return { problem: "byte rate or block align disagree with the format" }
      }
      format = { channels, sampleRate, bits }
    } else if (id === "data") {
      if (format === undefined) return { problem: "data before fmt" }
      if (at + 8 + size !== bytes.length) return { problem: `data size ${size} for ${bytes.length - at - 8} bytes` }
      const decoded = readWav(bytes)
      const frame = (format.sampleRate * FRAME_MS) / 1000
      let loud = 0
      if (decoded !== undefined && format.channels === 1) {
        for (let i = 0; i + frame <= decoded.pcm.length; i += frame) {
          if (rms(decoded.pcm.subarray(i, i + frame)) >= 500) loud += FRAME_MS
        }
      }
      return {
        wav: {
          sampleRate: format.sampleRate,
          channels: format.channels,
          bitsPerSample: format.bits,
          durationMs: (size / format.channels / 2 / format.sampleRate) * 1000,
          loudMs: loud
        }
      }
    }
    at += 8 + size + (size % 2)
  }
  return { problem: "no data chunk" }
}

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const make = (
  options: FakeOpenAiTranscriptionOptions = {}
): Effect.Effect<FakeOpenAiTranscriptionServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const models = options.models ?? ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe"]
    const script = options.texts ?? []
    const recorded: Array<RecordedTranscriptionRequest> = []
    const answered: Array<string> = []
    const faults: Array<FakeTranscriptionFault> = []
    const waiters = makeWaiters("FakeOpenAiTranscription")
    // Real time; the scope's close wakes every sleeper so no timer outlives the fake.
    const { sleep, wakeAll } = makeSleeper()

    const transcribe = async (
      method: string,
      pathname: string,
      headers: Readonly<Record<string, string>>,
      body: Buffer
    ): Promise<
      {
        readonly status: number
        readonly body: unknown
        readonly fields: RecordedTranscriptionRequest["fields"]
        readonly file: RecordedTranscriptionRequest["file"]
      }
    > => {
      const none = { fields: [], file: undefined }
      if (pathname !== "/v1/audio/transcriptions" && pathname !== "/audio/transcriptions") {
        return {
          status: 404,
          body: openAiError(`Invalid URL (${method} ${pathname})`, "invalid_request_error"),
          ...none
        }
      }
      if (options.apiKey !== undefined && headers.authorization !== `Bearer ${options.apiKey}`) {
        return {
          status: 401,
          body: openAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key"),
          ...none
        }
      }
      if (method !== "POST") {
        return {
          status: 405,
          body: openAiError(`Invalid method for URL (${method} ${pathname})`, "invalid_request_error"),
          ...none
        }
      }
      const contentType = headers["content-type"] ?? ""
      if (!/^multipart\/form-data;.*boundary=/i.test(contentType)) {
        return { ...invalid("Invalid Content-Type header, expected multipart/form-data"), ...none }
      }
      let form: FormData
      try {
        form = await new Response(body, { headers: { "content-type": contentType } }).formData()
      } catch (error) {
        return { ...invalid(`Could not parse multipart form: ${String(error)}`), ...none }
      }
      const fields: Array<readonly [string, string]> = []
      let file: RecordedTranscriptionRequest["file"]
      let fileBytes: Uint8Array | undefined
      for (const [key, value] of form.entries()) {
        if (typeof value === "string") fields.push([key, value])
        else if (key === "file") {
          fileBytes = new Uint8Array(await value.arrayBuffer())
          file = { name: value.name, type: value.type, bytes: fileBytes.length, wav: undefined }
        } else return { ...invalid(`Unexpected file field: ${key}`), fields, file }
      }
      const result = (status: number, answer: unknown) => ({ status, body: answer, fields, file })
      const param = (name: string) => fields.find(([key]) => key === name)?.[1]
      if (file === undefined || fileBytes === undefined) {
        return { ...invalid("you must provide a file", "file"), fields, file }
      }
      const extension = file.name.includes(".") ? file.name.split(".").pop()!.toLowerCase() : ""
      if (!SUPPORTED_EXTENSIONS.includes(extension)) {
        return {
          ...invalid(`Invalid file format. Supported formats: ${JSON.stringify(SUPPORTED_EXTENSIONS)}`, "file"),
          fields,
          file
        }
      }
      if (extension === "wav") {
        const inspected = inspectWav(fileBytes)
        if ("problem" in inspected) {
          return {
            ...invalid(`Audio file might be corrupted or unsupported: ${inspected.problem}`, "file", "invalid_value"),
            fields,
            file
          }
        }
        file = { ...file, wav: inspected.wav }
        if (inspected.wav.durationMs < 100) {
          return {
            ...invalid("Audio file is too short. Minimum audio length is 0.1 seconds.", "file", "audio_too_short"),
            fields,
            file
          }
        }
      }
      const model = param("model")
      if (model === undefined || model === "") {
        return { ...invalid("you must provide a model parameter", "model"), fields, file }
      }
      if (!models.includes(model)) {
        return result(
          404,
          openAiError(
            `The model \`${model}\` does not exist or you do not have access to it.`,
            "invalid_request_error",
            "model_not_found"
          )
        )
      }
      const language = param("language")
      if (language !== undefined && !/^[a-z]{2}$/.test(language)) {
        return {
          ...invalid(
            `Invalid language '${language}'. Language parameter must be specified in ISO-639-1 format.`,
            "language",
            "invalid_language_format"
          ),
          fields,
          file
        }
      }
      const format = param("response_format") ?? "json"
      if (!RESPONSE_FORMATS.includes(format)) {
        return { ...invalid(`Invalid response_format: ${format}`, "response_format"), fields, file }
      }
      if (format !== "json" && format !== "text") {
        return {
          ...invalid(`The fake answers response_format json or text, not ${format}`, "response_format"),
          fields,
          file
        }
      }
      const text = script[answered.length] ?? ""
      answered.push(text)
      if (format === "text") {
        return result(200, `${text}\n`)
      }
      const seconds = Math.ceil((file.wav?.durationMs ?? 1000) / 1000)
      const usage = model === "whisper-1"
        ? { type: "duration", seconds }
        : {
          type: "tokens",
          input_tokens: seconds * 10,
          input_token_details: { text_tokens: 0, audio_tokens: seconds * 10 },
          output_tokens: Math.max(1, Math.ceil(text.length / 4)),
          total_tokens: seconds * 10 + Math.max(1, Math.ceil(text.length / 4))
        }
      return result(200, { text, usage })
    }

    const respond = (response: http.ServerResponse, status: number, body: unknown) => {
      const text = typeof body === "string" ? body : JSON.stringify(body)
      response.writeHead(status, {
        "content-type": typeof body === "string" ? "text/plain; charset=utf-8" : "application/json",
        "content-length": Buffer.byteLength(text)
      })
      response.end(text)
    }

    const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
      const body = await readBytes(request)
      const method = request.method ?? "GET"
      const path = request.url ?? "/"
      const headers = headersOf(request)
      const fault = faults.shift()
      const answer = await transcribe(method, new URL(path, "http://localhost").pathname, headers, body)
      const record = (status: number) => {
        recorded.push({ method, path, headers, fields: answer.fields, file: answer.file, status })
        waiters.wake()
      }
      // a faulted request does not give its scripted text out: the next one gets it
      if (fault !== undefined && fault._tag !== "Delay" && answer.status === 200) {
        answered.pop()
      }
      if (fault?._tag === "Hang") return record(0)
      if (fault?._tag === "Reset") {
        record(0)
        return void request.socket.destroy()
      }
      if (fault?._tag === "Respond") {
        record(fault.status)
        return respond(response, fault.status, fault.body ?? defaultFaultBody(fault.status))
      }
      if (fault?._tag === "Delay") await sleep(fault.millis)
      record(answer.status)
      if (!response.destroyed) respond(response, answer.status, answer.body)
    }

    const port = yield* listen(
      httpServer(handle, (response, error) => respond(response, 500, openAiError(String(error), "server_error"))),
      wakeAll
    )

    const fake: FakeOpenAiTranscriptionServer = {
      url: `http://127.0.0.1:${port}/v1`,
      requests: () => recorded.slice(),
      answered: () => answered.slice(),
      fault: (fault) => void faults.push(fault),
      awaitRequests: (count, millis) =>
        waiters.until(`${count} request(s)`, () => recorded.length >= count, millis, () => `saw ${recorded.length}`)
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeOpenAiTranscription extends Context.Tag("Testing/FakeOpenAiTranscription")<
  FakeOpenAiTranscription,
  FakeOpenAiTranscriptionServer
>() {
  static readonly layer = (options: FakeOpenAiTranscriptionOptions = {}) =>
    Layer.scoped(FakeOpenAiTranscription, make(options))
}

import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import * as FakeTranscription from "@voiceagent/runner/Testing/FakeOpenAiTranscription"
import { concat, frames, mulawEncode, SAMPLE_RATE, writeWav } from "@voiceagent/runner/Voice/Audio"
import {
  isoLanguage,
  make,
  multipartBody,
  type OpenAiTranscriptionOptions,
  transcriptionFields,
  TranscriptionResponse
} from "@voiceagent/runner/Voice/OpenAiTranscription"
import {
  SpeechToTextError,
  type SttEvent,
  type SttOptions,
  type SttStream
} from "@voiceagent/runner/Voice/SpeechToText"
import { Effect, Exit, Queue, Redacted, Schema, TestClock } from "effect"

// ---------------------------------------------------------------------------
// Golden answers, as OpenAI documents them (platform.openai.com/docs/api-reference/audio/createTranscription,
// response_format json; usage by tokens for the gpt-4o models, by duration for whisper-1)
// ---------------------------------------------------------------------------

const GOLDEN = {
  tokens: {
    text: "Imagine the wildest idea that you've ever had, and you're curious about how it might scale to something " +
      "that's a 100, a 1,000 times bigger. This is a place where you can get to know the fellow students and " +
      "faculty.",
    usage: {
      type: "tokens",
      input_tokens: 14,
      input_token_details: { text_tokens: 0, audio_tokens: 14 },
      output_tokens: 45,
      total_tokens: 59
    }
  },
  duration: {
    text: "Imagine the wildest idea that you've ever had, and you're curious about how it might scale to something " +
      "that's a 100, a 1,000 times bigger. This is a place where you can get to know the fellow students and " +
      "faculty.",
    usage: { type: "duration", seconds: 9 }
  },
  error: {
    error: {
      message: "Incorrect API key provided",
      type: "invalid_request_error",
      param: null,
      code: "invalid_api_key"
    }
  }
} as const

/** Same keys, recursively, and the same value types (a null in the golden stands for a nullable string). */
const sameShape = (actual: unknown, golden: unknown, path = "$"): void => {
  if (golden === null || (typeof golden === "string" && actual === null)) {
    assert.isTrue(actual === null || typeof actual === "string", `${path}: expected a string or null`)
    return
  }
  if (golden !== null && typeof golden === "object") {
    assert.isTrue(actual !== null && typeof actual === "object", `${path}: expected an object`)
    assert.deepStrictEqual(Object.keys(actual as object).sort(), Object.keys(golden).sort(), `${path}: keys`)
    for (const [key, value] of Object.entries(golden)) {
      sameShape((actual as Record<string, unknown>)[key], value, `${path}.${key}`)
    }
    return
  }
  assert.strictEqual(typeof actual, typeof golden, `${path}: type`)
}

// ---------------------------------------------------------------------------
// Synthetic audio
// ---------------------------------------------------------------------------

const voiced = (ms: number, f0 = 150): Int16Array => {
  const pcm = new Int16Array((SAMPLE_RATE * ms) / 1000)
  for (let i = 0; i < pcm.length; i++) {
    let v = 0
    for (let h = 1; h <= 12; h++) v += Math.sin((2 * Math.PI * f0 * h * i) / SAMPLE_RATE) / h
    pcm[i] = Math.round(6000 * v)
  }
  return pcm
}
const silence = (ms: number) => new Int16Array((SAMPLE_RATE * ms) / 1000)
const ulaw = (...parts: ReadonlyArray<Int16Array>) => frames(concat(parts)).map(mulawEncode)
const pushAll = (stream: SttStream, audio: ReadonlyArray<Uint8Array>) =>
  Effect.sync(() => audio.forEach((frame) => stream.push(frame)))

type Item = SttEvent | SpeechToTextError

/** The next event; dies after 20 s of real time (the TestClock cannot time it out). */
const next = (stream: SttStream): Effect.Effect<Item> =>
  Effect.raceFirst(
    Queue.take(stream.events),
    Effect.async<never>((resume) => {
      const timer = setTimeout(() => resume(Effect.dieMessage("no event within 20 s")), 20_000)
      return Effect.sync(() => clearTimeout(timer))
    })
  )

const finalOf = (item: Item) => {
  assert.strictEqual(item._tag, "Final", JSON.stringify(item))
  const final = item as Extract<SttEvent, { _tag: "Final" }>
  return { text: final.text, speechFinal: final.speechFinal }
}

const errorOf = (item: Item) => {
  assert.instanceOf(item, SpeechToTextError, JSON.stringify(item))
  return item as SpeechToTextError
}

const openOn = (
  fake: FakeTranscription.FakeOpenAiTranscriptionServer,
  overrides: Partial<OpenAiTranscriptionOptions> = {},
  stt: Partial<SttOptions> = {}
) =>
  Effect.gen(function*() {
    const provider = yield* make({ baseUrl: fake.url, retryDelayMs: 0, ...overrides })
    return yield* provider.open({ language: "en", ...stt })
  })

const UTTERANCE = () => ulaw(silence(200), voiced(600), silence(200))

// ---------------------------------------------------------------------------

describe("OpenAI transcription contract", () => {
  it("reads the documented answers; the fields sent follow the reference", () => {
    for (const golden of [GOLDEN.tokens, GOLDEN.duration]) {
      assert.strictEqual(Schema.decodeUnknownSync(TranscriptionResponse)(golden).text, golden.text)
    }
    assert.strictEqual(isoLanguage("en-US"), "en")
    assert.strictEqual(isoLanguage("hi"), "hi")
    assert.strictEqual(isoLanguage("pt_BR"), "pt")
    assert.isUndefined(isoLanguage("multi"))
    assert.deepStrictEqual(transcriptionFields("whisper-1", { language: "en-GB" }), [
      ["model", "whisper-1"],
      ["language", "en"],
      ["response_format", "json"]
    ])
    assert.deepStrictEqual(
      transcriptionFields("whisper-1", {
        language: "multi",
        model: "gpt-4o-transcribe",
        keyterms: ["Acme", " ", "Zyxel"]
      }),
      [
        ["model", "gpt-4o-transcribe"],
        ["prompt", "Acme, Zyxel"],
        ["response_format", "json"]
      ]
    )
  })

  it.effect("encodes multipart bodies the platform's own parser reads back", () =>
    Effect.gen(function*() {
      const wav = writeWav(voiced(100))
      const { body, contentType } = multipartBody([["model", "whisper-1"], ["prompt", "Acme \"Corp\",\r\nZyxel"]], {
        name: "file",
        filename: "utterance.wav",
        type: "audio/wav",
        bytes: wav
      })
      assert.match(contentType, /^multipart\/form-data; boundary=----voiceagent-[0-9a-f-]{36}$/)
      const form = yield* Effect.promise(() =>
        new Response(body, { headers: { "content-type": contentType } }).formData()
      )
      assert.deepStrictEqual([form.get("model"), form.get("prompt")], ["whisper-1", "Acme \"Corp\",\r\nZyxel"])
      const file = form.get("file") as File
      assert.deepStrictEqual([file.name, file.type], ["utterance.wav", "audio/wav"])
      assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => file.arrayBuffer())), wav)
    }))

  it("the fake checks WAV headers strictly", () => {
    const wav = writeWav(voiced(200))
    const good = FakeTranscription.inspectWav(wav)
    assert.deepStrictEqual(good, {
      wav: { sampleRate: 8000, channels: 1, bitsPerSample: 16, durationMs: 200, loudMs: 200 }
    })
    const wrongSize = wav.slice()
    new DataView(wrongSize.buffer).setUint32(4, 12, true)
    assert.include((FakeTranscription.inspectWav(wrongSize) as { problem: string }).problem, "RIFF size")
    const wrongRate = wav.slice()
    new DataView(wrongRate.buffer).setUint32(28, 1234, true)
    assert.include((FakeTranscription.inspectWav(wrongRate) as { problem: string }).problem, "byte rate")
    assert.include((FakeTranscription.inspectWav(wav.slice(0, 100)) as { problem: string }).problem, "RIFF size")
    assert.include((FakeTranscription.inspectWav(new Uint8Array(60)) as { problem: string }).problem, "RIFF/WAVE")
  })
})

layer(NodeHttpClient.layerUndici)("OpenAiTranscription against the fake", (it) => {
  it.scoped("sends one multipart request per utterance with a WAV of what was pushed, and answers one final each", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["I'd like to book a table.", "For two, please."] })
      yield* TestClock.setTime(5_000)
      const stream = yield* openOn(fake)
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      const first = yield* next(stream)
      assert.deepStrictEqual(finalOf(first), { text: "I'd like to book a table.", speechFinal: true })
      assert.strictEqual((first as Extract<SttEvent, { _tag: "Final" }>).at, 5_000)

      const [request] = fake.requests()
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.path, "/v1/audio/transcriptions")
      assert.match(request!.headers["content-type"]!, /^multipart\/form-data; ?boundary=/)
      assert.isUndefined(request!.headers.authorization)
      assert.deepStrictEqual(request!.fields, [["model", "whisper-1"], ["language", "en"], ["response_format", "json"]])
      assert.deepStrictEqual(request!.file, {
        name: "utterance.wav",
        type: "audio/wav",
        bytes: 44 + 1000 * 16,
        wav: { sampleRate: 8000, channels: 1, bitsPerSample: 16, durationMs: 1000, loudMs: 600 }
      })

      // the next utterance is a new request with only its own audio
      yield* pushAll(stream, ulaw(voiced(400), silence(100)))
      yield* stream.finalize
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "For two, please.", speechFinal: true })
      assert.strictEqual(fake.requests()[1]!.file!.wav!.durationMs, 500)
    }))

  it.scoped("keeps silence to itself: finalize without speech sends nothing", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["Hello?"] })
      const stream = yield* openOn(fake)
      yield* stream.finalize
      yield* pushAll(stream, ulaw(silence(2000)))
      yield* stream.finalize
      // the next event is the next utterance's
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "Hello?", speechFinal: true })
      assert.lengthOf(fake.requests(), 1)
      assert.strictEqual(fake.requests()[0]!.file!.wav!.durationMs, 1000)
    }))

  it.scoped("the answers the fake gives have the documented shapes, and the adapter reads them", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["One.", "Two."] })
      const seen: Array<unknown> = []
      for (const model of ["whisper-1", "gpt-4o-transcribe"]) {
        const form = new FormData()
        form.append("file", new Blob([writeWav(voiced(500))], { type: "audio/wav" }), "a.wav")
        form.append("model", model)
        const response = yield* Effect.promise(() =>
          fetch(`${fake.url}/audio/transcriptions`, { method: "POST", body: form })
        )
        assert.strictEqual(response.status, 200)
        seen.push(yield* Effect.promise(() => response.json()))
      }
      sameShape(seen[0], GOLDEN.duration)
      sameShape(seen[1], GOLDEN.tokens)
      for (const answer of seen) Schema.decodeUnknownSync(TranscriptionResponse)(answer)
    }))

  it.scoped("an agent's model, language and keyterms reach the request; the base URL may end with a slash", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["Namaste."] })
      const stream = yield* openOn(fake, { baseUrl: `${fake.url}/` }, {
        language: "multi",
        model: "gpt-4o-mini-transcribe",
        keyterms: ["Acme"]
      })
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "Namaste.", speechFinal: true })
      assert.deepStrictEqual(fake.requests()[0]!.fields, [["model", "gpt-4o-mini-transcribe"], ["prompt", "Acme"], [
        "response_format",
        "json"
      ]])
    }))

  it.scoped("keeps at most maxUtteranceMs: a full buffer goes out as a final that is not speech-final", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["The first second", "and the rest.", "Again."] })
      const stream = yield* openOn(fake, { maxUtteranceMs: 1000 })
      yield* pushAll(stream, ulaw(voiced(1500)))
      yield* stream.finalize
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "The first second", speechFinal: false })
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "and the rest.", speechFinal: true })
      assert.deepStrictEqual(fake.requests().map((r) => r.file!.wav!.durationMs), [1000, 500])

      // a cut at the limit followed by silence still closes the utterance, without a request
      yield* pushAll(stream, ulaw(voiced(1000), silence(300)))
      yield* stream.finalize
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "Again.", speechFinal: false })
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "", speechFinal: true })
      assert.lengthOf(fake.requests(), 3)
    }))

  it.scoped("sends the key as a bearer token; a refused key is not retryable and stops the stream", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ apiKey: "sk-test", texts: ["Authorised."] })
      const good = yield* openOn(fake, { apiKey: Redacted.make("sk-test") })
      yield* pushAll(good, UTTERANCE())
      yield* good.finalize
      assert.deepStrictEqual(finalOf(yield* next(good)), { text: "Authorised.", speechFinal: true })
      assert.strictEqual(fake.requests()[0]!.headers.authorization, "Bearer sk-test")

      const bad = yield* openOn(fake, { apiKey: Redacted.make("sk-wrong") })
      yield* pushAll(bad, UTTERANCE())
      yield* bad.finalize
      const error = errorOf(yield* next(bad))
      assert.isFalse(error.retryable)
      assert.strictEqual(
        error.reason,
        `Transcription API at ${new URL(fake.url).host} answered 401: Incorrect API key provided (invalid_api_key)`
      )
      // not retried, and nothing more is sent
      yield* pushAll(bad, UTTERANCE())
      yield* bad.finalize
      assert.lengthOf(fake.requests(), 2)

      const none = yield* openOn(fake, { apiKey: Redacted.make("") })
      yield* pushAll(none, UTTERANCE())
      yield* none.finalize
      assert.isFalse(errorOf(yield* next(none)).retryable)
      assert.isUndefined(fake.requests()[2]!.headers.authorization)
    }))

  it.scoped("retries a 5xx or a reset once, then reports it retryable; the next utterance goes through", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["After a retry.", "Next one."] })
      const stream = yield* openOn(fake)
      fake.fault({ _tag: "Respond", status: 503 })
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "After a retry.", speechFinal: true })
      assert.deepStrictEqual(fake.requests().map((r) => r.status), [503, 200])

      fake.fault({ _tag: "Respond", status: 500 })
      fake.fault({ _tag: "Reset" })
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      const error = errorOf(yield* next(stream))
      assert.isTrue(error.retryable)
      assert.include(error.reason, "could not be reached")

      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      assert.deepStrictEqual(finalOf(yield* next(stream)), { text: "Next one.", speechFinal: true })
      assert.deepStrictEqual(fake.requests().map((r) => r.status), [503, 200, 500, 0, 200])
    }))

  it.scoped("an exhausted quota, an unknown model or a malformed answer is permanent and not retried", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["Unused."] })
      const stream = yield* openOn(fake)
      fake.fault({
        _tag: "Respond",
        status: 429,
        body: {
          error: {
            message: "You exceeded your current quota, please check your plan and billing details.",
            type: "insufficient_quota",
            param: null,
            code: "insufficient_quota"
          }
        }
      })
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      const quota = errorOf(yield* next(stream))
      assert.isFalse(quota.retryable)
      assert.include(quota.reason, "answered 429: You exceeded your current quota")

      fake.fault({ _tag: "Respond", status: 200, body: { transcript: "wrong field" } })
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      const malformed = errorOf(yield* next(stream))
      assert.isFalse(malformed.retryable)
      assert.include(malformed.reason, "malformed response")

      const unknown = yield* openOn(fake, { model: "whisper-9" })
      yield* pushAll(unknown, UTTERANCE())
      yield* unknown.finalize
      const model = errorOf(yield* next(unknown))
      assert.isFalse(model.retryable)
      assert.include(model.reason, "answered 404: The model `whisper-9` does not exist")
      assert.lengthOf(fake.requests(), 3)
    }))

  it.scoped("the fake refuses what the API refuses", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make()
      const post = (form: FormData | string, headers: Record<string, string> = {}) =>
        Effect.promise(async () => {
          const response = await fetch(`${fake.url}/audio/transcriptions`, { method: "POST", body: form, headers })
          return {
            status: response.status,
            body: (await response.json()) as { error: { message: string; code: string | null } }
          }
        })
      const form = (fields: Record<string, string>, file?: { bytes: Uint8Array; name: string }) => {
        const data = new FormData()
        if (file !== undefined) data.append("file", new Blob([file.bytes]), file.name)
        for (const [key, value] of Object.entries(fields)) data.append(key, value)
        return data
      }
      const wav = { bytes: writeWav(voiced(300)), name: "a.wav" }
      const cases: ReadonlyArray<readonly [FormData | string, number, string]> = [
        [form({ model: "whisper-1" }), 400, "you must provide a file"],
        [form({ model: "whisper-1" }, { bytes: wav.bytes, name: "a.aiff" }), 400, "Invalid file format"],
        [form({ model: "whisper-1" }, { bytes: wav.bytes.slice(0, 200), name: "a.wav" }), 400, "corrupted"],
        [form({ model: "whisper-1" }, { bytes: writeWav(voiced(40)), name: "a.wav" }), 400, "too short"],
        [form({}, wav), 400, "you must provide a model"],
        [form({ model: "whisper-2" }, wav), 404, "does not exist"],
        [form({ model: "whisper-1", language: "en-US" }, wav), 400, "ISO-639-1"],
        [form({ model: "whisper-1", response_format: "srt" }, wav), 400, "json or text"]
      ]
      for (const [body, status, message] of cases) {
        const answer = yield* post(body)
        assert.strictEqual(answer.status, status, message)
        assert.include(answer.body.error.message, message)
        sameShape(answer.body, GOLDEN.error)
      }
      const notMultipart = yield* post("{}", { "content-type": "application/json" })
      assert.strictEqual(notMultipart.status, 400)
      const broken = yield* post("--x\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1", {
        "content-type": "multipart/form-data; boundary=x"
      })
      assert.strictEqual(broken.status, 400)
      assert.include(broken.body.error.message, "multipart")
      assert.lengthOf(fake.answered(), 0)
    }))

  it.effect("refuses configuration it cannot use", () =>
    Effect.gen(function*() {
      for (
        const options of [
          { baseUrl: "ftp://x/v1" },
          { baseUrl: "nonsense" },
          { timeoutMs: 0 },
          { maxUtteranceMs: 10 },
          { retries: -1 }
        ]
      ) {
        const exit = yield* Effect.exit(make({ baseUrl: "http://localhost:8000/v1", ...options }))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(options))
      }
      assert.strictEqual((yield* make({ baseUrl: "http://localhost:8000/v1" })).name, "openai")
    }))
})

describe("OpenAiTranscription on the real clock", () => {
  it.scopedLive("gives up on a slow server after timeoutMs, retryably", () =>
    Effect.gen(function*() {
      const fake = yield* FakeTranscription.make({ texts: ["Too late.", "In time."] })
      const stream = yield* openOn(fake, { timeoutMs: 200, retries: 0 })
      fake.fault({ _tag: "Delay", millis: 1500 })
      const started = Date.now()
      yield* pushAll(stream, UTTERANCE())
      yield* stream.finalize
      const error = errorOf(yield* next(stream))
      assert.isTrue(error.retryable)
      assert.strictEqual(error.reason, `Transcription API at ${new URL(fake.url).host} timed out after 0.2 s`)
      assert.isAtLeast(Date.now() - started, 190)
      assert.isBelow(Date.now() - started, 1400)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

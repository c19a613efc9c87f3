import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import {
  type FakeOpenAiSpeechOptions,
  type FakeOpenAiSpeechServer,
  make as makeFake,
  OPENAI_SPEECH_SAMPLE_RATE
} from "@voiceagent/runner/Testing/FakeOpenAiSpeech"
import { fakeSpeechMs } from "@voiceagent/runner/Testing/FakeVoice"
import { durationMs } from "@voiceagent/runner/Voice/Audio"
import { make, makeDecimator, type OpenAiSpeechOptions, speechRequestBody } from "@voiceagent/runner/Voice/OpenAiSpeech"
import type { SpeechPart, TextToSpeechError } from "@voiceagent/runner/Voice/TextToSpeech"
import { Chunk, Effect, Redacted, Stream } from "effect"

const API_KEY = "sk-test-speech-0123456789"
const TEXT = "Your table for four is booked at seven tonight."

// The request example of the API reference (https://platform.openai.com/docs/api-reference/audio/createSpeech),
// asking for pcm as this adapter does.
const GOLDEN_REQUEST = {
  model: "gpt-4o-mini-tts",
  input: "The quick brown fox jumped over the lazy dog.",
  voice: "alloy",
  response_format: "pcm"
}

const tone = (hz: number, samples: number, rate: number, amplitude = 8_000) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)))

const rms = (pcm: ArrayLike<number>, from = 0, to = pcm.length) => {
  let sum = 0
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!
  return Math.sqrt(sum / Math.max(1, to - from))
}

const concat = (pieces: ReadonlyArray<Int16Array>) => {
  const out = new Int16Array(pieces.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const piece of pieces) {
    out.set(piece, at)
    at += piece.length
  }
  return out
}

/** The fake's 24 kHz audio for `text`, through a decimator in one piece: what the adapter must produce. */
const expected8k = (fake: FakeOpenAiSpeechServer, text: string, speed?: number) => {
  const decimator = makeDecimator(3)
  return concat([decimator.push(fake.pcmFor(text, speed)), decimator.flush()])
}

const collect = (stream: Stream.Stream<SpeechPart, TextToSpeechError>) =>
  Effect.map(Stream.runCollect(stream), (chunk) => {
    const parts = Chunk.toReadonlyArray(chunk)
    return { parts, pcm: concat(parts.flatMap((part) => (part._tag === "Audio" ? [part.pcm] : []))) }
  })

const withFake = (options: FakeOpenAiSpeechOptions = {}) => makeFake({ apiKey: API_KEY, ...options })

const sessionFor = (fake: FakeOpenAiSpeechServer, overrides: Partial<OpenAiSpeechOptions> = {}, voice = "") =>
  Effect.flatMap(
    make({ baseUrl: fake.url, apiKey: Redacted.make(API_KEY), ...overrides }),
    (provider) => provider.open({ voice })
  )

describe("streaming decimation to 8 kHz", () => {
  it("keeps the telephone band, removes what would alias, and lines up with the input", () => {
    const decimator = makeDecimator(3)
    const in1k = tone(1_000, 24_000, 24_000)
    const out = concat([decimator.push(in1k), decimator.flush()])
    assert.strictEqual(out.length, 8_000)
    const reference = tone(1_000, 8_000, 8_000)
    // the middle (away from the edges) matches a 1 kHz tone made at 8 kHz, sample for sample, closely
    let error = 0
    for (let i = 200; i < 7_800; i++) error = Math.max(error, Math.abs(out[i]! - reference[i]!))
    assert.isBelow(error, 80)
    const passband = makeDecimator(3)
    const at3k = concat([passband.push(tone(3_000, 24_000, 24_000)), passband.flush()])
    assert.isAbove(rms(at3k, 200, 7_800), 0.85 * rms(reference))
    const stop = makeDecimator(3)
    const at5k = concat([stop.push(tone(5_000, 24_000, 24_000)), stop.flush()])
    assert.isBelow(rms(at5k, 200, 7_800), rms(reference) / 1_000, "a 5 kHz tone is at least 60 dB down")
  })

  it("gives the same samples however the input is cut, and ⌈n/3⌉ of them", () => {
    const input = Int16Array.from({ length: 10_001 }, (_, i) => Math.round(9_000 * Math.sin(i / 7) * Math.cos(i / 131)))
    const whole = makeDecimator(3)
    const once = concat([whole.push(input), whole.flush()])
    assert.strictEqual(once.length, Math.ceil(10_001 / 3))
    for (const size of [1, 2, 7, 160, 4_801]) {
      const pieces = makeDecimator(3)
      const out: Array<Int16Array> = []
      for (let at = 0; at < input.length; at += size) out.push(pieces.push(input.subarray(at, at + size)))
      out.push(pieces.flush())
      assert.deepStrictEqual(concat(out), once, `pieces of ${size}`)
    }
    assert.deepStrictEqual(makeDecimator(1).push(input), input)
  })
})

describe("the request (golden example from the API reference)", () => {
  it("is the documented body", () => {
    assert.deepStrictEqual(
      speechRequestBody({ model: "gpt-4o-mini-tts", input: GOLDEN_REQUEST.input, voice: "alloy" }),
      GOLDEN_REQUEST
    )
    assert.deepStrictEqual(
      speechRequestBody({
        model: "gpt-4o-mini-tts",
        input: "Hi",
        voice: "coral",
        instructions: "Speak warmly.",
        speed: 1.25
      }),
      {
        model: "gpt-4o-mini-tts",
        input: "Hi",
        voice: "coral",
        response_format: "pcm",
        instructions: "Speak warmly.",
        speed: 1.25
      }
    )
  })
})

layer(NodeHttpClient.layerUndici)("OpenAiSpeech against the fake", (it) => {
  it.scoped(
    "the fake answers the documented example with 24 kHz pcm of the text's length, and refuses what the API refuses",
    () =>
      Effect.gen(function*() {
        const fake = yield* withFake()
        const post = (body: unknown, auth = `Bearer ${API_KEY}`) =>
          Effect.promise(() =>
            fetch(`${fake.url}/audio/speech`, {
              method: "POST",
              headers: { authorization: auth, "content-type": "application/json" },
              body: JSON.stringify(body)
            }).then(async (response) => ({
              status: response.status,
              bytes: new Uint8Array(await response.arrayBuffer())
            }))
          )
        const golden = yield* post(GOLDEN_REQUEST)
        assert.strictEqual(golden.status, 200)
        assert.strictEqual(
          golden.bytes.length / 2,
          (fakeSpeechMs(GOLDEN_REQUEST.input) * OPENAI_SPEECH_SAMPLE_RATE) / 1_000
        )
        const refused = [
          [{ ...GOLDEN_REQUEST, model: "tts-2" }, 404],
          [{ ...GOLDEN_REQUEST, voice: "bob" }, 400],
          [{ ...GOLDEN_REQUEST, input: "" }, 400],
          [{ ...GOLDEN_REQUEST, input: "x".repeat(4097) }, 400],
          [{ ...GOLDEN_REQUEST, speed: 5 }, 400],
          [{ ...GOLDEN_REQUEST, model: "tts-1", instructions: "Whisper." }, 400],
          [{ ...GOLDEN_REQUEST, response_format: "mp3" }, 400],
          [{ ...GOLDEN_REQUEST, stream_format: "sse" }, 400]
        ] as const
        for (const [body, status] of refused) {
          assert.strictEqual((yield* post(body)).status, status, JSON.stringify(body).slice(0, 80))
        }
        assert.strictEqual((yield* post(GOLDEN_REQUEST, "Bearer wrong")).status, 401)
        assert.strictEqual((yield* post({ ...GOLDEN_REQUEST, voice: { id: "voice_1234" } })).status, 200)
      })
  )

  it.scoped("posts the documented request and streams 8 kHz audio as long as the text, in several parts", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const session = yield* sessionFor(fake)
      const { parts, pcm } = yield* collect(session.synthesize(TEXT))
      assert.isAbove(parts.length, 3, "streamed, not in one piece")
      assert.isTrue(parts.every((part) => part._tag === "Audio"), "no word timings")
      assert.strictEqual(durationMs(pcm.length), fakeSpeechMs(TEXT))
      assert.deepStrictEqual(pcm, expected8k(fake, TEXT), "resampled in pieces exactly as in one piece")

      const [request] = fake.requests()
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(new URL(request!.path, "http://x").pathname, "/v1/audio/speech")
      assert.strictEqual(request!.headers.authorization, `Bearer ${API_KEY}`)
      assert.strictEqual(request!.headers["content-type"], "application/json")
      assert.deepStrictEqual(request!.body, {
        model: "gpt-4o-mini-tts",
        input: TEXT,
        voice: "alloy",
        response_format: "pcm"
      })
    }))

  it.scoped("takes the session's voice and model, and the provider's instructions and speed", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const provider = yield* make({
        baseUrl: fake.url,
        apiKey: Redacted.make(API_KEY),
        voice: "nova",
        instructions: "Calm.",
        speed: 1.5
      })
      const byDefault = yield* provider.open({ voice: "" })
      const chosen = yield* provider.open({ voice: "coral", model: "gpt-4o-mini-tts-2025-12-15" })
      const fast = yield* collect(byDefault.synthesize("Hello."))
      yield* collect(chosen.synthesize("Hello."))
      const [first, second] = fake.requests().map((request) => request.body as Record<string, unknown>)
      assert.deepStrictEqual(first, {
        model: "gpt-4o-mini-tts",
        input: "Hello.",
        voice: "nova",
        response_format: "pcm",
        instructions: "Calm.",
        speed: 1.5
      })
      assert.strictEqual(second!.voice, "coral")
      assert.strictEqual(second!.model, "gpt-4o-mini-tts-2025-12-15")
      assert.approximately(durationMs(fast.pcm.length), fakeSpeechMs("Hello.") / 1.5, 1)
    }))

  it.scoped("says nothing for an empty text, and refuses one over 4096 characters without asking", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const session = yield* sessionFor(fake)
      assert.deepStrictEqual((yield* collect(session.synthesize("  "))).parts, [])
      const tooLong = yield* Effect.flip(collect(session.synthesize("a".repeat(4097))))
      assert.isFalse(tooLong.retryable)
      assert.strictEqual(fake.requests().length, 0)
    }))

  it.scoped(
    "maps each failure: auth, bad requests and exhausted quota are permanent; limits, 5xx and resets retryable",
    () =>
      Effect.gen(function*() {
        const fake = yield* withFake()
        const session = yield* sessionFor(fake)
        const fail = () => Effect.flip(collect(session.synthesize(TEXT)))

        const wrongKey = yield* Effect.flip(
          collect((yield* sessionFor(fake, { apiKey: Redacted.make("sk-wrong") })).synthesize(TEXT))
        )
        assert.isFalse(wrongKey.retryable)
        assert.match(wrongKey.reason, /answered 401: Incorrect API key provided \(invalid_api_key\)/)
        const noKey = yield* Effect.flip(collect((yield* sessionFor(fake, { apiKey: undefined })).synthesize(TEXT)))
        assert.isFalse(noKey.retryable)
        assert.isUndefined(fake.requests().at(-1)!.headers.authorization)

        const badVoice = yield* Effect.flip(collect((yield* sessionFor(fake, {}, "bob")).synthesize(TEXT)))
        assert.isFalse(badVoice.retryable)
        assert.match(badVoice.reason, /answered 400: Invalid value/)
        const badModel = yield* Effect.flip(collect((yield* sessionFor(fake, { model: "tts-9" })).synthesize(TEXT)))
        assert.isFalse(badModel.retryable)
        assert.match(badModel.reason, /404.*model_not_found/)

        for (const status of [408, 409, 429, 500, 503]) {
          fake.fault({ _tag: "Respond", status })
          const error = yield* fail()
          assert.isTrue(error.retryable, `${status}`)
          assert.match(error.reason, new RegExp(`answered ${status}`))
        }
        fake.fault({
          _tag: "Respond",
          status: 429,
          body: {
            error: {
              message: "You exceeded your current quota",
              type: "insufficient_quota",
              code: "insufficient_quota"
            }
          }
        })
        assert.isFalse((yield* fail()).retryable)
        fake.fault({
          _tag: "Respond",
          status: 403,
          body: { error: { message: "Country not supported", code: "unsupported_country_region_territory" } }
        })
        assert.isFalse((yield* fail()).retryable)

        fake.fault({ _tag: "Reset" })
        const reset = yield* fail()
        assert.isTrue(reset.retryable)
        assert.match(reset.reason, /could not be reached/)

        // a reset part way through: the audio before it came first, then a retryable failure
        fake.fault({ _tag: "ResetMidStream", afterBytes: 24_000 })
        const parts: Array<SpeechPart> = []
        const midway = yield* Effect.flip(
          Stream.runForEach(session.synthesize(TEXT), (part) => Effect.sync(() => parts.push(part)))
        )
        assert.isTrue(midway.retryable)
        assert.match(midway.reason, /broke off the audio/)
        assert.isAbove(parts.length, 0)

        const after = yield* collect(session.synthesize(TEXT))
        assert.strictEqual(durationMs(after.pcm.length), fakeSpeechMs(TEXT), "the next text is whole again")
      })
  )

  it.scoped("interrupting the stream abandons the request: the fake sees the client go", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ chunkIntervalMillis: 20 })
      const session = yield* sessionFor(fake)
      const first = yield* Stream.runCollect(Stream.take(session.synthesize(TEXT.repeat(4)), 1))
      assert.strictEqual(Chunk.size(first), 1)
      yield* fake.awaitSettled(1)
      assert.strictEqual(fake.abandoned(), 1)
      assert.strictEqual(fake.completed(), 0)
    }))
})
describe("OpenAiSpeech, on the real clock", () => {
  it.scopedLive("waits timeoutMillis for an answer, then gives up retryably", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const session = yield* sessionFor(fake, { timeoutMillis: 300 })
      fake.fault({ _tag: "Hang" })
      const started = Date.now()
      const hung = yield* Effect.flip(collect(session.synthesize(TEXT)))
      assert.isTrue(hung.retryable)
      assert.match(hung.reason, /did not answer within 0.3 s/)
      assert.isAtLeast(Date.now() - started, 290)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scopedLive("a stall in the middle of the audio is a retryable failure after timeoutMillis", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ chunkIntervalMillis: 1_000 })
      const session = yield* sessionFor(fake, { timeoutMillis: 300 })
      const stalled = yield* Effect.flip(collect(session.synthesize(TEXT)))
      assert.isTrue(stalled.retryable)
      assert.match(stalled.reason, /sent no audio for 0.3 s/)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scopedLive("the first audio comes after the fake's time to first byte", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ ttfbMillis: 150 })
      const session = yield* sessionFor(fake)
      const started = Date.now()
      yield* Stream.runHead(session.synthesize(TEXT))
      assert.isAtLeast(Date.now() - started, 140)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

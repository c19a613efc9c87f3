import { assert, describe, it } from "@effect/vitest"
import {
  FAKE_ELEVENLABS_API_KEY,
  type FakeElevenLabsOptions,
  type FakeElevenLabsServer,
  make as makeFake
} from "@voiceagent/runner/Testing/FakeElevenLabs"
import { fakeSpeech, fakeSpeechMs, fakeWordEndsMs } from "@voiceagent/runner/Testing/FakeVoice"
import { durationMs, mulawDecode, mulawEncode, SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import {
  charTimeline,
  contextMessages,
  type ElevenLabsOptions,
  make,
  multiStreamUrl,
  parseServerMessage
} from "@voiceagent/runner/Voice/ElevenLabsTts"
import type { SpeechPart, TextToSpeechError, TtsSession } from "@voiceagent/runner/Voice/TextToSpeech"
import { Chunk, Effect, Fiber, Redacted, Stream } from "effect"
import WebSocket from "ws"

const VOICE = "21m00Tcm4TlvDq8ikWAM"
const TEXT = "Your table for four is booked at seven tonight."

// Golden messages: the multi-context example of ElevenLabs' AsyncAPI spec (elevenlabs/elevenlabs-docs
// fern/apis/api/asyncapi.yml, channel /v1/text-to-speech/{voice_id}/multi-stream-input), verbatim.
const DOCS_CLIENT_MESSAGES = [
  { text: " ", voice_settings: { stability: 0.5, similarity_boost: 0.8 }, context_id: "conv_1" },
  { text: "Hello from conversation one. ", context_id: "conv_1" },
  { text: "This is added to the buffer of text to flush. ", context_id: "conv_1", flush: true },
  {
    text: "Hi this is a new context with different settings! ",
    context_id: "interruption_context",
    voice_settings: { stability: 0.2, similarity_boost: 0.9 }
  },
  { context_id: "conv_1", close_context: true },
  { context_id: "interruption_context", flush: true },
  { context_id: "interruption_context", text: "" },
  { close_socket: true }
] as const
const DOCS_AUDIO_OUTPUT = {
  audio: "Y3VyaW91cyBtaW5kcyB0aGluayBhbGlrZSA6KQ==",
  is_final: false,
  normalizedAlignment: {
    charStartTimesMs: [0, 3, 7, 9, 11, 12, 13, 15, 17, 19, 21],
    charsDurationsMs: [3, 4, 2, 2, 1, 1, 2, 2, 2, 2, 3],
    chars: ["H", "e", "l", "l", "o", " ", "w", "o", "r", "l", "d"]
  },
  alignment: {
    charStartTimesMs: [0, 3, 7, 9, 11, 12, 13, 15, 17, 19, 21],
    charsDurationsMs: [3, 4, 2, 2, 1, 1, 2, 2, 2, 2, 3],
    chars: ["H", "e", "l", "l", "o", " ", "w", "o", "r", "l", "d"]
  },
  contextId: "conv_1"
}
const DOCS_FINAL_OUTPUT = { is_final: true, contextId: "interruption_context" }
// The AsyncAPI schemas' own field names for the same messages (AudioOutputMulti, FinalOutputMulti).
const SCHEMA_AUDIO_KEYS = ["alignment", "audio", "contextId", "isFinal", "normalizedAlignment"]
const SCHEMA_FINAL_KEYS = ["contextId", "isFinal"]

interface Spoken {
  readonly parts: ReadonlyArray<SpeechPart>
  readonly pcm: Int16Array
  readonly wordEndsMs: ReadonlyArray<number> | undefined
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

const spoken = (parts: ReadonlyArray<SpeechPart>): Spoken => {
  const words = parts.find((part) => part._tag === "Words")
  return {
    parts,
    pcm: concat(parts.flatMap((part) => (part._tag === "Audio" ? [part.pcm] : []))),
    wordEndsMs: words?._tag === "Words" ? words.wordEndsMs : undefined
  }
}

const collect = (stream: Stream.Stream<SpeechPart, TextToSpeechError>) =>
  Effect.map(Stream.runCollect(stream), (chunk) => spoken(Chunk.toReadonlyArray(chunk)))

const rms = (pcm: Int16Array, fromMs: number, toMs: number) => {
  const from = Math.round((fromMs * SAMPLE_RATE) / 1_000)
  const to = Math.min(pcm.length, Math.round((toMs * SAMPLE_RATE) / 1_000))
  let sum = 0
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!
  return Math.sqrt(sum / Math.max(1, to - from))
}

const withFake = (options: FakeElevenLabsOptions = {}) => makeFake(options)

const sessionFor = (
  fake: FakeElevenLabsServer,
  overrides: Partial<ElevenLabsOptions> = {},
  voice = VOICE,
  language?: string
) =>
  Effect.flatMap(
    make({ url: fake.url, apiKey: Redacted.make(fake.apiKey), ...overrides }),
    (provider) => provider.open({ voice, language })
  )

/** What the fake's voice sounds like after the μ-law round trip the wire imposes. */
const overTheWire = (text: string) => mulawDecode(mulawEncode(fakeSpeech(text, SAMPLE_RATE)))

const contextIds = (fake: FakeElevenLabsServer) => fake.contexts().map((context) => context.id)

describe("the protocol's golden messages (ElevenLabs' AsyncAPI example)", () => {
  it("sends a text as the documented flush and close messages", () => {
    const [flush, close] = contextMessages("conv_1", "This is added to the buffer of text to flush.")
    assert.deepStrictEqual(flush, DOCS_CLIENT_MESSAGES[2])
    assert.deepStrictEqual(close, DOCS_CLIENT_MESSAGES[4])
    assert.deepStrictEqual(contextMessages("c", "  Hi there \n", { stability: 0.5, similarity_boost: 0.8 })[0], {
      text: "Hi there ",
      context_id: "c",
      flush: true,
      voice_settings: { stability: 0.5, similarity_boost: 0.8 }
    })
  })

  it("reads the documented audio and final messages, in both spellings, into audio and word ends", () => {
    const audio = parseServerMessage(DOCS_AUDIO_OUTPUT)
    assert.strictEqual(audio.contextId, "conv_1")
    assert.deepStrictEqual([...audio.audio!], [...Buffer.from("curious minds think alike :)")])
    assert.isFalse(audio.isFinal)
    assert.deepStrictEqual(audio.alignment!.charDurationsMs, DOCS_AUDIO_OUTPUT.alignment.charsDurationsMs)
    const timeline = charTimeline()
    timeline.add(audio.normalizedAlignment!, 0)
    assert.deepStrictEqual(timeline.wordEnds(), [12, 24], "'Hello' ends with its o at 11+1, 'world' with its d at 21+3")

    assert.isTrue(parseServerMessage(DOCS_FINAL_OUTPUT).isFinal)
    assert.strictEqual(parseServerMessage(DOCS_FINAL_OUTPUT).contextId, "interruption_context")
    const camel = parseServerMessage({ isFinal: true, context_id: "x" })
    assert.deepStrictEqual([camel.isFinal, camel.contextId], [true, "x"])
    const error = parseServerMessage({ message: "Invalid API key", error: "invalid_api_key", code: 1008 })
    assert.strictEqual(error.error, "invalid_api_key: Invalid API key: 1008")
  })

  it("offsets each message's character times by the audio before it, unless they already continue", () => {
    const relative = charTimeline()
    relative.add({
      chars: ["H", "i", " ", "y"],
      charStartTimesMs: [0, 60, 120, 180],
      charDurationsMs: [60, 60, 60, 60]
    }, 0)
    relative.add({
      chars: ["o", "u", " ", "a", "l", "l"],
      charStartTimesMs: [0, 60, 120, 180, 240, 300],
      charDurationsMs: [60, 60, 60, 60, 60, 60]
    }, 240)
    assert.deepStrictEqual(relative.wordEnds(), [120, 360, 600], "'you' spans two messages")
    const continuing = charTimeline()
    continuing.add({
      chars: ["H", "i", " ", "y"],
      charStartTimesMs: [0, 60, 120, 180],
      charDurationsMs: [60, 60, 60, 60]
    }, 0)
    continuing.add({ chars: ["o", "u"], charStartTimesMs: [240, 300], charDurationsMs: [60, 60] }, 240)
    assert.deepStrictEqual(continuing.wordEnds(), [120, 360])
  })

  it("builds the documented socket address", () => {
    assert.strictEqual(
      multiStreamUrl("wss://api.elevenlabs.io", {
        voice: VOICE,
        model: "eleven_flash_v2_5",
        inactivityTimeoutSeconds: 180,
        language: "en"
      }),
      `wss://api.elevenlabs.io/v1/text-to-speech/${VOICE}/multi-stream-input?model_id=eleven_flash_v2_5&output_format` +
        `=ulaw_8000&sync_alignment=true&inactivity_timeout=180&language_code=en`
    )
  })

  it.scoped("the fake takes the docs' whole example conversation and answers in the documented shapes", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const messages = yield* Effect.async<ReadonlyArray<Record<string, unknown>>>((resume) => {
        const socket = new WebSocket(
          `${fake.url}/v1/text-to-speech/${VOICE}/multi-stream-input?model_id=eleven_flash_v2_5&output_format` +
            `=ulaw_8000`,
          {
            headers: { "xi-api-key": FAKE_ELEVENLABS_API_KEY }
          }
        )
        const received: Array<Record<string, unknown>> = []
        socket.on("open", () => DOCS_CLIENT_MESSAGES.forEach((message) => socket.send(JSON.stringify(message))))
        socket.on("message", (data) => received.push(JSON.parse(String(data))))
        socket.on("close", () => resume(Effect.succeed(received)))
      })
      assert.deepStrictEqual(fake.violations(), [])
      const audio = messages.filter((message) => message.audio !== undefined)
      const finals = messages.filter((message) => message.isFinal === true)
      assert.isAbove(audio.length, 2)
      for (const message of audio) {
        assert.deepStrictEqual(Object.keys(message).sort(), SCHEMA_AUDIO_KEYS)
        assert.deepStrictEqual(Object.keys(message.normalizedAlignment as object).sort(), [
          "charDurationsMs",
          "charStartTimesMs",
          "chars"
        ])
        assert.isDefined(parseServerMessage(message).alignment)
      }
      for (const message of finals) assert.deepStrictEqual(Object.keys(message).sort(), SCHEMA_FINAL_KEYS)
      assert.deepStrictEqual(finals.map((message) => message.contextId).sort(), ["conv_1", "interruption_context"])
      assert.strictEqual(
        fake.context("conv_1")!.audioMs,
        fakeSpeechMs("Hello from conversation one. This is added to the buffer of text to flush. "),
        "close_context speaks what was sent"
      )
    }))

  it.scoped("the fake refuses a wrong key, path, format or model at the handshake", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const handshake = (path: string, key = FAKE_ELEVENLABS_API_KEY) =>
        Effect.async<number>((resume) => {
          const socket = new WebSocket(`${fake.url}${path}`, { headers: { "xi-api-key": key } })
          socket.on("open", () => {
            socket.close()
            resume(Effect.succeed(101))
          })
          socket.on("unexpected-response", (_, response) => resume(Effect.succeed(response.statusCode ?? 0)))
          socket.on("error", () => undefined)
        })
      const ok = `/v1/text-to-speech/${VOICE}/multi-stream-input?model_id=eleven_flash_v2_5&output_format=ulaw_8000`
      assert.strictEqual(yield* handshake(ok), 101)
      assert.strictEqual(yield* handshake(ok, "wrong"), 401)
      assert.strictEqual(yield* handshake(`/v1/text-to-speech/${VOICE}/stream-input?output_format=ulaw_8000`), 404)
      assert.strictEqual(yield* handshake(ok.replace("ulaw_8000", "mp3_44100_128")), 400)
      assert.strictEqual(yield* handshake(ok.replace("eleven_flash_v2_5", "eleven_v3")), 400)
    }))
})

describe("ElevenLabs against the fake", () => {
  it.scoped("speaks a text: μ-law audio as long as the text as it comes, then word ends that fit the audio", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const session = yield* sessionFor(fake)
      const { parts, pcm, wordEndsMs } = yield* collect(session.synthesize(TEXT))
      assert.isAbove(parts.length, 4)
      assert.strictEqual(parts.at(-1)!._tag, "Words", "the word timings come last")
      assert.isTrue(parts.slice(0, -1).every((part) => part._tag === "Audio"))
      assert.strictEqual(durationMs(pcm.length), fakeSpeechMs(TEXT))
      assert.deepStrictEqual(pcm, overTheWire(TEXT))

      assert.deepStrictEqual(wordEndsMs, fakeWordEndsMs(TEXT))
      assert.strictEqual(wordEndsMs!.length, TEXT.split(" ").length)
      for (let i = 1; i < wordEndsMs!.length; i++) assert.isAbove(wordEndsMs![i]!, wordEndsMs![i - 1]!)
      assert.strictEqual(wordEndsMs!.at(-1), durationMs(pcm.length))
      // each word's audio is voiced up to its end, and the space after it is silent
      for (const end of wordEndsMs!.slice(0, -1)) {
        assert.isAbove(rms(pcm, end - 50, end - 10), 1_000)
        assert.isBelow(rms(pcm, end + 5, end + 55), 50)
      }

      const [connection] = fake.connections()
      assert.strictEqual(connection!.voiceId, VOICE)
      assert.deepStrictEqual(connection!.query, {
        model_id: "eleven_flash_v2_5",
        output_format: "ulaw_8000",
        sync_alignment: "true",
        inactivity_timeout: "180"
      })
      assert.strictEqual(connection!.headers["xi-api-key"], fake.apiKey)
      const [id] = contextIds(fake)
      assert.deepStrictEqual(fake.received().map((r) => r.message), [
        { text: `${TEXT} `, context_id: id, flush: true },
        { context_id: id, close_context: true }
      ])
      assert.deepStrictEqual(fake.violations(), [])
    }))

  it.scoped("one socket for the session, one context per text; word ends whichever way the server counts", () =>
    Effect.gen(function*() {
      for (const alignment of ["chunk", "cumulative"] as const) {
        const fake = yield* withFake({ alignment, charsPerChunk: 5 })
        const session = yield* sessionFor(fake, {}, VOICE, "en-US")
        const texts = ["Hello there.", "Thursday at nine works for me.", "Bye now."]
        for (const text of texts) {
          const { pcm, wordEndsMs } = yield* collect(session.synthesize(text))
          assert.strictEqual(durationMs(pcm.length), fakeSpeechMs(text))
          assert.deepStrictEqual(wordEndsMs, fakeWordEndsMs(text), `${alignment}: ${text}`)
        }
        assert.strictEqual(fake.connections().length, 1)
        assert.strictEqual(fake.connections()[0]!.query.language_code, "en")
        assert.strictEqual(new Set(contextIds(fake)).size, 3)
        assert.deepStrictEqual(fake.violations(), [])
      }
    }))

  it.scoped("texts in parallel each get their own audio; a sixth waits for one of five contexts to end", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ chunkIntervalMillis: 2 })
      const session = yield* sessionFor(fake)
      const texts = Array.from({ length: 8 }, (_, i) => `Sentence number ${i} ${"is long ".repeat(i)}enough.`)
      const results = yield* Effect.all(texts.map((text) => collect(session.synthesize(text))), {
        concurrency: "unbounded"
      })
      results.forEach((result, i) => {
        assert.deepStrictEqual(result.pcm, overTheWire(texts[i]!))
        assert.deepStrictEqual(result.wordEndsMs, fakeWordEndsMs(texts[i]!))
      })
      assert.strictEqual(fake.connections().length, 1)
      assert.deepStrictEqual(fake.violations(), [], "never a sixth context at once")
    }))

  it.scoped(
    "interrupted mid-text: nothing more surfaces nor is sent, the server's rest is dropped, the socket goes on",
    () =>
      Effect.gen(function*() {
        const fake = yield* withFake({ chunkIntervalMillis: 15, charsPerChunk: 4 })
        const session = yield* sessionFor(fake)
        const surfaced: Array<SpeechPart> = []
        const long = "This is a long answer that the caller is going to interrupt before it ends."
        // take the first audio part, then stop listening (what a barge-in does)
        yield* Stream.runDrain(
          session.synthesize(long).pipe(Stream.tap((part) => Effect.sync(() => surfaced.push(part))), Stream.take(1))
        )
        const [id] = contextIds(fake)
        yield* fake.awaitContextDone(id!)
        const context = fake.context(id!)!
        assert.strictEqual(surfaced.length, 1)
        assert.isAbove(context.audioMessages, 5, "the server went on speaking what it had been sent")
        assert.isTrue(context.finalSent)
        assert.strictEqual(
          context.closeAfterChunks,
          0,
          "the context was closed with its text: no message is needed after"
        )
        assert.deepStrictEqual(fake.received().map((r) => r.message), [
          { text: `${long} `, context_id: id, flush: true },
          { context_id: id, close_context: true }
        ])
        const next = yield* collect(session.synthesize("Sorry, go ahead."))
        assert.deepStrictEqual(next.pcm, overTheWire("Sorry, go ahead."), "only the new context's audio")
        assert.strictEqual(surfaced.length, 1, "no late audio of the interrupted text surfaced")
        assert.strictEqual(fake.connections().length, 1)
        assert.deepStrictEqual(fake.violations(), [])
      })
  )

  it.scoped("interrupted texts hold their context until the server ends them, then free it", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ chunkIntervalMillis: 10 })
      const session = yield* sessionFor(fake)
      for (let i = 0; i < 7; i++) {
        yield* Stream.runDrain(Stream.take(session.synthesize(`Interrupted answer number ${i}, quite long.`), 1))
      }
      const last = yield* collect(session.synthesize("Finally."))
      assert.deepStrictEqual(last.pcm, overTheWire("Finally."))
      assert.deepStrictEqual(fake.violations(), [])
    }))

  it.scoped("reconnects between texts after the socket dropped, seen or not yet seen", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const session = yield* sessionFor(fake)
      yield* collect(session.synthesize("First text."))
      // dropped and the next text sent at once: the client may not have seen the close yet
      fake.dropConnections()
      const second = yield* collect(session.synthesize("Second text."))
      assert.deepStrictEqual(second.pcm, overTheWire("Second text."))
      assert.strictEqual(fake.connections().length, 2)
      fake.dropConnections()
      yield* fake.awaitConnections(2)
      const third = yield* collect(session.synthesize("Third text."))
      assert.deepStrictEqual(third.wordEndsMs, fakeWordEndsMs("Third text."))
      assert.strictEqual(fake.connections().length, 3)
      assert.deepStrictEqual(fake.violations(), [])
    }))

  it.scoped(
    "a drop in the middle of a text fails it retryably after the audio that came; the next text reconnects",
    () =>
      Effect.gen(function*() {
        const fake = yield* withFake({ charsPerChunk: 4 })
        const session = yield* sessionFor(fake)
        fake.dropAfterChunks(2)
        const parts: Array<SpeechPart> = []
        const error = yield* Effect.flip(
          Stream.runForEach(session.synthesize(TEXT), (part) => Effect.sync(() => parts.push(part)))
        )
        assert.isTrue(error.retryable)
        assert.match(error.reason, /closed the connection \(1006/)
        assert.strictEqual(parts.length, 2)
        const after = yield* collect(session.synthesize(TEXT))
        assert.deepStrictEqual(after.pcm, overTheWire(TEXT))
        assert.strictEqual(fake.connections().length, 2)
      })
  )

  it.scoped("maps each failure: the key and unknown voices or models are permanent, the rest retryable", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const wrongKey = yield* Effect.flip(sessionFor(fake, { apiKey: Redacted.make("wrong") }))
      assert.isFalse(wrongKey.retryable)
      assert.match(wrongKey.reason, /refused the connection: 401 invalid_api_key: Invalid API key/)
      // accepted, then closed for the key: the text fails for good, and the session tries no more
      fake.fault({ _tag: "CloseOnConnect", code: 1008, reason: "Invalid API key" })
      const doomed = yield* sessionFor(fake)
      const closed = yield* Effect.flip(collect(doomed.synthesize("Hello.")))
      assert.isFalse(closed.retryable)
      assert.match(closed.reason, /closed the connection \(1008 Invalid API key\)/)
      const handshakes = fake.connections().length
      assert.isFalse((yield* Effect.flip(collect(doomed.synthesize("Hello?")))).retryable)
      assert.strictEqual(fake.connections().length, handshakes)
      const badModel = yield* Effect.flip(sessionFor(fake, { model: "eleven_v3" }))
      assert.isFalse(badModel.retryable)
      fake.fault({
        _tag: "Refuse",
        status: 404,
        body: { detail: { status: "voice_not_found", message: "A voice with that ID was not found" } }
      })
      assert.isFalse((yield* Effect.flip(sessionFor(fake))).retryable)
      fake.fault({ _tag: "Refuse", status: 503 })
      assert.isTrue((yield* Effect.flip(sessionFor(fake))).retryable)
      fake.fault({ _tag: "Refuse", status: 429 })
      assert.isTrue((yield* Effect.flip(sessionFor(fake))).retryable)
      // accepted, then closed for another reason: the text goes out again on a new socket
      fake.fault({ _tag: "CloseOnConnect", code: 1011, reason: "internal error" })
      const shaky = yield* sessionFor(fake)
      assert.deepStrictEqual((yield* collect(shaky.synthesize("Hello."))).pcm, overTheWire("Hello."))
      const noVoice = yield* Effect.flip(sessionFor(fake, {}, ""))
      assert.isFalse(noVoice.retryable)

      // the key revoked while the session lives: the reconnect before the next text is refused, permanently
      const session: TtsSession = yield* sessionFor(fake)
      yield* collect(session.synthesize("Hello."))
      fake.fault({ _tag: "RefuseAuth" })
      fake.dropConnections()
      yield* fake.awaitConnections(fake.connections().length)
      const revoked = yield* Effect.flip(collect(session.synthesize("Hello again.")))
      assert.isFalse(revoked.retryable)
    }))

  it.scoped("says nothing for a text without words; sends voice settings on a socket's first context only", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const session = yield* sessionFor(fake, { voiceSettings: { stability: 0.5, similarity_boost: 0.8 } })
      assert.deepStrictEqual((yield* collect(session.synthesize(" \n"))).parts, [])
      yield* collect(session.synthesize("One."))
      yield* collect(session.synthesize("Two."))
      fake.dropConnections()
      yield* collect(session.synthesize("Three."))
      const texts = fake.received().map((r) => r.message as Record<string, unknown>).filter((m) => m.text !== undefined)
      assert.deepStrictEqual(texts.map((m) => m.voice_settings !== undefined), [true, false, true])
      assert.deepStrictEqual(fake.violations(), [])
    }))

  it.scoped("closing the session closes the socket with close_socket", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* sessionFor(fake)
        yield* collect(session.synthesize("Goodbye."))
        assert.strictEqual(fake.openConnections(), 1)
      }))
      yield* fake.awaitOpenConnections(0)
      assert.deepStrictEqual(fake.received().at(-1)!.message, { close_socket: true })
    }))
})

describe("ElevenLabs, on the real clock", () => {
  it.scopedLive("a server that goes quiet fails the text retryably after timeoutMillis; the next text reconnects", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ ttfbMillis: 2_000 })
      const session = yield* sessionFor(fake, { timeoutMillis: 300 })
      const started = Date.now()
      const quiet = yield* Effect.flip(collect(session.synthesize(TEXT)))
      assert.isTrue(quiet.retryable)
      assert.match(quiet.reason, /sent nothing for 0.3 s/)
      assert.isAtLeast(Date.now() - started, 290)
      fake.setTtfb(0)
      const after = yield* collect(session.synthesize(TEXT))
      assert.deepStrictEqual(after.pcm, overTheWire(TEXT))
      assert.strictEqual(fake.connections().length, 2)
    }))

  it.scopedLive("the first audio comes after the server's time to first byte, before the text is done", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ ttfbMillis: 150, chunkIntervalMillis: 30 })
      const session = yield* sessionFor(fake)
      const started = Date.now()
      const fiber = yield* Effect.fork(Stream.runHead(session.synthesize(TEXT)))
      yield* Fiber.join(fiber)
      const first = Date.now() - started
      assert.isAtLeast(first, 140)
      assert.isBelow(first, fakeSpeechMs(TEXT), "streamed, not after the whole text")
    }))
})

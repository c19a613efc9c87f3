import { assert, describe, it } from "@effect/vitest"
import * as FakeDeepgram from "@voiceagent/runner/Testing/FakeDeepgram"
import { concat, frames, mulawEncode, SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import {
  DeepgramControl,
  type DeepgramSttOptions,
  listenUrl,
  make,
  makeInterpreter,
  parseDeepgramMessage
} from "@voiceagent/runner/Voice/DeepgramStt"
import {
  SpeechToTextError,
  type SttEvent,
  type SttOptions,
  type SttStream
} from "@voiceagent/runner/Voice/SpeechToText"
import { Effect, Exit, Queue, Redacted, TestClock } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

// ---------------------------------------------------------------------------
// Golden messages, as Deepgram documents them
// ---------------------------------------------------------------------------

/**
 * Server messages of the listen API. Field sets: `@deepgram/sdk` `LiveTranscriptionEvent.ts`
 * (4.11.2) and deepgram-go-sdk `pkg/api/live/v1/interfaces/types.go`; values: the examples on
 * developers.deepgram.com (SpeechStarted: /docs/speech-started; UtteranceEnd: /docs/utterance-end;
 * Error: the variant of a NET-0001 close, /docs/stt-troubleshooting-websocket-data-and-net-errors);
 * Results: a final exactly as the API returned it (quoted on vapi.ai/community, a nova-2 answer),
 * with `from_finalize` as /docs/finalize describes.
 */
const GOLDEN = {
  final: {
    type: "Results",
    channel_index: [0, 1],
    duration: 1.98,
    start: 5.99,
    is_final: true,
    speech_final: true,
    channel: {
      alternatives: [{
        transcript: "Tell me more about this.",
        confidence: 0.99964225,
        words: [
          { word: "tell", start: 6.0699997, end: 6.3499994, confidence: 0.99782443, punctuated_word: "Tell" },
          { word: "me", start: 6.3499994, end: 6.6299996, confidence: 0.9998324, punctuated_word: "me" },
          { word: "more", start: 6.6299996, end: 6.79, confidence: 0.9995466, punctuated_word: "more" },
          { word: "about", start: 6.79, end: 7.0299997, confidence: 0.99984455, punctuated_word: "about" },
          { word: "this", start: 7.0299997, end: 7.2699995, confidence: 0.99964225, punctuated_word: "this." }
        ]
      }]
    },
    metadata: {
      request_id: "52cc0efe-fa77-4aa7-b79c-0dda09de2f14",
      model_info: { name: "2-general-nova", version: "2024-01-18.26916", arch: "nova-2" },
      model_uuid: "c0d1a568-ce81-4fea-97e7-bd45cb1fdf3c"
    },
    from_finalize: false
  },
  speechStarted: { type: "SpeechStarted", channel: [0, 1], timestamp: 9.54 },
  utteranceEnd: { channel: [0, 1], last_word_end: 2.395, type: "UtteranceEnd" },
  // field set: deepgram-go-sdk MetadataResponse (`model_info` is keyed by the model's uuid); values illustrative
  metadata: {
    type: "Metadata",
    transaction_key: "deprecated",
    request_id: "8c8ebea9-dbec-45fa-a035-e4632cb05b5f",
    sha256: "5324da68ede209a16ac69a38e8cd29cee4d754434a041166cda3a1f5e0b24566",
    created: "2024-08-29T22:37:55.202Z",
    duration: 3.4,
    channels: 1,
    models: ["c0d1a568-ce81-4fea-97e7-bd45cb1fdf3c"],
    model_info: {
      "c0d1a568-ce81-4fea-97e7-bd45cb1fdf3c": { name: "2-general-nova", version: "2024-01-18.26916", arch: "nova-2" }
    }
  },
  error: {
    type: "Error",
    description: "Deepgram did not receive audio data or a text message within the timeout window.",
    message: "",
    variant: "NET-0001"
  }
} as const

const interimOf = (golden: typeof GOLDEN.final, words: number) => {
  const kept = golden.channel.alternatives[0].words.slice(0, words)
  return {
    ...golden,
    is_final: false,
    speech_final: false,
    channel: {
      alternatives: [{
        ...golden.channel.alternatives[0],
        transcript: kept.map((w) => w.punctuated_word).join(" "),
        words: kept
      }]
    }
  }
}

/** Objects keyed by ids rather than field names: each value has the shape of the golden's first. */
const MAPS = new Set(["$.model_info"])

/** Same shape, where an empty array matches any array. */
const sameShape = (actual: unknown, golden: unknown, path = "$"): void => {
  if (MAPS.has(path)) {
    const values = Object.values(actual as Record<string, unknown>)
    assert.isAbove(values.length, 0, `${path}: entries`)
    for (const value of values) sameShape(value, Object.values(golden as Record<string, unknown>)[0], `${path}[*]`)
    return
  }
  if (Array.isArray(golden)) {
    assert.isTrue(Array.isArray(actual), `${path}: expected an array`)
    const items = actual as Array<unknown>
    if (items.length > 0 && golden.length > 0) sameShape(items[0], golden[0], `${path}[0]`)
    return
  }
  if (golden !== null && typeof golden === "object") {
    assert.isTrue(
      actual !== null && typeof actual === "object" && !Array.isArray(actual),
      `${path}: expected an object`
    )
    const record = actual as Record<string, unknown>
    assert.deepStrictEqual(Object.keys(record).sort(), Object.keys(golden).sort(), `${path}: keys`)
    for (const key of Object.keys(golden)) {
      sameShape(record[key], (golden as Record<string, unknown>)[key], `${path}.${key}`)
    }
    return
  }
  assert.strictEqual(typeof actual, typeof golden, `${path}: type`)
}

const goldenFor = (message: Record<string, unknown>): unknown => {
  switch (message.type) {
    case "Results":
      return GOLDEN.final
    case "SpeechStarted":
      return GOLDEN.speechStarted
    case "UtteranceEnd":
      return GOLDEN.utteranceEnd
    case "Metadata":
      return GOLDEN.metadata
    case "Error":
      return GOLDEN.error
    default:
      throw new Error(`no golden message of type ${String(message.type)}`)
  }
}

// ---------------------------------------------------------------------------
// Synthetic audio: 8 kHz, μ-law, 20 ms frames
// ---------------------------------------------------------------------------

/** A voiced sound: a harmonic series on `f0` (loud enough for both detectors). */
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

/** Loud white noise (a fixed seed): the energy detector calls it speech; the script calls it noise. */
const noise = (ms: number): Int16Array => {
  let seed = 12345
  const pcm = new Int16Array((SAMPLE_RATE * ms) / 1000)
  for (let i = 0; i < pcm.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff
    pcm[i] = Math.round(((seed / 0x7fffffff) * 2 - 1) * 4000)
  }
  return pcm
}

const ulaw = (...parts: ReadonlyArray<Int16Array>): ReadonlyArray<Uint8Array> => frames(concat(parts)).map(mulawEncode)

const pushAll = (stream: SttStream, audio: ReadonlyArray<Uint8Array>) =>
  Effect.sync(() => audio.forEach((frame) => stream.push(frame)))

/** Dies after `millis` of real time (the tests on the TestClock cannot use `Effect.timeout`). */
const within = <A, E, R>(effect: Effect.Effect<A, E, R>, millis: number, label: string) =>
  Effect.raceFirst(
    effect,
    Effect.async<never>((resume) => {
      const timer = setTimeout(() => resume(Effect.dieMessage(`timed out after ${millis} ms: ${label}`)), millis)
      return Effect.sync(() => clearTimeout(timer))
    })
  )

type Item = SttEvent | SpeechToTextError

/** Takes events until one satisfies `last` (included). */
const takeUntil = (stream: SttStream, last: (item: Item) => boolean, label: string) =>
  within(
    Effect.gen(function*() {
      const items: Array<Item> = []
      while (true) {
        const item = yield* Queue.take(stream.events)
        items.push(item)
        if (last(item)) return items
      }
    }),
    20_000,
    label
  )

const isTag = (tag: string) => (item: Item) => item._tag === tag
const isSpeechFinal = (item: Item) => item._tag === "Final" && item.speechFinal

/** Events without their times, for comparing sequences. */
const plain = (items: ReadonlyArray<Item>) =>
  items.map((item) => {
    switch (item._tag) {
      case "Interim":
        return `Interim ${item.text}`
      case "Final":
        return `Final${item.speechFinal ? "!" : ""} ${item.text}`
      case "SpeechStarted":
        return "SpeechStarted"
      case "Reconnected":
        return "Reconnected"
      case "SpeechToTextError":
        return `Error ${item.reason}`
    }
  })

const openOn = (
  fake: FakeDeepgram.FakeDeepgramServer,
  overrides: Partial<DeepgramSttOptions> = {},
  stt: Partial<SttOptions> = {}
) =>
  Effect.gen(function*() {
    const provider = yield* make({ url: fake.url, apiKey: Redacted.make(fake.apiKey), ...overrides })
    return yield* provider.open({ language: "en", ...stt })
  })

const connection = (fake: FakeDeepgram.FakeDeepgramServer, index: number) => fake.connections()[index]!

/** A port nothing listens on. */
const closedPort = Effect.async<number>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

const EXPECTED_QUERY: ReadonlyArray<readonly [string, string]> = [
  ["model", "nova-3"],
  ["encoding", "mulaw"],
  ["sample_rate", "8000"],
  ["channels", "1"],
  ["interim_results", "true"],
  ["endpointing", "300"],
  ["utterance_end_ms", "1000"],
  ["vad_events", "true"],
  ["punctuate", "true"],
  ["smart_format", "true"],
  ["language", "en"]
]

// ---------------------------------------------------------------------------
// Contract: the adapter's reading of the documented messages
// ---------------------------------------------------------------------------

describe("Deepgram contract", () => {
  it("reads every golden message, and ignores what is not one", () => {
    for (
      const golden of [
        GOLDEN.final,
        interimOf(GOLDEN.final, 2),
        GOLDEN.speechStarted,
        GOLDEN.utteranceEnd,
        GOLDEN.metadata,
        GOLDEN.error
      ]
    ) {
      assert.isDefined(parseDeepgramMessage(JSON.stringify(golden)), JSON.stringify(golden))
    }
    assert.isUndefined(parseDeepgramMessage("not json"))
    assert.isUndefined(parseDeepgramMessage(JSON.stringify({ type: "Results" })))
    assert.isUndefined(parseDeepgramMessage(JSON.stringify({ type: "SomethingNew" })))
  })

  it("maps interim and final results, SpeechStarted, and UtteranceEnd only for an open utterance", () => {
    const { interpret, reset } = makeInterpreter()
    const read = (golden: unknown) => plain(interpret(parseDeepgramMessage(JSON.stringify(golden))!, 7))
    assert.deepStrictEqual(read(GOLDEN.speechStarted), ["SpeechStarted"])
    assert.deepStrictEqual(read(interimOf(GOLDEN.final, 2)), ["Interim Tell me"])
    // the final closes the utterance: a later UtteranceEnd says nothing more
    assert.deepStrictEqual(read(GOLDEN.final), ["Final! Tell me more about this."])
    assert.deepStrictEqual(read(GOLDEN.utteranceEnd), [])
    // a final that is not speech_final leaves it open: UtteranceEnd closes it with an empty final
    assert.deepStrictEqual(read({ ...GOLDEN.final, speech_final: false }), ["Final Tell me more about this."])
    assert.deepStrictEqual(read(GOLDEN.utteranceEnd), ["Final! "])
    // finals without words: nothing, unless speech_final closes an open utterance
    const empty = { ...GOLDEN.final, channel: { alternatives: [{ transcript: "", confidence: 0, words: [] }] } }
    assert.deepStrictEqual(read({ ...empty, speech_final: false }), [])
    assert.deepStrictEqual(read(empty), [])
    assert.deepStrictEqual(read(interimOf(GOLDEN.final, 1)), ["Interim Tell"])
    assert.deepStrictEqual(read(empty), ["Final! "])
    assert.deepStrictEqual(read(interimOf(GOLDEN.final, 0)), [])
    assert.deepStrictEqual(read(GOLDEN.metadata), [])
    assert.deepStrictEqual(read(GOLDEN.error), [])
    // after a reconnect nothing is open
    read(interimOf(GOLDEN.final, 1))
    reset()
    assert.deepStrictEqual(read(GOLDEN.utteranceEnd), [])
    const [event] = interpret(parseDeepgramMessage(JSON.stringify(GOLDEN.final))!, 1234)
    assert.strictEqual(event!.at, 1234)
  })

  it("sends the documented control messages and query string", () => {
    assert.deepStrictEqual(JSON.parse(DeepgramControl.keepAlive), { type: "KeepAlive" })
    assert.deepStrictEqual(JSON.parse(DeepgramControl.finalize), { type: "Finalize" })
    assert.deepStrictEqual(JSON.parse(DeepgramControl.closeStream), { type: "CloseStream" })
    const url = new URL(
      listenUrl("wss://api.deepgram.com/v1/listen", { model: "nova-3", endpointingMs: 300, utteranceEndMs: 1000 }, {
        language: "en-US",
        keyterms: ["Acme Corp", " ", "Zyxel"]
      })
    )
    assert.strictEqual(url.origin + url.pathname, "wss://api.deepgram.com/v1/listen")
    assert.deepStrictEqual(Array.from(url.searchParams.entries()), [
      ...EXPECTED_QUERY.slice(0, -1),
      ["language", "en-US"],
      ["keyterm", "Acme Corp"],
      ["keyterm", "Zyxel"]
    ])
  })

  it.effect("refuses configuration it cannot use", () =>
    Effect.gen(function*() {
      for (
        const options of [{ url: "https://api.deepgram.com/v1/listen" }, { url: "nonsense" }, { keepAliveMs: 0 }, {
          framesPerSend: 1.5
        }, { endpointingMs: -1 }]
      ) {
        const exit = yield* Effect.exit(make({ apiKey: Redacted.make("k"), ...options }))
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(options))
      }
      assert.strictEqual((yield* make({ apiKey: Redacted.make("k") })).name, "deepgram")
    }))
})

// ---------------------------------------------------------------------------
// The adapter against the fake (audio faster than real time: the fake's timing is the audio's)
// ---------------------------------------------------------------------------

describe("DeepgramStt against FakeDeepgram", () => {
  it.scoped("connects with the documented query and Token header; the fake's messages have the golden shapes", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ transcripts: ["Hello there.", "How are you today?", "Bye."] })
      yield* TestClock.setTime(1_000_000)
      const stream = yield* openOn(fake)
      const conn = connection(fake, 0)
      assert.deepStrictEqual(conn.query, EXPECTED_QUERY)
      assert.strictEqual(conn.authorization, `Token ${fake.apiKey}`)
      assert.strictEqual(conn.path.split("?")[0], "/v1/listen")

      // "Hello there." (800 ms), a 200 ms pause, "How are you today?" (1 s), then 1.5 s of silence
      yield* pushAll(stream, ulaw(silence(300), voiced(800), silence(200), voiced(1000, 180), silence(1500)))
      const utterance = yield* takeUntil(stream, isSpeechFinal, "the first utterance's speech_final")
      assert.deepStrictEqual(plain(utterance), [
        "SpeechStarted",
        "Interim Hello",
        "Interim Hello there.",
        "Final Hello there.",
        "SpeechStarted",
        "Interim How",
        "Interim How are",
        "Interim How are you",
        "Interim How are you today?",
        "Final How are you today?",
        "Final! "
      ])
      for (const event of utterance) assert.strictEqual(event._tag === "SpeechToTextError" ? -1 : event.at, 1_000_000)

      // the fake also sent an UtteranceEnd after the speech_final: it closes nothing more, so the
      // next event is the next stretch's onset
      yield* fake.until("UtteranceEnd", () => connection(fake, 0).sent.some((m) => m.type === "UtteranceEnd"))
      yield* pushAll(stream, ulaw(voiced(600), silence(600)))
      assert.deepStrictEqual(plain(yield* takeUntil(stream, isSpeechFinal, "Bye.")), [
        "SpeechStarted",
        "Interim Bye.",
        "Final Bye.",
        "Final! "
      ])

      const sent = connection(fake, 0).sent
      for (const message of sent) sameShape(message, goldenFor(message))
      assert.includeMembers(sent.map((m) => m.type), ["Results", "SpeechStarted", "UtteranceEnd"])
      // the speech_final came 300 ms (endpointing) after the speech ended at 2.3 s; UtteranceEnd 1 s after the last
      // word
      const speechFinal = sent.find((m) => m.speech_final === true)!
      assert.closeTo((speechFinal.start as number) + (speechFinal.duration as number), 2.6, 1e-9)
      assert.deepStrictEqual(sent.find((m) => m.type === "UtteranceEnd"), {
        channel: [0, 1],
        last_word_end: 2.3,
        type: "UtteranceEnd"
      })
      const final = sent.find((m) => m.is_final === true) as unknown as typeof GOLDEN.final
      assert.deepStrictEqual(final.channel.alternatives[0].words.map((w) => [w.word, w.punctuated_word]), [[
        "hello",
        "Hello"
      ], ["there", "there."]])
      // 2 frames a binary message
      assert.strictEqual(connection(fake, 0).audioMessages * 2, connection(fake, 0).audioMs / 20)
    }))

  it.scoped("a noise stretch produces no words", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ transcripts: ["", "Yes, please."] })
      const stream = yield* openOn(fake)
      yield* pushAll(stream, ulaw(silence(300), noise(500), silence(500), voiced(600), silence(800)))
      assert.deepStrictEqual(plain(yield* takeUntil(stream, isSpeechFinal, "Yes, please.")), [
        "SpeechStarted",
        "SpeechStarted",
        "Interim Yes,",
        "Interim Yes, please.",
        "Final Yes, please.",
        "Final! "
      ])
      // the fake did finalise the noise, with no words
      const noiseFinal = connection(fake, 0).sent.find((m) => m.is_final === true)!
      assert.strictEqual(
        (noiseFinal.channel as { alternatives: Array<{ transcript: string }> }).alternatives[0]!.transcript,
        ""
      )
    }))

  it.scoped("when noise keeps speech_final from coming, UtteranceEnd ends the utterance", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ transcripts: ["Hello there.", "", "Bye."] })
      const stream = yield* openOn(fake)
      // the noise starts 150 ms after the words: too soon for endpointing (300 ms)
      yield* pushAll(stream, ulaw(silence(300), voiced(600), silence(150), noise(1500), silence(600)))
      assert.deepStrictEqual(plain(yield* takeUntil(stream, isSpeechFinal, "the utterance's end")), [
        "SpeechStarted",
        "Interim Hello",
        "Interim Hello there.",
        "Final Hello there.",
        "SpeechStarted",
        "Final! "
      ])
      const sent = connection(fake, 0).sent
      const utteranceEnd = sent.findIndex((m) => m.type === "UtteranceEnd")
      const speechFinal = sent.findIndex((m) => m.speech_final === true)
      assert.isAbove(utteranceEnd, 0)
      // Deepgram's speech_final did come after the noise; the adapter had closed the utterance already
      assert.isAbove(speechFinal, utteranceEnd)
      yield* fake.until("the late speech_final", () => connection(fake, 0).sent.some((m) => m.speech_final === true))
      yield* pushAll(stream, ulaw(voiced(600), silence(600)))
      assert.deepStrictEqual(plain(yield* takeUntil(stream, isSpeechFinal, "Bye.")), [
        "SpeechStarted",
        "Interim Bye.",
        "Final Bye.",
        "Final! "
      ])
    }))

  it.scoped("finalize sends the partial batch, then Finalize; the words heard so far come back final", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ transcripts: ["Book a table for two."] })
      const stream = yield* openOn(fake)
      // 49 frames: the last one waits for a second frame of its batch
      yield* pushAll(stream, ulaw(silence(300), voiced(680)))
      yield* stream.finalize
      const heard = yield* takeUntil(stream, isTag("Final"), "the from_finalize final")
      assert.deepStrictEqual(plain(heard), [
        "SpeechStarted",
        "Interim Book",
        "Interim Book a",
        "Interim Book a table",
        "Final Book a table"
      ])
      const conn = connection(fake, 0)
      assert.strictEqual(conn.finalizes, 1)
      assert.deepStrictEqual(conn.controls, [DeepgramControl.finalize])
      const fromFinalize = conn.sent.find((m) => m.from_finalize === true)!
      // all 980 ms arrived before the Finalize
      assert.closeTo((fromFinalize.start as number) + (fromFinalize.duration as number), 0.98, 1e-9)
      assert.strictEqual(fromFinalize.is_final, true)

      // the rest of the stretch keeps coming
      yield* pushAll(stream, ulaw(voiced(500), silence(800)))
      assert.deepStrictEqual(plain(yield* takeUntil(stream, isSpeechFinal, "the rest")), [
        "Interim for",
        "Interim for two.",
        "Final for two.",
        "Final! "
      ])
      // a Finalize with nothing pending is answered with an empty final, which says nothing
      yield* stream.finalize
      yield* fake.until(
        "the second Finalize's answer",
        () => connection(fake, 0).sent.filter((m) => m.from_finalize === true).length === 2
      )
      yield* pushAll(stream, ulaw(voiced(100), silence(300)))
      assert.deepStrictEqual(plain(yield* takeUntil(stream, isTag("SpeechStarted"), "the next onset")), [
        "SpeechStarted"
      ])
    }))

  it.scoped("sends KeepAlive every 4 s on the Clock while no audio goes out, none while it does", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make()
      const stream = yield* openOn(fake)
      const keepAlives = () => connection(fake, 0).keepAlives
      yield* TestClock.adjust("3999 millis")
      yield* TestClock.adjust("1 millis")
      yield* fake.until("the first KeepAlive", () => keepAlives() === 1)
      yield* TestClock.adjust("4 seconds")
      yield* fake.until("the second KeepAlive", () => keepAlives() === 2)

      // 6 s of audio at 20 ms of Clock a frame: no KeepAlive
      for (const frame of ulaw(silence(6_000))) {
        stream.push(frame)
        yield* TestClock.adjust("20 millis")
      }
      yield* fake.awaitAudio(0, 6_000)
      assert.strictEqual(keepAlives(), 2)
      yield* TestClock.adjust("4 seconds")
      yield* fake.until("a KeepAlive after the audio stopped", () => keepAlives() === 3)
      assert.deepStrictEqual(connection(fake, 0).controls, [
        DeepgramControl.keepAlive,
        DeepgramControl.keepAlive,
        DeepgramControl.keepAlive
      ])
      assert.isUndefined(connection(fake, 0).closed)
    }))

  it.scoped("Deepgram closes an idle socket with NET-0001 after 10 s; the adapter reconnects at once", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make()
      const stream = yield* openOn(fake, { keepAliveMs: 60_000 })
      yield* TestClock.adjust("9999 millis")
      assert.isUndefined(connection(fake, 0).closed)
      yield* TestClock.adjust("1 millis")
      const [reconnected] = yield* takeUntil(stream, isTag("Reconnected"), "Reconnected")
      assert.strictEqual(reconnected!._tag, "Reconnected")
      assert.include((reconnected as Extract<SttEvent, { _tag: "Reconnected" }>).reason, "1011 NET-0001")
      assert.include(
        (reconnected as Extract<SttEvent, { _tag: "Reconnected" }>).reason,
        "Deepgram did not receive audio data"
      )
      assert.deepStrictEqual(connection(fake, 0).closed, { code: 1011, reason: "NET-0001", by: "server" })
      const error = connection(fake, 0).sent.at(-1)!
      sameShape(error, GOLDEN.error)
      assert.strictEqual(error.variant, "NET-0001")
      assert.deepStrictEqual(connection(fake, 1).query, connection(fake, 0).query)
    }))

  it.scoped("reconnects after the socket drops mid-call; recognition continues on the new socket", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ transcripts: ["First part.", "Second part."] })
      const stream = yield* openOn(fake)
      fake.disconnectAfter(1500)
      yield* pushAll(stream, ulaw(silence(300), voiced(400), silence(700)))
      const first = yield* takeUntil(stream, isSpeechFinal, "the first utterance")
      assert.deepStrictEqual(plain(first), [
        "SpeechStarted",
        "Interim First",
        "Interim First part.",
        "Final First part.",
        "Final! "
      ])
      // the fake drops the socket once it has 1.5 s of audio (the sixth frame completes a batch of two)
      yield* pushAll(stream, ulaw(silence(120)))
      const [reconnected] = yield* takeUntil(stream, isTag("Reconnected"), "Reconnected")
      assert.include((reconnected as Extract<SttEvent, { _tag: "Reconnected" }>).reason, "1006")
      assert.deepStrictEqual(connection(fake, 0).closed, { code: 1006, reason: "", by: "dropped" })
      assert.strictEqual(connection(fake, 0).audioMs, 1500)

      yield* pushAll(stream, ulaw(silence(300), voiced(400), silence(700)))
      assert.deepStrictEqual(plain(yield* takeUntil(stream, isSpeechFinal, "the second utterance")), [
        "SpeechStarted",
        "Interim Second",
        "Interim Second part.",
        "Final Second part.",
        "Final! "
      ])
      assert.deepStrictEqual(connection(fake, 1).query, connection(fake, 0).query)
      assert.strictEqual(connection(fake, 1).audioMs, 1400)
    }))

  it.scoped("scripts keyed by keyterm keep concurrent calls apart; an agent's model and keyterms reach the query", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ scripts: { alpha: ["Alpha speaking."], beta: ["Beta here."] } })
      const a = yield* openOn(fake, {}, { keyterms: ["alpha"], model: "nova-2-phonecall", language: "multi" })
      const b = yield* openOn(fake, { endpointingMs: 500, utteranceEndMs: 1500 }, { keyterms: ["beta", "Acme"] })
      assert.deepStrictEqual(connection(fake, 0).query, [
        ["model", "nova-2-phonecall"],
        ...EXPECTED_QUERY.slice(1, -1),
        ["language", "multi"],
        ["keyterm", "alpha"]
      ])
      assert.deepStrictEqual(
        connection(fake, 1).query.filter(([k]) => ["endpointing", "utterance_end_ms", "keyterm"].includes(k)),
        [
          ["endpointing", "500"],
          ["utterance_end_ms", "1500"],
          ["keyterm", "beta"],
          ["keyterm", "Acme"]
        ]
      )
      const audio = ulaw(silence(200), voiced(400), silence(800))
      yield* pushAll(b, audio)
      yield* pushAll(a, audio)
      const finals = (items: ReadonlyArray<Item>) => plain(items).filter((s) => s.startsWith("Final "))
      assert.deepStrictEqual(finals(yield* takeUntil(a, isSpeechFinal, "alpha")), ["Final Alpha speaking."])
      assert.deepStrictEqual(finals(yield* takeUntil(b, isSpeechFinal, "beta")), ["Final Beta here."])
    }))

  it.scoped("the WebRTC detector finds the same words in the same audio", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ vad: "webrtc", transcripts: ["Hello there."] })
      const stream = yield* openOn(fake)
      yield* pushAll(stream, ulaw(silence(300), voiced(800), silence(800)))
      const items = plain(yield* takeUntil(stream, isSpeechFinal, "the utterance"))
      assert.strictEqual(items[0], "SpeechStarted")
      assert.includeMembers(items, ["Interim Hello", "Final Hello there.", "Final! "])
    }))

  it.scoped("closing the scope sends CloseStream and closes normally; the fake answers Metadata", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ transcripts: ["Goodbye."] })
      yield* Effect.scoped(Effect.gen(function*() {
        const stream = yield* openOn(fake)
        yield* pushAll(stream, ulaw(silence(100), voiced(300)))
        yield* fake.awaitAudio(0, 400)
      }))
      yield* fake.awaitClosed(0)
      const conn = connection(fake, 0)
      assert.strictEqual(conn.closeStreams, 1)
      assert.strictEqual(conn.controls.at(-1), DeepgramControl.closeStream)
      assert.strictEqual(conn.closed!.code, 1000)
      // the pending words were finalised, then the summary came
      const [last, beforeLast] = [conn.sent.at(-1)!, conn.sent.at(-2)!]
      sameShape(last, GOLDEN.metadata)
      assert.strictEqual(last.request_id, conn.requestId)
      assert.strictEqual(beforeLast.is_final, true)
      assert.strictEqual(
        (beforeLast.channel as { alternatives: Array<{ transcript: string }> }).alternatives[0]!.transcript,
        "Goodbye."
      )
    }))
})

describe("DeepgramStt failures", () => {
  it.scoped("a refused key is not retryable; the fake's 401 carries Deepgram's dg-error", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make()
      const provider = yield* make({ url: fake.url, apiKey: Redacted.make("wrong-key") })
      const error = yield* Effect.flip(provider.open({ language: "en" }))
      assert.instanceOf(error, SpeechToTextError)
      assert.isFalse(error.retryable)
      assert.strictEqual(error.reason, "Deepgram refused the API key (401: Invalid credentials.)")
      assert.deepStrictEqual(fake.upgrades().map((u) => [u.status, u.authorization]), [[401, "Token wrong-key"]])
      assert.lengthOf(fake.connections(), 0)

      fake.refuse(403)
      assert.isFalse((yield* Effect.flip(openOn(fake))).retryable)
      // a parameter Deepgram refuses is permanent too
      const bad = yield* Effect.flip(openOn(fake, {}, { model: " " }))
      assert.isFalse(bad.retryable)
      assert.include(bad.reason, "400: model must not be empty")
    }))

  it.scoped("an unreachable server, a 5xx or a 429 is retryable", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      const provider = yield* make({ url: `ws://127.0.0.1:${port}/v1/listen`, apiKey: Redacted.make("k") })
      const unreachable = yield* Effect.flip(provider.open({ language: "en" }))
      assert.isTrue(unreachable.retryable)
      assert.include(unreachable.reason, "Deepgram could not be reached")

      const fake = yield* FakeDeepgram.make()
      for (const status of [500, 503, 429]) {
        fake.refuse(status)
        const error = yield* Effect.flip(openOn(fake))
        assert.isTrue(error.retryable, String(status))
        assert.include(error.reason, `(${status}:`)
      }
    }))
})

describe("DeepgramStt on the real clock", () => {
  it.scopedLive("drops audio pushed while reconnecting, instead of keeping it", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make({ transcripts: ["After the gap."] })
      const stream = yield* openOn(fake, { reconnectBaseDelayMs: 150 })
      fake.refuse(503, 2)
      fake.drop()
      // the first reconnect (at once) and the second (150 ms later) are refused; the third is 300 ms later
      yield* fake.awaitUpgrades(3)
      yield* pushAll(stream, ulaw(voiced(1000)))
      const [reconnected] = yield* takeUntil(stream, isTag("Reconnected"), "Reconnected")
      assert.strictEqual(reconnected!._tag, "Reconnected")
      assert.deepStrictEqual(fake.upgrades().map((u) => u.status), [101, 503, 503, 101])
      yield* pushAll(stream, ulaw(silence(200), voiced(400), silence(600)))
      const finals = plain(yield* takeUntil(stream, isSpeechFinal, "after the gap")).filter((s) =>
        s.startsWith("Final ")
      )
      assert.deepStrictEqual(finals, ["Final After the gap."])
      assert.strictEqual(connection(fake, 1).audioMs, 1200)
    }))

  it.scopedLive("after the reconnect budget the events queue gets a retryable error; a refused key stops at once", () =>
    Effect.gen(function*() {
      const fake = yield* FakeDeepgram.make()
      const stream = yield* openOn(fake, { reconnectAttempts: 3, reconnectBaseDelayMs: 20 })
      fake.refuse(503, 3)
      fake.drop()
      const [error] = yield* takeUntil(stream, isTag("SpeechToTextError"), "the error")
      assert.instanceOf(error, SpeechToTextError)
      assert.isTrue((error as SpeechToTextError).retryable)
      assert.include((error as SpeechToTextError).reason, "reconnecting failed: Deepgram refused the connection (503")
      assert.deepStrictEqual(fake.upgrades().map((u) => u.status), [101, 503, 503, 503])
      // the stream has stopped: audio goes nowhere
      yield* pushAll(stream, ulaw(voiced(200)))
      assert.lengthOf(fake.connections(), 1)

      const other = yield* openOn(fake, { reconnectAttempts: 3, reconnectBaseDelayMs: 20 })
      fake.refuse(401, 1)
      fake.drop()
      const [denied] = yield* takeUntil(other, isTag("SpeechToTextError"), "the refusal")
      assert.isFalse((denied as SpeechToTextError).retryable)
      assert.deepStrictEqual(fake.upgrades().slice(4).map((u) => u.status), [101, 401])
    }))

  it.scopedLive(
    "real 20 ms pacing with 30 ms of injected latency: the final comes after the silence and the latency",
    () =>
      Effect.gen(function*() {
        const fake = yield* FakeDeepgram.make({ transcripts: ["Paced speech."], latencyMs: 30 })
        const stream = yield* openOn(fake)
        let speechEndedAt = 0
        const audio = ulaw(silence(200), voiced(600), silence(600))
        for (const [i, frame] of audio.entries()) {
          stream.push(frame)
          if (i === 39) speechEndedAt = Date.now()
          yield* Effect.sleep("20 millis")
        }
        const items = yield* takeUntil(stream, isSpeechFinal, "the paced utterance")
        assert.deepStrictEqual(plain(items).filter((s) => s.startsWith("Final")), ["Final Paced speech.", "Final! "])
        const final = items.find((item) => item._tag === "Final" && item.text !== "") as Extract<
          SttEvent,
          { _tag: "Final" }
        >
        // 100 ms of silence must arrive before the stretch ends (at 20 ms a frame), then 30 ms of latency
        assert.isAtLeast(final.at - speechEndedAt, 100)
        assert.strictEqual(connection(fake, 0).keepAlives, 0)
      })
  )
})

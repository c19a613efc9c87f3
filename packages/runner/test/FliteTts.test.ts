import { assert, describe, it } from "@effect/vitest"
import { durationMs, SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import {
  alignWordEnds,
  FLITE_VOICES,
  make,
  parsePhoneDurations,
  parseWordPhones
} from "@voiceagent/runner/Voice/FliteTts"
import type { SpeechPart, TextToSpeechError, TtsSession } from "@voiceagent/runner/Voice/TextToSpeech"
import { Chunk, Effect, Stream } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"

const SENTENCE = "Hello there, I would like to book an appointment for tomorrow."

interface Synthesized {
  readonly pcm: Int16Array
  readonly wordEndsMs: ReadonlyArray<number> | undefined
  readonly parts: ReadonlyArray<SpeechPart>
}

const collect = (stream: Stream.Stream<SpeechPart, TextToSpeechError>) =>
  Effect.map(Stream.runCollect(stream), (chunk): Synthesized => {
    const parts = Chunk.toReadonlyArray(chunk)
    const audio = parts.flatMap((part) => (part._tag === "Audio" ? [part.pcm] : []))
    const pcm = new Int16Array(audio.reduce((n, a) => n + a.length, 0))
    let at = 0
    for (const a of audio) {
      pcm.set(a, at)
      at += a.length
    }
    const words = parts.find((part) => part._tag === "Words")
    return { pcm, wordEndsMs: words?._tag === "Words" ? words.wordEndsMs : undefined, parts }
  })

const rms = (pcm: Int16Array, from = 0, to = pcm.length) => {
  let sum = 0
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!
  return Math.sqrt(sum / Math.max(1, to - from))
}

const samplesAt = (ms: number) => Math.round((ms * SAMPLE_RATE) / 1_000)

const sessionOf = (voice = "kal", options: Parameters<typeof make>[0] = {}) =>
  Effect.flatMap(make(options), (provider) => provider.open({ voice }))

describe("Flite's output, parsed (golden lines from this build)", () => {
  it("reads -psdur phones with end times and -ps words one per line", () => {
    assert.deepStrictEqual(parsePhoneDurations("pau:0.220 hh:0.295 ax:0.342 l:0.426 ow:0.624 pau:0.844 \n"), [
      { phone: "pau", endMs: 220 },
      { phone: "hh", endMs: 295 },
      { phone: "ax", endMs: 342 },
      { phone: "l", endMs: 426 },
      { phone: "ow", endMs: 624 },
      { phone: "pau", endMs: 844 }
    ])
    assert.deepStrictEqual(parseWordPhones("pau d r ay v pau \npau s m ih th s pau \npau \n"), [
      ["d", "r", "ay", "v"],
      ["s", "m", "ih", "th", "s"],
      []
    ])
  })

  it("aligns words to phones, tolerating words said differently in context", () => {
    // "Dr. Smith's" said as "doctor smith's", the words pass having read "Dr." alone as "drive"
    const phones = parsePhoneDurations(
      "pau:0.220 d:0.281 aa:0.412 k:0.459 t:0.535 er:0.610 s:0.740 m:0.806 ih:0.905 th:0.995 s:1.088 pau:1.300"
    )
    assert.deepStrictEqual(alignWordEnds(phones, [["d", "r", "ay", "v"], ["s", "m", "ih", "th", "s"]], 1_300), [
      610,
      1088
    ])
    // punctuation has no phones: it ends with the word before it; nothing passes the audio's end
    assert.deepStrictEqual(
      alignWordEnds(phones, [[], ["d", "aa", "k", "t", "er"], [], ["s", "m", "ih", "th", "s"]], 1_000),
      [
        0,
        610,
        610,
        1_000
      ]
    )
    // two passes that have little in common are not trusted
    assert.isUndefined(alignWordEnds(phones, [["b", "iy"], ["k", "ow", "l", "d"]], 1_300))
    assert.deepStrictEqual(alignWordEnds(phones, [[], []], 1_300), [0, 0])
  })
})

describe("Flite (real synthesis in WebAssembly)", () => {
  it.scoped("speaks a sentence as 8 kHz speech of a plausible length, with word ends that fit the audio", () =>
    Effect.gen(function*() {
      const session = yield* sessionOf()
      const { pcm, wordEndsMs, parts } = yield* collect(session.synthesize(SENTENCE))
      assert.deepStrictEqual(parts.map((part) => part._tag), ["Audio", "Words"])
      const ms = durationMs(pcm.length)
      assert.isAbove(ms, 1_000)
      assert.isBelow(ms, 5_000)
      assert.isAbove(rms(pcm), 500, "speech, not silence")

      const words = SENTENCE.split(" ")
      assert.strictEqual(wordEndsMs!.length, words.length)
      for (let i = 1; i < wordEndsMs!.length; i++) assert.isAtLeast(wordEndsMs![i]!, wordEndsMs![i - 1]!)
      assert.isAbove(wordEndsMs![0]!, 200, "after the leading pause")
      assert.isAtMost(wordEndsMs!.at(-1)!, ms)
      assert.isAbove(wordEndsMs!.at(-1)!, ms - 600, "the last word ends near the end")
      // the comma after "there," is a pause in the audio: quiet after that word's end, voiced before it
      const there = wordEndsMs![1]!
      const overall = rms(pcm)
      assert.isBelow(rms(pcm, samplesAt(there + 20), samplesAt(there + 150)), overall / 5)
      assert.isAbove(rms(pcm, samplesAt(there - 150), samplesAt(there)), overall / 3)
    }))

  it.scoped("resamples the 16 kHz voices to 8 kHz; refuses unknown voices and other languages, permanently", () =>
    Effect.gen(function*() {
      const provider = yield* make()
      const kal = yield* collect((yield* provider.open({ voice: "kal" })).synthesize(SENTENCE))
      const slt = yield* collect((yield* provider.open({ voice: "slt" })).synthesize(SENTENCE))
      assert.strictEqual(FLITE_VOICES.slt, 16_000)
      assert.isAbove(durationMs(slt.pcm.length), 1_000)
      assert.isBelow(durationMs(slt.pcm.length), 5_000)
      assert.isAbove(rms(slt.pcm), 500)
      assert.strictEqual(slt.wordEndsMs!.length, kal.wordEndsMs!.length)
      const byDefault = yield* collect((yield* provider.open({ voice: "" })).synthesize(SENTENCE))
      assert.deepStrictEqual(byDefault.pcm, kal.pcm, "kal unless a voice is named")

      const unknown = yield* Effect.flip(provider.open({ voice: "nova" }))
      assert.isFalse(unknown.retryable)
      assert.match(unknown.reason, /no voice nova/)
      const french = yield* Effect.flip(provider.open({ voice: "kal", language: "fr" }))
      assert.isFalse(french.retryable)
      yield* provider.open({ voice: "kal", language: "en-US" })
    }))

  it.scoped("says nothing for a text without words", () =>
    Effect.gen(function*() {
      const session = yield* sessionOf()
      const { parts } = yield* collect(session.synthesize(" \n "))
      assert.deepStrictEqual(parts, [])
    }))

  it.scoped("two concurrent syntheses on two workers are each what they are alone", () =>
    Effect.gen(function*() {
      const session = yield* sessionOf("kal", { workers: 2 })
      const other = "Your appointment is confirmed for Thursday at nine."
      const alone = yield* Effect.forEach([SENTENCE, other], (text) => collect(session.synthesize(text)))
      const together = yield* Effect.all([SENTENCE, other, SENTENCE].map((text) => collect(session.synthesize(text))), {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(together[0]!.pcm, alone[0]!.pcm)
      assert.deepStrictEqual(together[1]!.pcm, alone[1]!.pcm)
      assert.deepStrictEqual(together[2]!.pcm, alone[0]!.pcm)
      assert.deepStrictEqual(together[1]!.wordEndsMs, alone[1]!.wordEndsMs)
      assert.notDeepEqual(alone[0]!.pcm.length, alone[1]!.pcm.length)
    }))

  it.scoped(
    "survives many syntheses alternating voices on one worker (Node 20's node:wasi crashed here)",
    () =>
      Effect.gen(function*() {
        const provider = yield* make({ workers: 1 })
        const slt = yield* provider.open({ voice: "slt" })
        const kal = yield* provider.open({ voice: "kal" })
        const first = yield* Effect.all([collect(slt.synthesize(SENTENCE)), collect(kal.synthesize(SENTENCE))])
        for (let round = 0; round < 12; round++) {
          const again = yield* Effect.all([
            collect(slt.synthesize(SENTENCE)),
            collect(kal.synthesize(`${SENTENCE} Round ${round}.`))
          ])
          assert.deepStrictEqual(again[0].pcm, first[0].pcm)
          assert.isAbove(again[1].pcm.length, first[1].pcm.length)
        }
      }),
    { timeout: 120_000 }
  )

  it.effect("writes nothing to disk and loads no node:wasi: no ExperimentalWarning reaches stderr", () =>
    Effect.gen(function*() {
      const before = new Set(fs.readdirSync(os.tmpdir()))
      const written: Array<string> = []
      const write = process.stderr.write
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: Array<unknown>) => {
        written.push(String(chunk))
        return (write as (...args: Array<unknown>) => boolean).call(process.stderr, chunk, ...rest)
      }) as typeof process.stderr.write
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* sessionOf("kal", { workers: 1 })
        yield* collect(session.synthesize(SENTENCE))
        yield* collect(session.synthesize("A second sentence, with new words: zebra."))
      })).pipe(Effect.ensuring(Effect.sync(() => (process.stderr.write = write))))
      const created = fs.readdirSync(os.tmpdir()).filter((name) => !before.has(name) && name.includes("flite"))
      assert.deepStrictEqual(created, [])
      assert.isFalse(written.some((text) => /ExperimentalWarning|WASI/.test(text)), written.join(""))
    }))

  it.scopedLive("a synthesis that overruns timeoutMillis fails retryably; its worker is replaced", () =>
    Effect.gen(function*() {
      const provider = yield* make({ workers: 1, timeoutMillis: 1_500 })
      const slt: TtsSession = yield* provider.open({ voice: "slt" })
      const long = Array.from({ length: 60 }, () => SENTENCE).join(" ")
      const timedOut = yield* Effect.flip(collect(slt.synthesize(long)))
      assert.isTrue(timedOut.retryable)
      assert.match(timedOut.reason, /longer than 1500 ms/)
      const kal = yield* provider.open({ voice: "kal" })
      const again = yield* collect(kal.synthesize(SENTENCE))
      assert.isAbove(again.pcm.length, 0)
    }))
})

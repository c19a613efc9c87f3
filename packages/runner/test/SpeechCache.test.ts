/**
 * The process's speech cache in front of a text-to-speech session: a sentence is synthesised once
 * per voice, including when the first synthesis of it was cut short (a call that ended while its
 * greeting was being prepared).
 */
import { assert, describe, it } from "@effect/vitest"
import { cachedSpeech } from "@voiceagent/runner/Calls/Conversations"
import { SpeechPart, type TtsSession } from "@voiceagent/runner/Voice/TextToSpeech"
import { Chunk, Effect, Fiber, Stream, TestClock } from "effect"

/** A session that speaks each text as three 10 ms parts, 100 ms apart on the clock, and counts its syntheses. */
const countingSession = () => {
  const calls: Array<string> = []
  const session: TtsSession = {
    synthesize: (text) =>
      Stream.fromEffect(Effect.sync(() => calls.push(text))).pipe(
        Stream.flatMap(() => Stream.range(1, 3)),
        Stream.mapEffect((n) =>
          Effect.as(Effect.sleep("100 millis"), SpeechPart.Audio({ pcm: new Int16Array(160).fill(n) }))
        )
      )
  }
  return { calls, session }
}

const samples = (parts: Chunk.Chunk<SpeechPart>) =>
  Chunk.toReadonlyArray(parts).reduce((n, part) => n + (part._tag === "Audio" ? part.pcm.length : 0), 0)

describe("speech cache", () => {
  it.effect("a sentence synthesised whole is served from the cache the next time", () =>
    Effect.gen(function*() {
      const { calls, session } = countingSession()
      const tts = cachedSpeech(session, `voice-whole-${Math.random()}`)
      const first = yield* Effect.fork(Stream.runCollect(tts.synthesize("Hello there.")))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(samples(yield* first.await.pipe(Effect.flatten)), 480)
      const second = yield* Stream.runCollect(tts.synthesize("Hello there."))
      assert.strictEqual(samples(second), 480)
      assert.deepStrictEqual(calls, ["Hello there."])
    }))

  it.effect("a synthesis cut short still fills the cache, once, in the background", () =>
    Effect.gen(function*() {
      const { calls, session } = countingSession()
      const tts = cachedSpeech(session, `voice-cut-${Math.random()}`)
      // two calls end while their greeting is being prepared: interrupted after one part
      const cut = yield* Effect.fork(Effect.all([
        Stream.runCollect(tts.synthesize("Good morning.")),
        Stream.runCollect(tts.synthesize("Good morning."))
      ], { concurrency: 2 }))
      yield* TestClock.adjust("150 millis")
      yield* Fiber.interrupt(cut)
      // one background synthesis fills the cache (not one per cut call)
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(calls, ["Good morning.", "Good morning.", "Good morning."])
      const later = yield* Stream.runCollect(tts.synthesize("Good morning."))
      assert.strictEqual(samples(later), 480)
      assert.strictEqual(calls.length, 3)
    }))

  it.effect("a consumer that stops early does not cache part of the sentence", () =>
    Effect.gen(function*() {
      const { calls, session } = countingSession()
      const tts = cachedSpeech(session, `voice-take-${Math.random()}`)
      const first = yield* Effect.fork(Stream.runCollect(Stream.take(tts.synthesize("One moment."), 1)))
      yield* TestClock.adjust("150 millis")
      assert.strictEqual(samples(yield* Effect.flatten(first.await)), 160)
      yield* TestClock.adjust("1 second")
      const later = yield* Effect.fork(Stream.runCollect(tts.synthesize("One moment.")))
      yield* TestClock.adjust("1 second")
      assert.strictEqual(samples(yield* Effect.flatten(later.await)), 480)
      // the cut one and its background fill; the later one is served whole from the cache
      assert.strictEqual(calls.length, 2)
    }))
})

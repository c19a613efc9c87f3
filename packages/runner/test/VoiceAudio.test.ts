import { assert, describe, it } from "@effect/vitest"
import {
  concat,
  durationMs,
  frames,
  mulawDecode,
  mulawEncode,
  readWav,
  resampleTo8k,
  SAMPLES_PER_FRAME,
  writeWav
} from "@voiceagent/runner/Voice/Audio"
import {
  defaultDetector,
  detect,
  initialDetector,
  type SpeechChange,
  Vad,
  webrtcVad
} from "@voiceagent/runner/Voice/Vad"
import { Effect } from "effect"

const tone = (ms: number, hz: number, amplitude: number, rate = 8_000) => {
  const pcm = new Int16Array((rate * ms) / 1_000)
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate))
  return pcm
}

describe("telephone audio", () => {
  it("μ-law: silence is 0xFF, and a round trip keeps the signal within G.711's step", () => {
    assert.deepStrictEqual([...mulawEncode(new Int16Array([0]))], [0xff])
    const original = tone(20, 440, 8_000)
    const back = mulawDecode(mulawEncode(original))
    for (let i = 0; i < original.length; i++) assert.isBelow(Math.abs(back[i]! - original[i]!), 300)
  })

  it("cuts 20 ms frames, padding the last, and measures durations", () => {
    const split = frames(new Int16Array(400))
    assert.deepStrictEqual(split.map((f) => f.length), [SAMPLES_PER_FRAME, SAMPLES_PER_FRAME, SAMPLES_PER_FRAME])
    assert.strictEqual(durationMs(concat(split).length), 60)
  })

  it("writes and reads WAV, and resamples speech engines' rates to 8 kHz", () =>
    Effect.gen(function*() {
      const pcm = tone(100, 440, 5_000, 16_000)
      const read = readWav(writeWav(pcm, 16_000))!
      assert.strictEqual(read.sampleRate, 16_000)
      assert.deepStrictEqual([...read.pcm], [...pcm])
      const down = yield* resampleTo8k(pcm, 16_000)
      assert.approximately(down.length, 800, 16)
      assert.isUndefined(readWav(new Uint8Array([1, 2, 3])))
    }).pipe(Effect.runPromise))
})

describe("voice activity", () => {
  const run = (verdicts: ReadonlyArray<boolean>) => {
    let state = initialDetector
    const changes: Array<SpeechChange> = []
    verdicts.forEach((speech, i) => {
      const step = detect(state, speech, i * 20)
      state = step.state
      if (step.change !== null) changes.push(step.change)
    })
    return changes
  }

  it("starts at the first speech frame once enough speech falls in the window, ends where speech stopped", () => {
    const speech = [...Array(10).fill(false), ...Array(50).fill(true), ...Array(20).fill(false)]
    assert.deepStrictEqual(run(speech), [{ _tag: "Started", at: 200 }, { _tag: "Ended", at: 1_200 }])
  })

  it("ignores a click, and does not end speech on a short breath", () => {
    assert.deepStrictEqual(run([false, true, false, false, false, false, false, false]), [])
    const breath = [...Array(20).fill(true), ...Array(5).fill(false), ...Array(20).fill(true), ...Array(20).fill(false)]
    const changes = run(breath)
    assert.strictEqual(changes.length, 2)
    assert.deepStrictEqual(changes[1], { _tag: "Ended", at: 900 })
    assert.isAtLeast(defaultDetector.stopMs, 200)
  })

  it("WebRTC's VAD hears a voiced sound and not silence", () =>
    Effect.gen(function*() {
      const vad = yield* Vad
      const stream = yield* vad.open
      const silence = new Int16Array(SAMPLES_PER_FRAME)
      // a voiced sound: a harmonic series at 150 Hz
      const voiced = new Int16Array(SAMPLES_PER_FRAME)
      for (let i = 0; i < voiced.length; i++) {
        let v = 0
        for (let h = 1; h <= 12; h++) v += Math.sin((2 * Math.PI * 150 * h * i) / 8_000) / h
        voiced[i] = Math.round(6_000 * v)
      }
      let quiet = 0
      for (let i = 0; i < 50; i++) if (!stream.isSpeech(silence)) quiet++
      let heard = 0
      for (let i = 0; i < 50; i++) if (stream.isSpeech(voiced)) heard++
      stream.close()
      assert.strictEqual(quiet, 50)
      assert.isAtLeast(heard, 40)
    }).pipe(Effect.provide(webrtcVad(3)), Effect.runPromise))
})

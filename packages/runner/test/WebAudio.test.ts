import { assert, describe, it } from "@effect/vitest"
import { bytesOf, makeDownsampler, makeUpsampler, samplesOf } from "@voiceagent/runner/Voice/WebAudio"

const tone = (hz: number, rate: number, samples: number) =>
  Int16Array.from({ length: samples }, (_, i) => Math.round(10_000 * Math.sin((2 * Math.PI * hz * i) / rate)))

/** RMS after the filter's start-up. */
const rms = (pcm: Int16Array) => {
  const tail = pcm.subarray(100)
  return Math.sqrt(tail.reduce((sum, x) => sum + x * x, 0) / tail.length)
}

/** `pcm` through `step` in pieces of `size` samples. */
const inPieces = (step: (pcm: Int16Array) => Int16Array, pcm: Int16Array, size: number) => {
  const out: Array<number> = []
  for (let at = 0; at < pcm.length; at += size) out.push(...step(pcm.subarray(at, at + size)))
  return Int16Array.from(out)
}

describe("web call audio: 16 kHz to 8 kHz and back", () => {
  it("keeps the telephone band and takes out what would fold into it", () => {
    for (
      const [hz, low, high] of [[300, 0.99, 1.01], [1_000, 0.99, 1.01], [3_000, 0.97, 1.03], [4_500, 0, 0.1], [
        6_000,
        0,
        0.01
      ]] as const
    ) {
      const input = tone(hz, 16_000, 16_000)
      const halved = makeDownsampler()(input)
      assert.strictEqual(halved.length, 8_000)
      const ratio = rms(halved) / rms(input)
      assert.isTrue(ratio >= low && ratio <= high, `${hz} Hz: ${ratio.toFixed(3)}`)
    }
    const doubled = makeUpsampler()(tone(1_000, 8_000, 8_000))
    assert.strictEqual(doubled.length, 16_000)
    assert.approximately(rms(doubled) / rms(tone(1_000, 8_000, 8_000)), 1, 0.01)
  })

  it("gives the same samples whatever the size of the pieces (odd ones included)", () => {
    const input = tone(700, 16_000, 4_000)
    const whole = makeDownsampler()(input)
    for (const size of [1, 7, 160, 317, 320]) {
      assert.deepStrictEqual(inPieces(makeDownsampler(), input, size), whole, `pieces of ${size}`)
    }
    const back = makeUpsampler()(whole)
    for (const size of [1, 33, 160]) {
      assert.deepStrictEqual(inPieces(makeUpsampler(), whole, size), back, `pieces of ${size}`)
    }
  })

  it("reads and writes little-endian 16-bit samples, negative ones included", () => {
    const samples = Int16Array.from([0, 1, -1, 32_767, -32_768, 1234])
    assert.deepStrictEqual(samplesOf(new Uint8Array(bytesOf(samples))), samples)
    assert.deepStrictEqual([...bytesOf(Int16Array.from([-2]))], [0xfe, 0xff])
  })
})

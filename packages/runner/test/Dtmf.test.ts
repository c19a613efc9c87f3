import { assert, describe, it } from "@effect/vitest"
import { mulawDecode, mulawEncode, SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import { voicedTone } from "@voiceagent/runner/Voice/CallerVoice"
import { detectDigits, DTMF_COLUMNS, DTMF_ROWS, dtmfTones, goertzel } from "@voiceagent/runner/Voice/Dtmf"

const ALL = "0123456789*#ABCD"

describe("DTMF tones", () => {
  it("each key is its row and column tone, 100 ms, then 100 ms of silence", () => {
    const pcm = dtmfTones("5")
    assert.strictEqual(pcm.length, (SAMPLE_RATE * 200) / 1_000)
    const tone = pcm.subarray(0, 800)
    const power = (f: number) => goertzel(tone, f)
    // 5: 770 Hz and 1336 Hz, every other keypad frequency far below them
    for (const f of [...DTMF_ROWS, ...DTMF_COLUMNS]) {
      if (f === 770 || f === 1336) continue
      assert.isBelow(power(f) * 100, Math.min(power(770), power(1336)), `${f} Hz`)
    }
    assert.isTrue(pcm.subarray(800).every((s) => s === 0))
  })

  it(
    "the Goertzel detector reads every key back, through μ-law, at Q.24's shortest timing, and hears none in speech " +
      "or silence",
    () => {
      assert.strictEqual(detectDigits(mulawDecode(mulawEncode(dtmfTones(ALL)))), ALL)
      assert.strictEqual(detectDigits(mulawDecode(mulawEncode(dtmfTones("1199#", { toneMs: 40, gapMs: 40 })))), "1199#")
      assert.strictEqual(detectDigits(voicedTone("For sales, press one. For support, press two.")), "")
      assert.strictEqual(detectDigits(new Int16Array(8_000)), "")
      // a key held through its gap is one press
      assert.strictEqual(detectDigits(dtmfTones("7", { toneMs: 500, gapMs: 0 })), "7")
    }
  )

  it("refuses a key that is not on a keypad", () => {
    assert.throws(() => dtmfTones("1x"))
  })
})

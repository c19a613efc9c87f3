/**
 * Our own answering-machine detector on real audio: the recorded caller fixtures (Flite's `slt`
 * voice) as a person's "Hello?" and as a machine's greeting read without a pause, and synthesized
 * beeps, fed as the 20 ms frames a media stream carries.
 */
import { assert, describe, it } from "@effect/vitest"
import { callerLine } from "@voiceagent/runner/Testing/FakeCallerLine"
import { machineGreeting, machineWithBeep, personHello, silence, tone } from "@voiceagent/runner/Testing/MachineAudio"
import { concat, frames } from "@voiceagent/runner/Voice/Audio"
import { type DetectorEvent, dominantTone, makeMachineDetector } from "@voiceagent/runner/Voice/MachineDetector"
import { Effect } from "effect"

/** Every event the detector gives for `pcm`, the first frame at 0 ms. */
const run = (pcm: Int16Array): ReadonlyArray<DetectorEvent> => {
  const detector = makeMachineDetector()
  return frames(pcm).flatMap((frame, i) => detector.push(frame, i * 20))
}

const verdicts = (events: ReadonlyArray<DetectorEvent>) => events.filter((e) => e._tag === "Verdict")
const beeps = (events: ReadonlyArray<DetectorEvent>) => events.filter((e) => e._tag === "Beep")

describe("answering-machine detection from the audio", () => {
  it("a pure tone holds nearly all of a frame's energy at its frequency; speech does not", () =>
    Effect.gen(function*() {
      for (const hz of [440, 1_000, 1_400, 2_000]) {
        const found = dominantTone(tone(20, hz))
        assert.isAtMost(Math.abs(found.hz - hz), 25, `${hz} Hz`)
        assert.isAbove(found.share, 0.8, `${hz} Hz`)
      }
      const speech = yield* machineGreeting()
      const loud = frames(speech).filter((f) => f.some((s) => Math.abs(s) > 3_000))
      const tonal = loud.filter((f) => dominantTone(f).share >= 0.6).length
      // a voice holds its energy over many harmonics: hardly a frame passes for a tone
      assert.isBelow(tonal / loud.length, 0.05, `${tonal} of ${loud.length} frames`)
    }))

  it("a person's \"Hello?\" and a pause is a human, decided within a second of the hello", () =>
    Effect.gen(function*() {
      const hello = yield* personHello
      const events = run(concat([silence(400), hello, silence(3_000)]))
      const [verdict] = verdicts(events)
      assert.strictEqual(verdict?._tag === "Verdict" ? verdict.answeredBy : undefined, "human", JSON.stringify(events))
      assert.isAtMost(verdict!.at, 400 + (hello.length / 8) + 1_000)
      assert.deepStrictEqual(beeps(events), [])
    }))

  it("a person who says two short things with a pause between them is still a human", () =>
    Effect.gen(function*() {
      const hello = yield* personHello
      const who = yield* callerLine("Who is calling, please?")
      const events = run(concat([hello, silence(900), who, silence(2_000)]))
      assert.deepStrictEqual(verdicts(events).map((v) => v._tag === "Verdict" && v.answeredBy), ["human"])
    }))

  it(
    "a greeting read on without a pause is a machine, decided once it has gone on 3.5 s; its beep is found where it " +
      "ends",
    () =>
      Effect.gen(function*() {
        const pcm = yield* machineWithBeep(500)
        const events = run(concat([pcm, silence(1_000)]))
        const [verdict] = verdicts(events)
        assert.deepInclude(verdict, { answeredBy: "machine" })
        assert.isAtLeast(verdict!.at, 3_500)
        const greetingMs = (pcm.length / 8) - 500
        assert.isBelow(verdict!.at, greetingMs)
        const [beep] = beeps(events)
        assert.isDefined(beep, JSON.stringify(events))
        assert.strictEqual(beep!._tag === "Beep" && beep.hz, 1_000)
        // reported when the tone stops: the message goes on the recording after it
        assert.approximately(beep!.at, pcm.length / 8, 40)
        assert.approximately(beep!._tag === "Beep" ? beep.durationMs : 0, 500, 40)
      })
  )

  it("a beep alone is a machine (the greeting was too short to tell), at 800 Hz and at 1.4 kHz", () => {
    for (const hz of [800, 1_400]) {
      const events = run(concat([silence(500), tone(400, hz), silence(500)]))
      assert.deepStrictEqual(events.map((e) => e._tag), ["Verdict", "Beep"], `${hz} Hz`)
      assert.deepInclude(events[0], { answeredBy: "machine", reason: "a beep" })
    }
  })

  it("a tone too short (a click) or too long (a dial tone, a fax) is no beep", () => {
    assert.deepStrictEqual(beeps(run(concat([silence(200), tone(100), silence(500)]))), [])
    assert.deepStrictEqual(beeps(run(concat([silence(200), tone(3_000, 425), silence(500)]))), [])
  })

  it("nothing said for six seconds is unknown", () => {
    const events = run(silence(7_000))
    assert.deepStrictEqual(events.map((e) => e._tag === "Verdict" && [e.answeredBy, e.at]), [["unknown", 6_000]])
  })
})

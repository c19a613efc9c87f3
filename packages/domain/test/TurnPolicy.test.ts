import { assert, describe, it } from "@effect/vitest"
import {
  allPlayed,
  emptyPosition,
  heardText,
  markEchoed,
  markSent,
  playedMs,
  unheardText
} from "@voiceagent/domain/Playback"
import { defaultEndpointing, endpointDelay, isBackchannel, wordsBeyondBackchannel } from "@voiceagent/domain/TurnPolicy"

const { minDelayMs, maxDelayMs } = defaultEndpointing
const mid = Math.round(minDelayMs + (maxDelayMs - minDelayMs) / 3)

describe("turn policy", () => {
  it("waits least after a finished sentence, longest on a number, a word that leads on, or nothing", () => {
    const cases: ReadonlyArray<readonly [string, number]> = [
      ["When do you open?", minDelayMs],
      ["I'd like to book for Thursday.", minDelayMs],
      ["My number is 415 555", maxDelayMs],
      ["my number is four one five", maxDelayMs],
      ["it's 4155550123", maxDelayMs],
      ["I want to talk about", maxDelayMs],
      ["and um", maxDelayMs],
      ["so my email is", maxDelayMs],
      ["", maxDelayMs],
      ["   ", maxDelayMs],
      ["I'd like to book an appointment", mid]
    ]
    for (const [text, expected] of cases) assert.strictEqual(endpointDelay(text), expected, JSON.stringify(text))
    assert.strictEqual(endpointDelay("Thanks.", { minDelayMs: 100, maxDelayMs: 900 }), 100)
  })

  it("tells backchannels from words that take the turn", () => {
    for (const text of ["uh-huh", "Uh huh.", "mm-hmm", "okay", "Okay, okay.", "yeah right", "I see", "got it!"]) {
      assert.isTrue(isBackchannel(text), text)
      assert.strictEqual(wordsBeyondBackchannel(text), 0, text)
    }
    for (const text of ["wait", "okay but what about pro", "stop please", "no"]) {
      assert.isFalse(isBackchannel(text), text)
      assert.isAbove(wordsBeyondBackchannel(text), 0, text)
    }
    assert.isFalse(isBackchannel(""), "nothing is not a backchannel")
    assert.isTrue(isBackchannel("haan ji", ["haan", "ji"]), "phrases per agent")
  })
})

describe("what the caller heard", () => {
  const segments = [
    { text: "We have three plans:", startMs: 0, durationMs: 1_200, wordEndsMs: [200, 500, 800, 1_200] },
    { text: "basic, plus and pro.", startMs: 1_200, durationMs: 1_400 }
  ]

  it("counts a word heard once it has ended, by word timings, else by the share of characters", () => {
    assert.strictEqual(heardText(segments, 0), "")
    assert.strictEqual(heardText(segments, 499), "We")
    assert.strictEqual(heardText(segments, 500), "We have")
    assert.strictEqual(heardText(segments, 1_200), "We have three plans:")
    // 700 of 1,400 ms of "basic, plus and pro." (20 characters): the first 10 characters, "basic, plu"
    assert.strictEqual(heardText(segments, 1_900), "We have three plans: basic,")
    assert.strictEqual(heardText(segments, 5_000), "We have three plans: basic, plus and pro.")
    assert.strictEqual(
      unheardText("We have three plans: basic, plus and pro.", "We have three plans:"),
      "basic, plus and pro."
    )
    assert.strictEqual(unheardText("Hello there.", ""), "Hello there.")
  })

  it("places playback at the last mark echoed plus the time since, never past the next mark", () => {
    let position = emptyPosition
    position = markSent(position, "r1:1", 200)
    position = markSent(position, "r1:2", 200)
    position = markSent(position, "r1:3", 200)
    assert.strictEqual(playedMs(position, 1_000, null), 0, "nothing played before it started")
    assert.strictEqual(playedMs(position, 1_150, 1_000), 150, "the first chunk plays from the start")
    assert.strictEqual(playedMs(position, 1_500, 1_000), 200, "not past the first mark before its echo")
    position = markEchoed(position, "r1:1", 1_200)
    assert.strictEqual(playedMs(position, 1_300, 1_000), 300)
    assert.strictEqual(playedMs(position, 1_900, 1_000), 400, "capped at the next mark")
    assert.isFalse(allPlayed(position))
    // an echo of an earlier mark after a later one changes nothing (a flush after clear)
    position = markEchoed(position, "r1:3", 1_600)
    position = markEchoed(position, "r1:2", 1_700)
    assert.strictEqual(position.lastEchoed?.offsetMs, 600)
    assert.isTrue(allPlayed(position))
    assert.strictEqual(markEchoed(position, "unknown", 2_000), position)
  })
})

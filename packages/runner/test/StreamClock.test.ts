import { assert, describe, it } from "@effect/vitest"
import { makeStreamClock, STREAM_CLOCK_BLOCK_MS } from "@voiceagent/runner/Voice/StreamClock"

/** Places `count` frames of 20 ms; `arrival(i)` says when frame i reached the engine. */
const place = (count: number, arrival: (i: number) => number, stamp: (i: number) => number = (i) => i * 20) => {
  const clock = makeStreamClock()
  return Array.from(
    { length: count },
    (_, i) => ({ i, arrived: arrival(i), placed: clock.place(stamp(i), arrival(i)) })
  )
}

describe("the stream's clock, placed on the engine's", () => {
  it("a steady stream is placed where it arrives", () => {
    for (const frame of place(500, (i) => 10_000 + 35 + i * 20)) assert.strictEqual(frame.placed, frame.arrived)
  })

  it("frames that arrive in a burst after a stall keep the times they were said at", () => {
    // frames 100-109 held up 200 ms, then arriving together with frame 110
    const arrival = (i: number) => 5_000 + (i >= 100 && i <= 110 ? 110 * 20 : i * 20)
    for (const frame of place(300, arrival)) assert.strictEqual(frame.placed, 5_000 + frame.i * 20, `frame ${frame.i}`)
  })

  it(
    "a stall longer than the window is taken out as far as the frames before it still count, never placing a frame " +
      "after it arrived",
    () => {
      const stalled = (i: number) => 7_000 + (i >= 200 && i <= 300 ? 300 * 20 : i * 20)
      const frames = place(600, stalled)
      for (const frame of frames) assert.isAtMost(frame.placed, frame.arrived)
      // the first second of the 2 s stall keeps its times
      for (const frame of frames.filter((f) => f.i >= 200 && f.i < 200 + STREAM_CLOCK_BLOCK_MS / 20)) {
        assert.strictEqual(frame.placed, 7_000 + frame.i * 20, `frame ${frame.i}`)
      }
      // and once the stream runs steadily again, so does the map
      for (const frame of frames.filter((f) => f.i > 400)) assert.strictEqual(frame.placed, frame.arrived)
    }
  )

  it("network jitter: each frame at the least delay seen lately, never after it arrived, in order", () => {
    // a deterministic jitter of 0 to 39 ms on top of 50 ms
    const jitter = (i: number) => (i * 7_919) % 40
    const frames = place(3_000, (i) => 1_000 + 50 + i * 20 + jitter(i))
    let previous = Number.NEGATIVE_INFINITY
    for (const frame of frames) {
      assert.isAtMost(frame.placed, frame.arrived)
      assert.isAtLeast(frame.placed, previous)
      previous = frame.placed
    }
    // past the first frames, every frame sits at the stream's time plus the least delay (50 ms)
    for (const frame of frames.slice(100)) assert.strictEqual(frame.placed, 1_000 + 50 + frame.i * 20)
  })

  for (const [what, ppm] of [["runs slow", -500], ["runs fast", 500]] as const) {
    it(
      `a stream whose clock ${what} against ours (${
        Math.abs(ppm)
      } ppm over an hour) stays placed within a millisecond of where it arrives`,
      () => {
        // the stream stamps frames 20 ms apart by its clock; on ours they come 20 × (1 − ppm/1e6) ms apart
        const hour = (3_600 * 1_000) / 20
        const arrival = (i: number) => 2_000 + i * 20 * (1 - ppm / 1e6)
        const clock = makeStreamClock()
        let worst = 0
        for (let i = 0; i < hour; i++) {
          const arrived = arrival(i)
          const placed = clock.place(i * 20, arrived)
          assert.isAtMost(placed, arrived)
          worst = Math.max(worst, arrived - placed)
        }
        assert.isAtMost(worst, 1)
      }
    )
  }

  it("a stream without timestamps that skips its silence (frames counted) is placed anew within two seconds", () => {
    // 10 s of frames, then 3 s with none, then frames again: the count does not know of the gap
    const arrival = (i: number) => 500 + i * 20 + (i >= 500 ? 3_000 : 0)
    const frames = place(1_000, arrival)
    for (const frame of frames) assert.isAtMost(frame.placed, frame.arrived)
    for (const frame of frames.filter((f) => f.i >= 500 + (2 * STREAM_CLOCK_BLOCK_MS) / 20)) {
      assert.strictEqual(frame.placed, frame.arrived)
    }
  })

  it("a stream whose time goes back starts the map again", () => {
    const clock = makeStreamClock()
    for (let i = 0; i < 100; i++) clock.place(i * 20, 1_000 + i * 20)
    // restarted at 0, arriving at 10 s: placed where it arrives, not two seconds back
    assert.strictEqual(clock.place(0, 10_000), 10_000)
    assert.strictEqual(clock.place(20, 10_020), 10_020)
  })
})

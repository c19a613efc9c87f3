/**
 * The kit's virtual clock over long spans (issue 18): an interrupted sleep leaves the clock at once
 * (Effect's `TestClock` kept each until its deadline), the walk reads no private state of Effect's
 * `TestClock` (it is a clock of its own), and an idle runtime does not stop the clock every virtual
 * second (the cluster's housekeeping is spaced out or off the clock).
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { VirtualClock } from "@voiceagent/runner/Testing/VirtualClock"
import * as VirtualClockModule from "@voiceagent/runner/Testing/VirtualClock"
import { Effect, Fiber, TestClock } from "effect"

describe("the kit's virtual clock", () => {
  it.effect(
    "an interrupted sleep leaves the clock at once; the due ones wake at their instant, in the order they began",
    () =>
      TestKit.onVirtualClock(Effect.gen(function*() {
        const clock = (yield* VirtualClockModule.current)!
        assert.instanceOf(clock, VirtualClock)
        const woke: Array<string> = []
        const at = (label: string) =>
          Effect.flatMap(
            Effect.clockWith((c) => c.currentTimeMillis),
            (now) => Effect.sync(() => woke.push(`${label}@${now}`))
          )
        const start = clock.unsafeCurrentTimeMillis()
        // a thousand timeouts that did not fire: none stays behind
        for (let i = 0; i < 1_000; i++) yield* Effect.timeout(Effect.void, "1 hour")
        assert.strictEqual(clock.pending, 0)
        const b = yield* Effect.fork(Effect.zipRight(Effect.sleep("2 seconds"), at("b")))
        const a = yield* Effect.fork(Effect.zipRight(Effect.sleep("1 second"), at("a")))
        const c = yield* Effect.fork(Effect.zipRight(Effect.sleep("2 seconds"), at("c")))
        const gone = yield* Effect.fork(Effect.zipRight(Effect.sleep("1 second"), at("gone")))
        yield* TestKit.settle
        assert.strictEqual(clock.pending, 4)
        yield* Fiber.interrupt(gone)
        assert.strictEqual(clock.pending, 3)
        assert.deepStrictEqual((yield* TestClock.sleeps()).length, 3)
        const stops = clock.stops
        yield* TestKit.advance("1 hour")
        yield* Fiber.joinAll([a, b, c])
        assert.deepStrictEqual(woke, [`a@${start + 1000}`, `b@${start + 2000}`, `c@${start + 2000}`])
        // two instants: 1 s and 2 s (b and c wake together)
        assert.strictEqual(clock.stops - stops, 2)
        assert.strictEqual(clock.pending, 0)
      }))
  )

  it.layer(TestKit.layer(), { timeout: 120_000 })((it) => {
    it.effect("an idle runtime stops the clock a few hundred times an idle virtual hour, not every second", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T00:00:00Z")
        const clock = (yield* VirtualClockModule.current)!
        assert.instanceOf(clock, VirtualClock)
        // past start-up and the dispatchers' first doublings
        yield* TestKit.advance("1 hour")
        const stops = clock.stops
        yield* TestKit.advance("3 hours")
        const perHour = (clock.stops - stops) / 3
        // measured: about 240 (the idle-entity reaper every 15 s, and hourly polls); 3,600 when the
        // cluster's housekeeping woke it every second
        assert.isAtMost(perHour, 400, `stops per idle virtual hour: ${perHour}`)
        assert.isAtMost(clock.pending, 40, `pending sleeps of an idle runtime: ${clock.pending}`)
      }))
  })
})

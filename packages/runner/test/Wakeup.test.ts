import { assert, describe, it } from "@effect/vitest"
import { makeWakeup } from "@voiceagent/runner/Voice/Wakeup"
import { Clock, Effect, Fiber, TestClock } from "effect"

/** Runs `wait` in a fiber and says when (on the TestClock) it returned, once the clock has been moved on. */
const timed = (wait: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(Effect.zipRight(wait, Clock.currentTimeMillis))
    yield* Effect.yieldNow()
    return fiber
  })

describe("a fiber's wake-up: something changed, or a time", () => {
  it.scoped("a raise before the wait makes it return at once; a raise wakes a waiter", () =>
    Effect.gen(function*() {
      const wakeup = yield* makeWakeup
      wakeup.raise()
      yield* wakeup.wait
      const waiting = yield* timed(wakeup.wait)
      yield* TestClock.adjust("5 seconds")
      assert.isNull(yield* Fiber.poll(waiting).pipe(Effect.map((exit) => exit._tag === "Some" ? "done" : null)))
      wakeup.raise()
      assert.strictEqual(yield* Fiber.join(waiting), 5_000)
    }))

  it.scoped("waitUntil returns at its time, or when raised before it", () =>
    Effect.gen(function*() {
      const wakeup = yield* makeWakeup
      const first = yield* timed(wakeup.waitUntil(300))
      yield* TestClock.adjust("299 millis")
      assert.isTrue((yield* Fiber.poll(first))._tag === "None")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(first), 300)
      const second = yield* timed(wakeup.waitUntil(1_000))
      yield* TestClock.adjust("100 millis")
      wakeup.raise()
      assert.strictEqual(yield* Fiber.join(second), 400)
      // a time already past: at once
      yield* wakeup.waitUntil(10)
    }))

  it.scoped("deadlines that move forward share the alarm; one earlier than the alarm's sleep is kept too", () =>
    Effect.gen(function*() {
      const wakeup = yield* makeWakeup
      const times: Array<number> = []
      for (const at of [100, 200, 300]) {
        const fiber = yield* timed(wakeup.waitUntil(at))
        yield* TestClock.adjust("100 millis")
        times.push(yield* Fiber.join(fiber))
      }
      assert.deepStrictEqual(times, [100, 200, 300])
      // a wait for 5 s ends early (raised); the alarm still sleeps towards 5 s; the next wait is for 0.4 s
      const long = yield* timed(wakeup.waitUntil(5_300))
      wakeup.raise()
      yield* Fiber.join(long)
      const short = yield* timed(wakeup.waitUntil(700))
      yield* TestClock.adjust("400 millis")
      assert.strictEqual(yield* Fiber.join(short), 700)
      // the alarm, done with its stale sleep, keeps the next deadline
      yield* TestClock.adjust("5 seconds")
      const later = yield* timed(wakeup.waitUntil(6_000))
      yield* TestClock.adjust("300 millis")
      assert.strictEqual(yield* Fiber.join(later), 6_000)
    }))
})

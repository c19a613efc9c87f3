import { assert, describe, it } from "@effect/vitest"
import { TimerWheel } from "@voiceagent/runner/Calls/TimerWheel"
import { Clock, Effect, Exit, Option, Ref, Scope, TestClock } from "effect"

/**
 * The test clock's sleeps not yet due (an interrupted sleep stays in its list until its time, so
 * this is read after moving the clock past every deadline the test armed).
 */
const pendingSleeps = Effect.map(TestClock.sleeps(), (sleeps) => sleeps.length)

const setup = Effect.gen(function*() {
  const wheel = yield* TimerWheel
  const fired = yield* Ref.make<ReadonlyArray<string>>([])
  const record = (name: string) => Effect.flatMap(Clock.currentTimeMillis, (at) => Ref.update(fired, (all) => [...all, `${name}@${at}`]))
  return { wheel, fired, record }
})

describe("TimerWheel", () => {
  it.scoped("deadlines fire in their order, each at its time, from one sleeping fiber", () =>
    Effect.gen(function*() {
      const { fired, record, wheel } = yield* setup
      yield* wheel.arm("a", "ring", 3_000, record("a.ring"))
      yield* wheel.arm("b", "ring", 1_000, record("b.ring"))
      yield* wheel.arm("a", "max", 2_000, record("a.max"))
      yield* wheel.arm("c", "ring", 2_000, record("c.ring"))
      assert.strictEqual(wheel.size(), 4)
      assert.isTrue(Option.isSome(wheel.sleeper()))
      yield* TestClock.adjust(999)
      assert.deepStrictEqual(yield* Ref.get(fired), [])
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* Ref.get(fired), ["b.ring@1000"])
      yield* TestClock.adjust(1_000)
      // same deadline: in the order armed
      assert.deepStrictEqual(yield* Ref.get(fired), ["b.ring@1000", "a.max@2000", "c.ring@2000"])
      yield* TestClock.adjust(5_000)
      assert.deepStrictEqual(yield* Ref.get(fired), ["b.ring@1000", "a.max@2000", "c.ring@2000", "a.ring@3000"])
      assert.strictEqual(wheel.size(), 0)
      assert.isTrue(Option.isNone(wheel.sleeper()))
      assert.strictEqual(yield* pendingSleeps, 0)
    }).pipe(Effect.provide(TimerWheel.Default)))

  it.scoped("a cancelled timer does not fire, and leaves no sleep behind", () =>
    Effect.gen(function*() {
      const { fired, record, wheel } = yield* setup
      yield* wheel.arm("a", "ring", 1_000, record("a.ring"))
      yield* wheel.arm("b", "ring", 2_000, record("b.ring"))
      yield* wheel.cancel("a", "ring")
      // cancelling what is not armed does nothing
      yield* wheel.cancel("a", "ring")
      yield* wheel.cancel("z", "max")
      assert.strictEqual(wheel.size(), 1)
      yield* TestClock.adjust(1_500)
      assert.deepStrictEqual(yield* Ref.get(fired), [])
      yield* wheel.cancelAll("b")
      assert.strictEqual(wheel.size(), 0)
      // nothing armed: no fiber sleeps for the wheel
      assert.isTrue(Option.isNone(wheel.sleeper()))
      yield* TestClock.adjust(10_000)
      assert.deepStrictEqual(yield* Ref.get(fired), [])
      assert.strictEqual(yield* pendingSleeps, 0)
    }).pipe(Effect.provide(TimerWheel.Default)))

  it.scoped("re-arming a name replaces its timer, earlier or later", () =>
    Effect.gen(function*() {
      const { fired, record, wheel } = yield* setup
      yield* wheel.arm("a", "extend", 5_000, record("first"))
      yield* wheel.arm("a", "extend", 1_000, record("earlier"))
      assert.strictEqual(wheel.size(), 1)
      assert.strictEqual(wheel.deadlineOf("a", "extend"), 1_000)
      yield* TestClock.adjust(1_000)
      assert.deepStrictEqual(yield* Ref.get(fired), ["earlier@1000"])
      yield* wheel.arm("a", "extend", 3_000, record("second"))
      yield* wheel.arm("a", "extend", 4_000, record("later"))
      yield* TestClock.adjust(10_000)
      assert.deepStrictEqual(yield* Ref.get(fired), ["earlier@1000", "later@4000"])
      assert.strictEqual(yield* pendingSleeps, 0)
    }).pipe(Effect.provide(TimerWheel.Default)))

  it.scoped("a passed deadline fires at once; a timer may re-arm itself from what it runs", () =>
    Effect.gen(function*() {
      const { fired, record, wheel } = yield* setup
      yield* TestClock.setTime(10_000)
      yield* wheel.arm("a", "ring", 5_000, record("late"))
      yield* Effect.yieldNow()
      assert.deepStrictEqual(yield* Ref.get(fired), ["late@10000"])
      const tick: Effect.Effect<void> = Effect.flatMap(record("tick"), () =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => now < 13_000 ? wheel.arm("a", "tick", now + 1_000, tick) : Effect.void))
      yield* wheel.arm("a", "tick", 11_000, tick)
      yield* TestClock.adjust(10_000)
      assert.deepStrictEqual(yield* Ref.get(fired), ["late@10000", "tick@11000", "tick@12000", "tick@13000"])
      assert.strictEqual(yield* pendingSleeps, 0)
    }).pipe(Effect.provide(TimerWheel.Default)))

  it.scoped("what a timer runs is forked in the scope it was armed with: closing that scope stops it", () =>
    Effect.gen(function*() {
      const { fired, record, wheel } = yield* setup
      const scope = yield* Scope.make()
      yield* wheel.arm("a", "max", 1_000, Effect.zipRight(Effect.sleep(5_000), record("after a long wait")), scope)
      yield* TestClock.adjust(1_000)
      assert.strictEqual(yield* pendingSleeps, 1)
      yield* Scope.close(scope, Exit.void)
      yield* TestClock.adjust(10_000)
      assert.deepStrictEqual(yield* Ref.get(fired), [])
      assert.strictEqual(yield* pendingSleeps, 0)
    }).pipe(Effect.provide(TimerWheel.Default)))

  it.scoped("many calls re-arming their timers keep one entry each", () =>
    Effect.gen(function*() {
      const { fired, wheel } = yield* setup
      for (let i = 0; i < 500; i++) {
        for (let round = 0; round < 5; round++) yield* wheel.arm(`call-${i}`, "ring", 60_000 + round * 1_000 + (i % 3), Effect.void)
      }
      assert.strictEqual(wheel.size(), 500)
      for (let i = 0; i < 500; i += 2) yield* wheel.cancelAll(`call-${i}`)
      assert.strictEqual(wheel.size(), 250)
      yield* TestClock.adjust(70_000)
      assert.strictEqual(wheel.size(), 0)
      assert.deepStrictEqual(yield* Ref.get(fired), [])
      assert.strictEqual(yield* pendingSleeps, 0)
    }).pipe(Effect.provide(TimerWheel.Default)))
})

import { assert, describe, it } from "@effect/vitest"
import { TimerWheel } from "@voiceagent/runner/Shared/TimerWheel"
import { Clock, Effect, Exit, Option, Ref, Scope, TestClock } from "effect"
import * as v8 from "node:v8"
import * as vm from "node:vm"

/**
 * The test clock's sleeps not yet due (an interrupted sleep stays in its list until its time, so
 * this is read after moving the clock past every deadline the test armed).
 */
const pendingSleeps = Effect.map(TestClock.sleeps(), (sleeps) => sleeps.length)

const setup = Effect.gen(function*() {
  const wheel = yield* TimerWheel
  const fired = yield* Ref.make<ReadonlyArray<string>>([])
  const record = (name: string) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) => Ref.update(fired, (all) => [...all, `${name}@${at}`]))
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
      const tick: Effect.Effect<void> = Effect.flatMap(
        record("tick"),
        () =>
          Effect.flatMap(
            Clock.currentTimeMillis,
            (now) => now < 13_000 ? wheel.arm("a", "tick", now + 1_000, tick) : Effect.void
          )
      )
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
        for (let round = 0; round < 5; round++) {
          yield* wheel.arm(`call-${i}`, "ring", 60_000 + round * 1_000 + (i % 3), Effect.void)
        }
      }
      assert.strictEqual(wheel.size(), 500)
      for (let i = 0; i < 500; i += 2) {
        yield* wheel.cancelAll(`call-${i}`)
      }
      assert.strictEqual(wheel.size(), 250)
      yield* TestClock.adjust(70_000)
      assert.strictEqual(wheel.size(), 0)
      assert.deepStrictEqual(yield* Ref.get(fired), [])
      assert.strictEqual(yield* pendingSleeps, 0)
    }).pipe(Effect.provide(TimerWheel.Default)))
})

/**
 * A full collection (V8's `gc`, exposed for this process), after
 * the current job (a WeakRef's target is kept until then).
 */
const collect = Effect.promise(async () => {
  v8.setFlagsFromString("--expose-gc")
  const gc = vm.runInNewContext("gc") as () => void
  await new Promise((resolve) => setTimeout(resolve, 0))
  gc()
  await new Promise((resolve) => setTimeout(resolve, 0))
  gc()
})

/** Arms a timer whose effect alone holds a large object; answers a weak reference to that object. */
const armHeld = (wheel: TimerWheel, owner: string, kind: string) => {
  const payload = { bytes: new Uint8Array(1_000_000) }
  const ref = new WeakRef(payload)
  return Effect.as(wheel.arm(owner, kind, 3_600_000, Effect.sync(() => void payload.bytes.length)), ref)
}

describe("TimerWheel releases what it no longer runs", () => {
  it.scoped("a replaced or cancelled timer's effect is let go at once, long before its deadline", () =>
    Effect.gen(function*() {
      const wheel = yield* TimerWheel
      const replaced = yield* armHeld(wheel, "a", "ring")
      yield* wheel.arm("a", "ring", 3_600_000, Effect.void)
      const cancelled = yield* armHeld(wheel, "b", "ring")
      yield* wheel.cancel("b", "ring")
      const dropped = yield* armHeld(wheel, "c", "max")
      const kept = yield* armHeld(wheel, "c", "ring")
      // a call's entity stopping while its call rings keeps the entry that wakes it
      yield* wheel.cancelAll("c", ["ring"])
      assert.strictEqual(wheel.size(), 2)
      assert.strictEqual(wheel.deadlineOf("c", "ring"), 3_600_000)
      assert.isUndefined(wheel.deadlineOf("c", "max"))
      yield* collect
      assert.isUndefined(replaced.deref(), "the replaced timer's closure is still held")
      assert.isUndefined(cancelled.deref(), "the cancelled timer's closure is still held")
      assert.isUndefined(dropped.deref(), "the timer cancelled with its owner's is still held")
      assert.isDefined(kept.deref())
      yield* wheel.cancelAll("c")
      yield* wheel.cancelAll("a")
      assert.strictEqual(wheel.size(), 0)
      assert.isTrue(Option.isNone(wheel.sleeper()))
    }).pipe(Effect.provide(TimerWheel.Default)))

  it.scoped("replacing and cancelling keep the heap in order", () =>
    Effect.gen(function*() {
      const { fired, record, wheel } = yield* setup
      // pseudo-random deadlines, re-armed and cancelled out of order
      let x = 7
      const next = () => (x = (x * 1103515245 + 12345) % 2147483648) % 10_000
      const expected = new Map<string, number>()
      for (let i = 0; i < 200; i++) {
        const owner = `o${i % 40}`
        const kind = `k${i % 3}`
        const deadline = 1 + next()
        yield* wheel.arm(owner, kind, deadline, record(`${owner}.${kind}`))
        expected.set(`${owner}.${kind}`, deadline)
        if (i % 7 === 0) {
          yield* wheel.cancel(owner, kind)
          expected.delete(`${owner}.${kind}`)
        }
      }
      assert.strictEqual(wheel.size(), expected.size)
      yield* TestClock.adjust(20_000)
      const order = [...expected].sort((a, b) => a[1] - b[1]).map(([name, at]) => `${name}@${at}`)
      const got = yield* Ref.get(fired)
      assert.strictEqual(got.length, order.length)
      // by deadline (ties in arming order, which the sort above does not know)
      assert.deepStrictEqual([...got].map((f) => Number(f.split("@")[1])), order.map((f) => Number(f.split("@")[1])))
      assert.deepStrictEqual(new Set(got), new Set(order))
      assert.strictEqual(wheel.size(), 0)
    }).pipe(Effect.provide(TimerWheel.Default)))
})

import { assert, describe, it } from "@effect/vitest"
import * as FairLock from "@voiceagent/runner/Sql/FairLock"
import { Deferred, Effect, Fiber } from "effect"

describe("FairLock", () => {
  it.effect("grants the lock in the order it was asked for, even to waiters woken while others arrive", () =>
    Effect.gen(function*() {
      const lock = yield* FairLock.make
      const order: Array<number> = []
      const gate = yield* Deferred.make<void>()
      // the first holder keeps the lock until every waiter has queued
      const first = yield* Effect.fork(lock.withLock(Deferred.await(gate)))
      yield* Effect.yieldNow()
      const waiters = yield* Effect.forEach(
        [1, 2, 3, 4, 5],
        (i) =>
          Effect.fork(
            lock.withLock(Effect.asVoid(Effect.sync(() => order.push(i))).pipe(Effect.zipRight(Effect.yieldNow())))
          ),
        { concurrency: 1 }
      )
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      assert.strictEqual(lock.waiting(), 5)
      yield* Deferred.succeed(gate, undefined)
      // a newcomer arriving right at release must queue behind the five
      const late = yield* Effect.fork(lock.withLock(Effect.asVoid(Effect.sync(() => order.push(6)))))
      yield* Fiber.join(first)
      for (const fiber of [...waiters, late]) yield* Fiber.join(fiber)
      assert.deepStrictEqual(order, [1, 2, 3, 4, 5, 6])
    }))

  it.effect("a waiter interrupted before its turn leaves the queue; the lock still reaches the next one", () =>
    Effect.gen(function*() {
      const lock = yield* FairLock.make
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(lock.withLock(Deferred.await(gate)))
      yield* Effect.yieldNow()
      const quitter = yield* Effect.fork(lock.withLock(Effect.die("must not run")))
      const patient = yield* Effect.fork(lock.withLock(Effect.succeed("ran")))
      for (let i = 0; i < 3; i++) yield* Effect.yieldNow()
      yield* Fiber.interrupt(quitter)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      assert.strictEqual(yield* Fiber.join(patient), "ran")
      // and the lock is free again
      assert.strictEqual(yield* lock.withLock(Effect.succeed(1)), 1)
      assert.strictEqual(lock.waiting(), 0)
    }))

  it.effect("a holder that fails or is interrupted gives the lock back", () =>
    Effect.gen(function*() {
      const lock = yield* FairLock.make
      yield* Effect.exit(lock.withLock(Effect.fail("boom")))
      const stuck = yield* Effect.fork(lock.withLock(Effect.never))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(stuck)
      assert.strictEqual(yield* lock.withLock(Effect.succeed("free")), "free")
    }))
})

import { assert, describe, layer } from "@effect/vitest"
import { DialPacer } from "@voiceagent/runner/Campaigns/DialPacer"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Clock, Effect, Fiber, TestClock } from "effect"
import * as crypto from "node:crypto"

// Two runners' pacers are two instances of the layer over one database: they share a number's slots.
const pacer = Effect.provide(DialPacer, DialPacer.layer(2))

describe("dial pacing per number, shared by the runners", () => {
  layer(TestDatabase.layer, { timeout: 60_000 })((it) => {
    it.effect("two pacers (two runners) alternate on one number's slots at its rate; another number is free; a number idle past its slot dials at once", () =>
      Effect.gen(function*() {
        yield* TestClock.setTime(Date.parse("2026-06-01T12:00:00Z"))
        const a = yield* pacer
        const b = yield* pacer
        const number = crypto.randomUUID()
        const other = crypto.randomUUID()
        const start = yield* Clock.currentTimeMillis
        const when: Array<readonly [string, number]> = []
        const dial = (name: string, pacer: DialPacer["Type"], voiceNumberId: string) =>
          pacer.slot(voiceNumberId).pipe(Effect.zipRight(Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => when.push([name, t - start])))))
        // one after another, so each takes the slot after the last: a, b, a, b at 2 a second
        const fibers = []
        for (const [name, pacer] of [["a1", a], ["b1", b], ["a2", a], ["b2", b]] as const) {
          const sleeping = (yield* TestClock.sleeps()).length
          fibers.push(yield* Effect.fork(dial(name, pacer, number)))
          // its slot is taken (by a statement: real I/O) once it dialled or sleeps until its slot
          while (!when.some(([n]) => n === name) && (yield* TestClock.sleeps()).length === sleeping) {
            yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          }
        }
        yield* dial("other", b, other)
        yield* TestClock.adjust("2 seconds")
        yield* Fiber.joinAll(fibers)
        assert.deepStrictEqual(when, [["a1", 0], ["other", 0], ["b1", 500], ["a2", 1000], ["b2", 1500]])
        // idle past its next slot: at once
        yield* TestClock.adjust("10 seconds")
        const before = yield* Clock.currentTimeMillis
        yield* dial("late", a, number)
        assert.deepStrictEqual(when.at(-1), ["late", before - start])
      }))
  })
})

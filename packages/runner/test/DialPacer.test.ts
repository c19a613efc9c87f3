import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import { DialPacer } from "@voiceagent/runner/Campaigns/DialPacer"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Clock, Effect, Fiber, TestClock } from "effect"
import * as crypto from "node:crypto"

// Two runners' pacers are two instances of the layer over one database: they share a number's slots.
const pacer = Effect.provide(DialPacer, DialPacer.layer(2))

describe("dial pacing per number, shared by the runners", () => {
  layer(TestDatabase.layer, { timeout: 60_000 })((it) => {
    it.effect(
      "two pacers (two runners) alternate on one number's slots at its rate; another number is free; a number idle " +
        "past its slot dials at once",
      () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.parse("2026-06-01T12:00:00Z"))
          const a = yield* pacer
          const b = yield* pacer
          const number = crypto.randomUUID()
          const other = crypto.randomUUID()
          const start = yield* Clock.currentTimeMillis
          const when: Array<readonly [string, number]> = []
          const dial = (name: string, pacer: DialPacer["Type"], voiceNumberId: string) =>
            pacer.slot(voiceNumberId).pipe(
              Effect.zipRight(
                Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => when.push([name, t - start])))
              )
            )
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
        })
    )

    it.effect(
      "a campaign's run takes its slots a second's worth per statement: another runner's dial gets the slot after " +
        "that second",
      () =>
        Effect.gen(function*() {
          yield* TestClock.setTime(Date.parse("2026-06-02T12:00:00Z"))
          const a = yield* pacer
          const b = yield* pacer
          const sql = yield* SqlClient.SqlClient
          const number = crypto.randomUUID()
          const start = yield* Clock.currentTimeMillis
          const when: Array<readonly [string, number]> = []
          const at = (name: string) =>
            Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => when.push([name, t - start])))
          const nextAt = Effect.map(
            sql<{ nextAt: string }>`SELECT next_at FROM voice_number_pace WHERE voice_number_id = ${number}`,
            ([row]) => Number(row!.nextAt) - start
          )
          const run = yield* a.run(number, 4)
          yield* run.next
          yield* at("a1")
          // the run's first statement took two slots (a second at 2 a second): the number is taken until 1 s
          assert.strictEqual(yield* nextAt, 1_000)
          // another runner's dial now: the slot after the run's second
          const other = yield* Effect.fork(Effect.zipRight(b.slot(number), at("b1")))
          while ((yield* nextAt) === 1_000) yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          const settle = Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
          // a2: the run's own second slot, no statement
          const a2 = yield* Effect.fork(Effect.zipRight(run.next, at("a2")))
          yield* TestClock.adjust("500 millis")
          yield* Fiber.join(a2)
          // a3: the run takes its next two slots in one statement, after b1's
          const a3 = yield* Effect.fork(Effect.zipRight(run.next, at("a3")))
          while ((yield* nextAt) !== 2_500) yield* settle
          yield* TestClock.adjust("1 second")
          yield* Fiber.join(a3)
          yield* Fiber.join(other)
          // a4: its slot was taken with a3's
          const a4 = yield* Effect.fork(Effect.zipRight(run.next, at("a4")))
          yield* TestClock.adjust("500 millis")
          yield* Fiber.join(a4)
          assert.deepStrictEqual([...when].sort((x, y) => x[1] - y[1]), [["a1", 0], ["a2", 500], ["b1", 1_000], [
            "a3",
            1_500
          ], ["a4", 2_000]])
          // no slot taken beyond the run's four
          assert.strictEqual(yield* nextAt, 2_500)
        })
    )
  })
})

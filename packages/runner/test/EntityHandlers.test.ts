import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as Rpc from "@effect/rpc/Rpc"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { DeadLetters } from "@voiceagent/runner/Cluster/DeadLetters"
import { isOutage, MAX_DELIVERIES, withEntityHandlers } from "@voiceagent/runner/Cluster/EntityHandlers"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect, Exit, Fiber, Layer, Ref, Schema, TestClock } from "effect"

const Flaky = Entity.make("Flaky", [
  Rpc.make("Break", { payload: { id: Schema.String }, success: Schema.Number, primaryKey: ({ id }) => id }),
  Rpc.make("Outage", {
    payload: { id: Schema.String, failures: Schema.Number },
    success: Schema.Number,
    primaryKey: ({ id }) => id
  })
]).annotateRpcs(ClusterSchema.Persisted, true)

class Runs extends Effect.Service<Runs>()("test/Runs", { effect: Ref.make(0) }) {}

// what PostgreSQL answered for the NUL in a campaign id, and a connection that dropped
const refused = new SqlError({ cause: { code: "22021", message: "invalid byte sequence for encoding \"UTF8\": 0x00" } })
const dropped = new SqlError({ cause: { code: "08006", message: "connection failure" } })

const FlakyLive = Flaky.toLayer(
  Effect.gen(function*() {
    const runs = yield* Runs
    const handlers = yield* withEntityHandlers
    return handlers({
      Break: () => Ref.update(runs, (n) => n + 1).pipe(Effect.zipRight(Effect.die(refused))),
      Outage: ({ payload }) =>
        Ref.updateAndGet(runs, (n) => n + 1).pipe(
          Effect.flatMap((n) => n <= payload.failures ? Effect.die(dropped) : Effect.succeed(n))
        )
    })
  }),
  { disableFatalDefects: true }
)

const TestLayer = FlakyLive.pipe(
  Layer.provideMerge(SingleRunner.layer({ runnerStorage: "sql", shardingConfig: { entityMessagePollInterval: 50 } })),
  Layer.provideMerge(Layer.mergeAll(Runs.Default, DeadLetters.Default)),
  Layer.provideMerge(TestDatabase.layer)
)

/** Runs `effect` to its end, moving the TestClock a second at a time (the retries' pauses). */
const withClockMoving = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(effect)
    for (let i = 0; i < 120 && fiber.unsafePoll() === null; i++) {
      yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
      yield* TestClock.adjust("1 second")
    }
    return yield* Fiber.await(fiber)
  })

describe("entity handlers", () => {
  it("tells outages from defects a new try cannot change", () => {
    assert.isTrue(isOutage(dropped))
    assert.isTrue(isOutage(new SqlError({ cause: { code: "40P01" } })))
    assert.isTrue(
      isOutage(new SqlError({ cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }))
    )
    assert.isTrue(isOutage({ _tag: "PersistenceError" }))
    assert.isFalse(isOutage(refused))
    assert.isFalse(isOutage(new SqlError({ cause: { code: "23505" } })))
    assert.isFalse(isOutage(new TypeError("x is undefined")))
  })

  it.effect(
    "a message that dies on every delivery is tried MAX_DELIVERIES times, recorded, and its caller answered",
    () =>
      Effect.gen(function*() {
        const client = (yield* Flaky.client)("entity-1")
        const exit = yield* withClockMoving(client.Break({ id: "bad-1" }))
        assert.isTrue(Exit.isFailure(exit), "the caller got an error, not a hang")
        assert.strictEqual(yield* Ref.get(yield* Runs), MAX_DELIVERIES)
        const sql = yield* SqlClient.SqlClient
        const letters = yield* sql<
          { entityType: string; entityId: string; rpc: string; payload: string; cause: string; attempts: number }
        >`
        SELECT entity_type, entity_id, rpc, payload, cause, attempts FROM dead_letters
      `
        assert.strictEqual(letters.length, 1)
        assert.deepInclude(letters[0], {
          entityType: "Flaky",
          entityId: "entity-1",
          rpc: "Break",
          attempts: MAX_DELIVERIES
        })
        assert.deepStrictEqual(JSON.parse(letters[0]!.payload), { id: "bad-1" })
        assert.include(letters[0]!.cause, "invalid byte sequence")
        // sent again: answered from storage, not delivered again
        const again = yield* withClockMoving(client.Break({ id: "bad-1" }))
        assert.isTrue(Exit.isFailure(again))
        assert.strictEqual(yield* Ref.get(yield* Runs), MAX_DELIVERIES)
      }).pipe(Effect.provide(TestLayer)),
    { timeout: 60_000 }
  )

  it.effect(
    "an outage is waited out, however many tries it takes, and nothing is recorded",
    () =>
      Effect.gen(function*() {
        const client = (yield* Flaky.client)("entity-2")
        const exit = yield* withClockMoving(client.Outage({ id: "flaky-1", failures: MAX_DELIVERIES + 2 }))
        assert.deepStrictEqual(exit, Exit.succeed(MAX_DELIVERIES + 3))
        const sql = yield* SqlClient.SqlClient
        assert.strictEqual((yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM dead_letters`)[0]!.n, 0)
      }).pipe(Effect.provide(TestLayer)),
    { timeout: 60_000 }
  )
})

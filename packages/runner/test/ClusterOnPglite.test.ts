import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as SingleRunner from "@effect/cluster/SingleRunner"
import * as Rpc from "@effect/rpc/Rpc"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as PgliteClient from "@voiceagent/runner/Sql/PgliteClient"
import { Effect, Layer, Ref, Schema } from "effect"

const Counter = Entity.make("Counter", [
  Rpc.make("Increment", {
    payload: { requestId: Schema.String, by: Schema.Number },
    success: Schema.Number,
    primaryKey: ({ requestId }) => requestId
  }),
  Rpc.make("Get", { success: Schema.Number }).annotate(ClusterSchema.Persisted, false)
]).annotateRpcs(ClusterSchema.Persisted, true)

class Applied extends Effect.Service<Applied>()("test/Applied", {
  effect: Ref.make(0)
}) {}

const CounterLive = Counter.toLayer(Effect.gen(function*() {
  const applied = yield* Applied
  const count = yield* Ref.make(0)
  return {
    Increment: ({ payload }) =>
      Ref.update(applied, (n) => n + 1).pipe(Effect.zipRight(Ref.updateAndGet(count, (n) => n + payload.by))),
    Get: () => Ref.get(count)
  }
}))

const Database = PgliteClient.layer({ dataDir: undefined })

const ClusterLive = CounterLive.pipe(
  Layer.provideMerge(SingleRunner.layer({ runnerStorage: "sql", shardingConfig: { entityMessagePollInterval: 50 } })),
  Layer.provideMerge(Applied.Default),
  Layer.provideMerge(Database)
)

describe("@effect/cluster on the PGlite SqlClient", () => {
  it.live(
    "delivers persisted messages once per primary key and stores them in the cluster tables",
    () =>
      Effect.gen(function*() {
        const makeClient = yield* Counter.client
        const a = makeClient("tenant-a")
        const b = makeClient("tenant-b")

        assert.strictEqual(yield* a.Increment({ requestId: "r1", by: 5 }), 5)
        // the same primary key again: answered from storage, not applied twice
        assert.strictEqual(yield* a.Increment({ requestId: "r1", by: 5 }), 5)
        assert.strictEqual(yield* a.Increment({ requestId: "r2", by: 1 }), 6)
        const concurrent = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => b.Increment({ requestId: `b-${i}`, by: 1 }),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(Math.max(...concurrent), 20)
        assert.strictEqual(yield* a.Get(), 6)
        assert.strictEqual(yield* b.Get(), 20)
        assert.strictEqual(yield* Ref.get(yield* Applied), 22)

        const sql = yield* SqlClient.SqlClient
        const [stored] = yield* sql<{ n: number }>`
        SELECT count(*) AS n FROM cluster_messages WHERE entity_type = 'Counter' AND tag = 'Increment'
      `
        assert.strictEqual(stored!.n, 22)
      }).pipe(Effect.provide(ClusterLive)),
    { timeout: 60_000 }
  )
})

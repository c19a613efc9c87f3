import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as PgliteClient from "@voiceagent/runner/Sql/PgliteClient"
import { Deferred, Effect, Exit, Fiber } from "effect"

const Memory = PgliteClient.layer({ dataDir: undefined })

describe("PgliteClient", () => {
  it.layer(Memory, { timeout: 60_000 })((it) => {
    it.effect("runs many concurrent parameterised queries", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const results = yield* Effect.forEach(
          Array.from({ length: 200 }, (_, i) => i),
          (i) => sql<{ n: number }>`SELECT ${i}::int AS n`.pipe(Effect.map(([row]) => row!.n)),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(results, Array.from({ length: 200 }, (_, i) => i))
      }))

    it.effect("sends parameterless strings through the simple protocol (several statements)", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`
          CREATE TABLE multi (a int);
          INSERT INTO multi VALUES (1), (2);
          INSERT INTO multi VALUES (3);
        `)
        const [row] = yield* sql<{ total: number }>`SELECT sum(a)::int8 AS total FROM multi`
        assert.strictEqual(row!.total, 6)
      }))

    it.effect("maps snake_case columns to camelCase fields and leaves JSON keys alone", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ someValue: number; meta: unknown }>`
          SELECT 1 AS some_value, ${JSON.stringify({ fallback_message: "hi" })}::jsonb AS meta
        `
        assert.deepStrictEqual(row, { someValue: 1, meta: { fallback_message: "hi" } })
      }))

    it.effect("a rolled-back transaction leaves nothing, and statements of other fibers stay outside it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE ledger (label text NOT NULL)`
        const inserted = yield* Deferred.make<void>()
        const proceed = yield* Deferred.make<void>()

        const transaction = yield* Effect.gen(function*() {
          yield* sql`INSERT INTO ledger VALUES ('inside')`
          yield* Deferred.succeed(inserted, undefined)
          yield* Deferred.await(proceed)
          return yield* Effect.fail("boom" as const)
        }).pipe(sql.withTransaction, Effect.fork)

        yield* Deferred.await(inserted)
        // Another fiber writes while the transaction is open: it must wait for the lock,
        // not slip into the transaction and be rolled back with it.
        const outside = yield* sql`INSERT INTO ledger VALUES ('outside')`.pipe(Effect.fork)
        const reads = yield* Effect.forEach([1, 2, 3], () => sql`SELECT count(*) FROM ledger`, {
          concurrency: "unbounded"
        }).pipe(Effect.fork)
        yield* Deferred.succeed(proceed, undefined)

        const exit = yield* Fiber.await(transaction)
        assert.isTrue(Exit.isFailure(exit))
        yield* Fiber.join(outside)
        yield* Fiber.join(reads)
        const rows = yield* sql<{ label: string }>`SELECT label FROM ledger ORDER BY label`
        assert.deepStrictEqual(rows.map((r) => r.label), ["outside"])
      }))

    it.effect("commits nested transactions through savepoints", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE nested (n int)`
        yield* Effect.gen(function*() {
          yield* sql`INSERT INTO nested VALUES (1)`
          yield* sql`INSERT INTO nested VALUES (2)`.pipe(
            Effect.zipRight(Effect.fail("inner")),
            sql.withTransaction,
            Effect.ignore
          )
          yield* sql`INSERT INTO nested VALUES (3)`
        }).pipe(sql.withTransaction)
        const rows = yield* sql<{ n: number }>`SELECT n FROM nested ORDER BY n`
        assert.deepStrictEqual(rows.map((r) => r.n), [1, 3])
      }))

    it.effect("reserve does not hold the session until BEGIN runs on it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.scoped(Effect.gen(function*() {
          const conn = yield* sql.reserve
          // Held for its whole life (as the cluster does with its lock connection), yet others proceed.
          const [row] = yield* sql<{ ok: number }>`SELECT 1 AS ok`
          assert.strictEqual(row!.ok, 1)
          yield* conn.executeUnprepared("BEGIN", [], undefined)
          const blocked = yield* sql`SELECT 2`.pipe(Effect.fork)
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 100)))
          assert.isNull(blocked.unsafePoll(), "a statement outside the transaction waits for it")
          yield* conn.executeUnprepared("COMMIT", [], undefined)
          yield* Fiber.join(blocked)
        }))
      }).pipe(Effect.timeout("10 seconds")), { timeout: 20_000 })

    it.effect("a reserved connection closed mid-transaction rolls back and frees the session", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE abandoned (n int)`
        yield* Effect.scoped(Effect.gen(function*() {
          const conn = yield* sql.reserve
          yield* conn.executeUnprepared("BEGIN", [], undefined)
          yield* conn.execute("INSERT INTO abandoned VALUES ($1)", [1], undefined)
        }))
        const rows = yield* sql`SELECT * FROM abandoned`
        assert.strictEqual(rows.length, 0)
      }).pipe(Effect.timeout("10 seconds")))

    it.effect("a statement prepared once keeps working when its table changes or the session drops it", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE shapes (id int, label text)`
        yield* sql`INSERT INTO shapes VALUES (${1}, ${"one"})`
        const read = (id: number) => sql<Record<string, unknown>>`SELECT * FROM shapes WHERE id = ${id}`
        assert.deepStrictEqual(yield* read(1), [{ id: 1, label: "one" }])
        // the prepared `SELECT *` no longer fits the table: prepared again, same answer as a fresh statement
        yield* sql`ALTER TABLE shapes ADD COLUMN weight int NOT NULL DEFAULT 7`
        assert.deepStrictEqual(yield* read(1), [{ id: 1, label: "one", weight: 7 }])
        // dropped under the client: prepared again
        yield* sql.unsafe("DEALLOCATE ALL")
        assert.deepStrictEqual(yield* read(1), [{ id: 1, label: "one", weight: 7 }])
        // a bad value is the statement's error, and the session goes on
        const bad = yield* Effect.exit(sql`SELECT * FROM shapes WHERE id = ${"not a number"}`)
        assert.isTrue(Exit.isFailure(bad))
        assert.deepStrictEqual(yield* read(1), [{ id: 1, label: "one", weight: 7 }])
        // planned for its values every run, as an unnamed statement is (never PostgreSQL's generic plan)
        const [mode] = yield* sql<{ planCacheMode: string }>`SHOW plan_cache_mode`
        assert.strictEqual(mode!.planCacheMode, "force_custom_plan")
      }))

    it.effect(
      "keeps at most 1,000 statements prepared, the least recently used closed first",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          for (let i = 0; i < 1_100; i++) {
            const [row] = yield* sql<{ n: number }>`SELECT ${i}::int + ${sql.literal(String(i))} AS n`
            assert.strictEqual(row!.n, 2 * i)
          }
          const [row] = yield* sql<
            { count: number }
          >`SELECT count(*)::int AS count FROM pg_prepared_statements WHERE name LIKE ${"pglite_%"}`
          assert.isAtMost(row!.count, 1_001)
          assert.isAtLeast(row!.count, 990)
          // the oldest texts were closed; asked again, they are prepared again and answer
          const [again] = yield* sql<{ n: number }>`SELECT ${0}::int + ${sql.literal("0")} AS n`
          assert.strictEqual(again!.n, 0)
        }),
      { timeout: 60_000 }
    )
  })

  it.live("keeps data in a directory across restarts", () =>
    Effect.gen(function*() {
      const os = yield* Effect.promise(() => import("node:os"))
      const fs = yield* Effect.promise(() => import("node:fs"))
      const dir = fs.mkdtempSync(`${os.tmpdir()}/pglite-`)
      const write = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`CREATE TABLE kept (n int)`.pipe(Effect.zipRight(sql`INSERT INTO kept VALUES (42)`)))
      const read = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: number }>`SELECT n FROM kept`)
      yield* write.pipe(Effect.provide(PgliteClient.layer({ dataDir: dir })))
      const rows = yield* read.pipe(Effect.provide(PgliteClient.layer({ dataDir: dir })))
      assert.deepStrictEqual(rows.map((r) => r.n), [42])
      fs.rmSync(dir, { recursive: true, force: true })
    }), { timeout: 60_000 })
})

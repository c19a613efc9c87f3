import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { Tenant } from "@voiceagent/domain/Users"
import * as Rows from "@voiceagent/runner/Sql/Rows"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Cause, Effect, Exit, Option, Schema } from "effect"

/** Rows as the engine under test gives them, decoded by the row schemas (`Sql/Rows.ts`). */
describe(`row decoding (${TestDatabase.backend()})`, () => {
  it.layer(TestDatabase.layer, { timeout: 120_000 })((it) => {
    it.effect("each engine's int8, numeric sum, char(3), timestamptz and jsonb decode to the domain's values", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const row = yield* Rows.single(
          Schema.Struct({
            n: Schema.Int,
            total: Rows.NumericInt,
            currency: Schema.Trim,
            at: Schema.DateFromSelf,
            doc: Rows.JsonObjectColumn
          }),
          sql`
            SELECT count(*) AS n, sum(x)::numeric AS total, 'EU'::char(3) AS currency,
                   '2026-01-31T09:00:00Z'::timestamptz AS at, '{"a":[1]}'::jsonb AS doc
            FROM (VALUES (9007199254740000::bigint), (1::bigint)) AS v(x)
          `
        ).pipe(Effect.orDie)
        assert.deepStrictEqual(row, {
          n: 2,
          total: 9007199254740001,
          currency: "EU",
          at: new Date("2026-01-31T09:00:00Z"),
          doc: { a: [1] }
        })
      }))

    it.effect("a domain class from its row: the class built, a char(3) column trimmed", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const tenant = yield* Rows.findOne(
          Rows.of(Tenant, { currency: Schema.Trim }),
          sql`SELECT '0194a0c0-0000-7000-8000-000000000001'::uuid AS id, 'Co' AS name, 'EU'::char(3) AS currency,
                     '2026-01-31T09:00:00Z'::timestamptz AS created_at`
        ).pipe(Effect.orDie)
        assert.isTrue(Option.isSome(tenant) && tenant.value instanceof Tenant)
        assert.strictEqual(Option.getOrThrow(tenant).currency, "EU")
      }))

    it.effect(
      "a column of another type, or missing, is a defect that names it; a failing statement stays a SqlError",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const TenantRow = Rows.of(Tenant)
          const wrongType = yield* Effect.exit(
            Rows.findOne(
              TenantRow,
              sql`SELECT gen_random_uuid() AS id, 'Co' AS name, 'EUR' AS currency, 'yesterday' AS created_at`
            )
          )
          assert.isTrue(Exit.isFailure(wrongType) && Cause.isDie(wrongType.cause))
          assert.include(Cause.pretty((wrongType as Exit.Failure<unknown, unknown>).cause), "createdAt")
          const renamed = yield* Effect.exit(
            Rows.findAll(
              TenantRow,
              sql`SELECT gen_random_uuid() AS id, 'Co' AS tenant_name, 'EUR' AS currency, now() AS created_at`
            )
          )
          assert.isTrue(Exit.isFailure(renamed) && Cause.isDie(renamed.cause))
          assert.include(Cause.pretty((renamed as Exit.Failure<unknown, unknown>).cause), "name")
          const failing = yield* Effect.flip(Rows.findAll(TenantRow, sql`SELECT * FROM no_such_table`))
          assert.strictEqual(failing._tag, "SqlError")
        })
    )

    it.effect("a page: the rows in the query's order and the count as its total", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const page = yield* Rows.page(
          Schema.Struct({ x: Schema.Int }),
          sql`SELECT x FROM generate_series(1, 5) AS x ORDER BY x DESC LIMIT 2 OFFSET 2`,
          sql`SELECT count(*) AS total FROM generate_series(1, 5)`
        )
        assert.deepStrictEqual(page, { items: [{ x: 3 }, { x: 2 }], total: 5 })
      }))
  })
})

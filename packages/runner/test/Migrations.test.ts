import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as Migrations from "@voiceagent/runner/Sql/Migrations"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"

describe(`migrations (${TestDatabase.backend()})`, () => {
  it.layer(TestDatabase.layerUnmigrated, { timeout: 120_000 })((it) => {
    it.effect("apply every numbered file once, in order, and then nothing", () =>
      Effect.gen(function*() {
        const files = Migrations.readMigrationFiles()
        assert.isAbove(files.length, 0)
        assert.deepStrictEqual(files.map((f) => f.id), [...files.map((f) => f.id)].sort((a, b) => a - b))
        assert.strictEqual(yield* Migrations.latestApplied, 0)

        const applied = yield* Migrations.run()
        assert.deepStrictEqual(applied.map(([id]) => id), files.map((f) => f.id))
        assert.strictEqual(yield* Migrations.latestApplied, Migrations.latestAvailable())
        assert.deepStrictEqual(yield* Migrations.run(), [])

        const sql = yield* SqlClient.SqlClient
        const tables = yield* sql<{ name: string }>`
          SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'
        `
        const names = tables.map((t) => t.name)
        for (const table of ["tenants", "users", "api_keys", Migrations.MIGRATIONS_TABLE]) {
          assert.include(names, table)
        }
      }))

    it.effect("concurrent runs apply each migration once", () =>
      Effect.gen(function*() {
        const results = yield* Effect.all([Migrations.run(), Migrations.run(), Migrations.run()], {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(results.flat(), [])
      }))
  })
})

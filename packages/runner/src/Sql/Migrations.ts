/**
 * Schema migrations: numbered `.sql` files in the repository's `sql/` directory, applied in order
 * by the `@effect/sql` migrator (in one transaction, under a table lock, so concurrent starts are safe).
 * The same files run on PGlite and PostgreSQL.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Rows from "./Rows.js"

export const MIGRATIONS_TABLE = "effect_sql_migrations"

export const defaultDirectory = fileURLToPath(new URL("../../../../sql/", import.meta.url))

export interface MigrationFile {
  readonly id: number
  readonly name: string
  readonly sql: string
}

/** Reads `NNNN_name.sql` files; anything else in the directory is ignored. */
export const readMigrationFiles = (directory: string = defaultDirectory): ReadonlyArray<MigrationFile> =>
  fs.readdirSync(directory)
    .flatMap((file) => {
      const match = /^(\d+)_([\w-]+)\.sql$/.exec(file)
      return match === null
        ? []
        : [{ id: Number(match[1]), name: match[2]!, sql: fs.readFileSync(path.join(directory, file), "utf8") }]
    })
    .sort((a, b) => a.id - b.id)

const loader = (files: ReadonlyArray<MigrationFile>): Migrator.Loader =>
  Effect.succeed(
    files.map((file) =>
      [
        file.id,
        file.name,
        Effect.succeed(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(file.sql).withoutTransform))
      ] as const
    )
  )

/** Applies pending migrations; answers the ids and names it applied. */
export const run = (directory: string = defaultDirectory) =>
  Migrator.make({})({ loader: loader(readMigrationFiles(directory)), table: MIGRATIONS_TABLE })

/** The highest migration id applied, or 0 when none is (or the table does not exist yet). */
export const latestApplied = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const row = yield* Rows.single(
    Schema.Struct({ id: Schema.NullOr(Schema.Int) }),
    sql`
    SELECT max(migration_id) AS id FROM ${sql(MIGRATIONS_TABLE)}
  `
  ).pipe(Effect.catchTag("SqlError", () => Effect.succeed({ id: 0 })))
  return row.id ?? 0
})

export const latestAvailable = (directory: string = defaultDirectory): number =>
  readMigrationFiles(directory).at(-1)?.id ?? 0

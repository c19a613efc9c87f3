/**
 * A fresh, migrated database for one test layer: in-memory PGlite by default, or a new database
 * on the PostgreSQL server in `DATABASE_URL` (created on acquisition, dropped on release).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import * as Migrations from "../Sql/Migrations.js"
import * as PgliteClient from "../Sql/PgliteClient.js"
import * as PostgresClient from "../Sql/PostgresClient.js"
import { parseInt8 } from "../Sql/SqlNaming.js"

export const postgresUrl = (): string | undefined => {
  const url = process.env["DATABASE_URL"]
  return url === undefined || url === "" ? undefined : url
}

/** The machine's PostgreSQL when no DATABASE_URL names one (CI's and developers' default). */
export const LOCAL_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"

/**
 * `POSTGRES_ONLY_TESTS=with-database-url` keeps the PostgreSQL-only tests to runs that name a
 * `DATABASE_URL`. CI sets it on its PGlite pass when a PostgreSQL pass follows, so those tests (which
 * start whole clusters of processes) run once, in that pass, rather than twice on the same server.
 */
const deferredToDatabaseUrl = () =>
  postgresUrl() === undefined && process.env["POSTGRES_ONLY_TESTS"] === "with-database-url"

/** Why `reachablePostgresUrl` found nothing: for the skip message of a PostgreSQL-only test. */
export const postgresOnlySkipReason = (): string =>
  deferredToDatabaseUrl()
    ? "POSTGRES_ONLY_TESTS=with-database-url and no DATABASE_URL (CI runs it in its PostgreSQL pass)"
    : `no PostgreSQL answers (DATABASE_URL unset and ${LOCAL_POSTGRES_URL} refused)`

/**
 * A PostgreSQL server to run PostgreSQL-only tests on: `DATABASE_URL`, else the local default when
 * it answers within two seconds, else undefined (the caller skips, saying why:
 * `postgresOnlySkipReason`).
 */
export const reachablePostgresUrl = async (): Promise<string | undefined> => {
  if (deferredToDatabaseUrl()) return undefined
  const url = postgresUrl() ?? LOCAL_POSTGRES_URL
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 })
  try {
    await client.connect()
    await client.query("SELECT 1")
    return url
  } catch {
    return undefined
  } finally {
    await client.end().catch(() => undefined)
  }
}

export const backend = (): "postgres" | "pglite" => postgresUrl() === undefined ? "pglite" : "postgres"

const migrationsDigest = () => {
  const hash = crypto.createHash("sha256")
  for (const file of Migrations.readMigrationFiles()) hash.update(`${file.id}:${file.sql}`)
  return hash.digest("hex").slice(0, 16)
}

/**
 * Creating a PGlite cluster (initdb) takes seconds; loading a dump of an already migrated one takes
 * a fraction of that. The dump is cached in the OS temp directory, keyed by the migrations' content.
 */
const migratedPgliteDump = Effect.promise(async () => {
  const file = path.join(os.tmpdir(), `voiceagent-pglite-${migrationsDigest()}.tar.gz`)
  if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)])
  const db = new PGlite({ parsers: { 20: parseInt8 } })
  await db.waitReady
  await Effect.runPromise(
    Migrations.run().pipe(
      Effect.provideServiceEffect(SqlClient.SqlClient, PgliteClient.fromPglite(db)),
      Effect.provide(Reactivity.layer),
      Effect.scoped
    )
  )
  const dump = await db.dumpDataDir("gzip")
  await db.close()
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, new Uint8Array(await dump.arrayBuffer()))
  fs.renameSync(tmp, file)
  return dump
})

const pglite = Layer.scoped(
  SqlClient.SqlClient,
  Effect.gen(function*() {
    const dump = yield* migratedPgliteDump
    const db = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const db = new PGlite({ loadDataDir: dump, parsers: { 20: parseInt8 } })
        await db.waitReady
        await db.exec("SET TIME ZONE 'UTC'")
        return db
      }),
      (db) => Effect.promise(() => db.close())
    )
    return yield* PgliteClient.fromPglite(db)
  })
).pipe(Layer.provide(Reactivity.layer))

const adminQuery = (url: string, statement: string) =>
  Effect.tryPromise({
    try: async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(statement)
      } finally {
        await client.end()
      }
    },
    catch: (cause) => new SqlError({ cause, message: `Could not run: ${statement}` })
  })

/** A throwaway database on the server in `url`; its name is returned with a connection URL. */
export const scratchPostgresDatabase = (url: string) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const name = `vap_test_${crypto.randomBytes(6).toString("hex")}`
      yield* adminQuery(url, `CREATE DATABASE ${name}`)
      const scratch = new URL(url)
      scratch.pathname = `/${name}`
      return { name, url: scratch.toString() }
    }),
    ({ name }) => adminQuery(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).pipe(Effect.ignore)
  )

const postgres = (url: string) =>
  Layer.unwrapScoped(
    Effect.map(scratchPostgresDatabase(url), (db) =>
      PostgresClient.layer({ url: Redacted.make(db.url), maxConnections: 10 }).pipe(
        Layer.tap((context) =>
          Effect.provide(Migrations.run(), context)
        )
      ))
  )

/** A migrated database of its own for the layer's lifetime. */
export const layer: Layer.Layer<SqlClient.SqlClient, SqlError> = Layer.suspend(() => {
  const url = postgresUrl()
  return url === undefined ? pglite : postgres(url).pipe(Layer.orDie)
})

/** A database with no migrations applied, for testing the migrator itself. */
export const layerUnmigrated: Layer.Layer<SqlClient.SqlClient, SqlError> = Layer.suspend(() => {
  const url = postgresUrl()
  return url === undefined
    ? PgliteClient.layer({ dataDir: undefined })
    : Layer.unwrapScoped(
      Effect.map(scratchPostgresDatabase(url), (db) => PostgresClient.layer({ url: Redacted.make(db.url) }))
    )
})

/**
 * An in-process `SqlClient` over PGlite (embedded PostgreSQL compiled to WebAssembly).
 *
 * PGlite is one database session. Sharing it between fibers needs three rules:
 *
 * 1. statements without parameters go through the simple protocol (`exec`), so a string may hold
 *    several statements (the cluster and our migrations rely on that), like `pg` does;
 * 2. a transaction holds an exclusive lock on the session from `BEGIN` until `COMMIT`/`ROLLBACK`,
 *    and every other statement takes that lock for its own duration only;
 * 3. `reserve` (which `@effect/sql` also uses to run transactions, and which the cluster holds for
 *    its whole life) takes no lock on acquisition; the lock is taken when `BEGIN` runs on it.
 *
 * A consequence: code inside a transaction must not wait on a statement issued by another fiber
 * outside it, since that statement waits for the transaction to end. On PostgreSQL the two would
 * simply use two connections.
 *
 * Each statement is one call into the engine (see {@link PgliteSession}), statements with
 * parameters prepared once per text, instead of PGlite's `exec` and `query`, which take several
 * calls (and `query` parses and plans the text again) every time.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { parse as PgParse, PGlite, protocol as PgProtocol, type Results, types as PgTypes } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as FairLock from "./FairLock.js"
import * as SqlActivity from "./SqlActivity.js"
import { parseInt8, SqlNaming } from "./SqlNaming.js"

export interface PgliteClientOptions {
  /** Directory holding the database files; in memory when omitted. */
  readonly dataDir?: string | undefined
}

const BEGIN = /^\s*(BEGIN|START\s+TRANSACTION)\b/i
const END = /^\s*(COMMIT|END|ROLLBACK|ABORT)\b(?!\s+TO\b)/i

type RowMode = "object" | "array"

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

const toSqlError = (cause: unknown) =>
  new SqlError({ cause, message: cause instanceof Error ? cause.message : "Failed to execute statement" })

/**
 * PGlite does not guard its files against a second process; two writers would corrupt them.
 * A pid file next to the directory refuses a second opener while the first one is alive.
 */
const lockDirectory = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        fs.mkdirSync(dataDir, { recursive: true })
        const lockFile = `${dataDir.replace(/[\\/]+$/, "")}.lock`
        const holder = fs.existsSync(lockFile) ? Number(fs.readFileSync(lockFile, "utf8")) : NaN
        if (Number.isInteger(holder) && holder !== process.pid && isAlive(holder)) {
          throw new Error(`${dataDir} is in use by process ${holder}; stop it or use another DATA_DIR`)
        }
        fs.writeFileSync(lockFile, String(process.pid))
        return lockFile
      },
      catch: (cause) => new SqlError({ cause, message: cause instanceof Error ? cause.message : String(cause) })
    }),
    (lockFile) => Effect.sync(() => fs.rmSync(lockFile, { force: true }))
  )

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

export const make = (options: PgliteClientOptions): Effect.Effect<
  SqlClient.SqlClient,
  SqlError,
  Scope.Scope | Reactivity.Reactivity
> =>
  Effect.gen(function*() {
    if (options.dataDir !== undefined) yield* lockDirectory(options.dataDir)
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const db = new PGlite({
            ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
            parsers: { [PgTypes.INT8]: parseInt8 }
          })
          await db.waitReady
          await db.exec("SET TIME ZONE 'UTC'")
          return db
        },
        catch: (cause) =>
          new SqlError({ cause, message: `PGlite: could not open database ${options.dataDir ?? "(memory)"}` })
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    return yield* fromPglite(db)
  })

/** Statements prepared on the session at most (the least recently used is closed beyond it). */
const PREPARED_CAPACITY = 1000

/** PostgreSQL's answers when a prepared statement is gone or its plan no longer fits its tables. */
const STALE_PREPARED = /prepared statement "[^"]*" does not exist|cached plan must not change result type/

/**
 * Runs statements on a PGlite session in one call into the engine each, with the results and errors
 * PGlite's `exec` and `query` give (its own parsers, serializers and result parsing): measured on a
 * bare session, `exec("BEGIN")` costs 0.21 ms and the same Query and Sync in one `execProtocol` call
 * 0.05 ms; `query` (Parse, Describe, Bind, Describe, Execute, Sync: six calls, the text parsed and
 * planned every time) 0.32 ms and a prepared statement's Bind to Sync in one call 0.14–0.21 ms.
 *
 * - Without parameters, a string (which may hold several statements) goes through the simple
 *   protocol, as `exec` does.
 * - With parameters, the text is prepared once as a named statement (its parameter types read as
 *   `query` reads them, so values are serialized the same way; planned for its values on every run,
 *   `plan_cache_mode = force_custom_plan`, as an unnamed statement is), and each run is Bind, Describe,
 *   Execute and Sync together. A statement dropped under it (`DEALLOCATE`, or a table changed so its
 *   plan no longer fits) is prepared again and run once more when no transaction is open; inside
 *   one, the error has already aborted it, as it would have for `query`. At most
 *   {@link PREPARED_CAPACITY} stay prepared, the least recently used closed beyond that.
 *
 * Calls are not synchronised here: each is one synchronous exchange ending in Sync, and the client
 * above runs one statement at a time. PGlite's `syncToFs` after a statement is skipped: in Node its
 * file systems (memory, the host's directory) write through and it does nothing.
 */
class PgliteSession {
  private readonly byText = new Map<string, { readonly name: string; readonly types: ReadonlyArray<number> }>()
  private readonly closing: Array<Uint8Array> = []
  private next = 0

  constructor(private readonly db: PGlite, private readonly capacity = PREPARED_CAPACITY) {}

  async exec(sql: string, rowMode: RowMode): Promise<Array<Results>> {
    const messages = await this.call([PgProtocol.serialize.query(sql), PgProtocol.serialize.sync()])
    return PgParse.parseResults(messages, this.db.parsers, { rowMode })
  }

  async query(sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Results> {
    try {
      return await this.run(sql, params, rowMode)
    } catch (error) {
      if (!(error instanceof Error && STALE_PREPARED.test(error.message)) || this.db.isInTransaction()) throw error
      this.byText.delete(sql)
      return await this.run(sql, params, rowMode)
    }
  }

  private async call(parts: ReadonlyArray<Uint8Array>) {
    if (this.db.closed) throw new Error("PGlite is closed")
    const { messages } = await this.db.execProtocol(Buffer.concat(parts), { syncToFs: false })
    return messages
  }

  private async run(sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode): Promise<Results> {
    const statement = this.byText.get(sql) ?? await this.prepare(sql)
    // most recently used last: a Map iterates in insertion order
    this.byText.delete(sql)
    this.byText.set(sql, statement)
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null
      const serialize = this.db.serializers[statement.types[i]!]
      return serialize ? serialize(value) : (value as { toString(): string }).toString()
    })
    const messages = await this.call([
      ...this.closing.splice(0),
      PgProtocol.serialize.bind({ statement: statement.name, values }),
      PgProtocol.serialize.describe({ type: "P" }),
      PgProtocol.serialize.execute({}),
      PgProtocol.serialize.sync()
    ])
    return PgParse.parseResults(messages, this.db.parsers, { rowMode })[0]!
  }

  private async prepare(sql: string) {
    const name = `pglite_${this.next++}`
    const messages = await this.call([
      PgProtocol.serialize.parse({ name, text: sql }),
      PgProtocol.serialize.describe({ type: "S", name }),
      PgProtocol.serialize.sync()
    ])
    const statement = { name, types: PgParse.parseDescribeStatementResults(messages) }
    this.byText.set(sql, statement)
    if (this.byText.size > this.capacity) {
      const [oldest, { name: evicted }] = this.byText.entries().next().value!
      this.byText.delete(oldest)
      this.closing.push(PgProtocol.serialize.close({ type: "S", name: evicted }))
    }
    return statement
  }
}

/** Wraps an open PGlite instance; the caller owns its lifetime. */
export const fromPglite = (
  db: PGlite
): Effect.Effect<SqlClient.SqlClient, never, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    // fair: a statement waits behind the ones that asked before it, never behind newcomers
    const session = yield* FairLock.make
    const engine = new PgliteSession(db)
    // a prepared statement is planned for its values on every run, as the unnamed statement of
    // PGlite's `query` (and of the `pg` driver on PostgreSQL) is: PostgreSQL's generic plan, which it
    // may switch to after five runs, can be far slower for some values
    yield* Effect.promise(() => engine.exec("SET plan_cache_mode = force_custom_plan", "object"))

    const run = (
      sql: string,
      params: ReadonlyArray<unknown>,
      rowMode: RowMode
    ): Effect.Effect<Array<Results>, SqlError> =>
      Effect.tryPromise({
        try: async () => {
          // PGlite runs a statement synchronously and resolves at once; without a turn of the event
          // loop between statements, a busy process chains them as microtasks and stops accepting
          // connections and reading sockets (measured: new connections waited seconds under load)
          SqlActivity.begin()
          try {
            await yieldToEventLoop()
            return params.length === 0
              ? await engine.exec(sql, rowMode)
              : [await engine.query(sql, params, rowMode)]
          } finally {
            SqlActivity.end()
          }
        },
        catch: toSqlError
      }).pipe(Effect.uninterruptible)

    const rowsOf = (results: Array<Results>): ReadonlyArray<object> =>
      results.length === 1 ? results[0]!.rows : results.map((r) => r.rows)

    /** How statements reach the session: under the per-statement lock, or inside a held transaction. */
    interface Gate {
      readonly through: <A>(sql: string, effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, SqlError>
    }

    const locked: Gate = { through: (_sql, effect) => session.withLock(effect) }

    const makeConnection = (gate: Gate): Connection => ({
      execute: (sql, params, transformRows) =>
        gate.through(sql, run(sql, params, "object")).pipe(
          Effect.map((results) => {
            const rows = rowsOf(results)
            return transformRows ? transformRows(rows) : rows
          })
        ),
      executeRaw: (sql, params) =>
        gate.through(sql, run(sql, params, "object")).pipe(
          Effect.map((results) => {
            const last = results[results.length - 1]!
            return { ...last, rowCount: last.affectedRows ?? 0 }
          })
        ),
      executeValues: (sql, params) =>
        gate.through(sql, run(sql, params, "array")).pipe(
          // in the array row mode, each row is the array of its values
          Effect.map((results) => rowsOf(results) as ReadonlyArray<ReadonlyArray<unknown>>)
        ),
      executeUnprepared: (sql, params, transformRows) =>
        gate.through(sql, run(sql, params, "object")).pipe(
          Effect.map((results) => {
            const rows = rowsOf(results)
            return transformRows ? transformRows(rows) : rows
          })
        ),
      executeStream: (sql, params, transformRows) =>
        gate.through(sql, run(sql, params, "object")).pipe(
          Effect.map((results) => {
            const rows = rowsOf(results)
            return Stream.fromIterable(transformRows ? transformRows(rows) : rows)
          }),
          Stream.unwrap
        )
    })

    const unlockedConnection = makeConnection(locked)

    // A reserved connection takes the session lock on BEGIN and gives it back on COMMIT/ROLLBACK,
    // or when its scope closes with a transaction still open.
    const reserve: Effect.Effect<Connection, SqlError, Scope.Scope> = Effect.gen(function*() {
      let holding = false
      const release = Effect.suspend(() => {
        if (!holding) return Effect.void
        holding = false
        return session.release
      })
      const gate: Gate = {
        through: (sql, effect) => {
          if (holding) {
            return END.test(sql) ? Effect.ensuring(effect, release) : effect
          }
          if (BEGIN.test(sql)) {
            return Effect.uninterruptibleMask((restore) =>
              restore(session.take).pipe(
                Effect.zipRight(Effect.sync(() => {
                  holding = true
                })),
                Effect.zipRight(Effect.onError(effect, () => release))
              )
            )
          }
          return session.withLock(effect)
        }
      }
      yield* Effect.addFinalizer(() =>
        holding
          ? run("ROLLBACK", [], "object").pipe(Effect.ignore, Effect.ensuring(release))
          : Effect.void
      )
      return makeConnection(gate)
    })

    const compiler = PgClient.makeCompiler(SqlNaming.toColumn, false)
    return yield* SqlClient.make({
      acquirer: Effect.succeed(unlockedConnection),
      transactionAcquirer: reserve,
      compiler,
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", "pglite"]],
      transformRows: Statement.defaultTransforms(SqlNaming.toField, false).array
    })
  })

export const layer = (options: PgliteClientOptions): Layer.Layer<SqlClient.SqlClient, SqlError> =>
  Layer.scoped(SqlClient.SqlClient, make(options)).pipe(Layer.provide(Reactivity.layer))

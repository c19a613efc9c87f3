/**
 * Two ledger tests hold a tenant's wallet row from a second connection (PostgreSQL only: PGlite has
 * one) to keep a wallet command waiting on it, then do something while it waits.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { TenantId } from "@voiceagent/domain/Ids"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Deferred, Effect, Fiber, Schedule } from "effect"
import * as crypto from "node:crypto"

/** A new tenant of its own. */
export const newTenant = Effect.gen(function*() {
  const { tenant } = yield* (yield* UsersRepo).create({
    email: `t-${crypto.randomUUID()}@example.com`,
    passwordHash: "x",
    companyName: "Co"
  })
  return tenant!.id as TenantId
})

/** Locks the tenant's wallet row in a transaction of its own (the row must exist); `release` commits it. */
export const holdWalletLock = (tenantId: TenantId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* Deferred.make<void>()
    const done = yield* Deferred.make<void>()
    const holder = yield* sql`SELECT 1 FROM wallets WHERE tenant_id = ${tenantId} FOR UPDATE`.pipe(
      Effect.zipRight(Deferred.succeed(locked, undefined)),
      Effect.zipRight(Deferred.await(done)),
      sql.withTransaction,
      Effect.fork
    )
    yield* Deferred.await(locked)
    return { release: Deferred.succeed(done, undefined).pipe(Effect.zipRight(Fiber.join(holder)), Effect.asVoid) }
  })

/** Until a statement like `pattern` waits on a lock in this database (real time: the database's own wait). */
export const waitingOnLock = (pattern: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE ${pattern}
    `.pipe(
      Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: ([row]) => row!.n > 0 }),
      Effect.timeout("20 seconds"),
      Effect.asVoid
    ))

/**
 * Three runner processes (started by `ClusterLocal`, as `npm run cluster:local` starts them) and a
 * client-only node on PostgreSQL; entity traffic; one runner killed with SIGKILL, another stopped
 * with SIGTERM. Used by the failover test (which asserts) and the benchmark (which reports).
 */
import * as EntityId from "@effect/cluster/EntityId"
import * as Sharding from "@effect/cluster/Sharding"
import * as SqlClient from "@effect/sql/SqlClient"
import * as ClusterLocal from "@voiceagent/devtools/ClusterLocal"
import type { TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Cluster from "@voiceagent/runner/Cluster/Cluster"
import * as Migrations from "@voiceagent/runner/Sql/Migrations"
import * as PostgresClient from "@voiceagent/runner/Sql/PostgresClient"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { scratchDirectory, startedOrDie } from "./ClusterLocalTesting.js"

export interface FailoverReport {
  readonly tenants: number
  /** Tenants whose shard the killed runner held. */
  readonly victimTenants: number
  /** From SIGKILL until every tenant's entity answered again, in ms. */
  readonly takeoverMs: number
  /** Top-ups sent in all: before, during (in flight at the kill) and after. */
  readonly sent: number
  /** Top-up transactions in the ledger: must equal `sent`. */
  readonly applied: number
  /** Tenants whose balance is not the sum of what was sent to them. */
  readonly wrongBalances: number
  /** A key resent after the takeover answered with the first transaction. */
  readonly duplicateAnsweredOnce: boolean
  /** The second victim, stopped with SIGTERM: its exit code (0 when it shut down cleanly). */
  readonly sigtermExitCode: number | null
  /** Shard locks still held by the SIGTERM'd runner's connections after it exited (0: handed back). */
  readonly locksLeftBySigterm: number
  /** From SIGTERM until every tenant's entity answered again, in ms. */
  readonly handoverMs: number
}

const clusterOptions = (port: number): Cluster.ClusterOptions => ({
  shardsPerGroup: 30,
  runnerHost: "127.0.0.1",
  runnerPort: port,
  shardLockRefreshInterval: "1 second",
  shardLockExpiration: "5 seconds",
  entityMessagePollInterval: "500 millis"
})

/** The same timings for the runner processes. */
export const runnerEnv = {
  SHARDS_PER_GROUP: "30",
  SHARD_LOCK_REFRESH: "1 second",
  SHARD_LOCK_EXPIRATION: "5 seconds",
  ENTITY_MESSAGE_POLL: "500 millis",
  LOG_LEVEL: "error"
}

export const runFailover = (adminUrl: string, tenantCount = 24) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase.scratchPostgresDatabase(adminUrl)
    const database = PostgresClient.layer({ url: Redacted.make(db.url), maxConnections: 8 })
    const tenants = yield* Effect.gen(function*() {
      yield* Migrations.run()
      const users = yield* UsersRepo
      return yield* Effect.forEach(Array.from({ length: tenantCount }, (_, i) => i), (i) =>
        Effect.map(
          users.create({ email: `failover-${i}@example.com`, passwordHash: "x", companyName: `T${i}` }),
          ({ tenant }) => tenant!.id as TenantId
        ))
    }).pipe(Effect.provide(UsersRepo.Default.pipe(Layer.provideMerge(database))), Effect.orDie)

    // three runners and nothing else: the schema is migrated above, the client node is this process
    const { runners } = yield* startedOrDie(ClusterLocal.start({
      databaseUrl: db.url,
      logsDir: yield* scratchDirectory("failover-"),
      runners: 3,
      services: [],
      gateway: false,
      migrate: false,
      chroma: "none",
      env: runnerEnv
    }))
    const ports = runners.map((r) => r.port!)

    return yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sharding = yield* Sharding.Sharding
      // wait until the shards are shared out among the three runners
      // shard locks are PostgreSQL advisory locks numbered 1000000 + shard, held by each runner's connection
      const locks = yield* Effect.gen(function*() {
        for (let i = 0; i < 120; i++) {
          const rows = yield* sql<{ shardId: string; holder: string }>`
            SELECT 'default:' || (l.objid::text::bigint - 1000000) AS shard_id, a.application_name AS holder
            FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
          `
          const holders = new Set(rows.map((r) => r.holder))
          if (holders.size === 3 && rows.length === 30) return rows
          yield* Effect.sleep("500 millis")
        }
        return yield* Effect.dieMessage("the runners did not share the shards out")
      })
      const victimShards = new Set(locks.filter((l) => l.holder.endsWith(`:${ports[1]}`)).map((l) => l.shardId))
      const victimTenants = tenants.filter((t) =>
        victimShards.has(sharding.getShardId(EntityId.make(t), "default").toString())
      ).length
      const client = yield* TenantEntity.client
      const topUp = (tenant: TenantId, key: string, amount: number) =>
        client(tenant).TopUp({ idempotencyKey: key, amount }).pipe(Effect.orDie)

      // every tenant answers before anything happens
      yield* Effect.forEach(tenants, (t) => topUp(t, "before", 1), { concurrency: 8, discard: true })
      // messages in flight when a runner dies
      const inFlight = yield* Effect.fork(
        Effect.forEach(tenants, (t) => topUp(t, "during", 10), { concurrency: "unbounded", discard: true })
      )
      const victim = runners[1]!
      yield* victim.kill("SIGKILL")
      const killedAt = Date.now()
      yield* victim.exited
      const answered = yield* Effect.forEach(tenants, (t) => Effect.map(topUp(t, "after", 100), () => Date.now()), {
        concurrency: "unbounded"
      })
      const takeoverMs = Math.max(...answered) - killedAt
      yield* Fiber.join(inFlight)

      const first = yield* topUp(tenants[0]!, "after", 100)
      const again = yield* topUp(tenants[0]!, "after", 100)

      // a clean stop: SIGTERM releases the runner's shard locks on the way out, so the last runner
      // takes them on its next rebalance instead of waiting for the locks to expire
      const stopping = runners[2]!
      const stoppedAt = Date.now()
      const sigtermExitCode = (yield* stopping.stop("SIGTERM")).code
      const [left] = yield* sql<{ n: number }>`
        SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND a.datname = current_database()
          AND a.application_name LIKE ${`%:${ports[2]}`}
      `
      const answeredAgain = yield* Effect.forEach(
        tenants,
        (t) => Effect.map(topUp(t, "graceful", 1000), () => Date.now()),
        { concurrency: "unbounded" }
      )
      const handoverMs = Math.max(...answeredAgain) - stoppedAt

      const [applied] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM ledger_transactions WHERE kind = 'top_up'`
      const [wrong] = yield* sql<{ n: number }>`SELECT count(*) AS n FROM wallets WHERE balance <> 1111`
      return {
        tenants: tenants.length,
        victimTenants,
        takeoverMs,
        sent: tenants.length * 4,
        applied: applied!.n,
        wrongBalances: wrong!.n +
          (tenants.length - (yield* sql<{ n: number }>`SELECT count(*) AS n FROM wallets`)[0]!.n),
        duplicateAnsweredOnce: first.id === again.id,
        sigtermExitCode,
        locksLeftBySigterm: left!.n,
        handoverMs
      } satisfies FailoverReport
    }).pipe(
      Effect.provide(Cluster.client(clusterOptions(0)).pipe(Layer.provideMerge(database))),
      Effect.orDie
    )
  }).pipe(Effect.scoped)

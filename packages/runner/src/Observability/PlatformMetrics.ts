/**
 * The platform's metrics, as Effect `Metric`s in the process-wide registry; `/metrics` (see
 * `@voiceagent/http/Observability/Metrics`) exports them with everything else in that registry
 * (the cluster's own `effect_cluster_*` gauges included).
 *
 * Two kinds:
 * - **per process**: what this process did or holds (HTTP requests, dials, wallet operations, the
 *   live calls its entities run). Sum them over processes.
 * - **cluster-wide**, read from PostgreSQL when `/metrics` is scraped (outbox depth and age, campaign
 *   progress): every runner reports the same value, so aggregate them with `max`, never `sum`.
 *
 * No label carries a tenant, campaign or call id: those are unbounded, and a series once created
 * lives as long as the process. Per-campaign progress is the campaign API's job.
 */
import * as ShardId from "@effect/cluster/ShardId"
import * as Sharding from "@effect/cluster/Sharding"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlClient from "@effect/sql/SqlClient"
import type { CallStatus } from "@voiceagent/domain/CallMachine"
import { CampaignStatuses, holdsResources } from "@voiceagent/domain/CampaignMachine"
import { ContactState } from "@voiceagent/domain/Campaigns"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Rows from "../Sql/Rows.js"

// ---------------------------------------------------------------------------
// Per process
// ---------------------------------------------------------------------------

/** Calls whose `LiveCall` entity runs in this process, by state (ENDED calls leave the gauge). */
export const liveCalls = Metric.gauge("voiceagent_live_calls", {
  description: "Live calls whose entity runs in this process, by state"
})

const liveCallsIn = (state: CallStatus) => Metric.tagged(liveCalls, "state", state)

/** Moves one call between states of the `liveCalls` gauge (`undefined`: not counted). */
export const moveLiveCall = (from: CallStatus | undefined, to: CallStatus | undefined): Effect.Effect<void> =>
  from === to
    ? Effect.void
    : Effect.zipRight(
      from === undefined || from === "ENDED" ? Effect.void : Metric.incrementBy(liveCallsIn(from), -1),
      to === undefined || to === "ENDED" ? Effect.void : Metric.increment(liveCallsIn(to))
    )

/** Dial attempts by provider and result (`placed`, or `refused` when the carrier would not dial). */
export const dialAttempts = Metric.counter("voiceagent_dial_attempts", {
  description: "Dial attempts placed with carriers, by provider and result",
  incremental: true
})

export const countDial = (provider: string, result: "placed" | "refused") =>
  Metric.increment(Metric.tagged(Metric.tagged(dialAttempts, "provider", provider), "result", result))

/**
 * What the dialer did with each due contact: `dialed`, `no_funds`, `tenant_busy`, `skipped_dnc`,
 * `held_local_hours` (outside its own calling hours: it waits for them), `skipped_no_calling_hours`.
 */
export const campaignDials = Metric.counter("voiceagent_campaign_dials", {
  description: "Campaign contacts taken by the dialer, by result",
  incremental: true
})

export const countCampaignDial = (
  result: "dialed" | "no_funds" | "tenant_busy" | "skipped_dnc" | "held_local_hours" | "skipped_no_calling_hours",
  contacts = 1
) => Metric.incrementBy(Metric.tagged(campaignDials, "result", result), contacts)

/** Campaigns whose dial loop runs in this process. */
export const campaignsDialing = Metric.gauge("voiceagent_campaigns_dialing", {
  description: "Campaigns whose dial loop runs in this process"
})

/** Wallet commands handled by this process's tenant entities, by operation and outcome. */
export const walletOperations = Metric.counter("voiceagent_wallet_operations", {
  description: "Wallet operations handled by tenant entities, by operation and outcome",
  incremental: true
})

/** Counts a wallet operation: `ok`, or the tag of the error it failed with. */
export const countWalletOperation =
  (operation: string) =>
  <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.onExit(effect, (exit) => {
      const outcome = exit._tag === "Success"
        ? "ok"
        : exit.cause._tag === "Fail"
        ? exit.cause.error._tag
        : "defect"
      return Metric.increment(
        Metric.tagged(Metric.tagged(walletOperations, "operation", operation), "outcome", outcome)
      )
    })

/**
 * Shards this process holds, by group, counted when scraped. (`effect_cluster_shards` is updated
 * when shards are acquired but not when they are handed back, so it overstates a runner that gave
 * shards away.)
 */
export const shardsOwned = Metric.gauge("voiceagent_cluster_shards_owned", {
  description: "Cluster shards this process holds, by shard group"
})

const countShards = Effect.gen(function*() {
  const sharding = yield* Effect.serviceOption(Sharding.Sharding)
  const config = yield* Effect.serviceOption(ShardingConfig.ShardingConfig)
  if (Option.isNone(sharding) || Option.isNone(config)) return
  for (const group of config.value.availableShardGroups) {
    let owned = 0
    for (let id = 1; id <= config.value.shardsPerGroup; id++) {
      if (sharding.value.hasShardId(ShardId.make(group, id))) owned++
    }
    yield* Metric.set(Metric.tagged(shardsOwned, "group", group), owned)
  }
})

// ---------------------------------------------------------------------------
// Cluster-wide, read when scraped
// ---------------------------------------------------------------------------

export const outboxDepth = Metric.gauge("voiceagent_outbox_depth", {
  description: "Outbox rows not yet delivered or given up, by outbox (cluster-wide: aggregate with max)"
})

export const outboxOldestAge = Metric.gauge("voiceagent_outbox_oldest_age_seconds", {
  description: "Age of the oldest undelivered outbox row, by outbox (cluster-wide: aggregate with max)"
})

export const campaignContacts = Metric.gauge("voiceagent_campaign_contacts", {
  description: "Contacts of scheduled, running and paused campaigns, by state (cluster-wide: aggregate with max)"
})

export const campaignsByStatus = Metric.gauge("voiceagent_campaigns", {
  description: "Campaigns that are scheduled, running or paused, by status (cluster-wide: aggregate with max)"
})

export const deadLetters = Metric.gauge("voiceagent_dead_letters", {
  description: "Entity messages given up on and recorded in dead_letters (cluster-wide: aggregate with max)"
})

/** The statuses the campaign gauges count: those that hold their contact list (not DRAFT, not ended). */
const ACTIVE_STATUSES = CampaignStatuses.filter(holdsResources)

/**
 * Work done before each scrape: the cluster-wide gauges, read from PostgreSQL. Provided where a
 * process has a database (runners, services, the embedded role); the gateway has none.
 */
export class MetricsRefresh extends Context.Tag("Observability/MetricsRefresh")<
  MetricsRefresh,
  { readonly refresh: Effect.Effect<void> }
>() {
  static readonly fromDatabase = Layer.effect(
    MetricsRefresh,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const context = yield* Effect.context<never>()
      const fromDatabase = Effect.gen(function*() {
        // ages against the platform's clock, which stamped the rows (not the database's now())
        const at = new Date(yield* Clock.currentTimeMillis)
        const [outboxes, contacts, campaigns, [letters]] = yield* Effect.all([
          Rows.findAll(
            Schema.Struct({ outbox: Schema.String, depth: Schema.Int, oldestSeconds: Schema.NullOr(Schema.Number) }),
            sql`
            SELECT 'webhooks' AS outbox, count(*)::int AS depth,
                   extract(epoch FROM ${at}::timestamptz - min(created_at))::float8 AS oldest_seconds
            FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL
            UNION ALL
            SELECT 'messages', count(*)::int, extract(epoch FROM ${at}::timestamptz - min(created_at))::float8
            FROM messages WHERE status IN ('QUEUED', 'SENDING')`
          ),
          Rows.findAll(
            Schema.Struct({ state: Schema.String, count: Schema.Int }),
            sql`
            SELECT cc.state, count(*)::int AS count
            FROM campaigns c JOIN campaign_contacts cc ON cc.campaign_id = c.id
            WHERE c.status IN ${sql.in(ACTIVE_STATUSES)}
            GROUP BY cc.state`
          ),
          Rows.findAll(
            Schema.Struct({ status: Schema.String, count: Schema.Int }),
            sql`
            SELECT status, count(*)::int AS count FROM campaigns
            WHERE status IN ${sql.in(ACTIVE_STATUSES)} GROUP BY status`
          ),
          Rows.findAll(Schema.Struct({ count: Schema.Int }), sql`SELECT count(*)::int AS count FROM dead_letters`)
        ])
        yield* Metric.set(deadLetters, letters?.count ?? 0)
        for (const row of outboxes) {
          yield* Metric.set(Metric.tagged(outboxDepth, "outbox", row.outbox), row.depth)
          yield* Metric.set(Metric.tagged(outboxOldestAge, "outbox", row.outbox), Math.max(0, row.oldestSeconds ?? 0))
        }
        const byState = new Map(contacts.map((r) => [r.state, r.count]))
        for (const state of ContactState.literals) {
          yield* Metric.set(Metric.tagged(campaignContacts, "state", state.toLowerCase()), byState.get(state) ?? 0)
        }
        const byStatus = new Map(campaigns.map((r) => [r.status, r.count]))
        for (const status of ACTIVE_STATUSES) {
          yield* Metric.set(Metric.tagged(campaignsByStatus, "status", status.toLowerCase()), byStatus.get(status) ?? 0)
        }
      }).pipe(
        // a scrape during a database outage still answers, with the process's own metrics
        Effect.timeout("5 seconds"),
        Effect.catchAllCause((cause) => Effect.logWarning("metrics: reading cluster-wide gauges failed", cause))
      )
      // the sharding of the process that built this layer, wherever the scrape runs
      return { refresh: Effect.zipRight(Effect.provide(countShards, context), fromDatabase) }
    })
  )

  static readonly none = Layer.succeed(MetricsRefresh, { refresh: Effect.void })
}

/**
 * A running campaign survives the runner that owns it: three runner processes on PostgreSQL (started
 * by `ClusterLocal`, as `npm run cluster:local` starts them), the
 * campaign's owner killed with SIGKILL mid-campaign, the campaign completed by the others. The
 * simulated carriers of all runners append every dial to one file, so dials are counted across
 * processes. Used by the campaign failover test.
 */
import * as EntityId from "@effect/cluster/EntityId"
import * as Sharding from "@effect/cluster/Sharding"
import * as SqlClient from "@effect/sql/SqlClient"
import type { CampaignId } from "@voiceagent/domain/Campaigns"
import type { ContactListId, PersonaId, TenantId } from "@voiceagent/domain/Ids"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import { CampaignsRepo } from "@voiceagent/runner/Campaigns/CampaignsRepo"
import * as Cluster from "@voiceagent/runner/Cluster/Cluster"
import { ContactListsRepo } from "@voiceagent/runner/Contacts/ContactListsRepo"
import { ContactsRepo } from "@voiceagent/runner/Contacts/ContactsRepo"
import { PlatformSettings } from "@voiceagent/runner/Settings"
import * as Migrations from "@voiceagent/runner/Sql/Migrations"
import * as PostgresClient from "@voiceagent/runner/Sql/PostgresClient"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClusterLocal from "../src/ClusterLocal.js"
import { scratchDirectory } from "./ClusterLocalTesting.js"

export interface CampaignFailoverReport {
  readonly contacts: number
  readonly dialsBeforeKill: number
  /** From SIGKILL until the campaign's next dial (placed by a survivor), in ms. */
  readonly resumedAfterMs: number
  readonly status: string
  readonly totalDials: number
  /** Session ids the carriers dialed more than once (must be 0: an attempt is dialed once). */
  readonly sessionsDialedTwice: number
  /** Contacts whose dials differ from their attempts (must be 0). */
  readonly contactsMiscounted: number
  /** Contacts still pending or in progress (must be 0). */
  readonly contactsNotFinal: number
  readonly attempts: number
  readonly answeredContacts: number
  readonly walletBalance: number
  readonly ledgerBalance: number
  readonly reserved: number
  readonly charged: number
  readonly toppedUp: number
}

const clusterOptions: Cluster.ClusterOptions = {
  shardsPerGroup: 30,
  runnerHost: "127.0.0.1",
  runnerPort: 0,
  shardLockRefreshInterval: "1 second",
  shardLockExpiration: "5 seconds",
  entityMessagePollInterval: "500 millis"
}

const runnerEnv = (dialLog: string) => ({
  SHARDS_PER_GROUP: "30",
  SHARD_LOCK_REFRESH: "1 second",
  SHARD_LOCK_EXPIRATION: "5 seconds",
  ENTITY_MESSAGE_POLL: "500 millis",
  SUPERVISOR_INTERVAL: "1 second",
  SIMULATOR_RING_MS: "300",
  SIMULATOR_DIAL_LOG: dialLog,
  VOICE_NUMBER_CPS: "4",
  LOG_LEVEL: "error"
})

const RECEPTIONIST = "4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001" as PersonaId

const readDials = (file: string) =>
  fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => {
      const [sessionId, to, at] = l.split(" ")
      return { sessionId: sessionId!, to: to!, at: Number(at) }
    })
    : []

export const runCampaignFailover = (adminUrl: string, answered = 30, busy = 10) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase.scratchPostgresDatabase(adminUrl)
    const database = PostgresClient.layer({ url: Redacted.make(db.url), maxConnections: 8 })
    const directory = yield* scratchDirectory("campaign-failover-")
    const dialLog = path.join(directory, "dials.log")
    const toppedUp = 100_000
    // answered numbers talk 1 s (…001); busy ones (…9001) are redialed once, a minute later
    const phones = [
      ...Array.from({ length: answered }, (_, i) => `+1646${String(200 + i)}0001`),
      ...Array.from({ length: busy }, (_, i) => `+1212${String(200 + i)}9001`)
    ]

    const seeded = yield* Effect.gen(function*() {
      yield* Migrations.run()
      const sql = yield* SqlClient.SqlClient
      const { tenant } = yield* (yield* UsersRepo).create({ email: "campaign-failover@example.com", passwordHash: "x", companyName: "Co" })
      const tenantId = tenant!.id as TenantId
      const agents = yield* AgentsRepo
      const agent = yield* agents.create(tenantId, Option.getOrThrow(yield* agents.findPersona(RECEPTIONIST)), "Dialer")
      const number = yield* (yield* VoiceNumbersRepo).create(tenantId, { phoneNumber: "+14155550100", provider: "PROVIDER_A", label: null })
      const list = yield* (yield* ContactListsRepo).create(tenantId, "failover", {})
      yield* (yield* ContactsRepo).insertMany(
        { tenantId, listId: list.id as ContactListId },
        phones.map((phoneNumber) => ({ phoneNumber, name: null, email: null, metadata: {} }))
      ).pipe(sql.withTransaction)
      yield* (yield* Ledger).topUp(tenantId, "seed", toppedUp)
      return { tenantId, agentId: agent.id, voiceNumberId: number.id, listId: list.id as ContactListId }
    }).pipe(
      Effect.provide(Layer.mergeAll(
        UsersRepo.Default,
        AgentsRepo.Default,
        VoiceNumbersRepo.Default,
        ContactListsRepo.Default,
        ContactsRepo.Default,
        Ledger.Default
      ).pipe(Layer.provideMerge(database))),
      Effect.orDie
    )

    const { runners } = yield* ClusterLocal.start({
      databaseUrl: db.url,
      logsDir: path.join(directory, "logs"),
      runners: 3,
      services: [],
      gateway: false,
      migrate: false,
      chroma: "none",
      env: runnerEnv(dialLog)
    }).pipe(Effect.orDie)
    const ports = runners.map((r) => r.port!)

    return yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sharding = yield* Sharding.Sharding
      const campaigns = yield* Campaigns
      for (let i = 0; i < 120; i++) {
        const [row] = yield* sql<{ n: number; holders: number }>`
          SELECT count(*)::int AS n, count(DISTINCT a.application_name)::int AS holders
          FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
        `
        if (row!.n === 30 && row!.holders === 3) break
        yield* Effect.sleep("500 millis")
      }
      const campaign = yield* campaigns.create(seeded.tenantId, {
        name: "Failover",
        agentId: seeded.agentId,
        voiceNumberId: seeded.voiceNumberId,
        contactListId: seeded.listId,
        maxAttempts: 2,
        redialDelayMin: 1,
        maxConcurrentCalls: 8,
        timezone: "UTC",
        callWindowStart: "00:00",
        callWindowEnd: "23:59",
        callDays: [1, 2, 3, 4, 5, 6, 7]
      } as any)
      const id = campaign.id as CampaignId
      yield* campaigns.schedule(seeded.tenantId, id, null)

      // the owner: the runner holding the campaign's shard lock
      const shard = sharding.getShardId(EntityId.make(id), "default").toString()
      const [owner] = yield* sql<{ holder: string }>`
        SELECT a.application_name AS holder
        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
          AND 'default:' || (l.objid::text::bigint - 1000000) = ${shard}
      `
      const victim = runners[ports.findIndex((p) => owner!.holder.endsWith(`:${p}`))]!

      // kill the owner mid-campaign
      for (let i = 0; i < 600 && readDials(dialLog).length < 12; i++) yield* Effect.sleep("50 millis")
      yield* victim.kill("SIGKILL")
      const killedAt = Date.now()
      const dialsBeforeKill = readDials(dialLog).length
      yield* victim.exited

      let resumedAfterMs = -1
      let final = campaign
      for (let i = 0; i < 1800; i++) {
        if (resumedAfterMs < 0 && readDials(dialLog).some((d) => d.at > killedAt)) resumedAfterMs = Date.now() - killedAt
        final = yield* campaigns.get(seeded.tenantId, id)
        if (final.status === "COMPLETED") break
        yield* Effect.sleep("100 millis")
      }
      yield* Effect.sleep("500 millis")

      const dials = readDials(dialLog)
      const perSession = new Map<string, number>()
      for (const d of dials) perSession.set(d.sessionId, (perSession.get(d.sessionId) ?? 0) + 1)
      const attempts = yield* (yield* CampaignsRepo).attempts(seeded.tenantId, id, { page: 1, pageSize: 10_000 })
      const dialedAttempts = new Map<string, number>()
      for (const a of attempts.items) if (a.status !== "SKIPPED") dialedAttempts.set(a.phoneNumber, (dialedAttempts.get(a.phoneNumber) ?? 0) + 1)
      const dialsPerPhone = new Map<string, number>()
      for (const d of dials) dialsPerPhone.set(d.to, (dialsPerPhone.get(d.to) ?? 0) + 1)
      const contactsMiscounted = phones.filter((p) => (dialsPerPhone.get(p) ?? 0) !== (dialedAttempts.get(p) ?? 0)).length
      const [notFinal] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = ${id} AND state IN ('PENDING', 'IN_PROGRESS')
      `
      const [wallet] = yield* sql<{ balance: number; reserved: number }>`
        SELECT balance::int AS balance, reserved::int AS reserved FROM wallets WHERE tenant_id = ${seeded.tenantId}
      `
      const [ledger] = yield* sql<{ sum: number }>`
        SELECT COALESCE(sum(amount), 0)::int AS sum FROM ledger_entries WHERE tenant_id = ${seeded.tenantId} AND account = 'wallet'
      `
      const [charged] = yield* sql<{ sum: number }>`
        SELECT COALESCE(sum(cost), 0)::int AS sum FROM call_sessions WHERE tenant_id = ${seeded.tenantId}
      `
      return {
        contacts: phones.length,
        dialsBeforeKill,
        resumedAfterMs,
        status: final.status,
        totalDials: dials.length,
        sessionsDialedTwice: [...perSession.values()].filter((n) => n > 1).length,
        contactsMiscounted,
        contactsNotFinal: notFinal!.n,
        attempts: attempts.total,
        answeredContacts: final.answeredContacts,
        walletBalance: wallet!.balance,
        ledgerBalance: ledger!.sum,
        reserved: wallet!.reserved,
        charged: charged!.sum,
        toppedUp
      } satisfies CampaignFailoverReport
    }).pipe(
      Effect.provide(
        Campaigns.Default.pipe(
          Layer.provideMerge(Layer.mergeAll(
            CampaignsRepo.Default,
            AgentsRepo.Default,
            VoiceNumbersRepo.Default,
            ContactListsRepo.Default
          )),
          Layer.provideMerge(Cluster.client(clusterOptions)),
          Layer.provideMerge(PlatformSettings.layer()),
          Layer.provideMerge(database)
        )
      ),
      Effect.orDie
    )
  }).pipe(Effect.scoped)

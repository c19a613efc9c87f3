/**
 * A running campaign survives the runner that owns it: three runner processes on PostgreSQL (started by `ClusterLocal`,
 * as `npm run cluster:local` starts them, with the default cluster timings), the campaign's owner stopped by a
 * failpoint between a call's start and its record of the dial (the narrowest window a crash can fall in) and killed
 * there with SIGKILL; once the others have taken over, a fourth runner joins, so shards move again mid-campaign. The
 * simulated carriers of all runners append every dial to one file, which shows when dialing resumed; the dials are
 * counted from the carrier's records (`simulated_calls`), and every call's billed time is checked against them. Used by
 * the campaign failover test.
 */
import * as EntityId from "@effect/cluster/EntityId"
import * as Sharding from "@effect/cluster/Sharding"
import * as SqlClient from "@effect/sql/SqlClient"
import * as ClusterLocal from "@voiceagent/devtools/ClusterLocal"
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
import { behaviourOf } from "@voiceagent/runner/Telephony/SimulatedCarrier"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"
import { scratchDirectory, startedOrDie } from "./ClusterLocalTesting.js"
import { openAllDay } from "./Http.js"

export interface CampaignFailoverReport {
  readonly contacts: number
  readonly dialsBeforeKill: number
  /** Whether the killed runner also ran the cluster's runner health check (a singleton). */
  readonly victimRanHealthCheck: boolean
  /** From SIGKILL until the campaign's next dial (placed by a survivor), in ms. */
  readonly resumedAfterMs: number
  /** From SIGKILL until every shard is held again, in ms. */
  readonly shardsHeldAgainAfterMs: number
  readonly status: string
  readonly totalDials: number
  /** Session ids the carriers dialed more than once (must be 0: an attempt is dialed once). */
  readonly sessionsDialedTwice: number
  /** Contacts whose dials differ from their attempts less those cut mid-dial (must be 0). */
  readonly contactsMiscounted: number
  /** Sessions the victim marked DIALING before it died and never dialled: spent, not dialled again. */
  readonly sessionsCutMidDial: number
  /** Contacts still pending or in progress (must be 0). */
  readonly contactsNotFinal: number
  readonly attempts: number
  /** Attempts placed (not skipped) with no dial time (must be 0). */
  readonly attemptsWithoutDialTime: number
  /** The campaign's `dialedContacts`, and the contacts with a placed attempt. */
  readonly dialedContacts: number
  readonly contactsWithPlacedAttempt: number
  /** Calls whose billed talk time differs from the carrier's record (must be 0). */
  readonly callsMisbilled: ReadonlyArray<string>
  /** Calls with more than one `ended` event (must be 0). */
  readonly callsEndedTwice: number
  readonly calls: number
  readonly answeredContacts: number
  readonly walletBalance: number
  readonly ledgerBalance: number
  readonly reserved: number
  readonly charged: number
  /** Calls with more than one ledger charge (must be 0). */
  readonly callsChargedTwice: number
  /** Sessions QUEUED (claimed, not started) and ENDED but not settled when the victim died. */
  readonly queuedAtKill: number
  readonly unsettledAtKill: number
  readonly toppedUp: number
}

const clusterOptions: Cluster.ClusterOptions = {
  ...Cluster.defaultClusterOptions,
  shardsPerGroup: 30,
  runnerHost: "127.0.0.1",
  runnerPort: 0
}

/**
 * Where the runner is stopped (and killed): by default between a call's start and the campaign's record of its dial.
 */
export interface FailoverPoint {
  /** A failpoint's name (`runner/src/Failpoints.ts`) */
  readonly name: string
  /** The how-many-th time a process reaches it */
  readonly at: number
}

/**
 * The default cluster timings (lock refresh and expiry, message poll, supervisor), so takeover is measured as deployed.
 */
const runnerEnv = (
  dialLog: string,
  tokens: { readonly remote: string; readonly local: string },
  point?: FailoverPoint & { readonly token: string }
) => ({
  SHARDS_PER_GROUP: "30",
  SIMULATOR_RING_MS: "300",
  SIMULATOR_DIAL_LOG: dialLog,
  // a pass claims a second's worth of the number's pace and waits for all its starts: the first pass
  // must hold the calls both failpoints wait for (see maxConcurrentCalls below)
  VOICE_NUMBER_CPS: "16",
  MAX_CONCURRENT_CALLS: "20",
  // a second of talk costs one unit: a call's cost is its billed talk time
  RATE_VOICE_PER_MINUTE: "60",
  RATE_BILLING_INCREMENT: "1",
  // The owner stops, before it records the dial, after the start of its second call whose entity
  // runs on another runner (that call goes on, and ends, while the campaign waits to be taken over),
  // and after the start of its first call whose entity runs on the owner itself (that call is in
  // progress on the line when its runner dies, and must be billed for what it talked)
  FAILPOINTS: point !== undefined
    ? `${point.name}=pause@${point.at}:${point.token}`
    : `campaign.after-call-start.remote-call=pause@2:${tokens.remote},` +
      `campaign.after-call-start.local-call=pause@1:${tokens.local}`,
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

/**
 * `point`: stop the runner that reaches that failpoint instead (whichever runs it: the campaign's owner
 * for a claim, the tenant's for a settlement flush) and kill that one.
 */
export const runCampaignFailover = (
  adminUrl: string,
  victimRunsHealthCheck = true,
  answered = 30,
  busy = 10,
  point?: FailoverPoint
) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase.scratchPostgresDatabase(adminUrl)
    const database = PostgresClient.layer({ url: Redacted.make(db.url), maxConnections: 8 })
    const directory = yield* scratchDirectory("campaign-failover-")
    const dialLog = path.join(directory, "dials.log")
    const tokens = {
      remote: path.join(directory, "remote-call.token"),
      local: path.join(directory, "local-call.token")
    }
    const pointToken = path.join(directory, "point.token")
    const stopAt = point === undefined ? undefined : { ...point, token: pointToken }
    const toppedUp = 100_000
    // answered numbers talk 1 s (…001); busy ones (…9001) are redialed once, a minute later
    const phones = [
      ...Array.from({ length: answered }, (_, i) => `+1646${String(200 + i)}0001`),
      ...Array.from({ length: busy }, (_, i) => `+1212${String(200 + i)}9001`)
    ]

    const seeded = yield* Effect.gen(function*() {
      yield* Migrations.run()
      const sql = yield* SqlClient.SqlClient
      const { tenant } = yield* (yield* UsersRepo).create({
        email: "campaign-failover@example.com",
        passwordHash: "x",
        companyName: "Co"
      })
      const tenantId = tenant!.id as TenantId
      const agents = yield* AgentsRepo
      const agent = yield* agents.create(tenantId, Option.getOrThrow(yield* agents.findPersona(RECEPTIONIST)), "Dialer")
      const number = yield* (yield* VoiceNumbersRepo).create(tenantId, {
        phoneNumber: "+14155550100",
        provider: "PROVIDER_A",
        label: null
      })
      const list = yield* (yield* ContactListsRepo).create(tenantId, "failover", {})
      yield* (yield* ContactsRepo).insertMany(
        { tenantId, listId: list.id as ContactListId },
        phones.map((phoneNumber) => ({ phoneNumber, name: null, email: null, metadata: {} }))
      ).pipe(sql.withTransaction)
      yield* (yield* Ledger).topUp(tenantId, "seed", toppedUp)
      return { tenantId, agentId: agent.id, voiceNumberId: number.id, listId: list.id as ContactListId }
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          UsersRepo.Default,
          AgentsRepo.Default,
          VoiceNumbersRepo.Default,
          ContactListsRepo.Default,
          ContactsRepo.Default,
          Ledger.Default
        ).pipe(Layer.provideMerge(database))
      ),
      Effect.orDie
    )

    const { runners } = yield* startedOrDie(ClusterLocal.start({
      databaseUrl: db.url,
      logsDir: path.join(directory, "logs"),
      runners: 3,
      services: [],
      gateway: false,
      migrate: false,
      chroma: "none",
      env: runnerEnv(dialLog, tokens, stopAt)
    }))
    const ports = runners.map((r) => r.port!)

    return yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const sharding = yield* Sharding.Sharding
      const campaigns = yield* Campaigns
      const shardHolders = sql<{ n: number; holders: number }>`
        SELECT count(*)::int AS n, count(DISTINCT a.application_name)::int AS holders
        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
      `.pipe(Effect.map(([row]) => row!))
      for (let i = 0; i < 240; i++) {
        const row = yield* shardHolders
        if (row.n === 30 && row.holders === 3) break
        yield* Effect.sleep("500 millis")
      }
      const holderOf = (shard: string) =>
        sql<{ holder: string }>`
          SELECT a.application_name AS holder
          FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
            AND 'default:' || (l.objid::text::bigint - 1000000) = ${shard}
        `.pipe(Effect.map(([row]) => row?.holder))
      // The worst case: the campaign's owner also runs the cluster's runner health check (a singleton
      // of @effect/cluster, on one shard). Drafts are made until one lands on that runner; the others
      // stay drafts and never dial.
      const healthCheckHolder = yield* holderOf(
        sharding.getShardId(EntityId.make("effect/cluster/Sharding/RunnerHealth"), "default").toString()
      )
      const draft = () =>
        campaigns.create(seeded.tenantId, {
          name: "Failover",
          agentId: seeded.agentId,
          voiceNumberId: seeded.voiceNumberId,
          contactListId: seeded.listId,
          maxAttempts: 2,
          redialDelayMin: 1,
          // the failpoints wait for a call whose entity is on the owner and two on other runners, all in
          // the first pass (its paused starts hold it; a pass claims up to a second of the number's pace,
          // VOICE_NUMBER_CPS): with 4 calls, none on the owner (a third of the shards) has a chance of
          // (2/3)^4 ≈ 20% (seen in CI at 4 cps); with 8, 4% (seen); with 16, 0.15%
          maxConcurrentCalls: 16,
          // open for the whole run, whatever the hour (a window ends at 23:59 at the latest)
          ...openAllDay()
        } as any)
      let drafts = 1
      let campaign = yield* draft()
      let owner = yield* holderOf(sharding.getShardId(EntityId.make(campaign.id), "default").toString())
      for (let i = 0; i < 100 && victimRunsHealthCheck && owner !== healthCheckHolder; i++) {
        campaign = yield* draft()
        drafts++
        owner = yield* holderOf(sharding.getShardId(EntityId.make(campaign.id), "default").toString())
      }
      if (owner === undefined) return yield* Effect.dieMessage("no runner holds the campaign's shard")
      if (victimRunsHealthCheck && owner !== healthCheckHolder) {
        return yield* Effect.dieMessage(`no campaign landed on ${healthCheckHolder}, the runner health check's holder`)
      }
      const id = campaign.id as CampaignId
      yield* campaigns.schedule(seeded.tenantId, id, null)

      // the owner stops at both failpoints (calls started, their dials not yet recorded): kill it there
      const reached = () =>
        point !== undefined ? fs.existsSync(pointToken) : fs.existsSync(tokens.remote) && fs.existsSync(tokens.local)
      for (let i = 0; i < 1200 && !reached(); i++) yield* Effect.sleep("50 millis")
      if (!reached()) {
        return yield* Effect.dieMessage(
          `the campaign's owner never reached both failpoints (dials ${readDials(dialLog).length}, ` +
            `remote ${fs.existsSync(tokens.remote)}, local ${fs.existsSync(tokens.local)}, drafts ${drafts}, ` +
            `logs ${
              fs.readdirSync(path.join(directory, "logs")).map((f) =>
                fs.readFileSync(path.join(directory, "logs", f), "utf8").slice(-800)
              ).join("\n---\n")
            })`
        )
      }
      const victim = point !== undefined
        ? runners.find((r) => r.pid === Number(fs.readFileSync(pointToken, "utf8")))!
        : runners[ports.findIndex((p) => owner.endsWith(`:${p}`))]!
      if (victim === undefined) return yield* Effect.dieMessage("the failpoint stopped no runner of the cluster")
      for (const token of point !== undefined ? [] : [tokens.remote, tokens.local]) {
        const paused = Number(fs.readFileSync(token, "utf8"))
        if (paused !== victim.pid) {
          return yield* Effect.dieMessage(`a failpoint stopped pid ${paused}, not the owner ${victim.pid}`)
        }
      }
      const victimPort = ports[runners.indexOf(victim)]!
      // the dead runner's database session can outlive it by a moment, its locks with it
      const heldBySurvivors = sql<{ n: number }>`
        SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database()
          AND a.application_name NOT LIKE ${`%:${victimPort}`}
      `.pipe(Effect.map(([row]) => row!.n))
      yield* victim.kill("SIGKILL")
      const killedAt = Date.now()
      const dialsBeforeKill = readDials(dialLog).length
      yield* victim.exited
      // what the dead runner left: calls claimed and not started, calls ended and not settled
      const [left] = yield* sql<{ queued: number; unsettled: number }>`
        SELECT count(*) FILTER (WHERE s.status = 'QUEUED')::int AS queued,
               count(*) FILTER (WHERE s.status = 'ENDED' AND r.status = 'open')::int AS unsettled
        FROM call_sessions s LEFT JOIN reservations r ON r.tenant_id = s.tenant_id AND r.id = s.id::text
        WHERE s.tenant_id = ${seeded.tenantId}
      `

      let resumedAfterMs = -1
      let shardsHeldAgainAfterMs = -1
      let joined = false
      let final = campaign
      for (let i = 0; i < 3600; i++) {
        if (resumedAfterMs < 0 && readDials(dialLog).some((d) => d.at > killedAt)) {
          resumedAfterMs = Date.now() - killedAt
        }
        if (shardsHeldAgainAfterMs < 0 && (yield* heldBySurvivors) === 30) {
          shardsHeldAgainAfterMs = Date.now() - killedAt
        }
        if (!joined && resumedAfterMs >= 0) {
          // a runner joins while calls are in progress: shards move to it mid-campaign
          joined = true
          yield* startedOrDie(ClusterLocal.start({
            databaseUrl: db.url,
            logsDir: path.join(directory, "logs-joined"),
            runners: 1,
            services: [],
            gateway: false,
            migrate: false,
            chroma: "none",
            env: runnerEnv(dialLog, tokens, stopAt)
          }))
        }
        final = yield* campaigns.get(seeded.tenantId, id)
        if (final.status === "COMPLETED") break
        yield* Effect.sleep("100 millis")
      }
      // the last calls' ends (and their webhooks, messages) commit with the campaign's completion;
      // wait for every call to have ended
      for (let i = 0; i < 300; i++) {
        const [live] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM call_sessions WHERE status <> 'ENDED'`
        if (live!.n === 0) break
        yield* Effect.sleep("100 millis")
      }

      // the carrier's dials are its records (`simulated_calls`): the dial log is appended after the record
      // is written, so a runner killed between the two leaves a dial the log does not show (a call the
      // next owner finds at the carrier by its session and carries on)
      const dials = (yield* sql<{ sessionId: string; toNumber: string }>`
        SELECT session_id, to_number FROM simulated_calls
        WHERE session_id IN (SELECT id FROM call_sessions WHERE tenant_id = ${seeded.tenantId})
      `).map((r) => ({ sessionId: r.sessionId, to: r.toNumber }))
      const perSession = new Map<string, number>()
      for (const d of dials) perSession.set(d.sessionId, (perSession.get(d.sessionId) ?? 0) + 1)
      const attempts = yield* (yield* CampaignsRepo).attempts(seeded.tenantId, id, { page: 1, pageSize: 10_000 })
      const dialedAttempts = new Map<string, number>()
      for (const a of attempts.items) {
        if (a.status !== "SKIPPED") dialedAttempts.set(a.phoneNumber, (dialedAttempts.get(a.phoneNumber) ?? 0) + 1)
      }
      const dialsPerPhone = new Map<string, number>()
      for (const d of dials) dialsPerPhone.set(d.to, (dialsPerPhone.get(d.to) ?? 0) + 1)
      // Sessions the victim had marked DIALING before it died but had not dialled yet (the carrier
      // never saw them: no dial, no carrier call id). A session past QUEUED is never dialled again, so
      // such an attempt is spent undialled: at most once, never twice. The window is the moment between
      // DIALING being written and the carrier's request (the conversation's preparation); under load a
      // kill lands in it now and then.
      const cutMidDial = yield* sql<{ id: string; toNumber: string }>`
        SELECT s.id, s.to_number FROM call_sessions s
        WHERE s.tenant_id = ${seeded.tenantId} AND s.provider_call_id IS NULL
          AND EXISTS (SELECT 1 FROM call_events e WHERE e.session_id = s.id AND e.type = 'dialing'
            AND e.at < ${new Date(
        killedAt
      )})
      `
      const undialledCut = cutMidDial.filter((c) => !perSession.has(c.id))
      const cutPerPhone = new Map<string, number>()
      for (const c of undialledCut) cutPerPhone.set(c.toNumber, (cutPerPhone.get(c.toNumber) ?? 0) + 1)
      const contactsMiscounted = phones.filter((p) =>
        (dialsPerPhone.get(p) ?? 0) !== (dialedAttempts.get(p) ?? 0) - (cutPerPhone.get(p) ?? 0)
      ).length
      const [notFinal] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = ${id} AND state
          IN ('PENDING', 'IN_PROGRESS')
      `
      const [wallet] = yield* sql<{ balance: number; reserved: number }>`
        SELECT balance::int AS balance, reserved::int AS reserved FROM wallets WHERE tenant_id = ${seeded.tenantId}
      `
      const [ledger] = yield* sql<{ sum: number }>`
        SELECT COALESCE(sum(amount), 0)::int AS sum FROM ledger_entries WHERE tenant_id = ${seeded.tenantId}
          AND account = 'wallet'
      `
      const [charged] = yield* sql<{ sum: number }>`
        SELECT COALESCE(sum(cost), 0)::int AS sum FROM call_sessions WHERE tenant_id = ${seeded.tenantId}
      `
      const [chargedTwice] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM (
          SELECT reference FROM ledger_transactions WHERE tenant_id = ${seeded.tenantId} AND kind = 'call_charge'
          GROUP BY reference HAVING count(*) > 1
        ) twice
      `
      const [undialed] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM campaign_attempts WHERE campaign_id = ${id} AND status <> 'SKIPPED'
          AND dialed_at IS NULL
      `
      const [placed] = yield* sql<{ n: number }>`
        SELECT count(DISTINCT contact_id)::int AS n FROM campaign_attempts WHERE campaign_id = ${id}
          AND status <> 'SKIPPED'
      `
      // what the carrier's record says each call talked: answered numbers (…0001) one second, the others none
      const sessions = yield* sql<
        { id: string; toNumber: string; outcome: string; durationSeconds: number; cost: number; ended: number }
      >`
        SELECT s.id, s.to_number, s.outcome, s.duration_seconds, s.cost::int AS cost,
               (SELECT count(*)::int FROM call_events e WHERE e.session_id = s.id AND e.type = 'ended') AS ended
        FROM call_sessions s WHERE s.tenant_id = ${seeded.tenantId}
      `
      const talked = (to: string) =>
        behaviourOf(to)._tag === "Answered" ? (behaviourOf(to) as { talkSeconds: number }).talkSeconds : 0
      const cut = new Set(undialledCut.map((c) => c.id))
      const callsMisbilled = sessions
        .filter((c) => c.durationSeconds !== (cut.has(c.id) ? 0 : talked(c.toNumber)) || c.cost !== c.durationSeconds)
        .map((c) => `${c.id} to ${c.toNumber}: ${c.outcome}, ${c.durationSeconds} s, cost ${c.cost}`)
      return {
        contacts: phones.length,
        dialsBeforeKill,
        victimRanHealthCheck: owner === healthCheckHolder,
        resumedAfterMs,
        status: final.status,
        totalDials: dials.length,
        sessionsDialedTwice: [...perSession.values()].filter((n) => n > 1).length,
        contactsMiscounted,
        sessionsCutMidDial: undialledCut.length,
        contactsNotFinal: notFinal!.n,
        attempts: attempts.total,
        attemptsWithoutDialTime: undialed!.n,
        dialedContacts: final.dialedContacts,
        contactsWithPlacedAttempt: placed!.n,
        callsMisbilled,
        callsEndedTwice: sessions.filter((c) => c.ended !== 1).length,
        calls: sessions.length,
        shardsHeldAgainAfterMs,
        answeredContacts: final.answeredContacts,
        walletBalance: wallet!.balance,
        ledgerBalance: ledger!.sum,
        reserved: wallet!.reserved,
        charged: charged!.sum,
        callsChargedTwice: chargedTwice!.n,
        queuedAtKill: left!.queued,
        unsettledAtKill: left!.unsettled,
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

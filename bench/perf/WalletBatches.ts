/**
 * How many times a campaign's dials lock the tenant's wallet row, and how many dials each claim and
 * each settlement flush carries (issue 18, R6/R7). The testing kit's runtime under the TestClock on a
 * fresh PGlite (as the bench's TestClock part), one number at `CPS` dials/s (default 1000), the tenant's
 * call limit `TENANT_LIMIT` (default 100000, as the bench), maxConcurrentCalls 100,
 * `CONTACTS` zero-length answered calls, window open all day. A claim is one statement (its sessions
 * share the statement's `now()` as `created_at`), a flush one statement (its reservations share
 * `closed_at`), so the rows tell the batches apart. Before batching, every dial locked the wallet twice
 * (its reservation and its settlement). Run: `npx tsx bench/perf/WalletBatches.ts`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import { PlatformSettings } from "@voiceagent/runner/Settings"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestContext from "effect/TestContext"
import { zeroLengthNumbers } from "../suites/Campaigns.js"

const CONTACTS = Number(process.env["CONTACTS"] ?? 1000)
const CPS = Number(process.env["CPS"] ?? 1000)
/** The tenant's concurrent-call limit (the bench lifts it: MAX_CONCURRENT_CALLS=100000). */
const TENANT_LIMIT = Number(process.env["TENANT_LIMIT"] ?? 100_000)

const program = Effect.gen(function*() {
  yield* TestKit.startAt("2026-01-05T00:00:00Z")
  const { agentId, tenantId } = yield* TestKit.tenant({ balance: 1_000_000_000 })
  const voiceNumberId = yield* TestKit.voiceNumber(tenantId, "+14155550100")
  const contactListId = yield* TestKit.contactList(tenantId, zeroLengthNumbers(CONTACTS))
  const campaign = yield* TestKit.campaign(tenantId, {
    name: "batches",
    agentId,
    voiceNumberId,
    contactListId,
    maxAttempts: 1,
    maxConcurrentCalls: 100,
    timezone: "UTC",
    callWindowStart: "00:00",
    callWindowEnd: "23:59",
    callDays: [1, 2, 3, 4, 5, 6, 7]
  })
  const campaigns = yield* Campaigns
  yield* campaigns.schedule(tenantId, campaign.id, null).pipe(Effect.orDie)
  for (let i = 0; i < 24 * 60; i++) {
    yield* TestKit.advance("1 minute")
    if ((yield* campaigns.get(tenantId, campaign.id).pipe(Effect.orDie)).status === "COMPLETED") break
  }
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ dials: number; claims: number; flushes: number; maxClaim: number; maxFlush: number }>`
    SELECT (SELECT count(*)::int FROM call_sessions WHERE tenant_id = ${tenantId}) AS dials,
      (SELECT count(DISTINCT created_at)::int FROM call_sessions WHERE tenant_id = ${tenantId}) AS claims,
      (SELECT count(DISTINCT closed_at)::int FROM reservations WHERE tenant_id = ${tenantId} AND purpose = 'call')
        AS flushes,
      (SELECT max(n)::int FROM (SELECT count(*) AS n FROM call_sessions WHERE tenant_id = ${tenantId}
        GROUP BY created_at) c) AS max_claim,
      (SELECT max(n)::int FROM (SELECT count(*) AS n FROM reservations WHERE tenant_id = ${tenantId}
        AND purpose = 'call' GROUP BY closed_at) f) AS max_flush
  `.pipe(Effect.orDie)
  const r = row!
  console.log(JSON.stringify({
    contacts: CONTACTS,
    cps: CPS,
    "tenant limit": TENANT_LIMIT,
    dials: r.dials,
    claims: r.claims,
    "dials per claim": +(r.dials / r.claims).toFixed(1),
    "largest claim": r.maxClaim,
    flushes: r.flushes,
    "calls per flush": +(r.dials / r.flushes).toFixed(1),
    "largest flush": r.maxFlush,
    "wallet locks per dial": +((r.claims + r.flushes) / r.dials).toFixed(3)
  }))
})

delete process.env["DATABASE_URL"]
await Effect.runPromise(program.pipe(
  Effect.provide(Layer.provideMerge(
    TestKit.layer({
      ringMillis: 0,
      callsPerSecondPerNumber: CPS,
      settings: {
        ...PlatformSettings.defaults,
        calls: { ...PlatformSettings.defaults.calls, defaultConcurrentCalls: TENANT_LIMIT }
      }
    }),
    TestContext.TestContext
  )),
  Logger.withMinimumLogLevel(LogLevel.Warning)
))

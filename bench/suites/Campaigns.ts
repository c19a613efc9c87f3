/**
 * Voice campaigns: a campaign of `contacts` contacts (default 10,000) against the simulated carrier.
 *
 * - End to end: the platform (`npm start`'s role) with instant outcomes (SIMULATOR_RING_MS=0, every
 *   number ends in 000: answered, zero seconds of talk) and the limits lifted (VOICE_NUMBER_CPS=1000,
 *   MAX_CONCURRENT_CALLS=100000, the campaign's maxConcurrentCalls at its maximum of 100, a window of
 *   00:00–23:59 every day). Everything is set up through the HTTP API; attempts per second from the
 *   schedule request to the campaign's `completedAt`, and SQL statements per attempt read from the
 *   platform process through MemoryProbe (`SqlActivity.started()`). The baseline, in the same
 *   process: the same kind of call placed through the calls API (as the calls suite does), calls
 *   per second until every one has ENDED, and statements per call.
 * - TestClock: the same number of contacts in this process, through the testing kit (the whole runtime on PGlite, timed
 *   by the kit's virtual clock, a `TestClock`), one voice number at the carriers' usual 1 dial/s and a window of
 *   09:00–10:00 New York time: 3,600 dials a day, so 10,000 contacts take three virtual days. The figure is the real
 *   time it takes to walk them.
 */
import { Campaigns as CampaignsService } from "@voiceagent/runner/Campaigns/Campaigns"
import * as SqlActivity from "@voiceagent/runner/Sql/SqlActivity"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as TestContext from "effect/TestContext"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { answeredNumbers, request, sleep } from "../lib/Api.js"
import { fixedRequests } from "../lib/Load.js"
import { memoryProbeFlags, probeStatements, probeWork, type Running, startPlatform } from "../lib/Processes.js"
import type { Row } from "../lib/Report.js"

export interface Settings {
  readonly connections: number
  /** Contacts in the measured campaign (both parts). */
  readonly campaignContacts: number
  /** Calls placed through the calls API for the baseline (at most `campaignContacts`). */
  readonly campaignApiCalls: number
  /** Which parts to run: "e2e", "tenant", "testclock". */
  readonly campaignParts: ReadonlyArray<string>
  /** "tenant": campaigns one tenant runs at once, and contacts in each. */
  readonly tenantCampaigns: number
  readonly tenantCampaignContacts: number
}

type Backend = { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string }

const WARMUP_CALLS = 200
const WARMUP_CONTACTS = 200
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7]
/** A Monday, midnight UTC, away from daylight-saving changes (New York is at UTC−5 all January). */
const TESTCLOCK_START = "2026-01-05T00:00:00Z"

/** Numbers the simulated carrier answers at once (after its ring time) and ends after zero seconds of talk. */
export const zeroLengthNumbers = (n: number): Array<string> => answeredNumbers(n, 0)

/** Polls `check` every `intervalMs` until it holds; answers with the number of polls. */
const pollUntil = async (what: string, intervalMs: number, check: () => Promise<boolean>, timeoutMs = 3_600_000) => {
  const started = Date.now()
  let polls = 0
  for (;;) {
    polls++
    if (await check()) return polls
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await sleep(intervalMs)
  }
}

/** Statements one call of `f` starts in the platform process, averaged over `n` sequential calls while idle. */
const statementsPer = async (platform: Running, n: number, f: () => Promise<unknown>) => {
  const before = await probeStatements(platform)
  for (let i = 0; i < n; i++) await f()
  return ((await probeStatements(platform)) - before) / n
}

/**
 * The window is 00:00–23:59 every day (the end is exclusive, and windows lie within a day); in the
 * last hour of a UTC day the campaign uses a zone twelve hours behind so the window stays open.
 */
const openZone = () => new Date().getUTCHours() >= 23 ? "Etc/GMT+12" : "UTC"

// ---------------------------------------------------------------------------
// End to end
// ---------------------------------------------------------------------------

const CLEANUP_RETENTION_S = 60
const CLEANUP_INTERVAL_S = 10

interface ClusterTables {
  readonly rows: number
  readonly bytes: number
}

/** The cluster's message tables: rows, and bytes on disk (a delete frees space for reuse, not to the disk). */
const clusterTables = async (url: string): Promise<ClusterTables> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query(`
      SELECT (SELECT count(*) FROM cluster_messages) + (SELECT count(*) FROM cluster_replies) AS rows,
             pg_total_relation_size('cluster_messages') + pg_total_relation_size('cluster_replies') AS bytes
    `)
    return { rows: Number(rows[0].rows), bytes: Number(rows[0].bytes) }
  } finally {
    await client.end()
  }
}

const endToEnd = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  const contacts = settings.campaignContacts
  const apiCalls = Math.min(settings.campaignApiCalls, contacts)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-campaigns-"))
  const env = {
    DATABASE_URL: backend.name === "postgres" ? backend.url : undefined,
    DATA_DIR: dataDir,
    SIMULATOR_RING_MS: "0",
    VOICE_NUMBER_CPS: "1000",
    MAX_CONCURRENT_CALLS: "100000",
    // one cleanup period after the run is waited for and measured (PostgreSQL): the shortest retention
    CLUSTER_STORAGE_RETENTION: `${CLEANUP_RETENTION_S} seconds`,
    CLUSTER_STORAGE_CLEANUP_INTERVAL: `${CLEANUP_INTERVAL_S} seconds`
  }
  const running = await startPlatform(env, memoryProbeFlags)
  const platform = running.platform
  try {
    // --- set-up through the API
    const api = `${running.gateway}/api/v1`
    const campaignApi = `${running.campaign}/api/v1`
    const account = await request("POST", `${api}/auth/signup`, "", {
      email: `campaigns-bench-${Date.now()}@example.com`,
      password: "benchmark-password",
      companyName: "Bench"
    })
    const key = (await request("POST", `${api}/api-keys`, account.token, { name: "bench" })).key as string
    await request("POST", `${api}/wallet/top-ups`, account.token, {
      amount: 100_000_000,
      idempotencyKey: "bench-funds"
    })
    const persona = (await request("GET", `${api}/prompts/personas`, key)).items[0].id as string
    const agent = await request("POST", `${api}/agents`, key, { name: "Bench agent", agent_persona_id: persona })
    const number = await request("POST", `${api}/voice-numbers`, key, {
      phoneNumber: "+14155550100",
      provider: "PROVIDER_A"
    })

    const numbers = zeroLengthNumbers(contacts + WARMUP_CONTACTS)
    const makeList = async (name: string, phones: ReadonlyArray<string>) => {
      const list = await request("POST", `${campaignApi}/contact-lists`, key, { name })
      for (let i = 0; i < phones.length; i += 500) {
        const batch = phones.slice(i, i + 500)
        const result = await request("POST", `${campaignApi}/contact-lists/${list.id}/contacts/bulk`, key, {
          contacts: batch.map((phoneNumber) => ({ phoneNumber }))
        })
        if (result.imported !== batch.length) throw new Error(`bulk import: ${JSON.stringify(result).slice(0, 500)}`)
      }
      return list.id as string
    }
    const warmupList = await makeList("warm-up", numbers.slice(contacts))
    const list = await makeList("bench", numbers.slice(0, contacts))

    const createCampaign = (name: string, contactListId: string) =>
      request("POST", `${campaignApi}/campaigns`, key, {
        name,
        agentId: agent.id,
        voiceNumberId: number.id,
        contactListId,
        maxConcurrentCalls: 100,
        maxAttempts: 1,
        timezone: openZone(),
        callWindowStart: "00:00",
        callWindowEnd: "23:59",
        callDays: EVERY_DAY
      })
    const progressOf = (id: string) => request("GET", `${campaignApi}/campaigns/${id}/progress`, key)

    /** Schedules the campaign now and waits for COMPLETED; times from the request to its completedAt. */
    const runCampaign = async (id: string, total: number) => {
      const before = await probeWork(platform)
      const scheduledAt = Date.now()
      await request("POST", `${campaignApi}/campaigns/${id}/schedule`, key, {})
      let last: any
      let lastPrint = Date.now()
      const polls = await pollUntil("the campaign to complete", 1000, async () => {
        last = await progressOf(id)
        if (last.status === "FAILED" || last.status === "PAUSED") {
          throw new Error(`campaign ${last.status}: ${JSON.stringify(last)}`)
        }
        if (Date.now() - lastPrint > 10_000) {
          lastPrint = Date.now()
          console.log(
            `  campaign: ${last.attempts.total}/${total} attempts, ${((Date.now() - scheduledAt) / 1000).toFixed(0)} s`
          )
        }
        return last.status === "COMPLETED"
      })
      const after = await probeWork(platform)
      const campaign = await request("GET", `${campaignApi}/campaigns/${id}`, key)
      const completedAt = Date.parse(campaign.completedAt)
      const seconds = (completedAt - scheduledAt) / 1000
      if (last.attempts.total !== total || last.attempts.answered !== total) {
        throw new Error(`expected ${total} answered attempts: ${JSON.stringify(last)}`)
      }
      // where the time went: schedule → first claim, and the last attempt's end → COMPLETED
      const attemptAt = async (page: number) =>
        (await request("GET", `${campaignApi}/campaigns/${id}/attempts?page=${page}&pageSize=1`, key)).items[0]
      const first = await attemptAt(1)
      const lastAttempt = await attemptAt(total)
      return {
        seconds,
        statements: after.statements - before.statements,
        cpuMicros: after.cpuMicros - before.cpuMicros,
        postgresCpuMicros: after.postgresCpuMicros - before.postgresCpuMicros,
        polls,
        toFirstDialSeconds: (Date.parse(first.claimedAt) - scheduledAt) / 1000,
        endToCompletedMs: completedAt - Date.parse(lastAttempt.endedAt)
      }
    }

    const placeUrl = `${running.comms}/api/v1/channels/voice/call`
    const callBody = JSON.stringify({ agentId: agent.id, voiceNumberId: number.id, toNumber: "+14155551000" })
    const endedCalls = async () =>
      (await request("GET", `${running.comms}/api/v1/call-logs?status=ENDED&pageSize=1`, key)).total as number
    /** Places `amount` calls with `connections` keep-alive connections; done when every one has ENDED. */
    const placeCalls = async (amount: number) => {
      const endedBefore = await endedCalls()
      const before = await probeWork(platform)
      const started = performance.now()
      const placed = await fixedRequests({
        url: placeUrl,
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: callBody,
        connections: settings.connections
      }, amount)
      if (placed.non2xx + placed.errors > 0) {
        throw new Error(`${placed.non2xx} non-2xx answers and ${placed.errors} errors placing calls`)
      }
      const polls = await pollUntil("every call to end", 250, async () => (await endedCalls()) - endedBefore >= amount)
      const seconds = (performance.now() - started) / 1000
      const after = await probeWork(platform)
      return {
        seconds,
        statements: after.statements - before.statements,
        cpuMicros: after.cpuMicros - before.cpuMicros,
        postgresCpuMicros: after.postgresCpuMicros - before.postgresCpuMicros,
        polls,
        p50: placed.p50Ms,
        p99: placed.p99Ms
      }
    }

    // --- warm-up: both paths once
    console.log(`  warm-up: ${WARMUP_CALLS} API calls and a ${WARMUP_CONTACTS}-contact campaign`)
    await placeCalls(WARMUP_CALLS)
    await runCampaign((await createCampaign("warm-up", warmupList)).id, WARMUP_CONTACTS)

    // --- idle background work (supervisors, cluster storage, webhook dispatcher), for context
    const idleBefore = await probeStatements(platform)
    const idleStarted = performance.now()
    await sleep(5_000)
    const idlePerSecond = ((await probeStatements(platform)) - idleBefore) / ((performance.now() - idleStarted) / 1000)

    // --- the measured campaign
    const tablesBefore = backend.name === "postgres" ? await clusterTables(backend.url) : undefined
    const measured = await createCampaign(`${contacts} contacts`, list)
    console.log(`  campaign of ${contacts} contacts`)
    const campaign = await runCampaign(measured.id, contacts)
    const perProgressPoll = await statementsPer(platform, 10, () => progressOf(measured.id))
    const campaignStatements = campaign.statements - campaign.polls * perProgressPoll
    const tablesAfter = backend.name === "postgres" ? await clusterTables(backend.url) : undefined

    // --- the baseline: the calls API, same process
    console.log(`  ${apiCalls} calls through the calls API`)
    const calls = await placeCalls(apiCalls)
    const perEndedPoll = await statementsPer(platform, 10, endedCalls)
    const callStatements = calls.statements - calls.polls * perEndedPoll

    // --- one cleanup period: everything processed is past the retention once it has passed
    let tablesCleaned: ClusterTables | undefined
    if (backend.name === "postgres") {
      console.log(`  waiting one cleanup period (retention ${CLEANUP_RETENTION_S} s, every ${CLEANUP_INTERVAL_S} s)`)
      await sleep((CLEANUP_RETENTION_S + CLEANUP_INTERVAL_S + 2) * 1000)
      tablesCleaned = await clusterTables(backend.url)
    }

    const attemptsPerSecond = contacts / campaign.seconds
    const callsPerSecond = apiCalls / calls.seconds
    const sqlPerAttempt = campaignStatements / contacts
    const sqlPerCall = callStatements / apiCalls
    const suite = "campaign end to end (simulated carrier, instant outcomes, limits lifted)"
    return [
      {
        suite,
        case: `calls API, ${settings.connections} connections (same process)`,
        backend: backend.name,
        metrics: {
          dials: apiCalls,
          "dials/s": Math.round(callsPerSecond),
          seconds: calls.seconds,
          "SQL/dial": sqlPerCall.toFixed(1),
          "node CPU ms/dial": (calls.cpuMicros / 1000 / apiCalls).toFixed(2),
          ...(backend.name === "postgres"
            ? { "PG CPU ms/dial": (calls.postgresCpuMicros / 1000 / apiCalls).toFixed(2) }
            : {}),
          "dials/s vs API": "1.00",
          "SQL/dial vs API": "1.00",
          "idle SQL/s": idlePerSecond.toFixed(1)
        }
      },
      {
        suite,
        case: "campaign, 1 number, maxConcurrentCalls 100",
        backend: backend.name,
        metrics: {
          dials: contacts,
          "dials/s": Math.round(attemptsPerSecond),
          seconds: campaign.seconds,
          "SQL/dial": sqlPerAttempt.toFixed(1),
          "node CPU ms/dial": (campaign.cpuMicros / 1000 / contacts).toFixed(2),
          ...(backend.name === "postgres"
            ? { "PG CPU ms/dial": (campaign.postgresCpuMicros / 1000 / contacts).toFixed(2) }
            : {}),
          "dials/s vs API": (attemptsPerSecond / callsPerSecond).toFixed(2),
          "SQL/dial vs API": (sqlPerAttempt / sqlPerCall).toFixed(2),
          "idle SQL/s": idlePerSecond.toFixed(1),
          "schedule → 1st dial s": campaign.toFirstDialSeconds,
          "last end → COMPLETED ms": campaign.endToCompletedMs
        }
      },
      ...(tablesBefore === undefined || tablesAfter === undefined || tablesCleaned === undefined ? [] : [{
        suite: "cluster storage (cluster_messages + cluster_replies) around the measured campaign",
        case: `before, after ${contacts} dials (and ${apiCalls} API calls), after one cleanup period`,
        backend: backend.name,
        metrics: {
          "rows before": tablesBefore.rows,
          "rows after run": tablesAfter.rows,
          "rows after cleanup": tablesCleaned.rows,
          "MB before": (tablesBefore.bytes / 1e6).toFixed(1),
          "MB after run": (tablesAfter.bytes / 1e6).toFixed(1),
          "MB after cleanup": (tablesCleaned.bytes / 1e6).toFixed(1),
          "rows per dial": ((tablesAfter.rows - tablesBefore.rows) / contacts).toFixed(2),
          "KB per dial": ((tablesAfter.bytes - tablesBefore.bytes) / 1e3 / contacts).toFixed(2)
        }
      }])
    ]
  } finally {
    await platform.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------
// One tenant, many campaigns
// ---------------------------------------------------------------------------

/** Voice numbers of the bench tenant: +1415555 0100, 0101, … (one per campaign). */
const voiceNumberAt = (i: number) => `+1415555${String(100 + i).padStart(4, "0")}`

/**
 * One tenant runs `campaigns` campaigns of `perCampaign` contacts at once, each on its own voice number,
 * against one campaign of the same total on one number in the same process (the baseline).
 */
const oneTenant = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  const n = settings.tenantCampaigns
  const perCampaign = settings.tenantCampaignContacts
  const total = n * perCampaign
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-tenant-"))
  const running = await startPlatform({
    DATABASE_URL: backend.name === "postgres" ? backend.url : undefined,
    DATA_DIR: dataDir,
    SIMULATOR_RING_MS: "0",
    VOICE_NUMBER_CPS: "1000",
    MAX_CONCURRENT_CALLS: "100000"
  }, memoryProbeFlags)
  const platform = running.platform
  try {
    const api = `${running.gateway}/api/v1`
    const campaignApi = `${running.campaign}/api/v1`
    const account = await request("POST", `${api}/auth/signup`, "", {
      email: `tenant-bench-${Date.now()}@example.com`,
      password: "benchmark-password",
      companyName: "Bench"
    })
    const key = (await request("POST", `${api}/api-keys`, account.token, { name: "bench" })).key as string
    await request("POST", `${api}/wallet/top-ups`, account.token, {
      amount: 100_000_000,
      idempotencyKey: "bench-funds"
    })
    const persona = (await request("GET", `${api}/prompts/personas`, key)).items[0].id as string
    const agent = await request("POST", `${api}/agents`, key, { name: "Bench agent", agent_persona_id: persona })
    const numbers: Array<string> = []
    for (let i = 0; i <= n; i++) {
      numbers.push(
        (await request("POST", `${api}/voice-numbers`, key, { phoneNumber: voiceNumberAt(i), provider: "PROVIDER_A" }))
          .id
      )
    }

    const phones = zeroLengthNumbers(2 * total + WARMUP_CONTACTS)
    const makeList = async (name: string, list: ReadonlyArray<string>) => {
      const created = await request("POST", `${campaignApi}/contact-lists`, key, { name })
      for (let i = 0; i < list.length; i += 500) {
        const batch = list.slice(i, i + 500)
        const result = await request("POST", `${campaignApi}/contact-lists/${created.id}/contacts/bulk`, key, {
          contacts: batch.map((phoneNumber) => ({ phoneNumber }))
        })
        if (result.imported !== batch.length) throw new Error(`bulk import: ${JSON.stringify(result).slice(0, 500)}`)
      }
      return created.id as string
    }
    const createCampaign = async (name: string, voiceNumberId: string, contacts: ReadonlyArray<string>) =>
      (await request("POST", `${campaignApi}/campaigns`, key, {
        name,
        agentId: agent.id,
        voiceNumberId,
        contactListId: await makeList(name, contacts),
        maxConcurrentCalls: 100,
        maxAttempts: 1,
        timezone: openZone(),
        callWindowStart: "00:00",
        callWindowEnd: "23:59",
        callDays: EVERY_DAY
      })).id as string
    const progressOf = (id: string) => request("GET", `${campaignApi}/campaigns/${id}/progress`, key)

    /**
     * Schedules the campaigns at once and waits for all to complete;
     * times from the first request to the last completedAt.
     */
    const runAll = async (ids: ReadonlyArray<string>, each: number) => {
      const before = await probeStatements(platform)
      const scheduledAt = Date.now()
      await Promise.all(ids.map((id) => request("POST", `${campaignApi}/campaigns/${id}/schedule`, key, {})))
      const pending = new Set(ids)
      let progressPolls = 0
      let lastPrint = Date.now()
      await pollUntil("the campaigns to complete", 1000, async () => {
        let attempts = 0
        for (const id of ids) {
          if (!pending.has(id)) {
            attempts += each
            continue
          }
          progressPolls++
          const p = await progressOf(id)
          if (p.status === "FAILED" || p.status === "PAUSED") {
            throw new Error(`campaign ${p.status}: ${JSON.stringify(p)}`)
          }
          attempts += p.attempts.total
          if (p.status !== "COMPLETED") continue
          if (p.attempts.total !== each || p.attempts.answered !== each) {
            throw new Error(`expected ${each} answered attempts: ${JSON.stringify(p)}`)
          }
          pending.delete(id)
        }
        if (Date.now() - lastPrint > 10_000) {
          lastPrint = Date.now()
          console.log(
            `  ${ids.length} campaign(s): ${attempts}/${ids.length * each} attempts, ${
              ((Date.now() - scheduledAt) / 1000).toFixed(0)
            } s`
          )
        }
        return pending.size === 0
      })
      const after = await probeStatements(platform)
      let completedAt = 0
      for (const id of ids) {
        completedAt = Math.max(
          completedAt,
          Date.parse((await request("GET", `${campaignApi}/campaigns/${id}`, key)).completedAt)
        )
      }
      const perPoll = await statementsPer(platform, 10, () => progressOf(ids[0]!))
      const dials = ids.length * each
      return {
        dials,
        seconds: (completedAt - scheduledAt) / 1000,
        sqlPerDial: (after - before - progressPolls * perPoll) / dials
      }
    }

    // warm-up, then the baseline (one campaign of the whole total on one number), then the N campaigns
    console.log(`  warm-up: a ${WARMUP_CONTACTS}-contact campaign`)
    await runAll([await createCampaign("warm-up", numbers[0]!, phones.slice(2 * total))], WARMUP_CONTACTS)
    const single = await createCampaign(`${total} contacts`, numbers[0]!, phones.slice(0, total))
    const many: Array<string> = []
    for (let i = 0; i < n; i++) {
      many.push(
        await createCampaign(
          `${perCampaign} contacts #${i + 1}`,
          numbers[i + 1]!,
          phones.slice(total + i * perCampaign, total + (i + 1) * perCampaign)
        )
      )
    }
    console.log(`  one campaign of ${total} contacts`)
    const one = await runAll([single], total)
    console.log(`  ${n} campaigns of ${perCampaign} contacts at once`)
    const all = await runAll(many, perCampaign)

    const suite = "one tenant, many campaigns (simulated carrier, instant outcomes, limits lifted)"
    const row = (label: string, r: typeof one): Row => ({
      suite,
      case: label,
      backend: backend.name,
      metrics: {
        dials: r.dials,
        "dials/s": Math.round(r.dials / r.seconds),
        seconds: r.seconds,
        "SQL/dial": r.sqlPerDial.toFixed(1),
        "dials/s vs 1 campaign": ((r.dials / r.seconds) / (one.dials / one.seconds)).toFixed(2),
        "SQL/dial vs 1 campaign": (r.sqlPerDial / one.sqlPerDial).toFixed(2)
      }
    })
    return [
      row(`1 campaign of ${total}, 1 number (same process)`, one),
      row(`${n} campaigns × ${perCampaign}, a number each, at once`, all)
    ]
  } finally {
    await platform.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------
// Under the TestClock
// ---------------------------------------------------------------------------

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

const span = (ms: number) => {
  const minutes = Math.round(ms / 60_000)
  return `${Math.floor(minutes / 1440)}d ${String(Math.floor(minutes / 60) % 24).padStart(2, "0")}h${
    String(minutes % 60).padStart(2, "0")
  }m`
}

const testClockProgram = (contacts: number, layerStarted: number) =>
  Effect.gen(function*() {
    const layerSeconds = (performance.now() - layerStarted) / 1000
    const setupStarted = performance.now()
    yield* TestKit.startAt(TESTCLOCK_START)
    const { agentId, tenantId } = yield* TestKit.tenant({ balance: 1_000_000_000 })
    const voiceNumberId = yield* TestKit.voiceNumber(tenantId, "+14155550100")
    const contactListId = yield* TestKit.contactList(tenantId, zeroLengthNumbers(contacts))
    const campaign = yield* TestKit.campaign(tenantId, {
      name: `${contacts} contacts`,
      agentId,
      voiceNumberId,
      contactListId,
      maxAttempts: 1,
      maxConcurrentCalls: 100,
      timezone: "America/New_York",
      callWindowStart: "09:00",
      callWindowEnd: "10:00",
      callDays: EVERY_DAY
    })
    const campaigns = yield* CampaignsService
    const dials = yield* TestKit.Dials
    const setupSeconds = (performance.now() - setupStarted) / 1000

    const statementsBefore = SqlActivity.started()
    let ownStatements = 0
    /** The campaign's row, read without counting the read's own statements (the runtime is quiet after `advance`). */
    const status = Effect.gen(function*() {
      const before = SqlActivity.started()
      const c = yield* campaigns.get(tenantId, campaign.id).pipe(Effect.orDie)
      ownStatements += SqlActivity.started() - before
      return c
    })
    const started = performance.now()
    yield* campaigns.schedule(tenantId, campaign.id, null).pipe(Effect.orDie)
    const scheduledAt = yield* Clock.currentTimeMillis
    let lastPrint = started
    let current = yield* status
    for (let step = 0; current.status !== "COMPLETED"; step++) {
      if (step > 14 * 24 * 6) return yield* Effect.dieMessage(`not completed after 14 virtual days: ${current.status}`)
      // ten virtual minutes at a time, so progress can be printed; the walk is the same as a day at once
      yield* TestKit.advance("10 minutes")
      current = yield* status
      const now = performance.now()
      if (now - lastPrint > 10_000 || current.status === "COMPLETED") {
        lastPrint = now
        const at = yield* Clock.currentTimeMillis
        console.log(
          `  TestClock: ${new Date(at).toISOString().slice(0, 16)}Z virtual, ${(yield* dials.all).length} dials, ${
            ((now - started) / 1000).toFixed(0)
          } s real`
        )
      }
    }
    const wallSeconds = (performance.now() - started) / 1000
    const all = yield* dials.all
    const perDay = new Map<string, number>()
    for (const dial of all) perDay.set(dayOf(dial.at), (perDay.get(dayOf(dial.at)) ?? 0) + 1)
    const statements = SqlActivity.started() - statementsBefore - ownStatements
    const virtualMs = current.completedAt!.getTime() - scheduledAt
    const row: Row = {
      suite: `campaign under TestClock (testing kit, 1 number at 1 dial/s, window 09:00–10:00 New York)`,
      case: "TestKit.advance, 10 virtual minutes a step",
      backend: "pglite",
      metrics: {
        contacts,
        dials: all.length,
        "dials per window day": [...perDay.values()].join(" / "),
        "virtual span": span(virtualMs),
        "wall s": wallSeconds,
        "virtual/real": Math.round(virtualMs / 1000 / wallSeconds),
        "dials/s real": Math.round(all.length / wallSeconds),
        "SQL/dial": (statements / all.length).toFixed(1),
        "setup s": layerSeconds + setupSeconds
      }
    }
    if (all.length !== contacts || current.answeredContacts !== contacts) {
      return yield* Effect.dieMessage(
        `expected ${contacts} answered dials: ${all.length} dials, ${current.answeredContacts} answered`
      )
    }
    return row
  })

/** In this process: the testing kit's runtime on a fresh PGlite (never PostgreSQL), under Effect's TestContext. */
const underTestClock = async (contacts: number): Promise<Row> => {
  const databaseUrl = process.env["DATABASE_URL"]
  delete process.env["DATABASE_URL"]
  try {
    // the layer is built under the TestContext, as @effect/vitest's `it.layer` does: the runtime's clock is the
    // TestClock
    const layer = Layer.provideMerge(TestKit.layer({ ringMillis: 0 }), TestContext.TestContext)
    const layerStarted = performance.now()
    return await Effect.runPromise(
      testClockProgram(contacts, layerStarted).pipe(Effect.provide(layer), Logger.withMinimumLogLevel(LogLevel.Warning))
    )
  } finally {
    if (databaseUrl !== undefined) process.env["DATABASE_URL"] = databaseUrl
  }
}

export const run = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  const rows: Array<Row> = []
  if (settings.campaignParts.includes("e2e")) rows.push(...await endToEnd(backend, settings))
  if (settings.campaignParts.includes("tenant")) rows.push(...await oneTenant(backend, settings))
  if (backend.name === "pglite" && settings.campaignParts.includes("testclock")) {
    console.log(`- campaigns under TestClock (in this process, PGlite)`)
    rows.push(await underTestClock(settings.campaignContacts))
  }
  return rows
}

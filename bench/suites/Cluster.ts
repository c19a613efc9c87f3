/**
 * The production topology under load (PostgreSQL only): `npm run cluster:local`'s processes (two
 * runners, the three services, the gateway; started through `ClusterLocal.start`, as the npm script
 * does) on a scratch database. An authenticated read through the gateway (`GET /api/v1/agents` with
 * an API key) is loaded with autocannon for a fixed time, in windows with and without a campaign of a
 * few thousand contacts dialing on the simulated carrier (calls ring and talk, so they are live while
 * the load runs; the campaign is paused and resumed in between, so slow drift of the machine does not
 * pass for the campaign's effect). Each runner's simulated carrier
 * appends its dials to a file of its own: the dials counted in the measured window, and which
 * runner placed them, are read from those.
 */
import * as ClusterLocal from "@voiceagent/devtools/ClusterLocal"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { answeredNumbers, request, sleep } from "../lib/Api.js"
import { load, type LoadResult } from "../lib/Load.js"
import { type Row, write } from "../lib/Report.js"

export interface Settings {
  readonly connections: number
  readonly durationSeconds: number
  /** Contacts of the campaign (default 3,000): enough to keep dialing through the measured window. */
  readonly clusterContacts: number
}

type Backend = { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string }

const SUITE = "cluster: API under a campaign (separate processes, PostgreSQL)"
const RING_MS = 500
const DIALS_PER_SECOND = 50
const AGENTS = 10
/** The processes are fresh: a longer warm-up before the first measurement. */
const FIRST_WARMUP_SECONDS = 10
const CAMPAIGN_ALONE_SECONDS = 5

/** Dial times (ms since the epoch) in a simulator dial log: `<session> <to> <at>` per line. */
const dialTimes = (file: string): Array<number> =>
  fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => Number(l.split(" ")[2]))
    : []

/** CPU ticks a process has used (user + system), from /proc; 0 once it is gone. */
const processTicks = (pid: number): number => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return 0
  }
}

/** Busy CPU ticks of the whole machine (all but idle and iowait), from /proc/stat. */
const machineTicks = (): number => {
  const [, ...values] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/)
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number)
  return user! + nice! + system! + irq! + softirq! + (steal ?? 0)
}

/** /proc's clock ticks per second (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100

/**
 * Starts measuring the share of the machine's CPU that goes to processes other than the
 * benchmark's (`ourPids`: this process, the cluster's, the PostgreSQL backends of its database);
 * the function it answers ends the measurement with that share, in per cent. Above a few per cent,
 * something else ran meanwhile and the window's figures suffer for it.
 */
const foreignCpu = async (ourPids: () => Promise<ReadonlyArray<number>>) => {
  const pids = await ourPids()
  const ours = () => pids.reduce((sum, pid) => sum + processTicks(pid), 0)
  const started = { at: Date.now(), machine: machineTicks(), ours: ours() }
  return () => {
    const capacity = ((Date.now() - started.at) / 1000) * TICKS_PER_SECOND * os.cpus().length
    const foreign = (machineTicks() - started.machine) - (ours() - started.ours)
    return Math.max(0, Math.round((100 * foreign) / capacity))
  }
}

const metrics = (r: LoadResult) => ({
  "req/s": Math.round(r.requestsPerSecond),
  "p50 ms": r.p50Ms,
  "p99 ms": r.p99Ms,
  "non-2xx": r.non2xx + r.errors
})

export const notes = (settings: Settings) => [
  `Cluster: the processes of \`npm run cluster:local\` (ClusterLocal.start: one migrate run, two runners, ` +
  `platform-core, comms, campaign and the gateway, each its own Node process; no Chroma) on a fresh database of ` +
  `the PostgreSQL server, LOG_LEVEL=warn, the gateway's rate limits off, on the same ${os.cpus().length}-core ` +
  `machine as PostgreSQL and the load generator. Load: autocannon, ${settings.connections} connections, GET ` +
  `/api/v1/agents with an API key (page 1 of the tenant's ${AGENTS} agents: key check and one page query on comms, ` +
  `through the gateway), ${settings.durationSeconds} s per window after a warm-up (${FIRST_WARMUP_SECONDS} s ` +
  `before the first window, 2 s before the others). Windows, in this order: idle; while the campaign dials; ` +
  `campaign paused (its calls ended); while it dials again (resumed); after it is aborted (its calls ended). ` +
  `Campaign: ${settings.clusterContacts} contacts whose numbers the simulated carrier answers after ` +
  `SIMULATOR_RING_MS=${RING_MS} and talks on for 1 s, one voice number, VOICE_NUMBER_CPS=${DIALS_PER_SECOND}, ` +
  `maxConcurrentCalls 100 (the API's maximum), MAX_CONCURRENT_CALLS=100000, window 00:00–23:59 every day, ` +
  `scheduled through the API; once 50 dials are in it dials ${CAMPAIGN_ALONE_SECONDS} s with no API load ('the ` +
  `campaign alone'). Its dial loop lives on the runner owning the campaign's shard; each call's LiveCall entity, ` +
  `which dials, on the runner owning the call's shard, so both runners place calls. 'dials' = calls the runners' ` +
  `simulated carriers placed inside the window (each runner appends its dials to a file of its own: 'runner-1 / ` +
  `runner-2'); 'campaign left' = contacts not yet dialed when the window closed (above 0: it dialed throughout). ` +
  `The last row divides the means of the windows with the campaign dialing by the means of those without (req/s, ` +
  `p50, p99). 'other CPU %' = the machine's busy CPU time in the window that went to processes other than the ` +
  `bench process, the cluster's and the PostgreSQL backends of its database, as a share of all cores (read from ` +
  `/proc; PostgreSQL's shared background writers count as other): well above a few per cent, something else ran ` +
  `meanwhile and the window's figures suffer. Reproduce: \`BENCH_SUITES=cluster DATABASE_URL=postgres://… npm run ` +
  `bench\` (BENCH_CLUSTER_CONTACTS sizes the campaign).`
]

export const run = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  if (backend.name !== "postgres") {
    console.log("  cluster: needs PostgreSQL (several processes share the database); skipped on PGlite")
    return []
  }
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-cluster-"))
  const dialLog = (i: number) => path.join(directory, `dials-runner-${i + 1}.log`)
  const scope = Effect.runSync(Scope.make())
  try {
    const started = Date.now()
    const cluster = await Effect.runPromise(
      ClusterLocal.start({
        databaseUrl: backend.url,
        logsDir: path.join(directory, "logs"),
        runners: 2,
        chroma: "none",
        env: {
          LOG_LEVEL: "warn",
          SIMULATOR_RING_MS: String(RING_MS),
          VOICE_NUMBER_CPS: String(DIALS_PER_SECOND),
          MAX_CONCURRENT_CALLS: "100000",
          RATE_LIMIT_PER_SECOND: "0",
          RATE_LIMIT_IP_PER_SECOND: "0"
        },
        runnerEnv: (i) => ({ SIMULATOR_DIAL_LOG: dialLog(i) })
      }).pipe(
        Effect.mapError((e) =>
          new Error(`${e.message}${e.log === "" ? "" : `\n--- the end of its log ---\n${e.log}`}`)
        ),
        Scope.extend(scope)
      )
    )
    console.log(
      `  cluster: ${cluster.processes.length} processes ready in ${((Date.now() - started) / 1000).toFixed(1)} s`
    )

    // --- set-up through the API
    const api = `${cluster.gatewayUrl}/api/v1`
    const account = await request("POST", `${api}/auth/signup`, "", {
      email: `cluster-bench-${Date.now()}@example.com`,
      password: "benchmark-password",
      companyName: "Bench"
    })
    const key = (await request("POST", `${api}/api-keys`, account.token, { name: "bench" })).key as string
    await request("POST", `${api}/wallet/top-ups`, account.token, {
      amount: 100_000_000,
      idempotencyKey: "bench-funds"
    })
    const persona = (await request("GET", `${api}/prompts/personas`, key)).items[0].id as string
    const agents: Array<any> = []
    for (let i = 0; i < AGENTS; i++) {
      agents.push(await request("POST", `${api}/agents`, key, { name: `Agent ${i}`, agent_persona_id: persona }))
    }
    const number = await request("POST", `${api}/voice-numbers`, key, {
      phoneNumber: "+14155550100",
      provider: "PROVIDER_A"
    })
    const list = await request("POST", `${api}/contact-lists`, key, { name: "cluster bench" })
    const phones = answeredNumbers(settings.clusterContacts, 1)
    for (let i = 0; i < phones.length; i += 500) {
      const batch = phones.slice(i, i + 500)
      const result = await request("POST", `${api}/contact-lists/${list.id}/contacts/bulk`, key, {
        contacts: batch.map((phoneNumber) => ({ phoneNumber }))
      })
      if (result.imported !== batch.length) throw new Error(`bulk import: ${JSON.stringify(result).slice(0, 500)}`)
    }
    const campaign = await request("POST", `${api}/campaigns`, key, {
      name: "cluster bench",
      agentId: agents[0].id,
      voiceNumberId: number.id,
      contactListId: list.id,
      maxConcurrentCalls: 100,
      maxAttempts: 1,
      timezone: new Date().getUTCHours() >= 23 ? "Etc/GMT+12" : "UTC",
      callWindowStart: "00:00",
      callWindowEnd: "23:59",
      callDays: [1, 2, 3, 4, 5, 6, 7]
    })

    const target = {
      url: `${api}/agents`,
      headers: { authorization: `Bearer ${key}` },
      connections: settings.connections
    }
    const probe = await request("GET", target.url, key)
    if (probe.items.length !== AGENTS) {
      throw new Error(`expected ${AGENTS} agents: ${JSON.stringify(probe).slice(0, 300)}`)
    }
    const ourPids = async () => {
      const client = new pg.Client({ connectionString: backend.url })
      await client.connect()
      try {
        const backends = await client.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        )
        return [
          process.pid,
          ...cluster.processes.filter((p) => p.exitStatus() === undefined).map((p) => p.pid),
          ...backends.rows.map((r) => r.pid)
        ]
      } finally {
        await client.end()
      }
    }
    /** A warm-up, then the measured run; answers the window it measured and the CPU others took meanwhile. */
    const measure = async (warmupSeconds = 2) => {
      await load({ ...target, durationSeconds: warmupSeconds, warmupSeconds: 0 })
      const others = await foreignCpu(ourPids)
      const from = Date.now()
      const result = await load({ ...target, durationSeconds: settings.durationSeconds, warmupSeconds: 0 })
      return { result, from, to: Date.now(), foreignCpu: others() }
    }
    const dialsIn = (from: number, to: number) =>
      [0, 1].map((i) => dialTimes(dialLog(i)).filter((at) => at >= from && at <= to).length)
    const allDials = () => dialTimes(dialLog(0)).length + dialTimes(dialLog(1)).length

    const progress = () => request("GET", `${api}/campaigns/${campaign.id}/progress`, key)
    const command = (verb: string) => request("POST", `${api}/campaigns/${campaign.id}/${verb}`, key, {})
    /** Waits until no call has been dialed for 3 s (the calls in flight end within ring + talk time). */
    const untilQuiet = async () => {
      let last = allDials()
      for (let quiet = 0; quiet < 3;) {
        await sleep(1000)
        const now = allDials()
        quiet = now === last ? quiet + 1 : 0
        last = now
      }
    }
    const rows: Array<Row> = []
    const windows: Array<{ readonly campaign: boolean; readonly result: LoadResult }> = []
    /** One measured window, reported as a row with the dials placed in it. */
    const window = async (label: string, campaignDialing: boolean, warmupSeconds = 2) => {
      console.log(`  cluster: ${label}`)
      const { foreignCpu, from, result, to } = await measure(warmupSeconds)
      const [one, two] = dialsIn(from, to)
      const left = campaignDialing ? (await progress()).contacts.pending as number : ""
      if (campaignDialing && left === 0) {
        console.log("  cluster: WARNING the campaign ran out of contacts within the window")
      }
      windows.push({ campaign: campaignDialing, result })
      rows.push({
        suite: SUITE,
        case: label,
        backend: backend.name,
        metrics: {
          ...metrics(result),
          dials: one! + two!,
          "dials/s": Math.round((one! + two!) / ((to - from) / 1000)),
          "runner-1 / runner-2": `${one} / ${two}`,
          "campaign left": left,
          "other CPU %": foreignCpu
        }
      })
    }

    await window("GET /agents via gateway, idle", false, FIRST_WARMUP_SECONDS)
    await command("schedule")
    for (let i = 0; i < 600 && allDials() < 50; i++) await sleep(100)
    if (allDials() < 50) throw new Error("the campaign did not start dialing")
    // the campaign alone for a while: how fast it dials without the API load
    const aloneOthers = await foreignCpu(ourPids)
    const aloneFrom = Date.now()
    await sleep(CAMPAIGN_ALONE_SECONDS * 1000)
    const aloneTo = Date.now()
    const aloneForeign = aloneOthers()
    const [alone1, alone2] = dialsIn(aloneFrom, aloneTo)
    rows.push({
      suite: SUITE,
      case: "the campaign alone (no API load)",
      backend: backend.name,
      metrics: {
        dials: alone1! + alone2!,
        "dials/s": Math.round((alone1! + alone2!) / ((aloneTo - aloneFrom) / 1000)),
        "runner-1 / runner-2": `${alone1} / ${alone2}`,
        "other CPU %": aloneForeign
      }
    })
    await window("GET /agents via gateway, while two runners dial the campaign", true)
    await command("pause")
    await untilQuiet()
    await window("GET /agents via gateway, campaign paused", false)
    await command("resume")
    for (const before = allDials(); allDials() < before + 20;) await sleep(100)
    await window("GET /agents via gateway, while two runners dial the campaign (resumed)", true)
    await command("abort")
    await untilQuiet()
    await window("GET /agents via gateway, after the campaign is aborted", false)

    // with against without: the means of the windows of each kind
    const mean = (campaignDialing: boolean, f: (r: LoadResult) => number) => {
      const of = windows.filter((w) => w.campaign === campaignDialing).map((w) => f(w.result))
      return of.reduce((a, b) => a + b, 0) / of.length
    }
    const ratio = (f: (r: LoadResult) => number) => (mean(true, f) / Math.max(1e-9, mean(false, f))).toFixed(2)
    rows.push({
      suite: SUITE,
      case: "with / without the campaign (means of the windows)",
      backend: backend.name,
      metrics: {
        "req/s": ratio((r) => r.requestsPerSecond),
        "p50 ms": ratio((r) => r.p50Ms),
        "p99 ms": ratio((r) => r.p99Ms)
      }
    })
    write(rows, notes(settings), "cluster")
    console.log("  cluster: written to bench/results/cluster.md and cluster.json")
    return rows
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    fs.rmSync(directory, { recursive: true, force: true })
  }
}

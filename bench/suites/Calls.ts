/**
 * Issue 4: calls placed through the API against the simulated carrier with zero ring and talk time.
 *
 * - End to end: `amount` calls placed with autocannon on the comms service; a call counts when its
 *   webhook outbox row exists (placed → ended → settled → webhook queued). Calls per second from
 *   the first request to the last row; the API's own latency. The webhooks are also delivered to a
 *   receiver in this process, counted.
 * - Memory: a fresh platform process warmed with zero-length calls, then 1,000 calls to numbers
 *   that ring and are never answered held open; live memory (after a full GC, read through
 *   MemoryProbe) before and after (once the calls have rung `heldSettleSeconds`), divided by the calls.
 *
 * The baseline (bench/baseline/CallsServer.ts) does the same durable writes with plain SQL.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { request } from "../lib/Api.js"
import { fixedRequests, type LoadResult } from "../lib/Load.js"
import { memoryProbeFlags, probeMemory, spawnTs, startPlatform } from "../lib/Processes.js"
import type { Row } from "../lib/Report.js"

export interface Settings {
  readonly connections: number
  readonly calls: number
  readonly heldCalls: number
  /** How long the held calls ring before their memory is read. */
  readonly heldSettleSeconds: number
}

type Backend = { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string }

const WARMUP_CALLS = 200

/** A local receiver for the call-result webhooks: counts what arrives. */
const webhookReceiver = async () => {
  let received = 0
  const server = http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      received++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const waitUntil = async (what: string, check: () => Promise<boolean>, timeoutMs = 600_000) => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return performance.now()
}

/** Places `amount` calls with autocannon; answers when the last one's webhook row is queued. */
const endToEnd = async (
  options: { readonly url: string; readonly key: string; readonly body: string; readonly connections: number },
  amount: number,
  queued: () => Promise<number>
): Promise<{ api: LoadResult; callsPerSecond: number; seconds: number }> => {
  const before = await queued()
  const started = performance.now()
  const api = await fixedRequests({
    url: options.url,
    method: "POST",
    headers: { authorization: `Bearer ${options.key}`, "content-type": "application/json" },
    body: options.body,
    connections: options.connections
  }, amount)
  if (api.non2xx + api.errors > 0) {
    throw new Error(`${api.non2xx} non-2xx answers and ${api.errors} errors placing calls`)
  }
  const finished = await waitUntil("every call's webhook to be queued", async () => (await queued()) - before >= amount)
  const seconds = (finished - started) / 1000
  return { api, callsPerSecond: amount / seconds, seconds }
}

export const run = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-calls-"))
  const env = {
    DATABASE_URL: backend.name === "postgres" ? backend.url : undefined,
    DATA_DIR: dataDir,
    SIMULATOR_RING_MS: "0",
    MAX_CONCURRENT_CALLS: "100000",
    DIAL_TIMEOUT: "1 hour"
  }
  const receiver = await webhookReceiver()
  const rows: Array<Row> = []
  const stops: Array<() => Promise<void>> = []
  try {
    // --- set-up through the API, and the platform's end-to-end run
    let running = await startPlatform(env)
    stops.push(running.platform.stop)
    const api = `${running.gateway}/api/v1`
    const account = await request("POST", `${api}/auth/signup`, "", {
      email: `calls-bench-${Date.now()}@example.com`,
      password: "benchmark-password",
      companyName: "Bench"
    })
    const key = (await request("POST", `${api}/api-keys`, account.token, { name: "bench", webhookUrl: receiver.url }))
      .key as string
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
    const callBody = (toNumber: string) => JSON.stringify({ agentId: agent.id, voiceNumberId: number.id, toNumber })
    // "…000": answered at once, zero seconds of talk
    const zeroLength = callBody("+14155551000")
    const platformQueued = async () =>
      (await request("GET", `${running.comms}/api/v1/webhook-deliveries?pageSize=1`, key)).total as number
    const placeUrl = `${running.comms}/api/v1/channels/voice/call`

    await endToEnd(
      { url: placeUrl, key, body: zeroLength, connections: settings.connections },
      WARMUP_CALLS,
      platformQueued
    )
    const platform = await endToEnd(
      { url: placeUrl, key, body: zeroLength, connections: settings.connections },
      settings.calls,
      platformQueued
    )
    const totalQueued = await platformQueued()
    await waitUntil("the webhooks to be delivered", async () => receiver.received() >= totalQueued, 120_000)
      .catch(() => undefined)
    const delivered = receiver.received()
    await running.platform.stop()

    // --- memory per live call, in a fresh process
    running = await startPlatform(env, memoryProbeFlags)
    stops.push(running.platform.stop)
    const memoryQueued = async () =>
      (await request("GET", `${running.comms}/api/v1/webhook-deliveries?pageSize=1`, key)).total as number
    await endToEnd(
      { url: `${running.comms}/api/v1/channels/voice/call`, key, body: zeroLength, connections: settings.connections },
      WARMUP_CALLS,
      memoryQueued
    )
    // read after the same wait as the held calls: the warm-up's ended calls let their entities go meanwhile
    await new Promise((resolve) => setTimeout(resolve, settings.heldSettleSeconds * 1000))
    const idle = await probeMemory(running.platform)
    // "…9002": rings and is never answered; held until the dial timeout (an hour here)
    const held = await fixedRequests({
      url: `${running.comms}/api/v1/channels/voice/call`,
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: callBody("+14155559002"),
      connections: settings.connections
    }, settings.heldCalls)
    if (held.non2xx + held.errors > 0) throw new Error(`${held.non2xx} non-2xx answers placing the held calls`)
    await waitUntil(
      "the held calls to ring",
      async () =>
        (await request("GET", `${running.comms}/api/v1/call-logs?status=RINGING&pageSize=1`, key)).total >=
          settings.heldCalls
    )
    // a ringing call lets its entity go once idle (LiveCallLive's MAX_IDLE_MS, 15 s; the reaper looks as
    // often): the memory a call holds while it rings is read after that (BENCH_HELD_SETTLE_SECONDS)
    await new Promise((resolve) => setTimeout(resolve, settings.heldSettleSeconds * 1000))
    const holding = await probeMemory(running.platform)
    const wallet = await request("GET", `${running.core}/api/v1/wallet`, key)
    await running.platform.stop()

    // --- the baseline, on the same database
    const baseline = spawnTs(
      "bench/baseline/CallsServer.ts",
      [],
      backend.name === "postgres"
        ? { BACKEND: "pg", DATABASE_URL: backend.url }
        : { BACKEND: "pglite", PGLITE_DIR: path.join(dataDir, "pglite") }
    )
    stops.push(baseline.stop)
    const [, baseUrl] = await baseline.waitFor(/listening on (http:\/\/\S+)/)
    const baseQueued = async () => (await request("GET", `${baseUrl}/queued`, key)).total as number
    await endToEnd(
      { url: `${baseUrl}/call`, key, body: zeroLength, connections: settings.connections },
      WARMUP_CALLS,
      baseQueued
    )
    const base = await endToEnd(
      { url: `${baseUrl}/call`, key, body: zeroLength, connections: settings.connections },
      settings.calls,
      baseQueued
    )
    await baseline.stop()

    const e2e = (r: typeof platform, ratio: string) => ({
      calls: settings.calls,
      "calls/s": Math.round(r.callsPerSecond),
      seconds: r.seconds,
      "API p50 ms": r.api.p50Ms,
      "API p99 ms": r.api.p99Ms,
      "vs baseline": ratio
    })
    const suite = "calls end to end (simulated carrier, zero ring and talk)"
    rows.push(
      { suite, case: "baseline node:http + SQL", backend: backend.name, metrics: e2e(base, "1.00") },
      {
        suite,
        case: "comms service + runtime",
        backend: backend.name,
        metrics: {
          ...e2e(platform, (platform.callsPerSecond / base.callsPerSecond).toFixed(2)),
          "webhooks delivered": `${delivered}/${totalQueued}`
        }
      }
    )
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
    const perCall = (after: number, before: number) => ((after - before) / settings.heldCalls / 1024).toFixed(1)
    rows.push({
      suite: `memory with ${settings.heldCalls} live calls`,
      case: "platform process (start role)",
      backend: backend.name,
      metrics: {
        "heap idle MB": mb(idle.heapUsed),
        "heap held MB": mb(holding.heapUsed),
        "heap KB/call": perCall(holding.heapUsed, idle.heapUsed),
        "rss idle MB": mb(idle.rss),
        "rss held MB": mb(holding.rss),
        "rss KB/call": perCall(holding.rss, idle.rss),
        "placing p99 ms": held.p99Ms,
        reserved: wallet.reserved
      }
    })
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
    await receiver.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  return rows
}

/**
 * Issue 2: an authenticated read under load. `GET /api/v1/profile` with an API key, on the
 * platform-core service directly and through the gateway, against a plain node:http baseline
 * doing the same key lookup with the same database, in the same run (interleaved on PostgreSQL: `run`).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { load, type LoadResult } from "../lib/Load.js"
import { spawnTs, startPlatform } from "../lib/Processes.js"
import type { Row } from "../lib/Report.js"

export interface Settings {
  readonly connections: number
  readonly durationSeconds: number
}

const seed = async (gateway: string) => {
  const email = `bench-${Date.now()}@example.com`
  const signup = await fetch(`${gateway}/api/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "benchmark-password", companyName: "Bench" })
  }).then((r) => r.json() as Promise<any>)
  const key = await fetch(`${gateway}/api/v1/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${signup.token}` },
    body: JSON.stringify({ name: "bench" })
  }).then((r) => r.json() as Promise<any>)
  return key.key as string
}

const metrics = (r: LoadResult) => ({
  "req/s": Math.round(r.requestsPerSecond),
  "p50 ms": r.p50Ms,
  "p99 ms": r.p99Ms,
  "non-2xx": r.non2xx + r.errors
})

/** The median of some numbers. */
const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Rounds of the interleaved comparison (PostgreSQL): each round loads each target for its share of the time. */
const ROUNDS = 4

/**
 * The three targets measured in `ROUNDS` rounds, in an order that turns each round (round k starts at
 * target k mod 3, odd rounds reversed), so a machine that slows down or speeds up mid-run weighs on each
 * alike. req/s is the rounds' total over their time; p50 and p99 the medians of the rounds'; the ratio
 * the median of each round's ratio to that round's baseline, with the rounds' range beside it.
 */
const interleaved = async (
  targets: ReadonlyArray<string>,
  headers: Record<string, string>,
  settings: Settings
): Promise<Array<{ result: LoadResult; ratio: number; range: readonly [number, number] }>> => {
  const share = Math.max(2, Math.round(settings.durationSeconds / ROUNDS))
  const rounds: Array<Array<LoadResult>> = []
  for (let round = 0; round < ROUNDS; round++) {
    const results: Array<LoadResult | undefined> = targets.map(() => undefined)
    for (let k = 0; k < targets.length; k++) {
      const i = (Math.floor(round / 2) + (round % 2 === 0 ? k : targets.length - 1 - k)) % targets.length
      results[i] = await load({
        url: targets[i]!,
        headers,
        connections: settings.connections,
        durationSeconds: share,
        warmupSeconds: round === 0 ? 2 : 1
      })
    }
    rounds.push(results as Array<LoadResult>)
  }
  return targets.map((_, i) => {
    const of = rounds.map((r) => r[i]!)
    const ratios = rounds.map((r) => r[i]!.requestsPerSecond / r[0]!.requestsPerSecond)
    const total = of.reduce((n, r) => n + r.total, 0)
    return {
      result: {
        requestsPerSecond: total / (share * ROUNDS),
        p50Ms: median(of.map((r) => r.p50Ms)),
        p99Ms: median(of.map((r) => r.p99Ms)),
        meanMs: median(of.map((r) => r.meanMs)),
        total,
        non2xx: of.reduce((n, r) => n + r.non2xx, 0),
        errors: of.reduce((n, r) => n + r.errors, 0)
      },
      ratio: median(ratios),
      range: [Math.min(...ratios), Math.max(...ratios)] as const
    }
  })
}

const startBaseline = async (backend: Backend, dataDir: string, headers: Record<string, string>) => {
  const baseline = spawnTs(
    "bench/baseline/AuthServer.ts",
    [],
    backend.name === "postgres"
      ? { BACKEND: "pg", DATABASE_URL: backend.url }
      : { BACKEND: "pglite", PGLITE_DIR: path.join(dataDir, "pglite") }
  )
  const [, url] = await baseline.waitFor(/listening on (http:\/\/\S+)/)
  const probe = await fetch(`${url}/api/v1/profile`, { headers })
  if (probe.status !== 200) throw new Error(`baseline answered ${probe.status}: ${await probe.text()}`)
  return { baseline, url: `${url}/api/v1/profile` }
}

type Backend = { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string }

const rowsOf = (
  backend: Backend,
  measured: ReadonlyArray<{ result: LoadResult; ratio: number; range: readonly [number, number] | undefined }>
): Array<Row> =>
  ["baseline node:http", "platform-core", "via gateway"].map((name, i) => {
    const { range, ratio, result } = measured[i]!
    return {
      suite: "authenticated read",
      case: name,
      backend: backend.name,
      metrics: {
        ...metrics(result),
        "vs baseline": ratio.toFixed(2),
        ...(range === undefined ? {} : { "rounds' range": `${range[0].toFixed(2)}–${range[1].toFixed(2)}` })
      }
    }
  })

/**
 * On PostgreSQL the baseline runs beside the platform and the three are measured in interleaved rounds
 * (`interleaved`). On PGlite the platform holds the data directory while it runs, so the baseline can
 * only start once it has stopped: platform-core, then the gateway, then the baseline, one after another.
 */
export const run = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-"))
  const env = { DATABASE_URL: backend.name === "postgres" ? backend.url : undefined, DATA_DIR: dataDir }
  const { core, gateway, platform } = await startPlatform(env)
  try {
    const key = await seed(gateway)
    const headers = { authorization: `Bearer ${key}` }
    if (backend.name === "postgres") {
      const { baseline, url } = await startBaseline(backend, dataDir, headers)
      try {
        return rowsOf(
          backend,
          await interleaved([url, `${core}/api/v1/profile`, `${gateway}/api/v1/profile`], headers, settings)
        )
      } finally {
        await baseline.stop()
      }
    }
    const direct = await load({ url: `${core}/api/v1/profile`, headers, ...settings })
    const viaGateway = await load({ url: `${gateway}/api/v1/profile`, headers, ...settings })
    await platform.stop()
    const { baseline, url } = await startBaseline(backend, dataDir, headers)
    try {
      const base = await load({ url, headers, ...settings })
      const ratio = (r: LoadResult) => r.requestsPerSecond / base.requestsPerSecond
      return rowsOf(backend, [
        { result: base, ratio: 1, range: undefined },
        { result: direct, ratio: ratio(direct), range: undefined },
        { result: viaGateway, ratio: ratio(viaGateway), range: undefined }
      ])
    } finally {
      await baseline.stop()
    }
  } finally {
    await platform.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

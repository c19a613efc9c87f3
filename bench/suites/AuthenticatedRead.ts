/**
 * Issue 2: an authenticated read under load. `GET /api/v1/profile` with an API key, on the
 * platform-core service directly and through the gateway, against a plain node:http baseline
 * doing the same key lookup with the same database, in the same run.
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

export const run = async (
  backend: { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string },
  settings: Settings
): Promise<Array<Row>> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-"))
  const env = { DATABASE_URL: backend.name === "postgres" ? backend.url : undefined, DATA_DIR: dataDir }
  const { core, gateway, platform } = await startPlatform(env)
  const rows: Array<Row> = []
  try {
    const key = await seed(gateway)
    const headers = { authorization: `Bearer ${key}` }
    const direct = await load({ url: `${core}/api/v1/profile`, headers, ...settings })
    const viaGateway = await load({ url: `${gateway}/api/v1/profile`, headers, ...settings })
    await platform.stop()

    const baseline = spawnTs(
      "bench/baseline/AuthServer.ts",
      [],
      backend.name === "postgres"
        ? { BACKEND: "pg", DATABASE_URL: backend.url }
        : { BACKEND: "pglite", PGLITE_DIR: path.join(dataDir, "pglite") }
    )
    try {
      const [, url] = await baseline.waitFor(/listening on (http:\/\/\S+)/)
      const probe = await fetch(`${url}/api/v1/profile`, { headers })
      if (probe.status !== 200) throw new Error(`baseline answered ${probe.status}: ${await probe.text()}`)
      const base = await load({ url: `${url}/api/v1/profile`, headers, ...settings })
      const ratio = (r: LoadResult) => (r.requestsPerSecond / base.requestsPerSecond).toFixed(2)
      rows.push(
        {
          suite: "authenticated read",
          case: "baseline node:http",
          backend: backend.name,
          metrics: { ...metrics(base), "vs baseline": "1.00" }
        },
        {
          suite: "authenticated read",
          case: "platform-core",
          backend: backend.name,
          metrics: { ...metrics(direct), "vs baseline": ratio(direct) }
        },
        {
          suite: "authenticated read",
          case: "via gateway",
          backend: backend.name,
          metrics: { ...metrics(viaGateway), "vs baseline": ratio(viaGateway) }
        }
      )
    } finally {
      await baseline.stop()
    }
  } finally {
    await platform.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  return rows
}

/**
 * Issue 3: a 500-row CSV upload end to end through the gateway (median and p99 of sequential
 * uploads), and a contacts page read from a 100,000-contact list under load (first page and a
 * deep page), each against a plain node:http baseline doing the same work on the same database.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { sequentialLatency } from "../lib/Latency.js"
import { load, type LoadResult } from "../lib/Load.js"
import { spawnTs, startPlatform } from "../lib/Processes.js"
import type { Row } from "../lib/Report.js"
import { seedContacts } from "../lib/Seed.js"

export interface Settings {
  readonly connections: number
  readonly durationSeconds: number
  readonly uploads: number
  readonly bigList: number
}

type Backend = { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string }

const csvOf = (batch: number) => {
  const lines = ["phone,name,email"]
  for (let i = 0; i < 500; i++) {
    lines.push(
      `+1 (646) ${String(200 + batch % 700).padStart(3, "0")}-${
        String(i).padStart(4, "0")
      },Contact ${i},c${i}@example.com`
    )
  }
  return lines.join("\n") + "\n"
}

const postJson = async (url: string, token: string, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body)
  })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return response.json() as Promise<any>
}

const uploadTo = async (url: string, key: string, csv: string) => {
  const form = new FormData()
  form.append("file", new Blob([csv], { type: "text/csv" }), "contacts.csv")
  const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })
  const body = await response.json() as { readonly imported?: unknown }
  if (response.status !== 200 || body.imported !== 500) {
    throw new Error(`upload answered ${response.status}: ${JSON.stringify(body)}`)
  }
}

const pageMetrics = (r: LoadResult) => ({
  "req/s": Math.round(r.requestsPerSecond),
  "p50 ms": r.p50Ms,
  "p99 ms": r.p99Ms,
  "non-2xx": r.non2xx + r.errors
})

export const run = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-contacts-"))
  const env = { DATABASE_URL: backend.name === "postgres" ? backend.url : undefined, DATA_DIR: dataDir }
  const seedTarget = backend.name === "postgres" ? { url: backend.url } : { pgliteDir: path.join(dataDir, "pglite") }
  const rows: Array<Row> = []
  const started: Array<{ stop: () => Promise<void> }> = []
  const start = async () => {
    const running = await startPlatform(env)
    started.push(running.platform)
    return running
  }
  try {
    // Set-up through the API: a tenant, a key, a list per upload (for both contestants) and a big list.
    let { campaign, gateway, platform } = await start()
    const api = `${gateway}/api/v1`
    const account = await postJson(`${api}/auth/signup`, "", {
      email: `contacts-bench-${Date.now()}@example.com`,
      password: "benchmark-password",
      companyName: "Bench"
    })
    const key = (await postJson(`${api}/api-keys`, account.token, { name: "bench" })).key as string
    const lists: Array<string> = []
    const WARMUP = 3
    for (let i = 0; i < settings.uploads * 2 + 3 * WARMUP; i++) {
      lists.push((await postJson(`${api}/contact-lists`, key, { name: `upload ${i}` })).id)
    }
    const big = await postJson(`${api}/contact-lists`, key, { name: "big" })

    const half = Math.floor(settings.uploads / 2)
    // warm-up lists sit after the measured ones; the CSVs use batches past every measured one
    const warmup = (contender: number, upload: (list: string, csv: string) => Promise<void>) =>
      sequentialLatency(
        WARMUP,
        (i) => upload(lists[settings.uploads * 2 + contender * WARMUP + i]!, csvOf(600 + contender * WARMUP + i))
      )
    await warmup(0, (list, csv) => uploadTo(`${api}/contact-lists/${list}/upload`, key, csv))
    const platformUploads = await sequentialLatency(
      settings.uploads,
      (i) => uploadTo(`${api}/contact-lists/${lists[i]}/upload`, key, csvOf(i))
    )
    const directUploads = await sequentialLatency(
      half,
      (i) =>
        uploadTo(
          `${campaign}/api/v1/contact-lists/${lists[settings.uploads + half + i]}/upload`,
          key,
          csvOf(settings.uploads + half + i)
        )
    )
    await platform.stop()

    await seedContacts(seedTarget, { id: big.id, tenantId: account.tenant.id }, settings.bigList)
    ;({ campaign, gateway, platform } = await start())
    const headers = { authorization: `Bearer ${key}` }
    const deepPage = Math.floor(settings.bigList / 25) - 1
    const pageUrl = (origin: string, page: number) =>
      `${origin}/api/v1/contact-lists/${big.id}/contacts?page=${page}&limit=25`
    const platformFirst = await load({ url: pageUrl(campaign, 1), headers, ...settings })
    const platformDeep = await load({ url: pageUrl(campaign, deepPage), headers, ...settings })
    const gatewayFirst = await load({ url: pageUrl(gateway, 1), headers, ...settings })
    await platform.stop()

    const baseline = spawnTs(
      "bench/baseline/ContactsServer.ts",
      [],
      backend.name === "postgres"
        ? { BACKEND: "pg", DATABASE_URL: backend.url }
        : { BACKEND: "pglite", PGLITE_DIR: path.join(dataDir, "pglite") }
    )
    try {
      const [, url] = await baseline.waitFor(/listening on (http:\/\/\S+)/)
      await warmup(2, (list, csv) => uploadTo(`${url}/upload?list=${list}`, key, csv))
      const baseUploads = await sequentialLatency(
        half,
        (i) => uploadTo(`${url}/upload?list=${lists[settings.uploads + i]}`, key, csvOf(settings.uploads + i))
      )
      const baseFirst = await load({ url: `${url}/contacts?list=${big.id}&page=1&limit=25`, headers, ...settings })
      const baseDeep = await load({
        url: `${url}/contacts?list=${big.id}&page=${deepPage}&limit=25`,
        headers,
        ...settings
      })

      const upload = (r: typeof baseUploads) => ({
        "median ms": Math.round(r.medianMs),
        "p99 ms": Math.round(r.p99Ms),
        uploads: r.n
      })
      rows.push(
        {
          suite: "500-row CSV upload",
          case: "baseline node:http",
          backend: backend.name,
          metrics: { ...upload(baseUploads), "vs baseline": "1.00" }
        },
        {
          suite: "500-row CSV upload",
          case: "campaign service",
          backend: backend.name,
          metrics: {
            ...upload(directUploads),
            "vs baseline": (directUploads.medianMs / baseUploads.medianMs).toFixed(2) + "× time"
          }
        },
        {
          suite: "500-row CSV upload",
          case: "via gateway",
          backend: backend.name,
          metrics: {
            ...upload(platformUploads),
            "vs baseline": (platformUploads.medianMs / baseUploads.medianMs).toFixed(2) + "× time"
          }
        }
      )
      const ratio = (r: LoadResult, b: LoadResult) => (r.requestsPerSecond / b.requestsPerSecond).toFixed(2)
      rows.push(
        {
          suite: `contacts page, ${settings.bigList} list`,
          case: "baseline, page 1",
          backend: backend.name,
          metrics: { ...pageMetrics(baseFirst), "vs baseline": "1.00" }
        },
        {
          suite: `contacts page, ${settings.bigList} list`,
          case: "campaign service, page 1",
          backend: backend.name,
          metrics: { ...pageMetrics(platformFirst), "vs baseline": ratio(platformFirst, baseFirst) }
        },
        {
          suite: `contacts page, ${settings.bigList} list`,
          case: "via gateway, page 1",
          backend: backend.name,
          metrics: { ...pageMetrics(gatewayFirst), "vs baseline": ratio(gatewayFirst, baseFirst) }
        },
        {
          suite: `contacts page, ${settings.bigList} list`,
          case: `baseline, page ${deepPage}`,
          backend: backend.name,
          metrics: { ...pageMetrics(baseDeep), "vs baseline": "1.00" }
        },
        {
          suite: `contacts page, ${settings.bigList} list`,
          case: `campaign service, page ${deepPage}`,
          backend: backend.name,
          metrics: { ...pageMetrics(platformDeep), "vs baseline": ratio(platformDeep, baseDeep) }
        }
      )
    } finally {
      await baseline.stop()
    }
  } finally {
    for (const platform of started) await platform.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  return rows
}

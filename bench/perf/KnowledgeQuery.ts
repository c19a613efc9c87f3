/**
 * The knowledge query one at a time, where its time goes: the platform (`start`, on DATABASE_URL or PGlite) with one
 * knowledge base of `CHUNKS` chunks (default 600), then `ROUNDS` rounds (default 3) of `N` queries (default 300) on
 * each path in turn (round 2r: the paths rotated by r; round 2r+1: the same reversed): in process (embed +
 * `VectorStore.query`, as the knowledge suite's baseline), through the gateway, straight to comms, and
 * `GET /knowledge-bases/{id}` through the gateway. Prints p50, p99 and mean latency per path and round, the ratio to
 * the in-process baseline of the same round, and the CPU per request of the platform process (from /proc) and of this
 * one (the baseline's search, or the HTTP client). PROFILE=1 writes a CPU profile of the platform to OUT_DIR (default
 * /tmp/perf-kb). PATHS (names, comma-separated, e.g. `via gateway,comms directly`) runs only those paths.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/perf/KnowledgeQuery.ts
 */
import { startChroma } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as ChromaVectorStore from "@voiceagent/runner/Knowledge/ChromaVectorStore"
import { makeOfflineEmbedder } from "@voiceagent/runner/Knowledge/OfflineEmbedder"
import { scoreOf } from "@voiceagent/runner/Knowledge/Retrieval"
import { collectionName } from "@voiceagent/runner/Ports/VectorStore"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { request, sleep } from "../lib/Api.js"
import { corpus, questions } from "../lib/KnowledgeCorpus.js"
import { fixedRequests } from "../lib/Load.js"
import { startPlatform } from "../lib/Processes.js"

const chunks = Number(process.env["CHUNKS"] ?? 600)
const n = Number(process.env["N"] ?? 300)
const rounds = Number(process.env["ROUNDS"] ?? 3)
const outDir = process.env["OUT_DIR"] ?? "/tmp/perf-kb"
fs.mkdirSync(outDir, { recursive: true })
const ticks = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return Number(f[11]) + Number(f[12])
}
const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "perf-kb-"))
const scope = Effect.runSync(Scope.make())
const chroma = await Effect.runPromise(Scope.extend(startChroma({ dataDir: path.join(dataDir, "chroma") }), scope))
const store = await Effect.runPromise(ChromaVectorStore.make({ url: chroma.url }))
const embedder = makeOfflineEmbedder()
const profile = process.env["PROFILE"] ? ["--cpu-prof", "--cpu-prof-dir", outDir] : []
const running = await startPlatform({
  DATABASE_URL: process.env["DATABASE_URL"],
  DATA_DIR: dataDir,
  CHROMA_URL: chroma.url,
  EMBEDDER: "offline"
}, profile)
const pid = running.platform.child.pid!
try {
  const api = `${running.gateway}/api/v1`
  const account = await request("POST", `${api}/auth/signup`, "", {
    email: `kb-perf-${Date.now()}@example.com`,
    password: "benchmark-password",
    companyName: "Bench"
  })
  const key = (await request("POST", `${api}/api-keys`, account.token, { name: "bench" })).key as string
  const kb = await request("POST", `${api}/knowledge-bases`, key, { kbKey: "perf", kbName: "perf" })
  for (const d of corpus(chunks, 250)) {
    await request("POST", `${api}/knowledge-bases/${kb.id}/sources`, key, {
      type: "TEXT",
      title: d.title,
      text: d.text
    })
  }
  const job = await request("POST", `${api}/knowledge-bases/${kb.id}/ingestion-jobs`, key)
  for (;;) {
    const j = await request("GET", `${api}/knowledge-bases/${kb.id}/ingestion-jobs/${job.jobId}`, key)
    if (j.status !== "QUEUED" && j.status !== "RUNNING") break
    await sleep(100)
  }
  const collection = collectionName(kb.tenantId, kb.id, 1)
  const asked = questions(200)
  const bodies = asked.map((query) => JSON.stringify({ query, topK: 5 }))
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }

  const inProcess = async () => {
    const latencies: Array<number> = []
    for (let i = 0; i < n; i++) {
      const at = performance.now()
      await Effect.runPromise(Effect.gen(function*() {
        const [vector] = yield* embedder.embed([asked[i % asked.length]!])
        const matches = yield* store.query(collection, vector!, { topK: 5 })
        return matches.map((m) => scoreOf(m.distance)).filter((s) => s >= kb.retrievalScoreThreshold)
      }))
      latencies.push(performance.now() - at)
    }
    return latencies.sort((a, b) => a - b)
  }
  const http = (url: string, method: "GET" | "POST") => async () => {
    const r = await fixedRequests({ url, method, headers, ...(method === "POST" ? { bodies } : {}), connections: 1 }, n)
    if (r.non2xx + r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`)
    return r.latencies
  }
  const all: ReadonlyArray<readonly [string, () => Promise<ReadonlyArray<number>>]> = [
    ["in process", inProcess],
    ["via gateway", http(`${api}/knowledge-bases/${kb.id}/query`, "POST")],
    ["comms directly", http(`${running.comms}/api/v1/knowledge-bases/${kb.id}/query`, "POST")],
    ["GET kb via gateway", http(`${api}/knowledge-bases/${kb.id}`, "GET")]
  ]
  const only = process.env["PATHS"]?.split(",")
  const paths = only === undefined ? all : all.filter(([name]) => only.includes(name))
  for (const [, f] of paths) await f()
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
  for (let round = 0; round < rounds; round++) {
    const p50s = new Map<string, number>()
    for (let k = 0; k < paths.length; k++) {
      // round 2r: the paths rotated by r; round 2r+1: the same reversed (each path before each other as often as not)
      const [name, f] = paths[(Math.floor(round / 2) + (round % 2 === 0 ? k : paths.length - 1 - k)) % paths.length]!
      const t0 = ticks(pid)
      const own0 = process.cpuUsage()
      const latencies = await f()
      const cpu = ((ticks(pid) - t0) * 10_000) / n
      const own = process.cpuUsage(own0)
      p50s.set(name, quantile(latencies, 0.5))
      console.log(
        `round ${round + 1} ${name.padEnd(20)} p50 ${quantile(latencies, 0.5).toFixed(2)} ms, p99 ${
          quantile(latencies, 0.99).toFixed(2)
        } ms, mean ${mean(latencies).toFixed(2)} ms, ` +
          `platform CPU ${cpu.toFixed(0)} µs/req, this process ${((own.user + own.system) / n).toFixed(0)} µs/req`
      )
    }
    const base = p50s.get("in process")
    if (base === undefined || !p50s.has("via gateway") || !p50s.has("comms directly")) continue
    console.log(
      `round ${round + 1} p50 ratio (in process / path): via gateway ${
        (base / p50s.get("via gateway")!).toFixed(2)
      }, ` +
        `comms ${(base / p50s.get("comms directly")!).toFixed(2)}`
    )
  }
  console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`)
} finally {
  await running.platform.stop()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  fs.rmSync(dataDir, { recursive: true, force: true })
}

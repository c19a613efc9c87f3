/**
 * Knowledge bases, end to end through the HTTP API: ingestion throughput and query latency.
 *
 * One Chroma server (the `chroma` CLI on a temporary directory, started here with `startChroma`)
 * serves both paths. The platform is `npm start`'s role in a process of its own (PGlite under its
 * DATA_DIR, or the scratch database on the PostgreSQL server), with CHROMA_URL pointing at that
 * server, the built-in offline embedder, and MemoryProbe preloaded to count its SQL statements. A
 * generated corpus (`KnowledgeCorpus`: `kbChunks` chunks, default 3,000, in documents of 250
 * chunks) is added as TEXT sources through the API (not timed). Both paths are warmed up first on a
 * knowledge base of 300 chunks and 200 queries.
 *
 * - Ingestion, platform: `POST /knowledge-bases/{id}/ingestion-jobs` through the gateway, the job
 *   polled every 100 ms until it leaves QUEUED/RUNNING; it must be SUCCEEDED in one run with every
 *   chunk done, and the collection must hold them all. chunks/s = chunks / (the POST's start to
 *   the job's `finishedAt`). Breakdown from the job itself: queued (createdAt → startedAt) and
 *   running (startedAt → finishedAt); SQL statements per batch from the probe, less the polls'.
 * - Ingestion, baseline (in this process, same Chroma server): the same chunks, under the same ids
 *   and metadata, embedded with the same offline embedder and upserted through the VectorStore port
 *   (`ChromaVectorStore.make`) into a fresh collection, per document in batches of 64 like the job,
 *   one batch after another; no SQL, no progress, no lease. Embedding and upserting timed apart.
 * - Both ingestion paths run `INGESTION_ROUNDS` (5) rounds, a fresh knowledge base / collection
 *   each time, the order alternating (the baseline first in odd rounds, the platform first in even
 *   ones); each path's median round is reported, with the range: Chroma's upsert time varies by
 *   ±15% from run to run.
 * - Query: `POST /knowledge-bases/{id}/query {query, topK: 5}` with 200 distinct customer questions
 *   sent in turn, on the last round's knowledge base: one at a time (`kbQueries` requests, default
 *   1,000) through the gateway and, to see where the time goes, straight to the comms service, and
 *   as a reference `GET /knowledge-bases/{id}` (key check and one read, no retrieval), these and the
 *   baseline one at a time in interleaved rounds (`interleaved`); then under
 *   load (autocannon, `connections` connections for `durationSeconds` after a 2 s warm-up).
 *   Baseline in this process: the same questions embedded with the same embedder and searched with
 *   `VectorStore.query` in the platform's own collection (scored and filtered by the threshold as
 *   the platform does), one at a time and `connections` at once (2 s warm-up, then
 *   `durationSeconds`). 'same chunks': questions for which both paths return the same chunk ids in
 *   the same order.
 */
import { startChroma } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as ChromaVectorStore from "@voiceagent/runner/Knowledge/ChromaVectorStore"
import { chunkId } from "@voiceagent/runner/Knowledge/DocumentChunks"
import { defaultIngestionOptions } from "@voiceagent/runner/Knowledge/KnowledgeSettings"
import { makeOfflineEmbedder } from "@voiceagent/runner/Knowledge/OfflineEmbedder"
import { scoreOf } from "@voiceagent/runner/Knowledge/Retrieval"
import { type ChunkRecord, collectionName, type VectorStore } from "@voiceagent/runner/Ports/VectorStore"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { request, sleep } from "../lib/Api.js"
import { corpus, type CorpusDocument, questions } from "../lib/KnowledgeCorpus.js"
import { fixedRequests, load } from "../lib/Load.js"
import { memoryProbeFlags, probeStatements, type Running, startPlatform } from "../lib/Processes.js"
import type { Row } from "../lib/Report.js"

export interface Settings {
  readonly connections: number
  readonly durationSeconds: number
  /** Chunks in the measured knowledge base (BENCH_KB_CHUNKS). */
  readonly kbChunks: number
  /** Queries sent one at a time on each path (BENCH_KB_QUERIES). */
  readonly kbQueries: number
}

type Backend = { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string }

const CHUNKS_PER_DOCUMENT = 250
const WARMUP_CHUNKS = 300
const DISTINCT_QUERIES = 200
const TOP_K = 5
const BATCH_SIZE = defaultIngestionOptions.batchSize
const POLL_MS = 100
/** Rounds of each ingestion path; the median is reported. */
export const INGESTION_ROUNDS = 5

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

const mean = (values: ReadonlyArray<number>) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length)

const round2 = (n: number) => Math.round(n * 100) / 100

/** The element whose `by` is the median (the lower middle one of an even count). */
const median = <A>(items: ReadonlyArray<A>, by: (a: A) => number): A =>
  [...items].sort((a, b) => by(a) - by(b))[Math.floor((items.length - 1) / 2)]!

const spread = (values: ReadonlyArray<number>) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`

const remove = async (url: string, token: string) => {
  const response = await fetch(url, { method: "DELETE", headers: { authorization: `Bearer ${token}` } })
  if (!response.ok) throw new Error(`DELETE ${url}: ${response.status} ${(await response.text()).slice(0, 500)}`)
}

/** Statements one call of `f` starts in the platform process, averaged over `n` sequential calls while idle. */
const statementsPer = async (platform: Running, n: number, f: () => Promise<unknown>) => {
  const before = await probeStatements(platform)
  for (let i = 0; i < n; i++) await f()
  return ((await probeStatements(platform)) - before) / n
}

const runEffect = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(effect.pipe(Effect.orDie, Logger.withMinimumLogLevel(LogLevel.Warning)))

interface LatencyRun {
  readonly requests: number
  readonly seconds: number
  /** Sorted, in ms. */
  readonly latencies: ReadonlyArray<number>
}

/** `workers` loops calling `f` with the next question until `amount` calls are made (or `untilMs` passes). */
const inProcess = async (
  workers: number,
  limit: { readonly amount: number } | { readonly untilMs: number },
  f: (i: number) => Promise<unknown>
): Promise<LatencyRun> => {
  const latencies: Array<number> = []
  let next = 0
  const more = () => "amount" in limit ? next < limit.amount : performance.now() < limit.untilMs
  const started = performance.now()
  await Promise.all(Array.from({ length: workers }, async () => {
    while (more()) {
      const i = next++
      const at = performance.now()
      await f(i)
      latencies.push(performance.now() - at)
    }
  }))
  const seconds = (performance.now() - started) / 1000
  return { requests: latencies.length, seconds, latencies: latencies.sort((a, b) => a - b) }
}

const INTERLEAVED_ROUNDS = 4

/**
 * `runs` measured in `INTERLEAVED_ROUNDS` rounds of a share of `amount` calls each, each run's rounds merged. The order
 * of round 2k is the runs rotated by k, that of round 2k+1 the same reversed: every run comes first, and every run
 * comes before every other, in as many rounds as not (a rotation alone keeps the cyclic order: the gateway's queries
 * would precede comms's in three rounds of four).
 */
const interleaved = async (
  runs: ReadonlyArray<(amount: number) => Promise<LatencyRun>>,
  amount: number
): Promise<Array<LatencyRun>> => {
  const merged = runs.map(() => ({ requests: 0, seconds: 0, latencies: [] as Array<number> }))
  for (let round = 0; round < INTERLEAVED_ROUNDS; round++) {
    const share = Math.floor(amount / INTERLEAVED_ROUNDS) + (round < amount % INTERLEAVED_ROUNDS ? 1 : 0)
    if (share === 0) continue
    for (let k = 0; k < runs.length; k++) {
      const i = (Math.floor(round / 2) + (round % 2 === 0 ? k : runs.length - 1 - k)) % runs.length
      const r = await runs[i]!(share)
      merged[i]!.requests += r.requests
      merged[i]!.seconds += r.seconds
      merged[i]!.latencies.push(...r.latencies)
    }
  }
  return merged.map((m) => ({ ...m, latencies: m.latencies.sort((a, b) => a - b) }))
}

export const run = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  const documents = corpus(settings.kbChunks, CHUNKS_PER_DOCUMENT)
  const warmupDocuments = corpus(WARMUP_CHUNKS, CHUNKS_PER_DOCUMENT / 2, 4242)
  const chunkTotal = documents.reduce((n, d) => n + d.chunks.length, 0)
  const batches = documents.reduce((n, d) => n + Math.ceil(d.chunks.length / BATCH_SIZE), 0)
  const asked = questions(DISTINCT_QUERIES)
  const bodies = asked.map((query) => JSON.stringify({ query, topK: TOP_K }))
  const embedder = makeOfflineEmbedder()

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-bench-knowledge-"))
  const chromaScope = Effect.runSync(Scope.make())
  try {
    const chroma = await runEffect(Scope.extend(startChroma({ dataDir: path.join(dataDir, "chroma") }), chromaScope))
    const store: VectorStore["Type"] = await runEffect(ChromaVectorStore.make({ url: chroma.url }))
    const running = await startPlatform({
      DATABASE_URL: backend.name === "postgres" ? backend.url : undefined,
      DATA_DIR: dataDir,
      CHROMA_URL: chroma.url,
      EMBEDDER: "offline"
    }, memoryProbeFlags)
    const platform = running.platform
    try {
      // --- set-up through the API (not timed)
      const api = `${running.gateway}/api/v1`
      const account = await request("POST", `${api}/auth/signup`, "", {
        email: `knowledge-bench-${Date.now()}@example.com`,
        password: "benchmark-password",
        companyName: "Bench"
      })
      const key = (await request("POST", `${api}/api-keys`, account.token, { name: "bench" })).key as string

      /** A knowledge base with the documents added as TEXT sources; their ids in order. */
      const knowledgeBase = async (kbKey: string, docs: ReadonlyArray<CorpusDocument>) => {
        const kb = await request("POST", `${api}/knowledge-bases`, key, { kbKey, kbName: kbKey })
        const documentIds: Array<string> = []
        for (const d of docs) {
          const added = await request("POST", `${api}/knowledge-bases/${kb.id}/sources`, key, {
            type: "TEXT",
            title: d.title,
            text: d.text
          })
          documentIds.push(added.id)
        }
        return {
          id: kb.id as string,
          threshold: kb.retrievalScoreThreshold as number,
          collection: collectionName(kb.tenantId, kb.id, 1),
          documentIds
        }
      }
      const jobOf = (kbId: string, jobId: string) =>
        request("GET", `${api}/knowledge-bases/${kbId}/ingestion-jobs/${jobId}`, key)

      /** Queues a job, polls it to its end; timed from the POST to the job's finishedAt. */
      const ingest = async (kbId: string, chunks: number) => {
        const statementsBefore = await probeStatements(platform)
        const started = Date.now()
        const queued = await request("POST", `${api}/knowledge-bases/${kbId}/ingestion-jobs`, key)
        let job: any
        let polls = 0
        let lastPrint = Date.now()
        for (;;) {
          polls++
          job = await jobOf(kbId, queued.jobId)
          if (job.status !== "QUEUED" && job.status !== "RUNNING") break
          if (Date.now() - lastPrint > 10_000) {
            lastPrint = Date.now()
            console.log(
              `  job: ${job.progress.chunksDone}/${chunks} chunks, ${((Date.now() - started) / 1000).toFixed(0)} s`
            )
          }
          if (Date.now() - started > 600_000) {
            throw new Error(`ingestion job not done after 10 minutes: ${JSON.stringify(job)}`)
          }
          await sleep(POLL_MS)
        }
        const statements = (await probeStatements(platform)) - statementsBefore
        if (
          job.status !== "SUCCEEDED" || job.progress.chunksDone !== chunks || job.progress.chunksTotal !== chunks ||
          job.runs !== 1
        ) {
          throw new Error(`expected a SUCCEEDED job of ${chunks} chunks: ${JSON.stringify(job).slice(0, 1000)}`)
        }
        const finishedAt = Date.parse(job.finishedAt)
        return {
          seconds: (finishedAt - started) / 1000,
          queuedSeconds: (Date.parse(job.startedAt) - Date.parse(job.createdAt)) / 1000,
          runSeconds: (finishedAt - Date.parse(job.startedAt)) / 1000,
          statements,
          polls,
          jobId: queued.jobId as string
        }
      }

      /** The baseline's ingestion: per document, batches of 64 embedded then upserted, no bookkeeping. */
      const baselineIngest = (
        collection: string,
        docs: ReadonlyArray<CorpusDocument>,
        documentIds: ReadonlyArray<string>
      ) =>
        Effect.gen(function*() {
          let embedMs = 0
          let upsertMs = 0
          const started = performance.now()
          yield* store.ensureCollection(collection)
          for (let d = 0; d < docs.length; d++) {
            const doc = docs[d]!
            const documentId = documentIds[d]!
            for (let start = 0; start < doc.chunks.length; start += BATCH_SIZE) {
              const batch = doc.chunks.slice(start, start + BATCH_SIZE)
              let at = performance.now()
              const vectors = yield* embedder.embed(batch)
              embedMs += performance.now() - at
              const records: Array<ChunkRecord> = batch.map((text, i) => ({
                id: chunkId(documentId, start + i),
                embedding: vectors[i]!,
                text,
                metadata: { documentId, sourceType: "TEXT", title: doc.title, chunkIndex: start + i }
              }))
              at = performance.now()
              yield* store.upsert(collection, records)
              upsertMs += performance.now() - at
            }
          }
          const seconds = (performance.now() - started) / 1000
          const count = yield* store.count(collection)
          if (count !== docs.reduce((n, doc) => n + doc.chunks.length, 0)) {
            return yield* Effect.dieMessage(`baseline collection holds ${count} chunks`)
          }
          return { seconds, embedSeconds: embedMs / 1000, upsertSeconds: upsertMs / 1000 }
        })

      /** The baseline's query: embed, nearest topK, scored and kept at or above the threshold, best first. */
      const baselineQuery = (collection: string, threshold: number, query: string) =>
        Effect.gen(function*() {
          const [vector] = yield* embedder.embed([query])
          const matches = yield* store.query(collection, vector!, { topK: TOP_K })
          return matches
            .map((m) => ({ chunkId: m.id, score: scoreOf(m.distance) }))
            .filter((m) => m.score >= threshold)
            .sort((a, b) => b.score - a.score)
        })

      const queryUrl = (kbId: string) => `${running.gateway}/api/v1/knowledge-bases/${kbId}/query`
      const commsQueryUrl = (kbId: string) => `${running.comms}/api/v1/knowledge-bases/${kbId}/query`
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
      const platformQuery = (kbId: string, query: string) =>
        request("POST", `${api}/knowledge-bases/${kbId}/query`, key, { query, topK: TOP_K })

      // --- warm-up: both paths, on a knowledge base of their own
      console.log(`  warm-up: ${WARMUP_CHUNKS} chunks and ${DISTINCT_QUERIES} queries on each path`)
      const warm = await knowledgeBase("warm-up", warmupDocuments)
      await runEffect(
        baselineIngest(`bench_warmup_${crypto.randomBytes(4).toString("hex")}`, warmupDocuments, warm.documentIds)
      )
      await ingest(warm.id, warmupDocuments.reduce((n, d) => n + d.chunks.length, 0))
      for (const query of asked) {
        await platformQuery(warm.id, query)
        await runEffect(baselineQuery(warm.collection, warm.threshold, query))
      }

      // --- ingestion: rounds of both paths over the same chunks, the order alternating; medians reported
      const baselineRounds: Array<{ seconds: number; embedSeconds: number; upsertSeconds: number }> = []
      const platformRounds: Array<Awaited<ReturnType<typeof ingest>>> = []
      let kb: Awaited<ReturnType<typeof knowledgeBase>> | undefined
      for (let round = 1; round <= INGESTION_ROUNDS; round++) {
        const target = await knowledgeBase(`bench-${round}`, documents)
        const baselinePath = async () => {
          const collection = `bench_baseline_${round}_${crypto.randomBytes(4).toString("hex")}`
          baselineRounds.push(await runEffect(baselineIngest(collection, documents, target.documentIds)))
          await runEffect(store.dropCollection(collection))
        }
        const platformPath = async () => {
          platformRounds.push(await ingest(target.id, chunkTotal))
        }
        console.log(
          `  ingestion round ${round}/${INGESTION_ROUNDS}: ${chunkTotal} chunks in ${documents.length} documents, ${
            round % 2 === 1 ? "baseline then platform" : "platform then baseline"
          }`
        )
        if (round % 2 === 1) {
          await baselinePath()
          await platformPath()
        } else {
          await platformPath()
          await baselinePath()
        }
        const stored = await runEffect(store.count(target.collection))
        const record = await request("GET", `${api}/knowledge-bases/${target.id}`, key)
        if (stored !== chunkTotal || record.chunkCount !== chunkTotal || record.status !== "READY") {
          throw new Error(`after the job: ${stored} chunks in the collection, knowledge base ${JSON.stringify(record)}`)
        }
        // the last one stays for the queries
        if (kb !== undefined) await remove(`${api}/knowledge-bases/${kb.id}`, key)
        kb = target
      }
      if (kb === undefined) throw new Error("no ingestion round ran")
      const lastJob = platformRounds[platformRounds.length - 1]!
      const perPoll = await statementsPer(platform, 10, () => jobOf(kb.id, lastJob.jobId))
      const baseline = median(baselineRounds, (r) => r.seconds)
      const job = median(platformRounds, (r) => r.seconds)
      const jobStatements = job.statements - job.polls * perPoll

      // --- the same answers on both paths
      let same = 0
      let items = 0
      for (const query of asked) {
        const viaApi = (await platformQuery(kb.id, query)).items as ReadonlyArray<{ chunkId: string; score: number }>
        const direct = await runEffect(baselineQuery(kb.collection, kb.threshold, query))
        items += viaApi.length
        if (JSON.stringify(viaApi.map((i) => i.chunkId)) === JSON.stringify(direct.map((i) => i.chunkId))) same++
      }
      if (same !== asked.length) {
        console.log(`  note: ${asked.length - same} of ${asked.length} questions got other chunks through the API`)
      }

      // --- query latency: one at a time, then under load
      const n = settings.kbQueries
      console.log(
        `  queries one at a time, in ${INTERLEAVED_ROUNDS} rounds: ${n} each in process, through the gateway, to the ` +
          `comms service directly, and ${n} GET /knowledge-bases/{id}`
      )
      const http =
        (options: Omit<Parameters<typeof fixedRequests>[0], "connections">, what: string) =>
        async (amount: number): Promise<LatencyRun> => {
          const r = await fixedRequests({ ...options, connections: 1 }, amount)
          if (r.non2xx + r.errors > 0) throw new Error(`${what}: ${r.non2xx} non-2xx answers and ${r.errors} errors`)
          return { requests: r.total, seconds: r.seconds, latencies: r.latencies }
        }
      // in rounds, the order rotating: measured one after the other, the gateway's path came first after the ingestion
      // and the baseline, comms's later (the platform's CPU per query falls by up to half over its first thousand
      // queries: bench/perf/KnowledgeQuery.ts), and the two paths' ratio was the order's
      const [baselineOne, platformOne, commsOne, readOne] = await interleaved([
        (amount) =>
          inProcess(
            1,
            { amount },
            (i) => runEffect(baselineQuery(kb.collection, kb.threshold, asked[i % asked.length]!))
          ),
        http({ url: queryUrl(kb.id), method: "POST", headers, bodies }, "queries one at a time"),
        http({ url: commsQueryUrl(kb.id), method: "POST", headers, bodies }, "queries to comms"),
        http({ url: `${running.gateway}/api/v1/knowledge-bases/${kb.id}`, headers }, "reads")
      ], n)
      const perQuery = await statementsPer(platform, 50, () => platformQuery(kb.id, asked[0]!))
      const perRead = await statementsPer(platform, 50, () => request("GET", `${api}/knowledge-bases/${kb.id}`, key))
      console.log(`  queries under load: ${settings.connections} at once, ${settings.durationSeconds} s each path`)
      const platformLoad = await load({
        url: queryUrl(kb.id),
        method: "POST",
        headers,
        bodies,
        connections: settings.connections,
        durationSeconds: settings.durationSeconds
      })
      const baselineQueryAt = (i: number) =>
        runEffect(baselineQuery(kb.collection, kb.threshold, asked[i % asked.length]!))
      await inProcess(settings.connections, { untilMs: performance.now() + 2_000 }, baselineQueryAt)
      const baselineLoad = await inProcess(settings.connections, {
        untilMs: performance.now() + settings.durationSeconds * 1000
      }, baselineQueryAt)
      for (
        const [what, r] of [["under load", platformLoad]] as const
      ) {
        if (r.non2xx + r.errors > 0) {
          throw new Error(`queries ${what}: ${r.non2xx} non-2xx answers and ${r.errors} errors`)
        }
      }

      // --- rows
      const ingestionSuite =
        `knowledge ingestion (${chunkTotal} chunks, offline embedder → Chroma, batches of ${BATCH_SIZE})`
      const perSecond = (seconds: number) => Math.round(chunkTotal / seconds)
      const ingestionRow = (
        name: string,
        seconds: number,
        rounds: ReadonlyArray<number>,
        extra: Record<string, number | string>
      ): Row => ({
        suite: ingestionSuite,
        case: name,
        backend: backend.name,
        metrics: {
          documents: documents.length,
          chunks: chunkTotal,
          batches,
          rounds: INGESTION_ROUNDS,
          seconds: round2(seconds),
          "range s": spread(rounds),
          "chunks/s": perSecond(seconds),
          "vs baseline": (baseline.seconds / seconds).toFixed(2),
          ...extra
        }
      })
      const querySuite =
        `knowledge query (POST /knowledge-bases/{id}/query, topK ${TOP_K}, ${chunkTotal} chunks, ${asked.length} ` +
        `questions in turn)`
      const fromRun = (r: LatencyRun) => ({
        requests: r.requests,
        rps: r.requests / r.seconds,
        meanMs: mean(r.latencies),
        p50Ms: quantile(r.latencies, 0.5),
        p99Ms: quantile(r.latencies, 0.99)
      })
      type Figures = ReturnType<typeof fromRun>
      const queryRow = (
        name: string,
        f: Figures,
        base: Figures | undefined,
        extra: Record<string, number | string> = {}
      ): Row => ({
        suite: querySuite,
        case: name,
        backend: backend.name,
        metrics: {
          requests: f.requests,
          "req/s": Math.round(f.rps),
          "mean ms": round2(f.meanMs),
          "p50 ms": round2(f.p50Ms),
          "p99 ms": round2(f.p99Ms),
          ...(base === undefined ? {} : {
            "vs baseline": (f.rps / base.rps).toFixed(2),
            "p50 vs baseline": (f.p50Ms / base.p50Ms).toFixed(2)
          }),
          ...extra
        }
      })
      const bOne = fromRun(baselineOne)
      const pOne = fromRun(platformOne)
      const cOne = fromRun(commsOne)
      const rOne = fromRun(readOne)
      const bLoad = fromRun(baselineLoad)
      const pLoad = {
        requests: platformLoad.total,
        rps: platformLoad.requestsPerSecond,
        meanMs: platformLoad.meanMs,
        p50Ms: platformLoad.p50Ms,
        p99Ms: platformLoad.p99Ms
      }
      const sqlPerQuery = { "SQL/query": perQuery.toFixed(1) }
      return [
        ingestionRow(
          "baseline: embed + VectorStore.upsert, no bookkeeping",
          baseline.seconds,
          baselineRounds.map((r) => r.seconds),
          {
            "embed s": round2(baseline.embedSeconds),
            "upsert s": round2(baseline.upsertSeconds)
          }
        ),
        ingestionRow(
          "platform: POST ingestion-jobs → SUCCEEDED (via gateway)",
          job.seconds,
          platformRounds.map((r) => r.seconds),
          {
            "queued s": round2(job.queuedSeconds),
            "run s": round2(job.runSeconds),
            "SQL/batch": (jobStatements / batches).toFixed(1)
          }
        ),
        queryRow("baseline: embed + VectorStore.query in process, one at a time", bOne, bOne),
        queryRow("platform via gateway, one at a time", pOne, bOne, {
          ...sqlPerQuery,
          "items/query": round2(items / asked.length),
          "same chunks": `${same}/${asked.length}`
        }),
        queryRow("platform, comms service directly (no gateway), one at a time", cOne, bOne, sqlPerQuery),
        queryRow(
          "reference: GET /knowledge-bases/{id} via gateway, one at a time (key check and one read, no retrieval)",
          rOne,
          undefined,
          {
            "SQL/query": perRead.toFixed(1)
          }
        ),
        queryRow(`baseline, ${settings.connections} at once`, bLoad, bLoad),
        queryRow(`platform via gateway, ${settings.connections} connections (autocannon)`, pLoad, bLoad, sqlPerQuery)
      ]
    } finally {
      await platform.stop()
    }
  } finally {
    await Effect.runPromise(Scope.close(chromaScope, Exit.void))
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

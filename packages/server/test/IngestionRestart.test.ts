import { assert, describe, it } from "@effect/vitest"
import { ChromaServer } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as ChromaVectorStore from "@voiceagent/runner/Knowledge/ChromaVectorStore"
import { chunkId, chunksOf } from "@voiceagent/runner/Knowledge/DocumentChunks"
import { makeFakeEmbeddings } from "@voiceagent/runner/Testing/FakeEmbeddings"
import * as TestChroma from "@voiceagent/runner/Testing/TestChroma"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawnCli } from "./Cli.js"
import { createKey, get, post, signup } from "./Http.js"

// An ingestion job survives its runner: the real CLI (`start`) ingests a large document through the
// OpenAI-compatible adapter (a loopback fake that answers slowly) into a Chroma server this test owns;
// the process is SIGKILLed mid-job and started again on the same data. The job resumes where its
// progress says (the fake counts what is embedded after the restart) and every chunk ends up in the
// collection exactly once.

const randomPorts = {
  PORT: "0",
  PLATFORM_CORE_PORT: "0",
  COMMS_PORT: "0",
  CAMPAIGN_PORT: "0",
  MEDIA_PORT: "0",
  LOG_LEVEL: "warn"
}
const BATCH = 64

/** Paragraphs about numbered topics: several hundred chunks. */
const bigDocument = Array.from(
  { length: 1800 },
  (_, i) =>
    `Topic ${i}: the warehouse in district ${i % 37} stores item batch ${i * 7} for customer group ${i % 11}. ` +
    `Orders placed before noon ship the same day from that site, and returns go back to depot ${i % 5}. ` +
    `Staff there answer questions about topic ${i} on weekdays between eight and five.`
).join("\n\n")

describe("ingestion jobs across a runner crash", () => {
  it.scopedLive(
    "a SIGKILLed runner's job resumes after restart and leaves every chunk exactly once",
    () =>
      Effect.gen(function*() {
        const chroma = yield* ChromaServer
        const fake = yield* makeFakeEmbeddings({ delayMillis: 120 })
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-ingest-"))
        const url = TestDatabase.postgresUrl()
        const db = url === undefined ? {} : { DATABASE_URL: (yield* TestDatabase.scratchPostgresDatabase(url)).url }
        const env = {
          ...randomPorts,
          ...db,
          DATA_DIR: dataDir,
          CHROMA_URL: chroma.url,
          EMBEDDER: "openai",
          EMBEDDINGS_URL: fake.url,
          EMBEDDINGS_MODEL: "text-embedding-3-small"
        }
        const expected = chunksOf({ sourceType: "TEXT", content: bigDocument, faqs: null })
        assert.isAtLeast(expected.length, 8 * BATCH, "enough batches to stop in the middle")

        const first = yield* spawnCli(["start"], env)
        const [, origin] = yield* first.waitFor(/Gateway\s+(http:\/\/127\.0\.0\.1:\d+)/, 120_000)
        const gateway = `${origin}/api/v1`
        const user = yield* signup(gateway)
        const { key } = yield* createKey(gateway, user.token)
        const kb =
          (yield* post(`${gateway}/knowledge-bases`, { token: key, json: { kbKey: "warehouse", kbName: "Warehouse" } }))
            .body
        assert.strictEqual(kb.embedder, "openai:text-embedding-3-small", JSON.stringify(kb))
        const doc = (yield* post(`${gateway}/knowledge-bases/${kb.id}/sources`, {
          token: key,
          json: { type: "TEXT", title: "Topics", text: bigDocument }
        })).body
        const queued = yield* post(`${gateway}/knowledge-bases/${kb.id}/ingestion-jobs`, { token: key })
        assert.strictEqual(queued.status, 202, queued.text)
        const jobUrl = `${gateway}/knowledge-bases/${kb.id}/ingestion-jobs/${queued.body.jobId}`

        // wait until a few batches are recorded, then kill the process without warning
        // (polled often, to kill mid-job; the limit is real time, generous: the loop ends on the progress)
        let doneAtKill = 0
        let progress: unknown
        for (const deadline = performance.now() + 60_000; performance.now() < deadline;) {
          const job = (yield* get(jobUrl, { token: key })).body
          progress = job.progress
          if (job.progress.chunksDone >= 3 * BATCH) {
            doneAtKill = job.progress.chunksDone
            break
          }
          yield* Effect.sleep("25 millis")
        }
        assert.isAtLeast(
          doneAtKill,
          3 * BATCH,
          `progress was recorded before the kill (within 60 s); last: ${JSON.stringify(progress)}`
        )
        yield* first.stop("SIGKILL")
        const embeddedBeforeRestart = fake.inputsEmbedded()
        assert.isBelow(doneAtKill, expected.length, "killed before the end")

        const second = yield* spawnCli(["start"], env)
        const [, origin2] = yield* second.waitFor(/Gateway\s+(http:\/\/127\.0\.0\.1:\d+)/, 120_000)
        const gateway2 = `${origin2}/api/v1`
        const jobUrl2 = jobUrl.replace(gateway, gateway2)
        let job: any
        for (const deadline = performance.now() + 120_000; performance.now() < deadline;) {
          job = (yield* get(jobUrl2, { token: key })).body
          if (job.status !== "RUNNING" && job.status !== "QUEUED") break
          yield* Effect.sleep("50 millis")
        }
        assert.strictEqual(
          job.status,
          "SUCCEEDED",
          `the job after the restart (polled for up to 120 s): ${JSON.stringify(job)}`
        )
        assert.strictEqual(job.runs, 2, "taken up twice: resumed after the restart")
        assert.strictEqual(job.progress.chunksTotal, expected.length)
        assert.strictEqual(job.progress.chunksDone, expected.length)

        // resumed, not restarted: after the restart only what was not recorded was embedded again,
        // give or take the batch that was in flight at the kill
        const embeddedAfterRestart = fake.inputsEmbedded() - embeddedBeforeRestart
        assert.isAtMost(
          embeddedAfterRestart,
          expected.length - doneAtKill + BATCH,
          `after restart: ${embeddedAfterRestart}`
        )
        assert.isAtLeast(fake.inputsEmbedded(), expected.length)
        assert.isBelow(
          fake.inputsEmbedded(),
          expected.length + 2 * BATCH,
          "at most the batches in flight were embedded twice"
        )

        // every chunk exactly once in Chroma
        const store = yield* ChromaVectorStore.make({ url: chroma.url })
        const collection = `t${user.tenantId!.replaceAll("-", "")}_kb${kb.id.replaceAll("-", "")}_g1`
        const ids = yield* store.ids(collection)
        assert.strictEqual(ids.length, expected.length)
        assert.deepStrictEqual([...ids].sort(), expected.map((_, i) => chunkId(doc.id, i)).sort())
        assert.strictEqual(yield* store.count(collection), expected.length)
        const read = (yield* get(`${gateway2}/knowledge-bases/${kb.id}`, { token: key })).body
        assert.strictEqual(read.status, "READY")
        assert.strictEqual(read.chunkCount, expected.length)
        yield* second.stop("SIGTERM")
      }).pipe(Effect.provide(TestChroma.server)),
    { timeout: 300_000 }
  )
})

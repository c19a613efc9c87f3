/**
 * The knowledge-base use cases through the runner's `KnowledgeBases` service (what the
 * knowledge-base routes call), on the testing kit with an in-memory vector store: the record and its
 * collection are made and dropped together, uploads are all or nothing, and a queued ingestion job
 * wakes this process's worker, after which queries answer from the store.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { KnowledgeBaseId, TenantId } from "@voiceagent/domain/Ids"
import { CreateKnowledgeBaseRequest, QueryRequest, UpdateKnowledgeBaseRequest } from "@voiceagent/domain/KnowledgeBases"
import { KnowledgeBases } from "@voiceagent/runner/Knowledge/KnowledgeBases"
import {
  type ChunkMatch,
  type ChunkRecord,
  VectorStore,
  VectorStoreUnavailable
} from "@voiceagent/runner/Ports/VectorStore"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect, Layer, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** Collections in memory; `refuse` makes the next collection creation fail as unavailable. */
const memory = { collections: new Map<string, Map<string, ChunkRecord>>(), refuse: false }

const cosineDistance = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 1 : 1 - dot / Math.sqrt(na * nb)
}

const MemoryVectorStore = Layer.succeed(VectorStore, {
  ensureCollection: (name) =>
    Effect.suspend(() => {
      if (memory.refuse) {
        memory.refuse = false
        return Effect.fail(new VectorStoreUnavailable({ message: "the store is down" }))
      }
      if (!memory.collections.has(name)) memory.collections.set(name, new Map())
      return Effect.void
    }),
  dropCollection: (name) => Effect.sync(() => void memory.collections.delete(name)),
  collectionExists: (name) => Effect.sync(() => memory.collections.has(name)),
  upsert: (name, records) =>
    Effect.sync(() => {
      const collection = memory.collections.get(name) ?? new Map<string, ChunkRecord>()
      memory.collections.set(name, collection)
      for (const record of records) collection.set(record.id, record)
    }),
  deleteDocumentChunks: (name, documentId, fromChunkIndex) =>
    Effect.sync(() => {
      const collection = memory.collections.get(name)
      for (const [id, record] of collection ?? []) {
        if (
          record.metadata["documentId"] === documentId &&
          Number(record.metadata["chunkIndex"] ?? 0) >= (fromChunkIndex ?? 0)
        ) collection!.delete(id)
      }
    }),
  query: (name, embedding, options) =>
    Effect.sync((): ReadonlyArray<ChunkMatch> =>
      [...(memory.collections.get(name)?.values() ?? [])]
        .filter((r) => !(options.excludeDocumentIds ?? []).includes(String(r.metadata["documentId"])))
        .map((r) => ({
          id: r.id,
          text: r.text,
          metadata: r.metadata,
          distance: cosineDistance(r.embedding, embedding)
        }))
        .sort((a, b) => a.distance - b.distance)
        .slice(0, options.topK)
    ),
  count: (name) => Effect.sync(() => memory.collections.get(name)?.size ?? 0),
  ids: (name) => Effect.sync(() => [...(memory.collections.get(name)?.keys() ?? [])]),
  ping: Effect.succeed(true)
})

const failureTag = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (e) => e._tag)

const Count = Schema.Struct({ n: Schema.Number })

/** The tenant's knowledge bases and documents, as rows. */
const stored = (tenantId: TenantId) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const count = (rows: ReadonlyArray<unknown>) => Schema.decodeUnknownSync(Count)(rows[0]).n
    return {
      kbs: count(yield* sql`SELECT count(*)::int AS n FROM knowledge_bases WHERE tenant_id = ${tenantId}`),
      documents: count(
        yield* sql`SELECT count(*)::int AS n FROM kb_documents d JOIN knowledge_bases k ON k.id = d.kb_id
                   WHERE k.tenant_id = ${tenantId}`
      )
    }
  }).pipe(Effect.orDie)

/** Files as the multipart parser leaves them, in a temporary directory removed after the test. */
const uploads = (files: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kb-"))
      const parts = Object.entries(files).map(([name, text], i) => {
        fs.writeFileSync(path.join(dir, `part${i}`), text)
        return { name, path: path.join(dir, `part${i}`) }
      })
      return { dir, parts }
    }),
    ({ dir }) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map(({ parts }) => parts))

const newKb = (kbKey: string) => new CreateKnowledgeBaseRequest({ kbKey, kbName: `KB ${kbKey}` })

describe("the KnowledgeBases service", () => {
  it.layer(TestKit.layer({ runtime: { knowledge: { vectorStore: MemoryVectorStore } } }), { timeout: 120_000 })(
    (it) => {
      it.effect("creates the record and its collection together; neither when one of them is refused", () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-11-23T12:00:00Z")
          const kbs = yield* KnowledgeBases
          const { tenantId } = yield* TestKit.tenant()
          const kb = yield* kbs.create(tenantId, newKb("faq"))
          assert.deepInclude(kb, { kbKey: "faq", status: "EMPTY" })
          assert.strictEqual(memory.collections.size, 1)

          assert.strictEqual(yield* failureTag(kbs.create(tenantId, newKb("faq"))), "KbKeyTaken")
          const unknown = new CreateKnowledgeBaseRequest({ kbKey: "other", kbName: "Other", embedder: "nope" })
          assert.strictEqual(yield* failureTag(kbs.create(tenantId, unknown)), "UnknownEmbedder")
          memory.refuse = true
          assert.strictEqual(yield* failureTag(kbs.create(tenantId, newKb("down"))), "KnowledgeStoreUnavailable")
          assert.deepStrictEqual(yield* stored(tenantId), { kbs: 1, documents: 0 })
          assert.strictEqual(memory.collections.size, 1)

          const renamed = yield* kbs.update(tenantId, kb.id, new UpdateKnowledgeBaseRequest({ kbName: "Questions" }))
          assert.strictEqual(renamed.kbName, "Questions")
          yield* kbs.remove(tenantId, kb.id)
          assert.strictEqual(memory.collections.size, 0)
          assert.strictEqual(yield* failureTag(kbs.get(tenantId, kb.id)), "KnowledgeBaseNotFound")
          assert.deepStrictEqual(yield* stored(tenantId), { kbs: 0, documents: 0 })
        }))

      it.scoped("stores every uploaded file, or none when one is refused", () =>
        Effect.gen(function*() {
          const kbs = yield* KnowledgeBases
          const { tenantId } = yield* TestKit.tenant()
          const other = yield* TestKit.tenant()
          const kb = yield* kbs.create(tenantId, newKb("docs"))
          const mixed = yield* uploads({ "a.txt": "Opening hours: nine to five.", "b.exe": "MZ" })
          assert.strictEqual(yield* failureTag(kbs.upload(tenantId, kb.id, mixed)), "UnsupportedDocumentType")
          assert.strictEqual(yield* failureTag(kbs.upload(tenantId, kb.id, [])), "NoFilesUploaded")
          const good = yield* uploads({ "hours.txt": "Opening hours: nine to five.", "notes.md": "# Notes\nParking." })
          assert.strictEqual(yield* failureTag(kbs.upload(other.tenantId, kb.id, good)), "KnowledgeBaseNotFound")
          assert.deepStrictEqual(yield* stored(tenantId), { kbs: 1, documents: 0 })

          const { documents } = yield* kbs.upload(tenantId, kb.id, good)
          assert.deepStrictEqual(documents.map((d) => [d.title, d.sourceType, d.status]), [
            ["hours", "FILE", "PENDING"],
            ["notes", "FILE", "PENDING"]
          ])
          const url = { type: "URL", url: "http://127.0.0.1/admin" } as const
          assert.strictEqual(yield* failureTag(kbs.addSource(tenantId, kb.id, url)), "UrlNotAllowed")
          assert.deepStrictEqual(yield* stored(tenantId), { kbs: 1, documents: 2 })
        }))

      it.effect("a queued job wakes this process's worker; the query then answers from the store", () =>
        Effect.gen(function*() {
          const kbs = yield* KnowledgeBases
          const { tenantId } = yield* TestKit.tenant()
          const kb = yield* kbs.create(tenantId, newKb("hours"))
          yield* kbs.addSource(tenantId, kb.id, {
            type: "TEXT",
            title: "Hours",
            text: "The shop opens at nine in the morning and closes at five in the afternoon."
          })
          const accepted = yield* kbs.ingest(tenantId, kb.id, false)
          assert.strictEqual(accepted.status, "QUEUED")
          // the nudged worker runs the job at once: when the runtime is quiet again it has finished
          yield* TestKit.settle
          const job = yield* kbs.getJob(tenantId, kb.id, accepted.jobId)
          assert.strictEqual(job.status, "SUCCEEDED")
          const answer = yield* kbs.query(tenantId, kb.id, new QueryRequest({ query: "when does the shop open" }))
          assert.strictEqual(answer.kbId, kb.id)
          assert.isAbove(answer.items.length, 0)
          assert.include(answer.items[0]!.text, "nine in the morning")
          const missing = "00000000-0000-7000-8000-000000000000" as KnowledgeBaseId
          assert.strictEqual(
            yield* failureTag(kbs.query(tenantId, missing, new QueryRequest({ query: "anything" }))),
            "KnowledgeBaseNotFound"
          )
        }))
    }
  )
})

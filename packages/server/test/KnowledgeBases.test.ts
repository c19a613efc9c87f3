import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import * as ChromaVectorStore from "@voiceagent/runner/Knowledge/ChromaVectorStore"
import { chunkId, chunksOf, faqContent } from "@voiceagent/runner/Knowledge/DocumentChunks"
import { Embedders, makeEmbedders } from "@voiceagent/runner/Knowledge/Embedders"
import { makeOfflineEmbedder } from "@voiceagent/runner/Knowledge/OfflineEmbedder"
import { makeOpenAiEmbedder } from "@voiceagent/runner/Knowledge/OpenAiEmbedder"
import { defaultUrlPolicy } from "@voiceagent/runner/Knowledge/UrlFetcher"
import { VectorStore } from "@voiceagent/runner/Ports/VectorStore"
import { FakeEmbeddings } from "@voiceagent/runner/Testing/FakeEmbeddings"
import { minimalPdf } from "@voiceagent/runner/Testing/MinimalPdf"
import * as TestChroma from "@voiceagent/runner/Testing/TestChroma"
import { Effect, Layer, Runtime } from "effect"
import fc from "fast-check"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { createKey, del, get, patch, post, type Reply, request, signup, waitUntil } from "./Http.js"

// Knowledge bases over real sockets, against a real Chroma server (the `chroma` CLI on a temporary
// directory) with the built-in offline embedder: every HTTP rule, ingestion into the collection,
// incremental re-ingestion, retrieval, agents linking knowledge bases and answering from them on a call.

const refused = (reply: Reply, status: number, code: string, what: string) => {
  assert.strictEqual(reply.status, status, `${what} → ${reply.status} ${reply.text}`)
  assert.strictEqual(reply.body?.error?.code, code, `${what} → ${reply.text}`)
  assert.isString(reply.body.error.message, what)
}

const tenant = Effect.gen(function*() {
  const { gateway } = yield* TestPlatform.TestPlatformUrls
  const user = yield* signup(gateway)
  const { key } = yield* createKey(gateway, user.token)
  return { ...user, tenantId: user.tenantId!, key }
})

const createKb = (key: string, body: Record<string, unknown>) =>
  Effect.flatMap(
    TestPlatform.TestPlatformUrls,
    ({ comms }) => post(`${comms}/knowledge-bases`, { token: key, json: body })
  )

let keys = 0
const uniqueKey = (label = "kb") => `${label}-${Date.now().toString(36)}-${++keys}`

/** Polls the job until it is no longer queued or running (at most 30 s). */
const awaitJob = (key: string, kbId: string, jobId: string) =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    let last: Reply | undefined
    for (let i = 0; i < 300; i++) {
      last = yield* get(`${comms}/knowledge-bases/${kbId}/ingestion-jobs/${jobId}`, { token: key })
      assert.strictEqual(last.status, 200, last.text)
      if (last.body.status !== "QUEUED" && last.body.status !== "RUNNING") return last.body
      yield* Effect.sleep("100 millis")
    }
    return yield* Effect.dieMessage(`job ${jobId} did not finish: ${last?.text}`)
  })

const ingest = (key: string, kbId: string, query = "") =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    const queued = yield* post(`${comms}/knowledge-bases/${kbId}/ingestion-jobs${query}`, { token: key })
    assert.strictEqual(queued.status, 202, queued.text)
    assert.strictEqual(queued.body.status, "QUEUED")
    assert.strictEqual(queued.body.kbId, kbId)
    return yield* awaitJob(key, kbId, queued.body.jobId)
  })

const upload = (
  key: string,
  kbId: string,
  files: ReadonlyArray<{ name: string; content: Uint8Array | string; type?: string }>
) =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    const form = new FormData()
    for (const f of files) {
      form.append("file", new Blob([f.content], { type: f.type ?? "application/octet-stream" }), f.name)
    }
    return yield* request("POST", `${comms}/knowledge-bases/${kbId}/documents/upload`, { token: key, body: form })
  })

const query = (key: string, kbId: string, body: Record<string, unknown>) =>
  Effect.flatMap(
    TestPlatform.TestPlatformUrls,
    ({ comms }) => post(`${comms}/knowledge-bases/${kbId}/query`, { token: key, json: body })
  )

const FAQS = [
  {
    question: "What are your opening hours?",
    answer: "We are open Monday to Friday from 9 am to 6 pm, and Saturdays from 10 am to 2 pm."
  },
  {
    question: "How do I reset my password?",
    answer: "Open the login page, choose Forgot password and follow the link we e-mail you."
  },
  {
    question: "Do you deliver abroad?",
    answer: "We ship to every country in the European Union; delivery takes three to five working days."
  }
]

const LONG_TEXT = Array.from(
  { length: 12 },
  (_, i) =>
    `Section ${i + 1} of the solar panel guide. Photovoltaic modules convert sunlight into electricity through the ` +
    `photoelectric effect in silicon cells. Inverters turn the direct current into alternating current for the home. ` +
    `Batteries store surplus energy for the evening, and a smart meter reports what flows back to the grid.`
).join("\n\n")

describe("knowledge bases over HTTP, on a real Chroma", () => {
  const knowledge = {
    vectorStore: TestChroma.layer,
    // URL sources on 127.0.0.2 (the page server below) are allowed; the rest of loopback is not
    settings: { urlPolicy: { ...defaultUrlPolicy, allow: ["127.0.0.2"] } }
  }
  layer(TestPlatform.layer({ runtime: { knowledge } }), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("creates a knowledge base with its collection; defaults, listing, reading, duplicates", () =>
      Effect.gen(function*() {
        const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
        const store = yield* VectorStore
        const a = yield* tenant
        const kbKey = uniqueKey("product-faq")
        const created = yield* createKb(a.key, { kbKey, kbName: "  Product FAQ ", metadata: { team: "support" } })
        assert.strictEqual(created.status, 201, created.text)
        const kb = created.body
        assert.strictEqual(kb.kbKey, kbKey)
        assert.strictEqual(kb.kbName, "Product FAQ")
        assert.strictEqual(kb.description, "")
        assert.strictEqual(kb.retrievalScoreThreshold, 0.2)
        assert.deepStrictEqual(kb.metadata, { team: "support" })
        assert.strictEqual(kb.status, "EMPTY")
        assert.strictEqual(kb.documentCount, 0)
        assert.strictEqual(kb.chunkCount, 0)
        assert.strictEqual(kb.embedder, "offline-hash-v1")
        assert.isNull(kb.pendingEmbedder)
        assert.isNull(kb.lastIngestedAt)
        assert.strictEqual(kb.tenantId, a.tenantId)
        assert.match(kb.createdAt, /Z$/)
        const collection = `t${a.tenantId.replaceAll("-", "")}_kb${kb.id.replaceAll("-", "")}_g1`
        assert.isTrue(yield* store.collectionExists(collection), "the collection was created")

        // through the gateway too; reading and listing
        const viaGateway = yield* get(`${gateway}/knowledge-bases/${kb.id}`, { token: a.key })
        assert.strictEqual(viaGateway.status, 200, viaGateway.text)
        assert.deepStrictEqual(viaGateway.body, kb)
        const list = yield* get(`${comms}/knowledge-bases?pageSize=5`, { token: a.key })
        assert.strictEqual(list.body.total, 1)
        assert.strictEqual(list.body.items[0].id, kb.id)

        // kbKey is unique within a tenant, not across tenants
        refused(yield* createKb(a.key, { kbKey, kbName: "Again" }), 409, "KB_KEY_TAKEN", "duplicate kbKey")
        const b = yield* tenant
        const other = yield* createKb(b.key, {
          kbKey,
          kbName: "Theirs",
          retrievalScoreThreshold: 0.4,
          description: "d"
        })
        assert.strictEqual(other.status, 201, other.text)
        assert.strictEqual(other.body.retrievalScoreThreshold, 0.4)
        refused(
          yield* get(`${comms}/knowledge-bases/${other.body.id}`, { token: a.key }),
          404,
          "KNOWLEDGE_BASE_NOT_FOUND",
          "another tenant's"
        )
        assert.strictEqual((yield* get(`${comms}/knowledge-bases`, { token: a.key })).body.total, 1)
      }))

    it.effect("refuses bad bodies with 400 and writes nothing", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const a = yield* tenant
        const bad: ReadonlyArray<[string, unknown]> = [
          ["kbKey missing", { kbName: "x" }],
          ["kbName missing", { kbKey: "abc" }],
          ["kbKey one character", { kbKey: "a", kbName: "x" }],
          ["kbKey upper case", { kbKey: "Product", kbName: "x" }],
          ["kbKey leading dash", { kbKey: "-abc", kbName: "x" }],
          ["kbKey with a space", { kbKey: "ab c", kbName: "x" }],
          ["kbKey 65 characters", { kbKey: "a".repeat(65), kbName: "x" }],
          ["blank kbName", { kbKey: "abc", kbName: "   " }],
          ["threshold above 1", { kbKey: "abc", kbName: "x", retrievalScoreThreshold: 1.5 }],
          ["threshold below 0", { kbKey: "abc", kbName: "x", retrievalScoreThreshold: -0.1 }],
          ["threshold a string", { kbKey: "abc", kbName: "x", retrievalScoreThreshold: "0.5" }],
          ["metadata an array", { kbKey: "abc", kbName: "x", metadata: [1] }],
          ["description too long", { kbKey: "abc", kbName: "x", description: "d".repeat(2001) }]
        ]
        for (const [what, body] of bad) {
          refused(yield* createKb(a.key, body as Record<string, unknown>), 400, "VALIDATION_FAILED", what)
        }
        refused(
          yield* createKb(a.key, { kbKey: "abc", kbName: "x", embedder: "gpt-9" }),
          400,
          "UNKNOWN_EMBEDDER",
          "unknown embedder"
        )
        assert.strictEqual((yield* get(`${comms}/knowledge-bases`, { token: a.key })).body.total, 0)
        refused(
          yield* get(`${comms}/knowledge-bases?pageSize=101`, { token: a.key }),
          400,
          "VALIDATION_FAILED",
          "pageSize 101"
        )
        refused(yield* get(`${comms}/knowledge-bases/not-a-uuid`, { token: a.key }), 400, "VALIDATION_FAILED", "bad id")
        refused(yield* get(`${comms}/knowledge-bases`), 401, "MISSING_CREDENTIALS", "no key")
      }))

    it.effect("PATCH changes fields, merges metadata, keeps kbKey unique; DELETE drops the collection", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const store = yield* VectorStore
        const a = yield* tenant
        const first =
          (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "First", metadata: { a: 1, b: { c: 2 } } })).body
        const second = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Second" })).body
        const changed = yield* patch(`${comms}/knowledge-bases/${first.id}`, {
          token: a.key,
          json: {
            kbName: "Renamed",
            description: "about things",
            retrievalScoreThreshold: 0.5,
            metadata: { a: null, b: { d: 3 } }
          }
        })
        assert.strictEqual(changed.status, 200, changed.text)
        assert.strictEqual(changed.body.kbName, "Renamed")
        assert.strictEqual(changed.body.description, "about things")
        assert.strictEqual(changed.body.retrievalScoreThreshold, 0.5)
        assert.deepStrictEqual(changed.body.metadata, { b: { c: 2, d: 3 } })
        assert.strictEqual(changed.body.kbKey, first.kbKey)
        refused(
          yield* patch(`${comms}/knowledge-bases/${first.id}`, { token: a.key, json: { kbKey: second.kbKey } }),
          409,
          "KB_KEY_TAKEN",
          "renaming onto another key"
        )
        refused(
          yield* patch(`${comms}/knowledge-bases/${first.id}`, { token: a.key, json: { retrievalScoreThreshold: 2 } }),
          400,
          "VALIDATION_FAILED",
          "threshold 2"
        )
        assert.strictEqual(
          (yield* get(`${comms}/knowledge-bases/${first.id}`, { token: a.key })).body.retrievalScoreThreshold,
          0.5
        )

        const collection = `t${a.tenantId.replaceAll("-", "")}_kb${first.id.replaceAll("-", "")}_g1`
        assert.isTrue(yield* store.collectionExists(collection))
        const gone = yield* del(`${comms}/knowledge-bases/${first.id}`, { token: a.key })
        assert.strictEqual(gone.status, 204, gone.text)
        assert.isFalse(yield* store.collectionExists(collection), "the collection was dropped")
        refused(
          yield* get(`${comms}/knowledge-bases/${first.id}`, { token: a.key }),
          404,
          "KNOWLEDGE_BASE_NOT_FOUND",
          "deleted"
        )
        refused(
          yield* del(`${comms}/knowledge-bases/${first.id}`, { token: a.key }),
          404,
          "KNOWLEDGE_BASE_NOT_FOUND",
          "deleted twice"
        )
      }))

    it.effect("sources: text, FAQ pairs and URLs (private addresses refused); bad sources refused", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const a = yield* tenant
        const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Sources" })).body
        const sources = `${comms}/knowledge-bases/${kb.id}/sources`
        const text = yield* post(sources, {
          token: a.key,
          json: { type: "TEXT", title: "Returns", text: "Returns are free within 30 days." }
        })
        assert.strictEqual(text.status, 201, text.text)
        assert.strictEqual(text.body.sourceType, "TEXT")
        assert.strictEqual(text.body.title, "Returns")
        assert.strictEqual(text.body.status, "PENDING")
        assert.strictEqual(text.body.characters, 32)
        assert.match(text.body.contentHash, /^[0-9a-f]{64}$/)
        const faq = yield* post(sources, { token: a.key, json: { type: "FAQ", title: "Support", faqs: FAQS } })
        assert.strictEqual(faq.status, 201, faq.text)
        assert.strictEqual(faq.body.characters, faqContent(FAQS).length)
        // (allow-listed; checked, not fetched, when added: the machine running the tests may have no DNS)
        const url = yield* post(sources, { token: a.key, json: { type: "URL", url: "http://127.0.0.2:8080/help/faq" } })
        assert.strictEqual(url.status, 201, url.text)
        assert.strictEqual(url.body.url, "http://127.0.0.2:8080/help/faq")
        assert.strictEqual(url.body.title, "127.0.0.2/help/faq")
        assert.isNull(url.body.characters)

        for (
          const [what, target] of [
            ["loopback", "http://127.0.0.1:8080/admin"],
            ["localhost", "http://localhost/"],
            ["private network", "http://10.1.2.3/"],
            ["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
            ["IPv6 loopback", "http://[::1]/"],
            ["ftp", "ftp://example.com/file.txt"],
            ["file", "file:///etc/passwd"],
            ["credentials", "http://user:pass@127.0.0.2/"],
            ["a host that does not resolve", "https://does-not-exist.invalid/"],
            ["not a URL", "not a url"]
          ] as const
        ) {
          refused(
            yield* post(sources, { token: a.key, json: { type: "URL", url: target } }),
            400,
            "URL_NOT_ALLOWED",
            what
          )
        }
        for (
          const [what, body] of [
            ["unknown type", { type: "VIDEO", url: "https://example.com" }],
            ["text without title", { type: "TEXT", text: "x" }],
            ["blank text", { type: "TEXT", title: "t", text: "   " }],
            ["no FAQ pairs", { type: "FAQ", faqs: [] }],
            ["FAQ pair without answer", { type: "FAQ", faqs: [{ question: "q" }] }],
            ["text over the limit", { type: "TEXT", title: "t", text: "x".repeat(1_000_001) }]
          ] as const
        ) {
          refused(yield* post(sources, { token: a.key, json: body }), 400, "VALIDATION_FAILED", what)
        }
        const documents = yield* get(`${comms}/knowledge-bases/${kb.id}/documents`, { token: a.key })
        assert.strictEqual(documents.body.total, 3, "only the three accepted sources were stored")
        const read = yield* get(`${comms}/knowledge-bases/${kb.id}`, { token: a.key })
        assert.strictEqual(read.body.status, "NEEDS_INGESTION")
        assert.strictEqual(read.body.documentCount, 3)
        refused(
          yield* post(`${comms}/knowledge-bases/0190a5b0-0000-7000-8000-000000000000/sources`, {
            token: a.key,
            json: { type: "TEXT", title: "t", text: "x" }
          }),
          404,
          "KNOWLEDGE_BASE_NOT_FOUND",
          "unknown knowledge base"
        )
      }))

    it.effect(
      "uploads .txt, .md, .csv, .html and .pdf; other types, unreadable files and no files refused, all or none",
      () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const a = yield* tenant
          const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Uploads" })).body
          const uploaded = yield* upload(a.key, kb.id, [
            { name: "notes.txt", content: "Plain notes about the warranty. It lasts two years." },
            { name: "guide.md", content: "# Setup\n\nPlug the **router** into [the wall](https://x.example).\n" },
            { name: "prices.csv", content: "plan,price\nBasic,10\nPro,25\n" },
            {
              name: "page.html",
              content:
                "<html><head><script>evil()</script></head><body><h1>Hello</h1><p>Welcome aboard.</p></body></html>"
            },
            { name: "Manual.PDF", content: minimalPdf([["The manual says: press the blue button twice."]]) }
          ])
          assert.strictEqual(uploaded.status, 201, uploaded.text)
          const docs = uploaded.body.documents as Array<any>
          assert.deepStrictEqual(docs.map((d) => d.format), ["txt", "md", "csv", "html", "pdf"])
          assert.deepStrictEqual(docs.map((d) => d.fileName), [
            "notes.txt",
            "guide.md",
            "prices.csv",
            "page.html",
            "Manual.PDF"
          ])
          assert.deepStrictEqual(docs.map((d) => d.sourceType), ["FILE", "FILE", "FILE", "FILE", "FILE"])
          assert.strictEqual(docs[0].title, "notes")
          for (const d of docs) assert.isAbove(d.characters, 0)

          const before = (yield* get(`${comms}/knowledge-bases/${kb.id}/documents`, { token: a.key })).body.total
          assert.strictEqual(before, 5)
          const mixed = yield* upload(a.key, kb.id, [
            { name: "ok.txt", content: "fine" },
            { name: "report.docx", content: "PK\u0003\u0004" }
          ])
          refused(mixed, 415, "UNSUPPORTED_DOCUMENT_TYPE", ".docx among good files")
          assert.strictEqual(mixed.body.error.details.fileName, "report.docx")
          const notUtf8 = yield* upload(a.key, kb.id, [{
            name: "latin1.txt",
            content: new Uint8Array([0x63, 0x61, 0x66, 0xe9])
          }])
          refused(notUtf8, 422, "DOCUMENT_UNREADABLE", "invalid UTF-8")
          assert.strictEqual(notUtf8.body.error.details.reason, "INVALID_ENCODING")
          refused(
            yield* upload(a.key, kb.id, [{ name: "fake.pdf", content: "not a pdf at all" }]),
            422,
            "DOCUMENT_UNREADABLE",
            "bad PDF"
          )
          refused(
            yield* upload(a.key, kb.id, [{ name: "blank.pdf", content: minimalPdf([[]]) }]),
            422,
            "DOCUMENT_UNREADABLE",
            "PDF without text"
          )
          refused(
            yield* upload(a.key, kb.id, [{ name: "empty.md", content: "   \n\n" }]),
            422,
            "DOCUMENT_UNREADABLE",
            "empty file"
          )
          const tooMany = yield* upload(
            a.key,
            kb.id,
            Array.from({ length: 11 }, (_, i) => ({ name: `f${i}.txt`, content: "x" }))
          )
          assert.include([400, 413], tooMany.status, tooMany.text)
          const noFile = new FormData()
          noFile.append("other", "value")
          const none = yield* request("POST", `${comms}/knowledge-bases/${kb.id}/documents/upload`, {
            token: a.key,
            body: noFile
          })
          assert.strictEqual(none.status, 400, none.text)
          const big = yield* upload(a.key, kb.id, [{ name: "big.txt", content: "a".repeat(10 * 1024 * 1024 + 1) }])
          assert.strictEqual(big.status, 413, big.text)
          assert.strictEqual(
            (yield* get(`${comms}/knowledge-bases/${kb.id}/documents`, { token: a.key })).body.total,
            5,
            "no refused upload stored anything"
          )
        })
    )

    it.effect("ingests into Chroma, answers queries best first above the threshold, re-ingests incrementally", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const store = yield* VectorStore
        const a = yield* tenant
        const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Help centre" })).body
        const sources = `${comms}/knowledge-bases/${kb.id}/sources`
        const faq = (yield* post(sources, { token: a.key, json: { type: "FAQ", title: "Support", faqs: FAQS } })).body
        const guide =
          (yield* post(sources, { token: a.key, json: { type: "TEXT", title: "Solar guide", text: LONG_TEXT } })).body
        const guideChunks = chunksOf({ sourceType: "TEXT", content: LONG_TEXT, faqs: null })
        assert.isAbove(guideChunks.length, 2, "the guide spans several chunks")

        const job = yield* ingest(a.key, kb.id)
        assert.strictEqual(job.status, "SUCCEEDED", JSON.stringify(job))
        assert.strictEqual(job.progress.chunksTotal, FAQS.length + guideChunks.length)
        assert.strictEqual(job.progress.chunksDone, job.progress.chunksTotal)
        assert.deepStrictEqual(job.documents, { ingested: 2, unchanged: 0, removed: 0, failed: 0 })
        assert.deepStrictEqual(job.errors, [])
        assert.strictEqual(job.embedder, "offline-hash-v1")
        assert.strictEqual(job.runs, 1)
        assert.isString(job.finishedAt)

        const collection = `t${a.tenantId.replaceAll("-", "")}_kb${kb.id.replaceAll("-", "")}_g1`
        const expectedIds = [
          ...FAQS.map((_, i) => chunkId(faq.id, i)),
          ...guideChunks.map((_, i) => chunkId(guide.id, i))
        ].sort()
        assert.deepStrictEqual([...(yield* store.ids(collection))].sort(), expectedIds)

        const read = (yield* get(`${comms}/knowledge-bases/${kb.id}`, { token: a.key })).body
        assert.strictEqual(read.status, "READY")
        assert.strictEqual(read.chunkCount, expectedIds.length)
        assert.isString(read.lastIngestedAt)
        const faqDoc = (yield* get(`${comms}/knowledge-bases/${kb.id}/documents/${faq.id}`, { token: a.key })).body
        assert.strictEqual(faqDoc.status, "INGESTED")
        assert.strictEqual(faqDoc.chunkCount, 3)

        // retrieval: the right FAQ pair first, scores descending and at or above the threshold
        const answer = yield* query(a.key, kb.id, { query: "When are you open on Saturday?" })
        assert.strictEqual(answer.status, 200, answer.text)
        assert.strictEqual(answer.body.threshold, 0.2)
        assert.strictEqual(answer.body.embedder, "offline-hash-v1")
        const items = answer.body.items as Array<any>
        assert.isAbove(items.length, 0)
        assert.strictEqual(items[0].chunkId, chunkId(faq.id, 0), JSON.stringify(items[0]))
        assert.include(items[0].text, "Saturdays from 10 am")
        assert.deepStrictEqual(items[0].source, { type: "FAQ", title: "Support", url: null, fileName: null })
        assert.strictEqual(items[0].documentId, faq.id)
        for (let i = 1; i < items.length; i++) assert.isAtMost(items[i].score, items[i - 1].score)
        for (const item of items) assert.isAtLeast(item.score, 0.2)
        assert.isAtMost(items[0].score, 1)

        const solar =
          (yield* query(a.key, kb.id, { query: "how do inverters convert direct current", topK: 2 })).body.items
        assert.strictEqual(solar.length, 2)
        assert.strictEqual(solar[0].documentId, guide.id)
        // a threshold above every score leaves nothing
        yield* patch(`${comms}/knowledge-bases/${kb.id}`, { token: a.key, json: { retrievalScoreThreshold: 0.99 } })
        assert.deepStrictEqual((yield* query(a.key, kb.id, { query: "When are you open on Saturday?" })).body.items, [])
        yield* patch(`${comms}/knowledge-bases/${kb.id}`, { token: a.key, json: { retrievalScoreThreshold: 0.2 } })
        for (
          const [what, body] of [
            ["no query", {}],
            ["blank query", { query: "  " }],
            ["topK 0", { query: "x", topK: 0 }],
            ["topK 51", { query: "x", topK: 51 }],
            ["topK 1.5", { query: "x", topK: 1.5 }]
          ] as const
        ) refused(yield* query(a.key, kb.id, body), 400, "VALIDATION_FAILED", what)

        // nothing changed: everything is skipped by hash
        const again = yield* ingest(a.key, kb.id)
        assert.strictEqual(again.status, "SUCCEEDED")
        assert.strictEqual(again.progress.chunksTotal, 0)
        assert.deepStrictEqual(again.documents, { ingested: 0, unchanged: 2, removed: 0, failed: 0 })

        // a removed document leaves queries at once and the collection with the next job
        const removed = yield* del(`${comms}/knowledge-bases/${kb.id}/documents/${faq.id}`, { token: a.key })
        assert.strictEqual(removed.status, 204, removed.text)
        assert.strictEqual(
          (yield* get(`${comms}/knowledge-bases/${kb.id}`, { token: a.key })).body.status,
          "NEEDS_INGESTION"
        )
        const afterRemoval = (yield* query(a.key, kb.id, { query: "When are you open on Saturday?", topK: 10 })).body
          .items as Array<any>
        assert.isTrue(afterRemoval.every((i) => i.documentId !== faq.id), "removed chunks are left out before purging")
        const text = (yield* post(sources, {
          token: a.key,
          json: { type: "TEXT", title: "Pets", text: "Dogs are welcome in the shop." }
        })).body
        const third = yield* ingest(a.key, kb.id)
        assert.deepStrictEqual(third.documents, { ingested: 1, unchanged: 1, removed: 1, failed: 0 })
        assert.strictEqual(third.progress.chunksTotal, 1)
        assert.deepStrictEqual(
          [...(yield* store.ids(collection))].sort(),
          [...guideChunks.map((_, i) => chunkId(guide.id, i)), chunkId(text.id, 0)].sort()
        )
        refused(
          yield* get(`${comms}/knowledge-bases/${kb.id}/documents/${faq.id}`, { token: a.key }),
          404,
          "DOCUMENT_NOT_FOUND",
          "purged"
        )

        // full re-ingestion embeds every document again, under the same ids
        const full = yield* ingest(a.key, kb.id, "?full=true")
        assert.deepStrictEqual(full.documents, { ingested: 2, unchanged: 0, removed: 0, failed: 0 })
        assert.strictEqual(yield* store.count(collection), guideChunks.length + 1)
        const jobs = yield* get(`${comms}/knowledge-bases/${kb.id}/ingestion-jobs`, { token: a.key })
        assert.strictEqual(jobs.body.total, 4)
        refused(
          yield* get(`${comms}/knowledge-bases/${kb.id}/ingestion-jobs/0190a5b0-0000-7000-8000-000000000000`, {
            token: a.key
          }),
          404,
          "INGESTION_JOB_NOT_FOUND",
          "unknown job"
        )
        refused(
          yield* post(`${comms}/knowledge-bases/${kb.id}/ingestion-jobs?full=yes`, { token: a.key }),
          400,
          "VALIDATION_FAILED",
          "full=yes"
        )
      }))

    it.scoped(
      "URL sources are fetched by each job (allow-listed loopback); a page that cannot be fetched fails alone",
      () =>
        Effect.gen(function*() {
          const a = yield* tenant
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const site = yield* pageServer
          site.pages.set("/hours", {
            type: "text/html; charset=utf-8",
            body: "<html><body><nav>Menu</nav><p>The museum opens at nine.</p></body></html>"
          })
          site.pages.set("/notes.txt", { type: "text/plain", body: "Tickets cost twelve euros." })
          const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Web" })).body
          const sources = `${comms}/knowledge-bases/${kb.id}/sources`
          const add = (url: string) =>
            Effect.map(post(sources, { token: a.key, json: { type: "URL", url } }), (r) => {
              assert.strictEqual(r.status, 201, r.text)
              return r.body
            })
          const hours = yield* add(`${site.url}/hours`)
          const notes = yield* add(`${site.url}/notes.txt`)
          const missing = yield* add(`${site.url}/missing`)
          refused(
            yield* post(sources, { token: a.key, json: { type: "URL", url: "http://127.0.0.1:8080/" } }),
            400,
            "URL_NOT_ALLOWED",
            "loopback outside the allow-list"
          )

          const job = yield* ingest(a.key, kb.id)
          assert.strictEqual(job.status, "COMPLETED_WITH_ERRORS", JSON.stringify(job))
          assert.deepStrictEqual(job.documents, { ingested: 2, unchanged: 0, removed: 0, failed: 1 })
          assert.strictEqual(job.errors.length, 1)
          assert.strictEqual(job.errors[0].documentId, missing.id)
          assert.strictEqual(job.errors[0].code, "FETCH_FAILED")
          const failed =
            (yield* get(`${comms}/knowledge-bases/${kb.id}/documents/${missing.id}`, { token: a.key })).body
          assert.strictEqual(failed.status, "FAILED")
          assert.strictEqual(failed.lastError.code, "FETCH_FAILED")
          const fetched = (yield* get(`${comms}/knowledge-bases/${kb.id}/documents/${hours.id}`, { token: a.key })).body
          assert.strictEqual(fetched.format, "html")
          assert.strictEqual(fetched.status, "INGESTED")
          const found = (yield* query(a.key, kb.id, { query: "when does the museum open" })).body.items
          assert.strictEqual(found[0].documentId, hours.id)
          assert.notInclude(found[0].text, "Menu", "navigation is not content")
          assert.strictEqual(found[0].source.url, `${site.url}/hours`)

          // the page changes: only it is embedded again; the missing page fails again
          site.pages.set("/hours", { type: "text/html", body: "<p>The museum opens at ten on Sundays.</p>" })
          const next = yield* ingest(a.key, kb.id)
          assert.deepStrictEqual(next.documents, { ingested: 1, unchanged: 1, removed: 0, failed: 1 })
          const changed = (yield* query(a.key, kb.id, { query: "museum opening on Sundays" })).body.items
          assert.include(changed[0].text, "ten on Sundays")
          const tickets = (yield* query(a.key, kb.id, { query: "how much do tickets cost" })).body.items
          assert.strictEqual(tickets[0].documentId, notes.id, "a text/plain page is ingested too")
        })
    )

    it.effect(
      "a query's knowledge base read once is kept, yet edits, deletes and another process's switch are seen",
      () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const sql = yield* SqlClient.SqlClient
          const store = yield* VectorStore
          const a = yield* tenant
          const b = yield* tenant
          const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Cached" })).body
          const faq = (yield* post(`${comms}/knowledge-bases/${kb.id}/sources`, {
            token: a.key,
            json: { type: "FAQ", title: "Support", faqs: FAQS }
          })).body
          assert.strictEqual((yield* ingest(a.key, kb.id)).status, "SUCCEEDED")
          const ask = { query: "When are you open on Saturday?" }
          const first = yield* query(a.key, kb.id, ask)
          assert.strictEqual(first.status, 200, first.text)
          assert.strictEqual(first.body.items[0].documentId, faq.id)
          assert.strictEqual(first.body.threshold, 0.2)

          // another tenant never gets it, cached or not
          refused(yield* query(b.key, kb.id, ask), 404, "KNOWLEDGE_BASE_NOT_FOUND", "another tenant's knowledge base")

          // an edit is seen at once
          yield* patch(`${comms}/knowledge-bases/${kb.id}`, { token: a.key, json: { retrievalScoreThreshold: 0.99 } })
          const edited = yield* query(a.key, kb.id, ask)
          assert.strictEqual(edited.body.threshold, 0.99)
          assert.deepStrictEqual(edited.body.items, [])
          yield* patch(`${comms}/knowledge-bases/${kb.id}`, { token: a.key, json: { retrievalScoreThreshold: 0.2 } })
          assert.strictEqual((yield* query(a.key, kb.id, ask)).body.items[0].documentId, faq.id)

          // another process switches the knowledge base to a new collection and drops the old one (no word to this
          // process): the cached target's collection is gone, so the query reads the target again
          const next = `t${a.tenantId.replaceAll("-", "")}_kb${kb.id.replaceAll("-", "")}_g2`
          const [vector] = yield* makeOfflineEmbedder().embed(["Saturday opening: ten to two."])
          yield* store.ensureCollection(next)
          yield* store.upsert(next, [{
            id: chunkId(faq.id, 9),
            embedding: vector!,
            text: "Saturday opening: ten to two.",
            metadata: { documentId: faq.id, chunkIndex: 9, sourceType: "TEXT" }
          }])
          yield* sql`UPDATE knowledge_bases SET collection = ${next}, generation = 2 WHERE id = ${kb.id}`
          yield* store.dropCollection(`t${a.tenantId.replaceAll("-", "")}_kb${kb.id.replaceAll("-", "")}_g1`)
          const switched = yield* query(a.key, kb.id, { query: "Saturday opening", topK: 10 })
          assert.strictEqual(switched.status, 200, switched.text)
          assert.deepStrictEqual(switched.body.items.map((i: any) => i.chunkId), [chunkId(faq.id, 9)])

          // a delete is seen at once
          assert.strictEqual((yield* del(`${comms}/knowledge-bases/${kb.id}`, { token: a.key })).status, 204)
          refused(yield* query(a.key, kb.id, ask), 404, "KNOWLEDGE_BASE_NOT_FOUND", "deleted")
        })
    )

    it.effect("random JSON bodies never answer 5xx, and refused ones write nothing", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const sql = yield* SqlClient.SqlClient
        const a = yield* tenant
        const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Fuzz" })).body
        const totals = sql<{ n: string }>`
          SELECT (SELECT count(*) FROM knowledge_bases) || '/' || (SELECT count(*) FROM kb_documents) || '/' ||
                 (SELECT count(*) FROM kb_ingestion_jobs) AS n
        `.pipe(Effect.map(([r]) => r!.n), Effect.orDie)
        const targets = [
          ["POST", `${comms}/knowledge-bases`],
          ["PATCH", `${comms}/knowledge-bases/${kb.id}`],
          ["POST", `${comms}/knowledge-bases/${kb.id}/sources`],
          ["POST", `${comms}/knowledge-bases/${kb.id}/query`]
        ] as const
        const body = fc.oneof(
          fc.jsonValue(),
          fc.record({
            kbKey: fc.oneof(fc.string(), fc.jsonValue()),
            kbName: fc.jsonValue(),
            retrievalScoreThreshold: fc.jsonValue()
          }),
          fc.record({ type: fc.constantFrom("TEXT", "URL", "FAQ", "x"), title: fc.jsonValue(), text: fc.jsonValue() }),
          fc.record({
            type: fc.constant("URL"),
            url: fc.oneof(fc.webUrl(), fc.string(), fc.constant("http://10.0.0.1/"))
          }),
          fc.record({
            type: fc.constant("FAQ"),
            faqs: fc.array(fc.record({ question: fc.jsonValue(), answer: fc.jsonValue() }))
          }),
          fc.record({ query: fc.jsonValue(), topK: fc.jsonValue() })
        )
        const runtime = yield* Effect.runtime<never>()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.constantFrom(...targets), body, async ([method, url], json) => {
              const before = await Runtime.runPromise(runtime)(totals)
              const reply = await Runtime.runPromise(runtime)(request(method, url, { token: a.key, json }))
              if (reply.status >= 500) {
                throw new Error(`5xx from ${method} ${url} for ${JSON.stringify(json)}: ${reply.text}`)
              }
              if (reply.status >= 400 && (await Runtime.runPromise(runtime)(totals)) !== before) {
                throw new Error(`${method} ${url} refused ${JSON.stringify(json)} with ${reply.status} but wrote data`)
              }
            }),
            { numRuns: 120, seed: Number(process.env["FC_SEED"] ?? Date.now() % 2 ** 31) }
          )
        )
      }))

    it.effect("agents link knowledge bases and answer from them on a call", () =>
      Effect.gen(function*() {
        const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
        const a = yield* tenant
        const top = yield* post(`${gateway}/wallet/top-ups`, {
          token: a.token,
          json: { amount: 10_000, idempotencyKey: "seed" }
        })
        assert.strictEqual(top.status, 201, top.text)
        const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Shop" })).body
        yield* post(`${comms}/knowledge-bases/${kb.id}/sources`, { token: a.key, json: { type: "FAQ", faqs: FAQS } })
        assert.strictEqual((yield* ingest(a.key, kb.id)).status, "SUCCEEDED")

        const persona = (yield* get(`${comms}/prompts/personas`, { token: a.key })).body.items[0]
        const agent =
          (yield* post(`${comms}/agents`, { token: a.key, json: { name: "Helper", agent_persona_id: persona.id } }))
            .body
        assert.deepStrictEqual(agent.knowledgeBaseIds, [])
        const other = yield* tenant
        const theirs = (yield* createKb(other.key, { kbKey: uniqueKey(), kbName: "Theirs" })).body
        const bad = yield* patch(`${comms}/agents/${agent.id}`, {
          token: a.key,
          json: { knowledgeBaseIds: [kb.id, theirs.id] }
        })
        refused(bad, 400, "UNKNOWN_KNOWLEDGE_BASE", "another tenant's knowledge base")
        assert.deepStrictEqual(bad.body.error.details.knowledgeBaseIds, [theirs.id])
        refused(
          yield* patch(`${comms}/agents/${agent.id}`, { token: a.key, json: { knowledgeBaseIds: [kb.id, kb.id] } }),
          400,
          "VALIDATION_FAILED",
          "duplicate ids"
        )
        assert.deepStrictEqual((yield* get(`${comms}/agents/${agent.id}`, { token: a.key })).body.knowledgeBaseIds, [])
        const linked = yield* patch(`${comms}/agents/${agent.id}`, {
          token: a.key,
          json: { knowledgeBaseIds: [kb.id] }
        })
        assert.strictEqual(linked.status, 200, linked.text)
        assert.deepStrictEqual(linked.body.knowledgeBaseIds, [kb.id])

        const number = yield* post(`${comms}/voice-numbers`, {
          token: a.key,
          json: { phoneNumber: "+14155550142", provider: "PROVIDER_A" }
        })
        assert.strictEqual(number.status, 201, number.text)
        // the simulated callee answers and says its lines to the agent's conversation engine (in real time here)
        const call = yield* post(`${comms}/channels/voice/call`, {
          token: a.key,
          json: {
            agentId: agent.id,
            voiceNumberId: number.body.id,
            toNumber: "+14155550090",
            metadata: {
              simulatedCallerLines: ["Hi, what are your opening hours?", "Do you deliver abroad?", "Thanks, bye."]
            }
          }
        })
        assert.strictEqual(call.status, 202, call.text)
        // lines are stored as they are said: read them as the call goes on
        const session = yield* waitUntil(
          get(`${comms}/calls/${call.body.sessionId}`, { token: a.key }).pipe(Effect.map((r) => r.body)),
          (s: any) =>
            s.status === "ENDED" || (s.transcript ?? []).filter((l: any) => l.speaker === "agent").length >= 4,
          "the agent's fourth line, or the call's end",
          120
        )
        const transcript: Array<any> = session.transcript ?? []
        const agentLines = transcript.filter((l) => l.speaker === "agent").map((l) => l.text)
        const story = JSON.stringify({
          status: session.status,
          endReason: session.endReason,
          events: session.events,
          transcript
        })
        assert.include(agentLines[1] ?? "", "Monday to Friday from 9 am to 6 pm", story)
        assert.include(agentLines[2] ?? "", "European Union", story)
        // the caller's goodbye: the agent says its own and ends the call
        assert.strictEqual(agentLines[3], "Thank you for your time. Goodbye!", story)

        // deleting the knowledge base unlinks it
        assert.strictEqual((yield* del(`${comms}/knowledge-bases/${kb.id}`, { token: a.key })).status, 204)
        assert.deepStrictEqual((yield* get(`${comms}/agents/${agent.id}`, { token: a.key })).body.knowledgeBaseIds, [])
      }))
  })
})

describe("knowledge bases when the vector store refuses", () => {
  // a Chroma that is not there: creating answers 503 and leaves nothing behind
  const unreachable = ChromaVectorStore.layer({ url: "http://127.0.0.1:9", timeoutMillis: 2_000 })
  layer(TestPlatform.layer({ runtime: { knowledge: { vectorStore: unreachable } } }), {
    timeout: 60_000,
    excludeTestServices: true
  })((it) => {
    it.effect("creation answers 503 VECTOR_STORE_UNAVAILABLE and stores nothing", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const a = yield* tenant
        refused(
          yield* createKb(a.key, { kbKey: "kb-one", kbName: "One" }),
          503,
          "VECTOR_STORE_UNAVAILABLE",
          "Chroma down"
        )
        assert.strictEqual((yield* get(`${comms}/knowledge-bases`, { token: a.key })).body.total, 0)
      }))
  })
})

/** A loopback page server on 127.0.0.2 for URL sources; pages can change between jobs. */
const pageServer = Effect.acquireRelease(
  Effect.async<{ url: string; server: http.Server; pages: Map<string, { type: string; body: string }> }>((resume) => {
    const pages = new Map<string, { type: string; body: string }>()
    const server = http.createServer((req, res) => {
      const page = pages.get(req.url ?? "")
      if (page === undefined) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found")
        return
      }
      res.writeHead(200, { "content-type": page.type }).end(page.body)
    })
    server.listen(0, "127.0.0.2", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.2:${port}`, server, pages }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

describe("knowledge bases with an OpenAI-compatible embedder, and switching embedders", () => {
  // one fake embeddings API, shared by the platform's adapter and the test (layers are memoized)
  const fake = FakeEmbeddings.layer()
  const embedders = Layer.effect(
    Embedders,
    Effect.gen(function*() {
      const api = yield* FakeEmbeddings
      const openai = yield* makeOpenAiEmbedder({ url: api.url, model: "text-embedding-3-small" })
      return makeEmbedders([makeOfflineEmbedder(), openai])
    })
  ).pipe(Layer.provide(fake))
  const platform = TestPlatform.layer({ runtime: { knowledge: { vectorStore: TestChroma.layer, embedders } } }).pipe(
    Layer.provideMerge(fake)
  )
  layer(platform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("ingests and queries through the adapter; a switch re-embeds into a new collection, then swaps", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const api = yield* FakeEmbeddings
        const store = yield* VectorStore
        const a = yield* tenant
        const collectionOf = (kbId: string, generation: number) =>
          `t${a.tenantId.replaceAll("-", "")}_kb${kbId.replaceAll("-", "")}_g${generation}`
        const OPENAI = "openai:text-embedding-3-small"

        // a knowledge base on the API embedder from the start
        const remote = yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Remote", embedder: OPENAI })
        assert.strictEqual(remote.status, 201, remote.text)
        assert.strictEqual(remote.body.embedder, OPENAI)
        yield* post(`${comms}/knowledge-bases/${remote.body.id}/sources`, {
          token: a.key,
          json: { type: "FAQ", faqs: FAQS }
        })
        const before = api.inputsEmbedded()
        assert.strictEqual((yield* ingest(a.key, remote.body.id)).status, "SUCCEEDED")
        assert.strictEqual(api.inputsEmbedded() - before, FAQS.length, "each FAQ pair embedded once, by the API")
        const remoteHit = (yield* query(a.key, remote.body.id, { query: "How can I reset my password?" })).body
        assert.strictEqual(remoteHit.embedder, OPENAI)
        assert.include(remoteHit.items[0].text, "Forgot password")

        // an offline knowledge base switched to the API embedder
        const kb = (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Switch" })).body
        assert.strictEqual(kb.embedder, "offline-hash-v1")
        yield* post(`${comms}/knowledge-bases/${kb.id}/sources`, { token: a.key, json: { type: "FAQ", faqs: FAQS } })
        assert.strictEqual((yield* ingest(a.key, kb.id)).status, "SUCCEEDED")
        const asked = yield* patch(`${comms}/knowledge-bases/${kb.id}`, { token: a.key, json: { embedder: OPENAI } })
        assert.strictEqual(asked.status, 200, asked.text)
        assert.strictEqual(asked.body.embedder, "offline-hash-v1", "the vectors are still the offline embedder's")
        assert.strictEqual(asked.body.pendingEmbedder, OPENAI)
        assert.strictEqual(asked.body.status, "NEEDS_INGESTION")
        const meanwhile = (yield* query(a.key, kb.id, { query: "Do you deliver abroad?" })).body
        assert.strictEqual(meanwhile.embedder, "offline-hash-v1", "queries keep the consistent pair until the switch")
        assert.include(meanwhile.items[0].text, "European Union")
        refused(
          yield* patch(`${comms}/knowledge-bases/${kb.id}`, { token: a.key, json: { embedder: "openai:gpt-embed-9" } }),
          400,
          "UNKNOWN_EMBEDDER",
          "an embedder not offered"
        )

        const embeddedBefore = api.inputsEmbedded()
        const job = yield* ingest(a.key, kb.id)
        assert.strictEqual(job.status, "SUCCEEDED", JSON.stringify(job))
        assert.strictEqual(job.embedder, OPENAI)
        assert.deepStrictEqual(
          job.documents,
          { ingested: 1, unchanged: 0, removed: 0, failed: 0 },
          "an unchanged document too"
        )
        assert.strictEqual(api.inputsEmbedded() - embeddedBefore, FAQS.length)
        const switched = (yield* get(`${comms}/knowledge-bases/${kb.id}`, { token: a.key })).body
        assert.strictEqual(switched.embedder, OPENAI)
        assert.isNull(switched.pendingEmbedder)
        assert.strictEqual(switched.status, "READY")
        assert.isFalse(yield* store.collectionExists(collectionOf(kb.id, 1)), "the old collection was dropped")
        assert.strictEqual(yield* store.count(collectionOf(kb.id, 2)), FAQS.length)
        const after = (yield* query(a.key, kb.id, { query: "Do you deliver abroad?" })).body
        assert.strictEqual(after.embedder, OPENAI)
        assert.include(after.items[0].text, "European Union")

        // asking for the embedder it has is not a switch; deleting drops the current generation
        const same = yield* patch(`${comms}/knowledge-bases/${kb.id}`, { token: a.key, json: { embedder: OPENAI } })
        assert.isNull(same.body.pendingEmbedder)
        assert.strictEqual((yield* del(`${comms}/knowledge-bases/${kb.id}`, { token: a.key })).status, 204)
        assert.isFalse(yield* store.collectionExists(collectionOf(kb.id, 2)))
      }))

    it.effect("an embeddings API that fails a query answers 503 EMBEDDER_UNAVAILABLE", () =>
      Effect.gen(function*() {
        const api = yield* FakeEmbeddings
        const a = yield* tenant
        const kb =
          (yield* createKb(a.key, { kbKey: uniqueKey(), kbName: "Flaky", embedder: "openai:text-embedding-3-small" }))
            .body
        api.fault({ _tag: "Respond", status: 503 })
        refused(yield* query(a.key, kb.id, { query: "anything" }), 503, "EMBEDDER_UNAVAILABLE", "the API answered 503")
      }))
  })
})

/**
 * The VectorStore port over a real Chroma (one server for the file, on a temporary directory), and
 * over stand-ins for a server that is down, hangs or fails. Each test has its own collections.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { ChromaServer, freePort, startChroma } from "@voiceagent/runner/Knowledge/ChromaServer"
import * as ChromaVectorStore from "@voiceagent/runner/Knowledge/ChromaVectorStore"
import {
  type ChunkRecord,
  collectionName,
  VectorStore,
  VectorStoreRefused,
  VectorStoreUnavailable
} from "@voiceagent/runner/Ports/VectorStore"
import { ChromaClient } from "chromadb"
import { Effect, Layer } from "effect"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"

const Chroma = Layer.scoped(
  ChromaServer,
  Effect.gen(function*() {
    const dataDir = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "chroma-store-test-"))),
      (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
    )
    return yield* startChroma({ dataDir })
  })
)

/** A collection name no other test uses. */
const fresh = () => collectionName(Crypto.randomUUID(), Crypto.randomUUID(), 1)

const chunk = (
  documentId: string,
  chunkIndex: number,
  embedding: ReadonlyArray<number>,
  text = `${documentId}#${chunkIndex}`
): ChunkRecord => ({ id: `${documentId}:${chunkIndex}`, embedding, text, metadata: { documentId, chunkIndex } })

const sorted = (ids: ReadonlyArray<string>) => [...ids].sort()

/** A unit vector in `dimensions` dimensions, at `angle` radians from the first axis in the first plane. */
const at = (angle: number, dimensions = 4) => [Math.cos(angle), Math.sin(angle), ...Array(dimensions - 2).fill(0)]

const CHROMA_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]{1,510}[a-zA-Z0-9]$/

/** An HTTP server on a free port whose every answer `handle` decides. */
const fakeServer = (handle: (request: Http.IncomingMessage, response: Http.ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; close: Effect.Effect<void> }>((resume) => {
      const sockets = new Set<Net.Socket>()
      const server = Http.createServer(handle)
      server.on("connection", (socket) => {
        sockets.add(socket)
        socket.once("close", () => sockets.delete(socket))
      })
      const close = Effect.async<void>((done) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => done(Effect.void))
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address() as Net.AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}`, close }))
      })
    }),
    (fake) => fake.close
  )

describe("collectionName", () => {
  it("follows Chroma's rules and differs per tenant, knowledge base and generation", () => {
    const tenant = "0b6c2d1e-3f4a-4b5c-8d9e-0f1a2b3c4d5e"
    const kb = "4f1a2b3c-4d5e-4f6a-9b7c-8d9e0f1a2b3c"
    const name = collectionName(tenant, kb, 1)
    assert.strictEqual(name, "t0b6c2d1e3f4a4b5c8d9e0f1a2b3c4d5e_kb4f1a2b3c4d5e4f6a9b7c8d9e0f1a2b3c_g1")
    assert.match(name, CHROMA_NAME)
    const names = [
      name,
      collectionName(tenant, kb, 2),
      collectionName(tenant, kb, 12),
      collectionName(kb, tenant, 1),
      collectionName(Crypto.randomUUID(), kb, 1),
      collectionName(tenant, Crypto.randomUUID(), 1),
      collectionName("tenant-1", "kb_1", 1),
      collectionName("tenant-1", "kb_1", 0),
      collectionName("tenant-1_kb", "1", 1)
    ]
    for (const each of names) assert.match(each, CHROMA_NAME)
    assert.strictEqual(new Set(names).size, names.length)
    // The same UUID in capitals is the same UUID.
    assert.strictEqual(collectionName(tenant.toUpperCase(), kb, 1), name)
    assert.throws(() => collectionName(tenant, kb, -1), RangeError)
    assert.throws(() => collectionName(tenant, kb, 1.5), RangeError)
    assert.throws(() => collectionName("x".repeat(300), kb, 1), RangeError)
  })
})

describe("ChromaVectorStore against a real Chroma", () => {
  layer(Layer.provideMerge(ChromaVectorStore.layerFromServer, Chroma), { timeout: 120_000, excludeTestServices: true })(
    (it) => {
      it.effect("creates a cosine collection, and finds it again", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const name = fresh()
          assert.isFalse(yield* store.collectionExists(name))
          yield* store.ensureCollection(name)
          yield* store.ensureCollection(name)
          assert.isTrue(yield* store.collectionExists(name))
          assert.strictEqual(yield* store.count(name), 0)

          // Cosine: lengths do not count, only angles (L2 would put `same` 2 away).
          yield* store.upsert(name, [
            chunk("d", 0, [3, 0, 0, 0], "same"),
            chunk("d", 1, [0, 0.5, 0, 0], "orthogonal"),
            chunk("d", 2, [-2, 0, 0, 0], "opposite")
          ])
          const matches = yield* store.query(name, [1, 0, 0, 0], { topK: 3 })
          assert.deepStrictEqual(matches.map((match) => match.text), ["same", "orthogonal", "opposite"])
          assert.closeTo(matches[0].distance, 0, 1e-5)
          assert.closeTo(matches[1].distance, 1, 1e-5)
          assert.closeTo(matches[2].distance, 2, 1e-5)
          assert.deepStrictEqual(matches[1], {
            id: "d:1",
            text: "orthogonal",
            metadata: { documentId: "d", chunkIndex: 1 },
            distance: matches[1].distance
          })
        }))

      it.effect("refuses a collection of that name made with another distance", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const server = yield* ChromaServer
          const name = fresh()
          const client = new ChromaClient({ host: "127.0.0.1", port: server.port })
          yield* Effect.promise(() =>
            client.createCollection({ name, configuration: { hnsw: { space: "l2" } }, embeddingFunction: null })
          )
          const error = yield* Effect.flip(store.ensureCollection(name))
          assert.instanceOf(error, VectorStoreRefused)
          assert.match(error.message, /l2/)
        }))

      it.effect("upserts by id: again, the same ids stay one copy each, with the new text", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const name = fresh()
          yield* store.ensureCollection(name)
          yield* store.upsert(name, [
            chunk("d", 0, at(0), "old 0"),
            chunk("d", 1, at(1), "old 1"),
            chunk("d", 2, at(2), "old 2")
          ])
          yield* store.upsert(name, [
            chunk("d", 0, at(2), "new 0"),
            chunk("d", 1, at(1), "new 1"),
            chunk("d", 2, at(0), "new 2")
          ])
          assert.strictEqual(yield* store.count(name), 3)
          assert.deepStrictEqual(sorted(yield* store.ids(name)), ["d:0", "d:1", "d:2"])
          const matches = yield* store.query(name, at(0), { topK: 3 })
          assert.deepStrictEqual(matches.map((match) => [match.id, match.text]), [["d:2", "new 2"], ["d:1", "new 1"], [
            "d:0",
            "new 0"
          ]])
          yield* store.upsert(name, [])
          assert.strictEqual(yield* store.count(name), 3)
        }))

      it.effect("deletes a document's chunks, all of them or from a chunk index on", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const name = fresh()
          yield* store.ensureCollection(name)
          yield* store.upsert(name, [
            ...[0, 1, 2, 3, 4].map((i) => chunk("a", i, at(i / 10))),
            ...[0, 1, 2].map((i) => chunk("b", i, at(1 + i / 10)))
          ])
          yield* store.deleteDocumentChunks(name, "a", 2)
          assert.deepStrictEqual(sorted(yield* store.ids(name)), ["a:0", "a:1", "b:0", "b:1", "b:2"])
          yield* store.deleteDocumentChunks(name, "a", 2)
          assert.strictEqual(yield* store.count(name), 5)
          yield* store.deleteDocumentChunks(name, "a")
          assert.deepStrictEqual(sorted(yield* store.ids(name)), ["b:0", "b:1", "b:2"])
          yield* store.deleteDocumentChunks(name, "nobody")
          yield* store.deleteDocumentChunks(name, "b", 0)
          assert.strictEqual(yield* store.count(name), 0)
        }))

      it.effect("queries nearest first, at most topK, leaving out the excluded documents", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const name = fresh()
          yield* store.ensureCollection(name)
          // Document d<k> sits at angle k/10 from the query, chunk by chunk further away.
          yield* store.upsert(name, [
            chunk("d3", 0, at(0.3)),
            chunk("d1", 0, at(0.1)),
            chunk("d4", 0, at(0.4)),
            chunk("d2", 0, at(0.2)),
            chunk("d2", 1, at(0.25)),
            chunk("d5", 0, at(0.5))
          ])
          const all = yield* store.query(name, at(0), { topK: 10 })
          assert.deepStrictEqual(all.map((match) => match.id), ["d1:0", "d2:0", "d2:1", "d3:0", "d4:0", "d5:0"])
          all.forEach((match, i) => {
            assert.closeTo(
              match.distance,
              1 - Math.cos(Number(match.id[1]) / 10 + (match.id === "d2:1" ? 0.05 : 0)),
              1e-5
            )
            if (i > 0) assert.isAtLeast(match.distance, all[i - 1].distance)
          })
          const top = yield* store.query(name, at(0), { topK: 3, excludeDocumentIds: ["d1", "d3"] })
          assert.deepStrictEqual(top.map((match) => match.id), ["d2:0", "d2:1", "d4:0"])
          assert.deepStrictEqual(top[0].metadata, { documentId: "d2", chunkIndex: 0 })
          const none = yield* store.query(name, at(0), { topK: 3, excludeDocumentIds: ["d1", "d2", "d3", "d4", "d5"] })
          assert.deepStrictEqual(none, [])
          assert.deepStrictEqual(yield* store.query(name, at(0), { topK: 0 }), [])
          assert.strictEqual((yield* store.query(name, at(0), { topK: 2, excludeDocumentIds: [] })).length, 2)
        }))

      it.effect("lists ids page by page, and upserts in batches no larger than asked", () =>
        Effect.gen(function*() {
          const server = yield* ChromaServer
          const store = yield* ChromaVectorStore.make({ url: server.url, pageSize: 100, maxBatchSize: 100 })
          const name = fresh()
          yield* store.ensureCollection(name)
          const records = Array.from({ length: 250 }, (_, i) => chunk(`doc${i % 7}`, i, at(i / 250)))
          yield* store.upsert(name, records)
          const ids = yield* store.ids(name)
          assert.strictEqual(ids.length, 250)
          assert.deepStrictEqual(sorted(ids), sorted(records.map((record) => record.id)))
          assert.strictEqual(yield* store.count(name), 250)
          const exactlyTwoPages = fresh()
          yield* store.ensureCollection(exactlyTwoPages)
          yield* store.upsert(exactlyTwoPages, records.slice(0, 200))
          assert.strictEqual((yield* store.ids(exactlyTwoPages)).length, 200)
        }))

      it.effect("splits an upsert larger than the server's max_batch_size", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const server = yield* ChromaServer
          const maxBatchSize = yield* Effect.promise(() =>
            new ChromaClient({ host: "127.0.0.1", port: server.port }).getMaxBatchSize()
          )
          assert.isAbove(maxBatchSize, 0)
          const name = fresh()
          yield* store.ensureCollection(name)
          const records = Array.from({ length: maxBatchSize + 10 }, (_, i) => chunk(`doc${i % 13}`, i, at(i / 1000, 3)))
          yield* store.upsert(name, records)
          assert.strictEqual(yield* store.count(name), records.length)
        }), { timeout: 120_000 })

      it.effect("refuses vectors of another dimension, and the same id twice in one upsert", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const name = fresh()
          yield* store.ensureCollection(name)
          yield* store.upsert(name, [chunk("d", 0, [1, 0, 0])])
          const upserted = yield* Effect.flip(store.upsert(name, [chunk("d", 1, [1, 0])]))
          assert.instanceOf(upserted, VectorStoreRefused)
          assert.match(upserted.message, /dimension/)
          const queried = yield* Effect.flip(store.query(name, [1, 0], { topK: 1 }))
          assert.instanceOf(queried, VectorStoreRefused)
          const twice = yield* Effect.flip(store.upsert(name, [chunk("d", 1, [1, 0, 0]), chunk("d", 1, [0, 1, 0])]))
          assert.instanceOf(twice, VectorStoreRefused)
          assert.strictEqual(yield* store.count(name), 1)
          const badName = yield* Effect.flip(store.ensureCollection("-x"))
          assert.instanceOf(badName, VectorStoreRefused)
        }))

      it.effect("drops a collection; dropping one that is not there is fine; using it is refused", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const name = fresh()
          yield* store.ensureCollection(name)
          yield* store.upsert(name, [chunk("d", 0, [1, 0, 0])])
          yield* store.dropCollection(name)
          assert.isFalse(yield* store.collectionExists(name))
          yield* store.dropCollection(name)
          yield* store.dropCollection(fresh())
          for (
            const use of [
              store.count(name),
              store.upsert(name, [chunk("d", 0, [1, 0, 0])]),
              store.query(name, [1, 0, 0], { topK: 1 }),
              store.deleteDocumentChunks(name, "d"),
              store.ids(name)
            ]
          ) {
            const error = yield* Effect.flip(use)
            assert.instanceOf(error, VectorStoreRefused)
            assert.match(error.message, /no collection/)
          }
          yield* store.ensureCollection(name)
          assert.strictEqual(yield* store.count(name), 0)
        }))

      it.effect("finds a collection again when another store dropped and recreated it", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          const server = yield* ChromaServer
          const other = yield* ChromaVectorStore.make({ url: server.url })
          const name = fresh()
          yield* store.ensureCollection(name)
          yield* store.upsert(name, [chunk("old", 0, [1, 0, 0])])
          assert.strictEqual(yield* store.count(name), 1)
          yield* other.dropCollection(name)
          yield* other.ensureCollection(name)
          yield* other.upsert(name, [chunk("new", 0, [0, 1, 0]), chunk("new", 1, [0, 0, 1])])
          // `store` still holds the old collection's id: not found, looked up again, retried.
          assert.strictEqual(yield* store.count(name), 2)
          yield* store.upsert(name, [chunk("new", 2, [1, 1, 0])])
          assert.deepStrictEqual(sorted(yield* other.ids(name)), ["new:0", "new:1", "new:2"])
        }))

      it.effect("answers its heartbeat", () =>
        Effect.gen(function*() {
          const store = yield* VectorStore
          assert.isTrue(yield* store.ping)
        }))
    }
  )
})

describe("ChromaVectorStore without a working server", () => {
  it.live("a closed port: unavailable at once, and ping says false", () =>
    Effect.gen(function*() {
      const port = yield* freePort()
      const store = yield* ChromaVectorStore.make({ url: `http://127.0.0.1:${port}` })
      const started = Date.now()
      for (
        const use of [
          store.ensureCollection("abc"),
          store.collectionExists("abc"),
          store.dropCollection("abc"),
          store.upsert("abc", [chunk("d", 0, [1, 0])]),
          store.query("abc", [1, 0], { topK: 1 }),
          store.count("abc")
        ]
      ) {
        const error = yield* Effect.flip(use)
        assert.instanceOf(error, VectorStoreUnavailable)
      }
      assert.isFalse(yield* store.ping)
      assert.isBelow(Date.now() - started, 5_000)
    }))

  it.scopedLive("a server that does not answer: unavailable once the timeout passes", () =>
    Effect.gen(function*() {
      const hanging = yield* fakeServer(() => {})
      const store = yield* ChromaVectorStore.make({ url: hanging.url, timeoutMillis: 300 })
      const started = Date.now()
      const error = yield* Effect.flip(store.count("abc"))
      const elapsed = Date.now() - started
      assert.instanceOf(error, VectorStoreUnavailable)
      assert.match(error.message, /no answer within/)
      assert.isAtLeast(elapsed, 290)
      assert.isBelow(elapsed, 3_000)
      assert.isFalse(yield* store.ping)
    }))

  it.scopedLive("5xx and 429 are unavailable, other 4xx refused, a 404 on drop fine", () =>
    Effect.gen(function*() {
      const answer = (status: number) =>
        fakeServer((_, response) => {
          response.writeHead(status, { "content-type": "application/json" })
          response.end(JSON.stringify({ error: "Fake", message: `status ${status}` }))
        }).pipe(Effect.flatMap((fake) => ChromaVectorStore.make({ url: fake.url })))
      for (const status of [500, 502, 503, 429]) {
        const store = yield* answer(status)
        assert.instanceOf(yield* Effect.flip(store.ensureCollection("abc")), VectorStoreUnavailable, `${status}`)
        assert.instanceOf(yield* Effect.flip(store.dropCollection("abc")), VectorStoreUnavailable, `${status}`)
      }
      for (const status of [400, 401, 403, 409, 422]) {
        const store = yield* answer(status)
        assert.instanceOf(yield* Effect.flip(store.ensureCollection("abc")), VectorStoreRefused, `${status}`)
        assert.instanceOf(yield* Effect.flip(store.count("abc")), VectorStoreRefused, `${status}`)
      }
      const notFound = yield* answer(404)
      yield* notFound.dropCollection("abc")
      assert.isFalse(yield* notFound.collectionExists("abc"))
      assert.instanceOf(yield* Effect.flip(notFound.count("abc")), VectorStoreRefused)
    }))
})

/**
 * The VectorStore port over a Chroma server (1.0.x, API v2) through the `chromadb` 3.5 client.
 *
 * - No embedding function is ever set or resolved for use: collections are created with
 *   `embeddingFunction: null` and every operation goes through `client.collection(id)` handles,
 *   which refuse to embed anything themselves. All vectors are the caller's.
 * - Collection handles are cached per name, so an operation costs one request; a not-found on a
 *   cached handle (the collection was dropped, perhaps recreated, elsewhere) drops the entry and the
 *   operation is tried once more after looking the name up again.
 * - Every request has a timeout (default 30 seconds). A request past it is abandoned, not aborted:
 *   the client takes no per-request AbortSignal (and Node 20's fetch keeps the connection open after
 *   an abort anyway), so its answer, should it come, is dropped.
 * - Errors are classified by the client's error classes: connection failures, 429 and 5xx →
 *   `VectorStoreUnavailable`; 4xx and the client's own validation → `VectorStoreRefused`.
 */
import {
  ChromaClient,
  type ChromaClientArgs,
  ChromaClientError,
  ChromaConnectionError,
  ChromaError,
  ChromaForbiddenError,
  ChromaNotFoundError,
  ChromaQuotaExceededError,
  ChromaRateLimitError,
  ChromaServerError,
  ChromaUnauthorizedError,
  ChromaUniqueError,
  ChromaValueError,
  type Collection,
  InvalidArgumentError,
  InvalidCollectionError,
  type Metadata,
  type Where
} from "chromadb"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import {
  type ChunkMatch,
  type ChunkMetadata,
  type ChunkRecord,
  VectorStore,
  type VectorStoreError,
  VectorStoreRefused,
  VectorStoreUnavailable
} from "../Ports/VectorStore.js"
import { ChromaServer } from "./ChromaServer.js"

export interface ChromaVectorStoreOptions {
  /** e.g. `http://127.0.0.1:8000`; only the scheme, host and port are used. */
  readonly url: string
  /** The limit for each request to Chroma (default 30 seconds). */
  readonly timeoutMillis?: number | undefined
  /** Upserts go in batches of at most this many records, and at most the server's `max_batch_size`. */
  readonly maxBatchSize?: number | undefined
  /** How many ids `ids` asks for per request (default 1000). */
  readonly pageSize?: number | undefined
}

const parseUrl = (url: string): Pick<ChromaClientArgs, "host" | "port" | "ssl"> => {
  const parsed = new URL(url)
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new TypeError(`ChromaVectorStore: not an http(s) URL: ${url}`)
  }
  const ssl = parsed.protocol === "https:"
  return { host: parsed.hostname, port: parsed.port === "" ? (ssl ? 443 : 80) : Number(parsed.port), ssl }
}

/** No answer, or 5xx (and any status the client has no class for), or 429. */
const transient = [ChromaConnectionError, ChromaServerError, ChromaRateLimitError]
/** 400, 401, 403, 404, 409, 422 and quotas, and the client's own validation of a request. */
const refused = [
  ChromaClientError,
  ChromaValueError,
  ChromaNotFoundError,
  ChromaUniqueError,
  ChromaUnauthorizedError,
  ChromaForbiddenError,
  ChromaQuotaExceededError,
  InvalidArgumentError,
  InvalidCollectionError,
  ChromaError
]

/** A failure of the chromadb client (or a timeout), sorted by its class. */
const classify = (operation: string, error: unknown): VectorStoreError => {
  if (error instanceof VectorStoreUnavailable || error instanceof VectorStoreRefused) return error
  const message = `${operation}: ${error instanceof Error ? error.message : String(error)}`
  if (transient.some((type) => error instanceof type)) return new VectorStoreUnavailable({ message })
  if (refused.some((type) => error instanceof type)) return new VectorStoreRefused({ message })
  // Not one of the client's: e.g. a body that does not parse. Better tried again than given up on.
  return new VectorStoreUnavailable({ message })
}

const toChunkMetadata = (metadata: Metadata | null | undefined): ChunkMetadata => {
  const out: Record<string, string | number | boolean> = {}
  if (metadata === null || metadata === undefined) return out
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out[key] = value
  }
  return out
}

/** The store over the server at `options.url` (a URL that does not parse, or is not http(s), is a defect). */
export const make = (options: ChromaVectorStoreOptions): Effect.Effect<VectorStore["Type"]> =>
  Effect.sync(() => {
    const client = new ChromaClient(parseUrl(options.url))
    const timeout = Duration.millis(options.timeoutMillis ?? 30_000)
    const pageSize = options.pageSize ?? 1000
    const collections = new Map<string, Collection>()

    /** One call to the client, with the timeout; fails with the client's error as it is. */
    const request = <A>(operation: string, f: () => Promise<A>): Effect.Effect<A, unknown> =>
      Effect.tryPromise({ try: f, catch: (error) => error }).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            new VectorStoreUnavailable({ message: `${operation}: no answer within ${Duration.format(timeout)}` })
        })
      )

    const noCollection = (name: string) => new VectorStoreRefused({ message: `Chroma has no collection named ${name}` })

    /** A handle on the collection by its id: it has no embedding function, and cannot embed. */
    const remember = (name: string, id: string) => {
      const handle = client.collection(id)
      collections.set(name, handle)
      return handle
    }

    const lookup = (name: string) =>
      request("getCollection", () => client.getCollection({ name })).pipe(
        Effect.map((collection) => remember(name, collection.id))
      )

    const forget = (name: string, handle: Collection) =>
      Effect.sync(() => {
        if (collections.get(name) === handle) collections.delete(name)
      })

    /** Runs `f` on the collection's handle; looks the name up again once if a cached one is not found. */
    const withCollection = <A>(
      operation: string,
      name: string,
      f: (collection: Collection) => Promise<A>
    ): Effect.Effect<A, VectorStoreError> => {
      const run = (handle: Collection) => request(operation, () => f(handle))
      const fresh = lookup(name).pipe(
        Effect.flatMap((handle) =>
          run(handle).pipe(
            Effect.tapError((error) => error instanceof ChromaNotFoundError ? forget(name, handle) : Effect.void)
          )
        )
      )
      const cached = collections.get(name)
      const attempt = cached === undefined ?
        fresh :
        run(cached).pipe(
          Effect.catchIf(
            (error) => error instanceof ChromaNotFoundError,
            () => Effect.zipRight(forget(name, cached), fresh)
          )
        )
      return attempt.pipe(
        Effect.mapError((error) =>
          error instanceof ChromaNotFoundError ? noCollection(name) : classify(operation, error)
        )
      )
    }

    // The client asks the server once, then keeps the answer (-1: the server sets no limit).
    const maxBatchSize = request("getMaxBatchSize", () => client.getMaxBatchSize()).pipe(
      Effect.map((server) => Math.max(1, Math.min(server > 0 ? server : Infinity, options.maxBatchSize ?? Infinity))),
      Effect.mapError((error) => classify("getMaxBatchSize", error))
    )

    const ensureCollection = (name: string) =>
      request(
        "getOrCreateCollection",
        () =>
          client.getOrCreateCollection({ name, configuration: { hnsw: { space: "cosine" } }, embeddingFunction: null })
      ).pipe(
        Effect.mapError((error) => classify(`getOrCreateCollection ${name}`, error)),
        Effect.flatMap((collection) => {
          const space = collection.configuration?.hnsw?.space ?? collection.configuration?.spann?.space
          if (space !== undefined && space !== null && space !== "cosine") {
            return Effect.fail(
              new VectorStoreRefused({ message: `Collection ${name} exists with the ${space} distance, not cosine` })
            )
          }
          remember(name, collection.id)
          return Effect.void
        }),
        Effect.withSpan("VectorStore.ensureCollection", { attributes: { collection: name } })
      )

    const dropCollection = (name: string) =>
      request("deleteCollection", () => client.deleteCollection({ name })).pipe(
        Effect.catchIf((error) => error instanceof ChromaNotFoundError, () => Effect.void),
        Effect.mapError((error) => classify(`deleteCollection ${name}`, error)),
        Effect.ensuring(Effect.sync(() => collections.delete(name))),
        Effect.withSpan("VectorStore.dropCollection", { attributes: { collection: name } })
      )

    const collectionExists = (name: string) =>
      lookup(name).pipe(
        Effect.as(true),
        Effect.catchIf((error) => error instanceof ChromaNotFoundError, () => Effect.succeed(false)),
        Effect.mapError((error) => classify(`getCollection ${name}`, error)),
        Effect.withSpan("VectorStore.collectionExists", { attributes: { collection: name } })
      )

    const upsert = (name: string, records: ReadonlyArray<ChunkRecord>) =>
      Effect.gen(function*() {
        if (records.length === 0) return
        const ids = new Set(records.map((record) => record.id))
        if (ids.size !== records.length) {
          return yield* new VectorStoreRefused({ message: `upsert into ${name}: the same id appears twice` })
        }
        const size = yield* maxBatchSize
        // In order: a failure leaves the batches before it written, which a retry upserts again.
        for (let start = 0; start < records.length; start += size) {
          const batch = records.slice(start, start + size)
          yield* withCollection(`upsert into ${name}`, name, (collection) =>
            collection.upsert({
              ids: batch.map((record) => record.id),
              embeddings: batch.map((record) => [...record.embedding]),
              documents: batch.map((record) => record.text),
              metadatas: batch.map((record) => ({ ...record.metadata }))
            }))
        }
      }).pipe(Effect.withSpan("VectorStore.upsert", { attributes: { collection: name, records: records.length } }))

    const deleteDocumentChunks = (name: string, documentId: string, fromChunkIndex?: number) => {
      const where: Where = fromChunkIndex === undefined ?
        { documentId: { $eq: documentId } } :
        { $and: [{ documentId: { $eq: documentId } }, { chunkIndex: { $gte: fromChunkIndex } }] }
      return withCollection(`delete from ${name}`, name, (collection) => collection.delete({ where })).pipe(
        Effect.asVoid,
        Effect.withSpan("VectorStore.deleteDocumentChunks", { attributes: { collection: name, documentId } })
      )
    }

    const query = (
      name: string,
      embedding: ReadonlyArray<number>,
      { excludeDocumentIds = [], topK }: {
        readonly topK: number
        readonly excludeDocumentIds?: ReadonlyArray<string> | undefined
      }
    ): Effect.Effect<ReadonlyArray<ChunkMatch>, VectorStoreError> =>
      (topK < 1 ?
        Effect.succeed([]) :
        withCollection(`query ${name}`, name, (collection) =>
          collection.query({
            queryEmbeddings: [[...embedding]],
            nResults: topK,
            include: ["documents", "metadatas", "distances"],
            ...(excludeDocumentIds.length > 0 ? { where: { documentId: { $nin: [...excludeDocumentIds] } } } : {})
          })).pipe(
            Effect.flatMap((result) => {
              const ids = result.ids[0] ?? []
              const distances = result.distances[0] ?? []
              if (distances.length !== ids.length || distances.some((distance) => typeof distance !== "number")) {
                return Effect.fail(
                  new VectorStoreUnavailable({ message: `query ${name}: an answer without distances` })
                )
              }
              return Effect.succeed(ids.map((id, i): ChunkMatch => ({
                id,
                text: result.documents[0]?.[i] ?? "",
                metadata: toChunkMetadata(result.metadatas[0]?.[i]),
                distance: distances[i]!
              })))
            })
          )).pipe(Effect.withSpan("VectorStore.query", { attributes: { collection: name, topK } }))

    const count = (name: string) =>
      withCollection(`count ${name}`, name, (collection) => collection.count()).pipe(
        Effect.withSpan("VectorStore.count", { attributes: { collection: name } })
      )

    const ids = (name: string) =>
      Effect.gen(function*() {
        const all: Array<string> = []
        for (let offset = 0;; offset += pageSize) {
          const page = yield* withCollection(`get ids of ${name}`, name, (collection) =>
            collection.get({ include: [], limit: pageSize, offset }))
          all.push(...page.ids)
          if (page.ids.length < pageSize) {
            return all
          }
        }
      }).pipe(Effect.withSpan("VectorStore.ids", { attributes: { collection: name } }))

    const ping = request("heartbeat", () =>
      client.heartbeat()).pipe(
        Effect.as(true),
        Effect.orElseSucceed(() =>
          false
        )
      )

    return VectorStore.of({
      ensureCollection,
      dropCollection,
      collectionExists,
      upsert,
      deleteDocumentChunks,
      query,
      count,
      ids,
      ping
    })
  })

export const layer = (options: ChromaVectorStoreOptions): Layer.Layer<VectorStore> =>
  Layer.effect(VectorStore, make(options))

/** Against the embedded server of `ChromaServer`. */
export const layerFromServer: Layer.Layer<VectorStore, never, ChromaServer> = Layer.effect(
  VectorStore,
  Effect.flatMap(ChromaServer, (server) => make({ url: server.url }))
)

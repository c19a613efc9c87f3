/**
 * The port a knowledge base's chunks are stored in and searched through: one collection per
 * knowledge base and generation (see `collectionName`), cosine distance, vectors always given by the
 * caller (the store never embeds anything itself).
 *
 * Every chunk's metadata carries `documentId` (string) and `chunkIndex` (number), which
 * `deleteDocumentChunks` and `query`'s `excludeDocumentIds` filter on.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

export type ChunkMetadata = Readonly<Record<string, string | number | boolean>>

export interface ChunkRecord {
  readonly id: string
  readonly embedding: ReadonlyArray<number>
  readonly text: string
  readonly metadata: ChunkMetadata
}

export interface ChunkMatch {
  readonly id: string
  readonly text: string
  readonly metadata: ChunkMetadata
  /** cosine distance, 0..2 */
  readonly distance: number
}

/** Connection refused, a timeout, 429 or 5xx: trying again later may help. */
export class VectorStoreUnavailable extends Data.TaggedError("VectorStoreUnavailable")<{
  readonly message: string
}> {}

/**
 * The store turned the request down (a 4xx other than a not-found it can shrug off, or the client's
 * own validation): e.g. a vector of the wrong dimension, an invalid collection name, a collection
 * that does not exist. Trying again will not help.
 */
export class VectorStoreRefused extends Data.TaggedError("VectorStoreRefused")<{
  readonly message: string
}> {}

export type VectorStoreError = VectorStoreUnavailable | VectorStoreRefused

export class VectorStore extends Context.Tag("Knowledge/VectorStore")<VectorStore, {
  /**
   * Creates the collection (cosine space) or finds it when it exists already (idempotent, safe to
   * repeat after a crash). Refused if a collection of that name exists with another distance.
   */
  readonly ensureCollection: (name: string) => Effect.Effect<void, VectorStoreError>
  /** Drops it; a collection that does not exist is not an error. */
  readonly dropCollection: (name: string) => Effect.Effect<void, VectorStoreError>
  readonly collectionExists: (name: string) => Effect.Effect<boolean, VectorStoreError>
  /** Insert-or-replace by id: upserting the same ids again leaves one copy of each. */
  readonly upsert: (name: string, records: ReadonlyArray<ChunkRecord>) => Effect.Effect<void, VectorStoreError>
  /** Removes the chunks of one document, optionally only those whose `chunkIndex` metadata ≥ fromChunkIndex. */
  readonly deleteDocumentChunks: (
    name: string,
    documentId: string,
    fromChunkIndex?: number
  ) => Effect.Effect<void, VectorStoreError>
  /** The nearest chunks, nearest first, leaving out chunks of the given document ids (metadata `documentId` $nin). */
  readonly query: (
    name: string,
    embedding: ReadonlyArray<number>,
    options: { readonly topK: number; readonly excludeDocumentIds?: ReadonlyArray<string> | undefined }
  ) => Effect.Effect<ReadonlyArray<ChunkMatch>, VectorStoreError>
  readonly count: (name: string) => Effect.Effect<number, VectorStoreError>
  /** Every id in the collection (paged through get), for checks and tests. */
  readonly ids: (name: string) => Effect.Effect<ReadonlyArray<string>, VectorStoreError>
  /** Whether the server answers its heartbeat. */
  readonly ping: Effect.Effect<boolean>
}>() {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** A UUID as its 32 lower-case hex digits; any other id as `x` and the hex of its UTF-8 bytes. */
const idPart = (id: string): string =>
  UUID.test(id) ? id.replaceAll("-", "").toLowerCase() : `x${Buffer.from(id, "utf8").toString("hex")}`

/**
 * Chroma's collection-name rules (3–512 chars of [a-zA-Z0-9._-], starting and ending with a letter
 * or digit): the name for a knowledge base's collection generation, e.g.
 * `t0b6c…e1_kb4f1a…9c_g2` (72 characters and the generation for UUIDs). Distinct (tenant, kb,
 * generation) triples give distinct names. Throws a RangeError on a generation that is not a
 * non-negative safe integer, or ids so long the name would pass 512 characters.
 */
export const collectionName = (tenantId: string, kbId: string, generation: number): string => {
  if (!Number.isSafeInteger(generation) || generation < 0) {
    throw new RangeError(`collectionName: the generation must be a non-negative integer, got ${generation}`)
  }
  const name = `t${idPart(tenantId)}_kb${idPart(kbId)}_g${generation}`
  if (name.length > 512) {
    throw new RangeError(`collectionName: ids too long for a Chroma collection name (${name.length} characters)`)
  }
  return name
}

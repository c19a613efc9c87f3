/**
 * Retrieval: a query embedded with the knowledge base's own embedder, the nearest chunks from its
 * active collection, scored as cosine similarity (1 − cosine distance), kept at or above the
 * knowledge base's threshold, best first. Serves `POST /knowledge-bases/{kbId}/query` and the
 * agents' brain (several knowledge bases at once).
 */
import type { TenantId } from "@voiceagent/domain/Ids"
import { RetrievedChunk, type SourceType } from "@voiceagent/domain/KnowledgeBases"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EmbeddingFailed } from "../Ports/Embedder.js"
import { type ChunkMatch, VectorStore, type VectorStoreError } from "../Ports/VectorStore.js"
import { fromDatabase } from "../Sql/Rows.js"
import { Embedders } from "./Embedders.js"
import { KnowledgeBasesRepo, type SearchTarget } from "./KnowledgeBasesRepo.js"

/** The knowledge base's vectors were made by an embedder this node does not offer. */
export class EmbedderNotOffered extends Data.TaggedError("EmbedderNotOffered")<{ readonly embedder: string }> {}

export type RetrievalError = VectorStoreError | EmbeddingFailed | EmbedderNotOffered

const SOURCE_TYPES: ReadonlyArray<SourceType> = ["TEXT", "URL", "FAQ", "FILE"]

const text = (value: unknown): string | null => typeof value === "string" ? value : null

/** 1 − cosine distance, rounded to 6 places (floats from the store carry noise beyond that). */
export const scoreOf = (distance: number): number => Math.round((1 - distance) * 1e6) / 1e6

export const toRetrievedChunk = (match: ChunkMatch): RetrievedChunk => {
  const m = match.metadata
  const type = SOURCE_TYPES.find((t) => t === m["sourceType"]) ?? "TEXT"
  // the metadata is what ingestion wrote: built without re-validation (the answer is still encoded through the schema)
  return new RetrievedChunk({
    chunkId: match.id,
    score: scoreOf(match.distance),
    text: match.text,
    documentId: String(m["documentId"]) as RetrievedChunk["documentId"],
    chunkIndex: typeof m["chunkIndex"] === "number" ? m["chunkIndex"] : 0,
    source: { type, title: text(m["title"]), url: text(m["url"]), fileName: text(m["fileName"]) }
  }, fromDatabase)
}

export class Retrieval extends Effect.Service<Retrieval>()("Knowledge/Retrieval", {
  effect: Effect.gen(function*() {
    const repo = yield* KnowledgeBasesRepo
    const store = yield* VectorStore
    const embedders = yield* Embedders

    const embedQuery = (embedderId: string, query: string) =>
      Effect.gen(function*() {
        const embedder = embedders.get(embedderId)
        if (Option.isNone(embedder)) return yield* new EmbedderNotOffered({ embedder: embedderId })
        const [vector] = yield* embedder.value.embed([query])
        return vector!
      })

    const searchWith = (target: SearchTarget, vector: ReadonlyArray<number>, topK: number) =>
      store.query(target.collection, vector, { topK, excludeDocumentIds: target.removedDocumentIds }).pipe(
        Effect.map((matches) =>
          matches
            .map(toRetrievedChunk)
            .filter((chunk) => chunk.score >= target.threshold)
            .sort((a, b) => b.score - a.score)
        )
      )

    /** One knowledge base. */
    const search = (target: SearchTarget, query: string, topK: number) =>
      Effect.flatMap(embedQuery(target.embedder, query), (vector) => searchWith(target, vector, topK))

    /**
     * Several knowledge bases (an agent's): the query embedded once per embedder, each searched,
     * the results merged best first. A knowledge base that cannot be searched is left out and logged.
     */
    const searchAll = Effect.fn("Retrieval.searchAll")(
      function*(tenantId: TenantId, kbIds: ReadonlyArray<string>, query: string, topK: number) {
        const targets = yield* repo.searchTargets(tenantId, kbIds)
        const vectors = new Map<string, ReadonlyArray<number> | null>()
        const results: Array<RetrievedChunk> = []
        for (const target of targets) {
          if (!vectors.has(target.embedder)) {
            vectors.set(
              target.embedder,
              yield* embedQuery(target.embedder, query).pipe(
                Effect.catchAll((e) => Effect.as(Effect.logWarning("could not embed a query", e), null))
              )
            )
          }
          const vector = vectors.get(target.embedder)
          if (vector === null || vector === undefined) continue
          results.push(
            ...yield* searchWith(target, vector, topK).pipe(
              Effect.catchAll((e) => Effect.as(Effect.logWarning("could not search a knowledge base", e), []))
            )
          )
        }
        return results.sort((a, b) => b.score - a.score).slice(0, topK)
      }
    )

    return { search, searchAll } as const
  }),
  dependencies: [KnowledgeBasesRepo.Default]
}) {}

/**
 * What knowledge bases need in a process: a vector store, the embedders offered, the settings, and
 * the repository and retrieval built on them. Shared by the runners (ingestion, the agents' brain)
 * and the comms service (the API).
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { VectorStore, VectorStoreUnavailable } from "../Ports/VectorStore.js"
import type { ChromaStartFailed } from "./ChromaServer.js"
import { Embedders } from "./Embedders.js"
import { KnowledgeBasesRepo } from "./KnowledgeBasesRepo.js"
import { KnowledgeSettings, type KnowledgeSettingsShape } from "./KnowledgeSettings.js"
import { Retrieval } from "./Retrieval.js"

export interface KnowledgeOptions {
  /** The vector store; unset: none (knowledge-base operations answer 503, agents answer without retrieval). */
  readonly vectorStore?: Layer.Layer<VectorStore, ChromaStartFailed> | undefined
  readonly embedders?: Layer.Layer<Embedders, never, HttpClient.HttpClient> | undefined
  readonly settings?: Partial<KnowledgeSettingsShape> | undefined
}

/** A vector store that is not there: every operation fails as unavailable, saying how to configure one. */
export const unconfiguredVectorStore: Layer.Layer<VectorStore> = Layer.sync(VectorStore, () => {
  const unavailable = Effect.fail(
    new VectorStoreUnavailable({ message: "no vector store is configured on this node (set CHROMA_URL)" })
  )
  return {
    ensureCollection: () => unavailable,
    dropCollection: () => unavailable,
    collectionExists: () => unavailable,
    upsert: () => unavailable,
    deleteDocumentChunks: () => unavailable,
    query: () => unavailable,
    count: () => unavailable,
    ids: () => unavailable,
    ping: Effect.succeed(false)
  }
})

export const KnowledgeServices = (options: KnowledgeOptions = {}) =>
  Retrieval.Default.pipe(
    Layer.provideMerge(KnowledgeBasesRepo.Default),
    Layer.provideMerge(Layer.mergeAll(
      options.vectorStore ?? unconfiguredVectorStore,
      options.embedders ?? Embedders.offline,
      KnowledgeSettings.layer(options.settings)
    ))
  )

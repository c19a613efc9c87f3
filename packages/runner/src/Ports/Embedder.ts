/**
 * The port knowledge-base text goes through to become vectors. Each knowledge base records the
 * `id` (and `dimensions`) of the embedder its vectors were made with: vectors from different
 * embedders, or from the same embedder with other dimensions, are not comparable, so a knowledge
 * base is re-embedded (never mixed) when its embedder changes.
 */
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

export class EmbeddingFailed extends Data.TaggedError("EmbeddingFailed")<{
  /** A timeout, a connection error, 429 or 5xx from a remote model: trying again later may help. */
  readonly retryable: boolean
  readonly message: string
}> {}

export interface Embedder {
  /** Names the model and its settings, e.g. `offline-hash-v1`; recorded per knowledge base. */
  readonly id: string
  /** The length of every vector `embed` returns. */
  readonly dimensions: number
  /** One vector per text, in the order given. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, EmbeddingFailed>
}

/**
 * The cosine of the angle between two vectors of the same length; 0 when either is the zero
 * vector (e.g. the offline embedder's vector for an empty text). Throws on a length mismatch,
 * which is a programming error (vectors from different embedders).
 */
export const cosineSimilarity = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  if (a.length !== b.length) {
    throw new RangeError(`cosineSimilarity: vectors of different lengths (${a.length} and ${b.length})`)
  }
  let dot = 0
  let normA = 0
  let normB = 0
  for (let i = 0; i < a.length; i++) {
    const x = a[i]
    const y = b[i]
    dot += x * y
    normA += x * x
    normB += y * y
  }
  if (normA === 0 || normB === 0) return 0
  return dot / (Math.sqrt(normA) * Math.sqrt(normB))
}

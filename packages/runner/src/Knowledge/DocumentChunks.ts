/**
 * How a knowledge-base document becomes chunks. Deterministic: the same text always gives the same
 * chunks, which is what lets an ingestion job resume at the chunk it stopped at and re-ingestion
 * compare documents by hash. FAQ pairs are one chunk each (a question is answered by its own pair,
 * never by half of its neighbour); everything else goes through the paragraph/sentence chunker.
 */
import { chunkText, DEFAULT_CHUNK_OPTIONS } from "@voiceagent/domain/Chunking"
import type { FaqPair, SourceType } from "@voiceagent/domain/KnowledgeBases"
import * as crypto from "node:crypto"

export interface DocumentText {
  readonly sourceType: SourceType
  readonly content: string
  readonly faqs: ReadonlyArray<FaqPair> | null
}

/** One FAQ pair as it is stored, chunked and shown: `Q: …` then `A: …`. */
export const faqText = (pair: FaqPair): string => `Q: ${pair.question}\nA: ${pair.answer}`

/** The text of FAQ pairs, pairs separated by a blank line. */
export const faqContent = (faqs: ReadonlyArray<FaqPair>): string => faqs.map(faqText).join("\n\n")

export const contentHash = (document: DocumentText): string =>
  crypto.createHash("sha256")
    .update(document.sourceType === "FAQ" && document.faqs !== null ? JSON.stringify(document.faqs) : document.content)
    .digest("hex")

/** The chunk texts, in order; their positions are the chunk indexes. */
export const chunksOf = (document: DocumentText): ReadonlyArray<string> => {
  if (document.sourceType === "FAQ" && document.faqs !== null) {
    return document.faqs.flatMap((pair) => {
      const text = faqText(pair)
      return text.length <= DEFAULT_CHUNK_OPTIONS.maxChars ? [text] : chunkText(text).map((c) => c.text)
    })
  }
  return chunkText(document.content).map((c) => c.text)
}

/** The id of a chunk in the vector store: stable across re-ingestion, so upserting again replaces it. */
export const chunkId = (documentId: string, index: number): string => `${documentId}:${index}`

/**
 * A retrieval-quality evaluation for an `Embedder`: embed every passage of a corpus (title and
 * text) and every question, rank the passages by cosine similarity to each question, and count how
 * often the expected passage comes first (recall@1) or among the first five (recall@5).
 *
 * The corpus the repo ships for it is `packages/runner/test/fixtures/kb-eval`; a benchmark can
 * reuse this with another corpus or another embedder.
 */
import * as Effect from "effect/Effect"
import { cosineSimilarity, type Embedder, type EmbeddingFailed } from "../Ports/Embedder.js"

export interface EvalPassage {
  readonly id: string
  readonly title: string
  readonly text: string
}

export interface EvalQuestion {
  readonly question: string
  /** The id of the passage that answers it. */
  readonly expected: string
}

export interface QuestionResult {
  readonly question: string
  readonly expected: string
  /** 1 for the best match; `null` when the expected passage is not in the corpus. */
  readonly rank: number | null
  /** The five best passage ids, best first. */
  readonly top: ReadonlyArray<string>
}

export interface RetrievalReport {
  readonly recallAt1: number
  readonly recallAt5: number
  readonly questions: ReadonlyArray<QuestionResult>
}

/** The text a passage is embedded as: its title, then its text. */
export const passageText = (passage: EvalPassage): string => `${passage.title}\n${passage.text}`

export const evaluateRetrieval = (
  embedder: Embedder,
  corpus: ReadonlyArray<EvalPassage>,
  questions: ReadonlyArray<EvalQuestion>
): Effect.Effect<RetrievalReport, EmbeddingFailed> =>
  Effect.gen(function*() {
    const passageVectors = yield* embedder.embed(corpus.map(passageText))
    const questionVectors = yield* embedder.embed(questions.map((q) => q.question))
    const results = questions.map((q, qi): QuestionResult => {
      // Ties keep corpus order, so the ranking is deterministic.
      const ranked = corpus
        .map((p, pi) => ({ id: p.id, index: pi, score: cosineSimilarity(questionVectors[qi], passageVectors[pi]) }))
        .sort((a, b) => b.score - a.score || a.index - b.index)
      const position = ranked.findIndex((r) => r.id === q.expected)
      return {
        question: q.question,
        expected: q.expected,
        rank: position === -1 ? null : position + 1,
        top: ranked.slice(0, 5).map((r) => r.id)
      }
    })
    const share = (k: number) =>
      results.length === 0 ? 0 : results.filter((r) => r.rank !== null && r.rank <= k).length / results.length
    return { recallAt1: share(1), recallAt5: share(5), questions: results }
  })

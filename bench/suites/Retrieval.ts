/**
 * Retrieval quality of the built-in offline embedder on the corpus the repo ships
 * (`packages/runner/test/fixtures/kb-eval`: 54 passages, 54 customer questions): recall@1 and
 * recall@5 by cosine ranking. Baseline in the same run: plain word overlap (the same tokens,
 * unweighted set of words, cosine), which shows what stemming, bigrams and character n-grams add.
 */
import { makeOfflineEmbedder, tokenize } from "@voiceagent/runner/Knowledge/OfflineEmbedder"
import { type EvalPassage, type EvalQuestion, evaluateRetrieval } from "@voiceagent/runner/Knowledge/RetrievalEval"
import type { Embedder } from "@voiceagent/runner/Ports/Embedder"
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import type { Row } from "../lib/Report.js"

const fixture = <A>(name: string): A =>
  JSON.parse(
    fs.readFileSync(new URL(`../../packages/runner/test/fixtures/kb-eval/${name}`, import.meta.url), "utf8")
  ) as A

const VOCABULARY_LIMIT = 4096

/**
 * Each distinct word a dimension of its own (a vocabulary built from the texts it is given, far below the limit here).
 */
const wordOverlap = (): Embedder => {
  const vocabulary = new Map<string, number>()
  const vectorOf = (text: string) => {
    const words = new Set(tokenize(text))
    for (const w of words) if (!vocabulary.has(w)) vocabulary.set(w, vocabulary.size)
    return words
  }
  return {
    id: "word-overlap",
    dimensions: VOCABULARY_LIMIT,
    embed: (texts) =>
      Effect.sync(() => {
        const sets = texts.map(vectorOf)
        // a word first seen in a question has no passage to match, so its dimension only lowers the norm
        return sets.map((words) => {
          const v = new Array<number>(VOCABULARY_LIMIT).fill(0)
          for (const w of words) v[vocabulary.get(w)! % VOCABULARY_LIMIT] = 1 / Math.sqrt(words.size)
          return v
        })
      })
  }
}

export const run = async (backend: { readonly name: string }): Promise<ReadonlyArray<Row>> => {
  if (backend.name !== "pglite") return [] // no database involved: once per run
  const corpus = fixture<ReadonlyArray<EvalPassage>>("corpus.json")
  const questions = fixture<ReadonlyArray<EvalQuestion>>("questions.json")
  const measure = async (name: string, embedder: Embedder) => {
    const started = performance.now()
    const report = await Effect.runPromise(evaluateRetrieval(embedder, corpus, questions))
    return {
      name,
      recallAt1: report.recallAt1,
      recallAt5: report.recallAt5,
      ms: performance.now() - started
    }
  }
  const baseline = await measure("baseline: word overlap", wordOverlap())
  const offline = await measure("offline-hash-v1 (built-in embedder)", makeOfflineEmbedder())
  return [baseline, offline].map((m) => ({
    suite: "retrieval",
    case: m.name,
    backend: "none",
    metrics: {
      passages: corpus.length,
      questions: questions.length,
      "recall@1": Number(m.recallAt1.toFixed(3)),
      "recall@5": Number(m.recallAt5.toFixed(3)),
      "vs baseline @1": Number((m.recallAt1 / baseline.recallAt1).toFixed(2)),
      "embed+rank ms": Math.round(m.ms)
    }
  }))
}

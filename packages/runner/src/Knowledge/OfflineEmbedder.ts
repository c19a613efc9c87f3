/**
 * The built-in offline embedder (`offline-hash-v1`), the default for knowledge bases: no model to
 * download, no network, and the same vector for the same text on every run and platform.
 *
 * How a text becomes a vector:
 * 1. Unicode NFKC normalisation and lower-casing (`toLowerCase`, which does not depend on the
 *    locale); apostrophes are dropped (`don't` → `dont`).
 * 2. Words are runs of letters and digits (`\p{L}\p{N}`, any script). A small English stopword
 *    list is removed, and a light, conservative suffix stemmer folds plurals and `-ing` / `-ed`
 *    forms (`charges`, `charged`, `charging` → `charg`).
 * 3. Features: each word stem, each pair of neighbouring stems (bigrams, across removed
 *    stopwords), and the character 3- to 5-grams of each word with boundary markers (`<roam>` →
 *    `<ro`, `roa`, …, `oam>`).
 * 4. Feature hashing: each feature is hashed (FNV-1a, 32 bit) into one of `dimensions` buckets,
 *    with a second hash choosing the sign (+1 or −1) so colliding features tend to cancel rather
 *    than pile up.
 * 5. Weights: sublinear term frequency (1 + ln tf) times a weight per feature kind (word stems
 *    count most, bigrams reward matching phrases, character n-grams give a little credit for
 *    shared word parts), then the vector is L2-normalised, so a dot product is the cosine.
 *
 * Determinism: integer hashing (`Math.imul`), no randomness, no locale-dependent operations; the
 * only floating-point functions are `Math.log` (1 + ln tf) and `Math.sqrt`. A change to any of
 * the above changes every vector and needs a new `id` (the test pins a fingerprint).
 *
 * A text with no words (empty, whitespace, punctuation only) gets the zero vector: it matches
 * nothing (its cosine with anything is 0), and it cannot be normalised.
 *
 * Strengths: exact and near-exact term overlap (word forms, compounds such as `eSIM` / `e-SIM`),
 * typos and spelling variants through the character n-grams (`recieve` ≈ `receive`), codes and
 * numbers (`5G`, `PUK`), fast (pure TypeScript, microseconds per passage), offline, deterministic,
 * and free.
 *
 * Limits: no meaning beyond the letters — synonyms and paraphrases that share no words
 * (`cancel` vs `terminate`, `abroad` vs `roaming`) are not recognised; the stopwords and stemmer
 * are English-only (other languages still work on words and character n-grams, without either);
 * no corpus statistics (no IDF), so frequent domain words weigh as much as rare ones; and distinct
 * features can share a bucket (hash collisions), which adds a little noise, less with more
 * dimensions. A neural embedder does far better on paraphrased questions; this one is the
 * dependable baseline.
 */
import * as Effect from "effect/Effect"
import type { Embedder } from "../Ports/Embedder.js"

export const OFFLINE_EMBEDDER_ID = "offline-hash-v1"
export const OFFLINE_DEFAULT_DIMENSIONS = 1024

export interface OfflineEmbedderOptions {
  /** The number of hash buckets, i.e. the vector length; 1024 by default. */
  readonly dimensions?: number
}

/**
 * Weights per feature kind, tuned on the retrieval evaluation (test/fixtures/kb-eval): results were
 * flat over bigram 0.3–1 and char n-gram 0.1–0.6, and this choice sits inside that plateau rather
 * than on its best single point, to avoid fitting the small corpus.
 */
const WORD_WEIGHT = 1
const BIGRAM_WEIGHT = 0.6
const CHAR_NGRAM_WEIGHT = 0.4
const MIN_CHAR_NGRAM = 3
const MAX_CHAR_NGRAM = 5

const STOPWORDS: ReadonlySet<string> = new Set([
  "a",
  "about",
  "after",
  "again",
  "all",
  "also",
  "am",
  "an",
  "and",
  "any",
  "are",
  "as",
  "at",
  "be",
  "because",
  "been",
  "before",
  "being",
  "both",
  "but",
  "by",
  "can",
  "could",
  "did",
  "do",
  "does",
  "doing",
  "dont",
  "during",
  "each",
  "for",
  "from",
  "further",
  "get",
  "got",
  "had",
  "has",
  "have",
  "having",
  "he",
  "her",
  "here",
  "hers",
  "him",
  "his",
  "how",
  "i",
  "if",
  "im",
  "in",
  "into",
  "is",
  "it",
  "its",
  "itself",
  "ive",
  "just",
  "let",
  "me",
  "might",
  "more",
  "most",
  "must",
  "my",
  "myself",
  "of",
  "off",
  "on",
  "once",
  "only",
  "or",
  "other",
  "our",
  "ours",
  "out",
  "over",
  "own",
  "please",
  "same",
  "she",
  "should",
  "so",
  "some",
  "such",
  "than",
  "that",
  "the",
  "their",
  "theirs",
  "them",
  "then",
  "there",
  "these",
  "they",
  "this",
  "those",
  "through",
  "to",
  "too",
  "under",
  "until",
  "up",
  "us",
  "very",
  "was",
  "we",
  "were",
  "what",
  "when",
  "where",
  "which",
  "while",
  "who",
  "whom",
  "why",
  "will",
  "with",
  "would",
  "you",
  "your",
  "yours",
  "yourself"
])

/** Light suffix stripping: plural `s` / `es` / `ies`, `-ing`, `-ed`; leaves short words alone. */
export const stem = (word: string): string => {
  const n = word.length
  if (n <= 3 || /\d/u.test(word)) return word
  if (word.endsWith("ies") && n > 4) return word.slice(0, -3) + "y"
  if (word.endsWith("sses")) return word.slice(0, -2)
  if (/(?:ches|shes|xes|zes)$/u.test(word)) return word.slice(0, -2)
  if (word.endsWith("ing") && n > 5) return dropE(undouble(word.slice(0, -3)))
  if (word.endsWith("ied") && n > 4) return word.slice(0, -3) + "y"
  if (word.endsWith("ed") && n > 4 && !word.endsWith("eed")) return dropE(undouble(word.slice(0, -2)))
  if (word.endsWith("s") && !/(?:ss|us|is)$/u.test(word)) return dropE(word.slice(0, -1))
  return dropE(word)
}

/** `charge` → `charg`, so it meets `charged` / `charging`; short words (`line`, `free`) stay. */
const dropE = (
  word: string
): string => (word.length > 4 && word.endsWith("e") && !word.endsWith("ee") ? word.slice(0, -1) : word)

/** `stopp` → `stop` (from `stopped`), but keeps `ll`, `ss`, `zz` (`billed` → `bill`, `passed` → `pass`). */
const undouble = (word: string): string => {
  const n = word.length
  if (n >= 3 && word[n - 1] === word[n - 2] && !/[aeiouylsz]/u.test(word[n - 1])) return word.slice(0, -1)
  return word
}

/** Lower-cased words (letters and digits of any script), apostrophes dropped. */
export const tokenize = (text: string): ReadonlyArray<string> =>
  text.normalize("NFKC").toLowerCase().replace(/['\u2019]/gu, "").match(/[\p{L}\p{N}]+/gu) ?? []

/** FNV-1a over UTF-16 code units, 32 bit. */
const fnv1a = (s: string, seed: number): number => {
  let h = seed >>> 0
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const FNV_OFFSET = 0x811c9dc5
const SIGN_SEED = 0x9747b28c

const featureCounts = (text: string): Map<string, { count: number; weight: number }> => {
  const features = new Map<string, { count: number; weight: number }>()
  const add = (key: string, weight: number) => {
    const entry = features.get(key)
    if (entry === undefined) features.set(key, { count: 1, weight })
    else entry.count++
  }
  const words = tokenize(text).filter((w) => !STOPWORDS.has(w))
  let previous: string | null = null
  for (const word of words) {
    const s = stem(word)
    add(`w:${s}`, WORD_WEIGHT)
    if (previous !== null) add(`b:${previous} ${s}`, BIGRAM_WEIGHT)
    previous = s
    const marked = `<${word}>`
    for (let n = MIN_CHAR_NGRAM; n <= MAX_CHAR_NGRAM; n++) {
      for (let i = 0; i + n <= marked.length; i++) add(`c:${marked.slice(i, i + n)}`, CHAR_NGRAM_WEIGHT)
    }
  }
  return features
}

/** The vector of one text: hashed, signed, sublinear-tf weighted features, L2-normalised. */
export const embedText = (text: string, dimensions: number): Array<number> => {
  const vector = new Array<number>(dimensions).fill(0)
  for (const [key, { count, weight }] of featureCounts(text)) {
    const bucket = fnv1a(key, FNV_OFFSET) % dimensions
    const sign = (fnv1a(key, SIGN_SEED) & 1) === 0 ? 1 : -1
    vector[bucket] += sign * weight * (1 + Math.log(count))
  }
  let norm = 0
  for (const x of vector) norm += x * x
  if (norm === 0) return vector
  norm = Math.sqrt(norm)
  for (let i = 0; i < dimensions; i++) vector[i] /= norm
  return vector
}

export const makeOfflineEmbedder = (options: OfflineEmbedderOptions = {}): Embedder => {
  const dimensions = options.dimensions ?? OFFLINE_DEFAULT_DIMENSIONS
  if (!Number.isInteger(dimensions) || dimensions < 1) {
    throw new RangeError(`makeOfflineEmbedder: dimensions must be a positive integer, got ${dimensions}`)
  }
  return {
    id: dimensions === OFFLINE_DEFAULT_DIMENSIONS ? OFFLINE_EMBEDDER_ID : `${OFFLINE_EMBEDDER_ID}-d${dimensions}`,
    dimensions,
    embed: (texts) => Effect.sync(() => texts.map((text) => embedText(text, dimensions)))
  }
}

/**
 * The pure rules of knowledge-base chunking: how a document's text is normalized, split into
 * paragraphs and sentences, and packed into overlapping chunks for embedding and retrieval.
 *
 * - `normalizeText` is the canonical form of a document: `\n` line endings, no trailing spaces on a
 *   line, at most one blank line in a row, no leading or trailing whitespace. Chunk offsets and
 *   (in the runner, which owns hashing) content hashes are taken over this form, so an unchanged
 *   document normalizes to the same string and chunks the same way.
 * - `chunkText` packs whole paragraphs greedily. A paragraph longer than `maxChars` is packed by
 *   sentences; a sentence longer than `maxChars` is packed by words, starting a new chunk; only a
 *   single word longer than `maxChars` is hard-cut (never inside a surrogate pair when avoidable).
 * - Each chunk after the first starts with the trailing whole sentences of the previous chunk that
 *   total at most `overlapChars` and still leave room for the next unit in full (else fewer
 *   sentences, possibly none). When the previous chunk's last sentence alone is longer than
 *   `overlapChars` (or the chunk ends inside a long sentence) the overlap is trailing whole words
 *   instead; after a hard-cut word there is none. Overlap shows as overlapping `[start, end)` ranges.
 *
 * Lengths and offsets are in UTF-16 code units (`string.length`), into the normalized text.
 */

/** Limits for `chunkText`, in UTF-16 code units. */
export interface ChunkOptions {
  /** The largest chunk, separators included. An integer ≥ 1. */
  readonly maxChars: number
  /** The largest overlap with the previous chunk. An integer ≥ 0; 0 disables overlap. */
  readonly overlapChars: number
}

/** Sensible defaults for embedding models with a few-hundred-token window. */
export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = { maxChars: 1000, overlapChars: 150 }

/** One chunk: `normalizeText(input).slice(start, end) === text`. */
export interface Chunk {
  readonly index: number
  readonly text: string
  readonly start: number
  readonly end: number
}

// ---------------------------------------------------------------------------------------------
// Normalization
// ---------------------------------------------------------------------------------------------

/**
 * The canonical form of a document: line endings unified to `\n`, trailing whitespace removed
 * from every line, runs of blank lines collapsed to a single blank line, and the whole trimmed.
 */
export const normalizeText = (text: string): string =>
  // line by line: a regular expression for trailing whitespace backtracks quadratically on a long
  // run of spaces inside a line (100,000 spaces took 9 s)
  text
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()

// ---------------------------------------------------------------------------------------------
// Spans
// ---------------------------------------------------------------------------------------------

interface Span {
  readonly start: number
  readonly end: number
}

const WHITESPACE = /\s/

const isSpace = (text: string, i: number): boolean => WHITESPACE.test(text.charAt(i))

/** `[start, end)` without its leading and trailing whitespace, or `undefined` when nothing is left. */
const trimSpan = (text: string, start: number, end: number): Span | undefined => {
  let s = start
  let e = end
  while (s < e && isSpace(text, s)) s++
  while (e > s && isSpace(text, e - 1)) e--
  return s < e ? { start: s, end: e } : undefined
}

/** Paragraphs are separated by one or more blank (empty or whitespace-only) lines. */
const paragraphSpans = (text: string): Array<Span> => {
  const spans: Array<Span> = []
  const separator = /\n(?:[^\S\n]*\n)+/g
  let from = 0
  for (const match of text.matchAll(separator)) {
    const span = trimSpan(text, from, match.index)
    if (span !== undefined) spans.push(span)
    from = match.index + match[0].length
  }
  const last = trimSpan(text, from, text.length)
  if (last !== undefined) spans.push(last)
  return spans
}

const TERMINATORS = new Set([".", "!", "?", "…", "。", "！", "？"])
/** Terminators that end a sentence even when no whitespace follows (CJK does not space sentences). */
const CJK_TERMINATORS = new Set(["。", "！", "？"])
/** Closing quotes and brackets that belong to the sentence they follow: `He said "Hi." Then…`. */
const CLOSERS = new Set(["\"", "'", "”", "’", "»", ")", "]", "}", "」", "』", "）", "》", "】"])
/** Opening punctuation stripped before a word is checked against the abbreviations. */
const OPENERS = /^["'“‘«([{¿¡]+/

/** Words ending in `.` that do not end a sentence (compared lowercased). */
const ABBREVIATIONS: ReadonlySet<string> = new Set([
  "e.g.",
  "i.e.",
  "etc.",
  "vs.",
  "cf.",
  "al.",
  "approx.",
  "mr.",
  "mrs.",
  "ms.",
  "dr.",
  "prof.",
  "sr.",
  "jr.",
  "st.",
  "mt.",
  "no.",
  "nos.",
  "fig.",
  "figs.",
  "vol.",
  "p.",
  "pp.",
  "inc.",
  "ltd.",
  "co.",
  "corp.",
  "dept.",
  "jan.",
  "feb.",
  "mar.",
  "apr.",
  "jun.",
  "jul.",
  "aug.",
  "sep.",
  "sept.",
  "oct.",
  "nov.",
  "dec."
])

/** Whether the `.` at `dot` closes an abbreviation (`Dr.`, `e.g.`, `J.`, `U.S.`) rather than a sentence. */
const isAbbreviation = (text: string, from: number, dot: number): boolean => {
  let k = dot
  while (k > from && !isSpace(text, k - 1)) k--
  const word = text.slice(k, dot + 1).replace(OPENERS, "")
  return (
    ABBREVIATIONS.has(word.toLowerCase()) ||
    /^[A-Z]\.$/.test(word) || // a single capital initial
    /^(?:\p{L}\.){2,}$/u.test(word) // dotted initials: U.S., a.m.
  )
}

/**
 * The sentences of `text[start, end)`, trimmed. A sentence ends at a run of `.`, `!`, `?`, `…`
 * (plus any closing quotes or brackets) followed by whitespace or the end, or at a CJK `。！？`.
 * A lone `.` after an abbreviation or an initial does not end a sentence; a decimal point such as
 * `3.14` never does, since no whitespace follows it. The spans cover every non-whitespace character.
 */
const sentenceSpans = (text: string, start: number, end: number): Array<Span> => {
  const spans: Array<Span> = []
  let from = start
  let i = start
  while (i < end) {
    if (!TERMINATORS.has(text.charAt(i))) {
      i++
      continue
    }
    let j = i
    let cjk = false
    while (j < end && TERMINATORS.has(text.charAt(j))) {
      if (CJK_TERMINATORS.has(text.charAt(j))) cjk = true
      j++
    }
    while (j < end && CLOSERS.has(text.charAt(j))) j++
    const followedBySpace = j === end || isSpace(text, j)
    const loneDot = text.charAt(i) === "." && !TERMINATORS.has(text.charAt(i + 1))
    const ends = cjk || (followedBySpace && !(loneDot && isAbbreviation(text, from, i)))
    if (ends) {
      const span = trimSpan(text, from, j)
      if (span !== undefined) spans.push(span)
      from = j
    }
    i = j
  }
  const last = trimSpan(text, from, end)
  if (last !== undefined) spans.push(last)
  return spans
}

/** The whitespace-separated words of `text[start, end)`. */
const wordSpans = (text: string, start: number, end: number): Array<Span> => {
  const spans: Array<Span> = []
  let i = start
  while (i < end) {
    while (i < end && isSpace(text, i)) i++
    const s = i
    while (i < end && !isSpace(text, i)) i++
    if (i > s) spans.push({ start: s, end: i })
  }
  return spans
}

/** `span` cut into pieces of at most `maxChars`, avoiding cuts inside a surrogate pair. */
const hardCut = (text: string, span: Span, maxChars: number): Array<Span> => {
  const pieces: Array<Span> = []
  let s = span.start
  while (s < span.end) {
    let e = Math.min(s + maxChars, span.end)
    const splitsPair = e < span.end && e - s >= 2 && isHighSurrogate(text.charCodeAt(e - 1)) &&
      isLowSurrogate(text.charCodeAt(e))
    if (splitsPair) e--
    pieces.push({ start: s, end: e })
    s = e
  }
  return pieces
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** The index of the first element of the ascending `sorted` that is ≥ `bound` (its length if none). */
const firstIndexAtLeast = (sorted: ReadonlyArray<number>, bound: number): number => {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid] < bound) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The first element of the ascending `sorted` that is ≥ `bound`, if any. */
const firstAtLeast = (sorted: ReadonlyArray<number>, bound: number): number | undefined => {
  const i = firstIndexAtLeast(sorted, bound)
  return i < sorted.length ? sorted[i] : undefined
}

/** The last element of the ascending `sorted` that is < `bound`, if any. */
const lastBelow = (sorted: ReadonlyArray<number>, bound: number): number | undefined => {
  const i = firstIndexAtLeast(sorted, bound) - 1
  return i >= 0 ? sorted[i] : undefined
}

// ---------------------------------------------------------------------------------------------
// Public splitting
// ---------------------------------------------------------------------------------------------

/** The paragraphs of `text` (separated by blank lines), trimmed, without empty ones. */
export const splitParagraphs = (text: string): Array<string> =>
  paragraphSpans(text).map(({ end, start }) => text.slice(start, end))

/**
 * The sentences of `paragraph`, trimmed: split after `.`, `!`, `?`, `…` (with any closing quotes)
 * followed by whitespace or the end, and after CJK `。！？`; not after common abbreviations
 * (`e.g.`, `Mr.`, `etc.`, …), single capital initials (`J.`) or dotted initials (`U.S.`), and
 * never inside a decimal such as `3.14`.
 */
export const splitSentences = (paragraph: string): Array<string> =>
  sentenceSpans(paragraph, 0, paragraph.length).map(({ end, start }) => paragraph.slice(start, end))

// ---------------------------------------------------------------------------------------------
// Chunking
// ---------------------------------------------------------------------------------------------

const validate = (options: ChunkOptions): void => {
  if (!Number.isInteger(options.maxChars) || options.maxChars < 1) {
    throw new RangeError(`maxChars must be an integer >= 1, got ${options.maxChars}`)
  }
  if (!Number.isInteger(options.overlapChars) || options.overlapChars < 0) {
    throw new RangeError(`overlapChars must be an integer >= 0, got ${options.overlapChars}`)
  }
}

/**
 * `normalizeText(text)` cut into chunks of at most `options.maxChars`, each after the first
 * overlapping the previous one by at most `options.overlapChars` (see the module comment).
 * Chunks are non-empty, start and end on non-whitespace, are in increasing `start` order, and
 * together cover every non-whitespace character. Empty (or whitespace-only) input gives `[]`.
 *
 * @throws RangeError when `maxChars` is not an integer ≥ 1 or `overlapChars` not an integer ≥ 0.
 */
export const chunkText = (text: string, options: ChunkOptions = DEFAULT_CHUNK_OPTIONS): Array<Chunk> => {
  validate(options)
  const { maxChars, overlapChars } = options
  const normalized = normalizeText(text)

  // The packing units, each at most maxChars, in order; and where an overlap may start.
  const units: Array<Span> = []
  const sentenceStarts: Array<number> = []
  const breaks = new Set<number>() // indices of units that must open a new chunk
  for (const paragraph of paragraphSpans(normalized)) {
    const sentences = sentenceSpans(normalized, paragraph.start, paragraph.end)
    for (const sentence of sentences) sentenceStarts.push(sentence.start)
    if (paragraph.end - paragraph.start <= maxChars) {
      units.push(paragraph)
      continue
    }
    for (const sentence of sentences) {
      if (sentence.end - sentence.start <= maxChars) {
        units.push(sentence)
        continue
      }
      // An over-long sentence opens a chunk of its own, so no chunk ends on its first few words.
      breaks.add(units.length)
      for (const word of wordSpans(normalized, sentence.start, sentence.end)) {
        if (word.end - word.start <= maxChars) units.push(word)
        else units.push(...hardCut(normalized, word, maxChars))
      }
    }
  }
  const wordStarts = wordSpans(normalized, 0, normalized.length).map((word) => word.start)

  /**
   * Where the chunk after `previous` starts so that it opens with `previous`'s trailing whole
   * sentences (else whole words) totalling at most overlapChars and still fits `next` in full.
   */
  const overlapStart = (previous: Span, next: Span): number | undefined => {
    if (overlapChars === 0) return undefined
    // An overlap ends where the previous chunk does; it must not end inside a hard-cut word.
    if (previous.end < normalized.length && !isSpace(normalized, previous.end)) return undefined
    const bound = Math.max(previous.end - overlapChars, previous.start + 1, next.end - maxChars)
    // Whole sentences, unless the last one alone exceeds overlapChars: then whole words.
    const lastSentence = lastBelow(sentenceStarts, previous.end)
    const byWords = lastSentence === undefined || lastSentence < previous.end - overlapChars
    const start = firstAtLeast(byWords ? wordStarts : sentenceStarts, bound)
    return start !== undefined && start < previous.end ? start : undefined
  }

  const chunks: Array<Chunk> = []
  let previous: Span | undefined
  let k = 0
  while (k < units.length) {
    const first = units[k]
    const start = (previous === undefined ? undefined : overlapStart(previous, first)) ?? first.start
    let end = first.end
    k++
    while (k < units.length && !breaks.has(k) && units[k].end - start <= maxChars) {
      end = units[k].end
      k++
    }
    chunks.push({ index: chunks.length, text: normalized.slice(start, end), start, end })
    previous = { start, end }
  }
  return chunks
}

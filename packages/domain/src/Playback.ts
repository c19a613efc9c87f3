/**
 * What the caller heard of an agent's response, from what was sent and how far it played.
 *
 * The agent's audio goes out in chunks, each followed by a mark the carrier echoes once the audio
 * before it has played. `clear` stops playback at once and makes the carrier echo every pending mark:
 * those echoes are the flush of discarded audio, not playback, so the position is the last mark
 * echoed before the clear, plus the time since that echo (the chunk after it was playing), capped at
 * the next mark. That position, through the speech's word timings (or, without them, the share of
 * characters), gives the words heard: the transcript and the model's context keep exactly those.
 */

/** A stretch of the response's audio and the text it speaks. */
export interface SpokenSegment {
  readonly text: string
  /** Where the segment's audio starts in the response's audio, in ms. */
  readonly startMs: number
  readonly durationMs: number
  /** When each word of `text` ends, in ms from the segment's start (from the speech engine's alignment). */
  readonly wordEndsMs?: ReadonlyArray<number> | undefined
}

const WORD = /\S+/g

/** The words of `text` heard when `playedMs` of its `durationMs` have played. */
const heardOfSegment = (segment: SpokenSegment, playedMs: number): string => {
  if (playedMs <= 0) return ""
  if (playedMs >= segment.durationMs) return segment.text.trim()
  const words = [...segment.text.matchAll(WORD)]
  if (words.length === 0) return ""
  const ends = segment.wordEndsMs
  let count = 0
  if (ends !== undefined && ends.length === words.length) {
    while (count < words.length && ends[count]! <= playedMs) count++
  } else {
    // without timings, by the share of characters: a word is heard once its last character is
    const heardChars = (segment.text.length * playedMs) / segment.durationMs
    while (count < words.length && words[count]!.index! + words[count]![0].length <= heardChars) count++
  }
  return words.slice(0, count).map((w) => w[0]).join(" ")
}

/** The text heard of `segments` when `playedMs` of the response's audio have played. */
export const heardText = (segments: ReadonlyArray<SpokenSegment>, playedMs: number): string =>
  segments
    .map((segment) => heardOfSegment(segment, playedMs - segment.startMs))
    .filter((text) => text !== "")
    .join(" ")

/** What follows the heard prefix in the full text (what was not heard). */
export const unheardText = (full: string, heard: string): string => {
  const fullWords = full.trim().split(/\s+/).filter((w) => w !== "")
  const heardCount = heard.trim() === "" ? 0 : heard.trim().split(/\s+/).length
  return fullWords.slice(heardCount).join(" ")
}

export interface MarkRecord {
  readonly name: string
  /** The response's audio sent before this mark, in ms. */
  readonly offsetMs: number
}

/**
 * The playback position of one response: marks sent (each at the audio offset it follows) and
 * echoed. Immutable; `clear` freezes it.
 */
export interface PlaybackPosition {
  readonly marks: ReadonlyArray<MarkRecord>
  /** The last mark echoed (while playing), and when. */
  readonly lastEchoed: { readonly offsetMs: number; readonly at: number } | null
  /** Audio sent so far, in ms. */
  readonly sentMs: number
}

export const emptyPosition: PlaybackPosition = { marks: [], lastEchoed: null, sentMs: 0 }

export const markSent = (position: PlaybackPosition, name: string, chunkMs: number): PlaybackPosition => {
  const sentMs = position.sentMs + chunkMs
  return { ...position, sentMs, marks: [...position.marks, { name, offsetMs: sentMs }] }
}

export const markEchoed = (position: PlaybackPosition, name: string, at: number): PlaybackPosition => {
  const mark = position.marks.find((m) => m.name === name)
  if (mark === undefined) return position
  if (position.lastEchoed !== null && position.lastEchoed.offsetMs >= mark.offsetMs) return position
  return { ...position, lastEchoed: { offsetMs: mark.offsetMs, at } }
}

/**
 * How much of the response has played at `now`: up to the last echoed mark, plus the time since
 * its echo, but never past the next mark's offset (the audio after it is not known to have played).
 * Before any echo, the first chunk may have been playing since `startedAt`.
 */
export const playedMs = (position: PlaybackPosition, now: number, startedAt: number | null): number => {
  const base = position.lastEchoed
  const from = base?.offsetMs ?? 0
  const since = base?.at ?? startedAt
  if (since === null) return from
  const next = position.marks.find((m) => m.offsetMs > from)?.offsetMs ?? position.sentMs
  return Math.min(next, from + Math.max(0, now - since))
}

/** Whether every mark sent has been echoed (all the audio sent has played). */
export const allPlayed = (position: PlaybackPosition): boolean =>
  position.marks.length === 0 || position.lastEchoed?.offsetMs === position.marks.at(-1)!.offsetMs

/**
 * The rules of turn-taking, as pure functions of what the caller said (text) and settings:
 *
 * - how long to wait after the caller goes quiet before their turn is over (`endpointDelay`): short
 *   after a finished sentence, longest when they stopped on a number or a word that leads on ("my
 *   number is four one five … five five five", "and", "um"), so a caller dictating digits with pauses
 *   is not cut off;
 * - whether words said while the agent talks are only a backchannel ("uh-huh", "okay") that must not
 *   interrupt it (`isBackchannel`).
 */

export interface EndpointingSettings {
  /** The wait after a finished sentence (the transcript ends with . ? or !), in ms. */
  readonly minDelayMs: number
  /** The wait when the caller stopped on a number or a word that leads on, or said nothing legible, in ms. */
  readonly maxDelayMs: number
}

export const defaultEndpointing: EndpointingSettings = { minDelayMs: 300, maxDelayMs: 2_500 }

const NUMBER_WORDS = new Set([
  "zero",
  "oh",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
  "thirty",
  "forty",
  "fifty",
  "sixty",
  "seventy",
  "eighty",
  "ninety",
  "hundred",
  "thousand",
  "double",
  "triple",
  "plus",
  "dash",
  "hash",
  "star",
  "point",
  "dot",
  "at"
])

/** Words a sentence rarely ends on: the caller is still going. */
const LEADING_WORDS = new Set([
  "and",
  "or",
  "but",
  "so",
  "because",
  "um",
  "uh",
  "er",
  "erm",
  "hmm",
  "like",
  "the",
  "a",
  "an",
  "to",
  "my",
  "is",
  "are",
  "was",
  "of",
  "for",
  "with",
  "then",
  "if",
  "that",
  "it's",
  "its",
  "i",
  "i'm",
  "we",
  "you",
  "your",
  "our",
  "number",
  "email",
  "address",
  "name",
  "from",
  "in",
  "on",
  "about",
  "at",
  "by",
  "into"
])

const wordsOf = (text: string): ReadonlyArray<string> =>
  text.toLowerCase().replace(/[^\p{L}\p{N}'\s-]/gu, " ").split(/[\s-]+/).filter((w) => w !== "")

/**
 * How long after the caller stopped speaking their turn is taken as over, given what they said so
 * far: `minDelayMs` after a finished sentence, `maxDelayMs` after a number, a word that leads on or
 * nothing legible, and a third of the way between otherwise.
 */
export const endpointDelay = (text: string, settings: EndpointingSettings = defaultEndpointing): number => {
  const trimmed = text.trim()
  const words = wordsOf(trimmed)
  const last = words.at(-1)
  if (last === undefined) return settings.maxDelayMs
  if (/\d$/.test(trimmed) || /^\d+$/.test(last) || NUMBER_WORDS.has(last)) return settings.maxDelayMs
  if (LEADING_WORDS.has(last)) return settings.maxDelayMs
  if (/[.?!]["')\]]?$/.test(trimmed)) return settings.minDelayMs
  return Math.round(settings.minDelayMs + (settings.maxDelayMs - settings.minDelayMs) / 3)
}

/** Phrases a listener says to show they follow, not to take the turn (English; per agent otherwise). */
export const defaultBackchannels: ReadonlyArray<string> = [
  "uh huh",
  "uh-huh",
  "mhm",
  "mm hmm",
  "mm-hmm",
  "hmm",
  "mm",
  "okay",
  "ok",
  "yeah",
  "yes",
  "yep",
  "right",
  "sure",
  "i see",
  "got it",
  "alright",
  "all right",
  "cool",
  "great",
  "good",
  "nice",
  "wow",
  "oh"
]

const normalize = (text: string) => wordsOf(text).join(" ")

/**
 * Whether `text` is only backchannel phrases (any number of them, in any order): "uh-huh", "okay
 * okay", "yeah right". Empty text is not a backchannel (it is nothing).
 */
export const isBackchannel = (text: string, phrases: ReadonlyArray<string> = defaultBackchannels): boolean => {
  let rest = ` ${normalize(text)} `
  if (rest.trim() === "") return false
  const sorted = [...new Set(phrases.map(normalize))].filter((p) => p !== "").sort((a, b) => b.length - a.length)
  let changed = true
  while (changed) {
    changed = false
    for (const phrase of sorted) {
      const next = rest.replace(` ${phrase} `, " ")
      if (next !== rest) {
        rest = next
        changed = true
      }
    }
  }
  return rest.trim() === ""
}

/** Words in `text` that are not backchannel phrases. */
export const wordsBeyondBackchannel = (text: string, phrases: ReadonlyArray<string> = defaultBackchannels): number =>
  isBackchannel(text, phrases) ? 0 : wordsOf(text).length

/**
 * DTMF in the audio (ITU-T Q.23/Q.24): each key is the sum of a low (row) and a high (column) tone.
 * `dtmfTones` writes keys into 8 kHz PCM, as a phone's keypad does (the agent pressing keys on a
 * line that only carries audio); `detectDigits` reads them back with the Goertzel algorithm, as an
 * IVR does (the test's fake line).
 */
import { SAMPLE_RATE } from "./Audio.js"

export const DTMF_ROWS = [697, 770, 852, 941] as const
export const DTMF_COLUMNS = [1209, 1336, 1477, 1633] as const
const KEYPAD = ["123A", "456B", "789C", "*0#D"] as const

/** The keys a line carries. */
export const DTMF_DIGITS = /^[0-9*#A-D]+$/

/** A key's tone and the silence after it (ms): 100 ms each, well above Q.24's 40 ms minimum. */
export const TONE_MS = 100
export const GAP_MS = 100

/** Each tone's peak: two tones at this level stay well inside 16 bits, about -9 dBm0 each. */
const AMPLITUDE = 8_000

const frequenciesOf = (digit: string): readonly [number, number] => {
  for (let row = 0; row < KEYPAD.length; row++) {
    const column = KEYPAD[row]!.indexOf(digit)
    if (column >= 0) return [DTMF_ROWS[row]!, DTMF_COLUMNS[column]!]
  }
  throw new Error(`not a DTMF key: ${digit}`)
}

/** `digits` as 8 kHz PCM: each key's dual tone for `toneMs`, then `gapMs` of silence. */
export const dtmfTones = (
  digits: string,
  options: { readonly toneMs?: number; readonly gapMs?: number } = {}
): Int16Array => {
  const tone = Math.round((SAMPLE_RATE * (options.toneMs ?? TONE_MS)) / 1_000)
  const gap = Math.round((SAMPLE_RATE * (options.gapMs ?? GAP_MS)) / 1_000)
  const out = new Int16Array(digits.length * (tone + gap))
  Array.from(digits).forEach((digit, k) => {
    const [low, high] = frequenciesOf(digit)
    const offset = k * (tone + gap)
    for (let i = 0; i < tone; i++) {
      const t = i / SAMPLE_RATE
      out[offset + i] = Math.round(AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)))
    }
  })
  return out
}

/** The power of `frequency` in `block` (Goertzel). */
export const goertzel = (block: Int16Array, frequency: number): number => {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / SAMPLE_RATE)
  let s1 = 0
  let s2 = 0
  for (let i = 0; i < block.length; i++) {
    const s0 = block[i]! + coefficient * s1 - s2
    s2 = s1
    s1 = s0
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2
}

/**
 * Samples in a detection block (13.3 ms at 8 kHz: fine enough for 40 ms tones, coarse enough to tell the rows apart).
 */
const BLOCK = 106

/**
 * The key sounding in `block`, if one clearly does: a strong row and
 * column tone, each well above the others (twist and energy checks).
 */
const keyIn = (block: Int16Array): string | undefined => {
  let energy = 0
  for (let i = 0; i < block.length; i++) energy += block[i]! * block[i]!
  if (energy / block.length < 1_000_000) return undefined
  const rows = DTMF_ROWS.map((f) => goertzel(block, f))
  const columns = DTMF_COLUMNS.map((f) => goertzel(block, f))
  const best = (powers: ReadonlyArray<number>) => {
    const sorted = [...powers].sort((a, b) => b - a)
    return { index: powers.indexOf(sorted[0]!), clear: sorted[0]! > 4 * sorted[1]! }
  }
  const row = best(rows)
  const column = best(columns)
  const low = rows[row.index]!
  const high = columns[column.index]!
  // both tones carry most of the block's energy, and neither is much louder than the other
  const tonal = (low + high) / (energy * block.length) > 0.2
  const twist = low / high
  if (!row.clear || !column.clear || !tonal || twist > 8 || twist < 1 / 8) return undefined
  return KEYPAD[row.index]![column.index]
}

/**
 * The keys pressed in `pcm` (8 kHz), in order: a key counts once it sounds in two blocks running
 * (about 27 ms), and again only after a block of something else (the gap between presses).
 */
export const detectDigits = (pcm: Int16Array): string => {
  let out = ""
  let previous: string | undefined
  let run = 0
  let reported = false
  for (let start = 0; start + BLOCK <= pcm.length; start += BLOCK) {
    const key = keyIn(pcm.subarray(start, start + BLOCK))
    if (key !== undefined && key === previous) run++
    else {
      run = key === undefined ? 0 : 1
      reported = false
    }
    previous = key
    if (key !== undefined && run >= 2 && !reported) {
      out += key
      reported = true
    }
  }
  return out
}

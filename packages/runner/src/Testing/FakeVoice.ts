/**
 * The deterministic "speech" the text-to-speech fakes (FakeElevenLabs, FakeOpenAiSpeech) answer with,
 * at any sample rate: every character of the text (leading and trailing whitespace dropped) lasts
 * `msPerChar` (60 ms unless given). A whitespace character is silence; any other character is a
 * voiced sound, a fundamental between 100 and 290 Hz chosen by the character with three harmonics
 * (well inside the telephone band), faded in and out over 5 ms. So a word is a run of voiced sound
 * and the gap between words is silent: tests can check word timings against the audio itself, and
 * audio durations against the text.
 */

export const FAKE_MS_PER_CHAR = 60

/** The text the fakes speak: leading and trailing whitespace dropped. */
export const spokenText = (text: string): string => text.trim()

/** The samples of one character at `sampleRate`. */
const charSamples = (sampleRate: number, msPerChar: number) => Math.round((sampleRate * msPerChar) / 1_000)

/** The fake voice saying `text`: 16-bit PCM at `sampleRate`, `msPerChar` per character. */
export const fakeSpeech = (text: string, sampleRate: number, msPerChar: number = FAKE_MS_PER_CHAR): Int16Array => {
  const spoken = [...spokenText(text)]
  const perChar = charSamples(sampleRate, msPerChar)
  const fade = Math.max(1, Math.round(sampleRate * 0.005))
  const pcm = new Int16Array(spoken.length * perChar)
  spoken.forEach((char, index) => {
    if (/\s/u.test(char)) return
    const f0 = 100 + (char.codePointAt(0)! % 20) * 10
    const offset = index * perChar
    for (let i = 0; i < perChar; i++) {
      const t = (offset + i) / sampleRate
      const envelope = Math.min(1, i / fade, (perChar - 1 - i) / fade)
      const voiced = Math.sin(2 * Math.PI * f0 * t) +
        0.5 * Math.sin(2 * Math.PI * 2 * f0 * t) +
        0.25 * Math.sin(2 * Math.PI * 3 * f0 * t) +
        0.125 * Math.sin(2 * Math.PI * 4 * f0 * t)
      pcm[offset + i] = Math.round(6_000 * envelope * voiced)
    }
  })
  return pcm
}

/** When each word (run of non-whitespace) of the spoken text ends, in ms from the start of its audio. */
export const fakeWordEndsMs = (text: string, msPerChar: number = FAKE_MS_PER_CHAR): ReadonlyArray<number> => {
  const chars = [...spokenText(text)]
  return chars.flatMap((char, i) =>
    !/\s/u.test(char) && (i + 1 === chars.length || /\s/u.test(chars[i + 1]!)) ? [(i + 1) * msPerChar] : []
  )
}

/** Milliseconds of fake speech for `text`. */
export const fakeSpeechMs = (text: string, msPerChar: number = FAKE_MS_PER_CHAR): number =>
  [...spokenText(text)].length * msPerChar

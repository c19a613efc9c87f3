/**
 * Our own answering-machine detection, from the callee's audio (8 kHz PCM, 20 ms frames), for a
 * carrier that gives no verdict or an agent that asks for it:
 *
 * - the opening: speech that goes on for `longGreetingMs` without a pause of `pauseMs` is a recorded
 *   greeting (`machine`); a first utterance that stops shorter ("Hello?", then waiting) is a person
 *   (`human`); nothing said within `silentMs` is `unknown`;
 * - the beep: a steady tone (one frequency from 300 to 2,500 Hz holding most of the frame's energy,
 *   found with a bank of Goertzel filters) lasting `beepMinMs` to `beepMaxMs`. It is reported when it
 *   stops (the message is recorded from then on), and is itself a `machine` verdict if none came.
 *
 * Frames are timed by the caller (`at`, epoch ms); the detector keeps no clock of its own.
 */
import { rms } from "./Vad.js"

export type AnsweredBy = "human" | "machine" | "unknown"

export type DetectorEvent =
  | { readonly _tag: "Verdict"; readonly answeredBy: AnsweredBy; readonly at: number; readonly reason: string }
  | { readonly _tag: "Beep"; readonly at: number; readonly hz: number; readonly durationMs: number }

export interface MachineDetectorSettings {
  readonly speechRms: number
  readonly pauseMs: number
  readonly longGreetingMs: number
  readonly silentMs: number
  readonly beepMinMs: number
  readonly beepMaxMs: number
  /** The share of a frame's energy one frequency must hold for the frame to be a tone. */
  readonly toneShare: number
}

export const defaultMachineDetector: MachineDetectorSettings = {
  speechRms: 400,
  pauseMs: 800,
  longGreetingMs: 3_500,
  silentMs: 6_000,
  beepMinMs: 200,
  beepMaxMs: 1_500,
  toneShare: 0.6
}

const RATE = 8_000
const FREQUENCIES: ReadonlyArray<number> = Array.from({ length: (2_500 - 300) / 25 + 1 }, (_, i) => 300 + i * 25)
const COEFFICIENTS = FREQUENCIES.map((hz) => 2 * Math.cos((2 * Math.PI * hz) / RATE))

/**
 * The strongest of the filter bank's frequencies in `frame`, and the share of the frame's energy it
 * holds (about 1 for a pure tone, well under half for speech).
 */
export const dominantTone = (frame: Int16Array): { readonly hz: number; readonly share: number } => {
  let energy = 0
  for (let i = 0; i < frame.length; i++) energy += frame[i]! * frame[i]!
  if (energy === 0) return { hz: 0, share: 0 }
  let best = 0
  let bestIndex = 0
  for (let k = 0; k < COEFFICIENTS.length; k++) {
    const c = COEFFICIENTS[k]!
    let s1 = 0
    let s2 = 0
    for (let i = 0; i < frame.length; i++) {
      const s = frame[i]! + c * s1 - s2
      s2 = s1
      s1 = s
    }
    const power = s1 * s1 + s2 * s2 - c * s1 * s2
    if (power > best) {
      best = power
      bestIndex = k
    }
  }
  return { hz: FREQUENCIES[bestIndex]!, share: best / ((frame.length * energy) / 2) }
}

export interface MachineDetector {
  /** One frame of the callee's audio, said at `at`: what it decided, if anything. */
  readonly push: (frame: Int16Array, at: number) => ReadonlyArray<DetectorEvent>
  readonly verdict: () => AnsweredBy | undefined
}

export const makeMachineDetector = (settings: MachineDetectorSettings = defaultMachineDetector): MachineDetector => {
  let startedAt: number | undefined
  let verdict: AnsweredBy | undefined
  let speechFrom: number | undefined
  let lastSpeechAt: number | undefined
  let tone: { from: number; hz: number; until: number } | undefined

  const decide = (answeredBy: AnsweredBy, at: number, reason: string, out: Array<DetectorEvent>) => {
    verdict = answeredBy
    out.push({ _tag: "Verdict", answeredBy, at, reason })
  }

  const push = (frame: Int16Array, at: number): ReadonlyArray<DetectorEvent> => {
    const out: Array<DetectorEvent> = []
    startedAt ??= at
    const frameMs = (frame.length * 1_000) / RATE
    const loud = rms(frame) >= settings.speechRms
    const found = loud ? dominantTone(frame) : undefined
    const tonal = found !== undefined && found.share >= settings.toneShare

    // the beep: a run of tonal frames at one frequency
    if (tonal && tone !== undefined && Math.abs(found.hz - tone.hz) <= 50) {
      tone.until = at + frameMs
    } else {
      if (tone !== undefined) {
        const durationMs = tone.until - tone.from
        if (durationMs >= settings.beepMinMs && durationMs <= settings.beepMaxMs) {
          if (verdict === undefined) decide("machine", tone.until, "a beep", out)
          out.push({ _tag: "Beep", at: tone.until, hz: tone.hz, durationMs })
        }
      }
      tone = tonal ? { from: at, hz: found.hz, until: at + frameMs } : undefined
    }

    // the opening: how long the first speech goes on without a pause
    if (verdict === undefined && !tonal) {
      if (loud) {
        if (speechFrom === undefined || (lastSpeechAt !== undefined && at - lastSpeechAt >= settings.pauseMs)) {
          speechFrom ??= at
        }
        lastSpeechAt = at + frameMs
        if (lastSpeechAt - speechFrom >= settings.longGreetingMs) {
          decide("machine", lastSpeechAt, `speech for ${settings.longGreetingMs} ms without a pause`, out)
        }
      } else if (
        speechFrom !== undefined && lastSpeechAt !== undefined && at + frameMs - lastSpeechAt >= settings.pauseMs
      ) {
        decide("human", at + frameMs, `a greeting of ${lastSpeechAt - speechFrom} ms, then a pause`, out)
      } else if (speechFrom === undefined && at + frameMs - startedAt >= settings.silentMs) {
        decide("unknown", at + frameMs, `nothing said for ${settings.silentMs} ms`, out)
      }
    }
    return out
  }

  return { push, verdict: () => verdict }
}

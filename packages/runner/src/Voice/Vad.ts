/**
 * Voice activity: is there speech in this 20 ms frame of the caller's audio, and when does the
 * caller start and stop speaking.
 *
 * The port (`Vad`) classifies frames; `SpeechDetector` (pure) turns the frames' verdicts into
 * onsets and offsets with hysteresis, so a click does not start speech and a breath does not end
 * it. Adapters: WebRTC's VAD compiled to WebAssembly (`@echogarden/fvad-wasm`, BSD-3, 20 KB; about 2
 * µs a frame), the default; and a plain energy detector for unit tests.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { FRAME_MS, SAMPLE_RATE, SAMPLES_PER_FRAME } from "./Audio.js"

/** One call's classifier: stateful, one instance per audio stream. */
export interface VadStream {
  /** Whether the 20 ms frame (160 samples, 8 kHz) holds speech. */
  readonly isSpeech: (frame: Int16Array) => boolean
  readonly close: () => void
}

export class Vad extends Context.Tag("Voice/Vad")<Vad, {
  readonly name: string
  readonly open: Effect.Effect<VadStream>
}>() {}

// ---------------------------------------------------------------------------
// Energy: speech is a frame loud enough (tests, and a fallback)
// ---------------------------------------------------------------------------

/** RMS of a frame, in 16-bit units. */
export const rms = (frame: Int16Array): number => {
  let sum = 0
  for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!
  return Math.sqrt(sum / Math.max(1, frame.length))
}

export const energyVad = (threshold = 500) =>
  Layer.succeed(Vad, {
    name: "energy",
    open: Effect.succeed<VadStream>({ isSpeech: (frame) => rms(frame) >= threshold, close: () => {} })
  })

// ---------------------------------------------------------------------------
// WebRTC VAD (fvad)
// ---------------------------------------------------------------------------

interface FvadModule {
  readonly _fvad_new: () => number
  readonly _fvad_free: (instance: number) => void
  readonly _fvad_set_mode: (instance: number, mode: number) => number
  readonly _fvad_set_sample_rate: (instance: number, rate: number) => number
  readonly _fvad_process: (instance: number, frame: number, length: number) => number
  readonly _malloc: (bytes: number) => number
  readonly _free: (pointer: number) => void
  readonly HEAP16: Int16Array
}

let fvadModule: Promise<FvadModule> | undefined

/**
 * WebRTC's VAD at 8 kHz; `mode` 0 (least aggressive) to 3 (most aggressive in calling noise not
 * speech). Mode 3 suits telephone audio with line noise.
 */
export const webrtcVad = (mode: 0 | 1 | 2 | 3 = 3) =>
  Layer.effect(
    Vad,
    Effect.gen(function*() {
      const m = yield* Effect.promise(() => (fvadModule ??= import("@echogarden/fvad-wasm").then((x) =>
        (x.default as () => Promise<FvadModule>)()
      )))
      return {
        name: "webrtc",
        open: Effect.sync((): VadStream => {
          const instance = m._fvad_new()
          m._fvad_set_mode(instance, mode)
          m._fvad_set_sample_rate(instance, SAMPLE_RATE)
          const buffer = m._malloc(SAMPLES_PER_FRAME * 2)
          let closed = false
          return {
            isSpeech: (frame) => {
              if (closed || frame.length !== SAMPLES_PER_FRAME) return false
              m.HEAP16.set(frame, buffer >> 1)
              return m._fvad_process(instance, buffer, SAMPLES_PER_FRAME) === 1
            },
            close: () => {
              if (closed) return
              closed = true
              m._free(buffer)
              m._fvad_free(instance)
            }
          }
        })
      }
    })
  )

// ---------------------------------------------------------------------------
// Onsets and offsets
// ---------------------------------------------------------------------------

export interface DetectorSettings {
  /** Speech frames within `windowMs` that start speech (ms of speech). */
  readonly startMs: number
  /** The window the start is counted in. */
  readonly windowMs: number
  /** Silence that ends speech (ms). */
  readonly stopMs: number
}

export const defaultDetector: DetectorSettings = { startMs: 60, windowMs: 200, stopMs: 300 }

export type SpeechChange = { readonly _tag: "Started"; readonly at: number } | {
  readonly _tag: "Ended"
  readonly at: number
}

export interface DetectorState {
  readonly speaking: boolean
  /** The speech frames' times within the start window. */
  readonly recent: ReadonlyArray<{ readonly at: number; readonly speech: boolean }>
  /** Start of the silence while speaking. */
  readonly silentSince: number | null
  /** When the last speech frame ended. */
  readonly lastSpeechAt: number | null
}

export const initialDetector: DetectorState = { speaking: false, recent: [], silentSince: null, lastSpeechAt: null }

/**
 * The next state after a frame that began at `at` (ms), and the change it makes: speech starts at
 * its first speech frame once `startMs` of speech fall within `windowMs`, and ends where the speech
 * stopped once `stopMs` of silence followed. Called for every frame of every call: a frame that
 * changes nothing (silence while quiet, silence after silence) gives back the same state.
 */
export const detect = (
  state: DetectorState,
  speech: boolean,
  at: number,
  settings: DetectorSettings = defaultDetector
): { readonly state: DetectorState; readonly change: SpeechChange | null } => {
  if (!state.speaking) {
    const from = at - settings.windowMs
    const kept = state.recent.length > 0 && state.recent[0]!.at <= from
      ? state.recent.filter((f) => f.at > from)
      : state.recent
    if (!speech) return { state: kept === state.recent ? state : { ...state, recent: kept }, change: null }
    const recent = [...kept, { at, speech }]
    if (recent.length * FRAME_MS >= settings.startMs) {
      return {
        state: { speaking: true, recent: [], silentSince: null, lastSpeechAt: at + FRAME_MS },
        change: { _tag: "Started", at: recent[0]!.at }
      }
    }
    return { state: { ...state, recent }, change: null }
  }
  if (speech) return { state: { ...state, silentSince: null, lastSpeechAt: at + FRAME_MS }, change: null }
  const silentSince = state.silentSince ?? at
  if (at + FRAME_MS - silentSince >= settings.stopMs) {
    return { state: initialDetector, change: { _tag: "Ended", at: state.lastSpeechAt ?? silentSince } }
  }
  return { state: silentSince === state.silentSince ? state : { ...state, silentSince }, change: null }
}

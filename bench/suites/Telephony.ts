/**
 * Per-frame cost of what the telephony features add to a call's audio path, in this process on
 * recorded audio (no database, no network), against the work every call already does on each
 * frame: WebRTC's VAD (the engine's onset detector) and μ-law encoding.
 *
 * - Voicemail detection: `MachineDetector.push` on a machine's greeting and beep (the detector's
 *   busiest case: it runs until a verdict, and looks for the beep after).
 * - Recording: the recorder's timeline (caller frames and the agent's audio on one clock) and the
 *   stereo interleaving, at 8 kHz (phone) and 16 kHz (web, upsampled).
 * - DTMF: the agent's key tones generated, and read back by the Goertzel detector the tests use.
 */
import { makeInterleaver, makeTimeline } from "@voiceagent/runner/Recordings/CallRecorder"
import { machineWithBeep } from "@voiceagent/runner/Testing/MachineAudio"
import { FRAME_MS, mulawEncode, SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import { detectDigits, dtmfTones } from "@voiceagent/runner/Voice/Dtmf"
import { makeMachineDetector } from "@voiceagent/runner/Voice/MachineDetector"
import { Vad, webrtcVad } from "@voiceagent/runner/Voice/Vad"
import * as Effect from "effect/Effect"
import { type Row, write } from "../lib/Report.js"

const SAMPLES = (SAMPLE_RATE / 1000) * FRAME_MS
const ROUNDS = 200

const framesOf = (pcm: Int16Array): ReadonlyArray<Int16Array> =>
  Array.from({ length: Math.floor(pcm.length / SAMPLES) }, (_, i) => pcm.subarray(i * SAMPLES, (i + 1) * SAMPLES))

/** Median µs per frame of `round` over `frames`, `ROUNDS` rounds after 20 of warm-up. */
const perFrame = (frames: number, round: () => void): number => {
  for (let i = 0; i < 20; i++) round()
  const times: Array<number> = []
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now()
    round()
    times.push(((performance.now() - started) * 1000) / frames)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}

export const notes = [
  `Telephony per-frame costs: in the bench process, ${ROUNDS} rounds over recorded audio (a machine's greeting and a ` +
  `500 ms, 1 kHz beep rendered from the caller fixtures), median µs per 20 ms frame; 'vs VAD' divides by WebRTC's ` +
  `VAD (mode 3) on the same frames in the same run, the per-frame work every call already does; μ-law encoding of ` +
  `the same frames is shown for scale. A frame is 20 ms of audio: 1 µs per frame is 0.005% of a core per call.`
]

export const run = async (backend: { readonly name: string }): Promise<Array<Row>> => {
  if (backend.name !== "pglite") return []
  const audio = await Effect.runPromise(machineWithBeep(500, 1_000))
  const frames = framesOf(audio)
  const vad = await Effect.runPromise(Effect.flatMap(Vad, (v) => v.open).pipe(Effect.provide(webrtcVad())))
  const vadUs = perFrame(frames.length, () => {
    for (const frame of frames) vad.isSpeech(frame)
  })
  vad.close()
  const mulawUs = perFrame(frames.length, () => {
    for (const frame of frames) mulawEncode(frame)
  })
  const detectorUs = perFrame(frames.length, () => {
    const detector = makeMachineDetector()
    frames.forEach((frame, i) => detector.push(frame, i * FRAME_MS))
  })
  const recorderUs = (sampleRate: number) =>
    perFrame(frames.length, () => {
      const interleave = makeInterleaver(sampleRate, () => {})
      const timeline = makeTimeline(interleave)
      timeline.restart(0)
      frames.forEach((pcm, i) => {
        timeline.caller({ pcm, at: i * FRAME_MS }, i * FRAME_MS)
        timeline.played(pcm, i * FRAME_MS)
      })
      timeline.end(frames.length * FRAME_MS)
    })
  const keys = "24321#"
  const tones = dtmfTones(keys)
  const toneFrames = Math.floor(tones.length / SAMPLES)
  if (detectDigits(tones) !== keys) throw new Error("the DTMF detector did not read the tones back")
  const generateUs = perFrame(toneFrames, () => void dtmfTones(keys))
  const readUs = perFrame(toneFrames, () => void detectDigits(tones))

  const suite = "telephony: per-frame cost on the audio path (in process)"
  const row = (name: string, us: number) => ({
    suite,
    case: name,
    backend: "none",
    metrics: {
      frames: frames.length,
      "µs/frame": us.toFixed(2),
      "vs VAD": (us / vadUs).toFixed(2),
      "% of a core per call": ((us / 20_000) * 100).toFixed(3)
    }
  })
  const rows: Array<Row> = [
    row("WebRTC VAD (baseline, every call)", vadUs),
    row("μ-law encoding (every call, for scale)", mulawUs),
    row("voicemail detector, greeting and beep", detectorUs),
    row("recorder, 8 kHz stereo (phone)", recorderUs(SAMPLE_RATE)),
    row("recorder, 16 kHz stereo (web, upsampled)", recorderUs(16_000)),
    {
      ...row("DTMF tones generated (per tone frame)", generateUs),
      metrics: { ...row("", generateUs).metrics, frames: toneFrames }
    },
    {
      ...row("DTMF read back, Goertzel (per tone frame)", readUs),
      metrics: { ...row("", readUs).metrics, frames: toneFrames }
    }
  ]
  write(rows, notes, "telephony")
  return rows
}

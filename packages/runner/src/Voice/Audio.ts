/**
 * Telephone audio: 8 kHz, mono, 16-bit PCM inside the platform; G.711 μ-law on the wire (Twilio's
 * media streams, Deepgram's `encoding=mulaw`, ElevenLabs' `ulaw_8000`), in 20 ms frames of 160
 * samples. μ-law through `alawmulaw` (MIT); other rates (speech engines give 16, 22.05 or 24 kHz)
 * through the Speex resampler compiled to WebAssembly (`@echogarden/speex-resampler-wasm`, BSD-3).
 */
import alawmulaw from "alawmulaw"
import * as Effect from "effect/Effect"

const { mulaw } = alawmulaw

export const SAMPLE_RATE = 8_000
export const FRAME_MS = 20
export const SAMPLES_PER_FRAME = (SAMPLE_RATE * FRAME_MS) / 1_000

/** Milliseconds of 8 kHz audio in `samples` samples. */
export const durationMs = (samples: number): number => (samples * 1_000) / SAMPLE_RATE

export const mulawEncode = (pcm: Int16Array): Uint8Array => mulaw.encode(pcm)
export const mulawDecode = (bytes: Uint8Array): Int16Array => mulaw.decode(bytes)

/** `audio` cut into 20 ms frames; the last is padded with silence. */
export const frames = (pcm: Int16Array): ReadonlyArray<Int16Array> => {
  const out: Array<Int16Array> = []
  for (let start = 0; start < pcm.length; start += SAMPLES_PER_FRAME) {
    const frame = new Int16Array(SAMPLES_PER_FRAME)
    frame.set(pcm.subarray(start, Math.min(pcm.length, start + SAMPLES_PER_FRAME)))
    out.push(frame)
  }
  return out
}

export const concat = (chunks: ReadonlyArray<Int16Array>): Int16Array => {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

/** Little-endian 16-bit PCM bytes as samples (copied: `bytes` may be unaligned). */
export const pcmFromBytes = (bytes: Uint8Array): Int16Array => {
  const samples = new Int16Array(Math.floor(bytes.length / 2))
  for (let i = 0; i < samples.length; i++) samples[i] = bytes[2 * i]! | (bytes[2 * i + 1]! << 8)
  return samples
}

/** A WAV file's PCM (16-bit, mono) and rate; undefined when it is not one. */
export const readWav = (file: Uint8Array): { readonly pcm: Int16Array; readonly sampleRate: number } | undefined => {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const text = (at: number) => String.fromCharCode(...file.subarray(at, at + 4))
  if (file.length < 12 || text(0) !== "RIFF" || text(8) !== "WAVE") return undefined
  let at = 12
  let sampleRate = 0
  let bits = 0
  let channels = 0
  while (at + 8 <= file.length) {
    const id = text(at)
    const size = view.getUint32(at + 4, true)
    if (id === "fmt ") {
      channels = view.getUint16(at + 10, true)
      sampleRate = view.getUint32(at + 12, true)
      bits = view.getUint16(at + 22, true)
    } else if (id === "data") {
      if (bits !== 16 || channels !== 1 || sampleRate === 0) return undefined
      return { pcm: pcmFromBytes(file.subarray(at + 8, Math.min(file.length, at + 8 + size))), sampleRate }
    }
    at += 8 + size + (size % 2)
  }
  return undefined
}

/** A mono 16-bit WAV file of `pcm` (recordings, fixtures, per-utterance transcription uploads). */
export const writeWav = (pcm: Int16Array, sampleRate: number = SAMPLE_RATE): Uint8Array => {
  const data = pcm.length * 2
  const file = new Uint8Array(44 + data)
  const view = new DataView(file.buffer)
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => (file[at + i] = c.charCodeAt(0)))
  ascii(0, "RIFF")
  view.setUint32(4, 36 + data, true)
  ascii(8, "WAVE")
  ascii(12, "fmt ")
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, 1, true)
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * 2, true)
  view.setUint16(32, 2, true)
  view.setUint16(34, 16, true)
  ascii(36, "data")
  view.setUint32(40, data, true)
  for (let i = 0; i < pcm.length; i++) view.setInt16(44 + 2 * i, pcm[i]!, true)
  return file
}

// ---------------------------------------------------------------------------
// Resampling
// ---------------------------------------------------------------------------

interface SpeexModule {
  readonly _speex_resampler_init: (
    channels: number,
    inRate: number,
    outRate: number,
    quality: number,
    err: number
  ) => number
  readonly _speex_resampler_process_int: (
    st: number,
    channel: number,
    input: number,
    inLen: number,
    output: number,
    outLen: number
  ) => number
  readonly _speex_resampler_destroy: (st: number) => void
  readonly _malloc: (bytes: number) => number
  readonly _free: (pointer: number) => void
  readonly HEAP16: Int16Array
  readonly HEAPU32: Uint32Array
}

let speex: Promise<SpeexModule> | undefined

const loadSpeex = (): Promise<
  SpeexModule
> => (speex ??= import("@echogarden/speex-resampler-wasm").then((m) => (m.default as () => Promise<SpeexModule>)()))

/**
 * Converts `pcm` at `fromRate` to 8 kHz (quality 5 of 10: Speex's default for voice). One call per
 * piece of audio: a speech engine's whole segment, not frame by frame.
 */
export const resampleTo8k = (pcm: Int16Array, fromRate: number): Effect.Effect<Int16Array> => {
  if (fromRate === SAMPLE_RATE || pcm.length === 0) return Effect.succeed(pcm)
  return Effect.promise(async () => {
    const m = await loadSpeex()
    const state = m._speex_resampler_init(1, fromRate, SAMPLE_RATE, 5, 0)
    const outCapacity = Math.ceil((pcm.length * SAMPLE_RATE) / fromRate) + 64
    const input = m._malloc(pcm.length * 2)
    const output = m._malloc(outCapacity * 2)
    const lengths = m._malloc(8)
    try {
      m.HEAP16.set(pcm, input >> 1)
      m.HEAPU32[lengths >> 2] = pcm.length
      m.HEAPU32[(lengths >> 2) + 1] = outCapacity
      m._speex_resampler_process_int(state, 0, input, lengths, output, lengths + 4)
      const written = m.HEAPU32[(lengths >> 2) + 1]!
      return m.HEAP16.slice(output >> 1, (output >> 1) + written)
    } finally {
      m._free(input)
      m._free(output)
      m._free(lengths)
      m._speex_resampler_destroy(state)
    }
  })
}

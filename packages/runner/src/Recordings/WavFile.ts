/**
 * A 16-bit PCM WAV file written as it grows: a header with sizes of zero first, the audio appended
 * in blocks (about a second at a time, so a call's audio is never all in memory and the event loop
 * never waits on the disk), and the header's sizes written when it is finished. A file that was
 * never finished (the process died) keeps sizes of zero; its audio is there all the same.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"

export const WAV_HEADER_BYTES = 44

/** The 44-byte header of a PCM16 WAV file with `dataBytes` of audio. */
export const wavHeader = (channels: number, sampleRate: number, dataBytes: number): Uint8Array => {
  const header = new Uint8Array(WAV_HEADER_BYTES)
  const view = new DataView(header.buffer)
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => (header[at + i] = c.charCodeAt(0)))
  ascii(0, "RIFF")
  view.setUint32(4, 36 + dataBytes, true)
  ascii(8, "WAVE")
  ascii(12, "fmt ")
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true)
  view.setUint16(22, channels, true)
  view.setUint32(24, sampleRate, true)
  view.setUint32(28, sampleRate * channels * 2, true)
  view.setUint16(32, channels * 2, true)
  view.setUint16(34, 16, true)
  ascii(36, "data")
  view.setUint32(40, dataBytes, true)
  return header
}

/** A WAV file's format and its channels' samples; undefined when it is not a PCM16 WAV file. */
export const parseWav = (file: Uint8Array): {
  readonly channels: number
  readonly sampleRate: number
  /** What the header says the data is (0 for a file never finished). */
  readonly declaredDataBytes: number
  readonly declaredRiffBytes: number
  readonly samples: ReadonlyArray<Int16Array>
} | undefined => {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const text = (at: number) => String.fromCharCode(...file.subarray(at, at + 4))
  if (
    file.length < WAV_HEADER_BYTES || text(0) !== "RIFF" || text(8) !== "WAVE" || text(12) !== "fmt " ||
    text(36) !== "data"
  ) {
    return undefined
  }
  const channels = view.getUint16(22, true)
  const sampleRate = view.getUint32(24, true)
  if (view.getUint16(20, true) !== 1 || view.getUint16(34, true) !== 16 || channels === 0) return undefined
  const frames = Math.floor((file.length - WAV_HEADER_BYTES) / (2 * channels))
  const samples = Array.from({ length: channels }, () => new Int16Array(frames))
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) samples[c]![i] = view.getInt16(WAV_HEADER_BYTES + 2 * (i * channels + c), true)
  }
  return {
    channels,
    sampleRate,
    declaredDataBytes: view.getUint32(40, true),
    declaredRiffBytes: view.getUint32(4, true),
    samples
  }
}

/** Audio appended this size at a time (about a second of 8 kHz stereo). */
const BLOCK_BYTES = 32_768

export interface WavFileWriter {
  /** Appends interleaved samples (synchronous: the bytes are copied, and written when a block is full). */
  readonly append: (interleaved: Int16Array) => void
  /** Audio appended so far, in bytes. */
  readonly dataBytes: () => number
  /** Writes what is left and the header's sizes, and closes the file: its size in bytes. */
  readonly finish: Effect.Effect<number, Error>
  /** Closes the file and removes it. */
  readonly discard: Effect.Effect<void>
}

/**
 * Starts `file` (and its directory) with a header of sizes zero. Nothing waits for the disk: the
 * file is created and written in the background, one write after another, and a failure (the
 * directory cannot be made, the disk is full) stops the writes and is what `finish` answers.
 */
export const openWavFile = (file: string, channels: number, sampleRate: number): Effect.Effect<WavFileWriter> =>
  Effect.sync(() => {
    let failure: unknown
    const fail = (error: unknown) => {
      failure ??= error
    }
    const handle: Promise<fs.FileHandle | undefined> = fs.mkdir(path.dirname(file), { recursive: true })
      .then(() => fs.open(file, "w"))
      .catch((error) => (fail(error), undefined))
    /** Runs `write` on the file after everything before it, unless something failed. */
    const after = (previous: Promise<void>, write: (file: fs.FileHandle) => Promise<unknown>): Promise<void> =>
      previous.then(() => handle).then((h) => h === undefined || failure !== undefined ? undefined : write(h)).then(
        () => undefined,
        fail
      )
    let written = after(Promise.resolve(), (h) => h.write(wavHeader(channels, sampleRate, 0), 0, WAV_HEADER_BYTES, 0))
    let block = Buffer.allocUnsafe(BLOCK_BYTES)
    let used = 0
    let total = 0
    let position = WAV_HEADER_BYTES
    const flush = () => {
      if (used === 0) return
      const out = block.subarray(0, used)
      const at = position
      position += used
      block = Buffer.allocUnsafe(BLOCK_BYTES)
      used = 0
      written = after(written, (h) => h.write(out, 0, out.length, at))
    }
    let ended = false
    let closed = false
    const close = Effect.promise(() =>
      closed ? Promise.resolve() : (closed = true, handle.then((h) => h?.close()).catch(() => undefined))
    )
    return {
      append: (interleaved) => {
        if (ended) return
        const bytes = Buffer.from(interleaved.buffer, interleaved.byteOffset, interleaved.byteLength)
        let from = 0
        while (from < bytes.length) {
          const n = Math.min(bytes.length - from, BLOCK_BYTES - used)
          // WAV is little-endian, as every platform node runs on
          bytes.copy(block, used, from, from + n)
          used += n
          from += n
          total += n
          if (used === BLOCK_BYTES) flush()
        }
      },
      dataBytes: () => total,
      finish: Effect.gen(function*() {
        ended = true
        flush()
        written = after(written, (h) => h.write(wavHeader(channels, sampleRate, total), 0, WAV_HEADER_BYTES, 0))
        yield* Effect.promise(() => written)
        yield* close
        if (failure !== undefined) return yield* Effect.fail(new Error(`could not write ${file}: ${String(failure)}`))
        return WAV_HEADER_BYTES + total
      }),
      discard: Effect.gen(function*() {
        ended = true
        yield* Effect.promise(() => written)
        yield* close
        yield* Effect.ignore(Effect.tryPromise(() => fs.rm(file, { force: true })))
      })
    }
  })

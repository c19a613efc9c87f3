/**
 * A scripted caller on an in-process line: the simulated carrier's callee, and the testing kit's
 * way to put a conversation through its paces. It is the carrier side of a `MediaSession`: it sends
 * 20 ms frames of the caller's audio (speech from its script, silence otherwise) on Effect's Clock,
 * plays the agent's audio at real-time speed (echoing each mark when the audio before it has played,
 * dropping what is queued on `clear` and echoing the pending marks at once, as Twilio does), and
 * records what the caller actually heard.
 *
 * The script, step by step:
 * - `say(text, {afterAgentMs})`: once the agent has answered what the caller said last (at first: has
 *   greeted) and then been quiet `afterAgentMs` (400 ms by default), says `text`; a caller the agent
 *   does not answer says it after 5 s of silence anyway;
 * - `interrupt(text, {afterAgentStartsMs})`: says `text` while the agent talks, that long into its
 *   current response;
 * - `backchannel(text, {afterAgentStartsMs})`: the same, for "uh-huh" and "okay";
 * - `noise(ms)`: a burst of noise (a cough, a door) while the agent talks, or now;
 * - `pause(ms)`: silence inside a turn (a caller looking up the rest of a number): a `say` right after
 *   it goes on with the turn at once;
 * - `silent(ms)`: says nothing for that long;
 * - `hangUp()`: ends the call.
 *
 * What the caller says is known to the simulation, so it also serves as the call's speech-to-text
 * (`transcripts`): each stretch of speech gives interim words while it plays and a final transcript
 * `sttLagMs` after it ends. Audio comes from `voice`: rendered fixtures, or Flite at run time.
 */
import type { SessionId } from "@voiceagent/domain/Calls"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { CallerStep } from "../Ports/CallerScript.js"
import { concat, durationMs, FRAME_MS, frames, mulawEncode, SAMPLE_RATE, SAMPLES_PER_FRAME } from "./Audio.js"
import { makeAudioInlet, MediaEvent, type MediaSession } from "./Media.js"
import { type SpeechToTextError, SttEvent, type SttStream } from "./SpeechToText.js"
import { rms } from "./Vad.js"
import { makeWakeup, type Wakeup } from "./Wakeup.js"

/** The script's steps (defined in `Ports/CallerScript`, where the telephony port's dial request can carry them). */
export { CallerStep }

export const say = (text: string, options: { readonly afterAgentMs?: number } = {}) =>
  CallerStep.Say({ text, afterAgentMs: options.afterAgentMs ?? 400 })
export const interrupt = (text: string, options: { readonly afterAgentStartsMs: number }) =>
  CallerStep.Interrupt({ text, afterAgentStartsMs: options.afterAgentStartsMs, backchannel: false })
export const backchannel = (text: string, options: { readonly afterAgentStartsMs: number }) =>
  CallerStep.Interrupt({ text, afterAgentStartsMs: options.afterAgentStartsMs, backchannel: true })
export const noise = (ms: number, options: { readonly afterAgentStartsMs?: number } = {}) =>
  CallerStep.Noise({ ms, afterAgentStartsMs: options.afterAgentStartsMs ?? null })
export const pause = (ms: number) => CallerStep.Pause({ ms })
export const press = (
  keys: string,
  options: { readonly afterAgentMs?: number; readonly gapMs?: number; readonly afterAgentStartsMs?: number } = {}
) =>
  CallerStep.Press({
    keys,
    afterAgentMs: options.afterAgentMs ?? 400,
    gapMs: options.gapMs ?? 250,
    afterAgentStartsMs: options.afterAgentStartsMs ?? null
  })
export const silent = (ms: number) => CallerStep.Silent({ ms })
export const hangUp = () => CallerStep.HangUp()
export const machine = (options: { readonly beepMs?: number } = {}) =>
  CallerStep.Machine({ beepMs: options.beepMs ?? 500 })

/** What a simulated answering machine's greeting reads: recorded caller lines run together. */
export const MACHINE_GREETING_LINES: ReadonlyArray<string> = [
  "Hello, who is this?",
  "Sorry, can you repeat that?",
  "Is there anything else I should know?",
  "When are you open on Saturdays?"
]

export const silencePcm = (ms: number): Int16Array => new Int16Array((SAMPLE_RATE * ms) / 1_000)

/** A steady tone: an answering machine's beep (about 1 kHz). */
export const beepTone = (ms: number, hz = 1_000, amplitude = 8_000): Int16Array => {
  const pcm = new Int16Array((SAMPLE_RATE * ms) / 1_000)
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE))
  return pcm
}

/** An answering machine's greeting (`gapMs` between its lines, shorter than a person's pause), then its beep. */
export const machineAudio = (
  voice: CallerVoice,
  options: { readonly beepMs?: number; readonly gapMs?: number; readonly hz?: number } = {}
) =>
  Effect.map(Effect.forEach(MACHINE_GREETING_LINES, voice), (lines) => {
    const beepMs = options.beepMs ?? 500
    // each line without the quiet around it: a recording reads on
    const spoken = lines.map((pcm) => {
      const loud = frames(pcm).flatMap((frame, i) => rms(frame) >= 500 ? [i] : [])
      return loud.length === 0
        ? pcm
        : pcm.subarray(loud[0]! * SAMPLES_PER_FRAME, (loud.at(-1)! + 1) * SAMPLES_PER_FRAME)
    })
    return concat([
      ...spoken.flatMap((line) => [line, silencePcm(options.gapMs ?? 150)]),
      ...(beepMs > 0 ? [silencePcm(300), beepTone(beepMs, options.hz)] : [])
    ])
  })

/** Speech for a line of the script: 8 kHz PCM. */
export type CallerVoice = (text: string) => Effect.Effect<Int16Array>

export interface HeardAudio {
  /** When the chunk started playing (ms, Clock). */
  readonly at: number
  readonly samples: number
}

export interface SimulatedCaller {
  /** The platform's side of the line. */
  readonly media: MediaSession
  /** What the caller's words were, as the call's speech-to-text. */
  readonly transcripts: SttStream
  /** Resolves when the script is done (or the line closed). */
  readonly done: Effect.Effect<void>
  /** The caller hangs up now (the carrier's end of the call). */
  readonly hangUp: (reason?: string) => Effect.Effect<void>
  /** What the caller heard of the agent: each chunk as it played. */
  readonly heard: () => ReadonlyArray<HeardAudio>
  /** Marks echoed, and `clear`s received, with when. */
  readonly log: () => ReadonlyArray<{ readonly event: "clear" | "mark"; readonly at: number; readonly name?: string }>
}

export interface CallerOptions {
  readonly sessionId: SessionId
  readonly script: ReadonlyArray<CallerStep>
  readonly voice: CallerVoice
  /** How long after the caller stops speaking the final transcript comes (ms). */
  readonly sttLagMs?: number
  /**
   * Send no frames while neither side has made a sound for a second (as lines with silence
   * suppression do): a long simulated call costs only its speech. Twilio sends every frame; the
   * engine needs neither.
   */
  readonly suppressSilence?: boolean
}

/** A frame of the caller's audio, with its μ-law encoding. */
interface Frame {
  readonly pcm: Int16Array
  readonly mulaw: Uint8Array
}

/** A frame of digital silence (the same one every time: nobody writes to a frame). */
const SILENCE: Frame = (() => {
  const pcm = new Int16Array(SAMPLES_PER_FRAME)
  return { pcm, mulaw: mulawEncode(pcm) }
})()

/** How long a caller whose words got no answer waits before saying the next line (ms). */
const PATIENCE_MS = 5_000

/** Silence sent after the last sound before a suppressing line goes quiet (ms). */
const HANGOVER_MS = 500

/** `ms` of a rough noise (a cough, a door) at 8 kHz, the same every time. */
export const noiseFrames = (ms: number): Int16Array => {
  const out = new Int16Array((SAMPLE_RATE * ms) / 1_000)
  // a deterministic rough noise: a linear congruential sequence, loud enough to trip a voice detector
  let seed = 12_345
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff
    out[i] = ((seed % 16_000) - 8_000) * (i % 80 < 40 ? 1 : 0.5)
  }
  return out
}

/**
 * Starts the caller: it speaks its script into the returned session until its scope closes or it
 * hangs up. Everything runs on the Clock: under `TestClock` a conversation takes no real time.
 */
export const startCaller = (options: CallerOptions): Effect.Effect<SimulatedCaller, never, Scope.Scope> =>
  Effect.gen(function*() {
    const events = yield* Queue.sliding<MediaEvent>(2_000)
    const stt = yield* Queue.unbounded<SttEvent | SpeechToTextError>()
    const clock = yield* Effect.clock
    const start = clock.unsafeCurrentTimeMillis()
    // the caller's audio goes to the engine as each frame is said (`MediaSession.listen`)
    const audio = makeAudioInlet()
    const lag = options.sttLagMs ?? 150
    // the agent's audio queued at the caller, with the marks that follow it
    const queue: Array<{ readonly samples: number; readonly arrived: number } | { readonly mark: string }> = []
    let playingUntil = start
    let lastAgentAudioAt: number | null = null
    let agentStartedAt: number | null = null
    let agentSpoke = false
    /** When the caller's last words ended (noise is not words). */
    let lastWordsAt: number | null = null
    const heard: Array<HeardAudio> = []
    const log: Array<{ event: "clear" | "mark"; at: number; name?: string }> = []
    let open = true
    /** The caller's audio to send, frame by frame (encoded when it is queued), and the words it carries. */
    const outgoing: Array<Frame> = []
    let speakingText: {
      readonly text: string
      readonly words: ReadonlyArray<string>
      readonly frames: number
      sent: number
      readonly final: boolean
      /** Words the agent is to answer (not a backchannel). */
      readonly expectsReply: boolean
    } | null = null

    const now = Clock.currentTimeMillis
    /** Something happened on the line (agent audio, a mark, a clear, words to say): wakes what waits. */
    const changed = yield* makeWakeup
    const lineWake = yield* makeWakeup
    const pokeNow = () => {
      changed.raise()
      lineWake.raise()
    }
    const poke = Effect.sync(pokeNow)
    let lastSoundAt = start

    /** Plays the agent's queued audio up to `t`: echoes marks whose audio has played. */
    const drainNow = (t: number): void => {
      while (queue.length > 0) {
        const head = queue[0]!
        if ("mark" in head) {
          if (playingUntil > t) break
          queue.shift()
          log.push({ event: "mark", at: t, name: head.mark })
          Queue.unsafeOffer(events, MediaEvent.Mark({ name: head.mark, at: t - start }))
          continue
        }
        // it plays right after what was playing, or when it arrived if the line was quiet
        const begins = Math.max(playingUntil, head.arrived)
        if (begins <= t) {
          if (agentStartedAt === null || lastAgentAudioAt === null || begins - lastAgentAudioAt > 100) {
            agentStartedAt = begins
          }
          heard.push({ at: begins, samples: head.samples })
          playingUntil = begins + durationMs(head.samples)
          lastAgentAudioAt = playingUntil
          agentSpoke = true
          queue.shift()
          continue
        }
        break
      }
    }
    const drain = (t: number) => Effect.sync(() => drainNow(t))

    const speaking = (t: number) => playingUntil > t || queue.some((q) => "samples" in q)

    const media: MediaSession = {
      sessionId: options.sessionId,
      streamId: `SIM-${options.sessionId}`,
      events,
      listen: audio.listen,
      play: (pcm) =>
        Effect.sync(() => {
          if (!open) return
          const t = clock.unsafeCurrentTimeMillis()
          queue.push({ samples: pcm.length, arrived: t })
          drainNow(t)
          pokeNow()
        }),
      mark: (name) =>
        Effect.sync(() => {
          if (!open) return
          queue.push({ mark: name })
          drainNow(clock.unsafeCurrentTimeMillis())
          pokeNow()
        }),
      clear: Effect.gen(function*() {
        const t = yield* now
        log.push({ event: "clear", at: t })
        // the audio not yet played is dropped (what was playing stops now); pending marks come back at once
        const pending = queue.filter((q): q is { readonly mark: string } => "mark" in q)
        queue.length = 0
        if (playingUntil > t) {
          const last = heard.at(-1)
          if (last !== undefined && last.at < t) {
            heard[heard.length - 1] = { at: last.at, samples: Math.round(((t - last.at) * SAMPLE_RATE) / 1_000) }
          }
          playingUntil = t
          lastAgentAudioAt = t
        }
        for (const mark of pending) yield* Queue.offer(events, MediaEvent.Mark({ name: mark.mark, at: t - start }))
        yield* poke
      }),
      close: Effect.sync(() => {
        open = false
      })
    }

    /** Queues `pcm` to be sent as the caller's voice, with `text` as its words. */
    const speak = (pcm: Int16Array, text: string, expectsReply = true) =>
      Effect.sync(() => {
        const split = frames(pcm)
        for (const frame of split) outgoing.push({ pcm: frame, mulaw: mulawEncode(frame) })
        speakingText = { text, words: text.split(/\s+/), frames: split.length, sent: 0, final: true, expectsReply }
        pokeNow()
      })

    /** A suppressing line sends nothing now: no words to say and no sound of the caller's for a while. */
    const quiet = (t: number) =>
      options.suppressSilence === true && outgoing.length === 0 && t - lastSoundAt >= HANGOVER_MS

    /** When the agent's queued audio next starts or a mark comes due (`drain` has work), if it does. */
    const nextDrainAt = (): number | undefined => {
      const head = queue[0]
      if (head === undefined) return undefined
      return "mark" in head ? playingUntil : Math.max(playingUntil, head.arrived)
    }

    /**
     * Sleeps until `at` (epoch ms), or until the line changes: a timer wakes it as a change does (a late
     * one only makes the waiter look again), far cheaper than a race on every chunk of the agent's audio.
     */
    const sleepUntil = (at: number | undefined, wake: Wakeup) => at === undefined ? wake.wait : wake.waitUntil(at)

    /** Every 20 ms: a frame of the caller (speech or silence), and the agent's audio played so far. */
    const line = Effect.gen(function*() {
      let frame = 0
      while (open) {
        const t0 = clock.unsafeCurrentTimeMillis()
        if (quiet(t0)) {
          // nothing to send: play the agent's audio as it comes due, and resume frames on the 20 ms grid
          drainNow(t0)
          yield* sleepUntil(nextDrainAt(), lineWake)
          frame = Math.max(frame, Math.ceil((clock.unsafeCurrentTimeMillis() - start) / FRAME_MS))
          continue
        }
        const due = start + frame * FRAME_MS
        if (due > t0) yield* clock.sleep(Duration.millis(due - t0))
        const at = clock.unsafeCurrentTimeMillis()
        drainNow(at)
        const sent = outgoing.shift() ?? SILENCE
        if (sent !== SILENCE) lastSoundAt = at
        if (outgoing.length === 0 && sent !== SILENCE) changed.raise()
        // timed by its place on the line's 20 ms grid, as a carrier stamps its frames: a frame sent late
        // (the process was busy) keeps the time it was due
        audio.push({ mulaw: sent.mulaw, pcm: sent.pcm, at: frame * FRAME_MS })
        const words = speakingText
        if (words !== null && sent !== SILENCE) {
          words.sent++
          const all = words.words
          const shown = Math.floor((all.length * words.sent) / Math.max(1, words.frames))
          if (words.sent % 5 === 0 && shown > 0 && words.sent < words.frames) {
            Queue.unsafeOffer(stt, SttEvent.Interim({ text: all.slice(0, shown).join(" "), at }))
          }
          if (words.sent >= words.frames) {
            speakingText = null
            if (words.text !== "" && words.expectsReply) lastWordsAt = at + FRAME_MS
            if (words.text !== "") {
              yield* Effect.forkScoped(
                Effect.sleep(lag).pipe(
                  Effect.zipRight(
                    Effect.flatMap(
                      now,
                      (t2) => Queue.offer(stt, SttEvent.Final({ text: words.text, speechFinal: words.final, at: t2 }))
                    )
                  )
                )
              )
            }
          }
        }
        frame++
      }
    })

    /**
     * Waits until `condition` holds. It is checked whenever the line changes, when the agent's audio
     * starts or a mark comes due, and at `wakeAt`: the earliest time it could hold otherwise.
     */
    const waitFor = (condition: (t: number) => boolean, wakeAt: (t: number) => number | undefined = () => undefined) =>
      Effect.gen(function*() {
        for (;;) {
          const t = yield* now
          yield* drain(t)
          if (condition(t) || !open) return
          const candidates = [nextDrainAt(), wakeAt(t)].filter((x): x is number => x !== undefined)
          yield* sleepUntil(candidates.length === 0 ? undefined : Math.max(t + 1, Math.min(...candidates)), changed)
        }
      })

    /** While the agent talks: when it will have talked `after` ms into its current response. */
    const intoResponse = (after: number) => (t: number) =>
      speaking(t) && agentStartedAt !== null ? agentStartedAt + after : undefined

    /**
     * Until it is the caller's turn: once the agent has answered what the caller said last (at first:
     * greeted) and then been quiet `afterAgentMs`; a caller left unanswered goes on after a while anyway.
     */
    const takeTurn = (afterAgentMs: number) => {
      const answered = () =>
        lastWordsAt === null ? agentSpoke : agentStartedAt !== null && agentStartedAt >= lastWordsAt
      const patienceAt = () => Math.max(lastWordsAt ?? start, lastAgentAudioAt ?? start) + PATIENCE_MS
      const readyAt = () =>
        lastAgentAudioAt === null
          ? patienceAt()
          : answered()
          ? lastAgentAudioAt + afterAgentMs
          : Math.max(lastAgentAudioAt + afterAgentMs, patienceAt())
      return waitFor((t) => !speaking(t) && t >= readyAt(), (t) => speaking(t) ? undefined : readyAt())
    }

    const idle = Effect.gen(function*() {
      // until its words are out
      yield* waitFor(() => outgoing.length === 0)
    })

    const hangUpNow = (reason = "the caller hung up") =>
      Effect.gen(function*() {
        if (!open) return
        open = false
        yield* Queue.offer(events, MediaEvent.Stopped({ at: (yield* now) - start, reason }))
        yield* poke
      })

    const script = Effect.gen(function*() {
      let previous: CallerStep | undefined
      for (const step of options.script) {
        if (!open) return
        const before = previous
        previous = step
        switch (step._tag) {
          case "Press": {
            yield* idle
            const over = step.afterAgentStartsMs
            if (over === null) yield* takeTurn(step.afterAgentMs)
            else {yield* waitFor((t) =>
                speaking(t) && agentStartedAt !== null && t - agentStartedAt >= over, intoResponse(over))}
            for (const key of step.keys) {
              if (!open) return
              yield* Queue.offer(events, MediaEvent.Dtmf({ digit: key, at: (yield* now) - start }))
              yield* Effect.sleep(step.gapMs)
            }
            lastWordsAt = yield* now
            break
          }
          case "Say": {
            yield* idle
            // after a pause, the same turn goes on at once (the rest of a number)
            if (before?._tag !== "Pause") yield* takeTurn(step.afterAgentMs)
            yield* speak(yield* options.voice(step.text), step.text)
            break
          }
          case "Interrupt": {
            yield* idle
            yield* waitFor(
              (t) => speaking(t) && agentStartedAt !== null && t - agentStartedAt >= step.afterAgentStartsMs,
              intoResponse(step.afterAgentStartsMs)
            )
            yield* speak(yield* options.voice(step.text), step.text, !step.backchannel)
            break
          }
          case "Noise": {
            yield* idle
            if (step.afterAgentStartsMs !== null) {
              const after = step.afterAgentStartsMs
              yield* waitFor(
                (t) => speaking(t) && agentStartedAt !== null && t - agentStartedAt >= after,
                intoResponse(after)
              )
            }
            yield* speak(noiseFrames(step.ms), "", false)
            break
          }
          case "Pause": {
            yield* idle
            yield* Effect.sleep(step.ms)
            break
          }
          case "Silent": {
            yield* idle
            yield* Effect.sleep(step.ms)
            break
          }
          case "HangUp": {
            yield* idle
            yield* hangUpNow()
            return
          }
          case "Machine": {
            // a machine does not wait for the agent: it plays as it picks up
            yield* speak(yield* machineAudio(options.voice, { beepMs: step.beepMs }), "", false)
            break
          }
        }
      }
      yield* idle
    })

    yield* Effect.forkScoped(line)
    const scripted = yield* Effect.forkScoped(script)

    const transcripts: SttStream = {
      push: () => {},
      finalize: Effect.void,
      events: stt
    }
    return {
      media: { ...media, transcripts },
      transcripts,
      done: Effect.asVoid(Fiber.await(scripted)),
      hangUp: hangUpNow,
      heard: () => heard.slice(),
      log: () => log.slice()
    }
  })

// ---------------------------------------------------------------------------
// Scripts in a call's metadata
// ---------------------------------------------------------------------------

/** What a simulated callee says when the call's metadata scripts nothing: it keeps the conversation going. */
export const ENGAGED_LINES: ReadonlyArray<string> = [
  "Hello?",
  "Who is calling, please?",
  "Can you tell me a bit more?",
  "How does that work?",
  "What would it cost me?",
  "Is there anything else I should know?"
]

/** A callee who talks with the agent for as long as the call lasts (`seconds`), never ending it. */
export const engagedScript = (seconds: number): ReadonlyArray<CallerStep> =>
  Array.from(
    { length: Math.max(1, Math.ceil(seconds / 3)) },
    (_, i) => say(ENGAGED_LINES[i % ENGAGED_LINES.length]!, { afterAgentMs: 600 })
  )

const int = (value: unknown, min: number, max: number): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max ? value : undefined

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" && value.length <= 500 ? value.trim() : undefined

/**
 * A caller script from a call's metadata: `simulatedCaller`, a list of steps (`{"say": "…", "afterAgentMs"?}`,
 * `{"interrupt": "…", "afterAgentStartsMs"}`, `{"backchannel": "…", "afterAgentStartsMs"}`, `{"noise": ms,
 * "afterAgentStartsMs"?}`, `{"press": "12#", "afterAgentMs"?, "gapMs"?}`, `{"pause": ms}`, `{"silent": ms}`,
 * `{"hangUp": true}`, `{"machine": true, "beepMs"?}`: an answering machine's greeting and beep), or
 * `simulatedCallerLines`, lines said in turn. `undefined` when there is neither; `problems` names the steps left out.
 */
export const scriptFromMetadata = (
  metadata: { readonly [key: string]: unknown }
): { readonly script: ReadonlyArray<CallerStep>; readonly problems: ReadonlyArray<string> } | undefined => {
  const steps = metadata["simulatedCaller"]
  if (Array.isArray(steps)) {
    const script: Array<CallerStep> = []
    const problems: Array<string> = []
    steps.slice(0, 200).forEach((raw, i) => {
      const step = typeof raw === "object" && raw !== null ? raw as Record<string, unknown> : {}
      const after = int(step["afterAgentStartsMs"], 0, 600_000)
      const parsed = text(step["say"]) !== undefined
        ? say(
          text(step["say"])!,
          int(step["afterAgentMs"], 0, 600_000) === undefined
            ? {}
            : { afterAgentMs: int(step["afterAgentMs"], 0, 600_000)! }
        )
        : text(step["interrupt"]) !== undefined && after !== undefined
        ? interrupt(text(step["interrupt"])!, { afterAgentStartsMs: after })
        : text(step["backchannel"]) !== undefined && after !== undefined
        ? backchannel(text(step["backchannel"])!, { afterAgentStartsMs: after })
        : int(step["noise"], 20, 10_000) !== undefined
        ? noise(int(step["noise"], 20, 10_000)!, after === undefined ? {} : { afterAgentStartsMs: after })
        : typeof step["press"] === "string" && /^[0-9*#A-D]{1,32}$/.test(step["press"])
        ? press(step["press"], {
          ...(int(step["afterAgentMs"], 0, 600_000) === undefined
            ? {}
            : { afterAgentMs: int(step["afterAgentMs"], 0, 600_000)! }),
          ...(int(step["gapMs"], 0, 10_000) === undefined ? {} : { gapMs: int(step["gapMs"], 0, 10_000)! }),
          ...(after === undefined ? {} : { afterAgentStartsMs: after })
        })
        : int(step["pause"], 0, 60_000) !== undefined
        ? pause(int(step["pause"], 0, 60_000)!)
        : int(step["silent"], 0, 3_600_000) !== undefined
        ? silent(int(step["silent"], 0, 3_600_000)!)
        : step["hangUp"] === true
        ? hangUp()
        : step["machine"] === true
        ? machine(int(step["beepMs"], 0, 1_500) === undefined ? {} : { beepMs: int(step["beepMs"], 0, 1_500)! })
        : undefined
      if (parsed === undefined) problems.push(`simulatedCaller[${i}] is not a step`)
      else script.push(parsed)
    })
    return { script, problems }
  }
  const lines = metadata["simulatedCallerLines"]
  if (Array.isArray(lines) && lines.length > 0) {
    const said = lines.map(text)
    return {
      script: said.filter((l): l is string => l !== undefined).map((l) => say(l)),
      problems: said.flatMap((l, i) => l === undefined ? [`simulatedCallerLines[${i}] is not a line`] : [])
    }
  }
  return undefined
}

/** A script as a call's `metadata.simulatedCaller` (see `scriptFromMetadata`). */
export const scriptToMetadata = (script: ReadonlyArray<CallerStep>): ReadonlyArray<Record<string, unknown>> =>
  script.map((step) => {
    switch (step._tag) {
      case "Say":
        return { say: step.text, afterAgentMs: step.afterAgentMs }
      case "Interrupt":
        return step.backchannel
          ? { backchannel: step.text, afterAgentStartsMs: step.afterAgentStartsMs }
          : { interrupt: step.text, afterAgentStartsMs: step.afterAgentStartsMs }
      case "Noise":
        return step.afterAgentStartsMs === null
          ? { noise: step.ms }
          : { noise: step.ms, afterAgentStartsMs: step.afterAgentStartsMs }
      case "Pause":
        return { pause: step.ms }
      case "Press":
        return step.afterAgentStartsMs === null
          ? { press: step.keys, afterAgentMs: step.afterAgentMs, gapMs: step.gapMs }
          : { press: step.keys, afterAgentStartsMs: step.afterAgentStartsMs, gapMs: step.gapMs }
      case "Silent":
        return { silent: step.ms }
      case "HangUp":
        return { hangUp: true }
      case "Machine":
        return { machine: true, beepMs: step.beepMs }
    }
  })

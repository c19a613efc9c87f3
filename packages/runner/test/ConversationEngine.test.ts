import { assert, describe, it } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import { type ConversationSettings, defaultSettings, type Message } from "@voiceagent/domain/Conversation"
import { endpointDelay } from "@voiceagent/domain/TurnPolicy"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import { type EngineReport, runConversation } from "@voiceagent/runner/Voice/Engine"
import { type LanguageModelProvider, LlmChunk } from "@voiceagent/runner/Voice/LanguageModel"
import { type AudioFrame, makeAudioInlet, type MediaSession } from "@voiceagent/runner/Voice/Media"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import { SpeechPart, type TtsSession } from "@voiceagent/runner/Voice/TextToSpeech"
import { rms } from "@voiceagent/runner/Voice/Vad"
import { Effect, type Scope, Stream } from "effect"

/** A voiced sound as long as the text (60 ms a character): speech enough for a voice detector. */
const voiced = (text: string, hz = 140): Int16Array => {
  const pcm = new Int16Array(Math.round((SAMPLE_RATE * 60 * Math.max(1, text.length)) / 1_000))
  for (let i = 0; i < pcm.length; i++) {
    let v = 0
    for (let h = 1; h <= 8; h++) v += Math.sin((2 * Math.PI * hz * h * i) / SAMPLE_RATE) / h
    pcm[i] = Math.round(5_000 * v)
  }
  return pcm
}

/** Speech at 60 ms a character, with each word's end, in one piece. */
const tts: TtsSession = {
  synthesize: (text) => {
    const pcm = voiced(text, 220)
    const ends: Array<number> = []
    for (const match of text.matchAll(/\S+/g)) ends.push((match.index! + match[0].length) * 60)
    return Stream.make(SpeechPart.Audio({ pcm }), SpeechPart.Words({ wordEndsMs: ends }))
  }
}

/** A model that answers by the caller's last words, as a script says. */
const scriptedModel = (
  answers: ReadonlyArray<readonly [RegExp, string]>
): LanguageModelProvider & { readonly asked: Array<ReadonlyArray<Message>> } => {
  const asked: Array<ReadonlyArray<Message>> = []
  return {
    name: "scripted",
    asked,
    stream: (request) => {
      asked.push(request.messages)
      const last = [...request.messages].reverse().find((m) => m.role === "user")
      const answer = answers.find(([pattern]) => last !== undefined && pattern.test(last.content))?.[1] ?? "Sorry?"
      return Stream.fromIterable([
        ...answer.match(/.{1,6}/gs)!.map((text) => LlmChunk.Text({ text })),
        LlmChunk.Done({ finishReason: "stop" })
      ])
    }
  }
}

const energy = { isSpeech: (frame: Int16Array) => rms(frame) > 500, close: () => {} }

/**
 * The caller's line as the engine gets it: each frame passed on as it comes, or held back and given
 * with a later one (a stall), or stamped by a clock of its own; `onsets` are when each stretch of the
 * caller's sound began (its first frame's time on the TestClock, when the caller sent it).
 */
interface Relay {
  readonly media: MediaSession
  readonly onsets: Array<number>
}

const relay = (
  caller: Caller.SimulatedCaller,
  options: {
    /**
     * Holds back the first `frames` frames of the caller's `utterance`-th
     * stretch of sound (from 0), giving them with the next.
     */
    readonly hold?: { readonly utterance: number; readonly frames: number }
    /** The stream's time of a frame, from its time on the caller's 20 ms grid. */
    readonly stamp?: (at: number) => number
  }
): Effect.Effect<Relay, never, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Effect.clock
    const onsets: Array<number> = []
    const held: Array<AudioFrame> = []
    const out = makeAudioInlet()
    let silentFrames = Number.POSITIVE_INFINITY
    let released = false
    caller.media.listen!((frame) => {
      const loud = rms(frame.pcm) > 500
      if (loud && silentFrames >= 15) onsets.push(clock.unsafeCurrentTimeMillis())
      silentFrames = loud ? 0 : silentFrames + 1
      const stamped = options.stamp === undefined ? frame : { ...frame, at: options.stamp(frame.at) }
      const hold = options.hold
      if (
        hold !== undefined && !released && onsets.length === hold.utterance + 1 && loud && held.length < hold.frames
      ) {
        held.push(stamped)
        return
      }
      if (held.length > 0) released = true
      for (const early of held.splice(0)) out.push(early)
      out.push(stamped)
    })
    return { media: { ...caller.media, listen: out.listen }, onsets }
  })

const converse = (
  script: ReadonlyArray<Caller.CallerStep>,
  model: LanguageModelProvider,
  seconds: number,
  options: { readonly line?: Parameters<typeof relay>[1]; readonly settings?: ConversationSettings } = {}
) =>
  Effect.gen(function*() {
    const reports: Array<EngineReport> = []
    const caller = yield* Caller.startCaller({
      sessionId: "00000000-0000-7000-8000-000000000001" as SessionId,
      script,
      voice: (text) => Effect.succeed(voiced(text))
    })
    const line = yield* relay(caller, options.line ?? {})
    const engine = yield* Effect.fork(Effect.scoped(runConversation({
      media: line.media,
      settings: options.settings ?? defaultSettings("Hello, this is Ada."),
      vad: energy,
      stt: caller.transcripts,
      tts,
      llm: model,
      request: {
        system: "You are Ada.",
        tools: [],
        agent: { tenantId: "t", knowledgeBaseIds: [], metadata: {}, greeting: "Hello, this is Ada." }
      },
      runTool: () => Effect.succeed(""),
      report: (report) => Effect.sync(() => void reports.push(report))
    })))
    yield* TestKit.advance(`${seconds} seconds`)
    return { reports, caller, engine, onsets: line.onsets }
  }).pipe(Effect.scoped, TestKit.onVirtualClock)

describe("the conversation engine, on a simulated line under the TestClock", () => {
  it.effect("greets at once, hears the caller, answers, and records lines with their latencies", () =>
    Effect.gen(function*() {
      const model = scriptedModel([[/open/i, "We open at nine."]])
      const { reports } = yield* converse(
        [Caller.say("When do you open?"), Caller.silent(3_000), Caller.hangUp()],
        model,
        20
      )
      const lines = reports.filter((r) => r._tag === "Line")
      assert.deepStrictEqual(lines.map((l) => [l.speaker, l.text, l.interrupted]), [
        ["agent", "Hello, this is Ada.", false],
        ["customer", "When do you open?", false],
        ["agent", "We open at nine.", false]
      ])
      const first = reports.find((r) => r._tag === "FirstAudio")
      assert.isDefined(first)
      assert.isBelow((first as { afterStartMs: number }).afterStartMs, 300)
      const latency = lines[2]!.latency!
      assert.isNotNull(latency)
      // a finished question: the shortest endpointing wait, and instant providers add nothing
      assert.strictEqual(latency.endpointingMs, 300)
      assert.isAtMost(latency.voiceToVoiceMs, latency.endpointingMs + 40)
      assert.isTrue(reports.some((r) => r._tag === "MediaStopped"))
      assert.deepStrictEqual(model.asked[0]!.at(-1), { role: "user", content: "When do you open?" })
    }))

  it.effect("barge-in: the caller cuts the agent off; the transcript and the context keep the words heard", () =>
    Effect.gen(function*() {
      const model = scriptedModel([
        [
          /plans/i,
          "We have three plans. Basic costs ten dollars a month, plus costs twenty, and pro costs forty nine."
        ],
        [/pro/i, "Pro includes everything."]
      ])
      const { reports, caller } = yield* converse(
        [
          Caller.say("Tell me about your plans"),
          Caller.interrupt("What about pro?", { afterAgentStartsMs: 1_500 }),
          Caller.silent(6_000),
          Caller.hangUp()
        ],
        model,
        30
      )
      const lines = reports.filter((r) => r._tag === "Line")
      const cut = lines.find((l) => l.speaker === "agent" && l.interrupted)
      assert.isDefined(cut, JSON.stringify(lines))
      // 1.5 s in at 60 ms a character: about the first 25 characters were heard
      assert.include("We have three plans. Basic costs ten dollars a month", cut!.text)
      assert.isBelow(cut!.text.length, 40)
      // paused at once, cut off once the words came: the line keeps when it began, and its latency
      assert.isNotNull(cut!.latency)
      assert.isBelow(cut!.at, caller.log().find((e) => e.event === "clear")!.at)
      const barge = reports.find((r) => r._tag === "BargeIn") as { reactionMs: number } | undefined
      assert.isDefined(barge)
      assert.isBelow(barge!.reactionMs, 250)
      assert.isTrue(caller.log().some((e) => e.event === "clear"))
      // the model's next context holds only the heard words, marked as cut off
      const context = model.asked.at(-1)!
      assert.deepInclude(context, { role: "assistant", content: cut!.text, interrupted: true })
      assert.deepStrictEqual(context.at(-1), { role: "user", content: "What about pro?" })
    }))

  for (
    const [what, step] of [
      ["a backchannel", Caller.backchannel("uh-huh", { afterAgentStartsMs: 1_000 })],
      ["a noise burst", Caller.noise(300, { afterAgentStartsMs: 1_000 })]
    ] as const
  ) {
    it.effect(
      `${what} while the agent talks does not interrupt it: it pauses, then goes on from the word it stopped on`,
      () =>
        Effect.gen(function*() {
          const answer = "We have three plans. Basic costs ten dollars a month, and pro costs forty nine."
          const model = scriptedModel([[/plans/i, answer]])
          const { reports, caller } = yield* converse(
            [Caller.say("Tell me about your plans"), step, Caller.silent(8_000), Caller.hangUp()],
            model,
            30
          )
          const lines = reports.filter((r) => r._tag === "Line")
          assert.isFalse(lines.some((l) => l.interrupted), JSON.stringify(lines))
          assert.deepStrictEqual(lines.filter((l) => l.speaker === "agent").map((l) => l.text), [
            "Hello, this is Ada.",
            answer
          ])
          assert.strictEqual(caller.log().filter((e) => e.event === "clear").length, 1, "one pause")
          // resumed after the pause: the line is timed from its first word, and keeps its latency
          const said = lines.find((l) => l.text === answer)!
          assert.isBelow(said.at, caller.log().find((e) => e.event === "clear")!.at)
          assert.isNotNull(said.latency)
          // the caller heard the answer once, give or take the word it paused on: no sentence said twice
          const greeting = "Hello, this is Ada.".length * 60
          const heardMs = caller.heard().reduce((ms, h) => ms + (h.samples * 1_000) / 8_000, 0) - greeting
          assert.approximately(heardMs, answer.length * 60, 700)
          assert.isFalse(
            model.asked.some((context) => context.some((m) => m.role === "assistant" && m.interrupted === true))
          )
        })
    )
  }

  describe("the caller's speech is timed by the stream's clock", () => {
    const plans = "We have three plans. Basic costs ten dollars a month, plus costs twenty, and pro costs forty nine."
    const bargeIn = [
      Caller.say("Tell me about your plans"),
      Caller.interrupt("What about pro?", { afterAgentStartsMs: 1_500 }),
      Caller.silent(6_000),
      Caller.hangUp()
    ]
    /** From the interruption's first sound (when the caller said it) to the clear. */
    const reaction = (caller: Caller.SimulatedCaller, onsets: ReadonlyArray<number>) => {
      const clear = caller.log().find((e) => e.event === "clear")
      assert.isDefined(clear)
      return clear!.at - onsets[1]!
    }

    it.effect("frames that arrive in a burst after a stall still pause the agent at the speech's 200 ms", () =>
      Effect.gen(function*() {
        // the interruption's first 160 ms reach the engine only with the frame after them
        const { reports, caller, onsets } = yield* converse(
          bargeIn,
          scriptedModel([[/plans/i, plans], [/pro/i, "Pro includes everything."]]),
          30,
          {
            line: { hold: { utterance: 1, frames: 8 } }
          }
        )
        // timed by when it arrived, the speech would have begun 160 ms late and the pause come at 360 ms
        const ms = reaction(caller, onsets)
        assert.isAtLeast(ms, 200)
        assert.isBelow(ms, 220)
        const barge = reports.find((r) => r._tag === "BargeIn") as { reactionMs: number } | undefined
        assert.isBelow(barge!.reactionMs, 220)
        const lines = reports.filter((r) => r._tag === "Line")
        assert.isTrue(lines.some((l) => l.speaker === "agent" && l.interrupted), JSON.stringify(lines))
        assert.isTrue(
          lines.some((l) => l.speaker === "customer" && l.text === "What about pro?"),
          JSON.stringify(lines)
        )
      }))

    it.effect(
      "a stream whose clock runs slow against ours (0.1%): ten minutes in, the barge-in and the turn's end are timed " +
        "as at the start",
      () =>
        Effect.gen(function*() {
          const settings = defaultSettings("Hello, this is Ada.")
          const patient = { ...settings, idle: { ...settings.idle, reminderAfterMs: 3_600_000 } }
          // the stream's 20 ms frames are 20.02 ms of ours: 600 ms behind after ten minutes
          const { reports, caller, onsets } = yield* converse(
            [Caller.silent(600_000), ...bargeIn],
            scriptedModel([[/plans/i, plans], [/pro/i, "Pro includes everything."]]),
            630,
            { line: { stamp: (at) => Math.round(at * 0.999) }, settings: patient }
          )
          const ms = reaction(caller, onsets)
          assert.isAtLeast(ms, 195)
          assert.isBelow(ms, 220)
          // the wait counts from the end of the caller's speech, as long as what they said asks for
          const latencies = reports.flatMap((r) =>
            r._tag === "Line" && r.speaker === "agent" && r.latency !== null ? [r.latency.endpointingMs] : []
          )
          assert.deepStrictEqual(latencies, [
            endpointDelay("Tell me about your plans"),
            endpointDelay("What about pro?")
          ])
        }),
      { timeout: 120_000 }
    )
  })
})

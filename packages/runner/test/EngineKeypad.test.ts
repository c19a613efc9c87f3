/**
 * The caller's keys and the agent's, through the conversation engine on a simulated line under the
 * TestClock: entries gathered and answered as turns, keys pressed while the agent talks, and the
 * agent's `send_dtmf` heard as tones on the line (decoded by the Goertzel detector).
 */
import { assert, describe, it } from "@effect/vitest"
import { resolveVoice } from "@voiceagent/domain/AgentVoice"
import type { SessionId } from "@voiceagent/domain/Calls"
import { defaultSettings, type Message } from "@voiceagent/domain/Conversation"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { SAMPLE_RATE } from "@voiceagent/runner/Voice/Audio"
import { concat } from "@voiceagent/runner/Voice/Audio"
import { makeCallTools, parseDigits, parseTransfer } from "@voiceagent/runner/Voice/CallTools"
import { detectDigits } from "@voiceagent/runner/Voice/Dtmf"
import { type EngineReport, runConversation } from "@voiceagent/runner/Voice/Engine"
import { type LanguageModelProvider, LlmChunk, type LlmRequest } from "@voiceagent/runner/Voice/LanguageModel"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import { SpeechPart, type TtsSession } from "@voiceagent/runner/Voice/TextToSpeech"
import { rms } from "@voiceagent/runner/Voice/Vad"
import { Effect, Stream } from "effect"

const voiced = (text: string, hz = 140): Int16Array => {
  const pcm = new Int16Array(Math.round((SAMPLE_RATE * 60 * Math.max(1, text.length)) / 1_000))
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round(5_000 * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE))
  return pcm
}
const tts: TtsSession = { synthesize: (text) => Stream.make(SpeechPart.Audio({ pcm: voiced(text, 220) })) }
const energy = { isSpeech: (frame: Int16Array) => rms(frame) > 500, close: () => {} }

/** A model answering by the last message (a user's words, or a tool's result) as `reply` says. */
const model = (reply: (last: Message, request: LlmRequest) => ReadonlyArray<LlmChunk>) => {
  const asked: Array<ReadonlyArray<Message>> = []
  const provider: LanguageModelProvider = {
    name: "scripted",
    stream: (request) => {
      asked.push(request.messages)
      return Stream.fromIterable([...reply(request.messages.at(-1)!, request), LlmChunk.Done({ finishReason: "stop" })])
    }
  }
  return { provider, asked }
}
const text = (t: string) => [LlmChunk.Text({ text: t })]
const call = (
  name: string,
  args: unknown
) => [LlmChunk.ToolCalls({ calls: [{ id: `call_${name}`, name, arguments: JSON.stringify(args) }] })]

const voice = (choices: Parameters<typeof resolveVoice>[0] = {}) =>
  resolveVoice(
    choices,
    { speechToText: "none", languageModel: "offline", textToSpeech: "flite", maxCallSeconds: 600 },
    {
      speechToText: [],
      languageModel: ["offline"],
      textToSpeech: ["flite"]
    }
  )

const converse = (
  script: ReadonlyArray<Caller.CallerStep>,
  llm: LanguageModelProvider,
  seconds: number,
  choices: Parameters<typeof resolveVoice>[0] = {}
) =>
  Effect.gen(function*() {
    const reports: Array<EngineReport> = []
    const played: Array<Int16Array> = []
    const caller = yield* Caller.startCaller({
      sessionId: "00000000-0000-7000-8000-000000000002" as SessionId,
      script,
      voice: (t) => Effect.succeed(voiced(t))
    })
    const media = {
      ...caller.media,
      play: (pcm: Int16Array) => Effect.zipRight(Effect.sync(() => void played.push(pcm)), caller.media.play(pcm))
    }
    const resolved = voice(choices)
    const tools = makeCallTools(resolved, media)
    yield* Effect.forkScoped(runConversation({
      media,
      settings: defaultSettings("Hello, this is Ada."),
      vad: energy,
      stt: caller.transcripts,
      tts,
      llm,
      request: {
        system: "You are Ada.",
        tools: tools.specs,
        agent: { tenantId: "t", knowledgeBaseIds: [], metadata: {}, greeting: "Hello, this is Ada." }
      },
      runTool: (name, args, context) => tools.run(name, args, context) ?? Effect.succeed(`Unknown tool ${name}.`),
      keypad: {
        terminator: resolved.keypad.terminator,
        interDigitMs: resolved.keypad.interDigitTimeoutMs,
        maxDigits: resolved.keypad.maxDigits
      },
      report: (report) => Effect.flatMap(tools.report(report), (r) => Effect.sync(() => void reports.push(r)))
    }))
    yield* TestKit.advance(`${seconds} seconds`)
    const lines = reports.flatMap((r) => r._tag === "Line" ? [`${r.speaker}: ${r.text}`] : [])
    return { reports, lines, played: () => concat(played), chunks: played }
  }).pipe(Effect.scoped, TestKit.onVirtualClock)

describe("keys on a call, through the conversation engine (TestClock)", () => {
  it.effect(
    "the caller's entry, ended by #, then one ended by the 3 s timeout: each a turn the model answers, in the " +
      "transcript",
    () =>
      Effect.gen(function*() {
        const { asked, provider } = model((last) =>
          text(last.content.includes("4321") ? "Account 4321, thank you." : "Option one it is.")
        )
        const { lines } = yield* converse(
          [Caller.press("4321#"), Caller.press("1"), Caller.silent(6_000), Caller.hangUp()],
          provider,
          30
        )
        assert.deepStrictEqual(lines, [
          "agent: Hello, this is Ada.",
          "customer: [keypad] 4321",
          "agent: Account 4321, thank you.",
          "customer: [keypad] 1",
          "agent: Option one it is."
        ])
        assert.deepStrictEqual(asked[0]!.at(-1), { role: "user", content: "[keypad] 4321" })
      })
  )

  it.effect(
    "the per-agent inter-digit timeout ends the entry: with 1 s, the turn comes 2 s sooner than with the default 3 s",
    () =>
      Effect.gen(function*() {
        const entryAt = (choices: Parameters<typeof resolveVoice>[0]) =>
          Effect.gen(function*() {
            const { provider } = model(() => text("Got it."))
            const { reports } = yield* converse(
              [Caller.press("77", { gapMs: 200 }), Caller.silent(5_000), Caller.hangUp()],
              provider,
              20,
              choices
            )
            const line = reports.find((r) => r._tag === "Line" && r.speaker === "customer") as Extract<
              EngineReport,
              { _tag: "Line" }
            >
            const greeting = reports.find((r) => r._tag === "Line" && r.speaker === "agent") as Extract<
              EngineReport,
              { _tag: "Line" }
            >
            assert.strictEqual(line.text, "[keypad] 77")
            return line.at - greeting.at
          })
        const short = yield* entryAt({ keypad: { interDigitTimeoutMs: 1_000, terminator: "none" } })
        const long = yield* entryAt({})
        assert.strictEqual(long - short, 2_000)
      })
  )

  it.effect(
    "a slow entry (keys 2.5 s apart, 10 s in all) is not taken for silence: no idle reminder while the caller " +
      "presses keys",
    () =>
      Effect.gen(function*() {
        const { provider } = model(() => text("Got it."))
        const { lines } = yield* converse(
          [Caller.press("98765#", { gapMs: 2_500 }), Caller.silent(3_000), Caller.hangUp()],
          provider,
          30
        )
        assert.deepStrictEqual(lines, ["agent: Hello, this is Ada.", "customer: [keypad] 98765", "agent: Got it."])
      })
  )

  it.effect(
    "keys pressed while the agent talks cut it off, like speech: the words heard are kept, the keys are the turn",
    () =>
      Effect.gen(function*() {
        const long =
          "Our menu has many options. Listen carefully, as they have changed recently. Thank you for your patience."
        const { asked, provider } = model((last) =>
          text(last.content === "[keypad] 0" ? "Connecting you to an operator." : long)
        )
        const { lines, reports } = yield* converse(
          [
            Caller.say("Hi"),
            Caller.press("0#", { afterAgentStartsMs: 1_500, gapMs: 100 }),
            Caller.silent(5_000),
            Caller.hangUp()
          ],
          provider,
          30
        )
        const cut = reports.find((r) => r._tag === "Line" && r.interrupted) as Extract<EngineReport, { _tag: "Line" }>
        assert.isDefined(cut, lines.join("\n"))
        assert.isTrue(long.startsWith(cut.text) && cut.text.length < long.length, cut.text)
        assert.isTrue(reports.some((r) => r._tag === "BargeIn"))
        assert.deepStrictEqual(lines.slice(-2), ["customer: [keypad] 0", "agent: Connecting you to an operator."])
        assert.deepStrictEqual(asked.at(-1)!.slice(-2), [{ role: "assistant", content: cut.text, interrupted: true }, {
          role: "user",
          content: "[keypad] 0"
        }])
      })
  )

  it.effect(
    "send_dtmf: the agent's keys go out as tones after what it said, read back by the Goertzel detector; bad keys " +
      "are refused, not pressed",
    () =>
      Effect.gen(function*() {
        const { asked, provider } = model((last) => {
          if (last.role === "user" && last.content.includes("sales")) {
            return [LlmChunk.Text({ text: "Pressing one." }), ...call("send_dtmf", { digits: "1" })]
          }
          if (last.role === "user" && last.content.includes("account")) return call("send_dtmf", { digits: "12x" })
          if (last.role === "tool" && last.content.startsWith("Only the keys")) {
            return call("send_dtmf", { digits: "4321#" })
          }
          return []
        })
        const { chunks, lines, played, reports } = yield* converse(
          [
            Caller.say("For sales press one"),
            Caller.silent(3_000),
            Caller.say("Enter your account number"),
            Caller.silent(4_000),
            Caller.hangUp()
          ],
          provider,
          30,
          { keypad: { agentMayPress: true } }
        )
        assert.strictEqual(detectDigits(played()), "14321#")
        // the first tone follows all of the greeting and of "Pressing one." (60 ms a character), none of it cut
        const firstTone = chunks.findIndex((c) => detectDigits(c) !== "")
        const before = chunks.slice(0, firstTone).reduce((n, c) => n + c.length, 0)
        assert.strictEqual(before, (("Hello, this is Ada.".length + "Pressing one.".length) * 60 * SAMPLE_RATE) / 1_000)
        const tools = reports.flatMap((r) => r._tag === "ToolCalled" ? [[r.name, r.arguments, r.result]] : [])
        assert.deepStrictEqual(tools.map(([name, args]) => [name, JSON.parse(args!).digits]), [["send_dtmf", "1"], [
          "send_dtmf",
          "12x"
        ], ["send_dtmf", "4321#"]])
        assert.match(tools[1]![2]!, /^Only the keys 0-9/)
        assert.include(lines, "agent: Pressing one.")
        // the model saw the refusal and its own retry's result
        assert.isTrue(asked.some((m) => m.at(-1)!.role === "tool" && m.at(-1)!.content.startsWith("Pressed 4321#")))
      })
  )

  it.effect(
    "transfer_call: warm says the hand-off line whole, then the engine reports the transfer in place of a hang-up; a " +
      "number not allowed is refused",
    () =>
      Effect.gen(function*() {
        const { provider } = model((last) => {
          if (last.role === "user" && last.content.includes("human")) {
            return call("transfer_call", { number: "+14155550199", mode: "cold" })
          }
          if (last.role === "tool" && last.content.startsWith("The call can only")) {
            return call("transfer_call", { mode: "warm", message: "Connecting you to billing now." })
          }
          return text("OK.")
        })
        const { lines, reports } = yield* converse(
          [Caller.say("Can I talk to a human"), Caller.silent(10_000)],
          provider,
          30,
          {
            transfer: { numbers: ["+14155550123", "+14155550124"] }
          }
        )
        assert.deepStrictEqual(lines.slice(-1), ["agent: Connecting you to billing now."])
        const transfer = reports.find((r) => r._tag === "Transfer")
        assert.deepInclude(transfer, { to: "+14155550123", mode: "warm" })
        assert.isUndefined(reports.find((r) => r._tag === "HangUp"))
      })
  )

  it("tool arguments are checked: keys, lengths, numbers and modes", () => {
    assert.deepStrictEqual(parseDigits(JSON.stringify({ digits: "0123456789*#ABCD" })), { digits: "0123456789*#ABCD" })
    for (
      const bad of [
        "{",
        "[]",
        "{}",
        JSON.stringify({ digits: "" }),
        JSON.stringify({ digits: 5 }),
        JSON.stringify({ digits: "1 2" }),
        JSON.stringify({ digits: "1".repeat(33) })
      ]
    ) {
      assert.property(parseDigits(bad), "refused", bad)
    }
    const settings = { numbers: ["+14155550123"], warmMessage: "Please hold." }
    assert.deepStrictEqual(parseTransfer("{}", settings), { to: "+14155550123", mode: "cold", line: "" })
    assert.deepStrictEqual(parseTransfer(JSON.stringify({ mode: "warm" }), settings), {
      to: "+14155550123",
      mode: "warm",
      line: "Please hold."
    })
    for (
      const bad of [
        "nope",
        JSON.stringify({ mode: "hot" }),
        JSON.stringify({ number: "+14155550000" }),
        JSON.stringify({ number: 1 })
      ]
    ) {
      assert.property(parseTransfer(bad, settings), "refused", bad)
    }
  })
})

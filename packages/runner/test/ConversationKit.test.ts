/**
 * The testing kit's conversations: a scripted caller on the simulated carrier, the agent's real
 * conversation engine (voice detector, the offline responder, the built-in voice), everything on the
 * TestClock. This file is the example docs/voice.md shows.
 */
import { assert, describe, it } from "@effect/vitest"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import { Effect } from "effect"

const lines = (call: { readonly transcript: ReadonlyArray<{ speaker: string; text: string; interrupted: boolean }> }) =>
  call.transcript.map((l) => `${l.speaker}${l.interrupted ? " (cut off)" : ""}: ${l.text}`)

describe("testing a conversation with the kit", () => {
  it.layer(TestKit.layer({ ringMillis: 1_000 }), { timeout: 120_000 })((it) => {
    it.effect("the agent greets, answers, is cut off mid-sentence, answers again, and hangs up on goodbye", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T15:00:00Z")
        const t = yield* TestKit.tenant({ balance: 10_000 })
        yield* TestKit.configureAgent(t.tenantId, t.agentId, {
          greetMessage: "Hello, this is Ada from Acme. How can I help?",
          // with no language model configured, the offline responder answers (this line, without knowledge bases)
          metadata: { fallback_message: "Our premium plan costs twenty dollars a month, and the basic plan is free." }
        })
        const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
        const sessionId = yield* TestKit.call(t, {
          voiceNumberId,
          to: "+14155550120", // answers after the ring; the callee stays up to 120 s
          caller: [
            Caller.say("How much does the premium plan cost?"),
            Caller.interrupt("Wait, stop. What was the price again?", { afterAgentStartsMs: 1_500 }),
            Caller.say("That's all I needed, goodbye.")
          ]
        })
        yield* TestKit.advance("2 minutes")

        const call = yield* TestKit.callDetail(t.tenantId, sessionId)
        assert.deepStrictEqual([call.status, call.outcome, call.endReason], ["ENDED", "ANSWERED", "agent_hangup"])
        const said = lines(call)
        assert.strictEqual(said[0], "agent: Hello, this is Ada from Acme. How can I help?")
        assert.strictEqual(said[1], "customer: How much does the premium plan cost?")
        // cut off: the line keeps only the words the caller heard
        assert.match(said[2]!, /^agent \(cut off\): Our premium plan/)
        assert.isBelow(
          said[2]!.length,
          "agent (cut off): Our premium plan costs twenty dollars a month, and the basic plan is free.".length
        )
        assert.deepStrictEqual(said.slice(3), [
          "customer: Wait, stop. What was the price again?",
          "agent: Our premium plan costs twenty dollars a month, and the basic plan is free.",
          "customer: That's all I needed, goodbye.",
          "agent: Thank you for your time. Goodbye!"
        ])
        // the greeting's first audio follows the answer at once; every answer has its latencies
        assert.strictEqual(call.transcript[0]!.at.getTime(), call.answeredAt!.getTime())
        assert.isTrue(call.transcript.filter((l) => l.speaker === "agent").slice(1).every((l) => l.latency !== null))
        // billed for the talk time, to the second
        assert.strictEqual(
          call.durationSeconds,
          Math.ceil((call.endedAt!.getTime() - call.answeredAt!.getTime()) / 1000)
        )
        assert.isTrue(call.events.some((e) => e.type === "agent_hangup"))
      }))

    it.effect("a caller who goes quiet is reminded, then the agent says goodbye and hangs up", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-24T15:00:00Z")
        const t = yield* TestKit.tenant({ balance: 10_000 })
        yield* TestKit.configureAgent(t.tenantId, t.agentId, {
          greetMessage: "Hello, this is Ada from Acme.",
          voice: { idle: { reminderAfterSeconds: 5, reminders: 1, reminderText: "Are you still there?" } }
        })
        const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
        const sessionId = yield* TestKit.call(t, {
          voiceNumberId,
          to: "+14155550300",
          caller: [Caller.silent(300_000)]
        })
        yield* TestKit.advance("1 minute")
        const call = yield* TestKit.callDetail(t.tenantId, sessionId)
        assert.deepStrictEqual(lines(call), [
          "agent: Hello, this is Ada from Acme.",
          "agent: Are you still there?",
          "agent: It seems you've stepped away. Goodbye!"
        ])
        assert.deepStrictEqual([call.outcome, call.endReason], ["ANSWERED", "agent_hangup"])
        // the reminder comes 5 s after the greeting ended, the goodbye 5 s after the reminder
        const [greeting, reminder, goodbye] = call.transcript.map((l) => l.at.getTime())
        assert.isAbove(reminder! - greeting!, 5_000)
        assert.isAbove(goodbye! - reminder!, 5_000)
        assert.isBelow(call.durationSeconds, 30)
      }))

    it.effect("a number dictated with a pause is one turn; a backchannel and a noise do not cut the agent off", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-25T15:00:00Z")
        const t = yield* TestKit.tenant({ balance: 10_000 })
        yield* TestKit.configureAgent(t.tenantId, t.agentId, {
          greetMessage: "Hello, this is Ada from Acme. Please tell me your phone number so I can look up your account.",
          metadata: { fallback_message: "Thank you. I have found your account, and everything is in order." }
        })
        const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
        const sessionId = yield* TestKit.call(t, {
          voiceNumberId,
          to: "+14155550060",
          caller: [
            Caller.backchannel("uh-huh", { afterAgentStartsMs: 1_500 }),
            Caller.noise(300, { afterAgentStartsMs: 3_500 }),
            // the agent pauses for the noise, then goes on: the caller waits out the pause
            Caller.say("My number is four one five,", { afterAgentMs: 2_500 }),
            Caller.pause(1_200),
            Caller.say("five five five, two six seven one.", { afterAgentMs: 0 }),
            Caller.silent(20_000)
          ]
        })
        yield* TestKit.advance("1 minute")
        const call = yield* TestKit.callDetail(t.tenantId, sessionId)
        const said = lines(call)
        assert.strictEqual(
          said[0],
          "agent: Hello, this is Ada from Acme. Please tell me your phone number so I can look up your account."
        )
        assert.strictEqual(said[1], "customer: My number is four one five, five five five, two six seven one.")
        assert.strictEqual(said[2], "agent: Thank you. I have found your account, and everything is in order.")
      }))
  })
})

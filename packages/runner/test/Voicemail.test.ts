/**
 * Voicemail detection from the audio, on the simulated carrier (which has no answering-machine
 * detection of its own), under the TestClock: the callee is an answering machine (its greeting read
 * from the recorded fixtures without a pause, then a 1 kHz beep) or a person who says "Hello?" and
 * waits. Both policies, a person not taken for a machine, the wait for a beep that never comes, and
 * a campaign that redials a voicemail like an unanswered call and messages it as one.
 */
import { assert, describe, it } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import { BEEP_WAIT_MS } from "@voiceagent/runner/Calls/Voicemail"
import { Campaigns } from "@voiceagent/runner/Campaigns/Campaigns"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { durationMs } from "@voiceagent/runner/Voice/Audio"
import { fixtureFor } from "@voiceagent/runner/Voice/CallerVoice"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import { Effect, Option } from "effect"

const GREETING = "Hello, this is Ada from Acme."
const MESSAGE = "Hi, this is Ada from Acme. Please call us back."

const lines = (call: { readonly transcript: ReadonlyArray<{ speaker: string; text: string; interrupted: boolean }> }) =>
  call.transcript.map((l) => `${l.speaker}${l.interrupted ? " (cut off)" : ""}: ${l.text}`)

const story = (call: any) =>
  JSON.stringify({ outcome: call.outcome, endReason: call.endReason, transcript: lines(call), events: call.events })

/** How long the simulated machine plays (greeting and beep), from the same fixtures. */
const machineMs = (beepMs: number) =>
  Effect.map(
    Caller.machineAudio((text) => Effect.map(fixtureFor(text), Option.getOrThrow), { beepMs }),
    (pcm) => durationMs(pcm.length)
  )

const agentWith = (voicemail: Record<string, unknown>) =>
  Effect.gen(function*() {
    const t = yield* TestKit.tenant({ balance: 10_000 })
    yield* TestKit.configureAgent(t.tenantId, t.agentId, { greetMessage: GREETING, voice: { voicemail } })
    const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
    return { ...t, voiceNumberId }
  })

const eventOf = (call: { readonly events: ReadonlyArray<{ type: string; at: Date; detail: unknown }> }, type: string) =>
  call.events.find((e) => e.type === type)

describe("voicemail detection from the audio", () => {
  it.layer(TestKit.layer({ ringMillis: 1_000 }), { timeout: 120_000 })((it) => {
    it.effect(
      "hang-up policy: a machine's greeting read on for 3.5 s is a machine; the call is hung up, UNANSWERED " +
        "(voicemail), billed",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-11-23T15:00:00Z")
          const t = yield* agentWith({ detection: "carrier", policy: "hangup" })
          const sessionId = yield* TestKit.call(t, {
            voiceNumberId: t.voiceNumberId,
            to: "+14155550160",
            caller: [Caller.machine()]
          })
          yield* TestKit.advance("1 minute")
          const call = yield* TestKit.callDetail(t.tenantId, sessionId)
          assert.deepInclude(call, {
            status: "ENDED",
            outcome: "UNANSWERED",
            endReason: "voicemail",
            answeredBy: "machine",
            voicemail: "hung_up"
          }, story(call))
          // the greeting went out (paused under the machine's voice, cut off by the hang-up), and nothing else
          assert.deepStrictEqual(lines(call).map((l) => l.split(":")[0]), ["agent (cut off)"], story(call))
          assert.isTrue(GREETING.startsWith(call.transcript[0]!.text), story(call))
          const talked = call.endedAt!.getTime() - call.answeredAt!.getTime()
          assert.isAtLeast(talked, 3_500, story(call))
          assert.isBelow(talked, 5_000, story(call))
          assert.deepInclude(eventOf(call, "answered_by")?.detail, { answeredBy: "machine", source: "audio" })
          // a voicemail is still a call the carrier connected: billed for its talk time
          assert.strictEqual(call.durationSeconds, Math.ceil(talked / 1000))
          assert.isAbove(call.cost, 0)
        })
    )

    it.effect(
      "leave-message policy: the message is said after the beep, whole, over the machine's noise, then the call is " +
        "hung up",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-11-23T16:00:00Z")
          const t = yield* agentWith({ detection: "audio", policy: "leave_message", message: MESSAGE })
          const sessionId = yield* TestKit.call(t, {
            voiceNumberId: t.voiceNumberId,
            to: "+14155550161",
            // the machine's greeting and beep; then 1.5 s of noise on its line, over the start of the message
            caller: [Caller.machine({ beepMs: 500 }), Caller.noise(1_500)]
          })
          yield* TestKit.advance("1 minute")
          const call = yield* TestKit.callDetail(t.tenantId, sessionId)
          assert.deepInclude(call, {
            outcome: "UNANSWERED",
            endReason: "voicemail",
            answeredBy: "machine",
            voicemail: "message_left"
          }, story(call))
          const said = lines(call)
          // the message is the agent's last line, not cut off by the noise
          assert.strictEqual(said.at(-1), `agent: ${MESSAGE}`, story(call))
          const message = call.transcript.at(-1)!
          // after the beep: the machine played for machineMs from the answer; the noise was still on
          const beepEnd = call.answeredAt!.getTime() + (yield* machineMs(500))
          assert.isBelow(message.at.getTime(), beepEnd + 1_500, "the message began under the noise")
          assert.isAtLeast(message.at.getTime(), beepEnd - 40, story(call))
          assert.isBelow(message.at.getTime(), beepEnd + 500, story(call))
          assert.deepStrictEqual(eventOf(call, "media_stopped")?.detail, {
            reason: "the conversation stopped: its stream was handed over"
          })
          const left = eventOf(call, "voicemail")!.detail as any
          assert.deepInclude(left, { result: "message_left", afterBeep: true, played: true }, story(call))
          // hung up once it had played, not before
          assert.isAtLeast(call.endedAt!.getTime() - message.at.getTime(), left.messageMs, story(call))
          assert.isBelow(call.endedAt!.getTime() - message.at.getTime(), left.messageMs + 1_000, story(call))
        })
    )

    it.effect("a person's \"Hello?\" and pause is not a machine: the conversation goes on and ends ANSWERED", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T17:00:00Z")
        const t = yield* agentWith({ detection: "audio", policy: "leave_message", message: MESSAGE })
        const sessionId = yield* TestKit.call(t, {
          voiceNumberId: t.voiceNumberId,
          to: "+14155550015", // the callee stays 15 s
          caller: [Caller.say("Hello.", { afterAgentMs: 0 }), Caller.say("Who is calling, please?")]
        })
        yield* TestKit.advance("1 minute")
        const call = yield* TestKit.callDetail(t.tenantId, sessionId)
        assert.deepInclude(
          call,
          { outcome: "ANSWERED", endReason: "completed", answeredBy: "human", voicemail: null },
          story(call)
        )
        assert.deepStrictEqual(lines(call).slice(0, 2), [`agent: ${GREETING}`, "customer: Hello."], story(call))
        // the greeting was not held back for the detection: it started as the call was answered
        assert.strictEqual(call.transcript[0]!.at.getTime(), call.answeredAt!.getTime(), story(call))
        assert.include(lines(call), "customer: Who is calling, please?", story(call))
        assert.notInclude(lines(call), `agent: ${MESSAGE}`)
        assert.isUndefined(eventOf(call, "voicemail"))
      }))

    it.effect("a machine with no beep: the message is left when the wait for the greeting's end runs out", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2026-11-23T18:00:00Z")
        const t = yield* agentWith({ detection: "audio", policy: "leave_message", message: MESSAGE })
        const sessionId = yield* TestKit.call(t, {
          voiceNumberId: t.voiceNumberId,
          to: "+14155550162",
          caller: [Caller.machine({ beepMs: 0 })]
        })
        yield* TestKit.advance("2 minutes")
        const call = yield* TestKit.callDetail(t.tenantId, sessionId)
        assert.deepInclude(call, { endReason: "voicemail", voicemail: "message_left" }, story(call))
        const verdictAt = eventOf(call, "answered_by")!.at.getTime()
        const message = call.transcript.at(-1)!
        assert.strictEqual(message.text, MESSAGE, story(call))
        assert.approximately(message.at.getTime() - verdictAt, BEEP_WAIT_MS, 100, story(call))
        assert.deepInclude(eventOf(call, "voicemail")!.detail, { afterBeep: false })
      }))

    it.effect(
      "a campaign: a voicemail is redialled like an unanswered call, and post-call messaging sends its UNANSWERED " +
        "message",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-11-23T15:00:00Z")
          const t = yield* agentWith({ detection: "carrier", policy: "hangup" })
          const phone = "+16465550160"
          const contactListId = yield* TestKit.contactList(t.tenantId, [phone])
          yield* TestKit.smsCampaign(t.tenantId, {
            agentId: t.agentId,
            senderNumber: "+14155550100",
            templates: [{ callStatus: "ANSWERED", messageBody: "thanks" }, {
              callStatus: "UNANSWERED",
              messageBody: "missed you"
            }]
          })
          const campaign = yield* TestKit.campaign(t.tenantId, {
            name: "Voicemail",
            agentId: t.agentId,
            voiceNumberId: t.voiceNumberId,
            contactListId,
            maxAttempts: 2,
            redialDelayMin: 1,
            timezone: "UTC",
            callWindowStart: "00:00",
            callWindowEnd: "23:59",
            callDays: [1, 2, 3, 4, 5, 6, 7],
            // every call of the campaign reaches the machine
            metadata: { simulatedCaller: Caller.scriptToMetadata([Caller.machine()]) }
          } as any)
          yield* Effect.flatMap(Campaigns, (c) => c.schedule(t.tenantId, campaign.id, null)).pipe(Effect.orDie)
          yield* TestKit.advance("5 minutes")
          const attempts = yield* TestKit.attempts(t.tenantId, campaign.id)
          assert.deepStrictEqual(attempts.map((a) => [a.attemptNumber, a.status, a.outcome]), [
            [1, "ENDED", "UNANSWERED"],
            [2, "ENDED", "UNANSWERED"]
          ])
          // the redial came the campaign's delay after the first voicemail ended
          assert.isAtLeast(attempts[1]!.dialedAt!.getTime() - attempts[0]!.endedAt!.getTime(), 60_000)
          for (const a of attempts) {
            const call = yield* TestKit.callDetail(t.tenantId, a.sessionId as SessionId)
            assert.deepInclude(
              call,
              { endReason: "voicemail", answeredBy: "machine", voicemail: "hung_up" },
              story(call)
            )
          }
          const sms = yield* TestKit.messages(t.tenantId, "SMS")
          assert.deepStrictEqual(
            sms.map((m) => [m.body, m.callOutcome, m.sessionId]).sort(),
            attempts.map((a) => ["missed you", "UNANSWERED", a.sessionId]).sort() as any
          )
        })
    )
  })
})

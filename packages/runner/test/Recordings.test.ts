/**
 * Recorded calls on the simulated carrier, everything on the TestClock: the scripted caller's
 * conversation with the agent's real engine, recorded as the caller lived it (the agent cut off
 * where the caller barged in), the file and its row once the call ends, the agent's "never" over
 * the call's own request, and the retention sweep.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import { LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import { CallSpecs } from "@voiceagent/runner/CallRecords/CallSpecs"
import { Recordings } from "@voiceagent/runner/Recordings/Recordings"
import { parseWav } from "@voiceagent/runner/Recordings/WavFile"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { frames } from "@voiceagent/runner/Voice/Audio"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import { scriptToMetadata } from "@voiceagent/runner/Voice/SimulatedCaller"
import { rms } from "@voiceagent/runner/Voice/Vad"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import { Effect, Option } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "recordings-kit-"))

/** A simulated call as `POST /channels/voice/call` places it, with the call's own `record`. */
const placeCall = (
  t: { readonly tenantId: TenantId; readonly agentId: AgentId },
  voiceNumberId: VoiceNumberId,
  to: string,
  caller: ReadonlyArray<Caller.CallerStep>,
  record?: boolean
) =>
  Effect.gen(function*() {
    const number = Option.getOrThrow(
      yield* (yield* VoiceNumbersRepo).find(t.tenantId, voiceNumberId).pipe(Effect.orDie)
    )
    const sessionId = crypto.randomUUID() as SessionId
    const spec = yield* (yield* CallSpecs).make({
      tenantId: t.tenantId,
      agentId: t.agentId,
      voiceNumber: number,
      toNumber: to,
      customerId: null,
      campaignId: null,
      campaignAttemptId: null,
      metadata: { simulatedCaller: scriptToMetadata(caller) },
      record
    })
    yield* (yield* LiveCallEntity.client)(sessionId).Start({ spec }).pipe(Effect.orDie)
    return sessionId
  })

/** Per 20 ms frame: whether it is speech (loud enough), from a channel's samples. */
const voiced = (samples: Int16Array) => frames(samples).map((frame) => rms(frame) >= 300)

/** The frames' runs of speech as [first, end) frame indexes, joining gaps shorter than `bridge` frames. */
const runs = (flags: ReadonlyArray<boolean>, bridge = 25): Array<[number, number]> => {
  const out: Array<[number, number]> = []
  flags.forEach((on, i) => {
    if (!on) return
    const last = out.at(-1)
    if (last !== undefined && i - last[1] <= bridge) last[1] = i + 1
    else out.push([i, i + 1])
  })
  return out
}

const ANSWER = "Our premium plan costs twenty dollars a month, and the basic plan is free, with no contract at all."

describe("recorded calls on the simulated carrier", () => {
  it.layer(
    TestKit.layer({
      ringMillis: 1_000,
      runtime: { recordings: { directory, retentionDays: 30, sweepInterval: "1 day" } }
    }),
    { timeout: 180_000 }
  )((it) => {
    it.effect(
      "an agent that records: the caller left, the agent right as heard (cut at the barge-in); deleted after the " +
        "retention",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2026-11-23T15:00:00Z")
          const recordings = yield* Recordings
          const sql = yield* SqlClient.SqlClient
          const t = yield* TestKit.tenant({ balance: 10_000 })
          yield* TestKit.configureAgent(t.tenantId, t.agentId, {
            greetMessage: "Hello, this is Ada from Acme.",
            metadata: { fallback_message: ANSWER },
            settings: { recording: "on" }
          })
          const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
          const sessionId = yield* placeCall(t, voiceNumberId, "+14155550120", [
            Caller.say("How much does the premium plan cost?"),
            Caller.interrupt("Wait, stop. What was the price again?", { afterAgentStartsMs: 1_500 }),
            Caller.say("That's all I needed, goodbye.")
          ])
          yield* TestKit.advance("2 minutes")
          const call = yield* TestKit.callDetail(t.tenantId, sessionId)
          assert.deepStrictEqual([call.status, call.endReason], ["ENDED", "agent_hangup"])
          assert.isTrue(
            call.transcript[2]!.interrupted,
            JSON.stringify(call.transcript.map((l) => [l.speaker, l.text, l.interrupted, l.at]))
          )

          const summary = yield* TestKit.eventually(
            Effect.map(
              recordings.summary(t.tenantId, sessionId),
              (s) => Option.getOrThrowWith(s, () => new Error("no recording yet"))
            )
          )
          const file = Option.getOrThrow(yield* recordings.file(t.tenantId, sessionId))
          assert.strictEqual(path.dirname(file.path), path.join(directory, t.tenantId))
          const bytes = fs.readFileSync(file.path)
          assert.strictEqual(bytes.length, summary.bytes)
          const wav = parseWav(bytes)!
          assert.deepInclude(wav, { channels: 2, sampleRate: 8_000, declaredDataBytes: bytes.length - 44 })
          // the whole conversation, answer to hang-up
          const talkMs = call.endedAt!.getTime() - call.answeredAt!.getTime()
          assert.approximately(
            summary.durationMs,
            talkMs,
            1_000,
            `${summary.durationMs} ms recorded of ${talkMs} ms talked`
          )
          assert.strictEqual(summary.durationMs, Math.round((wav.samples[0]!.length * 1_000) / 8_000))

          const caller = runs(voiced(wav.samples[0]!))
          const agent = runs(voiced(wav.samples[1]!))
          // the caller's three lines on the left; the agent's greeting, cut answer, answer and goodbye on the right
          assert.strictEqual(caller.length, 3, JSON.stringify({ caller, agent }))
          assert.isAtLeast(agent.length, 3, JSON.stringify({ caller, agent }))
          // the agent waits for the caller's question, then answers
          assert.isAbove(agent[1]![0], caller[0]![1], JSON.stringify({ caller, agent }))
          // the barge-in: the caller starts 1.5 s into the answer, and within 0.5 s the agent is heard no more
          // until the caller is done (what it had sent ahead is not in the recording: the caller never heard it)
          const [from, to] = caller[1]!
          const cut = agent.find(([start, end]) => start < from && end > from)
          assert.isDefined(cut, JSON.stringify({ caller, agent }))
          assert.approximately((from - cut![0]) * 20, 1_500, 300)
          assert.isAtMost(cut![1] - from, 25, `the agent went on ${(cut![1] - from) * 20} ms over the caller`)
          assert.isFalse(
            agent.some(([start]) => start > cut![1] && start < to),
            "the agent is quiet while the caller speaks"
          )
          // its answer heard in full afterwards is longer than what was heard before the barge-in
          const full = agent.find(([start]) => start >= to)!
          assert.isAbove(full[1] - full[0], cut![1] - cut![0])

          // a file a process left without a row (it died mid-call), and a file the platform does not name: beside it
          const orphan = path.join(directory, t.tenantId, `${crypto.randomUUID()}.0badf00d.wav`)
          const stranger = path.join(directory, t.tenantId, "notes.txt")
          fs.writeFileSync(orphan, new Uint8Array(44))
          fs.writeFileSync(stranger, "kept")
          // written when the call was (files are dated by the machine's clock, the sweep reads the platform's)
          for (const f of [orphan, stranger]) fs.utimesSync(f, summary.createdAt, summary.createdAt)

          // retention: kept for 30 days, then the file and its row go (the clock jumps: the daily sweep wakes once)
          const made = summary.createdAt.getTime()
          yield* TestKit.startAt(made + 29 * 86_400_000)
          assert.isTrue(Option.isSome(yield* recordings.summary(t.tenantId, sessionId)))
          assert.isTrue(fs.existsSync(file.path))
          assert.isTrue(fs.existsSync(orphan), "an orphan younger than the retention stays")
          yield* TestKit.startAt(made + 30 * 86_400_000 + 3_600_000)
          // the sweep the first jump woke may still have been running at the second: its next round comes
          // an hour after it ended (seen under load in CI)
          yield* TestKit.advance("2 hours")
          yield* TestKit.eventually(Effect.sync(() => assert.isFalse(fs.existsSync(file.path))))
          yield* TestKit.eventually(Effect.sync(() => assert.isFalse(fs.existsSync(orphan))))
          assert.isTrue(fs.existsSync(stranger))
          assert.isTrue(Option.isNone(yield* recordings.summary(t.tenantId, sessionId)))
          const rows = yield* sql`SELECT 1 FROM call_recordings WHERE session_id = ${sessionId}`
          assert.strictEqual(rows.length, 0)
        })
    )

    it.effect(
      "an agent that never records: no file and no row, even when the call asks; a call that asks is recorded",
      () =>
        Effect.gen(function*() {
          yield* TestKit.startAt("2027-01-10T15:00:00Z")
          const recordings = yield* Recordings
          const t = yield* TestKit.tenant({ balance: 10_000 })
          yield* TestKit.configureAgent(t.tenantId, t.agentId, {
            greetMessage: "Hello, this is Ada.",
            metadata: { fallback_message: "Thank you." },
            settings: { recording: "never" }
          })
          const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
          const script = [
            Caller.say("How much does the premium plan cost?"),
            Caller.say("That's all I needed, goodbye.")
          ]
          const never = yield* placeCall(t, voiceNumberId, "+14155550030", script, true)
          // (the agent's setting is read as the call dials)
          yield* TestKit.advance("5 seconds")
          // the same agent, off (the default): a call that asks is recorded
          yield* TestKit.configureAgent(t.tenantId, t.agentId, { settings: { recording: null } })
          const asked = yield* placeCall(t, voiceNumberId, "+14155550031", script, true)
          yield* TestKit.advance("1 minute")
          for (const sessionId of [never, asked]) {
            assert.strictEqual((yield* TestKit.callDetail(t.tenantId, sessionId)).status, "ENDED")
          }
          yield* TestKit.eventually(
            Effect.map(recordings.summary(t.tenantId, asked), (s) => assert.isTrue(Option.isSome(s)))
          )
          assert.isTrue(Option.isNone(yield* recordings.summary(t.tenantId, never)))
          const files = fs.readdirSync(path.join(directory, t.tenantId))
          assert.strictEqual(files.length, 1)
          assert.isTrue(files[0]!.startsWith(asked), files.join())
          // another tenant's id finds nothing
          assert.isTrue(Option.isNone(yield* recordings.file(crypto.randomUUID() as TenantId, asked)))
        })
    )
  })
})

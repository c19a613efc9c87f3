/**
 * A recordings directory the process cannot write: the call is not recorded and goes on whole (a
 * recording never fails a call). On the simulated carrier and the TestClock.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Caller from "@voiceagent/runner/Voice/SimulatedCaller"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

describe("a recordings directory that cannot be written", () => {
  // a path under a regular file: no directory can be made there
  const blocked = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "recordings-blocked-")), "file")
  fs.writeFileSync(blocked, "not a directory")
  it.layer(
    TestKit.layer({
      ringMillis: 1_000,
      runtime: {
        recordings: { directory: path.join(blocked, "recordings"), retentionDays: 30, sweepInterval: "1 day" }
      }
    }),
    { timeout: 120_000 }
  )((it) => {
    it.effect("the call goes on as if it were not recorded: its conversation whole, no row", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt("2027-02-01T15:00:00Z")
        const t = yield* TestKit.tenant({ balance: 10_000 })
        yield* TestKit.configureAgent(t.tenantId, t.agentId, {
          greetMessage: "Hello, this is Ada.",
          metadata: { fallback_message: "Thank you." },
          settings: { recording: "on" }
        })
        const voiceNumberId = yield* TestKit.voiceNumber(t.tenantId)
        const sessionId = yield* TestKit.call(t, {
          voiceNumberId,
          to: "+14155550120",
          caller: [Caller.say("How much does the premium plan cost?"), Caller.say("That's all I needed, goodbye.")]
        })
        yield* TestKit.advance("2 minutes")
        const call = yield* TestKit.callDetail(t.tenantId, sessionId)
        assert.deepStrictEqual(
          [call.status, call.endReason],
          ["ENDED", "agent_hangup"],
          JSON.stringify(call.transcript)
        )
        assert.deepStrictEqual(call.transcript.map((l) => l.speaker), [
          "agent",
          "customer",
          "agent",
          "customer",
          "agent"
        ])
        const rows = yield* (yield* SqlClient.SqlClient)`SELECT 1 FROM call_recordings WHERE session_id = ${sessionId}`
        assert.strictEqual(rows.length, 0)
      }))
  })
})

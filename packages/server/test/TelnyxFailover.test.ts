import { assert, describe, it } from "@effect/vitest"
import * as FakeTelnyx from "@voiceagent/runner/Testing/FakeTelnyx"
import * as FakeTelnyxMedia from "@voiceagent/runner/Testing/FakeTelnyxMedia"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawnCli } from "./Cli.js"
import { callReady, get, portToName, post, waitUntil } from "./Http.js"

// A Telnyx call outlives the process that ran it: the real CLI (`start`) places a call on a loopback
// Telnyx, the call is answered and streams to the process's media server; the process is SIGKILLed
// mid-call and started again on the same data. The call's entity resumes there, and as Telnyx does not
// reconnect a stream by itself (Twilio's `<Redirect>` does), the new process asks it to with
// `streaming_start` to its own media server, with a fresh token: the call goes on, and is billed once
// when the caller hangs up. (What the dead process had not yet written of the call's log is lost with it:
// a greeting not yet recorded is said again.)

describe("a Telnyx call across a crash of its process", () => {
  it.scopedLive(
    "the resumed call asks Telnyx to stream to the new process; the stream comes back, the call ends and is billed " +
      "once",
    () =>
      Effect.gen(function*() {
        const fake = yield* FakeTelnyx.make()
        const port = yield* Effect.promise(() => portToName())
        const publicUrl = `http://127.0.0.1:${port}`
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "vap-telnyx-crash-"))
        const url = TestDatabase.postgresUrl()
        const db = url === undefined ? {} : { DATABASE_URL: (yield* TestDatabase.scratchPostgresDatabase(url)).url }
        const env = {
          PORT: String(port),
          PLATFORM_CORE_PORT: "0",
          COMMS_PORT: "0",
          CAMPAIGN_PORT: "0",
          MEDIA_PORT: "0",
          LOG_LEVEL: "warn",
          ...db,
          DATA_DIR: dataDir,
          PUBLIC_URL: publicUrl,
          TELEPHONY_PROVIDER_B: "telnyx",
          TELNYX_API_URL: fake.url,
          TELNYX_API_KEY: fake.apiKey,
          TELNYX_CONNECTION_ID: fake.connectionId,
          TELNYX_PUBLIC_KEY: fake.publicKey
        }
        const started = () =>
          Effect.gen(function*() {
            const cli = yield* spawnCli(["start"], env)
            yield* cli.waitFor(/Gateway\s+http:\/\/127\.0\.0\.1:\d+/, 120_000)
            return cli
          })

        const first = yield* started()
        const gateway = `${publicUrl}/api/v1`
        const user = yield* callReady(gateway, "PROVIDER_B")
        const placed = yield* post(`${gateway}/channels/voice/call`, {
          token: user.key,
          json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550111" }
        })
        assert.strictEqual(placed.status, 202, placed.text)
        const sessionId = placed.body.sessionId as string
        const [call] = yield* waitUntil(Effect.sync(() => fake.createdCalls()), (c) =>
          c.length > 0, "the call dialled on Telnyx")
        const id = call!.callControlId
        assert.strictEqual(yield* fake.deliver(id, "call.initiated"), 200)
        fake.answer(id)
        assert.strictEqual(yield* fake.deliver(id, "call.answered"), 200)
        const session = () =>
          Effect.map(get(`${gateway}/calls/${sessionId}`, { token: user.key }), (r) =>
            r.body)
        yield* waitUntil(session(), (s) => s.status === "IN_PROGRESS", "the call answered")
        const before = yield* FakeTelnyxMedia.connectCall(fake, id)
        yield* before.until("the greeting's first audio", () => before.audio().length > 0)
        const firstStream = fake.call(id)!.streamUrl

        // the process dies mid-call; Telnyx keeps the call, its stream is gone
        yield* first.stop("SIGKILL")
        const restartedAt = Date.now()
        const second = yield* started()
        const moved = yield* waitUntil(
          Effect.sync(() => fake.call(id)!),
          (c) => (c.streamStarts ?? 0) > 0,
          "streaming_start from the new process",
          60
        )
        assert.notStrictEqual(moved.streamUrl, firstStream, "the new process's media server")
        const start = fake.requests().find((r) => r.path === `/v2/calls/${id}/actions/streaming_start`)!
        assert.deepInclude(start.body as object, {
          stream_track: "inbound_track",
          stream_bidirectional_mode: "rtp",
          stream_bidirectional_codec: "PCMU"
        })
        // the stream comes back to the new process and its conversation takes it
        const after = yield* FakeTelnyxMedia.connectCall(fake, id)
        yield* waitUntil(
          session(),
          (s) =>
            s.events.some((e: { type: string; at: string }) =>
              e.type === "media_connected" && Date.parse(e.at) >= restartedAt
            ),
          "the stream connected to the new process"
        )
        assert.deepStrictEqual(after.violations(), [])
        assert.strictEqual((yield* session()).status, "IN_PROGRESS")

        // the caller hangs up: ended once, billed once
        fake.hangUp(id, "normal_clearing", "callee")
        yield* after.stop
        assert.strictEqual(yield* fake.deliver(id, "call.hangup"), 200)
        const ended = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call ended")
        assert.strictEqual(ended.outcome, "ANSWERED")
        assert.strictEqual(ended.events.filter((e: { type: string }) => e.type === "ended").length, 1)
        const wallet = (yield* get(`${gateway}/wallet`, { token: user.account.token })).body
        assert.strictEqual(wallet.reserved, 0, "nothing held")
        assert.strictEqual(wallet.balance, 1000 - ended.cost, "billed once")
        yield* second.stop("SIGTERM")
      }),
    { timeout: 240_000 }
  )
})

import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import { sign, SIGNATURE_HEADER } from "@voiceagent/runner/Webhooks/Webhooks"
import { Effect, Layer } from "effect"
import { webhookReceiver } from "./CallScenario.js"
import { callReady, get, portToName, post, waitUntil } from "./Http.js"

const gatewayPort = await portToName()
const publicUrl = `http://127.0.0.1:${gatewayPort}`

/** The platform with PROVIDER_B numbers on Twilio (a fake of its API on loopback). */
const WithTwilio = Layer.unwrapScoped(
  Effect.gen(function*() {
    const twilio = yield* FakeTwilio.make()
    return TestPlatform.layer({
      ports: { gateway: gatewayPort },
      publicUrl,
      twilioAuthToken: twilio.authToken,
      runtime: {
        carriers: {
          PROVIDER_B: FakeTwilio.carrier(twilio, publicUrl)
        }
      }
    }).pipe(Layer.merge(Layer.succeed(FakeTwilio.FakeTwilio, twilio)))
  })
)

const setUp = (provider: "PROVIDER_A" | "PROVIDER_B", webhookUrl?: string) =>
  Effect.flatMap(TestPlatform.TestPlatformUrls, ({ comms, gateway }) =>
    callReady(gateway, provider, {
      keyBody: webhookUrl === undefined ? { name: "k" } : { name: "k", webhookUrl },
      api: comms
    }))

const waitFor = <A>(read: Effect.Effect<A>, done: (a: A) => boolean, what: string) => waitUntil(read, done, what)

describe("a real carrier and call-result webhooks", () => {
  layer(WithTwilio, { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("a call on Twilio follows its signed status callbacks; a forged callback is refused", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const twilio = yield* FakeTwilio.FakeTwilio
        const user = yield* setUp("PROVIDER_B")
        const placed = yield* post(`${comms}/channels/voice/call`, {
          token: user.key,
          json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550123" }
        })
        assert.strictEqual(placed.status, 202, placed.text)
        const sessionId = placed.body.sessionId
        const created = yield* waitFor(
          Effect.sync(() => twilio.calls().filter((c) => c.method === "POST")),
          (c) => c.length > 0,
          "the call created on Twilio"
        )
        const form = Object.fromEntries(created[0]!.form)
        assert.strictEqual(form["To"], "+14155550123")
        assert.strictEqual(form["From"], "+14155550199")
        assert.strictEqual(form["StatusCallback"], `${publicUrl}/api/v1/telephony/twilio/status/${sessionId}`)

        const session = () => Effect.map(get(`${comms}/calls/${sessionId}`, { token: user.key }), (r) => r.body)
        yield* waitFor(session(), (s) => s.status === "DIALING", "the session DIALING")
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* waitFor(
          sql<{ providerCallId: string | null }>`SELECT provider_call_id FROM call_sessions WHERE id = ${sessionId}`
            .pipe(Effect.orDie),
          (rows) => rows[0]?.providerCallId != null,
          "the session's Twilio call sid"
        )
        const callSid = row!.providerCallId!
        assert.match(callSid, /^CA[0-9a-f]{32}$/)

        // Twilio reports ringing, in progress, then completed, each callback signed with the account's token
        for (const [status, expected] of [["ringing", "RINGING"], ["in-progress", "IN_PROGRESS"]] as const) {
          twilio.setCallStatus(callSid, status)
          assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
          yield* waitFor(
            session(),
            (s) => s.status === expected,
            `the session ${expected} after the ${status} callback`
          )
        }
        // the same callback again changes nothing; a forged one is refused and changes nothing
        assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
        const forged = yield* Effect.promise(() =>
          fetch(`${publicUrl}/api/v1/telephony/twilio/status/${sessionId}`, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": "forged" },
            body: new URLSearchParams({ CallSid: callSid, CallStatus: "completed" }).toString()
          }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
        )
        assert.deepStrictEqual([forged.status, forged.body.error.code], [403, "INVALID_SIGNATURE"])
        assert.strictEqual((yield* session()).status, "IN_PROGRESS")

        yield* Effect.sleep("1100 millis")
        twilio.setCallStatus(callSid, "completed")
        assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
        const done = yield* waitFor(
          session(),
          (s) => s.status === "ENDED",
          "the session ENDED after the completed callback"
        )
        assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed", provider: "PROVIDER_B" })
        assert.isAtLeast(done.durationSeconds, 1)
        assert.strictEqual(done.cost, Math.ceil((done.billedSeconds * 5) / 60))

        // hanging up a Twilio call posts Status=completed to Twilio
        const second = yield* post(`${comms}/channels/voice/call`, {
          token: user.key,
          json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550124" }
        })
        const secondSession = () =>
          Effect.map(get(`${comms}/calls/${second.body.sessionId}`, { token: user.key }), (r) => r.body)
        yield* waitFor(secondSession(), (s) => s.status === "DIALING", "the second session DIALING")
        const [secondRow] = yield* waitFor(
          sql<
            { providerCallId: string | null }
          >`SELECT provider_call_id FROM call_sessions WHERE id = ${second.body.sessionId}`.pipe(Effect.orDie),
          (rows) => rows[0]?.providerCallId != null,
          "the second session's Twilio call sid"
        )
        yield* post(`${comms}/calls/${second.body.sessionId}/hangup`, { token: user.key })
        const hangups = yield* waitFor(
          Effect.sync(() =>
            twilio.calls().filter((c) =>
              c.path.endsWith(`/Calls/${secondRow!.providerCallId}.json`) && c.method === "POST"
            )
          ),
          (c) => c.length > 0,
          "the hang-up posted to Twilio"
        )
        assert.deepStrictEqual(Object.fromEntries(hangups[0]!.form), { Status: "completed" })
      }))

    it.scoped("a call's end is posted to the key's webhook URL, signed, and listed in the deliveries", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const { received, url } = yield* webhookReceiver
        const user = yield* setUp("PROVIDER_A", url)
        const placed = yield* post(`${comms}/channels/voice/call`, {
          token: user.key,
          json: {
            agentId: user.agentId,
            voiceNumberId: user.voiceNumberId,
            toNumber: "+14155550001",
            metadata: { ref: "x1" }
          }
        })
        yield* waitFor(Effect.sync(() => received.length), (n) => n > 0, "the call-result webhook at the receiver")
        const delivery = received[0]!
        const payload = JSON.parse(delivery.body)
        assert.deepInclude(payload, { type: "call.ended" })
        assert.deepInclude(payload.data, {
          sessionId: placed.body.sessionId,
          outcome: "ANSWERED",
          durationSeconds: 1,
          toNumber: "+14155550001"
        })
        assert.deepStrictEqual(payload.data.metadata, { ref: "x1" })
        const [, timestamp] = /^t=(\d+),v1=/.exec(String(delivery.headers[SIGNATURE_HEADER]))!
        assert.strictEqual(
          delivery.headers[SIGNATURE_HEADER],
          sign(user.signingSecret, Number(timestamp), delivery.body)
        )
        assert.isBelow(Math.abs(Number(timestamp) - Date.now() / 1000), 60)

        const listed = yield* waitFor(
          Effect.map(get(`${comms}/webhook-deliveries`, { token: user.key }), (r) => r.body),
          (b) => b.items[0]?.deliveredAt != null,
          "the delivery listed as delivered"
        )
        assert.deepInclude(listed.items[0], {
          eventId: payload.id,
          eventType: "call.ended",
          url,
          attempts: 1,
          lastStatus: 200
        })
      }))
  })
})

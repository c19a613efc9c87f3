import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { Effect } from "effect"
import { createKey, get, patch, post, signup, waitUntil } from "./Http.js"

// The whole platform on the real clock, with the simulated carrier ringing for 200 ms.

const account = (topUp: number) =>
  Effect.gen(function*() {
    const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
    const user = yield* signup(gateway)
    const { key } = yield* createKey(gateway, user.token)
    if (topUp > 0) {
      const top = yield* post(`${gateway}/wallet/top-ups`, {
        token: user.token,
        json: { amount: topUp, idempotencyKey: "seed" }
      })
      assert.strictEqual(top.status, 201, top.text)
    }
    const persona = (yield* get(`${comms}/prompts/personas`, { token: key })).body.items[0]
    const agent =
      (yield* post(`${comms}/agents`, { token: key, json: { name: "Caller", agent_persona_id: persona.id } })).body
    const number = (yield* post(`${comms}/voice-numbers`, {
      token: key,
      json: { phoneNumber: `+1415555${String(1000 + Math.floor(Math.random() * 8999))}`, provider: "PROVIDER_A" }
    })).body
    return { ...user, key, agentId: agent.id as string, voiceNumberId: number.id as string }
  })

/** Polls the session until it has `status` (real time: the simulator rings for 200 ms). */
const reaches = (comms: string, key: string, sessionId: string, status: string) =>
  waitUntil(
    Effect.map(get(`${comms}/calls/${sessionId}`, { token: key }), (reply) => reply.body),
    (session) => session?.status === status,
    `call ${sessionId} ${status}`
  )

const ended = (comms: string, key: string, sessionId: string) => reaches(comms, key, sessionId, "ENDED")

describe("wallet and calls over HTTP", () => {
  layer(TestPlatform.layer(), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("wallet: top-ups are dashboard-only and idempotent; the ledger and rates are readable", () =>
      Effect.gen(function*() {
        const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
        const user = yield* account(0)
        const empty = yield* get(`${core}/wallet`, { token: user.key })
        assert.deepStrictEqual(empty.body, { currency: "USD", balance: 0, reserved: 0, available: 0 })

        const viaKey = yield* post(`${core}/wallet/top-ups`, {
          token: user.key,
          json: { amount: 100, idempotencyKey: "k1" }
        })
        assert.deepStrictEqual([viaKey.status, viaKey.body.error.code], [403, "API_KEY_NOT_ALLOWED"])
        const first = yield* post(`${core}/wallet/top-ups`, {
          token: user.token,
          json: { amount: 2500, idempotencyKey: "order-1" }
        })
        assert.strictEqual(first.status, 201)
        assert.deepInclude(first.body.transaction, {
          kind: "top_up",
          amount: 2500,
          balanceAfter: 2500,
          idempotencyKey: "order-1"
        })
        assert.deepStrictEqual(first.body.wallet, { currency: "USD", balance: 2500, reserved: 0, available: 2500 })
        const again = yield* post(`${core}/wallet/top-ups`, {
          token: user.token,
          json: { amount: 2500, idempotencyKey: "order-1" }
        })
        assert.strictEqual(again.body.transaction.id, first.body.transaction.id, "a retry answers the first top-up")
        const reused = yield* post(`${core}/wallet/top-ups`, {
          token: user.token,
          json: { amount: 9, idempotencyKey: "order-1" }
        })
        assert.deepStrictEqual([reused.status, reused.body.error.code], [422, "IDEMPOTENCY_KEY_REUSED"])
        for (
          const body of [
            { amount: 0, idempotencyKey: "x" },
            { amount: 1.5, idempotencyKey: "x" },
            { amount: -5, idempotencyKey: "x" },
            { amount: 5, idempotencyKey: "has space" },
            { amount: 5 }
          ]
        ) {
          const bad = yield* post(`${core}/wallet/top-ups`, { token: user.token, json: body })
          assert.deepStrictEqual(
            [bad.status, bad.body.error?.code],
            [400, "VALIDATION_FAILED"],
            `${JSON.stringify(body)} → ${bad.text}`
          )
        }
        assert.strictEqual((yield* get(`${core}/wallet`, { token: user.key })).body.balance, 2500)
        const ledger = yield* get(`${core}/billing/transactions`, { token: user.key })
        assert.deepStrictEqual([ledger.body.total, ledger.body.items[0].id], [1, first.body.transaction.id])
        const rates = yield* get(`${core}/billing/rates`, { token: user.key })
        assert.deepStrictEqual(rates.body, {
          currency: "USD",
          voicePerMinute: 5,
          webPerMinute: 5,
          billingIncrementSeconds: 6,
          smsPerSegment: 1,
          chatAppPerMessage: 1,
          minimumReservation: 10,
          reservationChunkSeconds: 120,
          source: "platform"
        })
      }))

    it.effect("places a call, reports it in the call log with its timeline and transcript, and bills it", () =>
      Effect.gen(function*() {
        const { comms, gateway, "platform-core": core } = yield* TestPlatform.TestPlatformUrls
        const user = yield* account(1000)
        // the callee talks 5 s (…0005): the greeting starts after the simulated callee joins the line,
        // which under CI's load took up to ~2 s, so a 2 s call could end before its greeting began
        const placed = yield* post(`${gateway}/channels/voice/call`, {
          token: user.key,
          json: {
            agentId: user.agentId,
            voiceNumberId: user.voiceNumberId,
            toNumber: "+14155550005",
            metadata: { crm: "lead-7" }
          }
        })
        assert.strictEqual(placed.status, 202, placed.text)
        assert.strictEqual(placed.body.status, "QUEUED")
        assert.match(placed.body.jobId, /^job_/)
        const session = yield* ended(comms, user.key, placed.body.sessionId)
        assert.deepInclude(session, {
          outcome: "ANSWERED",
          endReason: "completed",
          durationSeconds: 5,
          billedSeconds: 6,
          cost: 1,
          currency: "USD",
          toNumber: "+14155550005",
          agentId: user.agentId,
          direction: "OUTGOING"
        })
        assert.deepStrictEqual(session.metadata, { crm: "lead-7" })
        // the media's events sit beside the call's own: connected after the answer, stopped around the end
        const types: Array<string> = session.events.map((e: any) => e.type)
        assert.deepStrictEqual(types.filter((t) => !t.startsWith("media_")), [
          "queued",
          "dialing",
          "ringing",
          "answered",
          "ended"
        ])
        assert.deepStrictEqual(types.filter((t) => t.startsWith("media_")), ["media_connected", "media_stopped"])
        assert.isAbove(types.indexOf("media_connected"), types.indexOf("answered"))
        // the greeting, from its first audio just after the answer, cut off where the callee hung up
        assert.strictEqual(session.transcript[0].speaker, "agent")
        const greetingDelay = Date.parse(session.transcript[0].at) - Date.parse(session.answeredAt)
        assert.isTrue(
          greetingDelay >= 0 && greetingDelay < 2_000,
          `greeting began ${greetingDelay} ms after the answer`
        )
        assert.isBoolean(session.transcript[0].interrupted)
        const wallet = yield* get(`${core}/wallet`, { token: user.key })
        assert.deepStrictEqual(wallet.body, { currency: "USD", balance: 999, reserved: 0, available: 999 })
        const logs = yield* get(`${comms}/call-logs?status=ANSWERED`, { token: user.key })
        assert.strictEqual(logs.body.total, 1)
        assert.isUndefined(logs.body.items[0].transcript, "the log lists sessions without transcripts")
        const withLines = yield* get(`${comms}/call-logs?include=transcript`, { token: user.key })
        assert.deepStrictEqual(withLines.body.items[0].transcript, session.transcript)
        assert.strictEqual((yield* get(`${comms}/call-logs?status=BUSY`, { token: user.key })).body.total, 0)
        assert.strictEqual(
          (yield* get(`${comms}/call-logs?agentId=${user.agentId}`, { token: user.key })).body.total,
          1
        )
        assert.strictEqual(
          (yield* get(`${comms}/call-logs?from=2999-01-01T00:00:00Z`, { token: user.key })).body.total,
          0
        )
        assert.strictEqual((yield* get(`${comms}/call-logs?status=SOMETIMES`, { token: user.key })).status, 400)

        const usage = yield* get(`${core}/billing/usage`, { token: user.key })
        assert.deepInclude(usage.body, { calls: 1, billedSeconds: 6, minutes: 0.1 })
        assert.deepStrictEqual(usage.body.spend, { voice: 1, sms: 0, chatApp: 0, total: 1 })
        const analytics = yield* get(`${core}/analytics/calls`, { token: user.key })
        assert.deepInclude(analytics.body, { total: 1, answerRate: 1, averageDurationSeconds: 5 })
        assert.strictEqual(analytics.body.byOutcome.ANSWERED, 1)
      }))

    it.effect("refuses calls it must not place: 404s for others' references, 409 for an inactive agent, 402, 429", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const alice = yield* account(1000)
        const bob = yield* account(1000)
        const sql = yield* SqlClient.SqlClient
        const sessions = () =>
          sql<{ n: number }>`SELECT count(*) AS n FROM call_sessions WHERE tenant_id = ${alice.tenantId}`.pipe(
            Effect.map(([r]) => r!.n),
            Effect.orDie
          )
        const call = (body: Record<string, unknown>, key = alice.key) =>
          post(`${comms}/channels/voice/call`, {
            token: key,
            json: { agentId: alice.agentId, voiceNumberId: alice.voiceNumberId, toNumber: "+14155559002", ...body }
          })
        const cases: Array<[Record<string, unknown>, number, string]> = [
          [{ agentId: bob.agentId }, 404, "AGENT_NOT_FOUND"],
          [{ voiceNumberId: bob.voiceNumberId }, 404, "VOICE_NUMBER_NOT_FOUND"],
          [{ customerId: "00000000-0000-4000-8000-000000000000" }, 404, "CONTACT_NOT_FOUND"],
          [{ toNumber: "4155550100" }, 400, "VALIDATION_FAILED"],
          [{ voiceNumberId: "+14155550100" }, 400, "VALIDATION_FAILED"],
          [{ tenantId: bob.tenantId }, 403, "TENANT_MISMATCH"]
        ]
        for (const [body, status, code] of cases) {
          const reply = yield* call(body)
          assert.deepStrictEqual([reply.status, reply.body.error.code], [status, code], JSON.stringify(body))
        }
        const withOwnTenant = yield* call({ tenantId: alice.tenantId })
        assert.strictEqual(withOwnTenant.status, 202)

        const inactive = yield* patch(`${comms}/agents/${alice.agentId}`, {
          token: alice.key,
          json: { is_active: false }
        })
        assert.strictEqual(inactive.status, 200)
        const refusedInactive = yield* call({})
        assert.deepStrictEqual([refusedInactive.status, refusedInactive.body.error.code], [409, "AGENT_INACTIVE"])

        const broke = yield* account(5)
        const poor = yield* call({ agentId: broke.agentId, voiceNumberId: broke.voiceNumberId }, broke.key)
        assert.deepStrictEqual([poor.status, poor.body.error.code], [402, "INSUFFICIENT_FUNDS"])

        // ten calls ring at once (numbers ending 9002 never answer); the eleventh waits its turn
        const busy = yield* account(1000)
        for (let i = 0; i < 10; i++) {
          const r = yield* call({ agentId: busy.agentId, voiceNumberId: busy.voiceNumberId }, busy.key)
          assert.strictEqual(r.status, 202, r.text)
        }
        const over = yield* call({ agentId: busy.agentId, voiceNumberId: busy.voiceNumberId }, busy.key)
        assert.deepStrictEqual([over.status, over.body.error.code], [429, "CONCURRENT_CALL_LIMIT"])
        assert.strictEqual(yield* sessions(), 1, "refused calls write no session")
      }))

    it.effect("an Idempotency-Key makes a retry return the first answer, and refuses another body", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const user = yield* account(1000)
        const body = { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155559002" }
        const headers = { "idempotency-key": "place-call-1" }
        const first = yield* post(`${comms}/channels/voice/call`, { token: user.key, json: body, headers })
        const retry = yield* post(`${comms}/channels/voice/call`, { token: user.key, json: { ...body }, headers })
        assert.deepStrictEqual([first.status, retry.status], [202, 202])
        assert.deepStrictEqual(retry.body, first.body)
        const other = yield* post(`${comms}/channels/voice/call`, {
          token: user.key,
          json: { ...body, toNumber: "+14155559001" },
          headers
        })
        assert.deepStrictEqual([other.status, other.body.error.code], [422, "IDEMPOTENCY_KEY_REUSED"])
        const logs = yield* get(`${comms}/call-logs`, { token: user.key })
        assert.strictEqual(logs.body.total, 1, "one call placed")
        const badKey = yield* post(`${comms}/channels/voice/call`, {
          token: user.key,
          json: body,
          headers: { "idempotency-key": "no spaces please" }
        })
        assert.strictEqual(badKey.status, 400)
      }))

    it.effect("hang-up ends a live call; another tenant's call is a 404", () =>
      Effect.gen(function*() {
        const { comms } = yield* TestPlatform.TestPlatformUrls
        const user = yield* account(1000)
        const other = yield* account(0)
        const placed = yield* post(`${comms}/channels/voice/call`, {
          token: user.key,
          json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155559002" }
        })
        const sessionId = placed.body.sessionId
        const foreign = yield* post(`${comms}/calls/${sessionId}/hangup`, { token: other.key })
        assert.deepStrictEqual([foreign.status, foreign.body.error.code], [404, "CALL_NOT_FOUND"])
        assert.strictEqual((yield* get(`${comms}/calls/${sessionId}`, { token: other.key })).status, 404)
        // …9002 rings until its dial timeout: hang up while it rings
        yield* reaches(comms, user.key, sessionId, "RINGING")
        const hung = yield* post(`${comms}/calls/${sessionId}/hangup`, { token: user.key })
        assert.deepStrictEqual(hung.body, { sessionId, status: "ENDED", outcome: "CANCELED" })
        const again = yield* post(`${comms}/calls/${sessionId}/hangup`, { token: user.key })
        assert.deepStrictEqual(again.body, hung.body)
        const session = yield* ended(comms, user.key, sessionId)
        assert.deepInclude(session, { endReason: "hangup_requested", cost: 0 })
        assert.include(session.events.map((e: any) => e.type), "hangup_requested")
      }))
  })
})

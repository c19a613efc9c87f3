import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import type { TenantId } from "@voiceagent/domain/Ids"
import { type DialRequest, INBOUND_REFUSED_MESSAGE } from "@voiceagent/runner/Ports/Telephony"
import {
  callStatusOf,
  hangupCommandId,
  refusedHangUpAfter,
  transferCommandId
} from "@voiceagent/runner/Telephony/TelnyxCarrier"
import {
  callEventOf,
  hangupCauseKind,
  parsePublicKey,
  parseWebhookEvent,
  signWebhook,
  TIMESTAMP_TOLERANCE_MS,
  verifyWebhook
} from "@voiceagent/runner/Telephony/TelnyxWebhooks"
import * as FakeTelnyx from "@voiceagent/runner/Testing/FakeTelnyx"
import { telnyxStreamUrl } from "@voiceagent/runner/Voice/TelnyxMedia"
import { Chunk, Clock, Duration, Effect, Either, Fiber, Logger, Option, Redacted, TestClock } from "effect"
import * as crypto from "node:crypto"

const SESSION_ID = "0190b0a2-7c1e-7d3a-9f00-000000000001" as SessionId
const WEBHOOKS = "https://voice.example.com"

const dialRequest = (overrides: Partial<DialRequest> = {}): DialRequest => ({
  sessionId: SESSION_ID,
  provider: "PROVIDER_C",
  from: "+14155550100",
  to: "+14155552671",
  agent: {
    tenantId: "0190a5b0-0000-7000-8000-000000000001" as TenantId,
    name: "Ada",
    greetMessage: "Hello",
    agentPrompt: "Be brief.",
    metadata: {},
    knowledgeBaseIds: []
  },
  media: { streamUrl: "wss://runner-1.example.com/media/twilio", token: `${SESSION_ID}.1700000000000.mac` },
  ...overrides
})

const setup = (options: Parameters<typeof FakeTelnyx.carrier>[2] = {}) =>
  Effect.gen(function*() {
    const fake = yield* FakeTelnyx.make()
    const carrier = yield* FakeTelnyx.carrier(fake, WEBHOOKS, { retryDelays: [0, 0], ...options })
    return { fake, carrier }
  })

const withCapturedLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, message }) => {
    lines.push(JSON.stringify({ message, annotations: Array.from(annotations) }))
  })
  return Effect.map(Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)), (a) => [a, lines] as const)
}

const refusal = <A>(effect: Effect.Effect<A, { readonly reason: string }>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

layer(NodeHttpClient.layerUndici)("TelnyxCarrier", (it) => {
  it.scoped(
    "dials with Call Control's documented fields, Bearer auth, the session as command_id, and answers the " +
      "call_control_id",
    () =>
      Effect.gen(function*() {
        const { carrier, fake } = yield* setup({ ringTimeoutSeconds: 25 })
        assert.strictEqual(carrier.name, "telnyx")
        const { providerCallId } = yield* carrier.dial(dialRequest())
        assert.match(providerCallId, /^v3:/)
        const [request] = fake.requests()
        assert.strictEqual(request!.method, "POST")
        assert.strictEqual(request!.path, "/v2/calls")
        assert.strictEqual(request!.authorization, `Bearer ${fake.apiKey}`)
        assert.match(request!.contentType!, /^application\/json/)
        assert.deepStrictEqual(request!.body, {
          connection_id: fake.connectionId,
          to: "+14155552671",
          from: "+14155550100",
          webhook_url: `${WEBHOOKS}/api/v1/telephony/telnyx/webhook/${SESSION_ID}`,
          webhook_url_method: "POST",
          command_id: SESSION_ID,
          stream_url: "wss://runner-1.example.com/media/telnyx",
          stream_track: "inbound_track",
          stream_codec: "PCMU",
          stream_bidirectional_mode: "rtp",
          stream_bidirectional_codec: "PCMU",
          stream_auth_token: `${SESSION_ID}.1700000000000.mac`,
          timeout_secs: 25
        })
        assert.deepInclude(fake.call(providerCallId), { state: "initiated", timeoutSecs: 25 })
      })
  )

  it("puts the Telnyx stream beside the runner's Twilio one, whatever prefix the media address has", () => {
    assert.strictEqual(telnyxStreamUrl("ws://127.0.0.1:3004/media/twilio"), "ws://127.0.0.1:3004/media/telnyx")
    assert.strictEqual(
      telnyxStreamUrl("wss://proxy.example.com/runner-1/media/twilio"),
      "wss://proxy.example.com/runner-1/media/telnyx"
    )
    assert.strictEqual(telnyxStreamUrl("wss://runner-1.example.com/"), "wss://runner-1.example.com/media/telnyx")
  })

  it.scoped("keeps the ring timeout within Telnyx's 5 to 600 seconds", () =>
    Effect.gen(function*() {
      const short = yield* setup({ ringTimeoutSeconds: 2 })
      yield* short.carrier.dial(dialRequest())
      assert.strictEqual((short.fake.requests()[0]!.body as any).timeout_secs, 5)
      const long = yield* setup({ ringTimeoutSeconds: 3600 })
      yield* long.carrier.dial(dialRequest())
      assert.strictEqual((long.fake.requests()[0]!.body as any).timeout_secs, 600)
      const none = yield* setup()
      yield* none.carrier.dial(dialRequest())
      assert.notProperty(none.fake.requests()[0]!.body, "timeout_secs")
    }))

  it.scoped("refuses a dial with no media server to stream to, without asking Telnyx", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      assert.include(yield* refusal(carrier.dial(dialRequest({ media: undefined }))), "no media server")
      assert.strictEqual(fake.requests().length, 0)
    }))

  it.scoped("refuses at once, without a second try, what Telnyx answers with a 4xx: its title, detail and code", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      const badTo = yield* refusal(carrier.dial(dialRequest({ to: "4155552671" })))
      assert.include(badTo, "422")
      assert.include(badTo, "Invalid value")
      assert.include(badTo, "10015")
      assert.strictEqual(fake.requests().length, 1)
      fake.failNext({
        _tag: "Respond",
        status: 403,
        body: { errors: [{ code: "10010", title: "Forbidden", detail: "Not allowed" }] }
      })
      assert.strictEqual(
        yield* refusal(carrier.dial(dialRequest())),
        "Telnyx answered 403: Forbidden (Not allowed) (code 10010)"
      )
      assert.strictEqual(fake.requests().length, 2)
    }))

  it.scoped("refuses a dial on a bad API key without revealing it", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup({ apiKey: Redacted.make("KEY-not-the-key") })
      const reason = yield* refusal(carrier.dial(dialRequest()))
      assert.include(reason, "401")
      assert.include(reason, "Authentication failed")
      assert.notInclude(reason, "KEY-not-the-key")
      assert.strictEqual(fake.requests().length, 1)
    }))

  it.scoped("an outage (5xx, 429, a dropped connection) is sent again with the same command_id: one call placed", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      fake.failNext({ _tag: "Respond", status: 503 })
      fake.failNext({ _tag: "Reset" })
      const { providerCallId } = yield* carrier.dial(dialRequest())
      assert.strictEqual(fake.requests().length, 3)
      assert.deepStrictEqual(fake.requests().map((r) => (r.body as any).command_id), [
        SESSION_ID,
        SESSION_ID,
        SESSION_ID
      ])
      assert.deepStrictEqual(fake.createdCalls().map((c) => c.callControlId), [providerCallId])

      // the same session dialled again (a retried command that did reach Telnyx): the same call, nothing placed
      assert.strictEqual((yield* carrier.dial(dialRequest())).providerCallId, providerCallId)
      assert.strictEqual(fake.createdCalls().length, 1)

      // three outages in a row: refused, saying why
      fake.failNext({ _tag: "Respond", status: 500 })
      fake.failNext({ _tag: "Respond", status: 429, body: { errors: [{ code: "10011", title: "Too many requests" }] } })
      fake.failNext({ _tag: "Reset" })
      const other = "0190b0a2-7c1e-7d3a-9f00-000000000002" as SessionId
      assert.include(yield* refusal(carrier.dial(dialRequest({ sessionId: other }))), "could not be reached")
      assert.strictEqual(fake.createdCalls().length, 1)
      fake.failNext({ _tag: "Respond", status: 502 })
      fake.failNext({ _tag: "Respond", status: 502 })
      fake.failNext({ _tag: "Respond", status: 502 })
      assert.include(yield* refusal(carrier.dial(dialRequest({ sessionId: other }))), "Telnyx answered 502")
      fake.failNext({ _tag: "Respond", status: 200, body: { data: { is_alive: false } } })
      assert.include(yield* refusal(carrier.dial(dialRequest({ sessionId: other }))), "without a call_control_id")
    }))

  it.scoped("a dial Telnyx does not answer within 10 s is tried again after the retry delay (on the TestClock)", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup({ retryDelays: ["1 second"] })
      fake.failNext({ _tag: "Hang" })
      const fiber = yield* Effect.fork(carrier.dial(dialRequest()))
      yield* fake.awaitRequests(1)
      yield* TestClock.adjust("10 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      yield* fake.awaitRequests(2)
      const { providerCallId } = yield* Fiber.join(fiber)
      assert.strictEqual(fake.createdCalls()[0]!.callControlId, providerCallId)
    }))

  it.scoped(
    "answers an incoming call with the dial's stream settings, the session's webhook URL and a command_id: sent " +
      "again on an outage, answered once",
    () =>
      Effect.gen(function*() {
        const { carrier, fake } = yield* setup()
        const call = fake.incoming({
          webhookUrl: `${WEBHOOKS}/api/v1/telephony/telnyx/webhook`,
          from: "+14155552671",
          to: "+14155550100"
        })
        const media = dialRequest().media!
        fake.failNext({ _tag: "Respond", status: 503 })
        yield* carrier.answer!({ sessionId: SESSION_ID, providerCallId: call.callControlId, media })
        const posts = fake.requests()
        assert.deepStrictEqual(
          posts.map((r) => r.path),
          Array(2).fill(`/v2/calls/${call.callControlId}/actions/answer`)
        )
        assert.deepStrictEqual(posts[1]!.body, {
          command_id: `answer-${SESSION_ID}`,
          webhook_url: `${WEBHOOKS}/api/v1/telephony/telnyx/webhook/${SESSION_ID}`,
          webhook_url_method: "POST",
          stream_url: telnyxStreamUrl(media.streamUrl),
          stream_track: "inbound_track",
          stream_codec: "PCMU",
          stream_bidirectional_mode: "rtp",
          stream_bidirectional_codec: "PCMU",
          stream_auth_token: media.token
        })
        assert.deepInclude(fake.call(call.callControlId), {
          state: "answered",
          webhookUrl: `${WEBHOOKS}/api/v1/telephony/telnyx/webhook/${SESSION_ID}`,
          streamUrl: telnyxStreamUrl(media.streamUrl),
          streamAuthToken: media.token
        })
        // the same command again is ignored; a call over is refused, saying why; no media server, not asked
        yield* carrier.answer!({ sessionId: SESSION_ID, providerCallId: call.callControlId, media })
        fake.hangUp(call.callControlId, "normal_clearing", "caller")
        const other = "0190b0a2-7c1e-7d3a-9f00-000000000002" as SessionId
        assert.include(
          yield* refusal(carrier.answer!({ sessionId: other, providerCallId: call.callControlId, media })),
          "Call has already ended"
        )
        const before = fake.requests().length
        assert.include(
          yield* refusal(carrier.answer!({ sessionId: other, providerCallId: call.callControlId, media: undefined })),
          "no media server"
        )
        assert.strictEqual(fake.requests().length, before)
      })
  )

  it.scoped(
    "streams an answered call to a new owner with streaming_start (the dial's stream settings); a call over is " +
      "logged, not raised",
    () =>
      Effect.gen(function*() {
        const { carrier, fake } = yield* setup()
        const { providerCallId } = yield* carrier.dial(dialRequest())
        fake.answer(providerCallId)
        const media = { streamUrl: "ws://10.0.0.2:8443/media/twilio", token: "fresh-token" }
        yield* carrier.restream!(providerCallId, media)
        assert.deepStrictEqual(fake.requests().at(-1)!.path, `/v2/calls/${providerCallId}/actions/streaming_start`)
        assert.deepStrictEqual(fake.requests().at(-1)!.body, {
          stream_url: telnyxStreamUrl(media.streamUrl),
          stream_track: "inbound_track",
          stream_codec: "PCMU",
          stream_bidirectional_mode: "rtp",
          stream_bidirectional_codec: "PCMU",
          stream_auth_token: "fresh-token"
        })
        assert.deepInclude(fake.call(providerCallId), {
          streamUrl: telnyxStreamUrl(media.streamUrl),
          streamAuthToken: "fresh-token",
          streamStarts: 1
        })
        fake.hangUp(providerCallId, "normal_clearing", "caller")
        const [, lines] = yield* withCapturedLogs(carrier.restream!(providerCallId, media))
        assert.strictEqual(lines.length, 1)
        assert.include(lines[0]!, "Telnyx did not restream a call")
      })
  )

  it.scoped(
    "turns an incoming call away as Twilio's <Say> does: answered without a stream, told the message, hung up once " +
      "it is said (TestClock); busy when it cannot be answered; a failure is logged, not raised",
    () =>
      Effect.gen(function*() {
        const { carrier, fake } = yield* setup()
        const webhookUrl = `${WEBHOOKS}/api/v1/telephony/telnyx/webhook`
        const call = fake.incoming({ webhookUrl, from: "+14155552671", to: "+14155550100" })
        const id = call.callControlId
        yield* carrier.refuse!(id, "insufficient_funds")
        assert.deepStrictEqual(fake.requests().map((r) => [r.path, r.body]), [
          [`/v2/calls/${id}/actions/answer`, { command_id: `refuse-answer-${id}` }],
          [`/v2/calls/${id}/actions/speak`, {
            payload: INBOUND_REFUSED_MESSAGE,
            payload_type: "text",
            voice: "female",
            language: "en-US",
            command_id: `refuse-speak-${id}`
          }]
        ])
        assert.deepInclude(fake.call(id), {
          state: "answered",
          spoken: [INBOUND_REFUSED_MESSAGE],
          streamUrl: undefined
        })
        // 13 words at 150 a minute and the speech's start: 6.7 s, and not before
        const after = Duration.toMillis(refusedHangUpAfter(INBOUND_REFUSED_MESSAGE))
        assert.strictEqual(after, 6700)
        const deadline = (yield* Clock.currentTimeMillis) + after
        // the hang-up's fiber waits on the TestClock for exactly then
        const waiting = Effect.map(TestClock.sleeps(), (sleeps) => Chunk.toReadonlyArray(sleeps).includes(deadline))
        for (let i = 0; i < 1000 && !(yield* waiting); i++) yield* Effect.yieldNow()
        assert.isTrue(yield* waiting, "the hang-up waits for the message's end")
        yield* TestClock.adjust(after - 1)
        assert.isTrue(yield* waiting, "still waiting while the message is said")
        assert.strictEqual(fake.requests().length, 2, "no hang-up yet")
        yield* TestClock.adjust(1)
        yield* fake.awaitRequests(3)
        assert.deepStrictEqual(fake.requests().at(-1)!.body, { command_id: hangupCommandId(id) })
        assert.strictEqual(fake.call(id)!.state, "hangup")

        // Telnyx will not answer it: rejected, busy
        const other = fake.incoming({ webhookUrl, from: "+14155552671", to: "+14155550100" })
        fake.failNext({
          _tag: "Respond",
          status: 422,
          body: { errors: [{ code: "90034", title: "Call is not in an answerable state" }] }
        })
        yield* carrier.refuse!(other.callControlId, "concurrent_call_limit")
        assert.deepStrictEqual(fake.requests().at(-1)!.body, {
          cause: "USER_BUSY",
          command_id: `reject-${other.callControlId}`
        })
        assert.deepInclude(fake.call(other.callControlId), { state: "hangup", hangupCause: "user_busy" })

        // a call Telnyx does not know: logged (without the key), not raised
        const [, lines] = yield* withCapturedLogs(carrier.refuse!("v3:gone", "concurrent_call_limit"))
        assert.strictEqual(lines.length, 1)
        assert.include(lines[0]!, "Telnyx did not reject a call")
        assert.notInclude(lines[0]!, fake.apiKey)
      })
  )

  it.scoped("hangs up with a command_id of its own; again, or once the call is over, changes nothing", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      const { providerCallId } = yield* carrier.dial(dialRequest())
      fake.answer(providerCallId)
      fake.failNext({ _tag: "Respond", status: 503 })
      const [, lines] = yield* withCapturedLogs(carrier.hangup(providerCallId))
      const posts = fake.requests().slice(1)
      assert.deepStrictEqual(posts.map((r) => [r.method, r.path, r.body]), [
        ["POST", `/v2/calls/${providerCallId}/actions/hangup`, { command_id: hangupCommandId(providerCallId) }],
        ["POST", `/v2/calls/${providerCallId}/actions/hangup`, { command_id: hangupCommandId(providerCallId) }]
      ])
      assert.strictEqual(posts[0]!.authorization, `Bearer ${fake.apiKey}`)
      assert.deepInclude(fake.call(providerCallId), { state: "hangup", hangupCause: "normal_clearing", hangups: 1 })
      // the second try went through: nothing to warn about
      assert.deepStrictEqual(lines, [])
      // the same command again: ignored by Telnyx
      yield* carrier.hangup(providerCallId)
      assert.strictEqual(fake.call(providerCallId)!.hangups, 1)
    }))

  it.scoped(
    "transfers an answered call with Call Control's transfer (to, from, a command_id of its own): once, however " +
      "often sent; refused before the answer",
    () =>
      Effect.gen(function*() {
        const { carrier, fake } = yield* setup()
        const { providerCallId } = yield* carrier.dial(dialRequest())
        const before = yield* refusal(carrier.transfer!(providerCallId, { to: "+14155550199", from: "+14155550100" }))
        assert.match(before, /90018/)
        fake.answer(providerCallId)
        // an outage is sent again with the same command id: Telnyx transfers once
        fake.failNext({ _tag: "Respond", status: 503 })
        yield* carrier.transfer!(providerCallId, { to: "+14155550199", from: "+14155550100" })
        yield* carrier.transfer!(providerCallId, { to: "+14155550199", from: "+14155550100" })
        const posts = fake.requests().filter((r) => r.path.endsWith("/actions/transfer"))
        assert.deepStrictEqual(posts.at(-1)!.body, {
          to: "+14155550199",
          from: "+14155550100",
          command_id: transferCommandId(providerCallId)
        })
        assert.strictEqual(posts.length, 4)
        assert.deepStrictEqual(fake.call(providerCallId)!.transfers?.map((t) => [t.to, t.from]), [[
          "+14155550199",
          "+14155550100"
        ]])
        // a number Telnyx cannot dial: its error
        const other = yield* carrier.dial(
          dialRequest({ sessionId: "0190b0a2-7c1e-7d3a-9f00-000000000002" as SessionId })
        )
        fake.answer(other.providerCallId)
        const bad = yield* refusal(carrier.transfer!(other.providerCallId, { to: "0199", from: "+14155550100" }))
        assert.match(bad, /Invalid value for to/)
      })
  )

  it.scoped("logs and swallows hang-up failures, an ended call quietly, keeping the key out of the logs", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      const { providerCallId } = yield* carrier.dial(dialRequest())
      fake.hangUp(providerCallId, "normal_clearing")
      for (let i = 0; i < 3; i++) fake.failNext({ _tag: "Respond", status: 500 })
      const [, lines] = yield* withCapturedLogs(Effect.all([
        carrier.hangup(providerCallId),
        carrier.hangup(providerCallId),
        carrier.hangup("v3:unknown")
      ]))
      assert.strictEqual(lines.length, 2, JSON.stringify(lines))
      assert.include(lines[0], "Telnyx hangup failed")
      assert.include(lines[0], "500")
      assert.include(lines[1], "90015")
      for (const line of lines) assert.notInclude(line, fake.apiKey)
    }))

  it.scoped("asks where a call stands: alive says nothing; over, with Telnyx's end and talk time; unknown, none", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      const { providerCallId } = yield* carrier.dial(dialRequest())
      assert.deepStrictEqual(yield* carrier.status(providerCallId), Option.some({ phase: "dialing" as const }))
      const request = fake.requests().at(-1)!
      assert.deepStrictEqual([request.method, request.path], ["GET", `/v2/calls/${providerCallId}`])

      fake.answer(providerCallId)
      yield* TestClock.adjust("42 seconds")
      fake.hangUp(providerCallId)
      const status = yield* carrier.status(providerCallId)
      const call = fake.call(providerCallId)!
      assert.deepStrictEqual(
        status,
        Option.some({
          phase: "completed" as const,
          endedAt: call.endedAt!.getTime(),
          answeredAt: call.endedAt!.getTime() - 42_000
        })
      )
      assert.deepStrictEqual(yield* carrier.status("v3:unknown"), Option.none())

      // an outage, and an answer Telnyx should not give, say nothing about the call
      for (let i = 0; i < 3; i++) fake.failNext({ _tag: "Reset" })
      assert.deepStrictEqual(yield* carrier.status(providerCallId), Option.some({ phase: "dialing" as const }))
      fake.failNext({ _tag: "Respond", status: 400 })
      assert.deepStrictEqual(yield* carrier.status(providerCallId), Option.some({ phase: "dialing" as const }))
    }))
})

describe("Telnyx call status", () => {
  it("an unanswered call over has no answer time; a live one says nothing", () => {
    assert.deepStrictEqual(
      callStatusOf({ data: { is_alive: false, call_duration: 0, end_time: "2026-11-23T15:00:10.000Z" } }),
      {
        phase: "completed",
        endedAt: Date.parse("2026-11-23T15:00:10.000Z")
      }
    )
    // the documented example: 110 s from start to end, 50 of them talked
    assert.deepStrictEqual(
      callStatusOf({
        data: {
          is_alive: false,
          call_duration: 50,
          start_time: "2019-01-23T18:10:02.574Z",
          end_time: "2019-01-23T18:11:52.574Z"
        }
      }),
      {
        phase: "completed",
        endedAt: Date.parse("2019-01-23T18:11:52.574Z"),
        answeredAt: Date.parse("2019-01-23T18:11:02.574Z")
      }
    )
    assert.deepStrictEqual(callStatusOf({ data: { is_alive: true, call_duration: 12 } }), { phase: "dialing" })
    assert.deepStrictEqual(callStatusOf("garbage"), { phase: "dialing" })
    assert.deepStrictEqual(callStatusOf({ data: { is_alive: false } }), { phase: "completed" })
  })
})

describe("Telnyx webhook signatures", () => {
  const keys = crypto.generateKeyPairSync("ed25519")
  const raw = keys.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("base64")
  const key = Either.getOrThrow(parsePublicKey(raw))
  const body = Buffer.from(
    JSON.stringify({ data: { id: "e1", event_type: "call.answered", payload: { call_control_id: "v3:x" } } })
  )
  const now = Date.parse("2026-11-23T15:00:00Z")
  const timestamp = String(now / 1000)
  const signature = signWebhook(keys.privateKey, timestamp, body)

  it("reads the key as Telnyx shows it (base64 of 32 bytes), as DER or PEM; refuses anything else", () => {
    assert.isTrue(Either.isRight(parsePublicKey(` ${raw}\n`)))
    assert.isTrue(
      Either.isRight(parsePublicKey(keys.publicKey.export({ format: "der", type: "spki" }).toString("base64")))
    )
    assert.isTrue(Either.isRight(parsePublicKey(keys.publicKey.export({ format: "pem", type: "spki" }) as string)))
    assert.include(Either.flip(parsePublicKey("not a key!")).pipe(Either.getOrThrow), "base64")
    assert.include(Either.flip(parsePublicKey(Buffer.alloc(31).toString("base64"))).pipe(Either.getOrThrow), "31 bytes")
    const rsa = crypto.generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({
      format: "pem",
      type: "spki"
    }) as string
    assert.include(Either.flip(parsePublicKey(rsa)).pipe(Either.getOrThrow), "not an Ed25519")
  })

  it("accepts Telnyx's signature over `timestamp|body`, within five minutes either way", () => {
    assert.isUndefined(verifyWebhook(key, { signature, timestamp }, body, now))
    assert.isUndefined(verifyWebhook(key, { signature, timestamp }, body, now + TIMESTAMP_TOLERANCE_MS))
    assert.isUndefined(verifyWebhook(key, { signature, timestamp }, body, now - TIMESTAMP_TOLERANCE_MS))
  })

  it(
    "refuses a missing, malformed or wrong signature, a missing or stale timestamp, an altered body, another key",
    () => {
      const check = (
        headers: { signature?: string | undefined; timestamp?: string | undefined },
        bytes = body,
        at = now
      ) => verifyWebhook(key, { signature: headers.signature, timestamp: headers.timestamp }, bytes, at)
      assert.strictEqual(check({ timestamp }), "missing signature")
      assert.strictEqual(check({ signature, timestamp: "" }), "missing timestamp")
      assert.strictEqual(check({ signature, timestamp: "1.5e9" }), "malformed timestamp")
      assert.strictEqual(check({ signature, timestamp }, body, now + TIMESTAMP_TOLERANCE_MS + 1000), "stale timestamp")
      assert.strictEqual(check({ signature, timestamp }, body, now - TIMESTAMP_TOLERANCE_MS - 1000), "stale timestamp")
      assert.strictEqual(check({ signature: "AAAA", timestamp }), "malformed signature")
      assert.strictEqual(check({ signature: "@@@", timestamp }), "malformed signature")
      // the body replayed with one character changed, or under a newer timestamp
      assert.strictEqual(
        check({ signature, timestamp }, Buffer.from(body.toString().replace("answered", "hangup"))),
        "bad signature"
      )
      assert.strictEqual(check({ signature, timestamp: String(now / 1000 + 1) }), "bad signature")
      const other = crypto.generateKeyPairSync("ed25519").privateKey
      assert.strictEqual(check({ signature: signWebhook(other, timestamp, body), timestamp }), "bad signature")
    }
  )
})

describe("Telnyx webhook events", () => {
  const envelope = (data: Record<string, unknown>) => ({
    data: { record_type: "event", id: "0ccc7b54", occurred_at: "2026-11-23T15:00:00.521992Z", ...data }
  })

  it("reads the envelope; refuses what is not one", () => {
    const event = Either.getOrThrow(
      parseWebhookEvent(envelope({ event_type: "call.answered", payload: { call_control_id: "v3:a" } }))
    )
    assert.deepStrictEqual(event, {
      id: "0ccc7b54",
      eventType: "call.answered",
      occurredAt: Date.parse("2026-11-23T15:00:00.521Z"),
      payload: { call_control_id: "v3:a" }
    })
    for (
      const [bad, reason] of [
        [null, "not a JSON object"],
        [[], "not a JSON object"],
        [{}, "no data object"],
        [{ data: { event_type: "call.answered" } }, "data.id"],
        [{ data: { id: "", event_type: "call.answered" } }, "data.id"],
        [{ data: { id: "e", event_type: 5 } }, "data.event_type"],
        [{ data: { id: "e", event_type: "call.answered", occurred_at: "yesterday" } }, "occurred_at"],
        [{ data: { id: "e", event_type: "call.answered", payload: [] } }, "payload"]
      ] as const
    ) {
      assert.include(Either.flip(parseWebhookEvent(bad)).pipe(Either.getOrThrow), reason, JSON.stringify(bad))
    }
  })

  it("maps answered and hang-ups by cause onto the call; everything else changes nothing", () => {
    const of = (eventType: string, payload: Record<string, unknown>) =>
      callEventOf(Either.getOrThrow(parseWebhookEvent(envelope({ event_type: eventType, payload }))))
    assert.deepStrictEqual(of("call.answered", { call_control_id: "v3:a" }), {
      kind: "answered",
      at: Date.parse("2026-11-23T15:00:00.521Z"),
      callControlId: "v3:a"
    })
    assert.deepStrictEqual(
      of("call.hangup", { call_control_id: "v3:a", hangup_cause: "normal_clearing", end_time: "2026-11-23T15:01:00Z" }),
      {
        kind: "completed",
        at: Date.parse("2026-11-23T15:01:00Z"),
        callControlId: "v3:a"
      }
    )
    assert.deepInclude(of("call.hangup", { call_control_id: "v3:a", hangup_cause: "user_busy" }), {
      kind: "busy",
      at: Date.parse("2026-11-23T15:00:00.521Z")
    })
    for (
      const type of [
        "call.initiated",
        "streaming.started",
        "streaming.stopped",
        "call.machine.detection.ended",
        "call.bridged"
      ]
    ) {
      assert.isNull(of(type, { call_control_id: "v3:a" }), type)
    }
    assert.include(of("call.answered", {}) as string, "without a call_control_id")
    assert.include(of("call.hangup", { call_control_id: "v3:a", end_time: "soon" }) as string, "end_time")
    assert.deepStrictEqual(
      [
        "user_busy",
        "call_rejected",
        "timeout",
        "no_answer",
        "originator_cancel",
        "not_found",
        "unspecified",
        "normal_clearing",
        "time_limit",
        "new_cause",
        undefined
      ]
        .map(hangupCauseKind),
      [
        "busy",
        "busy",
        "no_answer",
        "no_answer",
        "no_answer",
        "failed",
        "failed",
        "completed",
        "completed",
        "completed",
        "completed"
      ]
    )
  })
})

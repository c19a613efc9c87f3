/**
 * Voice calls on Telnyx, end to end over loopback sockets: the platform with PROVIDER_B numbers on
 * Telnyx Call Control (FakeTelnyx: the REST API and its Ed25519-signed webhooks), the runner's media
 * server on a free port, and the speech and language providers' real adapters on their fakes.
 * FakeTelnyxMedia plays Telnyx's side of each call's media stream, from the dial the platform sent
 * (`stream_url`, `stream_auth_token`); the caller speaks the recorded fixtures in real time. Then the
 * webhook route under bad input: a refusal writes nothing and is never a 5xx.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { hangupCommandId } from "@voiceagent/runner/Telephony/TelnyxCarrier"
import { SIGNATURE_HEADER as TELNYX_SIGNATURE, TIMESTAMP_HEADER } from "@voiceagent/runner/Telephony/TelnyxWebhooks"
import * as FakeDeepgram from "@voiceagent/runner/Testing/FakeDeepgram"
import * as FakeElevenLabs from "@voiceagent/runner/Testing/FakeElevenLabs"
import { type FakeOpenAiChatServer, makeFakeOpenAiChat } from "@voiceagent/runner/Testing/FakeOpenAiChat"
import * as FakeTelnyx from "@voiceagent/runner/Testing/FakeTelnyx"
import * as FakeTelnyxMedia from "@voiceagent/runner/Testing/FakeTelnyxMedia"
import { sign, SIGNATURE_HEADER } from "@voiceagent/runner/Webhooks/Webhooks"
import { Context, Effect, Layer, Redacted } from "effect"
import * as crypto from "node:crypto"
import { assertBilled, lines, story, webhookReceiver } from "./CallScenario.js"
import { tableCounts } from "./Hostile.js"
import { callReady, get, patch, portToName, post, waitUntil } from "./Http.js"

class Telnyx extends Context.Tag("TelnyxCalls/Telnyx")<Telnyx, {
  readonly fake: FakeTelnyx.FakeTelnyxServer
  readonly publicUrl: string
  readonly chat: FakeOpenAiChatServer
}>() {}

const QUESTION = "How much does the premium plan cost?"
const GOODBYE = "That's all I needed, goodbye."
const ANSWER = "The premium plan costs twenty dollars a month, and it includes unlimited calls and priority support."

const platform = Layer.unwrapScoped(Effect.gen(function*() {
  const gatewayPort = yield* Effect.promise(() => portToName())
  const publicUrl = `http://127.0.0.1:${gatewayPort}`
  const fake = yield* FakeTelnyx.make()
  const deepgram = yield* FakeDeepgram.make({
    vad: "webrtc",
    segmentGapMs: 300,
    scripts: { Tess: [QUESTION], Uma: [QUESTION], Vic: [GOODBYE] }
  })
  const chat = yield* makeFakeOpenAiChat({
    apiKey: "sk-fake-telnyx",
    scripts: [
      { when: "goodbye", reply: { text: "Goodbye!", toolCalls: [{ name: "end_call", arguments: {} }] } },
      { when: "premium plan", reply: { text: ANSWER } }
    ]
  })
  const elevenLabs = yield* FakeElevenLabs.make()
  return TestPlatform.layer({
    ports: { gateway: gatewayPort },
    publicUrl,
    telnyxPublicKey: fake.publicKey,
    runtime: {
      carriers: { PROVIDER_B: FakeTelnyx.carrier(fake, publicUrl, { ringTimeoutSeconds: 30 }) },
      media: { host: "127.0.0.1", port: 0 },
      voice: {
        deepgram: { url: deepgram.url, apiKey: Redacted.make(deepgram.apiKey) },
        openAiChat: { baseUrl: chat.url, apiKey: Redacted.make("sk-fake-telnyx") },
        elevenLabs: { url: elevenLabs.url, apiKey: Redacted.make(elevenLabs.apiKey), voice: "21m00Tcm4TlvDq8ikWAM" }
      }
    }
  }).pipe(Layer.merge(Layer.succeed(Telnyx, { fake, publicUrl, chat })))
}))

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

const detail = (comms: string, key: string, sessionId: string) =>
  Effect.map(get(`${comms}/calls/${sessionId}`, { token: key }), (r) => r.body)

/** A tenant whose agent (named `name`) calls from a PROVIDER_B number, its call-result webhook at `webhookUrl`. */
const tenant = (name: string, greetMessage: string, webhookUrl?: string) =>
  Effect.gen(function*() {
    const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
    const user = yield* callReady(gateway, "PROVIDER_B", {
      api: comms,
      keyBody: webhookUrl === undefined ? { name: "k" } : { name: "k", webhookUrl }
    })
    const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
      token: user.key,
      json: { name, greetMessage }
    })
    assert.strictEqual(configured.status, 200, configured.text)
    return user
  })

/** Places a call to `to`: its session id and the Telnyx call the dial made. */
const placeCall = (
  user: { readonly key: string; readonly agentId: string; readonly voiceNumberId: string },
  to: string
) =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    const { fake } = yield* Telnyx
    const placed = yield* post(`${comms}/channels/voice/call`, {
      token: user.key,
      json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: to }
    })
    assert.strictEqual(placed.status, 202, placed.text)
    const [call] = yield* waitUntil(Effect.sync(() => fake.createdCalls().filter((c) => c.to === to)), (c) =>
      c.length > 0, `the call to ${to} dialled on Telnyx`)
    return { sessionId: placed.body.sessionId as string, call: call! }
  })

/** Telnyx reports the call initiated (nothing to the call), then answered: each webhook signed, each acknowledged. */
const answer = (callControlId: string) =>
  Effect.gen(function*() {
    const { fake } = yield* Telnyx
    assert.strictEqual(yield* fake.deliver(callControlId, "call.initiated"), 200)
    fake.answer(callControlId)
    assert.strictEqual(yield* fake.deliver(callControlId, "call.answered"), 200)
  })

describe("voice calls on Telnyx Call Control and media streaming", () => {
  layer(platform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "dials on Telnyx, greets over its stream, answers the caller; the caller hangs up: billed by Telnyx's times, " +
        "the call-result webhook sent",
      () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { fake, publicUrl } = yield* Telnyx
          const hook = yield* webhookReceiver
          const user = yield* tenant("Tess", "Hello, this is Tess from Acme.", hook.url)
          const { call, sessionId } = yield* placeCall(user, "+14155550111")

          // the dial: from the Call Control application, webhooks per session, the audio to this runner's media server
          assert.deepInclude(call.dial, {
            connection_id: fake.connectionId,
            from: "+14155550199",
            to: "+14155550111",
            webhook_url: `${publicUrl}/api/v1/telephony/telnyx/webhook/${sessionId}`,
            command_id: sessionId,
            stream_track: "inbound_track",
            stream_bidirectional_mode: "rtp",
            stream_bidirectional_codec: "PCMU",
            timeout_secs: 30
          })
          assert.match(call.streamUrl!, /^ws:\/\/127\.0\.0\.1:\d+\/media\/telnyx$/)
          assert.match(call.streamAuthToken!, new RegExp(`^${sessionId}\\.\\d+\\.[\\w-]+$`))

          const session = () => detail(comms, user.key, sessionId)
          yield* answer(call.callControlId)
          yield* waitUntil(session(), (s) => s.status === "IN_PROGRESS", "the call answered")
          const stream = yield* FakeTelnyxMedia.connectCall(fake, call.callControlId)
          const startedAt = Date.now()
          yield* stream.until("the greeting's first audio", () => stream.audio().length > 0)
          // synthesised while the phone rang: it follows the stream's start at once
          assert.isBelow(stream.audio()[0]!.at - startedAt, 500)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
          yield* stream.until("the greeting played", () => !stream.agentSpeaking())

          const asked = yield* stream.say(yield* FakeTelnyxMedia.callerLine(QUESTION))
          yield* stream.until("the answer's first audio", () => stream.audio().some((a) => a.at > asked.endedAt))
          yield* waitUntil(session(), (s) => s.transcript.length >= 3, "the answer said")
          yield* stream.until("the answer played", () => !stream.agentSpeaking())

          // the caller hangs up; Telnyx stops the stream, and its webhook comes a little later, dated when it happened
          fake.hangUp(call.callControlId, "normal_clearing", "callee")
          yield* stream.stop
          yield* waitUntil(
            session(),
            (s) => s.events.some((e: any) => e.type === "media_stopped"),
            "the stream's stop seen by the platform"
          )
          assert.strictEqual(yield* fake.deliver(call.callControlId, "call.hangup"), 200)
          const done = yield* waitUntil(
            session(),
            (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
            "the call ENDED"
          )
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed", provider: "PROVIDER_B" }, story(done))
          const telnyxCall = fake.call(call.callControlId)!
          assert.strictEqual(done.answeredAt, telnyxCall.answeredAt!.toISOString(), story(done))
          assert.strictEqual(done.endedAt, telnyxCall.endedAt!.toISOString(), story(done))
          assert.deepStrictEqual(lines(done), [
            "agent: Hello, this is Tess from Acme.",
            `customer: ${QUESTION}`,
            `agent: ${ANSWER}`
          ], story(done))
          assert.isNotNull(done.transcript[2].latency, story(done))
          assert.deepStrictEqual(
            done.events.map((e: any) => e.type).slice(0, 3),
            ["queued", "dialing", "answered"],
            story(done)
          )
          assert.deepStrictEqual(stream.violations(), [])
          // the caller ended it: nothing asked of Telnyx after the dial
          assert.deepStrictEqual(fake.requests().filter((r) => r.path.includes(call.callControlId)), [])
          yield* assertBilled(done, user.key, 1000)

          // a redelivered webhook is applied once: nothing changes
          assert.strictEqual(yield* fake.deliver(call.callControlId, "call.answered"), 200)
          assert.deepStrictEqual(yield* session(), done)

          // the tenant's call-result webhook, signed, with the transcript
          yield* waitUntil(Effect.sync(() => hook.received.length), (n) => n > 0, "the call-result webhook")
          const delivery = hook.received[0]!
          const payload = JSON.parse(delivery.body)
          assert.deepInclude(payload, { type: "call.ended" })
          assert.deepInclude(payload.data, {
            sessionId,
            outcome: "ANSWERED",
            endReason: "completed",
            durationSeconds: done.durationSeconds,
            cost: done.cost
          })
          assert.deepStrictEqual(
            payload.data.transcript.map((l: any) => l.text),
            done.transcript.map((l: any) => l.text)
          )
          const [, timestamp] = /^t=(\d+),v1=/.exec(String(delivery.headers[SIGNATURE_HEADER]))!
          assert.strictEqual(
            delivery.headers[SIGNATURE_HEADER],
            sign(user.signingSecret, Number(timestamp), delivery.body)
          )
        })
    )

    it.scoped(
      "a stream with a bad or spent token is refused (1008); the call's own gets through; the agent says goodbye and " +
        "hangs up on Telnyx",
      () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { fake } = yield* Telnyx
          const user = yield* tenant("Vic", "Hello, this is Vic.")
          const { call, sessionId } = yield* placeCall(user, "+14155550112")
          const session = () => detail(comms, user.key, sessionId)
          yield* answer(call.callControlId)

          const forged = `${sessionId}.${Date.now() + 60_000}.${crypto.randomBytes(32).toString("base64url")}`
          for (
            const [token, reason] of [[forged, "token bad signature"], [undefined, "start without a token"]] as const
          ) {
            const bad = yield* FakeTelnyxMedia.connect({
              url: call.streamUrl!,
              token,
              callControlId: call.callControlId
            })
            yield* bad.until("the bad stream refused", () => bad.closed() !== undefined)
            assert.deepStrictEqual(bad.closed(), { code: 1008, reason })
          }
          const stream = yield* FakeTelnyxMedia.connectCall(fake, call.callControlId)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
          const replayed = yield* FakeTelnyxMedia.connectCall(fake, call.callControlId)
          yield* replayed.until("the spent token refused", () => replayed.closed() !== undefined)
          assert.deepStrictEqual(replayed.closed(), { code: 1008, reason: "token already used" })
          assert.isUndefined(stream.closed())

          yield* stream.until("the greeting played", () => !stream.agentSpeaking())
          yield* stream.say(yield* FakeTelnyxMedia.callerLine(GOODBYE))
          // the agent's end_call: the platform hangs up on Telnyx, with a command id of its own
          const hangups = yield* waitUntil(
            Effect.sync(() =>
              fake.requests().filter((r) =>
                r.method === "POST" && r.path === `/v2/calls/${call.callControlId}/actions/hangup`
              )
            ),
            (posts) => posts.length > 0,
            "the platform's hang-up posted to Telnyx"
          )
          assert.deepStrictEqual(hangups[0]!.body, { command_id: hangupCommandId(call.callControlId) })
          assert.deepInclude(fake.call(call.callControlId), {
            state: "hangup",
            hangupCause: "normal_clearing",
            hangupSource: "caller"
          })
          yield* stream.stop
          assert.strictEqual(yield* fake.deliver(call.callControlId, "call.hangup"), 200)
          const done = yield* waitUntil(
            session(),
            (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
            "the call ENDED"
          )
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "agent_hangup" }, story(done))
          assert.deepStrictEqual(
            lines(done),
            ["agent: Hello, this is Vic.", `customer: ${GOODBYE}`, "agent: Goodbye!"],
            story(done)
          )
          assert.deepStrictEqual(stream.violations(), [])
          yield* assertBilled(done, user.key, 1000)
        })
    )

    it.scoped(
      "the caller hangs up in the middle of the answer: the call ends at Telnyx's time, the answer marked cut off, " +
        "nothing hung up twice",
      () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { fake } = yield* Telnyx
          const user = yield* tenant("Uma", "Hello, this is Uma.")
          const { call, sessionId } = yield* placeCall(user, "+14155550113")
          const session = () => detail(comms, user.key, sessionId)
          yield* answer(call.callControlId)
          const stream = yield* FakeTelnyxMedia.connectCall(fake, call.callControlId)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
          yield* stream.until("the greeting played", () => !stream.agentSpeaking())
          const asked = yield* stream.say(yield* FakeTelnyxMedia.callerLine(QUESTION))
          yield* stream.until("the answer's first audio", () => stream.audio().some((a) => a.at > asked.endedAt))
          const answerFrom = stream.audio().find((a) => a.at > asked.endedAt)!.at
          yield* stream.until("1.5 s of the answer heard", () => stream.heardMs(answerFrom) >= 1_500)

          fake.hangUp(call.callControlId, "normal_clearing", "callee")
          yield* stream.stop
          assert.strictEqual(yield* fake.deliver(call.callControlId, "call.hangup"), 200)
          const done = yield* waitUntil(
            session(),
            (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
            "the call ENDED"
          )
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed" }, story(done))
          assert.strictEqual(done.endedAt, fake.call(call.callControlId)!.endedAt!.toISOString())
          const said = lines(done)
          assert.deepStrictEqual(said.slice(0, 2), ["agent: Hello, this is Uma.", `customer: ${QUESTION}`], story(done))
          // the answer the line went dead in, marked cut off, as far as the caller heard it (1.5 s of it)
          const cut = done.transcript[2]
          assert.isTrue(cut?.interrupted, story(done))
          assert.isTrue(cut.text !== "" && ANSWER.startsWith(cut.text), story(done))
          assert.isBelow(cut.text.length, ANSWER.length, story(done))
          assert.strictEqual(done.transcript.length, 3, story(done))
          assert.deepStrictEqual(fake.requests().filter((r) => r.path.includes(call.callControlId)), [])
          yield* assertBilled(done, user.key, 1000)
        })
    )

    it.scoped(
      "the webhook route under bad input: a missing, forged, stale or replayed-and-altered signature is 403, a " +
        "signed body that is no webhook 400; nothing written, never a 5xx",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { fake } = yield* Telnyx
          const user = yield* tenant("Wes", "Hello, this is Wes.")
          const { call, sessionId } = yield* placeCall(user, "+14155550114")
          const session = () => detail(comms, user.key, sessionId)
          yield* waitUntil(session(), (s) => s.events.some((e: any) => e.type === "dialing"), "the call dialling")
          const before = yield* session()
          const counts = yield* tableCounts

          const good = fake.webhook(call.callControlId, "call.answered")
          const now = Math.floor(Date.now() / 1000)
          // a minute past the 5-minute window either way: the cases below take seconds to send, and a
          // timestamp only a second ahead came within the window by the time it was checked
          const stale = fake.webhook(call.callControlId, "call.answered", { timestamp: now - 360 })
          const future = fake.webhook(call.callControlId, "call.answered", { timestamp: now + 360 })
          const altered = good.body.replace("call.answered", "call.hangup")
          const other = crypto.generateKeyPairSync("ed25519").privateKey
          const without = (name: string) => Object.fromEntries(Object.entries(good.headers).filter(([k]) => k !== name))
          const signed = (body: string) => {
            const timestamp = String(now)
            return {
              ...good,
              body,
              headers: {
                ...good.headers,
                [TIMESTAMP_HEADER]: timestamp,
                [TELNYX_SIGNATURE]: fake.sign(timestamp, body)
              }
            }
          }
          const refusals: ReadonlyArray<readonly [string, FakeTelnyx.Webhook, number, string]> = [
            ["no signature", { ...good, headers: without(TELNYX_SIGNATURE) }, 403, "INVALID_SIGNATURE"],
            ["no timestamp", { ...good, headers: without(TIMESTAMP_HEADER) }, 403, "INVALID_SIGNATURE"],
            [
              "a forged signature",
              { ...good, headers: { ...good.headers, [TELNYX_SIGNATURE]: Buffer.alloc(64, 7).toString("base64") } },
              403,
              "INVALID_SIGNATURE"
            ],
            [
              "garbage for a signature",
              { ...good, headers: { ...good.headers, [TELNYX_SIGNATURE]: "%%%" } },
              403,
              "INVALID_SIGNATURE"
            ],
            [
              "another key's signature",
              {
                ...good,
                headers: {
                  ...good.headers,
                  [TELNYX_SIGNATURE]: crypto.sign(
                    null,
                    Buffer.from(`${good.headers[TIMESTAMP_HEADER]}|${good.body}`),
                    other
                  ).toString("base64")
                }
              },
              403,
              "INVALID_SIGNATURE"
            ],
            ["a stale timestamp", stale, 403, "INVALID_SIGNATURE"],
            ["a timestamp in the future", future, 403, "INVALID_SIGNATURE"],
            ["the body replayed, altered", { ...good, body: altered }, 403, "INVALID_SIGNATURE"],
            [
              "the body replayed under a new timestamp",
              { ...good, headers: { ...good.headers, [TIMESTAMP_HEADER]: String(now + 1) } },
              403,
              "INVALID_SIGNATURE"
            ],
            ["signed, not JSON", signed("{\"data\":"), 400, "INVALID_CARRIER_PAYLOAD"],
            ["signed, not an envelope", signed("[1,2]"), 400, "INVALID_CARRIER_PAYLOAD"],
            [
              "signed, no event id",
              signed(JSON.stringify({ data: { event_type: "call.answered", payload: { call_control_id: "v3:x" } } })),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ],
            [
              "signed, an answer without its call",
              signed(JSON.stringify({ data: { id: "e1", event_type: "call.answered", payload: {} } })),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ],
            [
              "signed, a NUL in it",
              signed(
                JSON.stringify({
                  data: { id: "e\u0000", event_type: "call.answered", payload: { call_control_id: "v3:x" } }
                })
              ),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ],
            [
              "signed, an unparseable date",
              signed(
                JSON.stringify({
                  data: {
                    id: "e2",
                    event_type: "call.hangup",
                    occurred_at: "someday",
                    payload: { call_control_id: "v3:x" }
                  }
                })
              ),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ]
          ]
          for (const base of [gateway, comms]) {
            for (const [what, hook, status, code] of refusals) {
              const url = hook.url.replace(/^http:\/\/[^/]+\/api\/v1/, base)
              const reply = yield* post(url, { body: hook.body, headers: hook.headers })
              assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
              assert.strictEqual(reply.body?.error?.code, code, `${what}: ${reply.text}`)
            }
            // the wrong media type, and a session that is not a UUID
            const asText = yield* post(good.url.replace(/^http:\/\/[^/]+\/api\/v1/, base), {
              body: good.body,
              headers: { ...good.headers, "content-type": "text/plain" }
            })
            assert.strictEqual(asText.status, 415, asText.text)
            const badPath = yield* post(`${base}/telephony/telnyx/webhook/not-a-session`, {
              body: good.body,
              headers: good.headers
            })
            assert.strictEqual(badPath.status, 400, badPath.text)
          }
          assert.deepStrictEqual(yield* tableCounts, counts)
          assert.deepStrictEqual(yield* session(), before)

          // an event the platform does not act on: acknowledged, nothing happens
          const speakEnded = signed(
            JSON.stringify({
              data: { id: "e3", event_type: "call.speak.ended", payload: { call_control_id: call.callControlId } }
            })
          )
          const unknown = yield* post(good.url, { body: speakEnded.body, headers: speakEnded.headers })
          assert.strictEqual(unknown.status, 200, unknown.text)
          assert.deepStrictEqual(unknown.body, { eventType: "call.speak.ended", applied: false })
          assert.deepStrictEqual(yield* session(), before)

          // and the genuine webhook still goes through
          fake.answer(call.callControlId)
          const accepted = yield* post(good.url, { body: good.body, headers: good.headers })
          assert.strictEqual(accepted.status, 200, accepted.text)
          assert.deepStrictEqual(accepted.body, { eventType: "call.answered", applied: true })
          yield* waitUntil(session(), (s) => s.status === "IN_PROGRESS", "the call answered")
          yield* post(`${comms}/calls/${sessionId}/hangup`, { token: user.key })
          yield* waitUntil(session(), (s) => s.status === "ENDED", "the call ENDED")
        })
    )
  })
})

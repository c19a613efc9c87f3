/**
 * Incoming calls, end to end over loopback sockets: the platform with PROVIDER_B numbers on Twilio
 * (FakeTwilio brings a call: the number's signed voice webhook, then the Media Stream its TwiML
 * names) and PROVIDER_C numbers on Telnyx (FakeTelnyx: a parked incoming call, its signed
 * `call.initiated` to the Call Control application's webhook, the `answer` command, then the stream),
 * the speech and language providers' real adapters on their fakes. The caller speaks recorded
 * fixtures in real time. Then the refusals: an empty wallet, the concurrent-call limit, a forged
 * signature, a number no agent answers, bad input; each writes what it says and nothing more.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { INBOUND_REFUSED_MESSAGE } from "@voiceagent/runner/Ports/Telephony"
import {
  computeSignature,
  refusedTwiml,
  REJECT_TWIML,
  streamEndedPath
} from "@voiceagent/runner/Telephony/TwilioCarrier"
import * as FakeDeepgram from "@voiceagent/runner/Testing/FakeDeepgram"
import * as FakeElevenLabs from "@voiceagent/runner/Testing/FakeElevenLabs"
import { makeFakeOpenAiChat } from "@voiceagent/runner/Testing/FakeOpenAiChat"
import * as FakeTelnyx from "@voiceagent/runner/Testing/FakeTelnyx"
import * as FakeTelnyxMedia from "@voiceagent/runner/Testing/FakeTelnyxMedia"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import * as FakeTwilioMedia from "@voiceagent/runner/Testing/FakeTwilioMedia"
import { Context, Effect, Layer, Redacted } from "effect"
import * as crypto from "node:crypto"
import { assertBilled, lines, story, webhookReceiver } from "./CallScenario.js"
import { tableCounts } from "./Hostile.js"
import { callReady, get, patch, portToName, post, waitUntil } from "./Http.js"

class Carriers extends Context.Tag("InboundCalls/Carriers")<Carriers, {
  readonly twilio: FakeTwilio.FakeTwilioServer
  readonly telnyx: FakeTelnyx.FakeTelnyxServer
  readonly publicUrl: string
}>() {}

const QUESTION = "How much does the premium plan cost?"
const ANSWER = "The premium plan costs twenty dollars a month, and it includes unlimited calls and priority support."

const platform = Layer.unwrapScoped(Effect.gen(function*() {
  const gatewayPort = yield* Effect.promise(() => portToName())
  const publicUrl = `http://127.0.0.1:${gatewayPort}`
  const twilio = yield* FakeTwilio.make()
  const telnyx = yield* FakeTelnyx.make()
  const deepgram = yield* FakeDeepgram.make({
    vad: "webrtc",
    segmentGapMs: 300,
    scripts: { Ina: [QUESTION], Tia: [QUESTION] }
  })
  const chat = yield* makeFakeOpenAiChat({
    apiKey: "sk-fake-inbound",
    scripts: [{ when: "premium plan", reply: { text: ANSWER } }]
  })
  const elevenLabs = yield* FakeElevenLabs.make()
  return TestPlatform.layer({
    ports: { gateway: gatewayPort },
    publicUrl,
    twilioAuthToken: twilio.authToken,
    telnyxPublicKey: telnyx.publicKey,
    runtime: {
      carriers: {
        PROVIDER_B: FakeTwilio.carrier(twilio, publicUrl),
        PROVIDER_C: FakeTelnyx.carrier(telnyx, publicUrl)
      },
      media: { host: "127.0.0.1", port: 0 },
      voice: {
        deepgram: { url: deepgram.url, apiKey: Redacted.make(deepgram.apiKey) },
        openAiChat: { baseUrl: chat.url, apiKey: Redacted.make("sk-fake-inbound") },
        elevenLabs: { url: elevenLabs.url, apiKey: Redacted.make(elevenLabs.apiKey), voice: "21m00Tcm4TlvDq8ikWAM" }
      }
    }
  }).pipe(Layer.merge(Layer.succeed(Carriers, { twilio, telnyx, publicUrl })))
}))

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

const CALLER = "+14155550177"

const detail = (comms: string, key: string, sessionId: string) =>
  Effect.map(get(`${comms}/calls/${sessionId}`, { token: key }), (r) => r.body)

const callLogs = (comms: string, key: string) =>
  Effect.map(get(`${comms}/call-logs`, { token: key }), (r) => r.body.items as Array<any>)

/** A tenant with `number` on `provider`, assigned to its agent `name`; its wallet topped up with `amount`. */
const tenant = (
  options: {
    readonly name: string
    readonly number: string
    readonly provider: "PROVIDER_B" | "PROVIDER_C"
    readonly amount?: number
    readonly webhookUrl?: string
  }
) =>
  Effect.gen(function*() {
    const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
    const user = yield* callReady(gateway, "PROVIDER_B", {
      api: comms,
      amount: options.amount ?? 1000,
      keyBody: options.webhookUrl === undefined ? { name: "k" } : { name: "k", webhookUrl: options.webhookUrl }
    })
    const number = yield* post(`${comms}/voice-numbers`, {
      token: user.key,
      json: { phoneNumber: options.number, provider: options.provider }
    })
    assert.strictEqual(number.status, 201, number.text)
    const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
      token: user.key,
      json: {
        name: options.name,
        greetMessage: `Hello, this is ${options.name}.`,
        channel: "VOICE",
        settings: { phone_provider: options.provider, phone_number: options.number }
      }
    })
    assert.strictEqual(configured.status, 200, configured.text)
    return { ...user, inboundNumberId: number.body.id as string }
  })

/** Twilio brings a call from CALLER to `to`: the number's voice webhook, signed. */
const ring = (to: string, options: Partial<FakeTwilio.OriginateOptions> = {}) =>
  Effect.gen(function*() {
    const { publicUrl, twilio } = yield* Carriers
    return yield* FakeTwilio.originate(twilio, {
      voiceUrl: `${publicUrl}/api/v1/telephony/twilio/voice`,
      statusCallback: `${publicUrl}/api/v1/telephony/twilio/voice/status`,
      from: CALLER,
      to,
      ...options
    })
  })

/** The caller hears the greeting, asks, hears the answer; then hangs up. */
const converse = (
  stream: FakeTwilioMedia.FakeTwilioMediaStream | FakeTelnyxMedia.FakeTelnyxMediaStream,
  session: Effect.Effect<any>
) =>
  Effect.gen(function*() {
    yield* waitUntil(session, (s) => s.transcript.length >= 1, "the greeting said")
    yield* stream.until("the greeting played", () => !stream.agentSpeaking())
    const asked = yield* stream.say(yield* FakeTwilioMedia.callerLine(QUESTION))
    yield* stream.until("the answer's first audio", () => stream.audio().some((a) => a.at > asked.endedAt))
    yield* waitUntil(session, (s) => s.transcript.length >= 3, "the answer said")
    yield* stream.until("the answer played", () => !stream.agentSpeaking())
  })

const messages = (url: string, key: string, what: string) =>
  Effect.map(
    waitUntil(get(url, { token: key }), (r) =>
      r.status === 200 && r.body.total > 0 && r.body.items.every((m: any) => m.status === "SENT"), what),
    (r) =>
      r.body.items as Array<any>
  )

describe("incoming calls on Twilio and Telnyx", () => {
  layer(platform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "Twilio: the number's webhook is answered with the agent's stream; the caller talks to the agent; billed; " +
        "INCOMING in the log, the detail, the webhook and the post-call messages; a retried webhook is the same call",
      () =>
        Effect.gen(function*() {
          const { campaign, comms } = yield* TestPlatform.TestPlatformUrls
          const { publicUrl, twilio } = yield* Carriers
          const hook = yield* webhookReceiver
          const number = "+14155550301"
          const user = yield* tenant({ name: "Ina", number, provider: "PROVIDER_B", webhookUrl: hook.url })
          // the caller is one of the tenant's contacts
          const contacts = yield* post(`${campaign}/contact-lists`, { token: user.key, json: { name: "Callers" } })
          const contact = yield* post(`${campaign}/contact-lists/${contacts.body.id}/contacts`, {
            token: user.key,
            json: { phoneNumber: CALLER, name: "Ada Lovelace" }
          })
          assert.strictEqual(contact.status, 201, contact.text)
          const chatApp = yield* post(`${campaign}/chatapp/campaigns`, {
            token: user.key,
            json: {
              agentId: user.agentId,
              phoneNumberId: "106540352242922",
              templates: [
                {
                  templateName: "thanks_for_calling",
                  process: "INCOMING",
                  callStatus: "ANSWERED",
                  bodyParameters: ["{{name}}"]
                },
                { templateName: "call_followup", process: "OUTGOING", callStatus: "ANSWERED" }
              ]
            }
          })
          assert.strictEqual(chatApp.status, 201, chatApp.text)
          const sms = yield* post(`${campaign}/sms-agent/campaigns`, {
            token: user.key,
            json: {
              agentId: user.agentId,
              senderNumber: "+14155552671",
              templates: [{ callStatus: "ANSWERED", messageBody: "Thanks for calling!" }]
            }
          })
          assert.strictEqual(sms.status, 201, sms.text)

          const ringing = Date.now()
          const first = yield* ring(number)
          assert.strictEqual(first.status, 200, first.body)
          // Twilio gives a voice webhook 15 s; the answer (session, funds held, conversation prepared) takes far less
          const answerMs = Date.now() - ringing
          assert.isBelow(answerMs, 5_000)
          const [log] = yield* callLogs(comms, user.key)
          const sessionId = log.sessionId as string
          assert.deepInclude(log, {
            direction: "INCOMING",
            agentId: user.agentId,
            voiceNumberId: user.inboundNumberId,
            provider: "PROVIDER_B",
            fromNumber: CALLER,
            toNumber: number,
            customerId: contact.body.id,
            status: "IN_PROGRESS"
          })
          // the TwiML streams the call to this runner's media server, the token as a <Parameter>
          const twiml = FakeTwilioMedia.parseTwiml(first.body)
          assert.match(twiml.stream!.url, /^ws:\/\/127\.0\.0\.1:\d+\/media\/twilio$/)
          assert.match(twiml.stream!.parameters["token"]!, new RegExp(`^${sessionId}\\.\\d+\\.[\\w-]+$`))
          assert.strictEqual(twiml.redirect, `${publicUrl}${streamEndedPath(sessionId)}`)

          // Twilio sends the webhook again (it did not get the answer): the same call, streamed with a fresh token
          const again = yield* ring(number, { callSid: first.callSid })
          assert.strictEqual(again.status, 200, again.body)
          assert.notStrictEqual(
            FakeTwilioMedia.parseTwiml(again.body).stream!.parameters["token"],
            twiml.stream!.parameters["token"]
          )
          assert.deepStrictEqual((yield* callLogs(comms, user.key)).map((l) => l.sessionId), [sessionId])

          const session = detail(comms, user.key, sessionId)
          const stream = yield* FakeTwilioMedia.connectCall(twilio, first.callSid)
          const streamedAt = Date.now()
          yield* stream.until("the greeting's first audio", () => stream.audio().length > 0)
          // synthesised while the webhook was answered: it follows the stream's start at once
          assert.isBelow(stream.audio()[0]!.at - streamedAt, 500)
          yield* converse(stream, session)
          // the caller hangs up: the stream stops, the number's status callback says completed
          twilio.setCallStatus(first.callSid, "completed")
          yield* stream.stop
          assert.strictEqual(yield* twilio.deliverStatusCallback(first.callSid), 204)
          const done = yield* waitUntil(
            session,
            (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
            "the call ENDED"
          )
          assert.deepInclude(done, {
            direction: "INCOMING",
            outcome: "ANSWERED",
            endReason: "completed",
            fromNumber: CALLER,
            toNumber: number
          }, story(done))
          assert.deepStrictEqual(
            lines(done),
            ["agent: Hello, this is Ina.", `customer: ${QUESTION}`, `agent: ${ANSWER}`],
            story(done)
          )
          assert.deepStrictEqual(
            done.events.map((e: any) => e.type).slice(0, 3),
            ["queued", "dialing", "answered"],
            story(done)
          )
          assert.deepStrictEqual(stream.violations(), [])
          // nothing asked of Twilio's REST API: the call came in, and the caller ended it
          assert.deepStrictEqual(twilio.calls(), [])

          yield* waitUntil(Effect.sync(() => hook.received.length), (n) => n > 0, "the call-result webhook")
          const payload = JSON.parse(hook.received[0]!.body)
          assert.deepInclude(payload.data, {
            sessionId,
            direction: "INCOMING",
            fromNumber: CALLER,
            toNumber: number,
            outcome: "ANSWERED",
            cost: done.cost
          })

          // the INCOMING rules fire, to the caller
          const [chatMessage] = yield* messages(`${campaign}/chatapp/messages`, user.key, "the chat-app message sent")
          assert.deepInclude(chatMessage, {
            sessionId,
            callDirection: "INCOMING",
            callOutcome: "ANSWERED",
            to: CALLER,
            contactId: contact.body.id,
            templateName: "thanks_for_calling"
          })
          assert.deepStrictEqual(chatMessage.bodyParameters, ["Ada Lovelace"])
          const [smsMessage] = yield* messages(`${campaign}/sms-agent/messages`, user.key, "the SMS sent")
          assert.deepInclude(smsMessage, {
            sessionId,
            callDirection: "INCOMING",
            to: CALLER,
            body: "Thanks for calling!"
          })
          // the call billed by its talk time (the wallet also paid for the two messages)
          yield* assertBilled(done, user.key, 1000 - chatMessage.cost - smsMessage.cost)

          // a retry after the end finds the call over: hang up, nothing new
          const late = yield* ring(number, { callSid: first.callSid })
          assert.strictEqual(late.body, "<Response><Hangup/></Response>")
          assert.strictEqual((yield* callLogs(comms, user.key)).length, 1)
        })
    )

    it.scoped(
      "Twilio: with an empty wallet the caller hears a short message and the call is not connected (ENDED, FAILED, " +
        "insufficient_funds, nothing billed); over the concurrent-call limit the same, and inbound calls count " +
        "against it; a webhook raced by its retry is one call",
      () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const sql = yield* SqlClient.SqlClient
          const hook = yield* webhookReceiver
          const poor = yield* tenant({
            name: "Pia",
            number: "+14155550302",
            provider: "PROVIDER_B",
            amount: 5,
            webhookUrl: hook.url
          })
          const refused = yield* ring("+14155550302")
          assert.strictEqual(refused.status, 200, refused.body)
          assert.strictEqual(refused.body, refusedTwiml())
          assert.match(
            refused.body,
            /<Say>Sorry, we cannot take your call right now\. Please try again later\. Goodbye\.<\/Say><Hangup\/>/
          )
          const [log] = yield* callLogs(comms, poor.key)
          const session = yield* detail(comms, poor.key, log.sessionId)
          assert.deepInclude(session, {
            direction: "INCOMING",
            status: "ENDED",
            outcome: "FAILED",
            endReason: "insufficient_funds",
            answeredAt: null,
            durationSeconds: 0,
            cost: 0,
            fromNumber: CALLER
          }, story(session))
          assert.deepStrictEqual(session.events.map((e: any) => e.type), ["queued", "refused", "ended"], story(session))
          assert.deepStrictEqual(session.transcript, [])
          yield* waitUntil(Effect.sync(() => hook.received.length), (n) => n > 0, "the call-result webhook")
          assert.deepInclude(JSON.parse(hook.received[0]!.body).data, {
            sessionId: log.sessionId,
            direction: "INCOMING",
            outcome: "FAILED",
            endReason: "insufficient_funds",
            cost: 0
          })
          // retried: the same answer, the same single call
          assert.strictEqual((yield* ring("+14155550302", { callSid: refused.callSid })).body, refusedTwiml())
          assert.strictEqual((yield* callLogs(comms, poor.key)).length, 1)
          const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
          assert.deepStrictEqual((yield* get(`${core}/wallet`, { token: poor.key })).body, {
            currency: "USD",
            balance: 5,
            reserved: 0,
            available: 5
          })

          // a tenant allowed one call at a time: one inbound call
          // is live, a second is turned away, so is an outbound one
          const busy = yield* tenant({ name: "Bo", number: "+14155550303", provider: "PROVIDER_B" })
          yield* sql`UPDATE tenants SET max_concurrent_calls = 1 WHERE id = (SELECT tenant_id FROM agents
            WHERE id = ${busy.agentId})`
          const { campaign } = yield* TestPlatform.TestPlatformUrls
          const sorry = yield* post(`${campaign}/chatapp/campaigns`, {
            token: busy.key,
            json: {
              agentId: busy.agentId,
              phoneNumberId: "106540352242922",
              templates: [{ templateName: "sorry_we_were_busy", process: "INCOMING", callStatus: "FAILED" }]
            }
          })
          assert.strictEqual(sorry.status, 201, sorry.text)
          const live = yield* ring("+14155550303")
          assert.isDefined(FakeTwilioMedia.parseTwiml(live.body).stream, live.body)
          const second = yield* ring("+14155550303", { from: "+14155550178" })
          assert.strictEqual(second.body, refusedTwiml())
          const outbound = yield* post(`${comms}/channels/voice/call`, {
            token: busy.key,
            json: { agentId: busy.agentId, voiceNumberId: busy.inboundNumberId, toNumber: "+14155550190" }
          })
          assert.strictEqual(outbound.status, 429, outbound.text)
          assert.strictEqual(outbound.body.error.code, "CONCURRENT_CALL_LIMIT")
          const logs = yield* callLogs(comms, busy.key)
          assert.deepStrictEqual(
            logs.map((l) => [l.fromNumber, l.status, l.outcome, l.endReason]),
            [["+14155550178", "ENDED", "FAILED", "concurrent_call_limit"], [CALLER, "IN_PROGRESS", null, null]]
          )
          // the caller turned away gets the INCOMING/FAILED message
          const [turnedAway] = yield* messages(
            `${campaign}/chatapp/messages`,
            busy.key,
            "the turned-away caller's message"
          )
          assert.deepInclude(turnedAway, {
            sessionId: logs[0].sessionId,
            callDirection: "INCOMING",
            callOutcome: "FAILED",
            to: "+14155550178",
            templateName: "sorry_we_were_busy"
          })
          // the live one hung up from the API: the platform ends it at Twilio
          const liveSession = logs[1].sessionId
          yield* post(`${comms}/calls/${liveSession}/hangup`, { token: busy.key })
          const ended = yield* waitUntil(
            detail(comms, busy.key, liveSession),
            (s) => s.status === "ENDED",
            "the live call ENDED"
          )
          assert.deepInclude(ended, { outcome: "ANSWERED", endReason: "hangup_requested" }, story(ended))
          const { twilio } = yield* Carriers
          assert.strictEqual(twilio.call(live.callSid)!.status, "completed")
          assert.isTrue(
            twilio.calls().some((r) =>
              r.path.endsWith(`/Calls/${live.callSid}.json`) &&
              r.form.some(([k, v]) => k === "Status" && v === "completed")
            )
          )

          // Twilio's webhook sent twice at once (a retry racing the first): one call, both answered with its stream
          const racer = yield* tenant({ name: "Rae", number: "+14155550305", provider: "PROVIDER_B" })
          const callSid = `CA${crypto.randomBytes(16).toString("hex")}`
          const both = yield* Effect.all([ring("+14155550305", { callSid }), ring("+14155550305", { callSid })], {
            concurrency: 2
          })
          for (const answer of both) assert.isDefined(FakeTwilioMedia.parseTwiml(answer.body).stream, answer.body)
          const raced = yield* callLogs(comms, racer.key)
          assert.strictEqual(raced.length, 1)
          yield* post(`${comms}/calls/${raced[0].sessionId}/hangup`, { token: racer.key })
          yield* waitUntil(
            detail(comms, racer.key, raced[0].sessionId),
            (s) => s.status === "ENDED",
            "the raced call ENDED"
          )
        })
    )

    it.scoped(
      "Twilio: a forged or missing signature is 403, bad parameters 400, a number no agent answers <Reject/>; " +
        "nothing written, never a 5xx",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { publicUrl, twilio } = yield* Carriers
          yield* tenant({ name: "Sam", number: "+14155550304", provider: "PROVIDER_B" })
          // the same number registered by a tenant whose agent does not take it: not a second route
          const other = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          assert.strictEqual(
            (yield* post(`${comms}/voice-numbers`, {
              token: other.key,
              json: { phoneNumber: "+14155550304", provider: "PROVIDER_B" }
            })).status,
            201
          )
          // a number on the provider Telnyx serves, called through Twilio
          yield* tenant({ name: "Ted", number: "+14155550306", provider: "PROVIDER_C" })
          const counts = yield* tableCounts
          const url = `${publicUrl}/api/v1/telephony/twilio/voice`
          const good = {
            AccountSid: twilio.accountSid,
            CallSid: `CA${crypto.randomBytes(16).toString("hex")}`,
            CallStatus: "ringing",
            Direction: "inbound",
            From: CALLER,
            To: "+14155550304"
          }
          const send = (params: Record<string, string>, signature: string | undefined, base = gateway) =>
            post(`${base}/telephony/twilio/voice`, {
              body: new URLSearchParams(params).toString(),
              headers: {
                "content-type": "application/x-www-form-urlencoded",
                ...(signature === undefined ? {} : { "x-twilio-signature": signature })
              }
            })
          const signed = (params: Record<string, string>) => computeSignature(twilio.authToken, url, params)
          const cases: ReadonlyArray<readonly [string, Record<string, string>, string | undefined, number, string]> = [
            ["no signature", good, undefined, 403, "INVALID_SIGNATURE"],
            ["a forged signature", good, computeSignature("not-the-token", url, good), 403, "INVALID_SIGNATURE"],
            [
              "signed for another URL",
              good,
              computeSignature(twilio.authToken, `${url}/status`, good),
              403,
              "INVALID_SIGNATURE"
            ],
            [
              "a parameter changed after signing",
              { ...good, To: "+14155550399" },
              signed(good),
              403,
              "INVALID_SIGNATURE"
            ],
            ["no CallSid", { ...good, CallSid: "" }, signed({ ...good, CallSid: "" }), 400, "INVALID_CARRIER_PAYLOAD"],
            [
              "a CallSid that is not Twilio's",
              { ...good, CallSid: "CA1" },
              signed({ ...good, CallSid: "CA1" }),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ],
            ["no From", { ...good, From: "" }, signed({ ...good, From: "" }), 400, "INVALID_CARRIER_PAYLOAD"],
            [
              "a From with a space",
              { ...good, From: "+1 415" },
              signed({ ...good, From: "+1 415" }),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ],
            // (every form body's rule, before the signature is looked at)
            [
              "a From with a NUL",
              { ...good, From: "+1\u0000" },
              signed({ ...good, From: "+1\u0000" }),
              400,
              "VALIDATION_FAILED"
            ],
            [
              "an outbound call",
              { ...good, Direction: "outbound-api" },
              signed({ ...good, Direction: "outbound-api" }),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ]
          ]
          for (const base of [gateway, comms]) {
            for (const [what, params, signature, status, code] of cases) {
              const reply = yield* send(params, signature, base)
              assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
              assert.strictEqual(reply.body?.error?.code, code, `${what}: ${reply.text}`)
            }
          }
          // a number no agent answers (unknown, registered but not assigned, or on another carrier): rejected, nothing
          // written
          for (const to of ["+14155550399", "+14155550199", "+14155550306"]) {
            const rejected = yield* ring(to)
            assert.strictEqual(rejected.status, 200, rejected.body)
            assert.strictEqual(rejected.body, REJECT_TWIML)
          }
          // a status callback for a call not taken here: acknowledged, nothing done; forged: 403
          const status = { ...good, CallStatus: "completed" }
          const statusUrl = `${publicUrl}/api/v1/telephony/twilio/voice/status`
          const statusReply = (signature: string) =>
            post(statusUrl, {
              body: new URLSearchParams(status).toString(),
              headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature }
            })
          assert.strictEqual((yield* statusReply(computeSignature(twilio.authToken, statusUrl, status))).status, 204)
          assert.strictEqual((yield* statusReply("forged")).status, 403)
          assert.deepStrictEqual(yield* tableCounts, counts)
        })
    )

    it.scoped(
      "Telnyx: an incoming call.initiated is answered with the agent's stream and its own webhook URL; the caller " +
        "talks to the agent and hangs up; billed; INCOMING; the webhook again is the same call",
      () =>
        Effect.gen(function*() {
          const { comms } = yield* TestPlatform.TestPlatformUrls
          const { publicUrl, telnyx } = yield* Carriers
          const number = "+14155550311"
          const user = yield* tenant({ name: "Tia", number, provider: "PROVIDER_C" })
          const call = telnyx.incoming({
            webhookUrl: `${publicUrl}/api/v1/telephony/telnyx/webhook`,
            from: CALLER,
            to: number
          })
          const initiated = telnyx.webhook(call.callControlId, "call.initiated")
          const reply = yield* post(initiated.url, { body: initiated.body, headers: initiated.headers })
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(reply.body, { eventType: "call.initiated", applied: true })
          const [log] = yield* callLogs(comms, user.key)
          const sessionId = log.sessionId as string
          assert.deepInclude(log, {
            direction: "INCOMING",
            provider: "PROVIDER_C",
            fromNumber: CALLER,
            toNumber: number,
            voiceNumberId: user.inboundNumberId,
            customerId: null
          })

          // the answer command: the stream to this runner, the call's further webhooks to its own URL
          const answers = telnyx.requests().filter((r) => r.path === `/v2/calls/${call.callControlId}/actions/answer`)
          assert.strictEqual(answers.length, 1)
          assert.deepInclude(answers[0]!.body as object, {
            command_id: `answer-${sessionId}`,
            webhook_url: `${publicUrl}/api/v1/telephony/telnyx/webhook/${sessionId}`,
            stream_track: "inbound_track",
            stream_bidirectional_mode: "rtp",
            stream_bidirectional_codec: "PCMU"
          })
          const answered = telnyx.call(call.callControlId)!
          assert.strictEqual(answered.state, "answered")
          assert.match(answered.streamUrl!, /^ws:\/\/127\.0\.0\.1:\d+\/media\/telnyx$/)

          // the same webhook delivered again, and a second call.initiated for the call: still one call, one answer
          assert.strictEqual(
            (yield* post(initiated.url, { body: initiated.body, headers: initiated.headers })).status,
            200
          )
          assert.strictEqual(yield* telnyx.post(telnyx.webhook(call.callControlId, "call.initiated")), 200)
          assert.strictEqual((yield* callLogs(comms, user.key)).length, 1)
          assert.strictEqual(telnyx.requests().filter((r) => r.path.endsWith("/actions/answer")).length, 1)
          // Telnyx's call.answered now goes to the call's own URL
          assert.strictEqual(yield* telnyx.deliver(call.callControlId, "call.answered"), 200)

          const session = detail(comms, user.key, sessionId)
          const stream = yield* FakeTelnyxMedia.connectCall(telnyx, call.callControlId)
          yield* converse(stream, session)
          telnyx.hangUp(call.callControlId, "normal_clearing", "caller")
          yield* stream.stop
          assert.strictEqual(yield* telnyx.deliver(call.callControlId, "call.hangup"), 200)
          const done = yield* waitUntil(
            session,
            (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
            "the call ENDED"
          )
          assert.deepInclude(done, { direction: "INCOMING", outcome: "ANSWERED", endReason: "completed" }, story(done))
          assert.deepStrictEqual(
            lines(done),
            ["agent: Hello, this is Tia.", `customer: ${QUESTION}`, `agent: ${ANSWER}`],
            story(done)
          )
          assert.deepStrictEqual(stream.violations(), [])
          yield* assertBilled(done, user.key, 1000)
        })
    )

    it.scoped(
      "Telnyx: with an empty wallet the caller is told the polite message, hung up on, and the call recorded as not " +
        "connected; a forged webhook is 403, a number no agent answers left alone, bad input 400; nothing written",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { publicUrl, telnyx } = yield* Carriers
          const appUrl = `${publicUrl}/api/v1/telephony/telnyx/webhook`
          const poor = yield* tenant({ name: "Pat", number: "+14155550312", provider: "PROVIDER_C", amount: 5 })
          const counts = yield* tableCounts

          const call = telnyx.incoming({ webhookUrl: appUrl, from: CALLER, to: "+14155550312" })
          const good = telnyx.webhook(call.callControlId, "call.initiated")
          const now = String(Math.floor(Date.now() / 1000))
          const signed = (body: string) => ({
            ...good,
            body,
            headers: { ...good.headers, "telnyx-timestamp": now, "telnyx-signature-ed25519": telnyx.sign(now, body) }
          })
          const initiated = (payload: Record<string, unknown>) =>
            signed(
              JSON.stringify({
                data: {
                  id: crypto.randomUUID(),
                  event_type: "call.initiated",
                  payload: { direction: "incoming", ...payload }
                }
              })
            )
          const refusals: ReadonlyArray<readonly [string, FakeTelnyx.Webhook, number, string]> = [
            [
              "a forged signature",
              {
                ...good,
                headers: { ...good.headers, "telnyx-signature-ed25519": Buffer.alloc(64, 7).toString("base64") }
              },
              403,
              "INVALID_SIGNATURE"
            ],
            [
              "the body altered",
              { ...good, body: good.body.replace("+14155550312", "+14155550313") },
              403,
              "INVALID_SIGNATURE"
            ],
            ["no call_control_id", initiated({ from: CALLER, to: "+14155550312" }), 400, "INVALID_CARRIER_PAYLOAD"],
            [
              "no from",
              initiated({ call_control_id: call.callControlId, to: "+14155550312" }),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ],
            [
              "a to that is not a string",
              initiated({ call_control_id: call.callControlId, from: CALLER, to: 14155550312 }),
              400,
              "INVALID_CARRIER_PAYLOAD"
            ],
            ["not JSON", signed("{\"data\":"), 400, "INVALID_CARRIER_PAYLOAD"]
          ]
          for (const base of [gateway, comms]) {
            for (const [what, hook, status, code] of refusals) {
              const reply = yield* post(`${base}/telephony/telnyx/webhook`, { body: hook.body, headers: hook.headers })
              assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
              assert.strictEqual(reply.body?.error?.code, code, `${what}: ${reply.text}`)
            }
          }
          // a number no agent answers: acknowledged, left alone, nothing written
          const stranger = telnyx.incoming({ webhookUrl: appUrl, from: CALLER, to: "+14155550398" })
          const ignored = yield* post(appUrl, telnyx.webhook(stranger.callControlId, "call.initiated"))
          assert.deepStrictEqual(ignored.body, { eventType: "call.initiated", applied: false })
          assert.deepStrictEqual(yield* tableCounts, counts)
          assert.deepStrictEqual(telnyx.requests().filter((r) => r.path.includes(stranger.callControlId)), [])

          // the genuine webhook: the wallet cannot hold a minute, so the call is answered without a stream,
          // told the polite message by Telnyx's speech, hung up once it is said, and recorded as not connected
          assert.strictEqual((yield* post(appUrl, { body: good.body, headers: good.headers })).status, 200)
          const id = call.callControlId
          const spoken = yield* waitUntil(
            Effect.sync(() => telnyx.requests().filter((r) => r.path.includes(id))),
            (r) => r.some((q) => q.path.endsWith("/actions/speak")),
            "the speak command"
          )
          assert.deepStrictEqual(spoken.map((r) => [r.path, r.body]), [
            [`/v2/calls/${id}/actions/answer`, { command_id: `refuse-answer-${id}` }],
            [`/v2/calls/${id}/actions/speak`, {
              payload: INBOUND_REFUSED_MESSAGE,
              payload_type: "text",
              voice: "female",
              language: "en-US",
              command_id: `refuse-speak-${id}`
            }]
          ])
          assert.deepInclude(telnyx.call(id), {
            state: "answered",
            streamUrl: undefined,
            spoken: [INBOUND_REFUSED_MESSAGE]
          })
          // hung up after the message (6.7 s of real time: the platform runs on the real clock here)
          yield* waitUntil(
            Effect.sync(() => telnyx.call(id)!.state),
            (state) => state === "hangup",
            "the hang-up after the message",
            20
          )
          assert.strictEqual(
            telnyx.requests().filter((r) => r.path.endsWith("/actions/reject") && r.path.includes(id)).length,
            0
          )
          const [log] = yield* callLogs(comms, poor.key)
          assert.deepInclude(log, {
            direction: "INCOMING",
            status: "ENDED",
            outcome: "FAILED",
            endReason: "insufficient_funds",
            cost: 0,
            provider: "PROVIDER_C"
          })
          // Telnyx's hang-up webhook for it changes nothing
          const hangup = yield* post(appUrl, telnyx.webhook(call.callControlId, "call.hangup"))
          assert.strictEqual(hangup.status, 200, hangup.text)
          assert.deepInclude(yield* detail(comms, poor.key, log.sessionId), {
            outcome: "FAILED",
            endReason: "insufficient_funds"
          })
        })
    )
  })
})

/**
 * Keys both ways and transfers, end to end over loopback sockets: the platform with PROVIDER_B on
 * Twilio (FakeTwilio: the REST API, its signed callbacks, and a call's update with new TwiML), the
 * runner's media server, and the streaming providers on their fakes (FakeDeepgram, FakeOpenAiChat,
 * FakeElevenLabs). FakeTwilioMedia plays Twilio's side of the Media Stream: it presses the caller's
 * keys as Twilio's `dtmf` messages, and reads the agent's keys out of the audio the platform sends
 * with a Goertzel detector, as an IVR would.
 */
import { assert, describe, layer } from "@effect/vitest"
import { joinWebCall, startWebCall, type WebCallEvent } from "@voiceagent/client/WebCall"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import * as FakeDeepgram from "@voiceagent/runner/Testing/FakeDeepgram"
import * as FakeElevenLabs from "@voiceagent/runner/Testing/FakeElevenLabs"
import { type FakeOpenAiChatServer, makeFakeOpenAiChat } from "@voiceagent/runner/Testing/FakeOpenAiChat"
import * as FakeTelnyx from "@voiceagent/runner/Testing/FakeTelnyx"
import * as FakeTelnyxMedia from "@voiceagent/runner/Testing/FakeTelnyxMedia"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import * as FakeTwilioMedia from "@voiceagent/runner/Testing/FakeTwilioMedia"
import { Context, Effect, Layer, Redacted } from "effect"
import WebSocket from "ws"
import { assertBilled, lines, story } from "./CallScenario.js"
import { callReady, get, patch, portToName, post, waitUntil } from "./Http.js"

class Fakes extends Context.Tag("DtmfAndTransfer/Fakes")<Fakes, {
  readonly twilio: FakeTwilio.FakeTwilioServer
  readonly chat: FakeOpenAiChatServer
}>() {}

const IVR_MENU = "For sales press one, for support press two."
const IVR_ACCOUNT = "Please enter your account number, then press pound."
const BILLING = "Put me through to billing please."
const HUMAN = "Can I speak to a person?"
const DESK = "+14155550177"
const BILLING_DESK = "+14155550178"

const last = (body: any) => body.messages.at(-1)
const toolResult = (prefix: string) => (body: any) =>
  last(body).role === "tool" && String(last(body).content).startsWith(prefix)
const userSaid = (text: string) => (body: any) =>
  last(body).role === "user" && String(last(body).content).includes(text)

/** The speech and language providers' fakes, and the platform's voice options pointed at them. */
const providers = Effect.gen(function*() {
  // one transcript a stretch of the caller's speech, by agent name (the adapter's keyterm)
  const deepgram = yield* FakeDeepgram.make({
    vad: "webrtc",
    segmentGapMs: 300,
    scripts: { Ivy: [IVR_MENU, IVR_ACCOUNT], Tess: [HUMAN], Wren: [BILLING], Tia: [HUMAN], Ray: [HUMAN] }
  })
  const chat = yield* makeFakeOpenAiChat({
    apiKey: "sk-fake-dtmf",
    scripts: [
      // the agent navigates the menu: a bad key first (refused, the call goes on), then the right ones
      {
        when: userSaid("press two"),
        reply: { text: "Pressing two.", toolCalls: [{ name: "send_dtmf", arguments: { digits: "2" } }] }
      },
      {
        when: userSaid("account number"),
        reply: { toolCalls: [{ name: "send_dtmf", arguments: { digits: "43x1" } }] }
      },
      {
        when: toolResult("Only the keys"),
        reply: { toolCalls: [{ name: "send_dtmf", arguments: { digits: "4321#" } }] }
      },
      { when: toolResult("Pressed"), reply: {} },
      // the caller's keys reach the model as their turn
      { when: userSaid("[keypad] 1234"), reply: { text: "Thank you, I found account one two three four." } },
      { when: userSaid("[keypad] 9"), reply: { text: "Nine it is." } },
      // on a web call, and on Telnyx, the agent answers the caller's keys with keys of its own
      { when: userSaid("[keypad] 55"), reply: { toolCalls: [{ name: "send_dtmf", arguments: { digits: "5#" } }] } },
      {
        when: userSaid("[keypad] 7"),
        reply: { text: "Seven.", toolCalls: [{ name: "send_dtmf", arguments: { digits: "7" } }] }
      },
      // transfers: cold to the default, warm after a number the agent may not use
      { when: userSaid(HUMAN), reply: { toolCalls: [{ name: "transfer_call", arguments: { mode: "cold" } }] } },
      {
        when: userSaid(BILLING),
        reply: { toolCalls: [{ name: "transfer_call", arguments: { number: "+19005550100", mode: "warm" } }] }
      },
      {
        when: toolResult("The call can only"),
        reply: {
          toolCalls: [{
            name: "transfer_call",
            arguments: { number: BILLING_DESK, mode: "warm", message: "Connecting you to billing now." }
          }]
        }
      }
    ]
  })
  const elevenLabs = yield* FakeElevenLabs.make()
  return {
    chat,
    voice: {
      deepgram: { url: deepgram.url, apiKey: Redacted.make(deepgram.apiKey) },
      openAiChat: { baseUrl: chat.url, apiKey: Redacted.make("sk-fake-dtmf") },
      elevenLabs: { url: elevenLabs.url, apiKey: Redacted.make(elevenLabs.apiKey), voice: "21m00Tcm4TlvDq8ikWAM" }
    }
  }
})

const platform = Layer.unwrapScoped(Effect.gen(function*() {
  const gatewayPort = yield* Effect.promise(() => portToName())
  const publicUrl = `http://127.0.0.1:${gatewayPort}`
  const twilio = yield* FakeTwilio.make()
  const { chat, voice } = yield* providers
  return TestPlatform.layer({
    ports: { gateway: gatewayPort },
    publicUrl,
    twilioAuthToken: twilio.authToken,
    runtime: {
      carriers: { PROVIDER_B: FakeTwilio.carrier(twilio, publicUrl) },
      media: { host: "127.0.0.1", port: 0 },
      voice
    }
  }).pipe(Layer.merge(Layer.succeed(Fakes, { twilio, chat })))
}))

class Telnyx extends Context.Tag("DtmfAndTransfer/Telnyx")<Telnyx, FakeTelnyx.FakeTelnyxServer>() {}

const telnyxPlatform = Layer.unwrapScoped(Effect.gen(function*() {
  const gatewayPort = yield* Effect.promise(() => portToName())
  const publicUrl = `http://127.0.0.1:${gatewayPort}`
  const telnyx = yield* FakeTelnyx.make()
  const { voice } = yield* providers
  return TestPlatform.layer({
    ports: { gateway: gatewayPort },
    publicUrl,
    telnyxPublicKey: telnyx.publicKey,
    runtime: {
      carriers: { PROVIDER_B: FakeTelnyx.carrier(telnyx, publicUrl, { ringTimeoutSeconds: 30 }) },
      media: { host: "127.0.0.1", port: 0 },
      voice
    }
  }).pipe(Layer.merge(Layer.succeed(Telnyx, telnyx)))
}))

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

type User = Effect.Effect.Success<ReturnType<typeof callReady>>

const agentNamed = (user: User, name: string, voice: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
      token: user.key,
      json: { name, greetMessage: `Hello, this is ${name}.`, voice }
    })
    assert.strictEqual(configured.status, 200, configured.text)
    return configured.body
  })

/** Places a call, Twilio answers it and opens its stream; the greeting is said. */
const liveCall = (user: User, to: string) =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    const { twilio } = yield* Fakes
    const placed = yield* post(`${comms}/channels/voice/call`, {
      token: user.key,
      json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: to }
    })
    assert.strictEqual(placed.status, 202, placed.text)
    const sessionId = placed.body.sessionId as string
    const [created] = yield* waitUntil(Effect.sync(() => twilio.createdCalls().filter((c) => c.to === to)), (c) =>
      c.length > 0, `the call to ${to}`)
    const callSid = created!.sid
    for (const status of ["ringing", "in-progress"] as const) {
      twilio.setCallStatus(callSid, status)
      assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
    }
    const stream = yield* FakeTwilioMedia.connectCall(twilio, callSid)
    const session = () =>
      Effect.map(get(`${comms}/calls/${sessionId}`, { token: user.key }), (r) =>
        r.body)
    yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
    yield* stream.until("the greeting played", () => stream.audio().length > 0 && !stream.agentSpeaking())
    return { sessionId, callSid, stream, session }
  })

/** Twilio ends the call after the platform hung up: the stream stops, the completed callback comes. */
const endByPlatform = (callSid: string, stream: FakeTwilioMedia.FakeTwilioMediaStream) =>
  Effect.gen(function*() {
    const { twilio } = yield* Fakes
    yield* waitUntil(
      Effect.sync(() => twilio.call(callSid)!.status),
      (s) => s === "completed",
      "the platform's hang-up"
    )
    yield* stream.stop
    assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
  })

/**
 * What Twilio does with a transferred call: the new TwiML replaces the stream (it stops), Twilio
 * dials the number, and when that leg is over the call completes (a callback the ended session ignores).
 */
const completeTransferred = (callSid: string, stream: FakeTwilioMedia.FakeTwilioMediaStream) =>
  Effect.gen(function*() {
    const { twilio } = yield* Fakes
    yield* stream.stop
    twilio.setCallStatus(callSid, "completed")
    assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
  })

const redirectsOf = (callSid: string) =>
  Effect.gen(function*() {
    const { twilio } = yield* Fakes
    return (twilio.call(callSid)!.redirects ?? []).map((r) => FakeTwilioMedia.parseTwiml(r.twiml ?? "").dial)
  })

describe("keys both ways and transfers, on Twilio Media Streams", () => {
  layer(platform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "a DTMF menu, the caller's side: keys gathered until # (and after 3 s without #) reach the model as the " +
        "caller's turns",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* agentNamed(user, "Kim")
          const { callSid, session, stream } = yield* liveCall(user, "+14155550121")
          for (const key of "1234#") yield* stream.dtmf(key)
          yield* waitUntil(
            session(),
            (s) => lines(s).includes("agent: Thank you, I found account one two three four."),
            "the answer to the keys"
          )
          yield* stream.until("the agent quiet", () => !stream.agentSpeaking())
          // no terminator: the entry ends 3 s after the key
          const pressed = Date.now()
          yield* stream.dtmf("9")
          const nine = yield* waitUntil(
            session(),
            (s) => lines(s).includes("customer: [keypad] 9"),
            "the timed-out entry"
          )
          assert.isAtLeast(Date.now() - pressed, 3_000)
          assert.isBelow(
            Date.parse(nine.transcript.find((l: any) => l.text === "[keypad] 9").at) - pressed,
            3_500,
            story(nine)
          )
          yield* waitUntil(session(), (s) => lines(s).includes("agent: Nine it is."), "the answer to 9")

          yield* post(`${comms}/calls/${(yield* session()).sessionId}/hangup`, { token: user.key })
          yield* endByPlatform(callSid, stream)
          const done = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call ENDED")
          assert.deepStrictEqual(lines(done), [
            "agent: Hello, this is Kim.",
            "customer: [keypad] 1234",
            "agent: Thank you, I found account one two three four.",
            "customer: [keypad] 9",
            "agent: Nine it is."
          ], story(done))
          const { chat } = yield* Fakes
          assert.isTrue(chat.requests().some((r) => last(r.body)?.content === "[keypad] 1234"))
          // the answers to keys are timed from the entry's end (no speech-to-text in it)
          for (const answer of [done.transcript[2], done.transcript[4]]) {
            assert.isAtMost(answer.latency.endpointingMs, 20, story(done))
            assert.isNull(answer.latency.sttFinalLagMs, story(done))
            assert.isAbove(answer.latency.voiceToVoiceMs, 0)
          }
          assert.deepStrictEqual(stream.violations(), [])
        })
    )

    it.scoped(
      "a DTMF menu, the agent's side: it navigates an IVR by pressing keys the line decodes from the audio; a bad " +
        "key is refused, not sent",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* agentNamed(user, "Ivy")
          const { callSid, session, stream } = yield* liveCall(user, "+14155550122")
          // the IVR says its menu; the agent says it presses two, then the tone plays after its words
          const menu = yield* stream.say(yield* FakeTwilioMedia.callerLine(IVR_MENU))
          yield* stream.until("the agent pressed 2", () => stream.keysHeard(menu.endedAt) === "2", 20_000)
          yield* stream.until("the agent quiet", () => !stream.agentSpeaking())
          const account = yield* stream.say(yield* FakeTwilioMedia.callerLine(IVR_ACCOUNT))
          yield* stream.until(
            "the agent entered its account",
            () => stream.keysHeard(account.endedAt) === "4321#",
            20_000
          )
          assert.strictEqual(stream.keysHeard(), "24321#")

          const tools = () =>
            Effect.map(
              session(),
              (s) =>
                s.events.filter((e: any) => e.type === "tool_called").map((
                  e: any
                ) => [JSON.parse(e.detail.arguments).digits, e.detail.result])
            )
          const called = yield* waitUntil(tools(), (t) => t.length === 3, "three send_dtmf calls")
          assert.deepStrictEqual(called.map(([digits]: any) => digits), ["2", "43x1", "4321#"])
          assert.match(called[1][1], /^Only the keys/)
          assert.match(called[2][1], /^Pressed 4321#/)

          yield* post(`${comms}/calls/${(yield* session()).sessionId}/hangup`, { token: user.key })
          yield* endByPlatform(callSid, stream)
          const done = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call ENDED")
          assert.deepInclude(done, { endReason: "hangup_requested" }, story(done))
          assert.include(lines(done), "agent: Pressing two.", story(done))
          assert.deepStrictEqual(stream.violations(), [])
        })
    )

    it.scoped(
      "on a web call, keys both ways as messages: the client's entry reaches the model, the agent's keys reach the " +
        "client; no transfer there",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* callReady(gateway, "PROVIDER_A", { api: comms })
          yield* agentNamed(user, "Wes", { transfer: { numbers: [DESK] } })
          const ticket = yield* Effect.promise(() =>
            startWebCall({ baseUrl: new URL(gateway).origin, apiKey: user.key, agentId: user.agentId })
          )
          const events: Array<WebCallEvent> = []
          const call = joinWebCall(ticket, { WebSocket: WebSocket as never, onEvent: (event) => events.push(event) })
          yield* Effect.addFinalizer(() => Effect.sync(() => call.hangup()))
          yield* waitUntil(Effect.sync(() => events.some((e) => e.type === "transcript")), (ok) => ok, "the greeting")
          for (const key of "55#") call.dtmf(key)
          yield* waitUntil(
            Effect.sync(() => events.find((e) => e.type === "dtmf")),
            (e) => e !== undefined,
            "the agent's keys"
          )
          assert.deepInclude(events, { type: "dtmf", digits: "5#" } as WebCallEvent)
          assert.isTrue(
            events.some((e) => e.type === "transcript" && e.speaker === "customer" && e.text === "[keypad] 55")
          )
          // a web call has no carrier to transfer it: 409, and the call goes on
          const refused = yield* post(`${comms}/calls/${ticket.sessionId}/transfer`, {
            token: user.key,
            json: { toNumber: DESK }
          })
          assert.deepStrictEqual([refused.status, refused.body.error?.code], [409, "TRANSFER_FAILED"], refused.text)
          const live = (yield* get(`${comms}/calls/${ticket.sessionId}`, { token: user.key })).body
          assert.deepInclude(live, { status: "IN_PROGRESS" })
          call.hangup()
          const done = yield* waitUntil(
            Effect.map(get(`${comms}/calls/${ticket.sessionId}`, { token: user.key }), (r) => r.body),
            (s) => s.status === "ENDED",
            "the web call ENDED"
          )
          assert.deepStrictEqual(lines(done).slice(1, 2), ["customer: [keypad] 55"], story(done))
          assert.isFalse(done.events.some((e: any) => e.type === "transfer_failed"), story(done))
        })
    )

    it.scoped(
      "a cold transfer from the model's tool: Twilio's call updated with a <Dial> to the agent's number, the session " +
        "ended as transferred and billed to then",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          const agent = yield* agentNamed(user, "Tess", { transfer: { numbers: [DESK, BILLING_DESK] } })
          assert.deepStrictEqual(agent.effectiveVoice.transfer.numbers, [DESK, BILLING_DESK])
          const { callSid, session, stream } = yield* liveCall(user, "+14155550123")
          yield* stream.say(yield* FakeTwilioMedia.callerLine(HUMAN))
          const done = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call transferred")
          assert.deepStrictEqual(yield* redirectsOf(callSid), [{ number: DESK, callerId: "+14155550199" }])
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "transferred" }, story(done))
          assert.deepStrictEqual(lines(done), [
            "agent: Hello, this is Tess.",
            `customer: ${HUMAN}`,
            `agent: [transfer] cold to ${DESK}`
          ], story(done))
          const transferred = done.events.find((e: any) => e.type === "transferred")
          assert.deepStrictEqual(transferred.detail, { toNumber: DESK, mode: "cold", source: "agent" })
          assert.strictEqual(transferred.at, done.endedAt)
          // not hung up: Twilio carries the call on to the desk
          const { twilio } = yield* Fakes
          const posts = twilio.calls().filter((r) => r.method === "POST" && r.path.endsWith(`/Calls/${callSid}.json`))
          assert.deepStrictEqual(posts.map((r) => r.form.map(([k]) => k)), [["Twiml"]], story(done))
          yield* assertBilled(done, user.key, 1000)
          // the stream stops and, when the desk hangs up, the call completes: the session stays as it was
          yield* completeTransferred(callSid, stream)
          assert.deepInclude(yield* session(), { endReason: "transferred", cost: done.cost, endedAt: done.endedAt })
        })
    )

    it.scoped(
      "a transfer Twilio refuses: the agent hangs up rather than leave the caller on a line with nobody, and the log " +
        "says why",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { twilio } = yield* Fakes
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* agentNamed(user, "Ray", { transfer: { numbers: [DESK] } })
          const { callSid, session, stream } = yield* liveCall(user, "+14155550126")
          twilio.failNext(
            {
              _tag: "Respond",
              status: 400,
              body: { code: 21220, message: "Call is not in-progress. Cannot redirect.", status: 400 }
            },
            { method: "POST", path: new RegExp(`/Calls/${callSid}\\.json$`), param: "Twiml" }
          )
          yield* stream.say(yield* FakeTwilioMedia.callerLine(HUMAN))
          const done = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call ENDED")
          assert.deepInclude(
            done,
            { endReason: "agent_hangup" },
            `${story(done)} ${JSON.stringify(twilio.calls().slice(-4))}`
          )
          yield* endByPlatform(callSid, stream)
          const failed = done.events.find((e: any) => e.type === "transfer_failed")
          assert.deepInclude(failed.detail, { toNumber: DESK, mode: "cold", source: "agent" })
          assert.match(failed.detail.reason, /21220/)
          assert.deepInclude(done.events.find((e: any) => e.type === "agent_hangup").detail, {
            reason: "transfer_failed"
          })
          assert.isFalse(lines(done).some((l) => l.includes("[transfer]")), story(done))
          yield* assertBilled(done, user.key, 1000)
        })
    )

    it.scoped(
      "a warm transfer from the model's tool: a number the agent may not use is refused, then the hand-off line is " +
        "said whole before the transfer",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* agentNamed(user, "Wren", { transfer: { numbers: [DESK, BILLING_DESK] } })
          const { callSid, session, stream } = yield* liveCall(user, "+14155550124")
          const asked = yield* stream.say(yield* FakeTwilioMedia.callerLine(BILLING))
          const done = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call transferred")
          assert.deepStrictEqual(yield* redirectsOf(callSid), [{ number: BILLING_DESK, callerId: "+14155550199" }])
          assert.deepStrictEqual(lines(done).slice(1), [
            `customer: ${BILLING}`,
            "agent: Connecting you to billing now.",
            `agent: [transfer] warm to ${BILLING_DESK}`
          ], story(done))
          // the hand-off line played to its end before Twilio was given the new instructions
          const { twilio } = yield* Fakes
          const redirectedAt = twilio.call(callSid)!.redirects![0]!.at.getTime()
          const handOff = stream.audio().filter((a) => a.at > asked.endedAt)
          assert.isAbove(handOff.length, 0)
          assert.isAtLeast(redirectedAt, Math.max(...handOff.map((a) => a.until)) - 50)
          const calls = done.events.filter((e: any) => e.type === "tool_called").map((e: any) => e.detail.result)
          assert.match(calls[0], /^The call can only be transferred to \+14155550177, \+14155550178\./)
          assert.deepInclude(done, { endReason: "transferred" })
          yield* assertBilled(done, user.key, 1000)
          yield* completeTransferred(callSid, stream)
        })
    )

    it.scoped(
      "the transfer API: 400 for a bad number, 404 for another tenant's call, 409 before the answer; a cold " +
        "transfer; a retry answers it, another number is 409",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { twilio } = yield* Fakes
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          const other = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* agentNamed(user, "Kim")
          const transfer = (sessionId: string, json: unknown, key = user.key) =>
            post(`${comms}/calls/${sessionId}/transfer`, { token: key, json })

          // before the answer: not live
          const placed = yield* post(`${comms}/channels/voice/call`, {
            token: user.key,
            json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550125" }
          })
          const early = yield* waitUntil(
            transfer(placed.body.sessionId, { toNumber: DESK }),
            (r) => r.status !== 500,
            "an answer"
          )
          assert.deepStrictEqual([early.status, early.body.error?.code], [409, "CALL_NOT_LIVE"], early.text)
          const [created] = yield* waitUntil(
            Effect.sync(() => twilio.createdCalls().filter((c) => c.to === "+14155550125")),
            (c) => c.length > 0,
            "the call"
          )
          twilio.setCallStatus(created!.sid, "in-progress")
          assert.strictEqual(yield* twilio.deliverStatusCallback(created!.sid), 204)
          const stream = yield* FakeTwilioMedia.connectCall(twilio, created!.sid)
          const sessionId = placed.body.sessionId as string
          const session = () => Effect.map(get(`${comms}/calls/${sessionId}`, { token: user.key }), (r) => r.body)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")

          for (
            const body of [{ toNumber: "12345" }, { toNumber: "+1415555" }, {}, { toNumber: 14155550177 }, {
              toNumber: `${DESK} `
            }]
          ) {
            const bad = yield* transfer(sessionId, body)
            assert.deepStrictEqual([bad.status, bad.body.error?.code], [400, "VALIDATION_FAILED"], JSON.stringify(body))
          }
          const foreign = yield* transfer(sessionId, { toNumber: DESK }, other.key)
          assert.deepStrictEqual([foreign.status, foreign.body.error?.code], [404, "CALL_NOT_FOUND"])
          const unknown = yield* transfer("0190b0a2-7c1e-7d3a-9f00-00000000beef", { toNumber: DESK })
          assert.deepStrictEqual([unknown.status, unknown.body.error?.code], [404, "CALL_NOT_FOUND"])
          // nothing was asked of Twilio, nothing written
          assert.deepStrictEqual(yield* redirectsOf(created!.sid), [])
          assert.deepInclude(yield* session(), { status: "IN_PROGRESS" })

          const done = yield* transfer(sessionId, { toNumber: DESK })
          assert.strictEqual(done.status, 200, done.text)
          assert.deepInclude(done.body, { sessionId, status: "ENDED", outcome: "ANSWERED" })
          assert.deepInclude(done.body.transfer, { toNumber: DESK, mode: "cold", source: "api" })
          assert.deepStrictEqual(yield* redirectsOf(created!.sid), [{ number: DESK, callerId: "+14155550199" }])
          const ended = yield* session()
          assert.deepInclude(ended, { endReason: "transferred" })
          assert.strictEqual(lines(ended).at(-1), `agent: [transfer] cold to ${DESK}`)
          assert.strictEqual(done.body.transfer.at, ended.endedAt)

          // the same request again answers the transfer made; another number finds the call over
          const again = yield* transfer(sessionId, { toNumber: DESK })
          assert.deepStrictEqual([again.status, again.body.transfer], [200, done.body.transfer])
          const elsewhere = yield* transfer(sessionId, { toNumber: BILLING_DESK })
          assert.deepStrictEqual([elsewhere.status, elsewhere.body.error?.code], [409, "CALL_NOT_LIVE"])
          assert.strictEqual((yield* redirectsOf(created!.sid)).length, 1)
          yield* assertBilled(ended, user.key, 1000)
          yield* completeTransferred(created!.sid, stream)
        })
    )
  })
})

describe("keys and transfers on the simulated carrier (no credentials)", () => {
  layer(TestPlatform.layer(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "agent settings: keypad and transfer choices validated (400 naming the field, nothing written), defaults " +
        "filled in",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* callReady(gateway, "PROVIDER_A", { api: comms })
          const url = `${comms}/agents/${user.agentId}`
          const before = (yield* get(url, { token: user.key })).body
          assert.deepStrictEqual(before.effectiveVoice.keypad, {
            terminator: "#",
            interDigitTimeoutMs: 3000,
            maxDigits: 20,
            agentMayPress: true
          })
          assert.deepStrictEqual(before.effectiveVoice.transfer, {
            numbers: [],
            warmMessage: "Please hold while I transfer your call."
          })
          const cases: Array<[unknown, string]> = [
            [{ keypad: { terminator: "1" } }, "voice.keypad.terminator"],
            [{ keypad: { interDigitTimeoutMs: 100 } }, "voice.keypad.interDigitTimeoutMs"],
            [{ keypad: { maxDigits: 33 } }, "voice.keypad.maxDigits"],
            [{ keypad: { agentMayPress: "yes" } }, "voice.keypad.agentMayPress"],
            [{ keypad: { pound: true } }, "voice.keypad"],
            [{ transfer: { numbers: ["4155550177"] } }, "voice.transfer.numbers"],
            [
              {
                transfer: { numbers: Array.from({ length: 21 }, (_, i) => `+141555501${String(i).padStart(2, "0")}`) }
              },
              "voice.transfer.numbers"
            ],
            [{ transfer: { warmMessage: "" } }, "voice.transfer.warmMessage"]
          ]
          for (const [voice, field] of cases) {
            const reply = yield* patch(url, { token: user.key, json: { voice } })
            assert.deepStrictEqual(
              [reply.status, reply.body.error?.code],
              [400, "VALIDATION_FAILED"],
              JSON.stringify(voice)
            )
            assert.isTrue(
              reply.body.error.details.some((d: { path: string }) => d.path.startsWith(field)),
              `${JSON.stringify(voice)}: ${reply.text}`
            )
          }
          assert.deepStrictEqual((yield* get(url, { token: user.key })).body, before, "nothing written")
          const set = yield* patch(url, {
            token: user.key,
            json: { voice: { keypad: { terminator: "none", maxDigits: 4 }, transfer: { numbers: [DESK] } } }
          })
          assert.strictEqual(set.status, 200, set.text)
          assert.deepInclude(set.body.effectiveVoice.keypad, {
            terminator: null,
            maxDigits: 4,
            interDigitTimeoutMs: 3000
          })
          assert.deepStrictEqual(set.body.effectiveVoice.transfer.numbers, [DESK])
        })
    )

    it.scoped(
      "the scripted callee presses keys the agent hears; a transfer the carrier refuses changes nothing, one to " +
        "another number ends the call",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* callReady(gateway, "PROVIDER_A", { api: comms })
          const placed = yield* post(`${comms}/channels/voice/call`, {
            token: user.key,
            json: {
              agentId: user.agentId,
              voiceNumberId: user.voiceNumberId,
              toNumber: "+14155550060",
              metadata: { simulatedCaller: [{ press: "42#", gapMs: 100 }, { silent: 60_000 }] }
            }
          })
          assert.strictEqual(placed.status, 202, placed.text)
          const sessionId = placed.body.sessionId as string
          const session = () => Effect.map(get(`${comms}/calls/${sessionId}`, { token: user.key }), (r) => r.body)
          yield* waitUntil(session(), (s) => lines(s).includes("customer: [keypad] 42"), "the callee's keys heard")

          // …9004: the simulator refuses the number: 409, and the call goes on
          const refused = yield* post(`${comms}/calls/${sessionId}/transfer`, {
            token: user.key,
            json: { toNumber: "+14155559004" }
          })
          assert.deepStrictEqual([refused.status, refused.body.error?.code], [409, "TRANSFER_FAILED"], refused.text)
          const still = yield* session()
          assert.deepInclude(still, { status: "IN_PROGRESS" }, story(still))
          assert.deepInclude(still.events.find((e: any) => e.type === "transfer_failed").detail, {
            toNumber: "+14155559004",
            source: "api"
          })
          // a failed transfer does not hold the call's one transfer: another number is taken
          const done = yield* post(`${comms}/calls/${sessionId}/transfer`, {
            token: user.key,
            json: { toNumber: DESK }
          })
          assert.strictEqual(done.status, 200, done.text)
          const ended = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call ENDED")
          assert.deepInclude(ended, { endReason: "transferred", outcome: "ANSWERED" }, story(ended))
          assert.strictEqual(lines(ended).at(-1), `agent: [transfer] cold to ${DESK}`)
          yield* assertBilled(ended, user.key, 1000)
        })
    )
  })
})

describe("keys both ways and a transfer, on Telnyx Call Control and media streaming", () => {
  layer(telnyxPlatform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "the caller's keys reach the model, the agent's go back as tones in the RTP stream, and its cold transfer is " +
        "Call Control's transfer",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const telnyx = yield* Telnyx
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* agentNamed(user, "Tia", { transfer: { numbers: [DESK] } })
          const placed = yield* post(`${comms}/channels/voice/call`, {
            token: user.key,
            json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550131" }
          })
          assert.strictEqual(placed.status, 202, placed.text)
          const sessionId = placed.body.sessionId as string
          const [call] = yield* waitUntil(
            Effect.sync(() => telnyx.createdCalls().filter((c) => c.to === "+14155550131")),
            (c) => c.length > 0,
            "the dial"
          )
          const id = call!.callControlId
          assert.strictEqual(yield* telnyx.deliver(id, "call.initiated"), 200)
          telnyx.answer(id)
          assert.strictEqual(yield* telnyx.deliver(id, "call.answered"), 200)
          const session = () => Effect.map(get(`${comms}/calls/${sessionId}`, { token: user.key }), (r) => r.body)
          const stream = yield* FakeTelnyxMedia.connectCall(telnyx, id)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
          yield* stream.until("the greeting played", () => !stream.agentSpeaking())

          for (const key of "7#") yield* stream.dtmf(key)
          yield* stream.until("the agent pressed 7", () => stream.keysHeard() === "7", 20_000)
          yield* stream.until("the agent quiet", () => !stream.agentSpeaking())
          yield* stream.say(yield* FakeTelnyxMedia.callerLine(HUMAN))
          const done = yield* waitUntil(session(), (s) => s.status === "ENDED", "the call transferred")
          assert.deepStrictEqual(lines(done), [
            "agent: Hello, this is Tia.",
            "customer: [keypad] 7",
            "agent: Seven.",
            `customer: ${HUMAN}`,
            `agent: [transfer] cold to ${DESK}`
          ], story(done))
          assert.deepInclude(done, { endReason: "transferred" }, story(done))
          // Telnyx was asked to transfer (from the call's number), not to hang up; it did not get send_dtmf: the keys
          // went in band
          assert.deepStrictEqual(telnyx.call(id)!.transfers?.map((t) => [t.to, t.from]), [[DESK, "+14155550199"]])
          assert.deepStrictEqual(
            telnyx.requests().filter((r) => r.path.includes(id)).map((r) => r.path.split("/").at(-1)),
            ["transfer"]
          )
          yield* assertBilled(done, user.key, 1000)
          // when the transferred leg ends, Telnyx's hang-up webhook changes nothing
          yield* stream.stop
          telnyx.hangUp(id, "normal_clearing", "callee")
          assert.strictEqual(yield* telnyx.deliver(id, "call.hangup"), 200)
          assert.deepInclude(yield* session(), { endReason: "transferred", endedAt: done.endedAt, cost: done.cost })
          assert.deepStrictEqual(stream.violations(), [])
        })
    )
  })
})

/**
 * Voice calls on the real-carrier path, end to end over loopback sockets: the platform with
 * PROVIDER_B numbers on Twilio (FakeTwilio: the REST API and its signed status callbacks), the
 * runner's media server on a free port, and the speech and language providers' real adapters on
 * their fakes (FakeDeepgram, FakeOpenAiChat, FakeElevenLabs). FakeTwilioMedia plays Twilio's side of
 * each call's Media Stream, from the TwiML the platform gave Twilio; the caller speaks the recorded
 * fixtures in real time. Then the same call with no credentials at all: the offline responder, the
 * built-in voice and a self-hosted transcription server.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { defaultSettings } from "@voiceagent/domain/Conversation"
import { RESUME_LINE } from "@voiceagent/runner/Calls/Conversations"
import { computeSignature, streamEndedPath } from "@voiceagent/runner/Telephony/TwilioCarrier"
import * as FakeDeepgram from "@voiceagent/runner/Testing/FakeDeepgram"
import * as FakeElevenLabs from "@voiceagent/runner/Testing/FakeElevenLabs"
import { type FakeOpenAiChatServer, makeFakeOpenAiChat } from "@voiceagent/runner/Testing/FakeOpenAiChat"
import * as FakeOpenAiTranscription from "@voiceagent/runner/Testing/FakeOpenAiTranscription"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import * as FakeTwilioMedia from "@voiceagent/runner/Testing/FakeTwilioMedia"
import { fakeWordEndsMs } from "@voiceagent/runner/Testing/FakeVoice"
import * as TestChroma from "@voiceagent/runner/Testing/TestChroma"
import { noiseFrames } from "@voiceagent/runner/Voice/SimulatedCaller"
import type { VoiceOptions } from "@voiceagent/runner/Voice/VoiceProvidersLive"
import { Context, Effect, Fiber, Layer, Redacted } from "effect"
import type * as Scope from "effect/Scope"
import { assertBilled, lines, story } from "./CallScenario.js"
import { callReady, get, patch, portToName, post, waitUntil } from "./Http.js"

/**
 * The bound on the greeting's first audio after the stream starts, end to end over sockets. It catches a
 * greeting that waits for a machine detection (seconds of the callee's speech) or for anything of that
 * order; that the greeting is synthesised while the phone rings is the engine's own figure (docs/voice.md →
 * Performance: first audio 3–6 ms after the start in process). Measured here on a quiet machine: 17–94 ms.
 * Under CI's load (two test files at once on two cores, each spawning processes) the same path took
 * 0.46–1.3 s on this code and on stop 22's alike: a 500 ms bound failed on the machine's load.
 */
const FIRST_AUDIO_BOUND_MS = 1_500

class Twilio extends Context.Tag("VoiceCalls/Twilio")<Twilio, {
  readonly fake: FakeTwilio.FakeTwilioServer
  readonly publicUrl: string
}>() {}

/**
 * The platform with PROVIDER_B on FakeTwilio and a media server; its providers on fakes started beside it (as `tag`).
 */
const platform = <I, A>(
  tag: Context.Tag<I, A>,
  fakes: Effect.Effect<A, never, Scope.Scope>,
  voice: (fakes: A) => VoiceOptions,
  extra: Partial<NonNullable<TestPlatform.TestPlatformOptions["runtime"]>> = {}
) =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const gatewayPort = yield* Effect.promise(() => portToName())
    const publicUrl = `http://127.0.0.1:${gatewayPort}`
    const twilio = yield* FakeTwilio.make()
    const started = yield* fakes
    return TestPlatform.layer({
      ports: { gateway: gatewayPort },
      publicUrl,
      twilioAuthToken: twilio.authToken,
      runtime: {
        carriers: { PROVIDER_B: FakeTwilio.carrier(twilio, publicUrl) },
        media: { host: "127.0.0.1", port: 0 },
        voice: voice(started),
        ...extra
      }
    }).pipe(Layer.merge(Layer.succeed(Twilio, { fake: twilio, publicUrl })), Layer.merge(Layer.succeed(tag, started)))
  }))

interface ProviderFakes {
  readonly deepgram: FakeDeepgram.FakeDeepgramServer
  readonly chat: FakeOpenAiChatServer
  readonly elevenLabs: FakeElevenLabs.FakeElevenLabsServer
}
class Providers extends Context.Tag("VoiceCalls/Providers")<Providers, ProviderFakes>() {}
class Transcription extends Context.Tag("VoiceCalls/Transcription")<
  Transcription,
  FakeOpenAiTranscription.FakeOpenAiTranscriptionServer
>() {}

const QUESTION = "How much does the premium plan cost?"
const INTERRUPTION = "Wait, stop. What was the price again?"
const GOODBYE = "That's all I needed, goodbye."
const ANSWER = "The premium plan costs twenty dollars a month, and it includes unlimited calls and priority support."
const FAQS = [
  { question: "How much is the premium plan?", answer: ANSWER },
  { question: "When are you open?", answer: "We are open Monday to Friday from nine to six." }
]

/** Caller scripts for FakeDeepgram, by agent name (the adapter's keyterm): one transcript a stretch of speech. */
const DICTATED = ["My number is four one five,", "five five five, two six seven one."] as const
const SCRIPTS = { Ada: [QUESTION, INTERRUPTION, GOODBYE], Bea: [QUESTION], Cal: ["uh-huh", "", ...DICTATED] }

const lastOf = (body: any) => body.messages.at(-1)
const withProviders = platform(
  Providers,
  Effect.gen(function*() {
    const deepgram = yield* FakeDeepgram.make({ vad: "webrtc", segmentGapMs: 300, scripts: SCRIPTS })
    const chat = yield* makeFakeOpenAiChat({
      apiKey: "sk-fake-voice-calls",
      scripts: [
        // Bea's model is down: every request of her conversation is a 500
        {
          when: (body) => JSON.stringify(body.messages).includes("this is Bea"),
          fault: { _tag: "Respond", status: 500 }
        },
        // the knowledge base's answer, read back from the tool's result
        {
          when: (body) => lastOf(body).role === "tool",
          reply: (body) => ({
            text: /The premium plan costs[^\n]*?\./.exec(lastOf(body).content)?.[0] ?? "I could not find that."
          })
        },
        { when: "price again", reply: { text: "Twenty dollars a month." } },
        { when: "two six seven one", reply: { text: "Thank you, I have found your account." } },
        { when: "goodbye", reply: { text: "Goodbye!", toolCalls: [{ name: "end_call", arguments: {} }] } },
        {
          when: "premium plan",
          reply: { toolCalls: [{ name: "lookup_knowledge", arguments: { query: "premium plan price" } }] }
        }
      ]
    })
    const elevenLabs = yield* FakeElevenLabs.make()
    return { deepgram, chat, elevenLabs } satisfies ProviderFakes
  }),
  ({ chat, deepgram, elevenLabs }) => ({
    deepgram: { url: deepgram.url, apiKey: Redacted.make(deepgram.apiKey) },
    openAiChat: { baseUrl: chat.url, apiKey: Redacted.make("sk-fake-voice-calls") },
    elevenLabs: { url: elevenLabs.url, apiKey: Redacted.make(elevenLabs.apiKey), voice: "21m00Tcm4TlvDq8ikWAM" }
  }),
  { knowledge: { vectorStore: TestChroma.layer } }
)

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

const detail = (comms: string, key: string, sessionId: string) =>
  Effect.map(get(`${comms}/calls/${sessionId}`, { token: key }), (r) => r.body)

/** Places a call to `to`: its session id, and the Twilio call it created with the TwiML it was given. */
const placeCall = (
  user: { readonly key: string; readonly agentId: string; readonly voiceNumberId: string },
  to: string
) =>
  Effect.gen(function*() {
    const { comms } = yield* TestPlatform.TestPlatformUrls
    const { fake } = yield* Twilio
    const placed = yield* post(`${comms}/channels/voice/call`, {
      token: user.key,
      json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: to }
    })
    assert.strictEqual(placed.status, 202, placed.text)
    const [created] = yield* waitUntil(Effect.sync(() => fake.createdCalls().filter((c) => c.to === to)), (c) =>
      c.length > 0, `the call to ${to} created on Twilio`)
    return { sessionId: placed.body.sessionId as string, callSid: created!.sid, twiml: created!.twiml ?? "" }
  })

/** Twilio reports the call ringing, then answered, each callback signed. */
const answer = (callSid: string) =>
  Effect.gen(function*() {
    const { fake } = yield* Twilio
    for (const status of ["ringing", "in-progress"] as const) {
      fake.setCallStatus(callSid, status)
      assert.strictEqual(yield* fake.deliverStatusCallback(callSid), 204)
    }
  })

/** Twilio ends the call after the platform asked it to: the stream stops, the completed callback comes. */
const completeAfterHangup = (callSid: string, stream: FakeTwilioMedia.FakeTwilioMediaStream) =>
  Effect.gen(function*() {
    const { fake } = yield* Twilio
    yield* waitUntil(
      Effect.sync(() => fake.calls().filter((r) => r.method === "POST" && r.path.endsWith(`/Calls/${callSid}.json`))),
      (posts) => posts.some((r) => r.form.some(([k, v]) => k === "Status" && v === "completed")),
      "the platform's hang-up posted to Twilio"
    )
    assert.strictEqual(fake.call(callSid)!.status, "completed")
    yield* stream.stop
    assert.strictEqual(yield* fake.deliverStatusCallback(callSid), 204)
  })

/** Twilio asking for the call's next instructions after its stream ended, signed as Twilio signs. */
const streamEnded = (sessionId: string, callSid: string, signature?: string) =>
  Effect.gen(function*() {
    const { fake, publicUrl } = yield* Twilio
    const url = `${publicUrl}${streamEndedPath(sessionId)}`
    const params = {
      AccountSid: fake.accountSid,
      CallSid: callSid,
      CallStatus: "in-progress",
      ApiVersion: "2010-04-01"
    }
    return yield* post(url, {
      body: new URLSearchParams(params).toString(),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": signature ?? computeSignature(fake.authToken, url, params)
      }
    })
  })

describe("voice calls on Twilio Media Streams, with streaming providers", () => {
  layer(withProviders, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "greets at once, answers from the knowledge base, is cut off mid-sentence, hangs up on goodbye; billed exactly",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { fake } = yield* Twilio
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          const kb = yield* post(`${comms}/knowledge-bases`, {
            token: user.key,
            json: { kbKey: `shop-${Date.now()}`, kbName: "Shop" }
          })
          yield* post(`${comms}/knowledge-bases/${kb.body.id}/sources`, {
            token: user.key,
            json: { type: "FAQ", faqs: FAQS }
          })
          const job = yield* post(`${comms}/knowledge-bases/${kb.body.id}/ingestion-jobs`, { token: user.key })
          yield* waitUntil(
            Effect.map(
              get(`${comms}/knowledge-bases/${kb.body.id}/ingestion-jobs/${job.body.jobId}`, { token: user.key }),
              (r) => r.body.status
            ),
            (status) => status === "SUCCEEDED",
            "the knowledge base ingested"
          )
          const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
            token: user.key,
            json: { name: "Ada", greetMessage: "Hello, this is Ada.", knowledgeBaseIds: [kb.body.id] }
          })
          assert.strictEqual(configured.status, 200, configured.text)
          assert.deepInclude(configured.body.effectiveVoice.speechToText, { provider: "deepgram" })

          const { callSid, sessionId, twiml } = yield* placeCall(user, "+14155550101")
          // the call's instructions connect its audio to this runner's media server, the token as a <Parameter>
          const instructions = FakeTwilioMedia.parseTwiml(twiml)
          assert.match(instructions.stream!.url, /^ws:\/\/127\.0\.0\.1:\d+\/media\/twilio$/)
          assert.match(instructions.stream!.parameters["token"]!, new RegExp(`^${sessionId}\\.\\d+\\.[\\w-]+$`))
          assert.strictEqual(
            instructions.redirect,
            `${(yield* Twilio).publicUrl}/api/v1/telephony/twilio/stream-ended/${sessionId}`
          )
          assert.match(
            twiml,
            new RegExp(
              String.raw`^<Response><Connect><Stream url="[^"]+"><Parameter name="token" value="[^"]+"\/><\/Stream>` +
                String.raw`<\/Connect><Redirect method="POST">[^<]+<\/Redirect><\/Response>$`
            )
          )

          yield* answer(callSid)
          const stream = yield* FakeTwilioMedia.connectCall(fake, callSid)
          const startedAt = Date.now()
          yield* stream.until("the greeting's first audio", () => stream.audio().length > 0)
          const firstAudioMs = stream.audio()[0]!.at - startedAt
          // synthesised while the phone rang: it follows the stream's start at once
          assert.isBelow(firstAudioMs, FIRST_AUDIO_BOUND_MS, `first audio ${firstAudioMs} ms after start`)
          const session = () => detail(comms, user.key, sessionId)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
          assert.isTrue(
            stream.marks().length > 0 && stream.marks().every((m) => m.echoedAt !== undefined && !m.cleared)
          )

          // the question; the answer comes from the knowledge base through lookup_knowledge
          const asked = yield* stream.say(yield* FakeTwilioMedia.callerLine(QUESTION))
          yield* stream.until("the answer's first audio", () => stream.audio().some((a) => a.at > asked.endedAt))
          const answerFrom = stream.audio().find((a) => a.at > asked.endedAt)!.at
          // barge-in 1.5 s into the answer: the carrier's buffer is cleared within 250 ms of the caller's first sound
          yield* stream.until("1.5 s of the answer heard", () => stream.heardMs(answerFrom) >= 1_500)
          const interrupting = yield* Effect.fork(Effect.flatMap(FakeTwilioMedia.callerLine(INTERRUPTION), stream.say))
          yield* stream.until("the clear", () => stream.clears().length > 0)
          const heardMs = stream.heardMs(answerFrom)
          const interruption = yield* Fiber.join(interrupting)
          const reactionMs = stream.clears()[0]! - interruption.startedAt
          // 200 ms of speech (interruption.minSpeechMs) and then at once: 202–203 ms on an idle machine. The
          // 250 ms bar itself is held on the TestClock (ConversationEngine.test) and measured by the voice
          // bench; here, on the real clock of a CI machine running other test files, event-loop delay counts
          // too, so the bound only catches a clear that waits for words or for the next chunk of audio
          assert.isAtMost(reactionMs, 500, `clear ${reactionMs} ms after the caller's onset`)

          yield* waitUntil(
            session(),
            (s) => s.transcript.some((l: any) => l.text === "Twenty dollars a month."),
            "the answer to the interruption"
          )
          yield* stream.until("the agent quiet", () => !stream.agentSpeaking())
          yield* stream.say(yield* FakeTwilioMedia.callerLine(GOODBYE))
          yield* completeAfterHangup(callSid, stream)

          const done = yield* waitUntil(
            session(),
            (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
            "the call ENDED"
          )
          assert.deepInclude(
            done,
            { outcome: "ANSWERED", endReason: "agent_hangup", provider: "PROVIDER_B" },
            story(done)
          )
          const said = lines(done)
          assert.deepStrictEqual(
            [said[0], said[1]],
            ["agent: Hello, this is Ada.", `customer: ${QUESTION}`],
            story(done)
          )
          assert.deepStrictEqual(said.slice(3), [
            `customer: ${INTERRUPTION}`,
            "agent: Twenty dollars a month.",
            `customer: ${GOODBYE}`,
            "agent: Goodbye!"
          ], story(done))
          // the cut-off answer keeps the words the caller heard, to the word
          const cut = done.transcript[2]
          assert.isTrue(cut.interrupted, story(done))
          const words = ANSWER.split(" ")
          const kept = cut.text.split(" ")
          assert.deepStrictEqual(kept, words.slice(0, kept.length), story(done))
          // and the model was asked the next question with only those words as its own last turn
          const { chat } = yield* Providers
          const next = chat.requests().map((r) => r.body).find((b) => lastOf(b)?.content === INTERRUPTION)
          assert.deepStrictEqual(next?.messages.at(-2), { role: "assistant", content: cut.text }, story(done))
          const ends = fakeWordEndsMs(ANSWER)
          assert.isAtMost(ends[kept.length - 1]!, heardMs + 50, `"${cut.text}" with ${heardMs} ms heard`)
          assert.isAbove(ends[kept.length]!, heardMs - 50, `"${cut.text}" with ${heardMs} ms heard`)
          // every answer has its latencies
          for (const line of done.transcript.filter((l: any) => l.speaker === "agent").slice(1)) {
            assert.isNotNull(line.latency, story(done))
            assert.isAbove(line.latency.voiceToVoiceMs, 0)
            assert.isAtLeast(line.latency.voiceToVoiceMs, line.latency.endpointingMs)
            // the speech-to-text's final came (0 when it came before the voice detector heard the end)
            assert.isNumber(line.latency.sttFinalLagMs, story(done))
          }
          const events = done.events.map((e: any) => e.type)
          // Twilio dates its callbacks to the second; the timeline still runs forward
          assert.deepStrictEqual(events.slice(0, 4), ["queued", "dialing", "ringing", "answered"], story(done))
          for (const type of ["media_connected", "tool_called", "agent_hangup", "media_stopped"]) {
            assert.include(events, type, story(done))
          }
          assert.deepInclude(done.events.find((e: any) => e.type === "tool_called").detail, {
            name: "lookup_knowledge"
          })
          assert.deepStrictEqual(stream.violations(), [])
          yield* assertBilled(done, user.key, 1000)
          // the completed callback after the agent's hang-up changes nothing
          assert.strictEqual(yield* fake.deliverStatusCallback(callSid), 204)
          assert.deepInclude(yield* session(), { endReason: "agent_hangup", cost: done.cost })
        })
    )

    it.scoped(
      "a backchannel and a noise do not cut the agent off; a number dictated with a pause is one turn; silence gets " +
        "a reminder, then a goodbye",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { fake } = yield* Twilio
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          const GREETING =
            "Hello, this is Cal from Acme. Please tell me your phone number so I can look up your account."
          const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
            token: user.key,
            json: { name: "Cal", greetMessage: GREETING, voice: { idle: { reminderAfterSeconds: 3, reminders: 1 } } }
          })
          assert.strictEqual(configured.status, 200, configured.text)
          const { callSid, sessionId } = yield* placeCall(user, "+14155550104")
          const session = () => detail(comms, user.key, sessionId)
          yield* answer(callSid)
          const stream = yield* FakeTwilioMedia.connectCall(fake, callSid)
          yield* stream.until("the greeting's first audio", () => stream.audio().length > 0)
          // over the greeting: "uh-huh" 1.5 s in, a noise burst 3.5 s in
          yield* stream.until("1.5 s of the greeting heard", () => stream.heardMs() >= 1_500)
          yield* stream.say(yield* FakeTwilioMedia.callerLine("uh-huh"))
          yield* stream.until("3.5 s of the greeting heard", () => stream.heardMs() >= 3_500)
          yield* stream.say(noiseFrames(300))
          // (the agent pauses for the noise and goes on: the caller waits for the whole greeting)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said to its end")
          yield* stream.until("the greeting played", () => !stream.agentSpeaking())
          // the number, with a pause after "four one five" longer than a sentence's end-of-turn wait
          yield* stream.say(yield* FakeTwilioMedia.callerLine(DICTATED[0]))
          yield* Effect.sleep("1200 millis")
          yield* stream.say(yield* FakeTwilioMedia.callerLine(DICTATED[1]))
          yield* waitUntil(session(), (s) => s.transcript.length >= 3, "the answer")
          // then silence: after 3 s a reminder, after 3 s more the goodbye and the hang-up
          yield* completeAfterHangup(callSid, stream)
          const done = yield* waitUntil(
            session(),
            (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
            "the call ENDED"
          )
          assert.deepStrictEqual(lines(done), [
            `agent: ${GREETING}`,
            `customer: ${DICTATED.join(" ")}`,
            "agent: Thank you, I have found your account.",
            "agent: Are you still there?",
            "agent: It seems you've stepped away. Goodbye!"
          ], story(done))
          // the agent paused for the sounds and went on from where it stopped: the caller heard it all
          assert.isAtLeast(stream.clears().length, 1, story(done))
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "agent_hangup" }, story(done))
          assert.deepInclude(done.events.find((e: any) => e.type === "agent_hangup").detail, { reason: "idle" })
          assert.deepStrictEqual(stream.violations(), [])
          yield* assertBilled(done, user.key, 1000)
        })
    )

    it.scoped(
      "the line drops and comes back with a fresh token, speech-to-text reconnects, the model fails: a fallback " +
        "line, a clean end",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const { fake } = yield* Twilio
          const { chat, deepgram } = yield* Providers
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* patch(`${comms}/agents/${user.agentId}`, {
            token: user.key,
            json: { name: "Bea", greetMessage: "Hello, this is Bea." }
          })
          const { callSid, sessionId, twiml } = yield* placeCall(user, "+14155550102")
          const session = () => detail(comms, user.key, sessionId)
          yield* answer(callSid)
          const first = yield* FakeTwilioMedia.connectCall(fake, callSid)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")

          // the socket drops; Twilio runs the <Redirect>: a fresh stream to the call's owner, a new token
          yield* first.drop
          yield* waitUntil(
            session(),
            (s) => s.events.some((e: any) => e.type === "media_stopped"),
            "the first stream's end noticed"
          )
          assert.strictEqual((yield* streamEnded(sessionId, callSid, "forged")).status, 403)
          const again = yield* streamEnded(sessionId, callSid)
          assert.strictEqual(again.status, 200, again.text)
          assert.match(again.headers.get("content-type") ?? "", /^text\/xml/)
          const renewed = FakeTwilioMedia.parseTwiml(again.text)
          const original = FakeTwilioMedia.parseTwiml(twiml)
          assert.strictEqual(renewed.stream?.url, original.stream!.url, again.text)
          assert.notStrictEqual(renewed.stream!.parameters["token"], original.stream!.parameters["token"])
          assert.strictEqual(renewed.redirect, original.redirect)
          // the spent token is not taken again; the fresh one resumes the conversation where it was
          const replayed = yield* FakeTwilioMedia.connect({
            url: original.stream!.url,
            parameters: original.stream!.parameters,
            callSid
          })
          yield* replayed.until("the replayed token refused", () => replayed.closed() !== undefined)
          assert.deepStrictEqual(replayed.closed(), { code: 1008, reason: "token already used" })
          const second = yield* FakeTwilioMedia.connect({
            url: renewed.stream!.url,
            parameters: renewed.stream!.parameters,
            callSid,
            accountSid: fake.accountSid
          })
          yield* waitUntil(
            session(),
            (s) => s.transcript.some((l: any) => l.text === RESUME_LINE),
            "the agent back on the line"
          )

          // speech-to-text drops mid-call: the adapter reconnects, the call's log says so
          const connections = deepgram.connections().length
          deepgram.drop()
          yield* deepgram.awaitConnections(connections + 1)
          yield* waitUntil(
            session(),
            (s) =>
              s.events.some((e: any) =>
                e.type === "notice" && /speech-to-text reconnected/.test(e.detail?.message ?? "")
              ),
            "the reconnect noticed"
          )

          // the model answers 500: the caller hears the fallback line, then the agent hangs up
          const asked = chat.requests().length
          yield* second.until("the agent quiet", () => !second.agentSpeaking())
          yield* second.say(yield* FakeTwilioMedia.callerLine(QUESTION))
          yield* completeAfterHangup(callSid, second)
          const done = yield* waitUntil(
            session(),
            (s) => s.status === "ENDED" && s.events.filter((e: any) => e.type === "media_stopped").length === 2,
            "the call ENDED"
          )
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "agent_hangup" }, story(done))
          assert.deepStrictEqual(lines(done), [
            "agent: Hello, this is Bea.",
            `agent: ${RESUME_LINE}`,
            `customer: ${QUESTION}`,
            `agent: ${defaultSettings("").fallbackText}`
          ], story(done))
          const events = done.events.map((e: any) => e.type)
          assert.strictEqual(events.filter((t: string) => t === "media_connected").length, 2, story(done))
          assert.include(events, "media_reconnect")
          assert.deepStrictEqual([first.violations(), second.violations()], [[], []])
          assert.isAbove(chat.requests().length, asked)
          yield* assertBilled(done, user.key, 1000)

          // once the call is over, Twilio is told to hang up
          const over = yield* streamEnded(sessionId, callSid)
          assert.strictEqual(over.status, 200, over.text)
          assert.strictEqual(over.text, "<Response><Hangup/></Response>")
        })
    )
  })
})

describe("voice calls on Twilio Media Streams, with no credentials", () => {
  // the offline responder and the built-in voice (the defaults), a self-hosted transcription server (a URL, no key)
  const offline = platform(
    Transcription,
    FakeOpenAiTranscription.make({ texts: [QUESTION] }),
    (transcription) => ({ openAiTranscription: { baseUrl: transcription.url } })
  )
  layer(offline, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped("greets, answers from the agent's fallback; the caller hangs up; billed exactly", () =>
      Effect.gen(function*() {
        const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
        const { fake } = yield* Twilio
        const transcription = yield* Transcription
        const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
        const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
          token: user.key,
          json: {
            greetMessage: "Hello, this is Cy.",
            metadata: { fallback_message: "The premium plan costs twenty dollars a month." }
          }
        })
        assert.deepInclude(configured.body.effectiveVoice.languageModel, { provider: "offline" })
        assert.deepInclude(configured.body.effectiveVoice.textToSpeech, { provider: "flite" })
        const { callSid, sessionId } = yield* placeCall(user, "+14155550103")
        const session = () => detail(comms, user.key, sessionId)
        yield* answer(callSid)
        const stream = yield* FakeTwilioMedia.connectCall(fake, callSid)
        const startedAt = Date.now()
        yield* stream.until("the greeting's first audio", () => stream.audio().length > 0)
        assert.isBelow(stream.audio()[0]!.at - startedAt, FIRST_AUDIO_BOUND_MS)
        yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
        // the built-in voice speaks: not silence (μ-law silence is 0xff and 0x7f)
        assert.isTrue(stream.audio().some((a) => a.mulaw.some((b) => b < 0x70)))

        yield* stream.say(yield* FakeTwilioMedia.callerLine(QUESTION))
        yield* waitUntil(session(), (s) => s.transcript.length >= 3, "the answer")
        // the caller hangs up, and the completed callback comes before the stream's stop: the platform
        // ends the call and closes the stream itself
        fake.setCallStatus(callSid, "completed")
        assert.strictEqual(yield* fake.deliverStatusCallback(callSid), 204)
        const done = yield* waitUntil(
          session(),
          (s) => s.status === "ENDED" && s.events.some((e: any) => e.type === "media_stopped"),
          "the call ENDED"
        )
        yield* stream.until("the platform's close", () => stream.closed() !== undefined)
        assert.strictEqual(stream.closed()!.code, 1000)
        assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed" }, story(done))
        assert.deepStrictEqual(lines(done), [
          "agent: Hello, this is Cy.",
          `customer: ${QUESTION}`,
          "agent: The premium plan costs twenty dollars a month."
        ], story(done))
        assert.isNotNull(done.transcript[2].latency)
        assert.deepStrictEqual(stream.violations(), [])
        // a self-hosted transcription server: no credentials were sent to it
        assert.isTrue(
          transcription.requests().length > 0 &&
            transcription.requests().every((r) => r.headers["authorization"] === undefined)
        )
        yield* assertBilled(done, user.key, 1000)
      }))
  })
})

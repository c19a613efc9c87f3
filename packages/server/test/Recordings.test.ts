/**
 * Call recordings over the API, end to end on loopback: a call on Twilio Media Streams (FakeTwilio, FakeTwilioMedia
 * playing Twilio's side of the stream, the caller speaking a recorded line in real time; the offline responder and the
 * built-in voice answering, a self-hosted transcription server hearing) recorded because the call asked, downloaded by
 * its tenant as a stereo WAV file whose left channel is the caller's audio to the sample, refused (404) to another
 * tenant, then deleted; the same on Telnyx's media streaming (FakeTelnyx, FakeTelnyxMedia); a web call's recording at
 * 16 kHz. Bad input is refused with a 400 and nothing is placed or changed.
 */
import { assert, describe, layer } from "@effect/vitest"
import { joinWebCall, startWebCall, streamInRealTime, wavTo16k } from "@voiceagent/client/WebCall"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { parseWav } from "@voiceagent/runner/Recordings/WavFile"
import * as FakeOpenAiTranscription from "@voiceagent/runner/Testing/FakeOpenAiTranscription"
import * as FakeTelnyx from "@voiceagent/runner/Testing/FakeTelnyx"
import * as FakeTelnyxMedia from "@voiceagent/runner/Testing/FakeTelnyxMedia"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import * as FakeTwilioMedia from "@voiceagent/runner/Testing/FakeTwilioMedia"
import { mulawDecode, mulawEncode, SAMPLES_PER_FRAME, writeWav } from "@voiceagent/runner/Voice/Audio"
import { Context, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import WebSocket from "ws"
import { story } from "./CallScenario.js"
import { callReady, del, get, patch, portToName, post, waitUntil } from "./Http.js"

class Twilio extends Context.Tag("Recordings/Twilio")<Twilio, FakeTwilio.FakeTwilioServer>() {}
class Telnyx extends Context.Tag("Recordings/Telnyx")<Telnyx, FakeTelnyx.FakeTelnyxServer>() {}

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "recordings-api-"))
const QUESTION = "How much does the premium plan cost?"

const platform = Layer.unwrapScoped(Effect.gen(function*() {
  const gatewayPort = yield* Effect.promise(() => portToName())
  const publicUrl = `http://127.0.0.1:${gatewayPort}`
  const twilio = yield* FakeTwilio.make()
  const telnyx = yield* FakeTelnyx.make()
  const transcription = yield* FakeOpenAiTranscription.make({ texts: [QUESTION, QUESTION, QUESTION] })
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
      voice: { openAiTranscription: { baseUrl: transcription.url } },
      recordings: { directory, retentionDays: 30, sweepInterval: "1 hour" }
    }
  }).pipe(Layer.merge(Layer.succeed(Twilio, twilio)), Layer.merge(Layer.succeed(Telnyx, telnyx)))
}))

/** The raw bytes of a download. */
const download = (url: string, key: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } })
    return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
  })

/** Where `needle` (whole frames) first occurs in `haystack`, or -1. */
const indexOf = (haystack: Int16Array, needle: Int16Array) => {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

describe("call recordings over the API", () => {
  layer(platform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "a recorded Twilio call: downloaded by its tenant (stereo WAV, the caller on the left), 404 to another, deleted",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const twilio = yield* Twilio
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          const other = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          yield* patch(`${comms}/agents/${user.agentId}`, {
            token: user.key,
            json: {
              greetMessage: "Hello, this is Cy.",
              metadata: { fallback_message: "The premium plan costs twenty dollars a month." }
            }
          })
          const placed = yield* post(`${gateway}/channels/voice/call`, {
            token: user.key,
            json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550103", record: true }
          })
          assert.strictEqual(placed.status, 202, placed.text)
          const sessionId = placed.body.sessionId as string
          const [created] = yield* waitUntil(
            Effect.sync(() => twilio.createdCalls().filter((c) => c.to === "+14155550103")),
            (c) => c.length > 0,
            "the call created on Twilio"
          )
          const callSid = created!.sid
          for (const status of ["ringing", "in-progress"] as const) {
            twilio.setCallStatus(callSid, status)
            assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
          }
          const session = () => Effect.map(get(`${gateway}/calls/${sessionId}`, { token: user.key }), (r) => r.body)
          const stream = yield* FakeTwilioMedia.connectCall(twilio, callSid)
          yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
          // while the call goes on there is no recording to download
          assert.strictEqual((yield* get(`${gateway}/calls/${sessionId}/recording`, { token: user.key })).status, 404)
          const line = yield* FakeTwilioMedia.callerLine(QUESTION)
          yield* stream.say(line)
          yield* waitUntil(session(), (s) => s.transcript.length >= 3, "the answer")
          yield* stream.until("the agent quiet", () => !stream.agentSpeaking())
          twilio.setCallStatus(callSid, "completed")
          assert.strictEqual(yield* twilio.deliverStatusCallback(callSid), 204)
          const done = yield* waitUntil(
            session(),
            (s) => s.status === "ENDED" && s.recording !== null,
            "the call ENDED and recorded"
          )
          assert.deepInclude(done.recording, { channels: 2, sampleRate: 8_000 }, story(done))

          // its tenant downloads it, through the gateway as straight from the service
          for (const base of [gateway, comms]) {
            const got = yield* download(`${base}/calls/${sessionId}/recording`, user.key)
            assert.strictEqual(got.status, 200)
            assert.strictEqual(got.headers.get("content-type"), "audio/wav")
            assert.strictEqual(got.bytes.length, done.recording.bytes)
            const wav = parseWav(got.bytes)!
            assert.deepInclude(wav, { channels: 2, sampleRate: 8_000, declaredDataBytes: got.bytes.length - 44 })
            // as long as the call talked (the stream opened at the answer, the recording ends with the call)
            const talkMs = Date.parse(done.endedAt) - Date.parse(done.answeredAt)
            assert.approximately(done.recording.durationMs, talkMs, 1_500, story(done))
            assert.isAbove(done.recording.durationMs, 2_000)
            // the caller's channel holds the caller's words as Twilio carried them (μ-law), to the sample
            const carried = mulawDecode(mulawEncode(line))
            const at = indexOf(wav.samples[0]!, carried.subarray(0, 10 * SAMPLES_PER_FRAME))
            assert.isAtLeast(at, 0, "the caller's line is on the left")
            assert.deepStrictEqual([...wav.samples[0]!.subarray(at, at + carried.length)], [...carried])
            // the agent's channel has the greeting and the answer, not the caller
            assert.strictEqual(indexOf(wav.samples[1]!, carried.subarray(0, 10 * SAMPLES_PER_FRAME)), -1)
            assert.isTrue(wav.samples[1]!.some((s) => Math.abs(s) > 1_000), "the agent is on the right")
          }

          // another tenant: 404, the same as for a call that does not exist; nothing deleted
          for (const base of [gateway, comms]) {
            const refused = yield* get(`${base}/calls/${sessionId}/recording`, { token: other.key })
            assert.strictEqual(refused.status, 404, refused.text)
            assert.strictEqual(refused.body.error.code, "RECORDING_NOT_FOUND")
            const unknown = yield* get(`${base}/calls/${crypto.randomUUID()}/recording`, { token: user.key })
            assert.deepStrictEqual([unknown.status, unknown.body.error.code], [404, "RECORDING_NOT_FOUND"])
            assert.strictEqual((yield* del(`${base}/calls/${sessionId}/recording`, { token: other.key })).status, 404)
          }
          assert.strictEqual((yield* get(`${gateway}/calls/${sessionId}`, { token: other.key })).status, 404)
          const tenantDir = path.join(directory, user.account.tenantId!)
          assert.strictEqual(fs.readdirSync(tenantDir).length, 1)

          // its tenant deletes it: the file and the record go
          const deleted = yield* del(`${gateway}/calls/${sessionId}/recording`, { token: user.key })
          assert.strictEqual(deleted.status, 204, deleted.text)
          assert.strictEqual((yield* get(`${gateway}/calls/${sessionId}/recording`, { token: user.key })).status, 404)
          assert.strictEqual((yield* del(`${gateway}/calls/${sessionId}/recording`, { token: user.key })).status, 404)
          assert.isNull((yield* session()).recording)
          assert.deepStrictEqual(fs.readdirSync(tenantDir), [])
        })
    )

    it.scoped("a Telnyx call asked to be recorded: the caller's line on the left, to the sample", () =>
      Effect.gen(function*() {
        const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
        const telnyx = yield* Telnyx
        const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
        yield* patch(`${comms}/agents/${user.agentId}`, {
          token: user.key,
          json: { greetMessage: "Hello, this is Tess.", metadata: { fallback_message: "Twenty dollars a month." } }
        })
        const number = yield* post(`${comms}/voice-numbers`, {
          token: user.key,
          json: { phoneNumber: "+14155550198", provider: "PROVIDER_C" }
        })
        assert.strictEqual(number.status, 201, number.text)
        const placed = yield* post(`${gateway}/channels/voice/call`, {
          token: user.key,
          json: { agentId: user.agentId, voiceNumberId: number.body.id, toNumber: "+14155550105", record: true }
        })
        assert.strictEqual(placed.status, 202, placed.text)
        const sessionId = placed.body.sessionId as string
        const [dialed] = yield* waitUntil(
          Effect.sync(() => telnyx.createdCalls().filter((c) => c.to === "+14155550105")),
          (c) => c.length > 0,
          "the call dialled on Telnyx"
        )
        const id = dialed!.callControlId
        assert.strictEqual(yield* telnyx.deliver(id, "call.initiated"), 200)
        telnyx.answer(id)
        assert.strictEqual(yield* telnyx.deliver(id, "call.answered"), 200)
        const stream = yield* FakeTelnyxMedia.connectCall(telnyx, id)
        const session = () => Effect.map(get(`${gateway}/calls/${sessionId}`, { token: user.key }), (r) => r.body)
        yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
        const line = yield* FakeTelnyxMedia.callerLine(QUESTION)
        yield* stream.say(line)
        yield* waitUntil(session(), (s) => s.transcript.length >= 3, "the answer")
        yield* stream.until("the agent quiet", () => !stream.agentSpeaking())
        telnyx.hangUp(id, "normal_clearing", "callee")
        yield* stream.stop
        assert.strictEqual(yield* telnyx.deliver(id, "call.hangup"), 200)
        const done = yield* waitUntil(
          session(),
          (s) => s.status === "ENDED" && s.recording !== null,
          "the call ENDED and recorded"
        )
        const got = yield* download(`${gateway}/calls/${sessionId}/recording`, user.key)
        assert.strictEqual(got.status, 200)
        const wav = parseWav(got.bytes)!
        assert.deepInclude(wav, { channels: 2, sampleRate: 8_000 })
        const talkMs = Date.parse(done.endedAt) - Date.parse(done.answeredAt)
        assert.approximately(done.recording.durationMs, talkMs, 1_500, story(done))
        const carried = mulawDecode(mulawEncode(line))
        const at = indexOf(wav.samples[0]!, carried.subarray(0, 10 * SAMPLES_PER_FRAME))
        assert.isAtLeast(at, 0, "the caller's line is on the left")
        assert.deepStrictEqual([...wav.samples[0]!.subarray(at, at + carried.length)], [...carried])
        assert.isTrue(wav.samples[1]!.some((s) => Math.abs(s) > 1_000), "the agent is on the right")
      }))

    it.scoped("a web call that asks to be recorded: 16 kHz stereo, the caller's speech on the left", () =>
      Effect.gen(function*() {
        const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
        const user = yield* callReady(gateway, "PROVIDER_A", { api: comms })
        const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
          token: user.key,
          json: { greetMessage: "Hello, this is Cy.", metadata: { fallback_message: "Twenty dollars a month." } }
        })
        assert.strictEqual(configured.status, 200, configured.text)
        const ticket = yield* Effect.promise(() =>
          startWebCall({ baseUrl: new URL(gateway).origin, apiKey: user.key, agentId: user.agentId, record: true })
        )
        const call = joinWebCall(ticket, { WebSocket: WebSocket as never })
        const session = () =>
          Effect.map(get(`${gateway}/calls/${ticket.sessionId}`, { token: user.key }), (r) => r.body)
        yield* waitUntil(session(), (s) => s.transcript.length >= 1, "the greeting said")
        const line = wavTo16k(writeWav(yield* FakeTwilioMedia.callerLine(QUESTION), 8_000))
        const quiet = new Int16Array(16_000)
        const spoken = new Int16Array(quiet.length + line.length + 2 * quiet.length)
        spoken.set(line, quiet.length)
        yield* Effect.promise(() => streamInRealTime(call, spoken))
        yield* waitUntil(session(), (s) => s.transcript.length >= 3, "the answer")
        // the microphone goes on: silence, until the caller hangs up
        yield* Effect.promise(() => streamInRealTime(call, new Int16Array(16_000)))
        call.hangup()
        yield* Effect.promise(() => call.ended)
        const done = yield* waitUntil(
          session(),
          (s) => s.status === "ENDED" && s.recording !== null,
          "the call ENDED and recorded"
        )
        assert.deepInclude(done.recording, { channels: 2, sampleRate: 16_000 }, story(done))
        const got = yield* download(`${gateway}/calls/${ticket.sessionId}/recording`, user.key)
        assert.strictEqual(got.status, 200)
        const wav = parseWav(got.bytes)!
        assert.deepInclude(wav, { channels: 2, sampleRate: 16_000 })
        const talkMs = Date.parse(done.endedAt) - Date.parse(done.answeredAt)
        assert.approximately(done.recording.durationMs, talkMs, 1_500, story(done))
        // the caller said one line: loud on the left for about its length, the agent quiet on the right meanwhile
        const loud = (samples: Int16Array) => {
          let frames = 0
          for (let i = 0; i + 320 <= samples.length; i += 320) {
            let sum = 0
            for (let j = i; j < i + 320; j++) sum += samples[j]! * samples[j]!
            if (Math.sqrt(sum / 320) >= 500) frames++
          }
          return frames * 20
        }
        const lineMs = (line.length * 1_000) / 16_000
        assert.approximately(loud(wav.samples[0]!), lineMs, lineMs / 3, "the caller's line on the left")
        assert.isAbove(loud(wav.samples[1]!), 1_000, "the agent's greeting and answer on the right")
      }))

    it.scoped(
      "bad input is a 400 and changes nothing: record that is not a boolean (phone and web calls), an unknown " +
        "recording setting, a bad call id",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const twilio = yield* Twilio
          const user = yield* callReady(gateway, "PROVIDER_B", { api: comms })
          const before = twilio.createdCalls().length
          for (const record of ["yes", 1, null, {}]) {
            const refused = yield* post(`${gateway}/channels/voice/call`, {
              token: user.key,
              json: { agentId: user.agentId, voiceNumberId: user.voiceNumberId, toNumber: "+14155550104", record }
            })
            assert.strictEqual(refused.status, 400, refused.text)
            assert.strictEqual(refused.body.error.code, "VALIDATION_FAILED")
            assert.include(JSON.stringify(refused.body.error.details), "record")
          }
          const minted = yield* post(`${gateway}/channels/web/call`, {
            token: user.key,
            json: { agentId: user.agentId, record: "yes" }
          })
          assert.deepStrictEqual([minted.status, minted.body.error.code], [400, "VALIDATION_FAILED"], minted.text)
          const logs = yield* get(`${gateway}/call-logs`, { token: user.key })
          assert.strictEqual(logs.body.total, 0)
          assert.strictEqual(twilio.createdCalls().length, before)

          for (const recording of ["sometimes", true, ""]) {
            const refused = yield* patch(`${gateway}/agents/${user.agentId}`, {
              token: user.key,
              json: { settings: { recording } }
            })
            assert.strictEqual(refused.status, 400, refused.text)
            assert.strictEqual(refused.body.error.code, "VALIDATION_FAILED")
          }
          const agent = yield* get(`${gateway}/agents/${user.agentId}`, { token: user.key })
          assert.isUndefined(agent.body.settings.recording)
          // the valid values are kept, and null removes the setting
          for (const recording of ["on", "never", "off"]) {
            const set = yield* patch(`${gateway}/agents/${user.agentId}`, {
              token: user.key,
              json: { settings: { recording } }
            })
            assert.strictEqual(set.status, 200, set.text)
            assert.strictEqual(set.body.settings.recording, recording)
          }
          const removed = yield* patch(`${gateway}/agents/${user.agentId}`, {
            token: user.key,
            json: { settings: { recording: null } }
          })
          assert.isUndefined(removed.body.settings.recording)

          for (const id of ["not-a-uuid", "1", "%00"]) {
            for (const method of [get, del]) {
              const refused = yield* method(`${gateway}/calls/${id}/recording`, { token: user.key })
              assert.strictEqual(refused.status, 400, `${id}: ${refused.text}`)
            }
          }
          // no credentials: 401, whatever the call
          assert.strictEqual((yield* get(`${gateway}/calls/${crypto.randomUUID()}/recording`)).status, 401)
        })
    )
  })
})

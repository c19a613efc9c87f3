/**
 * Web calls end to end over loopback sockets: the platform with the speech and language providers'
 * real adapters on their fakes (FakeDeepgram, FakeOpenAiChat, FakeElevenLabs), a call minted with
 * an API key and joined on the gateway's origin by the example client (`examples/web-call.ts`, run as
 * a user runs it) or by its module (`@voiceagent/client/WebCall`), the caller speaking the committed
 * fixtures at 16 kHz in real time. Then what must be refused: bad input at the mint, tokens reused,
 * expired or another tenant's, malformed messages on the stream, and the client going away mid-answer.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, layer } from "@effect/vitest"
import {
  FRAME_SAMPLES,
  joinWebCall,
  SAMPLE_RATE,
  startWebCall,
  wavTo16k,
  type WebCall,
  type WebCallEvent,
  type WebCallTicket
} from "@voiceagent/client/WebCall"
import * as TestPlatform from "@voiceagent/devtools/TestPlatform"
import { LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import { WebCallServerMessage } from "@voiceagent/domain/WebCalls"
import { PlatformSettings } from "@voiceagent/runner/Settings"
import * as FakeDeepgram from "@voiceagent/runner/Testing/FakeDeepgram"
import * as FakeElevenLabs from "@voiceagent/runner/Testing/FakeElevenLabs"
import { makeFakeOpenAiChat } from "@voiceagent/runner/Testing/FakeOpenAiChat"
import * as FakeTwilioMedia from "@voiceagent/runner/Testing/FakeTwilioMedia"
import { writeWav } from "@voiceagent/runner/Voice/Audio"
import { sign, SIGNATURE_HEADER } from "@voiceagent/runner/Webhooks/Webhooks"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import * as childProcess from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import WebSocket from "ws"
import { assertBilled, lines, story, webhookReceiver } from "./CallScenario.js"
import { tableCounts } from "./Hostile.js"
import { callReady, createKey, get, patch, post, signup, waitUntil } from "./Http.js"

const REPO = fileURLToPath(new URL("../../../", import.meta.url))

const QUESTION = "How much does the premium plan cost?"
const GOODBYE = "That's all I needed, goodbye."
const MORE = "Can you tell me a bit more?"
const LONG_ANSWER = "The premium plan includes unlimited calls, priority support, call recordings for a year, " +
  "and a dedicated account manager who will call you every month."

/** Caller scripts for FakeDeepgram, by agent name: one transcript a stretch of speech. */
const SCRIPTS = {
  Wes: [QUESTION, GOODBYE],
  Dee: [MORE],
  Rex: [QUESTION],
  Kit: [QUESTION],
  Mal: [QUESTION],
  Ola: [QUESTION]
}

/** Each test's token lives this long (the mint's default is 60 s). */
const TOKEN_SECONDS = 3
const RATES = { ...PlatformSettings.defaults.rates, voicePerMinute: 5, webPerMinute: 3 }

class Fakes extends Context.Tag("WebCalls/Fakes")<Fakes, {
  readonly deepgram: FakeDeepgram.FakeDeepgramServer
}>() {}

const platform = Layer.unwrapScoped(Effect.gen(function*() {
  const deepgram = yield* FakeDeepgram.make({ vad: "webrtc", segmentGapMs: 300, scripts: SCRIPTS })
  const chat = yield* makeFakeOpenAiChat({
    apiKey: "sk-fake-web-calls",
    scripts: [
      { when: "goodbye", reply: { text: "Goodbye!", toolCalls: [{ name: "end_call", arguments: {} }] } },
      { when: "a bit more", reply: { text: LONG_ANSWER } },
      { when: "premium plan", reply: { text: "Twenty dollars a month." } }
    ]
  })
  const elevenLabs = yield* FakeElevenLabs.make()
  return TestPlatform.layer({
    settings: {
      rates: RATES,
      calls: { ...PlatformSettings.defaults.calls, defaultConcurrentCalls: 3, webCallTokenSeconds: TOKEN_SECONDS }
    },
    runtime: {
      // the runner's media server: a web call's stream is served there when it comes from another process
      media: { host: "127.0.0.1", port: 0 },
      voice: {
        deepgram: { url: deepgram.url, apiKey: Redacted.make(deepgram.apiKey) },
        openAiChat: { baseUrl: chat.url, apiKey: Redacted.make("sk-fake-web-calls") },
        elevenLabs: { url: elevenLabs.url, apiKey: Redacted.make(elevenLabs.apiKey), voice: "21m00Tcm4TlvDq8ikWAM" }
      }
    }
  }).pipe(Layer.merge(Layer.succeed(Fakes, { deepgram })))
}))

// ---------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------

const origin = (url: string) => new URL(url).origin

/** A tenant with funds, a key (its webhook at `webhookUrl`), and an agent named `name`. */
const ready = (name: string, options: { readonly webhookUrl?: string; readonly amount?: number } = {}) =>
  Effect.gen(function*() {
    const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
    const user = yield* callReady(gateway, "PROVIDER_A", {
      api: comms,
      ...(options.amount === undefined ? {} : { amount: options.amount }),
      keyBody: options.webhookUrl === undefined ? { name: "k" } : { name: "k", webhookUrl: options.webhookUrl }
    })
    const configured = yield* patch(`${comms}/agents/${user.agentId}`, {
      token: user.key,
      json: { name, greetMessage: `Hello, this is ${name}.` }
    })
    assert.strictEqual(configured.status, 200, configured.text)
    return user
  })

const mint = (user: { readonly key: string; readonly agentId: string }, metadata?: Record<string, unknown>) =>
  Effect.gen(function*() {
    const { gateway } = yield* TestPlatform.TestPlatformUrls
    return yield* Effect.promise(() =>
      startWebCall({ baseUrl: origin(gateway), apiKey: user.key, agentId: user.agentId, metadata })
    )
  })

/** Reads the call's detail (an effect to read it again and again). */
const reader = (key: string, sessionId: string) =>
  Effect.map(
    TestPlatform.TestPlatformUrls,
    ({ comms }) => Effect.map(get(`${comms}/calls/${sessionId}`, { token: key }), (r) => r.body)
  )

const detail = (key: string, sessionId: string) => Effect.flatten(reader(key, sessionId))

/** The call's detail once it is over and its stream's end is logged (when it had one). */
const ended = (key: string, sessionId: string) =>
  Effect.flatMap(reader(key, sessionId), (read) =>
    waitUntil(
      read,
      (s) => s.status === "ENDED" && (s.answeredAt === null || s.events.some((e: any) => e.type === "media_stopped")),
      `the call ${sessionId} ENDED`
    ))

/** A caller's line from the fixtures, at 16 kHz. */
const line16k = (text: string) =>
  Effect.map(FakeTwilioMedia.callerLine(text), (pcm8k) => wavTo16k(writeWav(pcm8k, 8_000)))

const silence = (ms: number) => new Int16Array((SAMPLE_RATE * ms) / 1_000)

const concat = (parts: ReadonlyArray<Int16Array>) => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.length
  }
  return out
}

/**
 * A microphone on the call: 20 ms frames in real time, silence unless the caller is saying
 * something (`say` resolves when the line has been sent), until the call ends.
 */
const microphone = (call: WebCall) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const queue: Array<{ readonly frame: Int16Array; readonly done?: () => void }> = []
      let stopped = false
      const startedAt = Date.now()
      let sent = 0
      const tick = () => {
        if (stopped) return
        const next = queue.shift()
        call.send(next?.frame ?? new Int16Array(FRAME_SAMPLES))
        next?.done?.()
        sent++
        setTimeout(tick, Math.max(0, startedAt + sent * 20 - Date.now()))
      }
      void call.ended.then(() => (stopped = true))
      tick()
      return {
        say: (pcm: Int16Array) =>
          Effect.async<void>((resume) => {
            for (let at = 0; at < pcm.length; at += FRAME_SAMPLES) {
              const frame = new Int16Array(FRAME_SAMPLES)
              frame.set(pcm.subarray(at, Math.min(pcm.length, at + FRAME_SAMPLES)))
              queue.push(at + FRAME_SAMPLES >= pcm.length ? { frame, done: () => resume(Effect.void) } : { frame })
            }
          }),
        stop: () => (stopped = true)
      }
    }),
    (mic) => Effect.sync(mic.stop)
  )

/** The client module on a call: every event it saw, kept. */
const join = (ticket: WebCallTicket) => {
  const events: Array<WebCallEvent> = []
  const call = joinWebCall(ticket, { WebSocket: WebSocket as never, onEvent: (event) => events.push(event) })
  return { call, events }
}

const until = (what: string, holds: () => boolean) => waitUntil(Effect.sync(holds), (ok) => ok, what)

/** Billed at the web price, which these tests set apart from the voice price. */
const assertBilledWeb = (session: any, key: string, toppedUp: number) =>
  Effect.gen(function*() {
    const { "platform-core": core } = yield* TestPlatform.TestPlatformUrls
    assert.deepInclude((yield* get(`${core}/billing/rates`, { token: key })).body, {
      voicePerMinute: 5,
      webPerMinute: 3
    })
    yield* assertBilled(session, key, toppedUp, "webPerMinute")
  })

/** A bare WebSocket on `url`: what it received and how it closed; marks are echoed at once (as if played). */
const rawSocket = (url: string) => {
  const socket = new WebSocket(url)
  const texts: Array<any> = []
  let audioBytes = 0
  let closed: { code: number; reason: string } | undefined
  const opened = new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve())
    socket.once("unexpected-response", (_, response) => reject(new Error(`handshake answered ${response.statusCode}`)))
    socket.once("error", reject)
  })
  socket.on("message", (data, isBinary) => {
    if (isBinary) {
      audioBytes += (data as Buffer).length
      return
    }
    // every message the platform sends is one the protocol declares
    const message = Schema.decodeUnknownSync(WebCallServerMessage)(JSON.parse(String(data)))
    texts.push(message)
    if (message.type === "mark") socket.send(JSON.stringify({ type: "mark", name: message.name }))
  })
  socket.on("close", (code, reason) => (closed = { code, reason: reason.toString("utf8") }))
  socket.on("error", () => undefined)
  return {
    socket,
    texts,
    audioBytes: () => audioBytes,
    opened: Effect.promise(() => opened),
    closed: () => closed,
    send: (data: string | Buffer) => socket.send(data),
    close: until("the socket closed", () => closed !== undefined).pipe(Effect.map(() => closed!))
  }
}

/** Opens a raw stream and starts it with `token`, waiting for `started`. */
const started = (url: string, token: string) =>
  Effect.gen(function*() {
    const raw = rawSocket(url)
    yield* raw.opened
    raw.send(JSON.stringify({ type: "start", token }))
    yield* until("started", () => raw.texts.some((m) => m.type === "started") || raw.closed() !== undefined)
    return raw
  })

/** A request to upgrade answered without a WebSocket: its status and body. */
const upgradeRefused = (url: string) =>
  Effect.async<{ status: number; body: any }>((resume) => {
    const request = http.request(url, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
      }
    })
    request.on("response", (response) => {
      let text = ""
      response.on("data", (c) => (text += c)).on("end", () =>
        resume(Effect.succeed({ status: response.statusCode ?? 0, body: JSON.parse(text) })))
    })
    request.on("upgrade", (response, socket) => {
      socket.destroy()
      resume(Effect.succeed({ status: response.statusCode ?? 0, body: null }))
    })
    request.end()
  })

/** The example client as a user runs it: its output and exit status. */
const runExample = (args: ReadonlyArray<string>) =>
  Effect.async<{ code: number | null; stdout: string; stderr: string }>((resume) => {
    const child = childProcess.spawn(path.join(REPO, "node_modules/.bin/tsx"), ["examples/web-call.ts", ...args], {
      cwd: REPO
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c) => (stdout += c))
    child.stderr.on("data", (c) => (stderr += c))
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, stdout, stderr }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

// ---------------------------------------------------------------------------

describe("web calls", () => {
  layer(platform, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.scoped(
      "bad input at the mint is refused and nothing is written: the body, the agent, the key, the wallet, the limit",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const user = yield* ready("Ola")
          const mintUrl = `${gateway}/channels/web/call`
          const refusals: ReadonlyArray<readonly [string, Parameters<typeof post>[1], number, string]> = [
            ["no body", { token: user.key }, 400, "VALIDATION_FAILED"],
            ["no agent", { token: user.key, json: {} }, 400, "VALIDATION_FAILED"],
            ["an agent id that is not one", { token: user.key, json: { agentId: "ada" } }, 400, "VALIDATION_FAILED"],
            [
              "metadata that is not an object",
              { token: user.key, json: { agentId: user.agentId, metadata: "x" } },
              400,
              "VALIDATION_FAILED"
            ],
            [
              "metadata that is a list",
              { token: user.key, json: { agentId: user.agentId, metadata: [1] } },
              400,
              "VALIDATION_FAILED"
            ],
            [
              "an unknown agent",
              { token: user.key, json: { agentId: "018f6f2e-0000-7000-8000-000000000000" } },
              404,
              "AGENT_NOT_FOUND"
            ],
            ["no key", { json: { agentId: user.agentId } }, 401, "UNAUTHORIZED"],
            ["a wrong key", { token: "aok_wrong", json: { agentId: user.agentId } }, 401, "UNAUTHORIZED"]
          ]
          const before = yield* tableCounts
          for (const [what, options, status, code] of refusals) {
            const reply = yield* post(mintUrl, options)
            assert.strictEqual(reply.status, status, `${what}: ${reply.text}`)
            if (code !== "UNAUTHORIZED") assert.strictEqual(reply.body.error.code, code, `${what}: ${reply.text}`)
            else assert.isString(reply.body.error.code)
          }
          // an inactive agent
          yield* patch(`${comms}/agents/${user.agentId}`, { token: user.key, json: { is_active: false } })
          const inactive = yield* post(mintUrl, { token: user.key, json: { agentId: user.agentId } })
          assert.deepStrictEqual([inactive.status, inactive.body.error.code], [409, "AGENT_INACTIVE"], inactive.text)
          yield* patch(`${comms}/agents/${user.agentId}`, { token: user.key, json: { is_active: true } })
          // an empty wallet: 402, with the code every call refusal uses
          const { key: brokeKey, agentId: brokeAgent } = yield* Effect.gen(function*() {
            const account = yield* signup(gateway)
            const { key } = yield* createKey(gateway, account.token, { name: "broke" })
            const persona = (yield* get(`${comms}/prompts/personas`, { token: key })).body.items[0]
            const agent =
              (yield* post(`${comms}/agents`, { token: key, json: { name: "Broke", agent_persona_id: persona.id } }))
                .body
            return { key, agentId: agent.id as string }
          })
          const counted = yield* tableCounts
          const broke = yield* post(mintUrl, { token: brokeKey, json: { agentId: brokeAgent } })
          assert.deepStrictEqual([broke.status, broke.body.error.code], [402, "INSUFFICIENT_FUNDS"], broke.text)
          assert.deepStrictEqual(yield* tableCounts, counted)
          assert.deepStrictEqual(
            Object.fromEntries(
              Object.entries(yield* tableCounts).filter(([table]) =>
                ["call_sessions", "call_events", "reservations", "ledger_entries"].includes(table)
              )
            ),
            Object.fromEntries(
              Object.entries(before).filter(([table]) =>
                ["call_sessions", "call_events", "reservations", "ledger_entries"].includes(table)
              )
            )
          )

          // the concurrent-call limit (3 here) counts web calls waiting for their client: the fourth is a 429
          const tickets = yield* Effect.forEach([1, 2, 3], () => mint(user))
          assert.strictEqual(new Set(tickets.map((t) => t.sessionId)).size, 3)
          const full = yield* tableCounts
          const fourth = yield* post(mintUrl, { token: user.key, json: { agentId: user.agentId } })
          assert.deepStrictEqual([fourth.status, fourth.body.error.code], [429, "CONCURRENT_CALL_LIMIT"], fourth.text)
          const after = yield* tableCounts
          assert.deepStrictEqual([after["call_sessions"], after["reservations"]], [
            full["call_sessions"],
            full["reservations"]
          ])
          // tokens no client used: the calls end unanswered and unbilled once the tokens (and a grace) are over
          for (const ticket of tickets) {
            const done = yield* ended(user.key, ticket.sessionId)
            assert.deepInclude(done, {
              outcome: "UNANSWERED",
              endReason: "ring_timeout",
              cost: 0,
              durationSeconds: 0,
              direction: "WEB"
            })
          }
          const wallet = (yield* get(`${gateway}/wallet`, { token: user.key })).body
          assert.deepStrictEqual(wallet, { currency: "USD", balance: 1000, reserved: 0, available: 1000 })
        })
    )

    it.scoped(
      "the example client streams a WAV file and prints the transcript; the call is logged as WEB, billed at the web " +
        "price, and its webhook sent",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const receiver = yield* webhookReceiver
          const user = yield* ready("Wes", { webhookUrl: receiver.url })
          // the caller: quiet while the greeting plays, the question, quiet while it is answered, goodbye
          const caller = concat([silence(2_000), yield* line16k(QUESTION), silence(4_000), yield* line16k(GOODBYE)])
          const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "web-call-")), "caller.wav")
          fs.writeFileSync(file, writeWav(caller, SAMPLE_RATE))
          const run = yield* runExample(["--key", user.key, "--agent", user.agentId, "--url", origin(gateway), file])
          assert.strictEqual(run.code, 0, `${run.stdout}\n${run.stderr}`)
          const printed = run.stdout.trim().split("\n")
          const sessionId = /^call (\S+)$/.exec(printed[0]!)?.[1]
          assert.isDefined(sessionId, run.stdout)
          assert.deepStrictEqual(printed.slice(1), [
            "agent: Hello, this is Wes.",
            `customer: ${QUESTION}`,
            "agent: Twenty dollars a month.",
            `customer: ${GOODBYE}`,
            "agent: Goodbye!",
            "ended: agent_hangup"
          ], run.stdout)

          const done = yield* ended(user.key, sessionId!)
          assert.deepInclude(done, {
            direction: "WEB",
            provider: "WEB",
            voiceNumberId: null,
            fromNumber: null,
            toNumber: null,
            outcome: "ANSWERED",
            endReason: "agent_hangup",
            metadata: { source: "examples/web-call.ts" }
          }, story(done))
          assert.deepStrictEqual(lines(done), printed.slice(1, -1), story(done))
          for (const answer of done.transcript.filter((l: any) => l.speaker === "agent").slice(1)) {
            assert.isNotNull(answer.latency, story(done))
            assert.isAtLeast(answer.latency.voiceToVoiceMs, answer.latency.endpointingMs)
          }
          const events = done.events.map((e: any) => e.type)
          assert.deepStrictEqual(events.slice(0, 3), ["queued", "dialing", "answered"], story(done))
          for (const type of ["media_connected", "agent_hangup", "media_stopped", "ended"]) {
            assert.include(events, type, story(done))
          }
          yield* assertBilledWeb(done, user.key, 1000)
          assert.isAbove(done.cost, 0)

          const logs = (yield* get(`${comms}/call-logs`, { token: user.key })).body
          assert.deepInclude(logs.items[0], { sessionId, direction: "WEB", provider: "WEB", status: "ENDED" })

          yield* waitUntil(Effect.sync(() => receiver.received.length), (n) => n > 0, "the call-result webhook")
          const delivery = receiver.received[0]!
          const payload = JSON.parse(delivery.body)
          assert.deepInclude(payload.data, {
            sessionId,
            direction: "WEB",
            fromNumber: null,
            toNumber: null,
            outcome: "ANSWERED",
            endReason: "agent_hangup",
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
      "the client going away mid-answer ends the call with the reason; the answer is kept as cut off; billed to the " +
        "second",
      () =>
        Effect.gen(function*() {
          const user = yield* ready("Dee")
          const ticket = yield* mint(user)
          const { call, events } = join(ticket)
          const mic = yield* microphone(call)
          yield* until("the greeting said", () => events.some((e) => e.type === "transcript" && e.speaker === "agent"))
          yield* until("the greeting played", () => !call.agentSpeaking())
          yield* mic.say(yield* line16k(MORE))
          yield* until("the answer begins", () => call.agentSpeaking())
          const answerFrom = call.heardMs()
          yield* until("1.5 s of the answer heard", () => call.heardMs() - answerFrom >= 1_500)
          call.drop()
          const heard = call.heardMs() - answerFrom
          const closed = yield* Effect.promise(() => call.ended)
          assert.strictEqual(closed.code, 4000)

          const done = yield* ended(user.key, ticket.sessionId)
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed", direction: "WEB" }, story(done))
          assert.deepInclude(done.events.find((e: any) => e.type === "media_stopped").detail, {
            reason: "the client closed the stream (4000, dropped)"
          })
          assert.deepStrictEqual(
            lines(done).slice(0, 2),
            ["agent: Hello, this is Dee.", `customer: ${MORE}`],
            story(done)
          )
          // the answer the line went dead in, marked cut off, as far as the caller heard it (1.5 s of it)
          const cut = done.transcript[2]
          assert.isTrue(cut.interrupted, story(done))
          assert.isTrue(cut.text !== "" && LONG_ANSWER.startsWith(cut.text), story(done))
          assert.isBelow(cut.text.length, LONG_ANSWER.length, story(done))
          assert.isAtLeast(heard, 1_500)
          yield* assertBilledWeb(done, user.key, 1000)
          assert.isAbove(done.cost, 0)
        })
    )

    it.scoped(
      "a token is good once, until it expires, and only for its own call: reused, expired and another tenant's are " +
        "closed with 1008",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          const ada = yield* ready("Rex")
          const bea = yield* ready("Kit")
          const adaTicket = yield* mint(ada)
          const beaTicket = yield* mint(bea)
          assert.match(
            adaTicket.url,
            new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/api/v1/channels/web/stream/${adaTicket.sessionId}$`)
          )
          assert.isAbove(Date.parse(adaTicket.expiresAt), Date.now())
          assert.isAtMost(Date.parse(adaTicket.expiresAt), Date.now() + TOKEN_SECONDS * 1_000)

          // another tenant's token on this call's stream; another tenant's key on this agent and this call
          const foreign = yield* started(adaTicket.url, beaTicket.token)
          assert.deepStrictEqual(yield* foreign.close, { code: 1008, reason: "the token is for another call" })
          const borrowed = yield* post(`${gateway}/channels/web/call`, {
            token: bea.key,
            json: { agentId: ada.agentId }
          })
          assert.deepStrictEqual([borrowed.status, borrowed.body.error.code], [404, "AGENT_NOT_FOUND"], borrowed.text)
          assert.strictEqual((yield* get(`${comms}/calls/${adaTicket.sessionId}`, { token: bea.key })).status, 404)

          // the token, untouched by those, starts the call; used again while it runs, it is refused
          const first = yield* started(adaTicket.url, adaTicket.token)
          assert.deepInclude(first.texts[0], {
            type: "started",
            sessionId: adaTicket.sessionId,
            sampleRate: 16_000,
            encoding: "pcm_s16le",
            channels: 1
          })
          const again = yield* started(adaTicket.url, adaTicket.token)
          assert.deepStrictEqual(yield* again.close, { code: 1008, reason: "token already used" })
          // the call goes on: the greeting comes, as audio and as a transcript line
          yield* until(
            "the greeting's audio and line",
            () => first.audioBytes() > 0 && first.texts.some((m) => m.type === "transcript")
          )
          assert.deepInclude(first.texts.find((m) => m.type === "transcript"), {
            speaker: "agent",
            text: "Hello, this is Rex.",
            interrupted: false
          })
          first.send(JSON.stringify({ type: "hangup" }))
          assert.deepStrictEqual(yield* first.close, { code: 1000, reason: "hung up" })
          const done = yield* ended(ada.key, adaTicket.sessionId)
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed" }, story(done))
          // once the call is over, its stream is not there to take anything
          const late = yield* started(adaTicket.url, adaTicket.token)
          assert.deepStrictEqual(yield* late.close, { code: 1008, reason: "no web call waits for this stream" })

          // an expired token: refused, and the call ends unanswered a few seconds later, unbilled
          const expiring = yield* mint(bea)
          // the server's clock is the real one: wait for the token's own expiry, not a budget
          yield* Effect.sleep(Math.max(0, Date.parse(expiring.expiresAt) - Date.now()) + 5)
          const expired = yield* started(expiring.url, expiring.token)
          assert.deepStrictEqual(yield* expired.close, { code: 1008, reason: "token expired" })
          const unanswered = yield* ended(bea.key, expiring.sessionId)
          assert.deepInclude(
            unanswered,
            { outcome: "UNANSWERED", endReason: "ring_timeout", cost: 0, answeredAt: null },
            story(unanswered)
          )
          yield* assertBilledWeb({ ...unanswered, answeredAt: unanswered.endedAt }, bea.key, 1000)
        })
    )

    it.scoped(
      "malformed messages: before start nothing happens and the token still works; after it, the stream ends with a " +
        "clear close and the call is billed to then",
      () =>
        Effect.gen(function*() {
          const user = yield* ready("Mal")
          const ticket = yield* mint(user)
          const refusedBeforeStart: ReadonlyArray<readonly [string | Buffer, string]> = [
            [Buffer.alloc(640), "audio before start"],
            ["not json", "a message that is not JSON"],
            [JSON.stringify({ type: "mark", name: "m" }), "the first message must be start"],
            [JSON.stringify({ type: "start" }), "start without a token"],
            [JSON.stringify({ type: "start", token: ticket.token, sampleRate: 8_000 }), "sampleRate must be 16000"],
            [JSON.stringify({ type: "start", token: "a.b.c" }), "token bad signature"]
          ]
          for (const [message, reason] of refusedBeforeStart) {
            const raw = rawSocket(ticket.url)
            yield* raw.opened
            raw.send(message)
            assert.deepStrictEqual(yield* raw.close, { code: 1008, reason }, String(message).slice(0, 40))
          }
          assert.deepInclude(yield* detail(user.key, ticket.sessionId), { status: "DIALING" })

          // started: an unknown message is ignored; audio of an odd length ends the stream (1007)
          const raw = yield* started(ticket.url, ticket.token)
          raw.send(JSON.stringify({ type: "ping", from: "a newer client" }))
          raw.send(Buffer.alloc(640))
          // the stream reads its messages in order: once the greeting's line comes back, both were taken
          yield* until(
            "the greeting's line after the ping and the frame",
            () => raw.texts.some((m) => m.type === "transcript") || raw.closed() !== undefined
          )
          assert.isUndefined(raw.closed())
          raw.send(Buffer.alloc(641))
          assert.deepStrictEqual(yield* raw.close, {
            code: 1007,
            reason: "an audio message of an odd length: 16-bit samples are two bytes"
          })
          const done = yield* ended(user.key, ticket.sessionId)
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed" }, story(done))
          assert.deepInclude(done.events.find((e: any) => e.type === "media_stopped").detail, {
            reason: "an audio message of an odd length: 16-bit samples are two bytes"
          })
          yield* assertBilledWeb(done, user.key, 1000)

          // audio over a second, and text that is not JSON, on calls of their own
          for (
            const [message, code, reason] of [
              [Buffer.alloc(32_002), 1009, "an audio message over 1 s (32000 bytes)"],
              ["{not json", 1007, "a message that is not JSON"]
            ] as const
          ) {
            const next = yield* mint(user)
            const stream = yield* started(next.url, next.token)
            stream.send(message)
            assert.deepStrictEqual(yield* stream.close, { code, reason })
            const over = yield* ended(user.key, next.sessionId)
            assert.deepInclude(over, { outcome: "ANSWERED", endReason: "completed" }, story(over))
          }
        })
    )

    it.scoped(
      "the gateway opens WebSockets on web calls' streams only; a stream is served by the runner's media server too",
      () =>
        Effect.gen(function*() {
          const { comms, gateway } = yield* TestPlatform.TestPlatformUrls
          for (const base of [gateway, comms]) {
            const refused = yield* upgradeRefused(`${base}/agents`)
            assert.strictEqual(refused.status, 400)
            assert.strictEqual(refused.body.error.code, "UPGRADE_NOT_SUPPORTED")
            assert.isString(refused.body.error.requestId)
          }
          const stream = `${origin(gateway).replace(/^http/, "ws")}/api/v1/channels/web/stream`
          const notAnId = rawSocket(`${stream}/not-a-session`)
          assert.deepStrictEqual(yield* notAnId.close, { code: 1008, reason: "not a web call's stream" })
          const unknown = rawSocket(`${stream}/018f6f2e-0000-7000-8000-000000000000`)
          assert.deepStrictEqual(yield* unknown.close, { code: 1008, reason: "no web call waits for this stream" })

          // where comms forwards a stream whose call runs on another runner: that runner's media server
          const user = yield* ready("Rex")
          const ticket = yield* mint(user)
          const calls = yield* LiveCallEntity.client
          const address = yield* calls(ticket.sessionId as SessionId).WebStreamAddress().pipe(Effect.orDie)
          assert.match(address ?? "", new RegExp(`^ws://127\\.0\\.0\\.1:\\d+/media/web/${ticket.sessionId}$`))
          const direct = yield* started(address!, ticket.token)
          assert.deepInclude(direct.texts[0], { type: "started", sessionId: ticket.sessionId })
          // hung up once the conversation has the stream (a hang-up while its engine still starts, under CI's
          // load, ended the call before the engine said its media connected: no media events to wait for)
          yield* waitUntil(
            yield* reader(user.key, ticket.sessionId),
            (s) => s.events.some((e: any) => e.type === "media_connected"),
            `the call ${ticket.sessionId}'s media connected`
          )
          direct.send(JSON.stringify({ type: "hangup" }))
          yield* direct.close
          const done = yield* ended(user.key, ticket.sessionId)
          assert.deepInclude(done, { outcome: "ANSWERED", endReason: "completed" }, story(done))
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<
            { direction: string }
          >`SELECT direction FROM call_sessions WHERE id = ${ticket.sessionId}`
          assert.strictEqual(row!.direction, "WEB")
        })
    )
  })
})

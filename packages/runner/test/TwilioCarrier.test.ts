import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import type { TenantId } from "@voiceagent/domain/Ids"
import type { DialRequest } from "@voiceagent/runner/Ports/Telephony"
import {
  computeSignature,
  makeTwilioCarrier,
  mapCallStatus,
  type TwilioOptions,
  verifySignature
} from "@voiceagent/runner/Telephony/TwilioCarrier"
import * as FakeTwilio from "@voiceagent/runner/Testing/FakeTwilio"
import * as FakeTwilioMedia from "@voiceagent/runner/Testing/FakeTwilioMedia"
import { Effect, Either, Fiber, Logger, Option, Redacted, TestClock } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

const SESSION_ID = "0190b0a2-7c1e-7d3a-9f00-000000000001" as SessionId

const dialRequest = (overrides: Partial<DialRequest> = {}): DialRequest => ({
  sessionId: SESSION_ID,
  provider: "PROVIDER_A",
  from: "+14155550100",
  to: "+14155552671",
  agent: {
    tenantId: "0190a5b0-0000-7000-8000-000000000001" as TenantId,
    name: "Ada",
    greetMessage: "Hi, it's <Ada> from Smith & Sons \"Loans\"",
    agentPrompt: "Be brief.",
    metadata: {},
    knowledgeBaseIds: []
  },
  ...overrides
})

const setup = (overrides: Partial<TwilioOptions> = {}) =>
  Effect.gen(function*() {
    const fake = yield* FakeTwilio.make()
    const carrier = yield* makeTwilioCarrier({
      baseUrl: fake.url,
      accountSid: fake.accountSid,
      authToken: Redacted.make(fake.authToken),
      statusCallbackBaseUrl: "https://voice.example.com",
      ...overrides
    })
    return { fake, carrier }
  })

/** Runs an effect with a logger that keeps each line (message and annotations) as JSON. */
const withCapturedLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, message }) => {
    lines.push(JSON.stringify({ message, annotations: Array.from(annotations) }))
  })
  return Effect.map(Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)), (a) => [a, lines] as const)
}

const refusal = <A>(effect: Effect.Effect<A, { readonly reason: string }>) =>
  Effect.map(Effect.flip(effect), (error) => error.reason)

layer(NodeHttpClient.layerUndici)("TwilioCarrier", (it) => {
  it.scoped("dials with exactly the documented form fields and Basic auth, and answers the call sid", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      assert.strictEqual(carrier.name, "twilio")
      const { providerCallId } = yield* carrier.dial(dialRequest())

      assert.match(providerCallId, /^CA[0-9a-f]{32}$/)
      const [request] = fake.calls()
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.path, `/2010-04-01/Accounts/${fake.accountSid}/Calls.json`)
      assert.strictEqual(
        request!.authorization,
        `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString("base64")}`
      )
      assert.match(request!.contentType!, /^application\/x-www-form-urlencoded/)
      assert.deepStrictEqual(request!.form, [
        ["To", "+14155552671"],
        ["From", "+14155550100"],
        [
          "Twiml",
          "<Response><Say>Hi, it&apos;s &lt;Ada&gt; from Smith &amp; Sons &quot;Loans&quot;</Say><Pause " +
          "length=\"60\"/></Response>"
        ],
        ["StatusCallback", `https://voice.example.com/api/v1/telephony/twilio/status/${SESSION_ID}`],
        ["StatusCallbackMethod", "POST"],
        ["StatusCallbackEvent", "initiated"],
        ["StatusCallbackEvent", "ringing"],
        ["StatusCallbackEvent", "answered"],
        ["StatusCallbackEvent", "completed"]
      ])
      assert.strictEqual(fake.call(providerCallId)?.status, "queued")
    }))

  it.scoped("sends the ring timeout as Twilio's Timeout when set", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup({
        ringTimeoutSeconds: 25,
        statusCallbackBaseUrl: "https://voice.example.com/"
      })
      const { providerCallId } = yield* carrier.dial(dialRequest())
      const form = fake.calls()[0]!.form
      assert.deepStrictEqual(form.at(-1), ["Timeout", "25"])
      assert.strictEqual(form.filter(([name]) => name === "Timeout").length, 1)
      assert.strictEqual(
        form.find(([name]) => name === "StatusCallback")?.[1],
        `https://voice.example.com/api/v1/telephony/twilio/status/${SESSION_ID}`
      )
      assert.strictEqual(fake.call(providerCallId)?.timeout, 25)
    }))

  it.scoped("refuses a dial Twilio answers 400, with Twilio's message and code", () =>
    Effect.gen(function*() {
      const { carrier } = yield* setup()
      const noTo = yield* refusal(carrier.dial(dialRequest({ to: "" })))
      assert.include(noTo, "400")
      assert.include(noTo, "No 'To' number is specified")
      assert.include(noTo, "21201")
      assert.include(yield* refusal(carrier.dial(dialRequest({ from: "" }))), "21213")
    }))

  it.scoped("refuses a dial on bad credentials without revealing the token", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup({ authToken: Redacted.make("not-the-token") })
      const reason = yield* refusal(carrier.dial(dialRequest()))
      assert.include(reason, "401")
      assert.include(reason, "Authenticate")
      assert.include(reason, "20003")
      assert.notInclude(reason, "not-the-token")
      assert.strictEqual(fake.calls().length, 1)
    }))

  it.scoped("refuses a dial on a 5xx, a 2xx without a sid, and a dropped connection", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      fake.failNext({ _tag: "Respond", status: 500 })
      const serverError = yield* refusal(carrier.dial(dialRequest()))
      assert.include(serverError, "500")
      assert.include(serverError, "20500")

      fake.failNext({ _tag: "Respond", status: 503, body: "<html>Service Unavailable</html>" })
      assert.strictEqual(yield* refusal(carrier.dial(dialRequest())), "Twilio answered 503")

      fake.failNext({ _tag: "Respond", status: 201, body: { status: "queued" } })
      assert.include(yield* refusal(carrier.dial(dialRequest())), "without a call sid")

      fake.failNext({ _tag: "Reset" })
      assert.include(yield* refusal(carrier.dial(dialRequest())), "could not be reached")
    }))

  it.scoped("refuses a dial Twilio does not answer within 10 seconds (on the TestClock)", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      fake.failNext({ _tag: "Hang" })
      const fiber = yield* Effect.fork(Effect.either(carrier.dial(dialRequest())))
      yield* fake.awaitRequests(1)
      yield* TestClock.adjust("9 seconds")
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      assert.isTrue(Either.isLeft(result))
      assert.include(Either.isLeft(result) ? result.left.reason : "", "did not answer within 10s")
      // the next request goes through normally
      assert.match((yield* carrier.dial(dialRequest())).providerCallId, /^CA/)
    }))

  it.scoped("hangs up with Status=completed", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      const { providerCallId } = yield* carrier.dial(dialRequest())
      fake.setCallStatus(providerCallId, "in-progress")
      yield* carrier.hangup(providerCallId)

      const request = fake.calls()[1]!
      assert.strictEqual(request.method, "POST")
      assert.strictEqual(request.path, `/2010-04-01/Accounts/${fake.accountSid}/Calls/${providerCallId}.json`)
      assert.deepStrictEqual(request.form, [["Status", "completed"]])
      assert.strictEqual(request.authorization?.startsWith("Basic "), true)
      assert.strictEqual(fake.call(providerCallId)?.status, "completed")
    }))

  it.scoped(
    "transfers a call in progress: its TwiML replaced by a <Dial> to the number, with the call's number as caller " +
      "id; refused before the answer",
    () =>
      Effect.gen(function*() {
        const { carrier, fake } = yield* setup()
        const { providerCallId } = yield* carrier.dial(dialRequest())
        // ringing: Twilio refuses new instructions (21220), and the carrier says so
        fake.setCallStatus(providerCallId, "ringing")
        const refused = yield* refusal(carrier.transfer!(providerCallId, { to: "+14155550199", from: "+14155550100" }))
        assert.match(refused, /Twilio answered 400: Call is not in-progress\. Cannot redirect\. \(code 21220\)/)

        fake.setCallStatus(providerCallId, "in-progress")
        yield* carrier.transfer!(providerCallId, { to: "+14155550199", from: "+14155550100" })
        const request = fake.calls().at(-1)!
        assert.strictEqual(request.path, `/2010-04-01/Accounts/${fake.accountSid}/Calls/${providerCallId}.json`)
        assert.deepStrictEqual(request.form, [[
          "Twiml",
          "<Response><Dial callerId=\"+14155550100\"><Number>+14155550199</Number></Dial></Response>"
        ]])
        const call = fake.call(providerCallId)!
        assert.strictEqual(call.status, "in-progress")
        assert.deepStrictEqual(FakeTwilioMedia.parseTwiml(call.twiml!).dial, {
          number: "+14155550199",
          callerId: "+14155550100"
        })
        assert.strictEqual(call.redirects?.length, 1)
        // a 5xx or no answer is a refusal too
        fake.failNext({ _tag: "Respond", status: 503 })
        assert.match(
          yield* refusal(carrier.transfer!(providerCallId, { to: "+14155550199", from: "+14155550100" })),
          /Twilio answered 503/
        )
      })
  )

  it.scoped("logs and swallows hangup failures, keeping secrets out of the logs", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      const { providerCallId } = yield* carrier.dial(dialRequest())
      fake.failNext({ _tag: "Respond", status: 500 })
      fake.failNext({ _tag: "Reset" })
      const [, lines] = yield* withCapturedLogs(Effect.all([
        carrier.hangup(providerCallId),
        carrier.hangup(providerCallId),
        carrier.hangup("CA00000000000000000000000000000000")
      ]))
      assert.strictEqual(lines.length, 3)
      assert.include(lines[0], providerCallId)
      assert.include(lines[0], "20500")
      assert.include(lines[1], "could not be reached")
      assert.include(lines[2], "20404")
      for (const line of lines) {
        assert.notInclude(line, fake.authToken)
        assert.notInclude(line, Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString("base64"))
      }
      // the call was never ended
      assert.strictEqual(fake.call(providerCallId)?.status, "queued")
    }))

  it.scoped("reads a call's status: each Twilio status mapped, 404 as none, failures as still dialing", () =>
    Effect.gen(function*() {
      const { carrier, fake } = yield* setup()
      const { providerCallId } = yield* carrier.dial(dialRequest())
      const table: ReadonlyArray<readonly [FakeTwilio.TwilioCallStatus, string]> = [
        ["queued", "dialing"],
        ["initiated", "dialing"],
        ["ringing", "ringing"],
        ["in-progress", "answered"],
        ["busy", "busy"],
        ["no-answer", "no_answer"],
        ["failed", "failed"],
        ["canceled", "no_answer"],
        ["completed", "completed"]
      ]
      for (const [twilioStatus, expected] of table) {
        fake.setCallStatus(providerCallId, twilioStatus)
        assert.deepStrictEqual(
          Option.map(yield* carrier.status(providerCallId), (s) => s.phase),
          Option.some(expected),
          twilioStatus
        )
      }
      const last = fake.calls().at(-1)!
      assert.strictEqual(last.method, "GET")
      assert.strictEqual(last.path, `/2010-04-01/Accounts/${fake.accountSid}/Calls/${providerCallId}.json`)

      assert.deepStrictEqual(yield* carrier.status("CA0123456789abcdef0123456789abcdef"), Option.none())

      fake.failNext({ _tag: "Respond", status: 500 })
      fake.failNext({ _tag: "Reset" })
      fake.failNext({ _tag: "Respond", status: 200, body: { sid: providerCallId, status: "some-new-status" } })
      const [unknowns, lines] = yield* withCapturedLogs(
        Effect.all([carrier.status(providerCallId), carrier.status(providerCallId), carrier.status(providerCallId)])
      )
      assert.deepStrictEqual(unknowns, [
        Option.some({ phase: "dialing" }),
        Option.some({ phase: "dialing" }),
        Option.some({ phase: "dialing" })
      ])
      assert.strictEqual(lines.length, 2)
    }))

  it.scoped("reads a finished call's own times: the end from end_time, the answer duration seconds before it", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-06-01T12:00:00Z"))
      const { carrier, fake } = yield* setup()
      const { providerCallId } = yield* carrier.dial(dialRequest())
      yield* TestClock.adjust("3 seconds")
      fake.setCallStatus(providerCallId, "in-progress")
      assert.deepStrictEqual(yield* carrier.status(providerCallId), Option.some({ phase: "answered" }))
      yield* TestClock.adjust("25 seconds")
      fake.setCallStatus(providerCallId, "completed")
      // asked much later (the call's runner died meanwhile): the times are the carrier's, not now
      yield* TestClock.adjust("10 minutes")
      assert.deepStrictEqual(
        yield* carrier.status(providerCallId),
        Option.some({
          phase: "completed",
          endedAt: Date.parse("2026-06-01T12:00:28Z"),
          answeredAt: Date.parse("2026-06-01T12:00:03Z")
        })
      )
    }))

  it.scoped("builds and delivers signed status callbacks the carrier's helpers accept (FakeTwilio)", () =>
    Effect.gen(function*() {
      const received: Array<{ url: string; signature: string | undefined; params: Record<string, string> }> = []
      const receiver = yield* Effect.acquireRelease(
        Effect.async<http.Server>((resume) => {
          const server = http.createServer((request, response) => {
            let body = ""
            request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
            request.on("end", () => {
              const signature = request.headers["x-twilio-signature"]
              received.push({
                url: request.url!,
                signature: typeof signature === "string" ? signature : undefined,
                params: Object.fromEntries(new URLSearchParams(body))
              })
              response.writeHead(204).end()
            })
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const origin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
      const { carrier, fake } = yield* setup({ statusCallbackBaseUrl: origin })
      const { providerCallId } = yield* carrier.dial(dialRequest())
      fake.setCallStatus(providerCallId, "ringing")

      const callback = fake.statusCallback(providerCallId, 1)
      assert.strictEqual(callback.url, `${origin}/api/v1/telephony/twilio/status/${SESSION_ID}`)
      assert.strictEqual(callback.params.CallSid, providerCallId)
      assert.strictEqual(mapCallStatus(callback.params.CallStatus!), "ringing")
      assert.isTrue(verifySignature(fake.authToken, callback.url, callback.params, callback.signature))

      assert.strictEqual(yield* fake.deliverStatusCallback(providerCallId, 1), 204)
      const [delivered] = received
      assert.strictEqual(delivered!.url, `/api/v1/telephony/twilio/status/${SESSION_ID}`)
      assert.isTrue(verifySignature(fake.authToken, origin + delivered!.url, delivered!.params, delivered!.signature!))
      assert.strictEqual(delivered!.params.SequenceNumber, "1")
    }))
})

describe("Twilio helpers", () => {
  it("maps status callbacks' CallStatus to provider events", () => {
    const table: ReadonlyArray<readonly [string, string | null]> = [
      ["queued", null],
      ["initiated", null],
      ["ringing", "ringing"],
      ["in-progress", "answered"],
      ["busy", "busy"],
      ["no-answer", "no_answer"],
      ["failed", "failed"],
      ["canceled", "no_answer"],
      ["completed", "completed"],
      ["answered", null],
      ["", null],
      ["COMPLETED", null]
    ]
    for (const [status, expected] of table) assert.strictEqual(mapCallStatus(status), expected, status)
  })

  const url = "https://mycompany.com/myapp.php?foo=1&bar=2"
  const params = {
    CallSid: "CA1234567890ABCDE",
    Caller: "+12349013030",
    Digits: "1234",
    From: "+12349013030",
    To: "+18005551212"
  }
  const signature = "0/KCTR6DLpKmkAf8muzZqo1nDgQ="

  it("computes Twilio's documented signature example", () => {
    assert.strictEqual(computeSignature("12345", url, params), signature)
    // the parameters' order as given does not matter: they are sorted by name
    const reversed = Object.fromEntries(Object.entries(params).reverse())
    assert.strictEqual(computeSignature("12345", url, reversed), signature)
  })

  it("verifies the documented signature and rejects tampered requests", () => {
    assert.isTrue(verifySignature("12345", url, params, signature))
    assert.isFalse(verifySignature("12345", url, { ...params, Digits: "1235" }, signature))
    assert.isFalse(verifySignature("12345", url, { ...params, Extra: "" }, signature))
    const { Digits: _, ...withoutDigits } = params
    assert.isFalse(verifySignature("12345", url, withoutDigits, signature))
    assert.isFalse(verifySignature("12345", "https://mycompany.com/myapp.php?foo=1&bar=3", params, signature))
    assert.isFalse(verifySignature("12345", "http://mycompany.com/myapp.php?foo=1&bar=2", params, signature))
    assert.isFalse(verifySignature("54321", url, params, signature))
    assert.isFalse(verifySignature("12345", url, params, "1/KCTR6DLpKmkAf8muzZqo1nDgQ="))
    assert.isFalse(verifySignature("12345", url, params, signature.slice(0, -1)))
    assert.isFalse(verifySignature("12345", url, params, ""))
    assert.isFalse(verifySignature("12345", url, params, `${signature}=`))
  })
})

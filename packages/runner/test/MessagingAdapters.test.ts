import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import { type AzureSmsOptions, makeAzureSmsSender, signAcsRequest } from "@voiceagent/runner/Messaging/AzureSms"
import {
  makeSimulatedSenders,
  simulatedChatAppSender,
  type SimulatedSend,
  simulatedSmsSender
} from "@voiceagent/runner/Messaging/SimulatedSenders"
import { makeTwilioSmsSender, type TwilioSmsOptions } from "@voiceagent/runner/Messaging/TwilioSms"
import { makeVonageSmsSender, type VonageSmsOptions } from "@voiceagent/runner/Messaging/VonageSms"
import {
  makeWhatsAppCloudSender,
  parseWebhook,
  signWebhookBody,
  verifyWebhookSignature,
  type WhatsAppCloudOptions
} from "@voiceagent/runner/Messaging/WhatsAppCloud"
import type { OutboundChatApp, OutboundSms, SendFailure } from "@voiceagent/runner/Ports/MessageSenders"
import {
  type FakeMessagingOptions,
  type FakeMessagingServer,
  makeFakeMessaging,
  vonageRefusal
} from "@voiceagent/runner/Testing/FakeMessaging"
import { Clock, type Duration, Effect, Either, Fiber, Option, Redacted, TestClock } from "effect"
import * as crypto from "node:crypto"

const MESSAGE_ID = "0190b0a2-7c1e-7d3a-9f00-0000000000aa"
const PHONE_NUMBER_ID = "106540352242922"

const chatApp = (overrides: Partial<OutboundChatApp> = {}): OutboundChatApp => ({
  messageId: MESSAGE_ID,
  to: "+14155552671",
  phoneNumberId: PHONE_NUMBER_ID,
  templateName: "call_summary",
  languageCode: "en_US",
  bodyParameters: ["Ada", "3 minutes"],
  firstAttemptAt: new Date(0),
  ...overrides
})

const sms = (overrides: Partial<OutboundSms> = {}): OutboundSms => ({
  messageId: MESSAGE_ID,
  to: "+14155552671",
  from: "+14155550100",
  body: "Thanks for your call. Reply STOP to opt out.",
  encoding: "GSM7",
  dltSenderId: null,
  dltTemplateId: null,
  firstAttemptAt: new Date(0),
  ...overrides
})

/**
 * An SMS first attempted now on the test's clock. Only the ACS adapter reads `firstAttemptAt`
 * (`repeatabilityFirstSent`), and the fake checks it against its own clock, the same TestClock: the
 * wall clock's date would be years away from it.
 */
const smsNow = (overrides: Partial<OutboundSms> = {}) =>
  Effect.map(Clock.currentTimeMillis, (now) => sms({ firstAttemptAt: new Date(now), ...overrides }))

const failure = <A>(effect: Effect.Effect<A, SendFailure>) => Effect.flip(effect)

const withFake = (options: FakeMessagingOptions = {}) => makeFakeMessaging(options)

const whatsappSender = (fake: FakeMessagingServer, overrides: Partial<WhatsAppCloudOptions> = {}) =>
  makeWhatsAppCloudSender({
    baseUrl: fake.url,
    apiVersion: "v21.0",
    accessToken: Redacted.make(fake.credentials.whatsapp.accessToken),
    ...overrides
  })

const twilioSender = (fake: FakeMessagingServer, overrides: Partial<TwilioSmsOptions> = {}) =>
  makeTwilioSmsSender({
    baseUrl: fake.url,
    accountSid: fake.credentials.twilio.accountSid,
    authToken: Redacted.make(fake.credentials.twilio.authToken),
    statusCallbackUrl: "https://voice.example.com/api/v1/messaging/twilio/status",
    ...overrides
  })

const vonageSender = (fake: FakeMessagingServer, overrides: Partial<VonageSmsOptions> = {}) =>
  makeVonageSmsSender({
    baseUrl: fake.url,
    apiKey: fake.credentials.vonage.apiKey,
    apiSecret: Redacted.make(fake.credentials.vonage.apiSecret),
    ...overrides
  })

const azureSender = (fake: FakeMessagingServer, overrides: Partial<AzureSmsOptions> = {}) =>
  makeAzureSmsSender({ endpoint: fake.url, accessKey: Redacted.make(fake.credentials.acs.accessKey), ...overrides })

/** Runs a send against a hung connection and moves the TestClock past the timeout. */
const timedOut = <A>(
  fake: FakeMessagingServer,
  send: Effect.Effect<A, SendFailure>,
  before: Duration.DurationInput,
  after: Duration.DurationInput
) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(Effect.either(send))
    yield* fake.awaitRequests(1)
    yield* TestClock.adjust(before)
    assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "still waiting before the timeout")
    yield* TestClock.adjust(after)
    const result = yield* Fiber.join(fiber)
    assert.isTrue(Either.isLeft(result))
    return Either.isLeft(result) ? result.left : assert.fail("the send should have failed")
  })

layer(NodeHttpClient.layerUndici)("WhatsAppCloud sender", (it) => {
  it.scoped("posts the documented template message with a bearer token and answers the wamid", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* whatsappSender(fake, { baseUrl: `${fake.url}/` })
      assert.strictEqual(sender.name, "whatsapp-cloud")
      assert.isFalse(sender.idempotent)

      const { providerMessageId } = yield* sender.send(chatApp())

      const [request] = fake.requests()
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.path, `/v21.0/${PHONE_NUMBER_ID}/messages`)
      assert.strictEqual(request!.headers.authorization, `Bearer ${fake.credentials.whatsapp.accessToken}`)
      assert.match(request!.headers["content-type"]!, /^application\/json/)
      assert.deepStrictEqual(request!.body, {
        messaging_product: "whatsapp",
        recipient_type: "individual",
        to: "+14155552671",
        type: "template",
        template: {
          name: "call_summary",
          language: { code: "en_US" },
          components: [{
            type: "body",
            parameters: [{ type: "text", text: "Ada" }, { type: "text", text: "3 minutes" }]
          }]
        }
      })
      const [sent] = fake.sent("whatsapp")
      assert.match(providerMessageId, /^wamid\./)
      assert.strictEqual(providerMessageId, sent!.providerMessageId)
      assert.deepStrictEqual(sent!.template, {
        name: "call_summary",
        languageCode: "en_US",
        bodyParameters: ["Ada", "3 minutes"]
      })
    }))

  it.scoped("leaves components out when the template has no parameters", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ whatsapp: { templates: { call_summary: 2, thanks: 0 } } })
      const sender = yield* whatsappSender(fake)
      yield* sender.send(chatApp({ templateName: "thanks", bodyParameters: [] }))
      const template = (fake.requests()[0]!.body as { template: Record<string, unknown> }).template
      assert.deepStrictEqual(template, { name: "thanks", language: { code: "en_US" } })
      assert.strictEqual(fake.deliveryCount("whatsapp"), 1)
    }))

  it.scoped("maps Graph API 4xx errors to permanent failures with the error code", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ whatsapp: { templates: { call_summary: 2 } } })
      const sender = yield* whatsappSender(fake)

      const unknownTemplate = yield* failure(sender.send(chatApp({ templateName: "nope" })))
      assert.strictEqual(unknownTemplate.status, 404)
      assert.strictEqual(unknownTemplate.code, "132001")
      assert.isFalse(unknownTemplate.retryable)
      assert.include(unknownTemplate.message, "Template name does not exist")

      const wrongCount = yield* failure(sender.send(chatApp({ bodyParameters: ["Ada"] })))
      assert.deepStrictEqual([wrongCount.status, wrongCount.code, wrongCount.retryable], [400, "132000", false])

      const badToken = yield* whatsappSender(fake, { accessToken: Redacted.make("EAAnot-the-token") })
      const unauthorized = yield* failure(badToken.send(chatApp()))
      assert.deepStrictEqual([unauthorized.status, unauthorized.code, unauthorized.retryable], [401, "190", false])
      assert.notInclude(unauthorized.message, "EAAnot-the-token")
      assert.strictEqual(fake.deliveryCount("whatsapp"), 0)
    }))

  it.scoped("retries 429, 5xx and the throttling codes Meta sends with a 400", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* whatsappSender(fake)

      fake.fault("whatsapp", { _tag: "Respond", status: 429 })
      const throttled = yield* failure(sender.send(chatApp()))
      assert.deepStrictEqual([throttled.status, throttled.code, throttled.retryable], [429, "130429", true])

      fake.fault("whatsapp", {
        _tag: "Respond",
        status: 400,
        body: {
          error: {
            message: "(#131056) (Business Account, Consumer Account) pair rate limit hit",
            type: "OAuthException",
            code: 131056,
            fbtrace_id: "A4O5a8RAgePwbcGSu"
          }
        }
      })
      const pairLimit = yield* failure(sender.send(chatApp()))
      assert.deepStrictEqual([pairLimit.status, pairLimit.code, pairLimit.retryable], [400, "131056", true])

      fake.fault("whatsapp", { _tag: "Respond", status: 500 })
      const serverError = yield* failure(sender.send(chatApp()))
      assert.deepStrictEqual([serverError.status, serverError.code, serverError.retryable], [500, "131000", true])

      fake.fault("whatsapp", { _tag: "Respond", status: 502, body: "<html>Bad Gateway</html>" })
      const gateway = yield* failure(sender.send(chatApp()))
      assert.deepStrictEqual([gateway.status, gateway.code, gateway.retryable], [502, null, true])

      fake.fault("whatsapp", { _tag: "Respond", status: 200, body: { messaging_product: "whatsapp", messages: [] } })
      const noId = yield* failure(sender.send(chatApp()))
      assert.isFalse(noId.retryable)
      assert.include(noId.message, "without a message id")

      assert.strictEqual(fake.deliveryCount("whatsapp"), 0)
    }))

  it.scoped("gives up after 10 seconds (TestClock) and on a reset connection, both retryable", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* whatsappSender(fake)
      fake.fault("whatsapp", { _tag: "Hang" })
      const timeout = yield* timedOut(fake, sender.send(chatApp()), "9 seconds", "1 second")
      assert.deepStrictEqual([timeout.status, timeout.code, timeout.retryable], [null, null, true])
      assert.strictEqual(timeout.message, "WhatsApp Cloud API timed out after 10 s")

      fake.fault("whatsapp", { _tag: "Reset" })
      const reset = yield* failure(sender.send(chatApp()))
      assert.isTrue(reset.retryable)
      assert.include(reset.message, "could not be reached")

      assert.match((yield* sender.send(chatApp())).providerMessageId, /^wamid\./)
    }))
})

describe("WhatsAppCloud sender, on the real clock", () => {
  it.scopedLive("honours a short configured timeout", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* whatsappSender(fake, { timeout: "150 millis" })
      fake.fault("whatsapp", { _tag: "Hang" })
      const started = Date.now()
      const timeout = yield* failure(sender.send(chatApp()))
      assert.strictEqual(timeout.message, "WhatsApp Cloud API timed out after 0.15 s")
      assert.isTrue(timeout.retryable)
      assert.isBelow(Date.now() - started, 5_000)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

layer(NodeHttpClient.layerUndici)("Twilio SMS sender", (it) => {
  it.scoped("posts To, From, Body and StatusCallback with Basic auth, ignoring DLT ids, and answers the SM sid", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* twilioSender(fake)
      assert.strictEqual(sender.name, "twilio")
      assert.isFalse(sender.idempotent)

      const { providerMessageId } = yield* sender.send(
        sms({
          from: "ACME",
          dltSenderId: "ACMEIN",
          dltTemplateId: "1107161234567890123",
          encoding: "UCS2",
          body: "Grüße 👋"
        })
      )

      const [request] = fake.requests("twilio")
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.path, `/2010-04-01/Accounts/${fake.credentials.twilio.accountSid}/Messages.json`)
      assert.strictEqual(
        request!.headers.authorization,
        `Basic ${
          Buffer.from(`${fake.credentials.twilio.accountSid}:${fake.credentials.twilio.authToken}`).toString("base64")
        }`
      )
      assert.match(request!.headers["content-type"]!, /^application\/x-www-form-urlencoded/)
      assert.deepStrictEqual(request!.form, [
        ["To", "+14155552671"],
        ["From", "ACME"],
        ["Body", "Grüße 👋"],
        ["StatusCallback", "https://voice.example.com/api/v1/messaging/twilio/status"]
      ])
      assert.match(providerMessageId, /^SM[0-9a-f]{32}$/)
      assert.strictEqual(providerMessageId, fake.sent("twilio")[0]!.providerMessageId)
    }))

  it.scoped("sends no StatusCallback when none is configured", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* makeTwilioSmsSender({
        baseUrl: fake.url,
        accountSid: fake.credentials.twilio.accountSid,
        authToken: Redacted.make(fake.credentials.twilio.authToken)
      })
      yield* sender.send(sms())
      assert.deepStrictEqual(fake.requests("twilio")[0]!.form.map(([name]) => name), ["To", "From", "Body"])
    }))

  it.scoped("maps Twilio's 4xx to permanent failures and 429/5xx to retryable ones", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* twilioSender(fake)

      const badTo = yield* failure(sender.send(sms({ to: "4155552671" })))
      assert.deepStrictEqual([badTo.status, badTo.code, badTo.retryable], [400, "21211", false])
      assert.include(badTo.message, "Invalid 'To' Phone Number")

      const noBody = yield* failure(sender.send(sms({ body: "" })))
      assert.deepStrictEqual([noBody.status, noBody.code, noBody.retryable], [400, "21602", false])

      const badAuth = yield* twilioSender(fake, { authToken: Redacted.make("not-the-token") })
      const unauthorized = yield* failure(badAuth.send(sms()))
      assert.deepStrictEqual([unauthorized.status, unauthorized.code, unauthorized.retryable], [401, "20003", false])
      assert.notInclude(unauthorized.message, "not-the-token")

      fake.fault("twilio", { _tag: "Respond", status: 429 })
      const throttled = yield* failure(sender.send(sms()))
      assert.deepStrictEqual([throttled.status, throttled.code, throttled.retryable], [429, "20429", true])

      fake.fault("twilio", { _tag: "Respond", status: 503 })
      const unavailable = yield* failure(sender.send(sms()))
      assert.deepStrictEqual([unavailable.status, unavailable.retryable], [503, true])

      assert.strictEqual(fake.deliveryCount("twilio"), 0)
    }))

  it.scoped("times out (configured, TestClock) and survives a reset, both retryable", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* twilioSender(fake, { timeout: "2 seconds" })
      fake.fault("twilio", { _tag: "Hang" })
      const timeout = yield* timedOut(fake, sender.send(sms()), "1999 millis", "1 millis")
      assert.strictEqual(timeout.message, "Twilio timed out after 2 s")
      assert.isTrue(timeout.retryable)

      fake.fault("twilio", { _tag: "Reset" })
      const reset = yield* failure(sender.send(sms()))
      assert.deepStrictEqual([reset.status, reset.retryable], [null, true])
    }))
})

layer(NodeHttpClient.layerUndici)("Vonage SMS sender", (it) => {
  it.scoped("posts the documented form with India DLT parameters and answers the first part's message-id", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* vonageSender(fake, { baseUrl: `${fake.url}/`, dltEntityId: "1101456789012345678" })
      assert.strictEqual(sender.name, "vonage")
      assert.isFalse(sender.idempotent)

      const { providerMessageId } = yield* sender.send(
        sms({ to: "+919876543210", from: "+14155550100", dltSenderId: "ACMEIN", dltTemplateId: "1107161234567890123" })
      )

      const [request] = fake.requests("vonage")
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.path, "/sms/json")
      assert.match(request!.headers["content-type"]!, /^application\/x-www-form-urlencoded/)
      assert.deepStrictEqual(request!.form, [
        ["api_key", fake.credentials.vonage.apiKey],
        ["api_secret", fake.credentials.vonage.apiSecret],
        ["from", "ACMEIN"],
        ["to", "919876543210"],
        ["text", "Thanks for your call. Reply STOP to opt out."],
        ["client-ref", MESSAGE_ID],
        ["entity-id", "1101456789012345678"],
        ["content-id", "1107161234567890123"]
      ])
      assert.match(providerMessageId, /^[0-9A-F]{16}$/)
      assert.strictEqual(providerMessageId, fake.sent("vonage")[0]!.providerMessageId)
    }))

  it.scoped("sends type=unicode only for UCS-2, strips the + of numbers and sends no DLT ids unless set", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* vonageSender(fake)
      yield* sender.send(sms({ encoding: "UCS2", body: "धन्यवाद! आपकी कॉल का सारांश तैयार है।" }))
      yield* sender.send(sms({ messageId: "0190b0a2-7c1e-7d3a-9f00-0000000000bb", body: "x".repeat(200) }))

      const [unicode, long] = fake.requests("vonage")
      assert.deepStrictEqual(unicode!.form.map(([name]) => name), [
        "api_key",
        "api_secret",
        "from",
        "to",
        "text",
        "type",
        "client-ref"
      ])
      assert.strictEqual((unicode!.body as Record<string, string>).type, "unicode")
      assert.strictEqual((unicode!.body as Record<string, string>).from, "14155550100")
      assert.strictEqual((unicode!.body as Record<string, string>).to, "14155552671")
      assert.isUndefined((long!.body as Record<string, string>).type)
      // a 200-character GSM-7 text goes as two parts; the message is known by the first part's id
      assert.strictEqual(fake.deliveryCount("vonage"), 2)
    }))

  it.scoped("maps Vonage statuses: 1, 5 and 10 retryable, others permanent, partial refusals not retried", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* vonageSender(fake)
      const table: ReadonlyArray<readonly [string, string, boolean]> = [
        ["1", "Throttled", true],
        ["5", "Internal Error", true],
        ["10", "Too Many Existing Binds", true],
        ["3", "Invalid Parameters", false],
        ["9", "Partner Quota Violation", false],
        ["29", "Non-Whitelisted Destination", false]
      ]
      for (const [status, text, retryable] of table) {
        fake.fault("vonage", { _tag: "Respond", status: 200, body: vonageRefusal(status, text) })
        const refused = yield* failure(sender.send(sms()))
        assert.deepStrictEqual([refused.status, refused.code, refused.retryable], [200, status, retryable], status)
        assert.include(refused.message, text)
      }

      fake.fault("vonage", {
        _tag: "Respond",
        status: 200,
        body: {
          "message-count": "2",
          messages: [
            { to: "14155552671", "message-id": "0C000000217B7F02", status: "0" },
            { status: "5", "error-text": "Internal Error" }
          ]
        }
      })
      const partial = yield* failure(sender.send(sms()))
      assert.deepStrictEqual([partial.code, partial.retryable], ["5", false])
      assert.include(partial.message, "after accepting 1 of 2 parts")

      const badSecret = yield* vonageSender(fake, { apiSecret: Redacted.make("wrong-secret") })
      const unauthorized = yield* failure(badSecret.send(sms()))
      assert.deepStrictEqual([unauthorized.code, unauthorized.retryable], ["4", false])
      assert.include(unauthorized.message, "Bad Credentials")
      assert.notInclude(unauthorized.message, "wrong-secret")

      const badTo = yield* failure(sender.send(sms({ to: "+1" })))
      assert.deepStrictEqual([badTo.code, badTo.retryable], ["3", false])

      fake.fault("vonage", { _tag: "Respond", status: 500 })
      const serverError = yield* failure(sender.send(sms()))
      assert.deepStrictEqual([serverError.status, serverError.retryable], [500, true])

      assert.strictEqual(fake.deliveryCount("vonage"), 0)
    }))

  it.scoped("times out after 10 seconds (TestClock) and survives a reset, both retryable", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* vonageSender(fake)
      fake.fault("vonage", { _tag: "Hang" })
      const timeout = yield* timedOut(fake, sender.send(sms()), "9 seconds", "1 second")
      assert.deepStrictEqual([timeout.message, timeout.retryable], ["Vonage timed out after 10 s", true])

      fake.fault("vonage", { _tag: "Reset" })
      assert.isTrue((yield* failure(sender.send(sms()))).retryable)
    }))
})

layer(NodeHttpClient.layerUndici)("Azure Communication Services SMS sender", (it) => {
  it.scoped("posts a repeatable request signed with HMAC-SHA256 exactly as documented", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* azureSender(fake, { endpoint: `${fake.url}/` })
      assert.strictEqual(sender.name, "azure-communication-services")
      assert.isTrue(sender.idempotent)

      yield* TestClock.setTime(Date.parse("2024-05-01T10:00:00Z"))
      const firstAttemptAt = new Date((yield* Clock.currentTimeMillis) - 30_000)
      const { providerMessageId } = yield* sender.send(sms({ firstAttemptAt, dltTemplateId: "1107161234567890123" }))

      const [request] = fake.requests("acs")
      assert.strictEqual(request!.method, "POST")
      assert.strictEqual(request!.path, "/sms?api-version=2021-03-07")
      assert.match(request!.headers["content-type"]!, /^application\/json/)
      assert.deepStrictEqual(request!.body, {
        from: "+14155550100",
        smsRecipients: [{
          to: "+14155552671",
          repeatabilityRequestId: MESSAGE_ID,
          repeatabilityFirstSent: firstAttemptAt.toUTCString()
        }],
        message: "Thanks for your call. Reply STOP to opt out.",
        smsSendOptions: { enableDeliveryReport: true, tag: MESSAGE_ID }
      })
      assert.match(firstAttemptAt.toUTCString(), /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/)

      // the signature, computed here from the documented recipe
      const date = "Wed, 01 May 2024 10:00:00 GMT"
      const contentHash = crypto.createHash("sha256").update(request!.rawBody).digest("base64")
      const host = new URL(fake.url).host
      const signature = crypto.createHmac("sha256", Buffer.from(fake.credentials.acs.accessKey, "base64"))
        .update(`POST\n/sms?api-version=2021-03-07\n${date};${host};${contentHash}`)
        .digest("base64")
      assert.strictEqual(request!.headers["x-ms-date"], date)
      assert.strictEqual(request!.headers.host, host)
      assert.strictEqual(request!.headers["x-ms-content-sha256"], contentHash)
      assert.strictEqual(
        request!.headers.authorization,
        `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`
      )
      assert.deepStrictEqual(
        signAcsRequest({
          accessKey: fake.credentials.acs.accessKey,
          method: "POST",
          pathAndQuery: "/sms?api-version=2021-03-07",
          host,
          date,
          body: request!.rawBody
        }),
        {
          "x-ms-date": date,
          "x-ms-content-sha256": contentHash,
          authorization: request!.headers.authorization!
        }
      )

      assert.match(providerMessageId, /^Outgoing_\d{14}[0-9a-f-]{36}_noam$/)
      assert.strictEqual(providerMessageId, fake.sent("acs")[0]!.providerMessageId)
    }))

  it.scoped("sends a repeated message id once and answers the same message id", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* azureSender(fake)
      const message = yield* smsNow()
      const first = yield* sender.send(message)
      const again = yield* sender.send(message)
      assert.strictEqual(again.providerMessageId, first.providerMessageId)
      assert.strictEqual(fake.requests("acs").length, 2)
      assert.strictEqual(fake.deliveryCount("acs"), 1)

      const other = yield* sender.send(yield* smsNow({ messageId: "0190b0a2-7c1e-7d3a-9f00-0000000000cc" }))
      assert.notStrictEqual(other.providerMessageId, first.providerMessageId)
      assert.strictEqual(fake.deliveryCount("acs"), 2)
    }))

  it.scoped("after an answer lost to the timeout, the retry delivers nothing new", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* azureSender(fake)
      const message = yield* smsNow()
      fake.fault("acs", { _tag: "Delay", millis: 200 })
      const timeout = yield* timedOut(fake, sender.send(message), "9 seconds", "1 second")
      assert.deepStrictEqual([timeout.message, timeout.retryable], [
        "Azure Communication Services timed out after 10 s",
        true
      ])

      yield* fake.awaitSent("acs", 1)
      const retry = yield* sender.send(message)
      assert.strictEqual(retry.providerMessageId, fake.sent("acs")[0]!.providerMessageId)
      assert.strictEqual(fake.deliveryCount("acs"), 1)
    }))

  it.scoped("refuses a repeat outside the repeatability window with a permanent 412", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* azureSender(fake)
      const refused = yield* failure(
        sender.send(sms({ firstAttemptAt: new Date((yield* Clock.currentTimeMillis) - 10 * 60_000) }))
      )
      assert.deepStrictEqual([refused.status, refused.code, refused.retryable], [412, "412", false])
      assert.include(refused.message, "repeatability rejected")
      assert.strictEqual(fake.deliveryCount("acs"), 0)
    }))

  it.scoped("maps per-recipient and request failures by status: 4xx permanent, 429 and 5xx retryable", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* azureSender(fake)

      const badTo = yield* failure(sender.send(yield* smsNow({ to: "4155552671" })))
      assert.deepStrictEqual([badTo.status, badTo.code, badTo.retryable], [400, "400", false])
      assert.include(badTo.message, "Invalid To phone number format")

      fake.fault("acs", {
        _tag: "Respond",
        status: 202,
        body: {
          value: [{ to: "+14155552671", httpStatusCode: 500, successful: false, errorMessage: "Internal error" }]
        }
      })
      const recipientError = yield* failure(
        sender.send(yield* smsNow({ messageId: "0190b0a2-7c1e-7d3a-9f00-0000000000dd" }))
      )
      assert.deepStrictEqual([recipientError.status, recipientError.retryable], [500, true])

      fake.fault("acs", { _tag: "Respond", status: 429 })
      const throttled = yield* failure(sender.send(yield* smsNow()))
      assert.deepStrictEqual([throttled.status, throttled.code, throttled.retryable], [429, "TooManyRequests", true])

      const badKey = yield* azureSender(fake, {
        accessKey: Redacted.make(Buffer.from("not-the-key").toString("base64"))
      })
      const denied = yield* failure(badKey.send(yield* smsNow()))
      assert.deepStrictEqual([denied.status, denied.code, denied.retryable], [401, "Denied", false])

      fake.fault("acs", { _tag: "Reset" })
      const reset = yield* failure(sender.send(yield* smsNow()))
      assert.deepStrictEqual([reset.status, reset.retryable], [null, true])

      assert.strictEqual(fake.deliveryCount("acs"), 0)
    }))
})

describe("WhatsApp webhooks", () => {
  const secret = "s3cr3t-app-secret"
  const raw = JSON.stringify({ object: "whatsapp_business_account", entry: [] })

  it("signs bodies as sha256=<hex HMAC-SHA256> and verifies them in constant time", () => {
    const expected = `sha256=${crypto.createHmac("sha256", secret).update(raw).digest("hex")}`
    assert.strictEqual(signWebhookBody(secret, raw), expected)
    assert.isTrue(verifyWebhookSignature(secret, raw, expected))
    assert.isTrue(verifyWebhookSignature(secret, raw, `sha256=${expected.slice(7).toUpperCase()}`))
    assert.isFalse(verifyWebhookSignature(secret, `${raw} `, expected))
    assert.isFalse(verifyWebhookSignature("another-secret", raw, expected))
    assert.isFalse(verifyWebhookSignature(secret, raw, undefined))
    assert.isFalse(verifyWebhookSignature(secret, raw, ""))
    assert.isFalse(verifyWebhookSignature(secret, raw, expected.slice(7)))
    assert.isFalse(verifyWebhookSignature(secret, raw, `sha1=${expected.slice(7)}`))
    assert.isFalse(verifyWebhookSignature(secret, raw, `${expected}00`))
    assert.isFalse(verifyWebhookSignature(secret, raw, `sha256=${"z".repeat(64)}`))
  })

  it("reads Meta's documented inbound text message example", () => {
    const payload = {
      object: "whatsapp_business_account",
      entry: [{
        id: "0",
        changes: [{
          field: "messages",
          value: {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: "16505551111", phone_number_id: "123456123" },
            contacts: [{ profile: { name: "test user name" }, wa_id: "16315551181" }],
            messages: [{
              from: "16315551181",
              id: "ABGGFlA5Fpa",
              timestamp: "1504902988",
              type: "text",
              text: { body: "this is a text message" }
            }]
          }
        }]
      }]
    }
    assert.deepStrictEqual(
      parseWebhook(payload),
      Either.right({
        statuses: [],
        messages: [{
          providerMessageId: "ABGGFlA5Fpa",
          from: "16315551181",
          phoneNumberId: "123456123",
          at: new Date(1504902988 * 1000),
          type: "text",
          text: "this is a text message",
          contactName: "test user name",
          raw: payload.entry[0]!.changes[0]!.value.messages[0]
        }]
      })
    )
  })

  it("refuses payloads that are not the documented envelope, and ignores other fields", () => {
    assert.isTrue(Either.isLeft(parseWebhook("nope")))
    const page = parseWebhook({ object: "page", entry: [] })
    assert.isTrue(Either.isLeft(page))
    assert.include(Either.isLeft(page) ? page.left : "", "whatsapp_business_account")
    const noMetadata = parseWebhook({
      object: "whatsapp_business_account",
      entry: [{ id: "1", changes: [{ field: "messages", value: { messaging_product: "whatsapp", statuses: [] } }] }]
    })
    assert.isTrue(Either.isLeft(noMetadata))
    assert.include(Either.isLeft(noMetadata) ? noMetadata.left : "", "metadata")
    const badTimestamp = parseWebhook({
      object: "whatsapp_business_account",
      entry: [{
        id: "1",
        changes: [{
          field: "messages",
          value: {
            messaging_product: "whatsapp",
            metadata: { display_phone_number: "1", phone_number_id: "2" },
            statuses: [{ id: "wamid.x", status: "sent", timestamp: "yesterday", recipient_id: "1" }]
          }
        }]
      }]
    })
    assert.isTrue(Either.isLeft(badTimestamp))
    assert.deepStrictEqual(
      parseWebhook({
        object: "whatsapp_business_account",
        entry: [{ id: "1", changes: [{ field: "message_template_status_update", value: { event: "APPROVED" } }] }]
      }),
      Either.right({ statuses: [], messages: [] })
    )
  })
})

layer(NodeHttpClient.layerUndici)("WhatsApp webhooks from the fake", (it) => {
  it.scoped("parses the status notifications of sent messages, signed as Meta signs them", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const sender = yield* whatsappSender(fake)
      const first = yield* sender.send(chatApp())
      const second = yield* sender.send(
        chatApp({ messageId: "0190b0a2-7c1e-7d3a-9f00-0000000000ee", to: "+447700900123" })
      )
      const at = new Date("2024-05-01T10:00:07Z")

      const delivered = fake.statusWebhook([first.providerMessageId, second.providerMessageId], "delivered", { at })
      const { rawBody, signature } = fake.signWebhook(delivered)
      assert.isTrue(verifyWebhookSignature(fake.credentials.whatsapp.appSecret, rawBody, signature))
      assert.isFalse(verifyWebhookSignature("not-the-secret", rawBody, signature))
      assert.deepStrictEqual(
        parseWebhook(JSON.parse(rawBody)),
        Either.right({
          statuses: [
            {
              providerMessageId: first.providerMessageId,
              status: "delivered" as const,
              at,
              recipient: "14155552671",
              phoneNumberId: PHONE_NUMBER_ID,
              error: null
            },
            {
              providerMessageId: second.providerMessageId,
              status: "delivered" as const,
              at,
              recipient: "447700900123",
              phoneNumberId: PHONE_NUMBER_ID,
              error: null
            }
          ],
          messages: []
        })
      )

      const failed = parseWebhook(
        fake.statusWebhook(first.providerMessageId, "failed", {
          at,
          error: { code: 131026, title: "Message undeliverable" }
        })
      )
      assert.deepStrictEqual(
        Either.getOrThrow(failed).statuses.map((status) => [status.status, status.error]),
        [["failed", { code: "131026", title: "Message undeliverable" }]]
      )

      // statuses beyond the four the platform knows are skipped, not errors
      assert.deepStrictEqual(
        parseWebhook(fake.statusWebhook(first.providerMessageId, "played", { at })),
        Either.right({ statuses: [], messages: [] })
      )
    }))

  it.scoped("parses inbound text and button messages with the contact's name and the raw message", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const at = new Date("2024-05-01T10:05:00Z")
      const text = fake.inboundMessageWebhook({
        from: "14155552671",
        text: "Can you call me back tomorrow?",
        contactName: "Ada Lovelace",
        providerMessageId: "wamid.inbound1",
        at,
        context: { from: "15550783881", id: "wamid.outbound1" }
      })
      const parsed = parseWebhook(text)
      assert.isTrue(Either.isRight(parsed))
      const [message] = Either.isRight(parsed) ? parsed.right.messages : []
      assert.deepStrictEqual(
        { ...message!, raw: undefined },
        {
          providerMessageId: "wamid.inbound1",
          from: "14155552671",
          phoneNumberId: PHONE_NUMBER_ID,
          at,
          type: "text",
          text: "Can you call me back tomorrow?",
          contactName: "Ada Lovelace",
          raw: undefined
        }
      )
      assert.deepStrictEqual(message!.raw, {
        context: { from: "15550783881", id: "wamid.outbound1" },
        from: "14155552671",
        id: "wamid.inbound1",
        timestamp: String(at.getTime() / 1000),
        type: "text",
        text: { body: "Can you call me back tomorrow?" }
      })

      const button = parseWebhook(
        fake.inboundMessageWebhook({ from: "14155552671", button: { text: "Call me", payload: "CALLBACK" } })
      )
      assert.deepStrictEqual(Either.getOrThrow(button).messages.map((m) => [m.type, m.text]), [["button", "Call me"]])
    }))
})

describe("Simulated senders", () => {
  const simulatedId = /^sim-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

  it.effect("answer at once with a sim-<uuid v4> id, the same one for a repeated message id", () =>
    Effect.gen(function*() {
      assert.strictEqual(simulatedChatAppSender.name, "simulated")
      assert.isTrue(simulatedChatAppSender.idempotent)
      const messageId = crypto.randomUUID()
      const first = yield* simulatedChatAppSender.send(chatApp({ messageId }))
      assert.match(first.providerMessageId, simulatedId)
      assert.deepStrictEqual(yield* simulatedChatAppSender.send(chatApp({ messageId })), first)
      assert.notStrictEqual(
        (yield* simulatedChatAppSender.send(chatApp({ messageId: crypto.randomUUID() }))).providerMessageId,
        first.providerMessageId
      )

      const smsId = crypto.randomUUID()
      const viaA = yield* simulatedSmsSender("PROVIDER_A").send(sms({ messageId: smsId }))
      assert.match(viaA.providerMessageId, simulatedId)
      // a sender made anew (or for another provider) remembers the id
      assert.deepStrictEqual(yield* simulatedSmsSender("PROVIDER_B").send(sms({ messageId: smsId })), viaA)
      assert.strictEqual(simulatedSmsSender("PROVIDER_C").name, "simulated")
      assert.isTrue(simulatedSmsSender("PROVIDER_C").idempotent)
    }))

  it.effect("report every send, repeats marked, to onSend", () =>
    Effect.gen(function*() {
      const seen: Array<SimulatedSend> = []
      const senders = makeSimulatedSenders({ onSend: (send) => seen.push(send) })
      const { providerMessageId } = yield* senders.sms("PROVIDER_B").send(sms())
      yield* senders.sms("PROVIDER_B").send(sms())
      yield* senders.chatApp.send(chatApp())
      assert.deepStrictEqual(
        seen.map((send) => [send.channel, send.channel === "sms" ? send.provider : null, send.repeat]),
        [["sms", "PROVIDER_B", false], ["sms", "PROVIDER_B", true], ["chat_app", null, false]]
      )
      assert.strictEqual(seen[1]!.providerMessageId, providerMessageId)
      // the chat-app and SMS ids of one message id are distinct
      assert.notStrictEqual(seen[2]!.providerMessageId, providerMessageId)
    }))
})

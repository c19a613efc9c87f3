/**
 * A fake of the four messaging providers on one loopback port, for tests, built from their documented
 * request and response shapes:
 *
 * - WhatsApp Cloud API: `POST /{version}/{phoneNumberId}/messages`, bearer token, Graph API errors
 *   `{error: {message, type, code, error_data, fbtrace_id}}`;
 * - Twilio Programmable Messaging: `POST /2010-04-01/Accounts/{sid}/Messages.json`, Basic auth, form
 *   parameters, errors `{code, message, more_info, status}`;
 * - Vonage SMS API: `POST /sms/json`, `api_key`/`api_secret` in the form, always HTTP 200 with a
 *   per-part `status` and `error-text`;
 * - Azure Communication Services SMS: `POST /sms?api-version=2021-03-07`, HMAC-SHA256 access-key
 *   signature, 202 with per-recipient results, and repeatable requests: a repeated
 *   `repeatabilityRequestId` answers the first result and is not sent again.
 *
 * Every request is recorded; accepted sends are kept per provider. A test can queue faults per
 * provider (an answer of its choosing, a hung or reset connection, a delay), and build (and sign)
 * the WhatsApp notifications Meta would post for the messages sent.
 *
 * The fake's dates (answers, message ids, notifications, the ACS repeatability window) come from
 * Effect's `Clock` where it is built: under `@effect/vitest` the `TestClock`, so they agree with the
 * code under test whatever the real date. Waits and `Delay` faults are real time (real I/O).
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import type * as http from "node:http"
import {
  type HttpFault,
  httpServer,
  listen,
  makeSleeper,
  makeWaiters,
  parseJson,
  post,
  readRequest,
  record,
  sendJson
} from "./FakeHttp.js"

export type MessagingProvider = "whatsapp" | "twilio" | "vonage" | "acs"

export interface RecordedMessagingRequest {
  /** The provider whose path was asked for; `null` for any other path. */
  readonly provider: MessagingProvider | null
  readonly method: string
  /** The path and query string. */
  readonly path: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly rawBody: string
  /** The parsed JSON body, or the form's parameters by name (the last of repeats); `undefined` when neither. */
  readonly body: unknown
  /** A form body's parameters in order, repeats kept; empty for JSON. */
  readonly form: ReadonlyArray<readonly [string, string]>
}

/**
 * What the fake does with a provider's next request instead of
 * answering it normally (after a `Delay`, a send still counts).
 */
export type FakeMessagingFault = HttpFault

/** A send the provider accepted (for ACS, a repeat of an earlier request is not a new one). */
export interface AcceptedSend {
  readonly provider: MessagingProvider
  readonly providerMessageId: string
  /** As sent. */
  readonly to: string
  readonly from: string | null
  /** The SMS text (or a WhatsApp text message's body); `null` for WhatsApp templates. */
  readonly text: string | null
  /** WhatsApp only: the sending phone number id, and the template. */
  readonly phoneNumberId: string | null
  readonly template: {
    readonly name: string
    readonly languageCode: string
    readonly bodyParameters: ReadonlyArray<string>
  } | null
  readonly request: RecordedMessagingRequest
}

export interface WhatsAppWebhookError {
  readonly code: number
  readonly title: string
  readonly message?: string
  readonly details?: string
}

export interface StatusWebhookOptions {
  /** The fake's clock's now unless given. */
  readonly at?: Date
  /** The recipient's WhatsApp id; the accepted send's `to` (digits) unless given. */
  readonly recipient?: string
  readonly phoneNumberId?: string
  /** For `failed` statuses. */
  readonly error?: WhatsAppWebhookError
}

export interface InboundMessageInput {
  /** The customer's WhatsApp id (digits). */
  readonly from: string
  /** A text message's body. */
  readonly text?: string
  /** A quick-reply button press instead of text. */
  readonly button?: { readonly text: string; readonly payload: string }
  readonly providerMessageId?: string
  readonly contactName?: string
  readonly phoneNumberId?: string
  /** The fake's clock's now unless given. */
  readonly at?: Date
  /** The message replied to. */
  readonly context?: { readonly from: string; readonly id: string }
}

export interface FakeMessagingOptions {
  readonly whatsapp?: {
    readonly accessToken?: string
    readonly appSecret?: string
    readonly businessAccountId?: string
    readonly phoneNumberId?: string
    readonly displayPhoneNumber?: string
    /** Approved templates by name, with their number of body parameters; any template goes unless given. */
    readonly templates?: Readonly<Record<string, number>>
  }
  readonly twilio?: { readonly accountSid?: string; readonly authToken?: string }
  readonly vonage?: { readonly apiKey?: string; readonly apiSecret?: string }
  readonly acs?: {
    /** base64, as the portal shows it. */
    readonly accessKey?: string
    /** How long a repeatable request is remembered; 5 minutes unless set. */
    readonly repeatabilityWindow?: Duration.DurationInput
  }
}

export interface FakeMessagingCredentials {
  readonly whatsapp: {
    readonly accessToken: string
    readonly appSecret: string
    readonly businessAccountId: string
    readonly phoneNumberId: string
    readonly displayPhoneNumber: string
  }
  readonly twilio: { readonly accountSid: string; readonly authToken: string }
  readonly vonage: { readonly apiKey: string; readonly apiSecret: string }
  readonly acs: { readonly accessKey: string }
}

export interface FakeMessagingServer {
  /** The origin to use as every adapter's base URL (ACS: its endpoint). */
  readonly url: string
  readonly credentials: FakeMessagingCredentials
  /** Every request received so far, in order; only one provider's when given. */
  readonly requests: (provider?: MessagingProvider) => ReadonlyArray<RecordedMessagingRequest>
  /** The sends a provider accepted, in order. */
  readonly sent: (provider: MessagingProvider) => ReadonlyArray<AcceptedSend>
  /** How many distinct messages a provider accepted for delivery. */
  readonly deliveryCount: (provider: MessagingProvider) => number
  /** Queues a fault for the provider's next request not yet answered (one fault per request, in order). */
  readonly fault: (provider: MessagingProvider, fault: FakeMessagingFault) => void
  /**
   * Waits until at least `count` requests (for the provider, when given) have been received; dies,
   * saying what it waited for and what it saw, after `millis` of real time (30 s unless given).
   */
  readonly awaitRequests: (count: number, provider?: MessagingProvider, millis?: number) => Effect.Effect<void>
  /**
   * Waits until the provider has accepted at least `count` sends; dies, saying what it waited for and
   * what it saw, after `millis` of real time (30 s unless given).
   */
  readonly awaitSent: (provider: MessagingProvider, count: number, millis?: number) => Effect.Effect<void>
  /** The status notification Meta would post for these messages. */
  readonly statusWebhook: (
    providerMessageIds: string | ReadonlyArray<string>,
    status: string,
    options?: StatusWebhookOptions
  ) => unknown
  /** The notification Meta would post for a customer's message. */
  readonly inboundMessageWebhook: (input: InboundMessageInput) => unknown
  /** A notification's raw body and its `X-Hub-Signature-256`, signed with the app secret. */
  readonly signWebhook: (payload: unknown) => { readonly rawBody: string; readonly signature: string }
  /** Posts a notification to `url` as Meta would (JSON, signed); answers the HTTP status. */
  readonly deliverWebhook: (url: string, payload: unknown) => Effect.Effect<number, Error>
}

export const DEFAULT_WHATSAPP_ACCESS_TOKEN = "EAAfakeWhatsAppAccessToken0123456789"
export const DEFAULT_WHATSAPP_APP_SECRET = "fake-whatsapp-app-secret"
export const DEFAULT_TWILIO_ACCOUNT_SID = "AC00000000000000000000000000000002"
export const DEFAULT_TWILIO_AUTH_TOKEN = "fake-twilio-messaging-auth-token"
export const DEFAULT_VONAGE_API_KEY = "abcd1234"
export const DEFAULT_VONAGE_API_SECRET = "fake-vonage-secret"
export const DEFAULT_ACS_ACCESS_KEY = Buffer.from("fake-acs-access-key-0123456789abcdef").toString("base64")

export const ACS_API_VERSION = "2021-03-07"

/** How long (real time) `awaitRequests` and `awaitSent` wait unless told. */
const AWAIT_MILLIS = 30_000

const WHATSAPP_PATH = /^\/(v\d+\.\d+)\/([^/]+)\/messages$/
const TWILIO_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/
const E164 = /^\+[1-9]\d{6,14}$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const providerOf = (pathname: string): MessagingProvider | null =>
  WHATSAPP_PATH.test(pathname)
    ? "whatsapp"
    : TWILIO_PATH.test(pathname)
    ? "twilio"
    : pathname === "/sms/json"
    ? "vonage"
    : pathname === "/sms"
    ? "acs"
    : null

const nonEmptyString = (value: unknown): value is string => typeof value === "string" && value !== ""

const unixSeconds = (date: Date) => String(Math.floor(date.getTime() / 1000))

/** Twilio's RFC 2822 dates: `Tue, 31 Aug 2010 20:36:28 +0000`. */
const rfc2822 = (date: Date) => date.toUTCString().replace("GMT", "+0000")

// Error bodies, in each provider's documented shape.

const graphError = (code: number, message: string, details?: string) => ({
  error: {
    message: `(#${code}) ${message}`,
    type: "OAuthException",
    code,
    error_data: { messaging_product: "whatsapp", details: details ?? message },
    fbtrace_id: crypto.randomBytes(12).toString("base64url")
  }
})

const twilioError = (status: number, code: number, message: string) => ({
  code,
  message,
  more_info: `https://www.twilio.com/docs/errors/${code}`,
  status
})

/** A Vonage answer refusing a message with this status (a string of the documented table, e.g. `"1"`). */
export const vonageRefusal = (status: string, errorText: string) => ({
  "message-count": "1",
  messages: [{ status, "error-text": errorText }]
})

const acsError = (code: string, message: string) => ({ error: { code, message } })

const defaultFaultBody = (provider: MessagingProvider | null, status: number): unknown => {
  const throttled = status === 429
  const serverError = status >= 500
  switch (provider) {
    case "whatsapp":
      return throttled
        ? graphError(130429, "Rate limit hit", "Cloud API message throughput has been reached.")
        : serverError
        ? graphError(131000, "Something went wrong")
        : graphError(100, "Invalid parameter")
    case "twilio":
      return throttled
        ? twilioError(status, 20429, "Too Many Requests")
        : twilioError(
          status,
          serverError ? 20500 : 20001,
          serverError ? "An internal server error has occurred" : "Bad request"
        )
    case "vonage":
      return throttled ? vonageRefusal("1", "Throttled") : vonageRefusal("5", "Internal Error")
    case "acs":
      return acsError(
        throttled ? "TooManyRequests" : serverError ? "InternalServerError" : "BadRequest",
        throttled ? "Too many requests." : serverError ? "An internal error occurred." : "Bad request."
      )
    default:
      return { error: "not found" }
  }
}

interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** GSM-7 basic and extension characters, for Vonage's part count. */
const GSM7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà^{}\\[~\]|€]*$/

const partsOf = (text: string, unicode: boolean) => {
  const length = Array.from(text).length
  const [single, multi] = unicode || !GSM7.test(text) ? [70, 67] : [160, 153]
  return length <= single ? 1 : Math.ceil(length / multi)
}

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const makeFakeMessaging = (
  options: FakeMessagingOptions = {}
): Effect.Effect<FakeMessagingServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const credentials: FakeMessagingCredentials = {
      whatsapp: {
        accessToken: options.whatsapp?.accessToken ?? DEFAULT_WHATSAPP_ACCESS_TOKEN,
        appSecret: options.whatsapp?.appSecret ?? DEFAULT_WHATSAPP_APP_SECRET,
        businessAccountId: options.whatsapp?.businessAccountId ?? "102290129340398",
        phoneNumberId: options.whatsapp?.phoneNumberId ?? "106540352242922",
        displayPhoneNumber: options.whatsapp?.displayPhoneNumber ?? "15550783881"
      },
      twilio: {
        accountSid: options.twilio?.accountSid ?? DEFAULT_TWILIO_ACCOUNT_SID,
        authToken: options.twilio?.authToken ?? DEFAULT_TWILIO_AUTH_TOKEN
      },
      vonage: {
        apiKey: options.vonage?.apiKey ?? DEFAULT_VONAGE_API_KEY,
        apiSecret: options.vonage?.apiSecret ?? DEFAULT_VONAGE_API_SECRET
      },
      acs: { accessKey: options.acs?.accessKey ?? DEFAULT_ACS_ACCESS_KEY }
    }
    // The fake's "now" (answers' dates, the ACS repeatability window, notifications' timestamps) is
    // Effect's Clock where the fake is built: the TestClock in a test, so it agrees with the code
    // under test; the live clock otherwise.
    const clock = yield* Effect.clock
    const now = () => new Date(clock.unsafeCurrentTimeMillis())
    const repeatabilityWindowMillis = Duration.toMillis(
      Duration.decode(options.acs?.repeatabilityWindow ?? "5 minutes")
    )
    const templates = options.whatsapp?.templates

    const recorded: Array<RecordedMessagingRequest> = []
    const accepted: Array<AcceptedSend> = []
    const waiters = makeWaiters("FakeMessaging")
    // Real time; the scope's close wakes every sleeper so no timer outlives the fake.
    const { sleep, wakeAll } = makeSleeper()
    const faults = new Map<MessagingProvider | null, Array<FakeMessagingFault>>()
    const repeatable = new Map<
      string,
      { readonly fingerprint: string; readonly result: Readonly<Record<string, unknown>> }
    >()

    const accept = (send: AcceptedSend) => {
      accepted.push(send)
      waiters.wake()
    }

    // --- WhatsApp Cloud API

    const whatsapp = (request: RecordedMessagingRequest, phoneNumberId: string): Answer => {
      if (request.method !== "POST") {
        return { status: 400, body: graphError(100, `Unsupported ${request.method.toLowerCase()} request.`) }
      }
      const authorization = request.headers.authorization
      if (authorization === undefined) {
        return { status: 401, body: graphError(104, "An access token is required to request this resource.") }
      }
      if (authorization !== `Bearer ${credentials.whatsapp.accessToken}`) {
        return { status: 401, body: graphError(190, "Invalid OAuth access token - Cannot parse access token") }
      }
      const parsed = parseJson(request.rawBody)
      if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) {
        return { status: 400, body: graphError(100, "Invalid parameter", "The request body is not a JSON object") }
      }
      const body = record(parsed.value)
      const invalid = (message: string) => ({ status: 400, body: graphError(100, message) })
      if (body.messaging_product !== "whatsapp") {
        return invalid("The parameter messaging_product is required.")
      }
      if (
        body.recipient_type !== undefined && body.recipient_type !== "individual" && body.recipient_type !== "group"
      ) {
        return invalid("Param recipient_type must be one of {INDIVIDUAL, GROUP}")
      }
      if (!nonEmptyString(body.to)) return invalid("The parameter to is required.")
      const digits = body.to.replace(/[\s+\-()]/g, "")
      if (!/^\d{7,15}$/.test(digits)) return invalid(`Invalid parameter to: ${body.to}`)
      let text: string | null = null
      let acceptedTemplate: AcceptedSend["template"] = null
      if (body.type === "text") {
        const textBody = record(body.text).body
        if (!nonEmptyString(textBody)) return invalid("The parameter text['body'] is required.")
        text = textBody
      } else if (body.type === "template") {
        const template = record(body.template)
        if (!nonEmptyString(template.name)) return invalid("The parameter template['name'] is required.")
        const languageCode = record(template.language).code
        if (!nonEmptyString(languageCode)) return invalid("The parameter template['language']['code'] is required.")
        if (template.components !== undefined && !Array.isArray(template.components)) {
          return invalid("Param template['components'] must be an array.")
        }
        const bodyParameters: Array<string> = []
        for (const component of ((template.components ?? []) as Array<unknown>).map(record)) {
          if (typeof component.type !== "string") {
            return invalid("The parameter template['components'][0]['type'] is required.")
          }
          if (component.type !== "body") continue
          if (!Array.isArray(component.parameters)) {
            return invalid("Param template['components'][0]['parameters'] must be an array.")
          }
          for (const parameter of (component.parameters as Array<unknown>).map(record)) {
            if (parameter.type !== "text" || typeof parameter.text !== "string") {
              return invalid("Param template['components'][0]['parameters'] must be text parameters.")
            }
            bodyParameters.push(parameter.text)
          }
        }
        const expected = templates?.[template.name]
        if (templates !== undefined && expected === undefined) {
          return {
            status: 404,
            body: graphError(
              132001,
              "Template name does not exist in the translation",
              `template name (${template.name}) does not exist in ${languageCode}`
            )
          }
        }
        if (expected !== undefined && expected !== bodyParameters.length) {
          return {
            status: 400,
            body: graphError(
              132000,
              "Number of parameters does not match the expected number of params",
              `body: number of localizable_params (${bodyParameters.length}) does not match the expected number of ` +
                `params (${expected})`
            )
          }
        }
        acceptedTemplate = { name: template.name, languageCode, bodyParameters }
      } else {
        return invalid("Param type must be one of {TEXT, TEMPLATE} in this fake.")
      }
      const id = `wamid.${Buffer.from(`${digits}${crypto.randomBytes(12).toString("hex")}`).toString("base64")}`
      accept({
        provider: "whatsapp",
        providerMessageId: id,
        to: body.to,
        from: null,
        text,
        phoneNumberId,
        template: acceptedTemplate,
        request
      })
      return {
        status: 200,
        body: {
          messaging_product: "whatsapp",
          contacts: [{ input: body.to, wa_id: digits }],
          messages: [{ id, ...(acceptedTemplate === null ? {} : { message_status: "accepted" }) }]
        }
      }
    }

    // --- Twilio Programmable Messaging

    const twilioAuthorization = `Basic ${
      Buffer.from(`${credentials.twilio.accountSid}:${credentials.twilio.authToken}`).toString("base64")
    }`

    const twilio = (request: RecordedMessagingRequest, accountSid: string): Answer => {
      if (request.headers.authorization !== twilioAuthorization) {
        return {
          status: 401,
          body: twilioError(401, 20003, "Authenticate"),
          headers: { "www-authenticate": "Basic realm=\"Twilio API\"" }
        }
      }
      if (accountSid !== credentials.twilio.accountSid) {
        return { status: 404, body: twilioError(404, 20404, `The requested resource ${request.path} was not found`) }
      }
      if (request.method !== "POST") return { status: 405, body: twilioError(405, 20004, "Method not allowed") }
      const param = (name: string) => request.form.find(([key]) => key === name)?.[1]
      const invalid = (code: number, message: string) => ({ status: 400, body: twilioError(400, code, message) })
      const to = param("To")
      const from = param("From")
      const text = param("Body")
      if (!nonEmptyString(to)) return invalid(21604, "A 'To' phone number is required.")
      if (!E164.test(to)) return invalid(21211, `Invalid 'To' Phone Number: ${to}`)
      if (!nonEmptyString(from) && param("MessagingServiceSid") === undefined) {
        return invalid(21603, "A 'From' phone number is required.")
      }
      if (
        nonEmptyString(from) && !E164.test(from) && !/^\d{5,6}$/.test(from) &&
        !/^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/.test(from)
      ) {
        return invalid(21212, `Invalid From Number (caller ID): ${from}`)
      }
      if (!nonEmptyString(text) && param("MediaUrl") === undefined && param("ContentSid") === undefined) {
        return invalid(21602, "Message body is required.")
      }
      if (text !== undefined && text.length > 1600) {
        return invalid(21617, "The concatenated message body exceeds the 1600 character limit.")
      }
      const statusCallback = param("StatusCallback")
      if (statusCallback !== undefined && !URL.canParse(statusCallback)) {
        return invalid(21609, `Invalid StatusCallback url: ${statusCallback}`)
      }
      const sid = `SM${crypto.randomBytes(16).toString("hex")}`
      const created = now()
      accept({
        provider: "twilio",
        providerMessageId: sid,
        to,
        from: from ?? null,
        text: text ?? null,
        phoneNumberId: null,
        template: null,
        request
      })
      const uri = `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`
      return {
        status: 201,
        body: {
          account_sid: accountSid,
          api_version: "2010-04-01",
          body: text ?? "",
          date_created: rfc2822(created),
          date_sent: null,
          date_updated: rfc2822(created),
          direction: "outbound-api",
          error_code: null,
          error_message: null,
          from: from ?? null,
          messaging_service_sid: param("MessagingServiceSid") ?? null,
          num_media: "0",
          num_segments: "1",
          price: null,
          price_unit: "USD",
          sid,
          status: "queued",
          subresource_uris: { media: uri.replace(".json", "/Media.json") },
          to,
          uri
        }
      }
    }

    // --- Vonage SMS API

    const vonage = (request: RecordedMessagingRequest): Answer => {
      const params = record(request.body)
      const param = (name: string) => typeof params[name] === "string" ? params[name] : undefined
      const refuse = (status: string, errorText: string) => ({ status: 200, body: vonageRefusal(status, errorText) })
      if (request.method !== "POST" && request.method !== "GET") {
        return { status: 405, body: { "error-text": "Method not allowed" } }
      }
      const apiKey = param("api_key")
      const apiSecret = param("api_secret")
      if (!nonEmptyString(apiKey)) return refuse("2", "Missing api_key")
      if (!nonEmptyString(apiSecret)) return refuse("2", "Missing api_secret")
      if (apiKey !== credentials.vonage.apiKey || apiSecret !== credentials.vonage.apiSecret) {
        return refuse("4", "Bad Credentials")
      }
      const from = param("from")
      const to = param("to")
      const text = param("text")
      const type = param("type") ?? "text"
      if (!nonEmptyString(from)) return refuse("2", "Missing from param")
      if (!nonEmptyString(to)) return refuse("2", "Missing to param")
      if (!/^\d{7,15}$/.test(to)) return refuse("3", `Invalid to address: ${to}`)
      if (!["text", "unicode", "binary"].includes(type)) return refuse("3", `Invalid type: ${type}`)
      if (type !== "binary" && !nonEmptyString(text)) return refuse("2", "Missing text param")
      const clientRef = param("client-ref")
      if (clientRef !== undefined && clientRef.length > 100) {
        return refuse("3", "Invalid client-ref: longer than 100 characters")
      }
      const count = partsOf(text ?? "", type === "unicode")
      const ids = Array.from({ length: count }, () => crypto.randomBytes(8).toString("hex").toUpperCase())
      accept({
        provider: "vonage",
        providerMessageId: ids[0]!,
        to,
        from,
        text: text ?? null,
        phoneNumberId: null,
        template: null,
        request
      })
      return {
        status: 200,
        body: {
          "message-count": String(count),
          messages: ids.map((id) => ({
            to,
            "message-id": id,
            status: "0",
            "remaining-balance": "15.53590000",
            "message-price": "0.03330000",
            network: "23410",
            ...(clientRef === undefined ? {} : { "client-ref": clientRef })
          }))
        }
      }
    }

    // --- Azure Communication Services SMS

    const acsAuthenticated = (request: RecordedMessagingRequest): boolean => {
      const match = /^HMAC-SHA256 SignedHeaders=([^&]+)&Signature=(.+)$/.exec(request.headers.authorization ?? "")
      if (match === null) return false
      const signedHeaders = match[1]!.split(";").map((name) => name.toLowerCase())
      for (const required of ["host", "x-ms-content-sha256"]) if (!signedHeaders.includes(required)) return false
      if (!signedHeaders.includes("x-ms-date") && !signedHeaders.includes("date")) return false
      const date = request.headers["x-ms-date"] ?? request.headers.date
      if (date === undefined || Number.isNaN(Date.parse(date))) return false
      const contentHash = crypto.createHash("sha256").update(request.rawBody, "utf8").digest("base64")
      if (request.headers["x-ms-content-sha256"] !== contentHash) return false
      const stringToSign = `${request.method}\n${request.path}\n${
        signedHeaders.map((name) => request.headers[name] ?? "").join(";")
      }`
      const expected = Buffer.from(
        crypto.createHmac("sha256", Buffer.from(credentials.acs.accessKey, "base64")).update(stringToSign, "utf8")
          .digest("base64")
      )
      const given = Buffer.from(match[2]!)
      return expected.length === given.length && crypto.timingSafeEqual(expected, given)
    }

    const acsRecipient = (
      recipient: Readonly<Record<string, unknown>>,
      from: string,
      message: string,
      request: RecordedMessagingRequest
    ): Readonly<Record<string, unknown>> => {
      const to = typeof recipient.to === "string" ? recipient.to : ""
      const refused = (httpStatusCode: number, errorMessage: string, repeatabilityResult?: string) => ({
        to,
        httpStatusCode,
        successful: false,
        errorMessage,
        ...(repeatabilityResult === undefined ? {} : { repeatabilityResult })
      })
      const requestId = recipient.repeatabilityRequestId
      const firstSent = recipient.repeatabilityFirstSent
      const repeatableRequest = requestId !== undefined || firstSent !== undefined
      if (repeatableRequest) {
        if (typeof requestId !== "string" || !UUID.test(requestId)) {
          return refused(400, "Invalid repeatabilityRequestId: a GUID is required.", "rejected")
        }
        const firstSentAt = typeof firstSent === "string" ? Date.parse(firstSent) : Number.NaN
        if (Number.isNaN(firstSentAt)) {
          return refused(400, "Invalid repeatabilityFirstSent: an IMF-fixdate is required.", "rejected")
        }
        if (clock.unsafeCurrentTimeMillis() - firstSentAt > repeatabilityWindowMillis) {
          return refused(412, "The repeatabilityFirstSent is not within the repeatability window.", "rejected")
        }
        const fingerprint = JSON.stringify([to, from, message])
        const earlier = repeatable.get(requestId.toLowerCase())
        if (earlier !== undefined) {
          return earlier.fingerprint === fingerprint
            ? earlier.result
            : refused(400, "The repeated request does not match the original request.", "rejected")
        }
      }
      const result: Readonly<Record<string, unknown>> = E164.test(to)
        ? (() => {
          const stamp = now().toISOString().replace(/\D/g, "").slice(0, 14)
          const messageId = `Outgoing_${stamp}${crypto.randomUUID()}_noam`
          accept({
            provider: "acs",
            providerMessageId: messageId,
            to,
            from,
            text: message,
            phoneNumberId: null,
            template: null,
            request
          })
          return {
            to,
            messageId,
            httpStatusCode: 202,
            successful: true,
            ...(repeatableRequest ? { repeatabilityResult: "accepted" } : {})
          }
        })()
        : refused(400, `Invalid To phone number format: ${to}`, repeatableRequest ? "accepted" : undefined)
      if (repeatableRequest) {
        repeatable.set((requestId as string).toLowerCase(), {
          fingerprint: JSON.stringify([to, from, message]),
          result
        })
      }
      return result
    }

    const acs = (request: RecordedMessagingRequest): Answer => {
      if (!acsAuthenticated(request)) {
        return { status: 401, body: acsError("Denied", "Denied by the resource provider.") }
      }
      if (request.method !== "POST") return { status: 405, body: acsError("MethodNotAllowed", "Method not allowed.") }
      const version = new URL(request.path, "http://localhost").searchParams.get("api-version")
      if (version === null) {
        return {
          status: 400,
          body: acsError("MissingApiVersionParameter", "The api-version query parameter is required.")
        }
      }
      if (version !== ACS_API_VERSION) {
        return {
          status: 400,
          body: acsError("UnsupportedApiVersion", `The api-version '${version}' is not supported by this fake.`)
        }
      }
      const parsed = parseJson(request.rawBody)
      const body = parsed.ok ? record(parsed.value) : {}
      const invalid = (message: string) => ({ status: 400, body: acsError("BadRequest", message) })
      if (!parsed.ok) return invalid("The request body is not JSON.")
      if (!nonEmptyString(body.from)) return invalid("The from field is required.")
      if (typeof body.message !== "string") return invalid("The message field is required.")
      if (body.message.length > 2048) return invalid("The message field exceeds 2048 characters.")
      if (!Array.isArray(body.smsRecipients) || body.smsRecipients.length < 1 || body.smsRecipients.length > 100) {
        return invalid("smsRecipients must list from 1 to 100 recipients.")
      }
      const options = record(body.smsSendOptions)
      if (body.smsSendOptions !== undefined && typeof options.enableDeliveryReport !== "boolean") {
        return invalid("smsSendOptions.enableDeliveryReport is required.")
      }
      const from = body.from
      const message = body.message
      return {
        status: 202,
        body: {
          value: (body.smsRecipients as Array<unknown>).map((recipient) =>
            acsRecipient(record(recipient), from, message, request)
          )
        }
      }
    }

    const route = (request: RecordedMessagingRequest): Answer => {
      const pathname = new URL(request.path, "http://localhost").pathname
      const whatsappMatch = WHATSAPP_PATH.exec(pathname)
      if (whatsappMatch !== null) return whatsapp(request, decodeURIComponent(whatsappMatch[2]!))
      const twilioMatch = TWILIO_PATH.exec(pathname)
      if (twilioMatch !== null) return twilio(request, decodeURIComponent(twilioMatch[1]!))
      if (pathname === "/sms/json") return vonage(request)
      if (pathname === "/sms") return acs(request)
      return { status: 404, body: { error: `no such path: ${pathname}` } }
    }

    const respond = (response: http.ServerResponse, answer: Answer) =>
      sendJson(response, answer.status, answer.body, {
        "content-type": "application/json; charset=utf-8",
        ...answer.headers
      })

    const handle = async (incoming: http.IncomingMessage, response: http.ServerResponse) => {
      const { headers, method, path, rawBody } = await readRequest(incoming)
      const contentType = headers["content-type"] ?? ""
      const form = contentType.startsWith("application/x-www-form-urlencoded")
        ? Array.from(new URLSearchParams(rawBody).entries())
        : []
      const json = contentType.startsWith("application/json") ? parseJson(rawBody) : { ok: false as const }
      const provider = providerOf(new URL(path, "http://localhost").pathname)
      const request: RecordedMessagingRequest = {
        provider,
        method,
        path,
        headers,
        rawBody,
        body: json.ok ? json.value : form.length > 0 ? Object.fromEntries(form) : undefined,
        form
      }
      recorded.push(request)
      waiters.wake()
      const fault = faults.get(provider)?.shift()
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") return void incoming.socket.destroy()
      if (fault?._tag === "Respond") {
        return respond(response, { status: fault.status, body: fault.body ?? defaultFaultBody(provider, fault.status) })
      }
      if (fault?._tag === "Delay") await sleep(fault.millis)
      const answer = route(request)
      if (!response.destroyed) respond(response, answer)
    }

    const port = yield* listen(
      httpServer(handle, (response, error) => respond(response, { status: 500, body: { error: String(error) } })),
      wakeAll
    )

    const requests = (provider?: MessagingProvider) =>
      provider === undefined ? recorded.slice() : recorded.filter((request) => request.provider === provider)
    const sent = (provider: MessagingProvider) => accepted.filter((send) => send.provider === provider)

    const whatsappMetadata = (phoneNumberId: string | undefined) => ({
      display_phone_number: credentials.whatsapp.displayPhoneNumber,
      phone_number_id: phoneNumberId ?? credentials.whatsapp.phoneNumberId
    })

    const notification = (value: Readonly<Record<string, unknown>>) => ({
      object: "whatsapp_business_account",
      entry: [{ id: credentials.whatsapp.businessAccountId, changes: [{ value, field: "messages" }] }]
    })

    const statusWebhook = (
      providerMessageIds: string | ReadonlyArray<string>,
      status: string,
      statusOptions: StatusWebhookOptions = {}
    ) => {
      const ids = typeof providerMessageIds === "string" ? [providerMessageIds] : providerMessageIds
      const sends = ids.map((id) =>
        accepted.find((send) => send.provider === "whatsapp" && send.providerMessageId === id)
      )
      const at = statusOptions.at ?? now()
      const statuses = ids.map((id, index) => {
        const recipient = statusOptions.recipient ?? sends[index]?.to.replace(/\D/g, "")
        if (recipient === undefined) throw new Error(`FakeMessaging knows no WhatsApp message ${id}; give a recipient`)
        const error = statusOptions.error
        return {
          id,
          status,
          timestamp: unixSeconds(at),
          recipient_id: recipient,
          ...(status === "sent" || status === "delivered"
            ? {
              conversation: {
                id: crypto.randomBytes(16).toString("hex"),
                ...(status === "sent"
                  ? { expiration_timestamp: unixSeconds(new Date(at.getTime() + 86_400_000)) }
                  : {}),
                origin: { type: "utility" }
              },
              pricing: { billable: true, pricing_model: "CBP", category: "utility" }
            }
            : {}),
          ...(error === undefined ? {} : {
            errors: [{
              code: error.code,
              title: error.title,
              message: error.message ?? error.title,
              error_data: { details: error.details ?? error.title },
              href: "https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/"
            }]
          })
        }
      })
      return notification({
        messaging_product: "whatsapp",
        metadata: whatsappMetadata(statusOptions.phoneNumberId ?? sends[0]?.phoneNumberId ?? undefined),
        statuses
      })
    }

    const inboundMessageWebhook = (input: InboundMessageInput) => {
      const id = input.providerMessageId ??
        `wamid.${Buffer.from(`${input.from}${crypto.randomBytes(12).toString("hex")}`).toString("base64")}`
      return notification({
        messaging_product: "whatsapp",
        metadata: whatsappMetadata(input.phoneNumberId),
        contacts: [{ profile: { name: input.contactName ?? "Test Customer" }, wa_id: input.from }],
        messages: [{
          ...(input.context === undefined ? {} : { context: input.context }),
          from: input.from,
          id,
          timestamp: unixSeconds(input.at ?? now()),
          ...(input.button === undefined
            ? { type: "text", text: { body: input.text ?? "" } }
            : { type: "button", button: { text: input.button.text, payload: input.button.payload } })
        }]
      })
    }

    const signWebhook = (payload: unknown) => {
      const rawBody = JSON.stringify(payload)
      const hex = crypto.createHmac("sha256", credentials.whatsapp.appSecret).update(rawBody, "utf8").digest("hex")
      return { rawBody, signature: `sha256=${hex}` }
    }

    const fake: FakeMessagingServer = {
      url: `http://127.0.0.1:${port}`,
      credentials,
      requests,
      sent,
      deliveryCount: (provider) => sent(provider).length,
      fault: (provider, fault) => {
        const queue = faults.get(provider) ?? []
        queue.push(fault)
        faults.set(provider, queue)
      },
      awaitRequests: (count, provider, millis = AWAIT_MILLIS) =>
        waiters.until(
          `${count} ${provider ?? "provider"} request(s)`,
          () => requests(provider).length >= count,
          millis,
          () => `saw ${requests(provider).length}`
        ),
      awaitSent: (provider, count, millis = AWAIT_MILLIS) =>
        waiters.until(
          `${count} accepted ${provider} send(s)`,
          () => sent(provider).length >= count,
          millis,
          () => `saw ${sent(provider).length}`
        ),
      statusWebhook,
      inboundMessageWebhook,
      signWebhook,
      deliverWebhook: (url, payload) =>
        post(() => {
          const { rawBody, signature } = signWebhook(payload)
          return {
            url,
            headers: { "content-type": "application/json", "x-hub-signature-256": signature },
            body: rawBody
          }
        })
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeMessaging extends Context.Tag("Testing/FakeMessaging")<FakeMessaging, FakeMessagingServer>() {
  static readonly layer = (options: FakeMessagingOptions = {}) =>
    Layer.scoped(FakeMessaging, makeFakeMessaging(options))
}

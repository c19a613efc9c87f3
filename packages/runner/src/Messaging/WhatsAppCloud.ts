/**
 * The chat-app sender for the WhatsApp Business Platform's Cloud API (Meta's Graph API), and the
 * helpers for its `messages` webhook.
 *
 * A message goes out as an approved template: `POST {baseUrl}/{apiVersion}/{phoneNumberId}/messages` with a bearer
 * token and `{messaging_product: "whatsapp", recipient_type: "individual", to, type: "template", template: {name,
 * language: {code}, components?}}`. `components` (`[{type: "body", parameters: [{type: "text", text}, …]}]`) is sent
 * only when the template has body parameters: it is optional in the template object, and a template without variables
 * is sent without it. `to` is our E.164 number as is: Meta recommends the leading `+` and country code (without the `+`
 * it prepends the business number's country code). The answer is `{messaging_product, contacts: [{input, wa_id}],
 * messages: [{id: "wamid.…"}]}`; an error is `{error: {message, type, code, error_subcode?, error_data?: {details},
 * fbtrace_id}}`, where Meta says to act on `code`, not on the HTTP status or subcode.
 *
 * The Cloud API takes no idempotency key, so the sender is not idempotent: a retry after a timeout
 * may deliver the template twice.
 *
 * Inbound, Meta posts notifications signed with `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the
 * raw body, keyed with the app secret>`; `verifyWebhookSignature` checks it and `parseWebhook` reads
 * the statuses and messages of the documented `whatsapp_business_account` envelope.
 *
 * Docs (checked):
 * - https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages
 * - https://whatsapp.github.io/WhatsApp-Nodejs-SDK/api-reference/types/TemplateObject (components optional)
 * - https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes
 * - https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/status/
 * - https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/errors
 * - https://developers.facebook.com/docs/graph-api/webhooks/getting-started (payload signature)
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { exchange, record, trimSlash } from "../Http/ProviderHttp.js"
import {
  type ChatAppSender,
  type DeliveryStatus,
  type InboundReply,
  type InboundStatus,
  type OutboundChatApp,
  SendFailure
} from "../Ports/MessageSenders.js"

export interface WhatsAppCloudOptions {
  /** The Graph API origin, e.g. `https://graph.facebook.com`. */
  readonly baseUrl: string
  /** The Graph API version, e.g. `v21.0`. */
  readonly apiVersion: string
  readonly accessToken: Redacted.Redacted
  /** How long one request may take, answer included; 10 seconds unless set. */
  readonly timeout?: Duration.DurationInput
}

export const WHATSAPP_REQUEST_TIMEOUT: Duration.DurationInput = "10 seconds"

/**
 * Error codes Meta documents as throttling (4 app call limit, 80007 account limit, 130429 throughput,
 * 131056 business/consumer pair limit) or as temporary (2 service unavailable, 131000 something went
 * wrong, 131016 service unavailable, 133004 server temporarily unavailable). These come with a 400 as
 * often as with a 429 or 5xx, so the code decides.
 */
export const RETRYABLE_ERROR_CODES: ReadonlySet<number> = new Set([4, 80007, 130429, 131056, 2, 131000, 131016, 133004])

const LABEL = "WhatsApp Cloud API"

/** The JSON body of a template send, exactly as the Cloud API documents it. */
export const templateRequestBody = (message: OutboundChatApp) => ({
  messaging_product: "whatsapp",
  recipient_type: "individual",
  to: message.to,
  type: "template",
  template: {
    name: message.templateName,
    language: { code: message.languageCode },
    ...(message.bodyParameters.length > 0
      ? { components: [{ type: "body", parameters: message.bodyParameters.map((text) => ({ type: "text", text })) }] }
      : {})
  }
})

const failureOf = (status: number, body: unknown): SendFailure => {
  const error = record(record(body).error)
  const code = typeof error.code === "number" ? error.code : undefined
  const details = record(error.error_data).details
  const message = typeof error.message === "string" ? error.message : undefined
  return new SendFailure({
    retryable: status === 429 || status >= 500 || (code !== undefined && RETRYABLE_ERROR_CODES.has(code)),
    status,
    code: code === undefined ? null : String(code),
    message: `${LABEL} answered ${status}` +
      (message === undefined ? "" : `: ${message}`) +
      (typeof details === "string" && details !== message ? ` (${details})` : "")
  })
}

/** A `ChatAppSender` sending approved templates through the WhatsApp Cloud API. */
export const makeWhatsAppCloudSender = (
  options: WhatsAppCloudOptions
): Effect.Effect<ChatAppSender, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const timeout = options.timeout ?? WHATSAPP_REQUEST_TIMEOUT
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(HttpClientRequest.bearerToken(options.accessToken), HttpClientRequest.acceptJson)
      )
    )
    const messagesUrl = (phoneNumberId: string) =>
      `${trimSlash(options.baseUrl)}/${encodeURIComponent(options.apiVersion)}/${
        encodeURIComponent(phoneNumberId)
      }/messages`

    const send = (message: OutboundChatApp) =>
      client.execute(
        HttpClientRequest.post(messagesUrl(message.phoneNumberId)).pipe(
          HttpClientRequest.bodyText(JSON.stringify(templateRequestBody(message)), "application/json")
        )
      ).pipe(
        exchange(LABEL, timeout),
        Effect.flatMap(({ body, status }) => {
          if (status < 200 || status >= 300) return Effect.fail(failureOf(status, body))
          const [first] = Array.isArray(record(body).messages) ? record(body).messages as Array<unknown> : []
          const id = record(first).id
          return typeof id === "string" && id !== ""
            ? Effect.succeed({ providerMessageId: id })
            : Effect.fail(
              new SendFailure({
                retryable: false,
                status,
                code: null,
                message: `${LABEL} answered ${status} without a message id`
              })
            )
        }),
        Effect.withSpan("WhatsAppCloud.send", { attributes: { messageId: message.messageId } })
      )

    const sender: ChatAppSender = { name: "whatsapp-cloud", idempotent: false, send }
    return sender
  })

// ---------------------------------------------------------------------------------------------------
// Webhooks

/** The `X-Hub-Signature-256` value Meta sends with a notification: `sha256=` and the hex HMAC-SHA256. */
export const signWebhookBody = (appSecret: string, rawBody: string): string =>
  `sha256=${crypto.createHmac("sha256", appSecret).update(rawBody, "utf8").digest("hex")}`

/** Whether `header` is Meta's signature of this raw body, compared in constant time. */
export const verifyWebhookSignature = (appSecret: string, rawBody: string, header: string | undefined): boolean => {
  if (header === undefined || !/^sha256=[0-9a-fA-F]{64}$/.test(header)) return false
  const expected = Buffer.from(signWebhookBody(appSecret, rawBody))
  const given = Buffer.from(`sha256=${header.slice("sha256=".length).toLowerCase()}`)
  return expected.length === given.length && crypto.timingSafeEqual(expected, given)
}

export type WhatsAppStatus = DeliveryStatus

export interface ParsedStatus extends InboundStatus {
  readonly recipient: string
  readonly phoneNumberId: string
}

export type ParsedInboundMessage = InboundReply

export interface ParsedWebhook {
  readonly statuses: Array<ParsedStatus>
  readonly messages: Array<ParsedInboundMessage>
}

const UnixSeconds = Schema.String.pipe(Schema.pattern(/^\d+$/, { message: () => "a Unix timestamp in seconds" }))

const WebhookError = Schema.Struct({
  code: Schema.Number,
  title: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  error_data: Schema.optional(Schema.Unknown)
})

const WebhookStatus = Schema.Struct({
  id: Schema.String,
  status: Schema.String,
  timestamp: UnixSeconds,
  recipient_id: Schema.String,
  errors: Schema.optional(Schema.Array(WebhookError))
})

const Reply = Schema.Struct({ id: Schema.optional(Schema.String), title: Schema.String })

const WebhookMessage = Schema.Struct({
  from: Schema.String,
  id: Schema.String,
  timestamp: UnixSeconds,
  type: Schema.String,
  text: Schema.optional(Schema.Struct({ body: Schema.String })),
  button: Schema.optional(Schema.Struct({ text: Schema.String, payload: Schema.optional(Schema.String) })),
  interactive: Schema.optional(Schema.Struct({
    type: Schema.optional(Schema.String),
    button_reply: Schema.optional(Reply),
    list_reply: Schema.optional(Reply)
  })),
  context: Schema.optional(Schema.Unknown)
})

const MessagesValue = Schema.Struct({
  messaging_product: Schema.Literal("whatsapp"),
  metadata: Schema.Struct({ display_phone_number: Schema.String, phone_number_id: Schema.String }),
  contacts: Schema.optional(Schema.Array(Schema.Struct({
    profile: Schema.optional(Schema.Struct({ name: Schema.String })),
    wa_id: Schema.String
  }))),
  statuses: Schema.optional(Schema.Array(WebhookStatus)),
  messages: Schema.optional(Schema.Array(WebhookMessage))
})

const Notification = Schema.Struct({
  object: Schema.Literal("whatsapp_business_account"),
  entry: Schema.Array(Schema.Struct({
    id: Schema.String,
    changes: Schema.Array(Schema.Struct({ field: Schema.String, value: Schema.Unknown }))
  }))
})

const decodeNotification = Schema.decodeUnknownEither(Notification)
const decodeMessagesValue = Schema.decodeUnknownEither(MessagesValue)

const KNOWN_STATUSES: ReadonlySet<string> = new Set<WhatsAppStatus>(["sent", "delivered", "read", "failed"])

const dateOf = (unixSeconds: string) => new Date(Number(unixSeconds) * 1000)

/**
 * Reads a `messages` webhook notification. Changes of other fields (template status updates and the
 * like) are ignored, as are statuses Meta may add beyond sent, delivered, read and failed (e.g. a
 * voice message's `played`). A payload that is not the documented envelope is a `Left` with the reason.
 */
export const parseWebhook = (payload: unknown): Either.Either<ParsedWebhook, string> => {
  const envelope = decodeNotification(payload)
  if (Either.isLeft(envelope)) return Either.left(ParseResult.TreeFormatter.formatErrorSync(envelope.left))
  const parsed: ParsedWebhook = { statuses: [], messages: [] }
  const rawEntries = record(payload).entry as ReadonlyArray<unknown>
  for (const [entryIndex, entry] of envelope.right.entry.entries()) {
    const rawChanges = record(rawEntries[entryIndex]).changes as ReadonlyArray<unknown>
    for (const [changeIndex, change] of entry.changes.entries()) {
      if (change.field !== "messages") continue
      const decoded = decodeMessagesValue(change.value)
      if (Either.isLeft(decoded)) {
        return Either.left(
          `entry ${entryIndex} change ${changeIndex}: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
        )
      }
      const value = decoded.right
      const phoneNumberId = value.metadata.phone_number_id
      for (const status of value.statuses ?? []) {
        if (!KNOWN_STATUSES.has(status.status)) continue
        const error = status.errors?.[0]
        parsed.statuses.push({
          providerMessageId: status.id,
          status: status.status as WhatsAppStatus,
          at: dateOf(status.timestamp),
          recipient: status.recipient_id,
          phoneNumberId,
          error: error === undefined ? null : { code: String(error.code), title: error.title ?? error.message ?? "" }
        })
      }
      const rawMessages = record(record(rawChanges[changeIndex]).value).messages as ReadonlyArray<unknown> | undefined
      const contacts = value.contacts ?? []
      for (const [messageIndex, message] of (value.messages ?? []).entries()) {
        const contact = contacts.find((c) => c.wa_id === message.from) ??
          (contacts.length === 1 ? contacts[0] : undefined)
        const interactive = message.interactive?.button_reply ?? message.interactive?.list_reply
        parsed.messages.push({
          providerMessageId: message.id,
          from: message.from,
          phoneNumberId,
          at: dateOf(message.timestamp),
          type: message.type,
          text: message.text?.body ?? message.button?.text ?? interactive?.title ?? null,
          contactName: contact?.profile?.name ?? null,
          raw: rawMessages?.[messageIndex]
        })
      }
    }
  }
  return Either.right(parsed)
}

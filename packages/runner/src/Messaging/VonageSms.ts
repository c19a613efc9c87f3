/**
 * PROVIDER_B's SMS sender: the Vonage (formerly Nexmo) SMS API.
 *
 * `POST {baseUrl}/sms/json` (default origin `https://rest.nexmo.com`), form-encoded, authenticated by
 * `api_key` and `api_secret` in the form, with `from`, `to` (digits, no `+`), `text`, `type=unicode`
 * for UCS-2 bodies (the default type is `text`, GSM-7), `client-ref` (our message id, echoed in
 * delivery receipts), and India's DLT parameters: `entity-id` (the principal entity id, from the
 * options) and `content-id` (the message's DLT content template id) when set. A DLT sender id
 * (header), when set, is the `from`.
 *
 * Vonage answers HTTP 200 whatever happened: `{"message-count", messages: [{to, "message-id", status,
 * "remaining-balance", "message-price", network, "client-ref"?}]}` with one entry per part of a long
 * message; a part's non-"0" `status` (with `error-text`) is a refusal. Per Vonage's status table,
 * 1 (throttled), 5 (internal error) and 10 (too many existing binds: back off and retry) are worth a
 * retry; every other status needs a change on our side. A refusal after some parts were accepted is
 * not retried, since a retry would send the accepted parts again. Vonage takes no idempotency key,
 * so the sender is not idempotent.
 *
 * Docs (checked):
 * - https://developer.vonage.com/messaging/sms/guides/troubleshooting-sms (response shape, status table)
 * - https://developer.vonage.com/api-errors/sms (status codes and their resolutions)
 * - https://developer.vonage.com/en/blog/introducing-distribution-ledger-technology-sms-indian-regulation (`entity-id`,
 *   `content-id`)
 * - https://github.com/Vonage/vonage-node-sdk, packages/sms/lib/types/Requests/SMSRequestBody.ts (request field names)
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { exchange, record, trimSlash } from "../Http/ProviderHttp.js"
import { type OutboundSms, SendFailure, type SmsSender } from "../Ports/MessageSenders.js"

export interface VonageSmsOptions {
  /** The SMS API origin; `https://rest.nexmo.com` unless set. */
  readonly baseUrl?: string
  readonly apiKey: string
  readonly apiSecret: Redacted.Redacted
  /** India DLT: the principal entity id registered on the DLT portal, sent as `entity-id`. */
  readonly dltEntityId?: string
  /** How long one request may take, answer included; 10 seconds unless set. */
  readonly timeout?: Duration.DurationInput
}

export const VONAGE_DEFAULT_BASE_URL = "https://rest.nexmo.com"
export const VONAGE_REQUEST_TIMEOUT: Duration.DurationInput = "10 seconds"

/** Vonage SMS API statuses a later retry may get past. */
export const RETRYABLE_STATUSES: ReadonlySet<string> = new Set(["1", "5", "10"])

const LABEL = "Vonage"

/** Vonage wants international numbers without the `+`; alphanumeric sender ids pass unchanged. */
const withoutPlus = (address: string) => address.startsWith("+") ? address.slice(1) : address

/** The form a send posts, in order, credentials included. */
export const smsForm = (
  message: OutboundSms,
  options: Pick<VonageSmsOptions, "apiKey" | "apiSecret" | "dltEntityId">
): ReadonlyArray<readonly [string, string]> => {
  const form: Array<readonly [string, string]> = [
    ["api_key", options.apiKey],
    ["api_secret", Redacted.value(options.apiSecret)],
    ["from", withoutPlus(message.dltSenderId ?? message.from)],
    ["to", withoutPlus(message.to)],
    ["text", message.body]
  ]
  if (message.encoding === "UCS2") form.push(["type", "unicode"])
  form.push(["client-ref", message.messageId])
  if (options.dltEntityId !== undefined) form.push(["entity-id", options.dltEntityId])
  if (message.dltTemplateId !== null) form.push(["content-id", message.dltTemplateId])
  return form
}

const answer = (status: number, body: unknown): Effect.Effect<{ readonly providerMessageId: string }, SendFailure> => {
  if (status < 200 || status >= 300) {
    const text = record(body)["error-text"]
    return Effect.fail(
      new SendFailure({
        retryable: status === 429 || status >= 500,
        status,
        code: null,
        message: `${LABEL} answered ${status}` + (typeof text === "string" ? `: ${text}` : "")
      })
    )
  }
  const parts = (Array.isArray(record(body).messages) ? record(body).messages as Array<unknown> : []).map(record)
  const refused = parts.find((part) => part.status !== "0")
  if (parts.length === 0 || refused === undefined && typeof parts[0]!["message-id"] !== "string") {
    return Effect.fail(
      new SendFailure({
        retryable: false,
        status,
        code: null,
        message: `${LABEL} answered ${status} without a message id`
      })
    )
  }
  if (refused === undefined) return Effect.succeed({ providerMessageId: parts[0]!["message-id"] as string })
  const code = typeof refused.status === "string" ? refused.status : String(refused.status)
  const accepted = parts.filter((part) => part.status === "0").length
  const text = typeof refused["error-text"] === "string" ? refused["error-text"] : "no error text"
  return Effect.fail(
    new SendFailure({
      retryable: accepted === 0 && RETRYABLE_STATUSES.has(code),
      status,
      code,
      message: `${LABEL} refused the message: ${text} (status ${code})` +
        (accepted === 0 ? "" : `, after accepting ${accepted} of ${parts.length} parts`)
    })
  )
}

/** An `SmsSender` sending through the Vonage SMS API. */
export const makeVonageSmsSender = (
  options: VonageSmsOptions
): Effect.Effect<SmsSender, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const timeout = options.timeout ?? VONAGE_REQUEST_TIMEOUT
    const url = `${trimSlash(options.baseUrl ?? VONAGE_DEFAULT_BASE_URL)}/sms/json`
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.mapRequest(HttpClientRequest.acceptJson))

    const send = (message: OutboundSms) =>
      client.execute(HttpClientRequest.post(url).pipe(HttpClientRequest.bodyUrlParams(smsForm(message, options)))).pipe(
        exchange(LABEL, timeout),
        Effect.flatMap(({ body, status }) => answer(status, body)),
        Effect.withSpan("VonageSms.send", { attributes: { messageId: message.messageId } })
      )

    const sender: SmsSender = { name: "vonage", idempotent: false, send }
    return sender
  })

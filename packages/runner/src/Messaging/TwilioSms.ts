/**
 * PROVIDER_A's SMS sender: Twilio Programmable Messaging (REST API `2010-04-01`).
 *
 * `POST {baseUrl}/2010-04-01/Accounts/{AccountSid}/Messages.json` with Basic auth (account SID and
 * auth token) and a form of `To` (E.164), `From` (an E.164 number, short code or alphanumeric sender
 * id), `Body` and, when configured, `StatusCallback`. Twilio answers 201 with the Message resource
 * (`sid` `SM…`, `status` `queued`); errors are `{code, message, more_info, status}`.
 *
 * Twilio picks the encoding from the body's characters, so `encoding` is not sent. India DLT ids
 * (`dltSenderId`, `dltTemplateId`) are ignored: Twilio takes DLT registrations through its console and
 * sender registration, not per request. Twilio takes no idempotency key, so the sender is not idempotent.
 *
 * Docs (checked):
 * - https://www.twilio.com/docs/messaging/api/message-resource
 * - https://twilio.com/docs/messaging/guides/outbound-message-status-in-status-callbacks
 * - https://www.twilio.com/docs/errors/21604 (error body shape, e.g. `{"code": 21604, "message": …, "more_info": …,
 *   "status": 400}`)
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Redacted from "effect/Redacted"
import { exchange, record, trimSlash } from "../Http/ProviderHttp.js"
import { type OutboundSms, SendFailure, type SmsSender } from "../Ports/MessageSenders.js"

export interface TwilioSmsOptions {
  /** Twilio's REST origin, e.g. `https://api.twilio.com`. */
  readonly baseUrl: string
  readonly accountSid: string
  readonly authToken: Redacted.Redacted
  /** Where Twilio posts the message's status changes, if anywhere. */
  readonly statusCallbackUrl?: string
  /** How long one request may take, answer included; 10 seconds unless set. */
  readonly timeout?: Duration.DurationInput
}

export const TWILIO_SMS_REQUEST_TIMEOUT: Duration.DurationInput = "10 seconds"

const LABEL = "Twilio"

/** The form a send posts, in order. */
export const messageForm = (
  message: OutboundSms,
  statusCallbackUrl: string | undefined
): ReadonlyArray<readonly [string, string]> => [
  ["To", message.to],
  ["From", message.from],
  ["Body", message.body],
  ...(statusCallbackUrl === undefined ? [] : [["StatusCallback", statusCallbackUrl] as const])
]

const failureOf = (status: number, body: unknown): SendFailure => {
  const fields = record(body)
  const code = typeof fields.code === "number" || typeof fields.code === "string" ? String(fields.code) : null
  const message = typeof fields.message === "string" ? fields.message : undefined
  return new SendFailure({
    retryable: status === 429 || status >= 500,
    status,
    code,
    message: `${LABEL} answered ${status}` + (message === undefined ? "" : `: ${message}`)
  })
}

/** An `SmsSender` sending through Twilio's Message resource. */
export const makeTwilioSmsSender = (
  options: TwilioSmsOptions
): Effect.Effect<SmsSender, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const timeout = options.timeout ?? TWILIO_SMS_REQUEST_TIMEOUT
    const url = `${trimSlash(options.baseUrl)}/2010-04-01/Accounts/${
      encodeURIComponent(options.accountSid)
    }/Messages.json`
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(HttpClientRequest.basicAuth(options.accountSid, options.authToken), HttpClientRequest.acceptJson)
      )
    )

    const send = (message: OutboundSms) =>
      client.execute(
        HttpClientRequest.post(url).pipe(
          HttpClientRequest.bodyUrlParams(messageForm(message, options.statusCallbackUrl))
        )
      ).pipe(
        exchange(LABEL, timeout),
        Effect.flatMap(({ body, status }) => {
          if (status < 200 || status >= 300) return Effect.fail(failureOf(status, body))
          const sid = record(body).sid
          return typeof sid === "string" && sid !== ""
            ? Effect.succeed({ providerMessageId: sid })
            : Effect.fail(
              new SendFailure({
                retryable: false,
                status,
                code: null,
                message: `${LABEL} answered ${status} without a message sid`
              })
            )
        }),
        Effect.withSpan("TwilioSms.send", { attributes: { messageId: message.messageId } })
      )

    const sender: SmsSender = { name: "twilio", idempotent: false, send }
    return sender
  })

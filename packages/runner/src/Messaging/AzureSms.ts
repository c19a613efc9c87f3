/**
 * PROVIDER_C's SMS sender: Azure Communication Services (ACS) SMS, API version `2021-03-07`.
 *
 * `POST {endpoint}/sms?api-version=2021-03-07` with `{from, smsRecipients: [{to, repeatabilityRequestId,
 * repeatabilityFirstSent}], message, smsSendOptions: {enableDeliveryReport, tag}}`, signed with the resource's access
 * key (HMAC-SHA256): headers `x-ms-date` (IMF-fixdate), `x-ms-content-sha256` (base64 SHA-256 of the body) and
 * `Authorization: HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=<base64>`, the signature being
 * the HMAC, keyed with the base64-decoded access key, of `POST\n<path and query>\n<x-ms-date>;<host>;<content hash>`.
 *
 * ACS answers 202 with one result per recipient, `{value: [{to, messageId, httpStatusCode, successful,
 * errorMessage?, repeatabilityResult?}]}`; a recipient's failure is read from its `httpStatusCode`
 * (429 and 5xx are worth a retry). Other failures come as `{error: {code, message}}` with the status.
 *
 * The request is repeatable: `repeatabilityRequestId` is our message id and `repeatabilityFirstSent`
 * the first attempt's time, so ACS does not send the same message twice when a retry repeats it, and
 * the sender is idempotent. Once the first attempt is older than the window ACS keeps repeatable
 * requests for, ACS refuses the repeat with 412, which is final: the message may or may not have left.
 * India DLT ids are ignored (ACS has no per-request DLT parameters in this API version).
 *
 * Docs (checked):
 * - https://learn.microsoft.com/en-us/rest/api/communication/sms/send
 * - https://learn.microsoft.com/en-us/azure/communication-services/tutorials/hmac-header-tutorial
 * - https://learn.microsoft.com/en-us/rest/api/communication/headers
 * - https://learn.microsoft.com/en-us/rest/api/communication/repeatable-requests (IMF-fixdate, 412 outside the window)
 * - https://learn.microsoft.com/rest/api/communication/errorcodes
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { exchange, record, trimSlash } from "../Http/ProviderHttp.js"
import { type OutboundSms, SendFailure, type SmsSender } from "../Ports/MessageSenders.js"

export interface AzureSmsOptions {
  /** The Communication Services resource's endpoint, e.g. `https://contoso.communication.azure.com`. */
  readonly endpoint: string
  /** The resource's access key, base64 as the portal shows it. */
  readonly accessKey: Redacted.Redacted
  /** How long one request may take, answer included; 10 seconds unless set. */
  readonly timeout?: Duration.DurationInput
}

export const ACS_SMS_API_VERSION = "2021-03-07"
export const ACS_REQUEST_TIMEOUT: Duration.DurationInput = "10 seconds"

const LABEL = "Azure Communication Services"

export interface AcsSignedHeaders {
  readonly "x-ms-date": string
  readonly "x-ms-content-sha256": string
  readonly authorization: string
}

/** The three headers that authenticate an ACS request with an access key. */
export const signAcsRequest = (request: {
  /** base64, as issued. */
  readonly accessKey: string
  readonly method: string
  readonly pathAndQuery: string
  /** The `Host` header's value: host, and port when not the scheme's default. */
  readonly host: string
  /** IMF-fixdate, e.g. `Mon, 01 Apr 2019 06:22:03 GMT`. */
  readonly date: string
  readonly body: string
}): AcsSignedHeaders => {
  const contentHash = crypto.createHash("sha256").update(request.body, "utf8").digest("base64")
  const stringToSign =
    `${request.method.toUpperCase()}\n${request.pathAndQuery}\n${request.date};${request.host};${contentHash}`
  const signature = crypto.createHmac("sha256", Buffer.from(request.accessKey, "base64")).update(stringToSign, "utf8")
    .digest("base64")
  return {
    "x-ms-date": request.date,
    "x-ms-content-sha256": contentHash,
    authorization: `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`
  }
}

/** The JSON body of a send: one recipient, repeatable under our message id. */
export const sendRequestBody = (message: OutboundSms) => ({
  from: message.from,
  smsRecipients: [{
    to: message.to,
    repeatabilityRequestId: message.messageId,
    repeatabilityFirstSent: message.firstAttemptAt.toUTCString()
  }],
  message: message.body,
  smsSendOptions: { enableDeliveryReport: true, tag: message.messageId }
})

const isRetryableStatus = (status: number) => status === 429 || status >= 500

const answer = (status: number, body: unknown): Effect.Effect<{ readonly providerMessageId: string }, SendFailure> => {
  if (status < 200 || status >= 300) {
    const error = record(record(body).error)
    const code = typeof error.code === "string" ? error.code : null
    const text = typeof error.message === "string" ? error.message : undefined
    return Effect.fail(
      new SendFailure({
        retryable: isRetryableStatus(status),
        status,
        code,
        message: `${LABEL} answered ${status}` + (text === undefined ? "" : `: ${text}`)
      })
    )
  }
  const [result] = (Array.isArray(record(body).value) ? record(body).value as Array<unknown> : []).map(record)
  if (result === undefined) {
    return Effect.fail(
      new SendFailure({ retryable: false, status, code: null, message: `${LABEL} answered ${status} without a result` })
    )
  }
  if (result.successful === true && typeof result.messageId === "string") {
    return Effect.succeed({ providerMessageId: result.messageId })
  }
  const recipientStatus = typeof result.httpStatusCode === "number" ? result.httpStatusCode : status
  const text = typeof result.errorMessage === "string" ? result.errorMessage : "no error message"
  return Effect.fail(
    new SendFailure({
      retryable: isRetryableStatus(recipientStatus),
      status: recipientStatus,
      code: String(recipientStatus),
      message: `${LABEL} refused the message (${recipientStatus}): ${text}` +
        (typeof result.repeatabilityResult === "string" ? ` (repeatability ${result.repeatabilityResult})` : "")
    })
  )
}

/** An `SmsSender` sending repeatable requests through Azure Communication Services. */
export const makeAzureSmsSender = (options: AzureSmsOptions): Effect.Effect<SmsSender, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const timeout = options.timeout ?? ACS_REQUEST_TIMEOUT
    const url = new URL(`${trimSlash(options.endpoint)}/sms?api-version=${ACS_SMS_API_VERSION}`)
    const client = (yield* HttpClient.HttpClient).pipe(HttpClient.mapRequest(HttpClientRequest.acceptJson))

    const send = (message: OutboundSms) =>
      Effect.gen(function*() {
        const body = JSON.stringify(sendRequestBody(message))
        const now = yield* Clock.currentTimeMillis
        const headers = signAcsRequest({
          accessKey: Redacted.value(options.accessKey),
          method: "POST",
          pathAndQuery: url.pathname + url.search,
          host: url.host,
          date: new Date(now).toUTCString(),
          body
        })
        return yield* client.execute(
          HttpClientRequest.post(url.href).pipe(
            HttpClientRequest.setHeaders({ ...headers }),
            HttpClientRequest.bodyText(body, "application/json")
          )
        )
      }).pipe(
        exchange(LABEL, timeout),
        Effect.flatMap(({ body, status }) => answer(status, body)),
        Effect.withSpan("AzureSms.send", { attributes: { messageId: message.messageId } })
      )

    const sender: SmsSender = { name: "azure-communication-services", idempotent: true, send }
    return sender
  })

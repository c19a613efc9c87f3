/**
 * The Twilio carrier: outbound calls through Twilio's Programmable Voice REST API (`2010-04-01`).
 *
 * A call is created with inline TwiML that connects its audio to the call's conversation (a
 * bidirectional Media Stream to the runner that owns the call, see `streamTwiml`) and a status
 * callback per session, `{statusCallbackBaseUrl}/api/v1/telephony/twilio/status/{sessionId}`,
 * subscribed to the `initiated`, `ringing`, `answered` and `completed` events. Those callbacks are
 * signed by Twilio (`X-Twilio-Signature`); `verifySignature` checks them and `mapCallStatus` turns
 * their `CallStatus` into provider events.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type { ProviderEventKind } from "@voiceagent/domain/Calls"
import type * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import {
  type Carrier,
  type CarrierCallStatus,
  DialRefused,
  type DialRequest,
  INBOUND_REFUSED_MESSAGE,
  TransferRefused,
  type TransferRequest
} from "../Ports/Telephony.js"

export interface TwilioOptions {
  /** Twilio's REST origin, e.g. `https://api.twilio.com`. */
  readonly baseUrl: string
  readonly accountSid: string
  readonly authToken: Redacted.Redacted
  /** Our public origin, which Twilio posts status callbacks to, e.g. `https://voice.example.com`. */
  readonly statusCallbackBaseUrl: string
  /** How long Twilio lets the callee's phone ring (Twilio's `Timeout`; its default is 60 s). */
  readonly ringTimeoutSeconds?: number
}

export const TWILIO_REQUEST_TIMEOUT: Duration.DurationInput = "10 seconds"

export const STATUS_CALLBACK_EVENTS = ["initiated", "ringing", "answered", "completed"] as const

/** The path, under our public origin, Twilio posts a session's status callbacks to. */
export const statusCallbackPath = (sessionId: string) => `/api/v1/telephony/twilio/status/${sessionId}`

// Twilio's call statuses, for both the Call resource and status callbacks. `canceled` is a call ended
// (by us) before it was answered, so to the call it is an unanswered call.
const phaseOf = (status: string): ProviderEventKind | "dialing" | null => {
  switch (status) {
    case "queued":
    case "initiated":
      return "dialing"
    case "ringing":
      return "ringing"
    case "in-progress":
      return "answered"
    case "busy":
      return "busy"
    case "no-answer":
    case "canceled":
      return "no_answer"
    case "failed":
      return "failed"
    case "completed":
      return "completed"
    default:
      return null
  }
}

/**
 * The provider event for a status callback's `CallStatus`; `null` for statuses that are not events
 * to the call (`queued`, `initiated`) and for any status Twilio may add later.
 */
export const mapCallStatus = (status: string): ProviderEventKind | null => {
  const phase = phaseOf(status)
  return phase === "dialing" ? null : phase
}

const stringField = (body: Option.Option<unknown>, name: string): string | undefined => {
  if (Option.isNone(body) || typeof body.value !== "object" || body.value === null) return undefined
  const value = (body.value as Record<string, unknown>)[name]
  return typeof value === "string" ? value : undefined
}

/**
 * A Call resource's status with Twilio's own times: `end_time` (RFC 2822), and `duration`, the
 * seconds talked, which put the answer that long before the end.
 */
export const callStatusOf = (body: Option.Option<unknown>): CarrierCallStatus => {
  const phase = phaseOf(stringField(body, "status") ?? "") ?? "dialing"
  const ended = Date.parse(stringField(body, "end_time") ?? "")
  const duration = Number(stringField(body, "duration") ?? Number.NaN)
  const endedAt = Number.isNaN(ended) ? undefined : ended
  return {
    phase,
    ...(endedAt === undefined ? {} : { endedAt }),
    ...(endedAt !== undefined && phase === "completed" && Number.isFinite(duration) && duration >= 0
      ? { answeredAt: endedAt - duration * 1000 }
      : {})
  }
}

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&apos;" })[c]!)

/**
 * The inline TwiML of a call with no media server to stream to (a process without one): the agent's
 * greeting, then a minute of open line.
 */
export const greetingTwiml = (greeting: string) =>
  `<Response><Say>${escapeXml(greeting)}</Say><Pause length="60"/></Response>`

/** The path, under our public origin, Twilio posts a session's asynchronous answering-machine detection result to. */
export const amdCallbackPath = (sessionId: string) => `/api/v1/telephony/twilio/amd/${sessionId}`

/** Twilio's `AnsweredBy` values (with `MachineDetection=DetectMessageEnd`). */
export const TWILIO_ANSWERED_BY = [
  "human",
  "machine_start",
  "machine_end_beep",
  "machine_end_silence",
  "machine_end_other",
  "fax",
  "unknown"
] as const

/**
 * Who answered, by Twilio's `AnsweredBy`: a `machine_end_*` comes once the greeting is over (its beep,
 * silence, or neither heard), so a message can be left at once; a fax is a machine no message reaches.
 * `undefined` for a value Twilio does not document.
 */
export const mapAnsweredBy = (
  answeredBy: string
): { readonly answeredBy: "human" | "machine" | "unknown"; readonly messageEnded: boolean } | undefined => {
  switch (answeredBy) {
    case "human":
      return { answeredBy: "human", messageEnded: false }
    case "unknown":
      return { answeredBy: "unknown", messageEnded: false }
    case "machine_start":
    case "fax":
      return { answeredBy: "machine", messageEnded: false }
    case "machine_end_beep":
    case "machine_end_silence":
    case "machine_end_other":
      return { answeredBy: "machine", messageEnded: true }
    default:
      return undefined
  }
}

/** The path, under our public origin, Twilio asks for the next instructions when a call's media stream ends. */
export const streamEndedPath = (sessionId: string) => `/api/v1/telephony/twilio/stream-ended/${sessionId}`

/**
 * The TwiML that connects the call's audio to the conversation (bidirectional Media Streams): the
 * stream goes to the media server of the runner that owns the call, its token in a `<Parameter>`
 * (carriers log URLs, not parameters). Twilio runs the `<Redirect>` only if the stream ends while
 * the call goes on (our side closed it, or the runner went away): we answer with where to stream
 * now, or `<Hangup/>`.
 */
export const streamTwiml = (streamUrl: string, token: string, redirectUrl: string) =>
  `<Response><Connect><Stream url="${escapeXml(streamUrl)}"><Parameter name="token" value="${
    escapeXml(token)
  }"/></Stream>` +
  `</Connect><Redirect method="POST">${escapeXml(redirectUrl)}</Redirect></Response>`

/** What a caller hears when an incoming call is turned away (an empty wallet, the tenant's calls at their limit). */
export { INBOUND_REFUSED_MESSAGE }

/** An incoming call turned away: the short message, then the line is hung up. */
export const refusedTwiml = (message: string = INBOUND_REFUSED_MESSAGE) =>
  `<Response><Say>${escapeXml(message)}</Say><Hangup/></Response>`

/** An incoming call to a number no agent answers: rejected before it is answered (Twilio bills nothing). */
export const REJECT_TWIML = "<Response><Reject/></Response>"

/** The path, under our public origin, of a Twilio number's voice webhook (incoming calls) and its status callback. */
export const incomingCallPath = "/api/v1/telephony/twilio/voice"
export const incomingStatusPath = "/api/v1/telephony/twilio/voice/status"

/** The answer to a stream-ended request: stream again, or hang up. */
export const streamEndedTwiml = (
  route: { readonly streamUrl: string; readonly token: string } | null,
  redirectUrl: string
) => route === null ? "<Response><Hangup/></Response>" : streamTwiml(route.streamUrl, route.token, redirectUrl)

/**
 * The TwiML a transferred call runs in place of its stream: `<Dial>` the number, showing the call's
 * own number as the caller id; when the dialled party hangs up, so does the call.
 */
export const transferTwiml = (to: string, from: string) =>
  `<Response><Dial callerId="${escapeXml(from)}"><Number>${escapeXml(to)}</Number></Dial></Response>`

/**
 * Twilio's `X-Twilio-Signature`: base64 HMAC-SHA1, keyed with the auth token, of the full URL
 * followed by each POST parameter's name and value, by name in case-sensitive order.
 */
export const computeSignature = (authToken: string, url: string, params: Readonly<Record<string, string>>): string => {
  let data = url
  for (const name of Object.keys(params).sort()) data += name + params[name]
  return crypto.createHmac("sha1", authToken).update(data, "utf8").digest("base64")
}

/** Whether `signature` is Twilio's for this request, compared in constant time. */
export const verifySignature = (
  authToken: string,
  url: string,
  params: Readonly<Record<string, string>>,
  signature: string
): boolean => {
  const expected = Buffer.from(computeSignature(authToken, url, params))
  const given = Buffer.from(signature)
  return expected.length === given.length && crypto.timingSafeEqual(expected, given)
}

interface TwilioError {
  readonly code: number | undefined
  readonly message: string | undefined
}

interface TwilioAnswer {
  readonly status: number
  /** The JSON body of a 2xx answer. */
  readonly body: Option.Option<unknown>
  /** Twilio's error fields, for any other answer. */
  readonly error: TwilioError | undefined
}

const readTwilioError = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<TwilioError> =>
  response.json.pipe(
    Effect.map((body): TwilioError => {
      const fields = typeof body === "object" && body !== null ? body as Record<string, unknown> : {}
      return {
        code: typeof fields.code === "number" ? fields.code : undefined,
        message: typeof fields.message === "string" ? fields.message : undefined
      }
    }),
    Effect.orElseSucceed((): TwilioError => ({ code: undefined, message: undefined }))
  )

const describeAnswer = (status: number, error: TwilioError) =>
  `Twilio answered ${status}` +
  (error.message === undefined ? "" : `: ${error.message}`) +
  (error.code === undefined ? "" : ` (code ${error.code})`)

const describeFailure = (error: HttpClientError.HttpClientError | Cause.TimeoutException) =>
  error._tag === "TimeoutException"
    ? `Twilio did not answer within ${Duration.format(Duration.decode(TWILIO_REQUEST_TIMEOUT))}`
    : `Twilio could not be reached: ${error.message}`

const trimSlash = (url: string) => url.replace(/\/+$/, "")

/** A `Carrier` placing calls through Twilio. */
export const makeTwilioCarrier = (options: TwilioOptions): Effect.Effect<Carrier, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const accountPath = `${trimSlash(options.baseUrl)}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}`
    const callPath = (callSid: string) => `${accountPath}/Calls/${encodeURIComponent(callSid)}.json`
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.basicAuth(options.accountSid, options.authToken),
          HttpClientRequest.acceptJson
        )
      )
    )

    /** Sends a request and reads Twilio's answer, within the request timeout. */
    const send = (request: HttpClientRequest.HttpClientRequest) =>
      client.execute(request).pipe(
        Effect.flatMap((response): Effect.Effect<TwilioAnswer> =>
          response.status >= 200 && response.status < 300
            ? Effect.map(Effect.option(response.json), (body) => ({ status: response.status, body, error: undefined }))
            : Effect.map(
              readTwilioError(response),
              (error) => ({ status: response.status, body: Option.none(), error })
            )
        ),
        Effect.timeout(TWILIO_REQUEST_TIMEOUT)
      )

    const dial = (request: DialRequest) =>
      Effect.gen(function*() {
        const form: Array<readonly [string, string]> = [
          ["To", request.to],
          ["From", request.from],
          [
            "Twiml",
            request.media === undefined
              ? greetingTwiml(request.agent.greetMessage)
              : streamTwiml(
                request.media.streamUrl,
                request.media.token,
                `${trimSlash(options.statusCallbackBaseUrl)}${streamEndedPath(request.sessionId)}`
              )
          ],
          ["StatusCallback", `${trimSlash(options.statusCallbackBaseUrl)}${statusCallbackPath(request.sessionId)}`],
          ["StatusCallbackMethod", "POST"],
          ...STATUS_CALLBACK_EVENTS.map((event) => ["StatusCallbackEvent", event] as const)
        ]
        if (options.ringTimeoutSeconds !== undefined) form.push(["Timeout", String(options.ringTimeoutSeconds)])
        if (request.machineDetection === true) {
          // asynchronous: the call connects (and the agent greets) at once; the verdict comes when the greeting ends
          form.push(
            ["MachineDetection", "DetectMessageEnd"],
            ["AsyncAmd", "true"],
            [
              "AsyncAmdStatusCallback",
              `${trimSlash(options.statusCallbackBaseUrl)}${amdCallbackPath(request.sessionId)}`
            ],
            ["AsyncAmdStatusCallbackMethod", "POST"]
          )
        }
        const result = yield* send(
          HttpClientRequest.post(`${accountPath}/Calls.json`).pipe(HttpClientRequest.bodyUrlParams(form))
        ).pipe(Effect.mapError((error) => new DialRefused({ reason: describeFailure(error) })))
        if (result.error !== undefined) {
          return yield* new DialRefused({ reason: describeAnswer(result.status, result.error) })
        }
        const sid = stringField(result.body, "sid")
        if (sid === undefined) {
          return yield* new DialRefused({ reason: `Twilio answered ${result.status} without a call sid` })
        }
        return { providerCallId: sid }
      })

    const hangup = (providerCallId: string) =>
      send(
        HttpClientRequest.post(callPath(providerCallId)).pipe(
          HttpClientRequest.bodyUrlParams([["Status", "completed"]])
        )
      ).pipe(
        Effect.flatMap((result) =>
          result.error === undefined
            ? Effect.void
            : Effect.logWarning("Twilio refused to end a call").pipe(
              Effect.annotateLogs({ callSid: providerCallId, reason: describeAnswer(result.status, result.error) })
            )
        ),
        Effect.catchAll((error) =>
          Effect.logWarning("Twilio hangup failed").pipe(
            Effect.annotateLogs({ callSid: providerCallId, reason: describeFailure(error) })
          )
        )
      )

    // The status is asked for when a call's entity restarts. A 404 means Twilio knows no such call;
    // any other failure, or a status we do not know, says nothing about the call, so it is reported
    // as still dialing: the entity keeps waiting for callbacks and its own timeouts.
    const status = (providerCallId: string) =>
      send(HttpClientRequest.get(callPath(providerCallId))).pipe(
        Effect.flatMap((result): Effect.Effect<Option.Option<CarrierCallStatus>> => {
          if (result.status === 404) return Effect.succeed(Option.none())
          if (result.error !== undefined) {
            return Effect.as(
              Effect.logWarning("Twilio call status unavailable").pipe(
                Effect.annotateLogs({ callSid: providerCallId, reason: describeAnswer(result.status, result.error) })
              ),
              Option.some({ phase: "dialing" as const })
            )
          }
          return Effect.succeed(Option.some(callStatusOf(result.body)))
        }),
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logWarning("Twilio call status unavailable").pipe(
              Effect.annotateLogs({ callSid: providerCallId, reason: describeFailure(error) })
            ),
            Option.some({ phase: "dialing" as const })
          )
        )
      )

    // a call in progress is given new instructions (Twilio's "modify a call in progress"): its stream ends
    // and Twilio dials the number; Twilio refuses (21220) a call that is not in progress
    const transfer = (providerCallId: string, request: TransferRequest) =>
      send(
        HttpClientRequest.post(callPath(providerCallId)).pipe(
          HttpClientRequest.bodyUrlParams([["Twiml", transferTwiml(request.to, request.from)]])
        )
      ).pipe(
        Effect.mapError((error) => new TransferRefused({ reason: describeFailure(error) })),
        Effect.flatMap((result) =>
          result.error === undefined
            ? Effect.void
            : Effect.fail(new TransferRefused({ reason: describeAnswer(result.status, result.error) }))
        )
      )

    const carrier: Carrier = { name: "twilio", machineDetection: true, dial, hangup, status, transfer }
    return carrier
  })

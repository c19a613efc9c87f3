/**
 * The Telnyx carrier: outbound calls through Telnyx's Call Control API (v2).
 *
 * - Dial: `POST {baseUrl}/v2/calls` (Bearer API key) from the Call Control application
 *   (`connection_id`), with the call's audio streamed to the runner that owns the call
 *   (`stream_url` at `TELNYX_MEDIA_PATH`, `stream_track: inbound_track`, bidirectional RTP in PCMU,
 *   the stream's one-use token as `stream_auth_token`), its webhooks sent to
 *   `{webhookBaseUrl}/api/v1/telephony/telnyx/webhook/{sessionId}`, and the ring time as
 *   `timeout_secs`. The call's `call_control_id` is its provider call id.
 * - Hang up: `POST /v2/calls/{call_control_id}/actions/hangup`; a call already over (422, code
 *   90018) is fine.
 * - Transfer: `POST /v2/calls/{call_control_id}/actions/transfer` (`to`, `from`): Telnyx dials the
 *   number and bridges the call there.
 * - Status after a takeover: `GET /v2/calls/{call_control_id}` (`is_alive`, and for a call over its
 *   `end_time` and `call_duration`, the seconds talked).
 *
 * Telnyx ignores a command whose `command_id` it has seen (for the same call): the dial's is the
 * session id and the hang-up's is derived from the call, so a request Telnyx may or may not have
 * received (an outage: no answer, a timeout, a 5xx or a 429) is sent again, twice at most, without
 * placing a second call. Any other answer is Telnyx's word: a 4xx refuses the dial at once.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import {
  type AnswerRequest,
  type Carrier,
  type CarrierCallStatus,
  DialRefused,
  type DialRequest,
  INBOUND_REFUSED_MESSAGE,
  TransferRefused,
  type TransferRequest
} from "../Ports/Telephony.js"
import { telnyxStreamUrl } from "../Voice/TelnyxMedia.js"

export interface TelnyxOptions {
  /** Telnyx's REST origin, e.g. `https://api.telnyx.com`. */
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted
  /** The Call Control application (formerly connection) calls are placed from. */
  readonly connectionId: string
  /** Our public origin, which Telnyx posts the call's webhooks to, e.g. `https://voice.example.com`. */
  readonly webhookBaseUrl: string
  /** How long Telnyx lets the callee's phone ring (`timeout_secs`, 5 to 600; Telnyx's default is 30). */
  readonly ringTimeoutSeconds?: number
  /** The waits before each new try of a request Telnyx did not answer (default 250 ms, then 1 s). */
  readonly retryDelays?: ReadonlyArray<Duration.DurationInput>
}

export const TELNYX_REQUEST_TIMEOUT: Duration.DurationInput = "10 seconds"

const DEFAULT_RETRY_DELAYS: ReadonlyArray<Duration.DurationInput> = ["250 millis", "1 second"]

/** The path, under our public origin, Telnyx posts a session's call webhooks to. */
export const webhookPath = (sessionId: string) => `/api/v1/telephony/telnyx/webhook/${sessionId}`

/** The transfer's `command_id`: one per call (a call is transferred once), so a transfer sent again is ignored. */
export const transferCommandId = (callControlId: string) => `transfer-${callControlId}`

/**
 * How long after asking Telnyx to say `message` the call is hung up: its words at 150 a minute, and
 * a second and a half for the speech to be synthesised and start.
 */
export const refusedHangUpAfter = (message: string): Duration.Duration =>
  Duration.millis(1500 + Math.ceil(message.split(/\s+/).filter((w) => w !== "").length * 400))

/** The hang-up's `command_id`: one per call, so a hang-up sent again is ignored by Telnyx. */
export const hangupCommandId = (callControlId: string) => `hangup-${callControlId}`

/** Telnyx's error body: `{"errors":[{"code","title","detail"}]}`. */
interface TelnyxError {
  readonly code: string | undefined
  readonly title: string | undefined
  readonly detail: string | undefined
}

type Answer =
  | { readonly _tag: "Ok"; readonly status: number; readonly body: unknown }
  /** Telnyx's answer to this request: it will answer the same again. */
  | { readonly _tag: "Refused"; readonly status: number; readonly error: TelnyxError }
  /** Telnyx may not have acted on it: worth sending again. */
  | { readonly _tag: "Outage"; readonly reason: string }

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

const errorOf = (body: unknown): TelnyxError => {
  const [first] = Array.isArray(record(body)["errors"]) ? record(body)["errors"] as Array<unknown> : []
  const fields = record(first)
  const text = (name: string) => {
    const value = fields[name]
    return typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined
  }
  return { code: text("code"), title: text("title"), detail: text("detail") }
}

const describeError = (status: number, error: TelnyxError) =>
  `Telnyx answered ${status}` +
  (error.title === undefined ? "" : `: ${error.title}`) +
  (error.detail === undefined || error.detail === error.title ? "" : ` (${error.detail})`) +
  (error.code === undefined ? "" : ` (code ${error.code})`)

const describeFailure = (error: HttpClientError.HttpClientError | Cause.TimeoutException) =>
  error._tag === "TimeoutException"
    ? `Telnyx did not answer within ${Duration.format(Duration.decode(TELNYX_REQUEST_TIMEOUT))}`
    : `Telnyx could not be reached: ${error.message}`

const isOutage = (status: number) => status >= 500 || status === 408 || status === 429

const trimSlash = (url: string) => url.replace(/\/+$/, "")

/** A call control id in a path: Telnyx's ids (`v3:…`) keep their colon. */
const pathSegment = (id: string) => encodeURIComponent(id).replace(/%3A/gi, ":")

/** A Call resource's status with Telnyx's own times; `dialing` (nothing known) while it is alive. */
export const callStatusOf = (body: unknown): CarrierCallStatus => {
  const data = record(record(body)["data"])
  if (data["is_alive"] !== false) return { phase: "dialing" }
  const ended = typeof data["end_time"] === "string" ? Date.parse(data["end_time"]) : Number.NaN
  const duration = typeof data["call_duration"] === "number" ? data["call_duration"] : Number.NaN
  const endedAt = Number.isNaN(ended) ? undefined : ended
  return {
    phase: "completed",
    ...(endedAt === undefined ? {} : { endedAt }),
    ...(endedAt !== undefined && Number.isFinite(duration) && duration > 0
      ? { answeredAt: endedAt - duration * 1000 }
      : {})
  }
}

/** A `Carrier` placing calls through Telnyx Call Control. */
export const makeTelnyxCarrier = (options: TelnyxOptions): Effect.Effect<Carrier, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const api = `${trimSlash(options.baseUrl)}/v2`
    const delays = options.retryDelays ?? DEFAULT_RETRY_DELAYS
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(HttpClientRequest.bearerToken(options.apiKey), HttpClientRequest.acceptJson)
      )
    )

    /** One request and Telnyx's answer, within the request timeout. */
    const sendOnce = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<Answer> =>
      client.execute(request).pipe(
        Effect.flatMap((response) => {
          const body = Effect.orElseSucceed(response.json, (): unknown => undefined)
          if (response.status >= 200 && response.status < 300) {
            return Effect.map(body, (json): Answer => ({ _tag: "Ok", status: response.status, body: json }))
          }
          return Effect.map(body, (json): Answer =>
            isOutage(response.status)
              ? { _tag: "Outage", reason: describeError(response.status, errorOf(json)) }
              : { _tag: "Refused", status: response.status, error: errorOf(json) })
        }),
        Effect.timeout(TELNYX_REQUEST_TIMEOUT),
        Effect.catchAll((error) => Effect.succeed<Answer>({ _tag: "Outage", reason: describeFailure(error) }))
      )

    /** Sends again after an outage, with the same body (and so the same command id). */
    const send = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<Answer> =>
      Effect.gen(function*() {
        let answer = yield* sendOnce(request)
        for (const delay of delays) {
          if (answer._tag !== "Outage") return answer
          yield* Effect.logDebug("Telnyx did not answer: sending again").pipe(
            Effect.annotateLogs({ reason: answer.reason })
          )
          yield* Effect.sleep(delay)
          answer = yield* sendOnce(request)
        }
        return answer
      })

    const dial = (request: DialRequest) =>
      Effect.gen(function*() {
        if (request.media === undefined) {
          // Telnyx has no inline instructions to fall back on: a call with no stream would be silence
          return yield* new DialRefused({ reason: "no media server in this process to stream a Telnyx call to" })
        }
        const body: Record<string, unknown> = {
          connection_id: options.connectionId,
          to: request.to,
          from: request.from,
          webhook_url: `${trimSlash(options.webhookBaseUrl)}${webhookPath(request.sessionId)}`,
          webhook_url_method: "POST",
          command_id: request.sessionId,
          ...streamParams(request.media)
        }
        // the call connects (and the agent greets) at once; call.machine.* webhooks bring the verdict and the beep
        if (request.machineDetection === true) body["answering_machine_detection"] = "detect_beep"
        if (options.ringTimeoutSeconds !== undefined) {
          body["timeout_secs"] = Math.min(600, Math.max(5, Math.round(options.ringTimeoutSeconds)))
        }
        const answer = yield* send(HttpClientRequest.post(`${api}/calls`).pipe(HttpClientRequest.bodyUnsafeJson(body)))
        switch (answer._tag) {
          case "Outage":
            return yield* new DialRefused({ reason: answer.reason })
          case "Refused":
            return yield* new DialRefused({ reason: describeError(answer.status, answer.error) })
          case "Ok": {
            const id = record(record(answer.body)["data"])["call_control_id"]
            if (typeof id !== "string" || id === "") {
              return yield* new DialRefused({ reason: `Telnyx answered ${answer.status} without a call_control_id` })
            }
            return { providerCallId: id }
          }
        }
      })

    /** A Call Control command on a call (`POST /v2/calls/{call_control_id}/actions/{action}`). */
    const command = (providerCallId: string, action: string, body: Record<string, unknown>) =>
      send(
        HttpClientRequest.post(`${api}/calls/${pathSegment(providerCallId)}/actions/${action}`).pipe(
          HttpClientRequest.bodyUnsafeJson(body)
        )
      )

    const hangup = (providerCallId: string) =>
      command(providerCallId, "hangup", { command_id: hangupCommandId(providerCallId) }).pipe(
        Effect.flatMap((answer) => {
          switch (answer._tag) {
            case "Ok":
              return Effect.void
            case "Refused":
              return answer.error.code === "90018"
                ? Effect.logDebug("Telnyx call already over").pipe(
                  Effect.annotateLogs({ callControlId: providerCallId })
                )
                : Effect.logWarning("Telnyx refused to end a call").pipe(
                  Effect.annotateLogs({
                    callControlId: providerCallId,
                    reason: describeError(answer.status, answer.error)
                  })
                )
            case "Outage":
              return Effect.logWarning("Telnyx hangup failed").pipe(
                Effect.annotateLogs({ callControlId: providerCallId, reason: answer.reason })
              )
          }
        })
      )

    // Asked when a call's entity restarts. Telnyx forgets a call some minutes after its end: a 404
    // (or 90015, not a valid call control id) means the call is over, when Telnyx no longer says.
    // Any other failure says nothing about the call: it is reported as still dialing, and the
    // entity keeps waiting for webhooks and its own timeouts.
    const status = (providerCallId: string) =>
      send(HttpClientRequest.get(`${api}/calls/${pathSegment(providerCallId)}`)).pipe(
        Effect.flatMap((answer): Effect.Effect<Option.Option<CarrierCallStatus>> => {
          switch (answer._tag) {
            case "Ok":
              return Effect.succeed(Option.some(callStatusOf(answer.body)))
            case "Refused":
              if (answer.status === 404 || answer.error.code === "90015") return Effect.succeed(Option.none())
              return Effect.as(
                Effect.logWarning("Telnyx call status unavailable").pipe(
                  Effect.annotateLogs({
                    callControlId: providerCallId,
                    reason: describeError(answer.status, answer.error)
                  })
                ),
                Option.some({ phase: "dialing" as const })
              )
            case "Outage":
              return Effect.as(
                Effect.logWarning("Telnyx call status unavailable").pipe(
                  Effect.annotateLogs({ callControlId: providerCallId, reason: answer.reason })
                ),
                Option.some({ phase: "dialing" as const })
              )
          }
        })
      )

    /** The stream settings of a dial and of an answer: the call's audio to the runner that owns it. */
    const streamParams = (media: { readonly streamUrl: string; readonly token: string }) => ({
      stream_url: telnyxStreamUrl(media.streamUrl),
      stream_track: "inbound_track",
      stream_codec: "PCMU",
      stream_bidirectional_mode: "rtp",
      stream_bidirectional_codec: "PCMU",
      stream_auth_token: media.token
    })

    // An incoming call is answered with the same stream as a dial, and its further webhooks sent to
    // the session's own URL (the application's URL only hears of it first)
    const answer = (request: AnswerRequest) =>
      Effect.gen(function*() {
        if (request.media === undefined) {
          return yield* new DialRefused({ reason: "no media server in this process to stream a Telnyx call to" })
        }
        const result = yield* command(request.providerCallId, "answer", {
          command_id: `answer-${request.sessionId}`,
          webhook_url: `${trimSlash(options.webhookBaseUrl)}${webhookPath(request.sessionId)}`,
          webhook_url_method: "POST",
          ...streamParams(request.media)
        })
        switch (result._tag) {
          case "Outage":
            return yield* new DialRefused({ reason: result.reason })
          case "Refused":
            return yield* new DialRefused({ reason: describeError(result.status, result.error) })
          case "Ok":
            return
        }
      })

    const logRefusal = (providerCallId: string, reason: string, what: string, result: Answer) =>
      Effect.logWarning(`Telnyx did not ${what} a call`).pipe(
        Effect.annotateLogs({
          callControlId: providerCallId,
          reason,
          problem: result._tag === "Outage"
            ? result.reason
            : result._tag === "Refused"
            ? describeError(result.status, result.error)
            : "?"
        })
      )

    /**
     * Turns an incoming call away (funds, concurrency) as Twilio's `<Say>` then `<Hangup/>` does: the
     * call is answered without a stream, told `INBOUND_REFUSED_MESSAGE` by Telnyx's own speech
     * (`speak`), and hung up once that is said (`refusedHangUpAfter`). A call that cannot be answered is
     * rejected instead (the caller hears busy). The hang-up waits in a fiber of its own: the webhook
     * that brought the call is answered at once; a process that stops meanwhile leaves the call to end
     * when the caller hangs up.
     */
    const refuse = (providerCallId: string, reason: string) =>
      Effect.gen(function*() {
        const answered = yield* command(providerCallId, "answer", { command_id: `refuse-answer-${providerCallId}` })
        if (answered._tag !== "Ok") {
          const rejected = yield* command(providerCallId, "reject", {
            cause: "USER_BUSY",
            command_id: `reject-${providerCallId}`
          })
          if (rejected._tag !== "Ok") yield* logRefusal(providerCallId, reason, "reject", rejected)
          return
        }
        const spoken = yield* command(providerCallId, "speak", {
          payload: INBOUND_REFUSED_MESSAGE,
          payload_type: "text",
          voice: "female",
          language: "en-US",
          command_id: `refuse-speak-${providerCallId}`
        })
        if (spoken._tag !== "Ok") {
          yield* logRefusal(providerCallId, reason, "speak to", spoken)
          return yield* hangup(providerCallId)
        }
        yield* Effect.forkDaemon(
          Effect.sleep(refusedHangUpAfter(INBOUND_REFUSED_MESSAGE)).pipe(Effect.zipRight(hangup(providerCallId)))
        )
      })

    // `streaming_start` with the stream settings of a dial: the call's audio to the runner that owns it now
    const restream = (providerCallId: string, media: { readonly streamUrl: string; readonly token: string }) =>
      command(providerCallId, "streaming_start", streamParams(media)).pipe(
        Effect.flatMap((answer) =>
          answer._tag === "Ok" ? Effect.void : logRefusal(providerCallId, "resumed by a new owner", "restream", answer)
        )
      )

    // Call Control's `transfer`: Telnyx dials `to` and bridges the call to it; the platform's stream ends
    const transfer = (providerCallId: string, request: TransferRequest) =>
      command(providerCallId, "transfer", {
        to: request.to,
        from: request.from,
        command_id: transferCommandId(providerCallId)
      }).pipe(
        Effect.flatMap((answer) => {
          switch (answer._tag) {
            case "Ok":
              return Effect.void
            case "Refused":
              return Effect.fail(new TransferRefused({ reason: describeError(answer.status, answer.error) }))
            case "Outage":
              return Effect.fail(new TransferRefused({ reason: answer.reason }))
          }
        })
      )

    const carrier: Carrier = {
      name: "telnyx",
      machineDetection: true,
      dial,
      hangup,
      status,
      answer,
      refuse,
      transfer,
      restream
    }
    return carrier
  })

/**
 * A fake of Telnyx's Call Control API (v2) on a loopback port, for tests: dial (`POST /v2/calls`), retrieve a call's
 * status (`GET /v2/calls/{call_control_id}`), hang up (`POST /v2/calls/{call_control_id}/actions/hangup`), answer or
 * reject an incoming call (`…/actions/answer`, `…/actions/reject`; `originate` brings one, with its signed
 * `call.initiated`), `transfer`, `send_dtmf`, `speak` and `streaming_start` on an answered call, with Telnyx's
 * documented JSON shapes, Bearer authentication, parameter validation, `command_id` deduplication and error bodies
 * (`{"errors":[{"code","title","detail"}]}`). Every request is recorded; a test can queue faults (an error answer, a
 * hung or reset connection, a delay), move a call along (answered, hung up with a cause), and build or deliver the Call
 * Control webhooks Telnyx would post to the call's `webhook_url`, signed with the fake's own Ed25519 key pair
 * (`publicKey` is what the platform is configured with, as Mission Control shows it: base64 of the raw 32 bytes).
 *
 * Times (a call's start, answer and end, a webhook's `occurred_at` and `telnyx-timestamp`) come from
 * Effect's `Clock` where the fake is built, so they agree with the code under test on the TestClock.
 * What Telnyx does with a repeated `command_id` is not documented beyond "ignored": the fake answers
 * it with the call the first command made, and places nothing.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import type * as http from "node:http"
import { makeTelnyxCarrier, type TelnyxOptions } from "../Telephony/TelnyxCarrier.js"
import { SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from "../Telephony/TelnyxWebhooks.js"
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

export interface RecordedRequest {
  readonly method: string
  /** The path and query string. */
  readonly path: string
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  /** The parsed JSON body; undefined when there was none or it was not JSON. */
  readonly body: unknown
}

export type HangupCause =
  | "call_rejected"
  | "normal_clearing"
  | "originator_cancel"
  | "timeout"
  | "time_limit"
  | "user_busy"
  | "not_found"
  | "no_answer"
  | "unspecified"

export interface FakeCall {
  readonly callControlId: string
  readonly callLegId: string
  readonly callSessionId: string
  readonly connectionId: string
  readonly to: string
  readonly from: string
  readonly state: "initiated" | "answered" | "hangup"
  /** `incoming` for a call `originate` brought; `outgoing` (unless set) for a dial. */
  readonly direction?: "incoming" | "outgoing" | undefined
  /** The dial's parameters as sent (an incoming call's answer's). */
  readonly dial: Readonly<Record<string, unknown>>
  readonly webhookUrl: string | undefined
  readonly streamUrl: string | undefined
  readonly streamAuthToken: string | undefined
  readonly timeoutSecs: number
  readonly commandId: string | undefined
  readonly startedAt: Date
  readonly answeredAt?: Date | undefined
  readonly endedAt?: Date | undefined
  readonly hangupCause?: HangupCause | undefined
  readonly hangupSource?: "caller" | "callee" | "unknown" | undefined
  /** How many hang-up commands changed it (a repeated `command_id` does not). */
  readonly hangups: number
  /** `transfer` commands taken (a repeated `command_id` is not), in order. */
  readonly transfers?: ReadonlyArray<{ readonly to: string; readonly from: string | undefined; readonly at: Date }>
  /** Keys sent by `send_dtmf`, in order (its `w`/`W` pauses left out). */
  readonly dtmfSent?: string
  /** Texts `speak` was asked to say, in order. */
  readonly spoken?: ReadonlyArray<string>
  /** How many `streaming_start` commands moved its stream (to `streamUrl`). */
  readonly streamStarts?: number
}

/** A webhook as Telnyx would post it: its URL, raw body and headers. */
export interface Webhook {
  readonly url: string
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
}

export interface WebhookOptions {
  /** The signature's timestamp (Unix seconds); now by the fake's clock unless given. */
  readonly timestamp?: number
  /** The event's id; a fresh one unless given (a redelivery keeps its id). */
  readonly id?: string
  /** Fields added to (or replacing) the payload's. */
  readonly payload?: Readonly<Record<string, unknown>>
}

export interface FakeTelnyxServer {
  /** The origin to use as the carrier's `baseUrl`. */
  readonly url: string
  readonly apiKey: string
  readonly connectionId: string
  /** The webhook signing key's public half, base64 of the raw 32 bytes (`TELNYX_PUBLIC_KEY`). */
  readonly publicKey: string
  /** Signs like Telnyx (for tests that build their own webhooks). */
  readonly sign: (timestamp: string, body: string | Uint8Array) => string
  /** Every request received so far, in order. */
  readonly requests: () => ReadonlyArray<RecordedRequest>
  /** Waits until at least `count` requests were received; dies after `millis` of real time (30 s unless given). */
  readonly awaitRequests: (count: number, millis?: number) => Effect.Effect<void>
  /** Queues a fault for the next request not yet answered (one fault per request, in order). */
  readonly failNext: (fault: HttpFault) => void
  readonly call: (callControlId: string) => FakeCall | undefined
  /** Every call placed so far, in order, as it is now. */
  readonly createdCalls: () => ReadonlyArray<FakeCall>
  /** The callee answers. */
  readonly answer: (callControlId: string) => void
  /** The call ends with this cause (`normal_clearing` unless given), by the callee unless said. */
  readonly hangUp: (callControlId: string, cause?: HangupCause, source?: "caller" | "callee" | "unknown") => void
  /** The webhook Telnyx would post for this event of the call, signed. */
  readonly webhook: (callControlId: string, eventType: string, options?: WebhookOptions) => Webhook
  /** Posts `webhook(…)` to the call's `webhook_url`; answers the HTTP status. */
  readonly deliver: (callControlId: string, eventType: string, options?: WebhookOptions) => Effect.Effect<number, Error>
  /** Posts a webhook as it is (a tampered or replayed one); answers the HTTP status. */
  readonly post: (webhook: Webhook) => Effect.Effect<number, Error>
  /**
   * An incoming call from `from` to `to` on the Call Control application whose webhook URL is
   * `webhookUrl`: the call is parked (`initiated`, direction `incoming`) until the platform answers or
   * rejects it. Post its `call.initiated` with `deliver(callControlId, "call.initiated")`.
   */
  readonly incoming: (options: { readonly webhookUrl: string; readonly from: string; readonly to: string }) => FakeCall
}

export interface FakeTelnyxOptions {
  readonly apiKey?: string
  readonly connectionId?: string
}

export const DEFAULT_API_KEY = "KEY0123456789ABCDEF_fake-telnyx"
export const DEFAULT_CONNECTION_ID = "1494404757140276705"

const CALLS_PATH = /^\/v2\/calls$/
const CALL_PATH = /^\/v2\/calls\/([^/]+)$/
const HANGUP_PATH = /^\/v2\/calls\/([^/]+)\/actions\/hangup$/
const ANSWER_PATH = /^\/v2\/calls\/([^/]+)\/actions\/answer$/
const REJECT_PATH = /^\/v2\/calls\/([^/]+)\/actions\/reject$/
const COMMAND_PATH = /^\/v2\/calls\/([^/]+)\/actions\/(transfer|send_dtmf|speak|streaming_start)$/
const E164 = /^\+[1-9]\d{1,14}$/

const telnyxError = (code: string, title: string, detail: string, pointer?: string) => ({
  errors: [{ code, title, detail, ...(pointer === undefined ? {} : { source: { pointer } }) }]
})

/** The event types the fake builds webhooks for, and the `state` each payload carries. */
const STATES: Readonly<Record<string, string>> = {
  "call.initiated": "parked",
  "call.answered": "answered",
  "call.hangup": "hangup",
  "streaming.started": "streaming",
  "streaming.stopped": "streaming",
  "streaming.failed": "streaming"
}

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const make = (options: FakeTelnyxOptions = {}): Effect.Effect<FakeTelnyxServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const apiKey = options.apiKey ?? DEFAULT_API_KEY
    const connectionId = options.connectionId ?? DEFAULT_CONNECTION_ID
    const keys = crypto.generateKeyPairSync("ed25519")
    const publicKey = keys.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("base64")
    const recorded: Array<RecordedRequest> = []
    const waiters = makeWaiters("FakeTelnyx")
    const { sleep, wakeAll } = makeSleeper()
    const faults: Array<HttpFault> = []
    const calls = new Map<string, FakeCall>()
    const byCommand = new Map<string, string>()
    const hangupCommands = new Set<string>()
    const actionCommands = new Set<string>()
    const clock = yield* Effect.clock
    const now = () => new Date(clock.unsafeCurrentTimeMillis())

    const callJson = (call: FakeCall) => {
      const alive = call.state !== "hangup"
      const end = call.endedAt ?? now()
      return {
        data: {
          record_type: "call",
          call_control_id: call.callControlId,
          call_leg_id: call.callLegId,
          call_session_id: call.callSessionId,
          is_alive: alive,
          // the seconds talked, from the answer
          call_duration: call.answeredAt === undefined
            ? 0
            : Math.round((end.getTime() - call.answeredAt.getTime()) / 1000),
          start_time: call.startedAt.toISOString(),
          ...(alive ? {} : { end_time: end.toISOString() })
        }
      }
    }

    /** The dial's problems, in Telnyx's words (422, one error a field, the first reported). */
    const validateDial = (body: Readonly<Record<string, unknown>>) => {
      const invalid = (pointer: string, detail: string) => ({
        status: 422,
        body: telnyxError("10015", "Invalid value", detail, pointer)
      })
      const string = (name: string) => typeof body[name] === "string" ? body[name] as string : undefined
      if (string("connection_id") === undefined) return invalid("/connection_id", "connection_id is required")
      if (string("connection_id") !== connectionId) {
        return invalid("/connection_id", "The connection_id is not a Call Control application of this account")
      }
      if (string("to") === undefined || !E164.test(string("to")!)) {
        return invalid("/to", "to must be a +E.164 number or a SIP URI")
      }
      if (string("from") === undefined || !E164.test(string("from")!)) {
        return invalid("/from", "from must be a +E.164 number")
      }
      const webhook = string("webhook_url")
      if (webhook !== undefined && !/^https?:\/\//.test(webhook)) {
        return invalid("/webhook_url", "webhook_url must be an http(s) URL")
      }
      if (body["webhook_url_method"] !== undefined && !["POST", "GET"].includes(body["webhook_url_method"] as string)) {
        return invalid("/webhook_url_method", "webhook_url_method must be POST or GET")
      }
      const stream = string("stream_url")
      if (stream !== undefined && !/^wss?:\/\/[^/]+/.test(stream)) {
        return invalid("/stream_url", "stream_url must be a ws(s):// URL")
      }
      const oneOf = (name: string, values: ReadonlyArray<string>) =>
        body[name] !== undefined && !values.includes(body[name] as string)
          ? invalid(`/${name}`, `${name} must be one of ${values.join(", ")}`)
          : undefined
      const choice = oneOf("stream_track", ["inbound_track", "outbound_track", "both_tracks"]) ??
        oneOf("stream_bidirectional_mode", ["mp3", "rtp"]) ??
        oneOf("stream_bidirectional_codec", ["PCMU", "PCMA", "G722", "OPUS", "AMR-WB", "L16"]) ??
        oneOf("stream_codec", ["PCMU", "PCMA", "G722", "OPUS", "AMR-WB", "L16", "default"]) ??
        oneOf("answering_machine_detection", [
          "premium",
          "detect",
          "detect_beep",
          "detect_words",
          "greeting_end",
          "disabled"
        ])
      if (choice !== undefined) return choice
      const token = body["stream_auth_token"]
      if (token !== undefined && (typeof token !== "string" || token.length > 4000)) {
        return invalid("/stream_auth_token", "stream_auth_token must be a string of at most 4000 characters")
      }
      const timeout = body["timeout_secs"]
      if (
        timeout !== undefined && (!Number.isInteger(timeout) || (timeout as number) < 5 || (timeout as number) > 600)
      ) {
        return invalid("/timeout_secs", "timeout_secs must be an integer from 5 to 600")
      }
      const command = body["command_id"]
      if (command !== undefined && typeof command !== "string") {
        return invalid("/command_id", "command_id must be a string")
      }
      return undefined
    }

    /** Answers a request that arrived without a fault, as Telnyx would. */
    const route = (
      method: string,
      pathname: string,
      authorization: string | undefined,
      body: unknown
    ): { status: number; body: unknown } => {
      if (authorization !== `Bearer ${apiKey}`) {
        return {
          status: 401,
          body: telnyxError("10009", "Authentication failed", "Could not understand the provided credentials.")
        }
      }
      const notFound = {
        status: 404,
        body: telnyxError(
          "10005",
          "Resource not found",
          `The requested resource or URL could not be found: ${pathname}`
        )
      }
      if (CALLS_PATH.test(pathname)) {
        if (method !== "POST") {
          return { status: 405, body: telnyxError("10006", "Method not allowed", `${method} is not allowed here`) }
        }
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          return {
            status: 400,
            body: telnyxError("10002", "Invalid request", "The request body must be a JSON object")
          }
        }
        const params = body as Readonly<Record<string, unknown>>
        const problem = validateDial(params)
        if (problem !== undefined) return problem
        const commandId = params["command_id"] as string | undefined
        const seen = commandId === undefined ? undefined : byCommand.get(commandId)
        if (seen !== undefined) return { status: 200, body: callJson(calls.get(seen)!) }
        const call: FakeCall = {
          callControlId: `v3:${crypto.randomBytes(24).toString("base64url")}`,
          callLegId: crypto.randomUUID(),
          callSessionId: crypto.randomUUID(),
          connectionId,
          to: params["to"] as string,
          from: params["from"] as string,
          state: "initiated",
          dial: params,
          webhookUrl: params["webhook_url"] as string | undefined,
          streamUrl: params["stream_url"] as string | undefined,
          streamAuthToken: params["stream_auth_token"] as string | undefined,
          timeoutSecs: (params["timeout_secs"] as number | undefined) ?? 30,
          commandId,
          startedAt: now(),
          hangups: 0
        }
        calls.set(call.callControlId, call)
        if (commandId !== undefined) byCommand.set(commandId, call.callControlId)
        return { status: 200, body: callJson(call) }
      }
      const action = ANSWER_PATH.exec(pathname) ?? REJECT_PATH.exec(pathname)
      if (action !== null) {
        if (method !== "POST") {
          return { status: 405, body: telnyxError("10006", "Method not allowed", `${method} is not allowed here`) }
        }
        const call = calls.get(decodeURIComponent(action[1]!))
        if (call === undefined) {
          return {
            status: 422,
            body: telnyxError("90015", "Invalid Call Control ID", "The call_control_id provided was not valid.")
          }
        }
        const params = record(body)
        const commandId = params["command_id"]
        const key = typeof commandId === "string" ? `${call.callControlId}|${commandId}` : undefined
        if (key !== undefined && actionCommands.has(key)) return { status: 200, body: { data: { result: "ok" } } }
        if (call.state === "hangup") {
          return {
            status: 422,
            body: telnyxError(
              "90018",
              "Call has already ended",
              "This call is no longer active and can't receive commands."
            )
          }
        }
        if (call.state !== "initiated" || call.direction !== "incoming") {
          return {
            status: 422,
            body: telnyxError(
              "90034",
              "Call is not in an answerable state",
              "Only a parked incoming call can be answered or rejected."
            )
          }
        }
        if (pathname.endsWith("/reject")) {
          const cause = params["cause"]
          if (cause !== "CALL_REJECTED" && cause !== "USER_BUSY") {
            return {
              status: 422,
              body: telnyxError("10015", "Invalid value", "cause must be CALL_REJECTED or USER_BUSY", "/cause")
            }
          }
          if (key !== undefined) actionCommands.add(key)
          calls.set(call.callControlId, {
            ...call,
            state: "hangup",
            endedAt: now(),
            hangupCause: cause === "USER_BUSY" ? "user_busy" : "call_rejected",
            hangupSource: "callee"
          })
          return { status: 200, body: { data: { result: "ok" } } }
        }
        // the answer's stream settings are the dial's (without the dial's own fields)
        const problem = validateDial({
          ...params,
          connection_id: connectionId,
          to: call.to,
          from: call.from,
          timeout_secs: undefined
        })
        if (problem !== undefined) return problem
        if (key !== undefined) actionCommands.add(key)
        calls.set(call.callControlId, {
          ...call,
          state: "answered",
          answeredAt: now(),
          dial: params,
          webhookUrl: typeof params["webhook_url"] === "string" ? params["webhook_url"] : call.webhookUrl,
          streamUrl: params["stream_url"] as string | undefined,
          streamAuthToken: params["stream_auth_token"] as string | undefined
        })
        return { status: 200, body: { data: { result: "ok" } } }
      }
      const hangup = HANGUP_PATH.exec(pathname)
      if (hangup !== null) {
        if (method !== "POST") {
          return { status: 405, body: telnyxError("10006", "Method not allowed", `${method} is not allowed here`) }
        }
        const call = calls.get(decodeURIComponent(hangup[1]!))
        if (call === undefined) {
          return {
            status: 422,
            body: telnyxError("90015", "Invalid Call Control ID", "The call_control_id provided was not valid.")
          }
        }
        const commandId = record(body)["command_id"]
        const key = typeof commandId === "string" ? `${call.callControlId}|${commandId}` : undefined
        if (key !== undefined && hangupCommands.has(key)) return { status: 200, body: { data: { result: "ok" } } }
        if (call.state === "hangup") {
          return {
            status: 422,
            body: telnyxError(
              "90018",
              "Call has already ended",
              "This call is no longer active and can't receive commands."
            )
          }
        }
        if (key !== undefined) hangupCommands.add(key)
        calls.set(call.callControlId, {
          ...call,
          state: "hangup",
          endedAt: now(),
          hangupCause: call.state === "answered" ? "normal_clearing" : "originator_cancel",
          hangupSource: "caller",
          hangups: call.hangups + 1
        })
        return { status: 200, body: { data: { result: "ok" } } }
      }
      const command = COMMAND_PATH.exec(pathname)
      if (command !== null) {
        if (method !== "POST") {
          return { status: 405, body: telnyxError("10006", "Method not allowed", `${method} is not allowed here`) }
        }
        const call = calls.get(decodeURIComponent(command[1]!))
        if (call === undefined) {
          return {
            status: 422,
            body: telnyxError("90015", "Invalid Call Control ID", "The call_control_id provided was not valid.")
          }
        }
        const fields = record(body)
        const commandId = fields["command_id"]
        const key = typeof commandId === "string" ? `${call.callControlId}|${command[2]}|${commandId}` : undefined
        if (key !== undefined && hangupCommands.has(key)) return { status: 200, body: { data: { result: "ok" } } }
        if (call.state !== "answered") {
          return {
            status: 422,
            body: telnyxError(
              "90018",
              "Call has already ended",
              "This call is no longer active and can't receive commands."
            )
          }
        }
        if (command[2] === "transfer") {
          const to = fields["to"]
          const from = fields["from"]
          if (typeof to !== "string" || !/^(\+[1-9]\d{1,14}|sips?:.+)$/.test(to)) {
            return {
              status: 422,
              body: telnyxError("10032", "Invalid value for to", "to must be an E.164 number or a SIP URI.")
            }
          }
          if (key !== undefined) hangupCommands.add(key)
          calls.set(call.callControlId, {
            ...call,
            transfers: [...(call.transfers ?? []), { to, from: typeof from === "string" ? from : undefined, at: now() }]
          })
        } else if (command[2] === "streaming_start") {
          // the stream settings of a dial, `stream_url` required
          if (typeof fields["stream_url"] !== "string") {
            return { status: 422, body: telnyxError("10015", "Invalid value", "stream_url is required", "/stream_url") }
          }
          const problem = validateDial({ ...fields, connection_id: connectionId, to: call.to, from: call.from })
          if (problem !== undefined) return problem
          if (key !== undefined) hangupCommands.add(key)
          calls.set(call.callControlId, {
            ...call,
            streamUrl: fields["stream_url"] as string,
            streamAuthToken: fields["stream_auth_token"] as string | undefined,
            streamStarts: (call.streamStarts ?? 0) + 1
          })
        } else if (command[2] === "speak") {
          // Telnyx's speak: `payload` and `voice` required; `language` with the basic voices (male, female)
          const payload = fields["payload"]
          const voice = fields["voice"]
          if (typeof payload !== "string" || payload.length === 0 || payload.length > 3000) {
            return {
              status: 422,
              body: telnyxError("10015", "Invalid value", "payload must be 1 to 3000 characters", "/payload")
            }
          }
          if (typeof voice !== "string" || voice.length === 0) {
            return { status: 422, body: telnyxError("10015", "Invalid value", "voice is required", "/voice") }
          }
          if ((voice === "male" || voice === "female") && typeof fields["language"] !== "string") {
            return {
              status: 422,
              body: telnyxError(
                "10015",
                "Invalid value",
                "language is required with the male and female voices",
                "/language"
              )
            }
          }
          if (key !== undefined) hangupCommands.add(key)
          calls.set(call.callControlId, { ...call, spoken: [...(call.spoken ?? []), payload] })
        } else {
          const digits = fields["digits"]
          const duration = fields["duration_millis"]
          if (typeof digits !== "string" || !/^[0-9*#A-DwW]{1,64}$/.test(digits)) {
            return {
              status: 422,
              body: telnyxError("10032", "Invalid value for digits", "digits may hold 0-9, *, #, A-D, w and W.")
            }
          }
          if (duration !== undefined && (typeof duration !== "number" || duration < 100 || duration > 500)) {
            return {
              status: 422,
              body: telnyxError("10032", "Invalid value for duration_millis", "duration_millis must be 100 to 500.")
            }
          }
          if (key !== undefined) hangupCommands.add(key)
          calls.set(call.callControlId, { ...call, dtmfSent: (call.dtmfSent ?? "") + digits.replace(/[wW]/g, "") })
        }
        return { status: 200, body: { data: { result: "ok" } } }
      }
      const one = CALL_PATH.exec(pathname)
      if (one !== null) {
        if (method !== "GET") {
          return { status: 405, body: telnyxError("10006", "Method not allowed", `${method} is not allowed here`) }
        }
        const call = calls.get(decodeURIComponent(one[1]!))
        return call === undefined ? notFound : { status: 200, body: callJson(call) }
      }
      return notFound
    }

    const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
      const raw = await readRequest(request)
      const parsed = raw.rawBody === "" ? undefined : parseJson(raw.rawBody)
      recorded.push({
        method: raw.method,
        path: raw.path,
        authorization: raw.headers["authorization"],
        contentType: raw.headers["content-type"],
        body: parsed?.ok === true ? parsed.value : undefined
      })
      waiters.wake()
      const fault = faults.shift()
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") return void request.socket.destroy()
      if (fault?._tag === "Respond") {
        return sendJson(
          response,
          fault.status,
          fault.body ?? telnyxError("10007", "Unexpected error", "An unexpected error occured.")
        )
      }
      if (fault?._tag === "Delay") await sleep(fault.millis)
      if (parsed !== undefined && !parsed.ok) {
        return sendJson(response, 400, telnyxError("10002", "Invalid request", "The request body is not valid JSON"))
      }
      const answer = route(
        raw.method,
        new URL(raw.path, "http://localhost").pathname,
        raw.headers["authorization"],
        parsed?.ok ? parsed.value : undefined
      )
      if (!response.destroyed) sendJson(response, answer.status, answer.body)
    }

    const port = yield* listen(
      httpServer(
        handle,
        (response, error) => sendJson(response, 500, telnyxError("10007", "Unexpected error", String(error)))
      ),
      wakeAll
    )

    const getCall = (id: string) => {
      const call = calls.get(id)
      if (call === undefined) throw new Error(`FakeTelnyx knows no call ${id}`)
      return call
    }

    const sign = (timestamp: string, body: string | Uint8Array) => signWebhook(keys.privateKey, timestamp, body)

    const webhook = (id: string, eventType: string, webhookOptions: WebhookOptions = {}): Webhook => {
      const call = getCall(id)
      if (call.webhookUrl === undefined) throw new Error(`call ${id} has no webhook_url`)
      const at = now()
      const payload: Record<string, unknown> = {
        call_control_id: call.callControlId,
        call_leg_id: call.callLegId,
        call_session_id: call.callSessionId,
        connection_id: call.connectionId,
        client_state: null,
        from: call.from,
        to: call.to,
        direction: call.direction ?? "outgoing",
        state: STATES[eventType] ?? "unknown",
        start_time: call.startedAt.toISOString()
      }
      if (eventType === "call.hangup") {
        Object.assign(payload, {
          end_time: (call.endedAt ?? at).toISOString(),
          hangup_cause: call.hangupCause ?? "normal_clearing",
          hangup_source: call.hangupSource ?? "unknown",
          sip_hangup_cause: call.hangupCause === "user_busy"
            ? "486"
            : call.hangupCause === "call_rejected"
            ? "603"
            : "200"
        })
      }
      if (eventType.startsWith("streaming.")) {
        Object.assign(payload, { stream_url: call.streamUrl, stream_id: crypto.randomUUID(), stream_type: "websocket" })
      }
      Object.assign(payload, webhookOptions.payload)
      const body = JSON.stringify({
        data: {
          record_type: "event",
          event_type: eventType,
          id: webhookOptions.id ?? crypto.randomUUID(),
          occurred_at: (eventType === "call.answered"
            ? call.answeredAt ?? at
            : eventType === "call.hangup"
            ? call.endedAt ?? at
            : at).toISOString(),
          payload
        },
        meta: { attempt: 1, delivered_to: call.webhookUrl }
      })
      const timestamp = String(webhookOptions.timestamp ?? Math.floor(at.getTime() / 1000))
      return {
        url: call.webhookUrl,
        body,
        headers: {
          "content-type": "application/json",
          "user-agent": "telnyx-webhooks",
          [TIMESTAMP_HEADER]: timestamp,
          [SIGNATURE_HEADER]: sign(timestamp, body)
        }
      }
    }

    const postWebhook = (hook: Webhook) => post(() => hook)

    const fake: FakeTelnyxServer = {
      url: `http://127.0.0.1:${port}`,
      apiKey,
      connectionId,
      publicKey,
      sign,
      requests: () => recorded.slice(),
      awaitRequests: (count, millis) =>
        waiters.until(`${count} request(s)`, () => recorded.length >= count, millis, () => `saw ${recorded.length}`),
      failNext: (fault) => void faults.push(fault),
      call: (id) => calls.get(id),
      createdCalls: () => [...calls.values()],
      answer: (id) => {
        const call = getCall(id)
        if (call.state === "initiated") calls.set(id, { ...call, state: "answered", answeredAt: now() })
      },
      hangUp: (id, cause = "normal_clearing", source = "callee") => {
        const call = getCall(id)
        if (call.state !== "hangup") {
          calls.set(id, { ...call, state: "hangup", endedAt: now(), hangupCause: cause, hangupSource: source })
        }
      },
      webhook,
      deliver: (id, eventType, webhookOptions) => post(() => webhook(id, eventType, webhookOptions)),
      post: postWebhook,
      incoming: ({ from, to, webhookUrl }) => {
        const call: FakeCall = {
          callControlId: `v3:${crypto.randomBytes(24).toString("base64url")}`,
          callLegId: crypto.randomUUID(),
          callSessionId: crypto.randomUUID(),
          connectionId,
          to,
          from,
          direction: "incoming",
          state: "initiated",
          dial: {},
          webhookUrl,
          streamUrl: undefined,
          streamAuthToken: undefined,
          timeoutSecs: 30,
          commandId: undefined,
          startedAt: now(),
          hangups: 0
        }
        calls.set(call.callControlId, call)
        return call
      }
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeTelnyx extends Context.Tag("Testing/FakeTelnyx")<FakeTelnyx, FakeTelnyxServer>() {
  static readonly layer = (options: FakeTelnyxOptions = {}) => Layer.scoped(FakeTelnyx, make(options))
}

/** The real Telnyx adapter pointed at the fake: webhooks go to `webhookBaseUrl`. */
export const carrier = (fake: FakeTelnyxServer, webhookBaseUrl: string, options: Partial<TelnyxOptions> = {}) =>
  makeTelnyxCarrier({
    baseUrl: fake.url,
    apiKey: Redacted.make(fake.apiKey),
    connectionId: fake.connectionId,
    webhookBaseUrl,
    ...options
  })

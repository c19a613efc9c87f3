/**
 * A fake of Twilio's Programmable Voice REST API on a loopback port, for tests: the Call resource's
 * create, fetch and update endpoints with Twilio's documented JSON shapes, Basic authentication,
 * parameter validation and error bodies (`{code, message, more_info, status}`). Every request is
 * recorded. A test can queue faults (an error answer, a hung or reset connection, a delay), move a
 * call through its statuses, and build or send the signed status callback Twilio would post.
 *
 * The fake's dates (a call's creation and update, a callback's `Timestamp`) come from Effect's
 * `Clock` where it is built: under `@effect/vitest` the `TestClock`, so they agree with the code
 * under test whatever the real date. `Delay` faults are real time (real I/O).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { readBody } from "./FakeHttp.js"
import { computeSignature, makeTwilioCarrier } from "../Telephony/TwilioCarrier.js"

export interface RecordedRequest {
  readonly method: string
  /** The path and query string. */
  readonly path: string
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  /** The form body's parameters in order, repeats kept. */
  readonly form: ReadonlyArray<readonly [string, string]>
}

/** What the fake does with a request instead of answering it normally. */
export type FakeTwilioFault =
  /** Answer with this status and body (Twilio's error shape unless given). */
  | { readonly _tag: "Respond"; readonly status: number; readonly body?: unknown }
  /** Never answer; the connection stays open until the client gives up or the server closes. */
  | { readonly _tag: "Hang" }
  /** Drop the connection without an answer. */
  | { readonly _tag: "Reset" }
  /** Wait this long (real time), then answer normally. */
  | { readonly _tag: "Delay"; readonly millis: number }

export type TwilioCallStatus =
  | "queued"
  | "initiated"
  | "ringing"
  | "in-progress"
  | "busy"
  | "no-answer"
  | "failed"
  | "canceled"
  | "completed"

export interface FakeCall {
  readonly sid: string
  readonly to: string
  readonly from: string
  readonly status: TwilioCallStatus
  readonly twiml: string | undefined
  readonly statusCallback: string | undefined
  readonly statusCallbackEvents: ReadonlyArray<string>
  readonly timeout: number
  readonly dateCreated: Date
  /** When the call was answered (`in-progress`) and when it ended, by the fake's clock. */
  readonly answeredAt?: Date | undefined
  readonly endedAt?: Date | undefined
}

/** A status callback as Twilio would post it: the URL, the form parameters and their signature. */
export interface StatusCallback {
  readonly url: string
  readonly params: Readonly<Record<string, string>>
  readonly signature: string
}

export interface FakeTwilioServer {
  /** The origin to use as the carrier's `baseUrl`. */
  readonly url: string
  readonly accountSid: string
  readonly authToken: string
  /** Every request received so far, in order. */
  readonly calls: () => ReadonlyArray<RecordedRequest>
  /**
   * Waits until at least `count` requests have been received; dies, saying what it waited for and what
   * it saw, after `millis` of real time (30 s unless given) rather than hang a test on the TestClock.
   */
  readonly awaitRequests: (count: number, millis?: number) => Effect.Effect<void>
  /** Queues a fault for the next request not yet answered (one fault per request, in order). */
  readonly failNext: (fault: FakeTwilioFault) => void
  readonly call: (sid: string) => FakeCall | undefined
  /** Every call created so far, in order, as it is now. */
  readonly createdCalls: () => ReadonlyArray<FakeCall>
  /** Moves a call to a status, as the network would. */
  readonly setCallStatus: (sid: string, status: TwilioCallStatus) => void
  /** The callback Twilio would post for this call in its current status, signed with the auth token. */
  readonly statusCallback: (sid: string, sequenceNumber?: number) => StatusCallback
  /** Posts `statusCallback(sid)` to the call's `StatusCallback` URL with `X-Twilio-Signature`; answers the HTTP status. */
  readonly deliverStatusCallback: (sid: string, sequenceNumber?: number) => Effect.Effect<number, Error>
}

export interface FakeTwilioOptions {
  readonly accountSid?: string
  readonly authToken?: string
}

export const DEFAULT_ACCOUNT_SID = "AC00000000000000000000000000000001"
export const DEFAULT_AUTH_TOKEN = "fake-twilio-auth-token-0123456789"

const API_VERSION = "2010-04-01"
const CALLS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\.json$/
const CALL_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\.json$/
const CALLBACK_EVENTS = new Set(["initiated", "ringing", "answered", "completed"])

/** Twilio's RFC 2822 dates: `Tue, 31 Aug 2010 20:36:28 +0000`. */
const rfc2822 = (date: Date) => date.toUTCString().replace("GMT", "+0000")

const twilioError = (status: number, code: number, message: string) => ({
  code,
  message,
  more_info: `https://www.twilio.com/docs/errors/${code}`,
  status
})

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const make = (options: FakeTwilioOptions = {}): Effect.Effect<FakeTwilioServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const accountSid = options.accountSid ?? DEFAULT_ACCOUNT_SID
    const authToken = options.authToken ?? DEFAULT_AUTH_TOKEN
    const expectedAuthorization = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString("base64")}`
    const recorded: Array<RecordedRequest> = []
    const waiters: Array<{ readonly count: number; readonly wake: () => void }> = []
    const faults: Array<FakeTwilioFault> = []
    const calls = new Map<string, FakeCall>()
    const clock = yield* Effect.clock
    const now = () => new Date(clock.unsafeCurrentTimeMillis())

    const callJson = (call: FakeCall) => {
      const uri = `/${API_VERSION}/Accounts/${accountSid}/Calls/${call.sid}.json`
      const ended = ["busy", "no-answer", "failed", "canceled", "completed"].includes(call.status)
      return {
        account_sid: accountSid,
        annotation: null,
        answered_by: null,
        api_version: API_VERSION,
        caller_name: null,
        date_created: rfc2822(call.dateCreated),
        date_updated: rfc2822(now()),
        direction: "outbound-api",
        // Twilio's duration: the seconds talked, once the call is over
        duration: ended
          ? String(call.answeredAt === undefined ? 0 : Math.round(((call.endedAt ?? now()).getTime() - call.answeredAt.getTime()) / 1000))
          : null,
        end_time: ended ? rfc2822(call.endedAt ?? now()) : null,
        forwarded_from: null,
        from: call.from,
        from_formatted: call.from,
        group_sid: null,
        parent_call_sid: null,
        phone_number_sid: null,
        price: null,
        price_unit: "USD",
        queue_time: "0",
        sid: call.sid,
        start_time: call.answeredAt === undefined ? null : rfc2822(call.answeredAt),
        status: call.status,
        subresource_uris: {
          notifications: uri.replace(".json", "/Notifications.json"),
          recordings: uri.replace(".json", "/Recordings.json"),
          payments: uri.replace(".json", "/Payments.json"),
          events: uri.replace(".json", "/Events.json"),
          siprec: uri.replace(".json", "/Siprec.json"),
          streams: uri.replace(".json", "/Streams.json"),
          user_defined_message_subscriptions: uri.replace(".json", "/UserDefinedMessageSubscriptions.json"),
          user_defined_messages: uri.replace(".json", "/UserDefinedMessages.json")
        },
        to: call.to,
        to_formatted: call.to,
        trunk_sid: null,
        uri
      }
    }

    /** Answers a request that arrived without a fault, as Twilio would. */
    const route = (
      method: string,
      pathname: string,
      authorization: string | undefined,
      form: ReadonlyArray<readonly [string, string]>
    ): { readonly status: number; readonly body: unknown } => {
      if (authorization !== expectedAuthorization) {
        return { status: 401, body: twilioError(401, 20003, "Authenticate") }
      }
      const notFound = { status: 404, body: twilioError(404, 20404, `The requested resource ${pathname} was not found`) }
      const param = (name: string) => form.find(([key]) => key === name)?.[1]
      const invalid = (code: number, message: string) => ({ status: 400, body: twilioError(400, code, message) })

      const create = CALLS_PATH.exec(pathname)
      if (create !== null) {
        if (decodeURIComponent(create[1]!) !== accountSid) return notFound
        if (method !== "POST") return { status: 405, body: twilioError(405, 20004, "Method not allowed") }
        const to = param("To")
        const from = param("From")
        if (to === undefined || to === "") return invalid(21201, "No 'To' number is specified")
        if (from === undefined || from === "") return invalid(21213, "No 'From' number is specified")
        if (param("Url") === undefined && param("Twiml") === undefined && param("ApplicationSid") === undefined) {
          return invalid(21205, "Url parameter is required")
        }
        const statusCallback = param("StatusCallback")
        if (statusCallback !== undefined && !URL.canParse(statusCallback)) {
          return invalid(21205, `StatusCallback is not a valid URL: ${statusCallback}`)
        }
        const callbackMethod = param("StatusCallbackMethod")
        if (callbackMethod !== undefined && callbackMethod !== "GET" && callbackMethod !== "POST") {
          return invalid(21200, `StatusCallbackMethod must be GET or POST, not ${callbackMethod}`)
        }
        const events = form.filter(([key]) => key === "StatusCallbackEvent").map(([, value]) => value)
        const unknownEvent = events.find((event) => !CALLBACK_EVENTS.has(event))
        if (unknownEvent !== undefined) return invalid(21200, `Invalid StatusCallbackEvent: ${unknownEvent}`)
        const timeoutParam = param("Timeout")
        const timeout = timeoutParam === undefined ? 60 : Number(timeoutParam)
        if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600) {
          return invalid(21200, `Timeout must be an integer from 1 to 600, not ${timeoutParam}`)
        }
        const call: FakeCall = {
          sid: `CA${crypto.randomBytes(16).toString("hex")}`,
          to,
          from,
          status: "queued",
          twiml: param("Twiml"),
          statusCallback,
          statusCallbackEvents: events,
          timeout,
          dateCreated: now()
        }
        calls.set(call.sid, call)
        return { status: 201, body: callJson(call) }
      }

      const one = CALL_PATH.exec(pathname)
      if (one === null || decodeURIComponent(one[1]!) !== accountSid) return notFound
      const call = calls.get(decodeURIComponent(one[2]!))
      if (call === undefined) return notFound
      if (method === "GET") return { status: 200, body: callJson(call) }
      if (method !== "POST") return { status: 405, body: twilioError(405, 20004, "Method not allowed") }
      const status = param("Status")
      if (status !== undefined) {
        if (status !== "completed" && status !== "canceled") {
          return invalid(21200, `Status must be 'completed' or 'canceled', not ${status}`)
        }
        const live = call.status === "queued" || call.status === "initiated" || call.status === "ringing"
        // Twilio: `completed` ends a call in progress and cancels one not yet answered; `canceled` only the latter.
        if (live) calls.set(call.sid, { ...call, status: "canceled" })
        else if (call.status === "in-progress" && status === "completed") calls.set(call.sid, { ...call, status: "completed" })
      }
      return { status: 200, body: callJson(calls.get(call.sid)!) }
    }

    const respond = (response: http.ServerResponse, status: number, body: unknown) => {
      const text = JSON.stringify(body)
      response.writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "content-length": Buffer.byteLength(text),
        ...(status === 401 ? { "www-authenticate": "Basic realm=\"Twilio API\"" } : {})
      })
      response.end(text)
    }

    const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
      const body = await readBody(request)
      const method = request.method ?? "GET"
      const path = request.url ?? "/"
      const contentType = request.headers["content-type"]
      const form = contentType?.startsWith("application/x-www-form-urlencoded")
        ? Array.from(new URLSearchParams(body).entries())
        : []
      recorded.push({ method, path, authorization: request.headers.authorization, contentType, form })
      for (const waiter of waiters.filter((w) => recorded.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.wake()
      }
      const fault = faults.shift()
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") return void request.socket.destroy()
      if (fault?._tag === "Respond") {
        return respond(response, fault.status, fault.body ?? twilioError(fault.status, 20500, "An internal server error has occurred"))
      }
      if (fault?._tag === "Delay") await new Promise((resolve) => setTimeout(resolve, fault.millis))
      const answer = route(method, new URL(path, "http://localhost").pathname, request.headers.authorization, form)
      if (!response.destroyed) respond(response, answer.status, answer.body)
    }

    const server = yield* Effect.acquireRelease(
      Effect.async<http.Server>((resume) => {
        const server = http.createServer((request, response) => {
          handle(request, response).catch((error: unknown) => {
            if (!response.headersSent) respond(response, 500, twilioError(500, 20500, String(error)))
          })
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo

    const getCall = (sid: string) => {
      const call = calls.get(sid)
      if (call === undefined) throw new Error(`FakeTwilio knows no call ${sid}`)
      return call
    }

    const statusCallback = (sid: string, sequenceNumber = 0): StatusCallback => {
      const call = getCall(sid)
      if (call.statusCallback === undefined) throw new Error(`call ${sid} has no StatusCallback`)
      const params: Record<string, string> = {
        AccountSid: accountSid,
        ApiVersion: API_VERSION,
        CallSid: call.sid,
        CallStatus: call.status,
        Called: call.to,
        Caller: call.from,
        CallbackSource: "call-progress-events",
        Direction: "outbound-api",
        From: call.from,
        SequenceNumber: String(sequenceNumber),
        Timestamp: rfc2822(now()),
        To: call.to
      }
      if (call.status === "completed") Object.assign(params, { CallDuration: "0", Duration: "0" })
      return { url: call.statusCallback, params, signature: computeSignature(authToken, call.statusCallback, params) }
    }

    const fake: FakeTwilioServer = {
      url: `http://127.0.0.1:${port}`,
      accountSid,
      authToken,
      calls: () => recorded.slice(),
      awaitRequests: (count, millis = 30_000) =>
        Effect.async<void>((resume) => {
          if (recorded.length >= count) return resume(Effect.void)
          const waiter = {
            count,
            wake: () => {
              clearTimeout(timer)
              resume(Effect.void)
            }
          }
          const timer = setTimeout(() => {
            waiters.splice(waiters.indexOf(waiter), 1)
            resume(Effect.dieMessage(`FakeTwilio: waited ${millis} ms for ${count} request(s); saw ${recorded.length}`))
          }, millis)
          waiters.push(waiter)
          return Effect.sync(() => {
            clearTimeout(timer)
            const index = waiters.indexOf(waiter)
            if (index >= 0) waiters.splice(index, 1)
          })
        }),
      failNext: (fault) => void faults.push(fault),
      call: (sid) => calls.get(sid),
      createdCalls: () => [...calls.values()],
      setCallStatus: (sid, status) => {
        const call = getCall(sid)
        const ended = ["busy", "no-answer", "failed", "canceled", "completed"].includes(status)
        calls.set(sid, {
          ...call,
          status,
          answeredAt: status === "in-progress" ? call.answeredAt ?? now() : call.answeredAt,
          endedAt: ended ? call.endedAt ?? now() : call.endedAt
        })
      },
      statusCallback,
      deliverStatusCallback: (sid, sequenceNumber) =>
        Effect.tryPromise({
          try: async (signal) => {
            const callback = statusCallback(sid, sequenceNumber)
            const response = await fetch(callback.url, {
              method: "POST",
              headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": callback.signature },
              body: new URLSearchParams(callback.params).toString(),
              signal
            })
            await response.arrayBuffer()
            return response.status
          },
          catch: (error) => error instanceof Error ? error : new Error(String(error))
        })
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeTwilio extends Context.Tag("Testing/FakeTwilio")<FakeTwilio, FakeTwilioServer>() {
  static readonly layer = (options: FakeTwilioOptions = {}) => Layer.scoped(FakeTwilio, make(options))
}

/** The real Twilio adapter pointed at the fake: status callbacks go to `statusCallbackBaseUrl`. */
export const carrier = (fake: FakeTwilioServer, statusCallbackBaseUrl: string) =>
  makeTwilioCarrier({
    baseUrl: fake.url,
    accountSid: fake.accountSid,
    authToken: Redacted.make(fake.authToken),
    statusCallbackBaseUrl
  })

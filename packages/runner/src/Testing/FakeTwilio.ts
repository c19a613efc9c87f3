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
import type * as http from "node:http"
import { computeSignature, makeTwilioCarrier } from "../Telephony/TwilioCarrier.js"
import { type HttpFault, httpServer, listen, makeSleeper, makeWaiters, post, readBody, sendJson } from "./FakeHttp.js"

export interface RecordedRequest {
  readonly method: string
  /** The path and query string. */
  readonly path: string
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  /** The form body's parameters in order, repeats kept. */
  readonly form: ReadonlyArray<readonly [string, string]>
}

/**
 * What the fake does with a request instead of answering it normally (`Respond`: Twilio's error shape unless given).
 */
export type FakeTwilioFault = HttpFault

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
  /** `MachineDetection` (Enable or DetectMessageEnd), and where its asynchronous result goes (`AsyncAmd=true`). */
  readonly machineDetection: string | undefined
  readonly asyncAmdStatusCallback: string | undefined
  readonly dateCreated: Date
  /** `inbound` for a call `originate` brought to the platform; `outbound-api` for one it created. */
  readonly direction?: "inbound" | "outbound-api" | undefined
  /** When the call was answered (`in-progress`) and when it ended, by the fake's clock. */
  readonly answeredAt?: Date | undefined
  readonly endedAt?: Date | undefined
  /** New instructions given to the call in progress (`Twiml` or `Url` on an update), in order. */
  readonly redirects?: ReadonlyArray<
    { readonly twiml?: string | undefined; readonly url?: string | undefined; readonly at: Date }
  >
}

/** A status callback as Twilio would post it: the URL, the form parameters and their signature. */
export interface StatusCallback {
  readonly url: string
  readonly params: Readonly<Record<string, string>>
  readonly signature: string
}

/** Which requests a fault is for (any, unless given): it goes to the first such request. */
export interface FaultFilter {
  readonly method?: string
  readonly path?: RegExp
  /** A form parameter the request carries. */
  readonly param?: string
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
  readonly failNext: (fault: FakeTwilioFault, only?: FaultFilter) => void
  readonly call: (sid: string) => FakeCall | undefined
  /** Every call created so far, in order, as it is now. */
  readonly createdCalls: () => ReadonlyArray<FakeCall>
  /** Moves a call to a status, as the network would. */
  readonly setCallStatus: (sid: string, status: TwilioCallStatus) => void
  /** The callback Twilio would post for this call in its current status, signed with the auth token. */
  readonly statusCallback: (sid: string, sequenceNumber?: number) => StatusCallback
  /**
   * Records an incoming call the platform answered with `twiml`: `in-progress` when the TwiML
   * connects it, `completed` when it hangs up or rejects (see `originate`).
   */
  readonly receive: (call: {
    readonly sid: string
    readonly from: string
    readonly to: string
    readonly twiml: string
    readonly statusCallback: string | undefined
  }) => void
  /**
   * Posts `statusCallback(sid)` to the call's `StatusCallback` URL with `X-Twilio-Signature`; answers the HTTP status.
   */
  readonly deliverStatusCallback: (sid: string, sequenceNumber?: number) => Effect.Effect<number, Error>
  /** The `AsyncAmdStatusCallback` Twilio would post with this verdict (`AnsweredBy`), signed. */
  readonly amdCallback: (sid: string, answeredBy: string, detectionMs?: number) => StatusCallback
  /** Posts `amdCallback` to the call's `AsyncAmdStatusCallback` URL; answers the HTTP status. */
  readonly deliverAmdCallback: (sid: string, answeredBy: string, detectionMs?: number) => Effect.Effect<number, Error>
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
    const waiters = makeWaiters("FakeTwilio")
    // Real time; the scope's close wakes every sleeper so no timer outlives the fake.
    const { sleep, wakeAll } = makeSleeper()
    const faults: Array<{ readonly fault: FakeTwilioFault; readonly only: FaultFilter | undefined }> = []
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
        direction: call.direction ?? "outbound-api",
        // Twilio's duration: the seconds talked, once the call is over
        duration: ended
          ? String(
            call.answeredAt === undefined
              ? 0
              : Math.round(((call.endedAt ?? now()).getTime() - call.answeredAt.getTime()) / 1000)
          )
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
      const notFound = {
        status: 404,
        body: twilioError(404, 20404, `The requested resource ${pathname} was not found`)
      }
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
        const machineDetection = param("MachineDetection")
        if (
          machineDetection !== undefined && machineDetection !== "Enable" && machineDetection !== "DetectMessageEnd"
        ) {
          return invalid(21200, `MachineDetection must be Enable or DetectMessageEnd, not ${machineDetection}`)
        }
        const asyncAmd = param("AsyncAmd")
        const asyncAmdStatusCallback = param("AsyncAmdStatusCallback")
        if (asyncAmd !== undefined && asyncAmd !== "true" && asyncAmd !== "false") {
          return invalid(21200, `AsyncAmd must be true or false, not ${asyncAmd}`)
        }
        if (asyncAmdStatusCallback !== undefined && !URL.canParse(asyncAmdStatusCallback)) {
          return invalid(21205, `AsyncAmdStatusCallback is not a valid URL: ${asyncAmdStatusCallback}`)
        }
        const amdMethod = param("AsyncAmdStatusCallbackMethod")
        if (amdMethod !== undefined && amdMethod !== "GET" && amdMethod !== "POST") {
          return invalid(21200, `AsyncAmdStatusCallbackMethod must be GET or POST, not ${amdMethod}`)
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
          machineDetection,
          asyncAmdStatusCallback: asyncAmd === "true" ? asyncAmdStatusCallback : undefined,
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
      const twiml = param("Twiml")
      const url = param("Url")
      if (twiml !== undefined || url !== undefined) {
        // "modify a call in progress": only a call in progress takes new instructions
        if (call.status !== "in-progress") return invalid(21220, "Call is not in-progress. Cannot redirect.")
        if (twiml !== undefined && (twiml.length > 4_000 || !/^<Response>[\s\S]*<\/Response>$/.test(twiml.trim()))) {
          return invalid(12100, "Document parse failure")
        }
        calls.set(call.sid, {
          ...call,
          twiml: twiml ?? call.twiml,
          redirects: [...(call.redirects ?? []), { twiml, url, at: now() }]
        })
      }
      const status = param("Status")
      if (status !== undefined) {
        if (status !== "completed" && status !== "canceled") {
          return invalid(21200, `Status must be 'completed' or 'canceled', not ${status}`)
        }
        const live = call.status === "queued" || call.status === "initiated" || call.status === "ringing"
        // Twilio: `completed` ends a call in progress and cancels one not yet answered; `canceled` only the latter.
        if (live) calls.set(call.sid, { ...call, status: "canceled" })
        else if (call.status === "in-progress" && status === "completed") {
          calls.set(call.sid, { ...call, status: "completed" })
        }
      }
      return { status: 200, body: callJson(calls.get(call.sid)!) }
    }

    const respond = (response: http.ServerResponse, status: number, body: unknown) =>
      sendJson(response, status, body, {
        "content-type": "application/json; charset=utf-8",
        ...(status === 401 ? { "www-authenticate": "Basic realm=\"Twilio API\"" } : {})
      })

    const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
      const body = await readBody(request)
      const method = request.method ?? "GET"
      const path = request.url ?? "/"
      const contentType = request.headers["content-type"]
      const form = contentType?.startsWith("application/x-www-form-urlencoded")
        ? Array.from(new URLSearchParams(body).entries())
        : []
      recorded.push({ method, path, authorization: request.headers.authorization, contentType, form })
      waiters.wake()
      const index = faults.findIndex(({ only }) =>
        only === undefined ||
        ((only.method === undefined || only.method === method) && (only.path === undefined || only.path.test(path)) &&
          (only.param === undefined || form.some(([key]) => key === only.param)))
      )
      const fault = index < 0 ? undefined : faults.splice(index, 1)[0]!.fault
      if (fault?._tag === "Hang") return
      if (fault?._tag === "Reset") return void request.socket.destroy()
      if (fault?._tag === "Respond") {
        return respond(
          response,
          fault.status,
          fault.body ?? twilioError(fault.status, 20500, "An internal server error has occurred")
        )
      }
      if (fault?._tag === "Delay") await sleep(fault.millis)
      const answer = route(method, new URL(path, "http://localhost").pathname, request.headers.authorization, form)
      if (!response.destroyed) respond(response, answer.status, answer.body)
    }

    const port = yield* listen(
      httpServer(handle, (response, error) => respond(response, 500, twilioError(500, 20500, String(error)))),
      wakeAll
    )

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
        Direction: call.direction ?? "outbound-api",
        From: call.from,
        SequenceNumber: String(sequenceNumber),
        Timestamp: rfc2822(now()),
        To: call.to
      }
      if (call.status === "completed") Object.assign(params, { CallDuration: "0", Duration: "0" })
      return { url: call.statusCallback, params, signature: computeSignature(authToken, call.statusCallback, params) }
    }

    const amdCallback = (sid: string, answeredBy: string, detectionMs = 3_000): StatusCallback => {
      const call = getCall(sid)
      if (call.asyncAmdStatusCallback === undefined) throw new Error(`call ${sid} asked for no asynchronous AMD`)
      const params: Record<string, string> = {
        AccountSid: accountSid,
        AnsweredBy: answeredBy,
        CallSid: call.sid,
        MachineDetectionDuration: String(detectionMs)
      }
      return {
        url: call.asyncAmdStatusCallback,
        params,
        signature: computeSignature(authToken, call.asyncAmdStatusCallback, params)
      }
    }

    const fake: FakeTwilioServer = {
      url: `http://127.0.0.1:${port}`,
      accountSid,
      authToken,
      calls: () => recorded.slice(),
      awaitRequests: (count, millis) =>
        waiters.until(`${count} request(s)`, () => recorded.length >= count, millis, () => `saw ${recorded.length}`),
      failNext: (fault, only) => void faults.push({ fault, only }),
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
      receive: ({ from, sid, statusCallback, to, twiml }) => {
        const at = now()
        const connected = /<Connect>/.test(twiml)
        const existing = calls.get(sid)
        calls.set(sid, {
          sid,
          to,
          from,
          direction: "inbound",
          status: connected ? "in-progress" : "completed",
          twiml,
          statusCallback,
          machineDetection: undefined,
          asyncAmdStatusCallback: undefined,
          statusCallbackEvents: ["completed"],
          timeout: 60,
          dateCreated: existing?.dateCreated ?? at,
          answeredAt: connected ? existing?.answeredAt ?? at : undefined,
          endedAt: connected ? undefined : at
        })
      },
      statusCallback,
      deliverStatusCallback: (sid, sequenceNumber) =>
        post(() => {
          const callback = statusCallback(sid, sequenceNumber)
          return {
            url: callback.url,
            headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": callback.signature },
            body: new URLSearchParams(callback.params).toString()
          }
        }),
      amdCallback,
      deliverAmdCallback: (sid, answeredBy, detectionMs) =>
        post(() => {
          const callback = amdCallback(sid, answeredBy, detectionMs)
          return {
            url: callback.url,
            headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": callback.signature },
            body: new URLSearchParams(callback.params).toString()
          }
        })
    }
    return fake
  })

/** An incoming call `originate` brings to the platform: the number's webhooks and who calls whom. */
export interface OriginateOptions {
  /** The number's voice webhook ("A call comes in"), e.g. `{PUBLIC_URL}/api/v1/telephony/twilio/voice`. */
  readonly voiceUrl: string
  /** The number's status callback ("Call status changes"), where `deliverStatusCallback` posts. */
  readonly statusCallback?: string
  readonly from: string
  readonly to: string
  /** The call's sid; a fresh one unless given (a retried webhook keeps its sid). */
  readonly callSid?: string
  /** Replaces the signature (a forged request). */
  readonly signature?: string
  /** Parameters added to (or replacing) Twilio's. */
  readonly params?: Readonly<Record<string, string>>
}

export interface Originated {
  readonly callSid: string
  /** The HTTP status of the platform's answer, and its body (TwiML, or an error). */
  readonly status: number
  readonly body: string
}

/**
 * Twilio bringing an incoming call to a number: posts the number's signed voice webhook with the
 * parameters Twilio documents (CallSid, AccountSid, From, To, Direction=inbound, CallStatus=ringing,
 * …) and, when the answer is TwiML that connects the call, records the call as answered with that
 * TwiML, so `FakeTwilioMedia.connectCall` opens its stream and `deliverStatusCallback` reports it.
 */
export const originate = (fake: FakeTwilioServer, options: OriginateOptions): Effect.Effect<Originated, Error> =>
  Effect.gen(function*() {
    const callSid = options.callSid ?? `CA${crypto.randomBytes(16).toString("hex")}`
    const params: Record<string, string> = {
      AccountSid: fake.accountSid,
      ApiVersion: API_VERSION,
      CallSid: callSid,
      CallStatus: "ringing",
      Called: options.to,
      CalledCountry: "US",
      Caller: options.from,
      CallerCountry: "US",
      Direction: "inbound",
      From: options.from,
      FromCountry: "US",
      To: options.to,
      ToCountry: "US",
      ...options.params
    }
    const signature = options.signature ?? computeSignature(fake.authToken, options.voiceUrl, params)
    const answer = yield* Effect.tryPromise({
      try: async (signal) => {
        const response = await fetch(options.voiceUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature },
          body: new URLSearchParams(params).toString(),
          signal
        })
        return { status: response.status, body: await response.text() }
      },
      catch: (error) => error instanceof Error ? error : new Error(String(error))
    })
    if (answer.status === 200) {
      fake.receive({
        sid: callSid,
        from: options.from,
        to: options.to,
        twiml: answer.body,
        statusCallback: options.statusCallback
      })
    }
    return { callSid, ...answer }
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

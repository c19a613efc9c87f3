/**
 * Web calls: a browser or an SDK talks to an agent over a WebSocket, the same conversation as a
 * phone call (transcript, latency, call log, webhook, billing). The API mints a short-lived,
 * single-use token for a new call (`POST /channels/web/call`); the client opens the call's stream
 * (`url`) and sends `start` with the token, then 16-bit PCM both ways with JSON control messages
 * (docs/web-calls.md).
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { AgentInactive, AgentNotFound } from "./Agents.js"
import { errorFields, type HttpError, httpError, reportAllIssues } from "./ApiError.js"
import { TenantAuthentication } from "./Auth.js"
import { InsufficientFunds } from "./Billing.js"
import { SessionId } from "./Calls.js"
import { API_PREFIX } from "./HttpApis.js"
import { AgentId, TenantId } from "./Ids.js"
import { JsonObjectSchema } from "./Json.js"
import { ConcurrentCallLimit } from "./TenantEntity.js"
import { Timestamp } from "./Timestamp.js"

/** Audio on a web call's stream, both ways: 16-bit signed PCM, little-endian, mono, at this rate. */
export const WEB_CALL_SAMPLE_RATE = 16_000
/** The size of the client's audio frames we recommend (any whole number of samples is taken). */
export const WEB_CALL_FRAME_MS = 20
/** The largest audio message taken: one second. */
export const WEB_CALL_MAX_FRAME_BYTES = WEB_CALL_SAMPLE_RATE * 2
/** How long a minted token is good for (unless the platform's settings say otherwise). */
export const WEB_CALL_TOKEN_SECONDS = 60
/** A call whose stream has not started this long after its token expired ends unanswered. */
export const WEB_CALL_JOIN_GRACE_SECONDS = 5

/** Where a web call's stream is opened, under the platform's public origin. */
export const WEB_CALL_STREAM_PATH = `${API_PREFIX}/channels/web/stream`

export const webCallStreamPath = (sessionId: string) => `${WEB_CALL_STREAM_PATH}/${sessionId}`

/** The session id a stream path names, if it is one. */
export const sessionOfStreamPath = (path: string): SessionId | undefined => {
  const prefix = `${WEB_CALL_STREAM_PATH}/`
  if (!path.startsWith(prefix)) return undefined
  const id = path.slice(prefix.length)
  return Schema.is(SessionId)(id) ? id : undefined
}

export class StartWebCallRequest extends Schema.Class<StartWebCallRequest>("StartWebCallRequest")({
  agentId: AgentId,
  tenantId: Schema.optional(TenantId).annotations({ description: "Omit: the tenant comes from the credential" }),
  metadata: Schema.optional(JsonObjectSchema()).annotations({
    description: "Kept on the call: its log, its detail and the call.ended webhook"
  }),
  record: Schema.optional(Schema.Boolean).annotations({
    description: "Record this call (true) or not (false); absent: as the agent's settings.recording says. " +
      "An agent set to never record is never recorded"
  })
}) {}

export class WebCallTicket extends Schema.Class<WebCallTicket>("WebCallTicket")({
  sessionId: SessionId,
  url: Schema.String.annotations({
    description: "The call's stream: open a WebSocket here (ws:// or wss://, on the platform's public origin)"
  }),
  token: Schema.String.annotations({
    description: "Send it in the first message, {\"type\":\"start\",\"token\":…}: one use, until expiresAt"
  }),
  expiresAt: Timestamp.annotations({
    description: "After this the token is refused and the call ends UNANSWERED, unbilled"
  })
}) {}

export class WebCallsUnavailable extends Schema.TaggedError<WebCallsUnavailable>()(
  "WebCallsUnavailable",
  errorFields("Web calls cannot be taken now; the call was not connected and nothing was billed")
) {
  static readonly http: HttpError<WebCallsUnavailable> = httpError(this, { status: 503, code: "WEB_CALLS_UNAVAILABLE" })
}

// ---------------------------------------------------------------------------
// The stream's JSON messages (binary messages are audio). The stream is no HTTP endpoint, so they are
// not in the OpenAPI document: docs/web-calls.md shows them, and the tests check the platform's
// messages against them.
// ---------------------------------------------------------------------------

/** Client → platform: the first message, within 10 s of opening the socket. */
export const WebCallStart = Schema.Struct({
  type: Schema.Literal("start"),
  token: Schema.String,
  sampleRate: Schema.optional(Schema.Literal(WEB_CALL_SAMPLE_RATE)).annotations({
    description: "When given, must be 16000"
  })
}).annotations({ identifier: "WebCallStart" })

/** Client → platform: the agent's audio sent before the mark of this name has played. */
export const WebCallMarkEcho = Schema.Struct({ type: Schema.Literal("mark"), name: Schema.String })
  .annotations({ identifier: "WebCallMarkEcho" })

/** Client → platform: a keypad digit. */
export const WebCallDtmf = Schema.Struct({
  type: Schema.Literal("dtmf"),
  digit: Schema.String.pipe(Schema.pattern(/^[0-9*#A-D]$/))
})
  .annotations({ identifier: "WebCallDtmf" })

/** Client → platform: the caller hangs up (closing the socket does the same). */
export const WebCallHangup = Schema.Struct({ type: Schema.Literal("hangup") }).annotations({
  identifier: "WebCallHangup"
})

export const WebCallClientMessage = Schema.Union(WebCallStart, WebCallMarkEcho, WebCallDtmf, WebCallHangup)
  .annotations({ identifier: "WebCallClientMessage" })
export type WebCallClientMessage = typeof WebCallClientMessage.Type

/** Platform → client: the stream is the call's; the greeting follows. */
export const WebCallStarted = Schema.Struct({
  type: Schema.Literal("started"),
  sessionId: SessionId,
  sampleRate: Schema.Literal(WEB_CALL_SAMPLE_RATE),
  encoding: Schema.Literal("pcm_s16le"),
  channels: Schema.Literal(1)
}).annotations({ identifier: "WebCallStarted" })

/** Platform → client: echo it back once the audio sent before it has played. */
export const WebCallMark = Schema.Struct({ type: Schema.Literal("mark"), name: Schema.String })
  .annotations({ identifier: "WebCallMark" })

/**
 * Platform → client: the caller spoke over the agent; drop the agent's audio not yet played and echo its pending marks.
 */
export const WebCallClear = Schema.Struct({ type: Schema.Literal("clear") }).annotations({ identifier: "WebCallClear" })

/** Platform → client: a line of the transcript, as it is stored (an interrupted agent line: the words heard). */
export const WebCallTranscript = Schema.Struct({
  type: Schema.Literal("transcript"),
  speaker: Schema.Literal("agent", "customer"),
  text: Schema.String,
  at: Schema.String.annotations({ description: "ISO 8601: when the line began" }),
  interrupted: Schema.Boolean
}).annotations({ identifier: "WebCallTranscript" })

/** Platform → client: the call is over (the socket then closes with 1000). */
export const WebCallEnd = Schema.Struct({
  type: Schema.Literal("end"),
  reason: Schema.String.annotations({
    description: "The call's endReason: agent_hangup, max_duration, funds_exhausted, hangup_requested, …"
  })
}).annotations({ identifier: "WebCallEnd" })

/**
 * Platform → client: the agent pressed keys (its send_dtmf tool), for a client that takes them as a phone menu would.
 */
export const WebCallAgentDtmf = Schema.Struct({
  type: Schema.Literal("dtmf"),
  digits: Schema.String.pipe(Schema.pattern(/^[0-9*#A-D]{1,32}$/))
}).annotations({ identifier: "WebCallAgentDtmf" })

export const WebCallServerMessage = Schema.Union(
  WebCallStarted,
  WebCallMark,
  WebCallClear,
  WebCallTranscript,
  WebCallAgentDtmf,
  WebCallEnd
)
  .annotations({ identifier: "WebCallServerMessage" })
export type WebCallServerMessage = typeof WebCallServerMessage.Type

// ---------------------------------------------------------------------------
// The endpoint
// ---------------------------------------------------------------------------

export class WebCallsGroup extends HttpApiGroup.make("webCalls")
  .add(
    HttpApiEndpoint.post("startWebCall", "/channels/web/call")
      .annotate(OpenApi.Summary, "Start a web call")
      .setPayload(reportAllIssues(StartWebCallRequest))
      .addSuccess(WebCallTicket, { status: 201 })
      .addError(AgentNotFound.http)
      .addError(AgentInactive.http)
      .addError(InsufficientFunds.http)
      .addError(ConcurrentCallLimit.http)
      .addError(WebCallsUnavailable.http)
      .annotate(
        OpenApi.Description,
        "Starts a call with an active agent that a browser or an SDK joins on a WebSocket: open `url` and send " +
          `{\"type\":\"start\",\"token\":…} first, then the caller's audio as binary messages of 16-bit ` +
          `little-endian mono PCM at ${WEB_CALL_SAMPLE_RATE} Hz (${WEB_CALL_FRAME_MS} ms each); the agent's audio ` +
          `comes back the same way, with JSON messages (started, mark, clear, transcript, end; the client echoes ` +
          `each mark once the audio before it has played). The token is good once, for ${WEB_CALL_TOKEN_SECONDS} s; ` +
          `a call not joined by then ends UNANSWERED, unbilled. Funds and the concurrent-call limit are checked as ` +
          `for a phone call (402, 429). The call is billed at the rate card's webPerMinute for the time its stream ` +
          `was open, and logged with direction WEB. The protocol in full: docs/web-calls.md.`
      )
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Calls from a browser or an SDK, on a WebSocket, billed to the tenant wallet")
{}

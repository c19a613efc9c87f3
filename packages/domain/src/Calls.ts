import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as Schema from "effect/Schema"
import { AgentInactive, AgentNotFound } from "./Agents.js"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { InsufficientFunds, MinorUnits } from "./Billing.js"
import { CallOutcome, CallStatus } from "./CallMachine.js"
import { CallNotLive, TransferFailed, TransferMode, TransferReply, TransferSource } from "./CallTransfer.js"
import { ContactNotFound } from "./Contacts.js"
import { AgentId, ContactId, TenantId, VoiceNumberId } from "./Ids.js"
import { JsonObjectSchema, Metadata, StorableString } from "./Json.js"
import { E164, PhoneProviders } from "./Phone.js"
import { RecordingSummary } from "./Recordings.js"
import { ConcurrentCallLimit } from "./TenantEntity.js"
import { Timestamp } from "./Timestamp.js"
import { AnsweredBy, MachineVerdict, VoicemailResult } from "./Voicemail.js"
import { VoiceNumberNotFound } from "./VoiceNumbers.js"

export const SessionId = Schema.UUID.pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type

/** How a call came about: placed by the platform, taken on a number, or opened from a browser or an SDK. */
export const CallDirection = Schema.Literal("OUTGOING", "INCOMING", "WEB")
export type CallDirection = typeof CallDirection.Type

/** Who carries a call: a phone provider slot, or `WEB` for a web call (docs/web-calls.md). */
export const CallProvider = Schema.Literal(...PhoneProviders, "WEB")
export type CallProvider = typeof CallProvider.Type

// ---------------------------------------------------------------------------
// API
// ---------------------------------------------------------------------------

export class PlaceCallRequest extends Schema.Class<PlaceCallRequest>("PlaceCallRequest")({
  agentId: AgentId,
  voiceNumberId: VoiceNumberId.annotations({ description: "Id of a voice number registered to the tenant" }),
  toNumber: E164,
  tenantId: Schema.optional(TenantId).annotations({ description: "Omit: the tenant comes from the credential" }),
  customerId: Schema.optional(ContactId).annotations({
    description: "A contact of the tenant the call is attributed to"
  }),
  campaignId: Schema.optional(StorableString.pipe(Schema.maxLength(128))),
  campaignAttemptId: Schema.optional(StorableString.pipe(Schema.maxLength(128))),
  metadata: Schema.optional(JsonObjectSchema()),
  record: Schema.optional(Schema.Boolean).annotations({
    description: "Extension: record this call (true) or not (false); absent: as the agent's settings.recording says. " +
      "An agent set to never record is never recorded"
  })
}) {}

export class PlaceCallResponse extends Schema.Class<PlaceCallResponse>("PlaceCallResponse")({
  sessionId: SessionId,
  jobId: Schema.String,
  status: Schema.Literal("QUEUED")
}) {}

/** What one turn of the agent took, in ms (our extension; see docs/voice.md). */
export const TurnLatency = Schema.Struct({
  endpointingMs: Schema.Int.annotations({ description: "From the caller going quiet to their turn taken as over" }),
  sttFinalLagMs: Schema.NullOr(Schema.Int).annotations({
    description: "From the caller going quiet to the last final transcript"
  }),
  llmFirstTokenMs: Schema.NullOr(Schema.Int).annotations({
    description: "From asking the language model to its first words"
  }),
  ttsFirstByteMs: Schema.NullOr(Schema.Int).annotations({ description: "From asking for speech to its first audio" }),
  overheadMs: Schema.Int.annotations({ description: "The platform's own part of voice-to-voice" }),
  voiceToVoiceMs: Schema.Int.annotations({ description: "From the caller going quiet to the agent's first audio" })
}).annotations({ identifier: "TurnLatency" })
export type TurnLatency = typeof TurnLatency.Type

export const TranscriptLine = Schema.Struct({
  speaker: Schema.Literal("agent", "customer"),
  text: Schema.String.annotations({
    description: "What was said; for an agent line cut off by the caller, only what the caller heard"
  }),
  at: Timestamp,
  interrupted: Schema.Boolean.annotations({
    description: "The caller spoke over this agent line and it stopped there"
  }),
  latency: Schema.NullOr(TurnLatency).annotations({
    description: "On the agent's answer to a turn: what the answer took"
  })
}).annotations({ identifier: "TranscriptLine" })
export type TranscriptLine = typeof TranscriptLine.Type

export const CallEventRecord = Schema.Struct({
  type: Schema.String.annotations({
    description: "queued, dialing, ringing, answered, ended, hangup_requested, reservation_extended, …"
  }),
  at: Timestamp,
  detail: Schema.NullOr(Schema.Unknown)
})

const sessionFields = {
  sessionId: SessionId,
  jobId: Schema.String,
  status: CallStatus,
  outcome: Schema.NullOr(CallOutcome),
  endReason: Schema.NullOr(Schema.String),
  direction: CallDirection,
  agentId: AgentId,
  voiceNumberId: Schema.NullOr(VoiceNumberId).annotations({ description: "null on a web call" }),
  provider: CallProvider,
  fromNumber: Schema.NullOr(Schema.String).annotations({ description: "null on a web call" }),
  toNumber: Schema.NullOr(Schema.String).annotations({ description: "null on a web call" }),
  customerId: Schema.NullOr(ContactId),
  campaignId: Schema.NullOr(Schema.String),
  campaignAttemptId: Schema.NullOr(Schema.String),
  metadata: Metadata,
  createdAt: Timestamp,
  dialedAt: Schema.NullOr(Timestamp),
  answeredAt: Schema.NullOr(Timestamp),
  endedAt: Schema.NullOr(Timestamp),
  durationSeconds: Schema.Int.annotations({ description: "Talk time, answer to end" }),
  billedSeconds: Schema.Int.annotations({ description: "Talk time rounded up to the billing increment" }),
  cost: MinorUnits,
  currency: Schema.String,
  answeredBy: Schema.NullOr(AnsweredBy).annotations({
    description: "Who answered, by voicemail detection (docs/voicemail.md); null when it did not run or had no verdict"
  }),
  voicemail: Schema.NullOr(VoicemailResult).annotations({ description: "On a machine: hung_up or message_left" })
}

export class CallLog extends Schema.Class<CallLog>("CallLog")({
  ...sessionFields,
  transcript: Schema.optional(Schema.Array(TranscriptLine)).annotations({ description: "With include=transcript" })
}) {}

export class CallSession extends Schema.Class<CallSession>("CallSession")({
  ...sessionFields,
  transcript: Schema.Array(TranscriptLine),
  events: Schema.Array(CallEventRecord),
  recording: Schema.optional(Schema.NullOr(RecordingSummary)).annotations({
    description: "Extension: the call's recording (GET /calls/{sessionId}/recording), null when there is none"
  })
}) {}

export const CallLogQuery = Schema.Struct({
  agentId: Schema.optional(AgentId),
  campaignId: Schema.optional(Schema.String),
  status: Schema.optional(Schema.Union(CallStatus, CallOutcome)).annotations({
    description: "A status (QUEUED … ENDED) or an outcome (ANSWERED, UNANSWERED, BUSY, FAILED, CANCELED)"
  }),
  from: Schema.optional(Timestamp).annotations({ description: "Created at or after (ISO 8601)" }),
  to: Schema.optional(Timestamp).annotations({ description: "Created before (ISO 8601)" }),
  include: Schema.optional(Schema.Literal("transcript")).annotations({
    description: "Extension: transcript adds each call's transcript lines (with interrupted and per-turn latency)"
  })
})

export class CallNotFound extends Schema.TaggedError<CallNotFound>()("CallNotFound", errorFields("Call not found")) {
  static readonly http: HttpError<CallNotFound> = httpError(this, { status: 404, code: "CALL_NOT_FOUND" })
}

export class HangupResult extends Schema.Class<HangupResult>("HangupResult")({
  sessionId: SessionId,
  status: CallStatus,
  outcome: Schema.NullOr(CallOutcome)
}) {}

export const PlaceCallErrors = [
  AgentNotFound.http,
  AgentInactive.http,
  VoiceNumberNotFound.http,
  ContactNotFound.http,
  InsufficientFunds.http,
  ConcurrentCallLimit.http
] as const

// ---------------------------------------------------------------------------
// The LiveCall entity
// ---------------------------------------------------------------------------

/**
 * Everything a call needs, fixed when it is placed (prices included). Every string must be one the
 * database can store: a message the entity could never process is refused when it is sent, before
 * it is persisted.
 */
export const CallSpec = Schema.Struct({
  tenantId: TenantId,
  jobId: StorableString,
  agentId: AgentId,
  /** Absent on calls placed before web calls: `OUTGOING`. */
  direction: Schema.optional(CallDirection),
  voiceNumberId: Schema.NullOr(VoiceNumberId),
  provider: CallProvider,
  fromNumber: Schema.NullOr(StorableString),
  toNumber: Schema.NullOr(StorableString),
  customerId: Schema.NullOr(ContactId),
  campaignId: Schema.NullOr(StorableString),
  campaignAttemptId: Schema.NullOr(StorableString),
  metadata: Metadata,
  /** The call's own recording request (absent: the agent's setting decides). */
  record: Schema.optional(Schema.Boolean),
  dialTimeoutSeconds: Schema.Int,
  maxDurationSeconds: Schema.Int,
  concurrencyLimit: Schema.Int,
  currency: StorableString,
  /** The price of a minute of this call (a web call's is the rate card's web price). */
  voicePerMinute: Schema.Int,
  billingIncrementSeconds: Schema.Int,
  reservationChunkSeconds: Schema.Int
})
export type CallSpec = typeof CallSpec.Type

export const ProviderEventKind = Schema.Literal("ringing", "answered", "busy", "no_answer", "failed", "completed")
export type ProviderEventKind = typeof ProviderEventKind.Type

export const ProviderEvent = Schema.Struct({
  eventId: Schema.String.annotations({ description: "Unique per carrier event: a redelivery is applied once" }),
  kind: ProviderEventKind,
  at: Schema.Number.annotations({ description: "Epoch milliseconds" }),
  providerCallId: Schema.NullOr(Schema.String)
})
export type ProviderEvent = typeof ProviderEvent.Type

/** Where a carrier streams a call's audio: the owning runner's media address and a one-use token. */
export const MediaRoute = Schema.Struct({ streamUrl: Schema.String, token: Schema.String })
export type MediaRoute = typeof MediaRoute.Type

/** A web call's stream credential, signed by the process that owns the call. */
export const WebStreamToken = Schema.Struct({ token: Schema.String, expiresAt: Schema.Number })
export type WebStreamToken = typeof WebStreamToken.Type

/** The direction of a call as its spec says (calls placed before there was a choice are outgoing). */
export const directionOf = (spec: CallSpec): CallDirection => spec.direction ?? "OUTGOING"

export const CallStatusReply = Schema.Struct({ status: CallStatus, outcome: Schema.NullOr(CallOutcome) })

/**
 * What became of an incoming call the platform was asked to take (docs/calls.md, "Inbound calls"):
 * connected to the agent (streamed to `route`; null without a media server, or when the call is
 * over), or refused, recorded as an ended call with that end reason.
 */
export const InboundAnswer = Schema.Union(
  Schema.TaggedStruct("Connected", { route: Schema.NullOr(MediaRoute) }),
  Schema.TaggedStruct("Refused", { reason: Schema.Literal("insufficient_funds", "concurrent_call_limit") }),
  /** The number's provider is not served by the carrier the call came from: nothing was written. */
  Schema.TaggedStruct("NotServed", {})
)
export type InboundAnswer = typeof InboundAnswer.Type

export const LiveCallEntity = Entity.make("LiveCall", [
  /**
   * Volatile: the session's id is the command's key (the entity inserts its row once; a second
   * Start answers the stored state), and what a lost Start is driven again from is a row (the
   * campaign attempt's claim, by its fixed session id) or the caller waiting for it (the calls API:
   * `Deliver.deliver` sends again until answered). See docs/decisions/0017-group-committed-dial-write-path.md.
   */
  Rpc.make("Start", {
    payload: { spec: CallSpec },
    success: CallStatusReply,
    error: Schema.Union(InsufficientFunds, ConcurrentCallLimit)
  }).annotate(ClusterSchema.Persisted, false),
  Rpc.make("ProviderEvent", {
    payload: { event: ProviderEvent },
    success: CallStatusReply,
    primaryKey: ({ event }) => `event:${event.eventId}`
  }),
  Rpc.make("Hangup", {
    payload: { requestId: Schema.String },
    success: CallStatusReply,
    primaryKey: ({ requestId }) => `hangup:${requestId}`
  }),
  /** Who answered, by the carrier's answering-machine detection or ours (docs/voicemail.md). */
  Rpc.make("MachineDetected", {
    payload: { verdict: MachineVerdict },
    success: CallStatusReply,
    primaryKey: ({ verdict }) => `machine:${verdict.verdictId}`
  }),
  /** Hands the live call to `toNumber` through its carrier (see `CallTransfer`); at most once a call. */
  Rpc.make("Transfer", {
    payload: { requestId: Schema.String, toNumber: StorableString, mode: TransferMode, source: TransferSource },
    success: TransferReply,
    error: Schema.Union(CallNotLive, TransferFailed),
    primaryKey: ({ requestId }) => `transfer:${requestId}`
  }),
  Rpc.make("Status", { success: CallStatusReply }).annotate(ClusterSchema.Persisted, false),
  /**
   * An incoming call at the carrier (`providerCallId`, on the carrier named `carrier`): started and answered
   * here, or refused (funds, concurrency). Not persisted: the carrier's webhook waits for the answer
   * and is sent again if it does not come; a call already started answers where it stands.
   */
  Rpc.make("Answer", {
    payload: { spec: CallSpec, providerCallId: Schema.String, carrier: Schema.String },
    success: InboundAnswer
  }).annotate(ClusterSchema.Persisted, false),
  /**
   * The carrier's media stream of the call ended and the carrier asks how to go on (Twilio's
   * `<Redirect>` after `<Connect>`): where to stream again, or nothing (hang up). Not persisted: the
   * carrier waits for the answer, and asks again if it does not come.
   */
  Rpc.make("StreamEnded", { success: Schema.NullOr(MediaRoute) }).annotate(ClusterSchema.Persisted, false),
  /**
   * A web call's stream token, for the client that asked for the call: null unless this is a web
   * call still waiting for its stream. Not persisted: the token is signed by the process the call
   * runs in, and asked for again if the answer is lost.
   */
  Rpc.make("WebStreamToken", { success: Schema.NullOr(WebStreamToken) }).annotate(ClusterSchema.Persisted, false),
  /**
   * Where a web call's stream is served (its runner's media server), for the service that forwards a
   * client's stream there; null when the call is over, is not a web call, or its runner has no media
   * server.
   */
  Rpc.make("WebStreamAddress", { success: Schema.NullOr(Schema.String) }).annotate(ClusterSchema.Persisted, false),
  /**
   * Sent by the runner's timer wheel at a deadline of the call (its ring timeout) that must be kept
   * while the call's entity is stopped (a ringing call lets its entity go): starts the entity again
   * if need be, which acts on what is due. Not persisted: a runner that dies loses its timers, and
   * whoever takes the call over arms them again from its row.
   */
  Rpc.make("Wake", { success: CallStatusReply }).annotate(ClusterSchema.Persisted, false),
  /**
   * The call's media stream reached this runner while the call's entity was stopped (a ringing call
   * answered): the stream waits, attached, for the conversation the entity opens as it starts again.
   * Answers whether the call has a conversation to take it (false: the call is over, or no longer
   * run here). Not persisted: the stream is refused when the answer does not come.
   */
  Rpc.make("OpenMedia", { success: Schema.Boolean }).annotate(ClusterSchema.Persisted, false)
])
  .annotateRpcs(ClusterSchema.Persisted, true)
  // a persisted command's reply answers every later send of its key: it must never be an
  // interruption (see `TenantEntity`)
  .annotateRpcs(ClusterSchema.Uninterruptible, true)

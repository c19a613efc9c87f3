import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as Schema from "effect/Schema"
import { AgentInactive, AgentNotFound } from "./Agents.js"
import { errorFields, httpError, type HttpError } from "./ApiError.js"
import { InsufficientFunds, MinorUnits } from "./Billing.js"
import { CallOutcome, CallStatus } from "./CallMachine.js"
import { ContactNotFound } from "./Contacts.js"
import { AgentId, ContactId, TenantId, VoiceNumberId } from "./Ids.js"
import { JsonObjectSchema, Metadata, StorableString } from "./Json.js"
import { E164, PhoneProvider } from "./Phone.js"
import { ConcurrentCallLimit } from "./TenantEntity.js"
import { Timestamp } from "./Timestamp.js"
import { VoiceNumberNotFound } from "./VoiceNumbers.js"

export const SessionId = Schema.UUID.pipe(Schema.brand("SessionId"))
export type SessionId = typeof SessionId.Type

// ---------------------------------------------------------------------------
// API
// ---------------------------------------------------------------------------

export class PlaceCallRequest extends Schema.Class<PlaceCallRequest>("PlaceCallRequest")({
  agentId: AgentId,
  voiceNumberId: VoiceNumberId.annotations({ description: "Id of a voice number registered to the tenant" }),
  toNumber: E164,
  tenantId: Schema.optional(TenantId).annotations({ description: "Omit: the tenant comes from the credential" }),
  customerId: Schema.optional(ContactId).annotations({ description: "A contact of the tenant the call is attributed to" }),
  campaignId: Schema.optional(StorableString.pipe(Schema.maxLength(128))),
  campaignAttemptId: Schema.optional(StorableString.pipe(Schema.maxLength(128))),
  metadata: Schema.optional(JsonObjectSchema())
}) {}

export class PlaceCallResponse extends Schema.Class<PlaceCallResponse>("PlaceCallResponse")({
  sessionId: SessionId,
  jobId: Schema.String,
  status: Schema.Literal("QUEUED")
}) {}

/** What one turn of the agent took, in ms (our extension; see docs/voice.md). */
export const TurnLatency = Schema.Struct({
  endpointingMs: Schema.Int.annotations({ description: "From the caller going quiet to their turn taken as over" }),
  sttFinalLagMs: Schema.NullOr(Schema.Int).annotations({ description: "From the caller going quiet to the last final transcript" }),
  llmFirstTokenMs: Schema.NullOr(Schema.Int).annotations({ description: "From asking the language model to its first words" }),
  ttsFirstByteMs: Schema.NullOr(Schema.Int).annotations({ description: "From asking for speech to its first audio" }),
  overheadMs: Schema.Int.annotations({ description: "The platform's own part of voice-to-voice" }),
  voiceToVoiceMs: Schema.Int.annotations({ description: "From the caller going quiet to the agent's first audio" })
}).annotations({ identifier: "TurnLatency" })
export type TurnLatency = typeof TurnLatency.Type

export const TranscriptLine = Schema.Struct({
  speaker: Schema.Literal("agent", "customer"),
  text: Schema.String.annotations({ description: "What was said; for an agent line cut off by the caller, only what the caller heard" }),
  at: Timestamp,
  interrupted: Schema.Boolean.annotations({ description: "The caller spoke over this agent line and it stopped there" }),
  latency: Schema.NullOr(TurnLatency).annotations({ description: "On the agent's answer to a turn: what the answer took" })
}).annotations({ identifier: "TranscriptLine" })
export type TranscriptLine = typeof TranscriptLine.Type

export const CallEventRecord = Schema.Struct({
  type: Schema.String.annotations({ description: "queued, dialing, ringing, answered, ended, hangup_requested, reservation_extended, …" }),
  at: Timestamp,
  detail: Schema.NullOr(Schema.Unknown)
})

const sessionFields = {
  sessionId: SessionId,
  jobId: Schema.String,
  status: CallStatus,
  outcome: Schema.NullOr(CallOutcome),
  endReason: Schema.NullOr(Schema.String),
  direction: Schema.Literal("OUTGOING", "INCOMING"),
  agentId: AgentId,
  voiceNumberId: VoiceNumberId,
  provider: PhoneProvider,
  fromNumber: Schema.String,
  toNumber: Schema.String,
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
  currency: Schema.String
}

export class CallLog extends Schema.Class<CallLog>("CallLog")({
  ...sessionFields,
  transcript: Schema.optional(Schema.Array(TranscriptLine)).annotations({ description: "With include=transcript" })
}) {}

export class CallSession extends Schema.Class<CallSession>("CallSession")({
  ...sessionFields,
  transcript: Schema.Array(TranscriptLine),
  events: Schema.Array(CallEventRecord)
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
  voiceNumberId: VoiceNumberId,
  provider: PhoneProvider,
  fromNumber: StorableString,
  toNumber: StorableString,
  customerId: Schema.NullOr(ContactId),
  campaignId: Schema.NullOr(StorableString),
  campaignAttemptId: Schema.NullOr(StorableString),
  metadata: Metadata,
  dialTimeoutSeconds: Schema.Int,
  maxDurationSeconds: Schema.Int,
  concurrencyLimit: Schema.Int,
  currency: StorableString,
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

export const CallStatusReply = Schema.Struct({ status: CallStatus, outcome: Schema.NullOr(CallOutcome) })

export const LiveCallEntity = Entity.make("LiveCall", [
  Rpc.make("Start", {
    payload: { spec: CallSpec },
    success: CallStatusReply,
    error: Schema.Union(InsufficientFunds, ConcurrentCallLimit),
    primaryKey: () => "start"
  }),
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
  Rpc.make("Status", { success: CallStatusReply }).annotate(ClusterSchema.Persisted, false),
  /**
   * The carrier's media stream of the call ended and the carrier asks how to go on (Twilio's
   * `<Redirect>` after `<Connect>`): where to stream again, or nothing (hang up). Not persisted: the
   * carrier waits for the answer, and asks again if it does not come.
   */
  Rpc.make("StreamEnded", { success: Schema.NullOr(MediaRoute) }).annotate(ClusterSchema.Persisted, false)
]).annotateRpcs(ClusterSchema.Persisted, true)


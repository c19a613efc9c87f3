/**
 * Voice campaigns: the resource of the spec, the requests that create and change it, the call
 * attempts it makes, its progress view, the tenant's do-not-call list, and the `Campaign` entity
 * that owns each campaign's state machine and dial loop.
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError, type ValidationIssue } from "./ApiError.js"
import { CallOutcome } from "./CallMachine.js"
import { isValidTimezone, parseHHMM } from "./CallWindow.js"
import { CampaignStatus, CampaignStatusReason } from "./CampaignMachine.js"
import { AgentId, ContactId, ContactListId, TenantId, VoiceNumberId } from "./Ids.js"
import { JsonObjectSchema, Metadata } from "./Json.js"
import { CAMPAIGN_LIMITS, CONTACT_LIMITS } from "./Limits.js"
import { E164 } from "./Phone.js"
import { Timestamp } from "./Timestamp.js"

export const CampaignId = Schema.UUID.pipe(
  Schema.brand("CampaignId"),
  Schema.annotations({ description: "CampaignId (UUID)" })
)
export type CampaignId = typeof CampaignId.Type

export const CampaignAttemptId = Schema.UUID.pipe(Schema.brand("CampaignAttemptId"))
export type CampaignAttemptId = typeof CampaignAttemptId.Type

// ---------------------------------------------------------------------------
// Bounds, documented in the OpenAPI contract and docs/campaigns.md
// ---------------------------------------------------------------------------

export { CAMPAIGN_LIMITS } from "./Limits.js"

const boundedInt = (name: string, min: number, max: number) =>
  Schema.Int.pipe(
    Schema.filter((n) => n >= min && n <= max, { message: () => `${name} must be an integer from ${min} to ${max}` }),
    Schema.annotations({ jsonSchema: { type: "integer", minimum: min, maximum: max } })
  )

const Name = Schema.Trim.pipe(
  Schema.filter((s) => s.length >= CAMPAIGN_LIMITS.name.min && s.length <= CAMPAIGN_LIMITS.name.max, {
    message: () => `name must be ${CAMPAIGN_LIMITS.name.min} to ${CAMPAIGN_LIMITS.name.max} characters`
  })
)

const Description = Schema.String.pipe(
  Schema.maxLength(CAMPAIGN_LIMITS.description.max, {
    message: () => `description must be at most ${CAMPAIGN_LIMITS.description.max} characters`
  })
)

export const Timezone = Schema.String.pipe(
  Schema.filter(isValidTimezone, { message: () => "timezone must be an IANA time zone name such as America/New_York" }),
  Schema.annotations({ description: "IANA time zone name", examples: ["America/New_York", "Asia/Kolkata"] })
)

export const ClockTime = Schema.String.pipe(
  Schema.filter((s) => parseHHMM(s) !== undefined, { message: () => "expected a 24-hour time HH:MM, e.g. 09:00" }),
  Schema.annotations({ description: "HH:MM, 24-hour, local to the campaign's timezone", examples: ["09:00"] })
)

export const CallDays = Schema.Array(
  Schema.Int.pipe(
    Schema.filter((d) => d >= 1 && d <= 7, {
      message: () => "callDays holds ISO weekday numbers 1 (Monday) to 7 (Sunday)"
    })
  )
).pipe(
  Schema.filter((days) => days.length >= 1, { message: () => "callDays needs at least one day" }),
  Schema.filter((days) => new Set(days).size === days.length, { message: () => "callDays must not repeat a day" }),
  Schema.annotations({ description: "ISO weekday numbers, Monday = 1 … Sunday = 7" })
)

const windowIsOrdered = (
  w: { readonly callWindowStart?: string | undefined; readonly callWindowEnd?: string | undefined }
) =>
  w.callWindowStart === undefined || w.callWindowEnd === undefined ||
  (parseHHMM(w.callWindowStart) ?? 0) < (parseHHMM(w.callWindowEnd) ?? 0) ||
  { path: ["callWindowEnd"], message: "callWindowEnd must be later than callWindowStart (windows lie within one day)" }

const isOrdered = (start: string, end: string) => (parseHHMM(start) ?? 0) < (parseHHMM(end) ?? 0)

const ContactClockTime = ClockTime.annotations({
  description: "HH:MM, 24-hour, in the contact's own time zone (derived from the number)",
  examples: ["08:00"]
})

const recipientHoursDescription =
  "Recipient-local calling hours: when enabled, a contact is dialed only while it is between start " +
  "(inclusive) and end (exclusive) in every time zone its number may be in (the US TCPA allows 08:00-21:00), on top " +
  "of the campaign's own call window. A contact outside them waits for its next opening: not an attempt, not a " +
  "failure. See docs/campaigns.md for how zones are derived."

/** The setting as stored and shown. */
export const RecipientCallingHours = Schema.Struct({
  enabled: Schema.Boolean,
  start: Schema.String,
  end: Schema.String
}).annotations({ description: recipientHoursDescription })
export type RecipientCallingHours = typeof RecipientCallingHours.Type

/** The setting in a request: `enabled` always; `start` and `end` default (create) or keep what is stored (update). */
export const RecipientCallingHoursInput = Schema.Struct({
  enabled: Schema.Boolean.annotations({ description: "Whether the contact's own local hours restrict dialing" }),
  start: Schema.optional(ContactClockTime).annotations({
    description: "HH:MM in the contact's time zone, inclusive (default 08:00)"
  }),
  end: Schema.optional(ContactClockTime).annotations({
    description: "HH:MM in the contact's time zone, exclusive (default 21:00)"
  })
}).pipe(
  Schema.filter((h) =>
    h.start === undefined || h.end === undefined || isOrdered(h.start, h.end) ||
    { path: ["end"], message: "recipientCallingHours.end must be later than its start (hours lie within one day)" }
  ),
  Schema.annotations({ description: recipientHoursDescription })
)
export type RecipientCallingHoursInput = typeof RecipientCallingHoursInput.Type

/** The dialing settings, optional (with defaults) on create and on update alike. */
const dialingFields = {
  dialTimeout: Schema.optional(
    boundedInt("dialTimeout", CAMPAIGN_LIMITS.dialTimeout.min, CAMPAIGN_LIMITS.dialTimeout.max)
  ),
  maxAttempts: Schema.optional(
    boundedInt("maxAttempts", CAMPAIGN_LIMITS.maxAttempts.min, CAMPAIGN_LIMITS.maxAttempts.max)
  ),
  redialDelayMin: Schema.optional(
    boundedInt("redialDelayMin", CAMPAIGN_LIMITS.redialDelayMin.min, CAMPAIGN_LIMITS.redialDelayMin.max)
  ),
  timezone: Schema.optional(Timezone),
  callWindowStart: Schema.optional(ClockTime),
  callWindowEnd: Schema.optional(ClockTime),
  callDays: Schema.optional(CallDays),
  maxConcurrentCalls: Schema.optional(
    boundedInt("maxConcurrentCalls", CAMPAIGN_LIMITS.maxConcurrentCalls.min, CAMPAIGN_LIMITS.maxConcurrentCalls.max)
  ),
  recipientCallingHours: Schema.optional(RecipientCallingHoursInput)
}

// ---------------------------------------------------------------------------
// The resource
// ---------------------------------------------------------------------------

export class Campaign extends Schema.Class<Campaign>("Campaign")({
  id: CampaignId,
  tenantId: TenantId,
  name: Schema.String,
  description: Schema.String,
  agentId: AgentId,
  voiceNumberId: VoiceNumberId,
  contactListId: ContactListId,
  status: CampaignStatus,
  statusReason: Schema.NullOr(CampaignStatusReason).annotations({
    description:
      "Why the campaign is PAUSED (PAUSED_BY_USER, INSUFFICIENT_FUNDS) or FAILED (ABORTED, AGENT_INACTIVE, …)"
  }),
  totalContacts: Schema.Int.annotations({ description: "Contacts snapshotted from the list when dialing started" }),
  dialedContacts: Schema.Int.annotations({ description: "Contacts dialed at least once" }),
  answeredContacts: Schema.Int.annotations({ description: "Contacts with an answered call" }),
  dialTimeout: Schema.Int.annotations({ description: "Seconds" }),
  maxAttempts: Schema.Int,
  redialDelayMin: Schema.Int.annotations({ description: "Minutes" }),
  maxConcurrentCalls: Schema.Int,
  scheduledAt: Schema.NullOr(Timestamp),
  startedAt: Schema.NullOr(Timestamp),
  completedAt: Schema.NullOr(Timestamp),
  timezone: Schema.String,
  callWindowStart: Schema.String,
  callWindowEnd: Schema.String,
  callDays: Schema.Array(Schema.Int),
  recipientCallingHours: RecipientCallingHours,
  metadata: Metadata,
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class CreateCampaignRequest extends Schema.Class<CreateCampaignRequest>("CreateCampaignRequest")(
  Schema.Struct({
    name: Name,
    description: Schema.optional(Description),
    agentId: AgentId,
    voiceNumberId: VoiceNumberId,
    contactListId: ContactListId,
    ...dialingFields,
    metadata: Schema.optional(JsonObjectSchema())
  }).pipe(Schema.filter(windowIsOrdered))
) {}

export class UpdateCampaignRequest extends Schema.Class<UpdateCampaignRequest>("UpdateCampaignRequest")(
  Schema.Struct({
    name: Schema.optional(Name),
    description: Schema.optional(Description),
    agentId: Schema.optional(AgentId),
    voiceNumberId: Schema.optional(VoiceNumberId),
    contactListId: Schema.optional(ContactListId),
    ...dialingFields,
    metadata: Schema.optional(JsonObjectSchema()).annotations({
      description: "Merged into the stored metadata (RFC 7396)"
    })
  }).pipe(Schema.filter(windowIsOrdered))
) {}

/** The recipient hours a create request asks for, defaults filled in. */
export const recipientHoursOnCreate = (input: RecipientCallingHoursInput | undefined): RecipientCallingHours => ({
  enabled: input?.enabled ?? CAMPAIGN_LIMITS.recipientCallingHours.defaultEnabled,
  start: input?.start ?? CAMPAIGN_LIMITS.recipientCallingHours.defaultStart,
  end: input?.end ?? CAMPAIGN_LIMITS.recipientCallingHours.defaultEnd
})

/** The recipient hours after an update: what it gives, and what is stored for the rest. */
export const recipientHoursOnUpdate = (
  stored: RecipientCallingHours,
  input: RecipientCallingHoursInput | undefined
): RecipientCallingHours =>
  input === undefined
    ? stored
    : { enabled: input.enabled, start: input.start ?? stored.start, end: input.end ?? stored.end }

/**
 * What an update would leave unordered once merged with the stored campaign: a patch naming one end
 * of a window can move it past the other, stored end (the request schema sees only the patch).
 */
export const updateIssues = (stored: Campaign, patch: UpdateCampaignRequest): ReadonlyArray<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  const start = patch.callWindowStart ?? stored.callWindowStart
  const end = patch.callWindowEnd ?? stored.callWindowEnd
  if (!isOrdered(start, end)) {
    issues.push({
      path: patch.callWindowEnd === undefined ? "callWindowStart" : "callWindowEnd",
      message: `callWindowEnd must be later than callWindowStart (windows lie within one day); the window would be ` +
        `${start}-${end}`
    })
  }
  const hours = recipientHoursOnUpdate(stored.recipientCallingHours, patch.recipientCallingHours)
  if (!isOrdered(hours.start, hours.end)) {
    issues.push({
      path: patch.recipientCallingHours?.end === undefined
        ? "recipientCallingHours.start"
        : "recipientCallingHours.end",
      message: `recipientCallingHours.end must be later than its start; the hours would be ${hours.start}-${hours.end}`
    })
  }
  return issues
}

export class ScheduleCampaignRequest extends Schema.Class<ScheduleCampaignRequest>("ScheduleCampaignRequest")({
  scheduledAt: Schema.optional(Schema.NullOr(Timestamp)).annotations({
    description: "When dialing starts; omitted, null or in the past: at once"
  })
}) {}

export class ScheduledCampaign extends Schema.Class<ScheduledCampaign>("ScheduledCampaign")({
  id: CampaignId,
  name: Schema.String,
  status: Schema.Literal("SCHEDULED"),
  scheduledAt: Timestamp,
  updatedAt: Timestamp
}) {}

export const CampaignListQuery = Schema.Struct({
  status: Schema.optional(CampaignStatus)
})

// ---------------------------------------------------------------------------
// Attempts and progress
// ---------------------------------------------------------------------------

export const AttemptStatus = Schema.Literal("CLAIMED", "DIALED", "ENDED", "SKIPPED").annotations({
  description: "CLAIMED: reserved before the dial; DIALED: the call was placed; ENDED: it has its outcome; " +
    "SKIPPED: not dialed, for good (skipReason DO_NOT_CALL, or NO_CALLING_HOURS: the contact's local hours never " +
    "overlap the campaign's window)"
})

/** Why a contact was skipped for good. */
export const SkipReason = Schema.Literal("DO_NOT_CALL", "NO_CALLING_HOURS")
export type SkipReason = typeof SkipReason.Type
export type AttemptStatus = typeof AttemptStatus.Type

export class CampaignAttempt extends Schema.Class<CampaignAttempt>("CampaignAttempt")({
  id: CampaignAttemptId,
  campaignId: CampaignId,
  contactId: ContactId,
  phoneNumber: Schema.String,
  contactName: Schema.NullOr(Schema.String),
  attemptNumber: Schema.Int,
  status: AttemptStatus,
  outcome: Schema.NullOr(CallOutcome),
  skipReason: Schema.NullOr(Schema.String),
  sessionId: Schema.NullOr(Schema.String),
  claimedAt: Timestamp,
  dialedAt: Schema.NullOr(Timestamp),
  endedAt: Schema.NullOr(Timestamp)
}) {}

export const ContactState = Schema.Literal("PENDING", "IN_PROGRESS", "ANSWERED", "EXHAUSTED", "SKIPPED", "CANCELLED")
export type ContactState = typeof ContactState.Type

export class CampaignProgress extends Schema.Class<CampaignProgress>("CampaignProgress")({
  campaignId: CampaignId,
  status: CampaignStatus,
  statusReason: Schema.NullOr(CampaignStatusReason),
  totalContacts: Schema.Int,
  dialedContacts: Schema.Int,
  answeredContacts: Schema.Int,
  contacts: Schema.Struct({
    pending: Schema.Int,
    inProgress: Schema.Int,
    answered: Schema.Int,
    exhausted: Schema.Int.annotations({ description: "Every attempt used without an answer" }),
    skipped: Schema.Int.annotations({
      description: "Not dialed, for good: on the do-not-call list, or never inside their local calling hours"
    }),
    awaitingLocalHours: Schema.Int.annotations({
      description:
        "Pending contacts held until their own local calling hours open (recipientCallingHours); counted in pending too"
    }),
    cancelled: Schema.Int.annotations({
      description: "Not dialed again because the campaign was aborted or the call hung up by API"
    })
  }),
  attempts: Schema.Struct({
    total: Schema.Int,
    inProgress: Schema.Int,
    answered: Schema.Int,
    unanswered: Schema.Int,
    busy: Schema.Int,
    failed: Schema.Int,
    canceled: Schema.Int
  }),
  answerRate: Schema.NullOr(Schema.Number).annotations({
    description: "answeredContacts / dialedContacts; null before any dial"
  }),
  callWindowOpen: Schema.Boolean,
  nextWindowOpensAt: Schema.NullOr(Timestamp).annotations({
    description: "When dialing is waiting for the call window"
  }),
  nextAttemptAt: Schema.NullOr(Timestamp).annotations({ description: "The earliest redial due" })
}) {}

// ---------------------------------------------------------------------------
// Do-not-call list
// ---------------------------------------------------------------------------

export class DncEntry extends Schema.Class<DncEntry>("DncEntry")({
  phoneNumber: Schema.String,
  reason: Schema.NullOr(Schema.String),
  createdAt: Timestamp
}) {}

export class AddDncRequest extends Schema.Class<AddDncRequest>("AddDncRequest")({
  phoneNumber: E164,
  reason: Schema.optional(Schema.String.pipe(Schema.maxLength(CONTACT_LIMITS.dncReason)))
}) {}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export class CampaignNotFound
  extends Schema.TaggedError<CampaignNotFound>()("CampaignNotFound", errorFields("Campaign not found"))
{
  static readonly http: HttpError<CampaignNotFound> = httpError(this, { status: 404, code: "CAMPAIGN_NOT_FOUND" })
}

export class CampaignStateConflict extends Schema.TaggedError<CampaignStateConflict>()(
  "CampaignStateConflict",
  errorFields("The campaign's state does not allow this")
) {
  static readonly http: HttpError<CampaignStateConflict> = httpError(this, {
    status: 409,
    code: "CAMPAIGN_STATE_CONFLICT",
    description: "details: {status, allowedFrom}"
  })
}

export class CampaignActive extends Schema.TaggedError<CampaignActive>()(
  "CampaignActive",
  errorFields("The campaign is scheduled, running or paused; abort it first with POST /campaigns/{id}/abort")
) {
  static readonly http: HttpError<CampaignActive> = httpError(this, { status: 409, code: "CAMPAIGN_ACTIVE" })
}

export class DncNotFound
  extends Schema.TaggedError<DncNotFound>()("DncNotFound", errorFields("The number is not on the do-not-call list"))
{
  static readonly http: HttpError<DncNotFound> = httpError(this, { status: 404, code: "DNC_NOT_FOUND" })
}

// ---------------------------------------------------------------------------
// The Campaign entity
// ---------------------------------------------------------------------------

/** The answer to a command: the campaign's state after it. */
export const CampaignStateReply = Schema.Struct({
  status: CampaignStatus,
  statusReason: Schema.NullOr(CampaignStatusReason)
})

/**
 * Commands are volatile (not persisted): each is one transaction on the campaign row, and a caller
 * whose command was lost in a crash sees the failure and retries. What must survive a crash (the
 * scheduled time, the claimed attempts) lives in the campaign's tables, and the entity rebuilds its
 * timer and dial loop from them when it starts.
 */
export const CampaignEntity = Entity.make("Campaign", [
  Rpc.make("Schedule", {
    payload: { tenantId: TenantId, at: Schema.NullOr(Schema.Number) },
    success: CampaignStateReply,
    error: Schema.Union(CampaignNotFound, CampaignStateConflict)
  }),
  Rpc.make("Pause", {
    payload: { tenantId: TenantId },
    success: CampaignStateReply,
    error: Schema.Union(CampaignNotFound, CampaignStateConflict)
  }),
  Rpc.make("Resume", {
    payload: { tenantId: TenantId },
    success: CampaignStateReply,
    error: Schema.Union(CampaignNotFound, CampaignStateConflict)
  }),
  Rpc.make("Abort", {
    payload: { tenantId: TenantId },
    success: CampaignStateReply,
    error: Schema.Union(CampaignNotFound, CampaignStateConflict)
  }),
  /** Something changed (a call ended, the supervisor looked in): re-read the tables and carry on. */
  Rpc.make("Wake", { success: Schema.Void })
]).annotateRpcs(ClusterSchema.Persisted, false)

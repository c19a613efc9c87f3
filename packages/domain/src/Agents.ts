import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AgentVoice, AgentVoicePatch, ResolvedVoice } from "./AgentVoice.js"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { AgentId, KnowledgeBaseId, PersonaId } from "./Ids.js"
import { JsonObjectSchema, mergePatch, Metadata } from "./Json.js"
import { MAX_AGENT_KNOWLEDGE_BASES } from "./KnowledgeBases.js"
import { AGENT_LIMITS } from "./Limits.js"
import { isLanguageCode } from "./MessageRules.js"
import { E164, PhoneProvider } from "./Phone.js"
import { AgentRecording } from "./Recordings.js"
import { Timestamp } from "./Timestamp.js"

// ---------------------------------------------------------------------------
// Personas
// ---------------------------------------------------------------------------

export class Persona extends Schema.Class<Persona>("Persona")({
  id: PersonaId,
  name: Schema.String,
  description: Schema.String,
  defaultPrompt: Schema.String.annotations({ description: "System prompt a new agent starts with" }),
  defaultGreeting: Schema.String.annotations({ description: "First line a new agent starts with" })
}) {}

// ---------------------------------------------------------------------------
// Agents
// ---------------------------------------------------------------------------

export const AgentChannel = Schema.Literal("VOICE", "CHATAPP")
export type AgentChannel = typeof AgentChannel.Type

const trimmedText = (max: number, label: string) =>
  Schema.Trim.pipe(
    Schema.filter((s) => s.length >= 1 && s.length <= max, { message: () => `${label} must be 1 to ${max} characters` })
  )

export const AgentName = trimmedText(AGENT_LIMITS.name, "name")
export const GreetMessage = trimmedText(AGENT_LIMITS.greetMessage, "greetMessage")
export const AgentPrompt = trimmedText(AGENT_LIMITS.agentPrompt, "agent_prompt")
export const ConnectionId = trimmedText(AGENT_LIMITS.connectionId, "connectionId")
export const PhoneNumberId = trimmedText(AGENT_LIMITS.phoneNumberId, "phoneNumberId")

/** The agent's language: a tag in the form chat-app template mappings use. */
export const AgentLanguageCode = Schema.String.pipe(
  Schema.filter(isLanguageCode, {
    message: () => "settings.languageCode must be a language tag such as en_US, hi_IN or es_ES"
  }),
  Schema.annotations({ examples: ["en_US", "hi_IN", "es_ES"] })
)

const AGENT_LANGUAGE =
  "Extension: the agent's language (a tag such as en_US, hi_IN, es_ES). After a call, the agent's chat-app " +
  "campaign sends its template in this language, unless it maps one in the contact's own language (the contact's " +
  "metadata.languageCode)"

/**
 * Channel settings, stored as one object. Voice: `phone_provider` and `phone_number` together
 * (the agent's channel must then be `VOICE`). Chat-app: `phoneNumberId`, the sender id at the
 * messaging platform. `languageCode` (our extension): the agent's language, which picks among a
 * chat-app campaign's language variants after the contact's own (`MessageRules.chatAppTemplateFor`).
 */
export const AgentSettings = Schema.Struct({
  phone_provider: Schema.optional(PhoneProvider),
  phone_number: Schema.optional(E164),
  phoneNumberId: Schema.optional(PhoneNumberId),
  languageCode: Schema.optional(AgentLanguageCode).annotations({ description: AGENT_LANGUAGE }),
  recording: Schema.optional(AgentRecording)
}).annotations({ identifier: "AgentSettings" })
export type AgentSettings = typeof AgentSettings.Type

/** Settings in a PATCH: the same keys, each also `null` to remove it. */
export const AgentSettingsPatch = Schema.Struct({
  phone_provider: Schema.optional(Schema.NullOr(PhoneProvider)),
  phone_number: Schema.optional(Schema.NullOr(E164)),
  phoneNumberId: Schema.optional(Schema.NullOr(PhoneNumberId)),
  languageCode: Schema.optional(Schema.NullOr(AgentLanguageCode)).annotations({
    description: `${AGENT_LANGUAGE}; null removes it`
  }),
  recording: Schema.optional(Schema.NullOr(AgentRecording))
}).annotations({
  identifier: "AgentSettingsPatch",
  parseOptions: { onExcessProperty: "error" },
  description: "Merged into the stored settings key by key (RFC 7396); null removes a key; unknown keys are refused"
})

export class Agent extends Schema.Class<Agent>("Agent")({
  id: AgentId.annotations({ description: "The agent's channel id: used for calls, campaigns and patching" }),
  agent_id: Schema.UUID.annotations({ description: "The agent's underlying brain id (also brain.id)" }),
  brain: Schema.Struct({ id: Schema.UUID }),
  name: Schema.String,
  is_active: Schema.Boolean,
  agent_persona_id: Schema.NullOr(PersonaId),
  greetMessage: Schema.String,
  agent_prompt: Schema.String,
  metadata: Metadata,
  channel: Schema.NullOr(AgentChannel),
  settings: AgentSettings,
  connectionId: Schema.NullOr(Schema.String),
  knowledgeBaseIds: Schema.Array(Schema.UUID).annotations({ description: "Knowledge bases the agent answers from" }),
  webhookTokenIssued: Schema.Boolean.annotations({
    description:
      "Whether POST /agents/{id}/webhook-token has been called (required before enabling the chat-app channel)"
  }),
  voice: AgentVoice,
  effectiveVoice: ResolvedVoice.annotations({
    description:
      "Extension: every voice choice in force for the agent's calls, its own or the platform's default, and " +
      "notices of what the platform cannot do for it as configured (such as hear callers, with no speech-to-text " +
      "provider)"
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class CreateAgentRequest extends Schema.Class<CreateAgentRequest>("CreateAgentRequest")({
  name: AgentName,
  agent_persona_id: PersonaId
}) {}

export class UpdateAgentRequest extends Schema.Class<UpdateAgentRequest>("UpdateAgentRequest")({
  name: Schema.optional(AgentName),
  greetMessage: Schema.optional(GreetMessage),
  agent_prompt: Schema.optional(AgentPrompt),
  metadata: Schema.optional(JsonObjectSchema()).annotations({
    description: "Merged into the stored metadata (RFC 7396 merge patch); null values remove keys"
  }),
  channel: Schema.optional(Schema.NullOr(AgentChannel)),
  settings: Schema.optional(AgentSettingsPatch),
  voice: Schema.optional(AgentVoicePatch),
  connectionId: Schema.optional(Schema.NullOr(ConnectionId)),
  is_active: Schema.optional(Schema.Boolean),
  knowledgeBaseIds: Schema.optional(
    Schema.Array(KnowledgeBaseId).pipe(
      Schema.filter((ids) => ids.length <= MAX_AGENT_KNOWLEDGE_BASES && new Set(ids).size === ids.length, {
        message: () => `knowledgeBaseIds must hold at most ${MAX_AGENT_KNOWLEDGE_BASES} distinct ids`
      })
    )
  ).annotations({ description: "Replaces the knowledge bases the agent answers from" })
}) {}

export class AgentWebhookToken extends Schema.Class<AgentWebhookToken>("AgentWebhookToken")({
  agentId: AgentId,
  token: Schema.String,
  webhookUrl: Schema.String.annotations({
    description: "The chat-app webhook address this token protects (subscription verification with hub.verify_token)"
  }),
  createdAt: Timestamp
}) {}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export class AgentNotFound
  extends Schema.TaggedError<AgentNotFound>()("AgentNotFound", errorFields("Agent not found"))
{
  static readonly http: HttpError<AgentNotFound> = httpError(this, { status: 404, code: "AGENT_NOT_FOUND" })
}

export class PersonaNotFound extends Schema.TaggedError<PersonaNotFound>()(
  "PersonaNotFound",
  errorFields("agent_persona_id does not name a persona; list them at GET /prompts/personas")
) {
  static readonly http: HttpError<PersonaNotFound> = httpError(this, { status: 400, code: "PERSONA_NOT_FOUND" })
}

export class InvalidAgentSettings extends Schema.TaggedError<InvalidAgentSettings>()(
  "InvalidAgentSettings",
  errorFields("The agent's settings are inconsistent")
) {
  static readonly http: HttpError<InvalidAgentSettings> = httpError(this, {
    status: 400,
    code: "INVALID_AGENT_SETTINGS",
    description: "Voice settings need both phone_provider and phone_number and the VOICE channel"
  })
}

export class WebhookTokenRequired extends Schema.TaggedError<WebhookTokenRequired>()(
  "WebhookTokenRequired",
  errorFields(
    "Call POST /agents/{id}/webhook-token before enabling the chat-app channel (connectionId and " +
      "settings.phoneNumberId)"
  )
) {
  static readonly http: HttpError<WebhookTokenRequired> = httpError(this, {
    status: 409,
    code: "WEBHOOK_TOKEN_REQUIRED"
  })
}

export class AgentInactive extends Schema.TaggedError<AgentInactive>()(
  "AgentInactive",
  errorFields("The agent is inactive")
) {
  static readonly http: HttpError<AgentInactive> = httpError(this, { status: 409, code: "AGENT_INACTIVE" })
}

// ---------------------------------------------------------------------------
// Patching: the rules as one pure function
// ---------------------------------------------------------------------------

export interface AgentState {
  readonly name: string
  readonly greetMessage: string
  readonly agent_prompt: string
  readonly metadata: { readonly [key: string]: unknown }
  readonly channel: AgentChannel | null
  readonly settings: AgentSettings
  readonly connectionId: string | null
  readonly is_active: boolean
  readonly webhookTokenIssued: boolean
  readonly voice: AgentVoice
}

/** Groups left empty by a patch are dropped: `{"idle": {"reminders": null}}` leaves no `idle: {}` behind. */
const pruneEmpty = (value: unknown): unknown =>
  Object.fromEntries(
    Object.entries(value as Record<string, unknown>).filter(([, v]) =>
      !(typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)
    )
  )

const defined = <A>(value: A | undefined, fallback: A): A => value === undefined ? fallback : value

/**
 * The agent after `patch`, or why it is refused: voice settings come in pairs and need the VOICE
 * channel; the chat-app channel (connectionId and settings.phoneNumberId) needs a webhook token first.
 */
export const applyAgentPatch = (
  current: AgentState,
  patch: UpdateAgentRequest
): Either.Either<AgentState, InvalidAgentSettings | WebhookTokenRequired> => {
  const settings =
    (patch.settings === undefined ? current.settings : mergePatch(current.settings, patch.settings)) as AgentSettings
  const next: AgentState = {
    ...current,
    name: defined(patch.name, current.name),
    greetMessage: defined(patch.greetMessage, current.greetMessage),
    agent_prompt: defined(patch.agent_prompt, current.agent_prompt),
    metadata: patch.metadata === undefined
      ? current.metadata
      : mergePatch(current.metadata, patch.metadata) as AgentState["metadata"],
    channel: defined(patch.channel, current.channel),
    connectionId: defined(patch.connectionId, current.connectionId),
    is_active: defined(patch.is_active, current.is_active),
    settings,
    voice: patch.voice === undefined ? current.voice : pruneEmpty(mergePatch(current.voice, patch.voice)) as AgentVoice
  }
  const voiceKeys = [settings.phone_provider, settings.phone_number].filter((v) => v !== undefined).length
  if (voiceKeys === 1) {
    return Either.left(
      new InvalidAgentSettings({ message: "settings.phone_provider and settings.phone_number go together" })
    )
  }
  if (voiceKeys === 2 && next.channel !== "VOICE") {
    return Either.left(new InvalidAgentSettings({ message: "Voice settings need channel VOICE" }))
  }
  if (next.connectionId !== null && settings.phoneNumberId !== undefined && !current.webhookTokenIssued) {
    return Either.left(new WebhookTokenRequired())
  }
  return Either.right(next)
}

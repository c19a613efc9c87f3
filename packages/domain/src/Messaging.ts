/**
 * Post-call messaging: chat-app (WhatsApp-style) and SMS campaigns, the messages they send after
 * each call, and the chat-app webhook's token and details. The rules that pick and render a
 * template live in `MessageRules`; this module holds the resources, requests and errors.
 */
import * as Schema from "effect/Schema"
import { PhoneNumberId } from "./Agents.js"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { CallOutcome } from "./CallMachine.js"
import { AgentId, ContactId, TenantId } from "./Ids.js"
import { MESSAGING_LIMITS } from "./Limits.js"
import {
  bodyLength,
  chatAppMappingKey,
  DEFAULT_LANGUAGE_CODE,
  isAlphanumericSenderId,
  isLanguageCode,
  isSmsCampaignName,
  unknownPlaceholders
} from "./MessageRules.js"
import { E164, isValidE164, PhoneProvider } from "./Phone.js"
import { Timestamp } from "./Timestamp.js"

export { MESSAGING_LIMITS } from "./Limits.js"

export const ChatAppCampaignId = Schema.UUID.pipe(
  Schema.brand("ChatAppCampaignId"),
  Schema.annotations({ description: "ChatAppCampaignId (UUID)" })
)
export type ChatAppCampaignId = typeof ChatAppCampaignId.Type

export const SmsCampaignId = Schema.UUID.pipe(
  Schema.brand("SmsCampaignId"),
  Schema.annotations({ description: "SmsCampaignId (UUID)" })
)
export type SmsCampaignId = typeof SmsCampaignId.Type

export const MessageId = Schema.UUID.pipe(
  Schema.brand("MessageId"),
  Schema.annotations({ description: "MessageId (UUID)" })
)
export type MessageId = typeof MessageId.Type

export const CallDirection = Schema.Literal("INCOMING", "OUTGOING")
export type CallDirection = typeof CallDirection.Type

export const ChatAppCallStatus = Schema.Literal("ANSWERED", "UNANSWERED", "FAILED", "BUSY")
export const SmsCallStatus = Schema.Literal("ANSWERED", "UNANSWERED")

const placeholdersKnown = (label: string) => (s: string): true | string => {
  const unknown = unknownPlaceholders(s)
  return unknown.length === 0 ||
    `${label} uses unknown placeholders ${
      unknown.map((p) => `{{${p}}}`).join(", ")
    }; supported: {{name}}, {{email}}, {{phone}}, {{metadata.<key>}}`
}

// ---------------------------------------------------------------------------
// Chat-app campaigns
// ---------------------------------------------------------------------------

export const TemplateName = Schema.String.pipe(
  Schema.filter((s) => /^[a-z0-9_]+$/.test(s) && s.length <= MESSAGING_LIMITS.templateName.max, {
    message: () =>
      `templateName must be 1 to ${MESSAGING_LIMITS.templateName.max} lowercase letters, digits or underscores (the ` +
      `messaging platform's rule)`
  }),
  Schema.annotations({ examples: ["call_followup"] })
)

export const LanguageCode = Schema.String.pipe(
  Schema.filter(isLanguageCode, { message: () => "languageCode must be a language tag such as en_US, hi_IN or es_ES" }),
  Schema.annotations({ examples: ["en_US", "hi_IN", "es_ES"] })
)

/** How the language of the template sent after a call is chosen (`chatAppTemplateFor`), for the API's descriptions. */
export const TEMPLATE_LANGUAGE_RULE =
  "Of the mappings for a call's (process, callStatus), the one sent is the one in " +
  "the contact's language (the contact's metadata.languageCode; case and - or _ do not matter, so es-MX is es_MX), " +
  "else in the agent's (the agent's settings.languageCode), else the first with the contact's, then the agent's, " +
  "primary language (contact es_MX → es_ES), else the en_US one, else the first configured. Values that are not " +
  "language tags are ignored."

const MAPPING_LANGUAGE =
  `The template's language, default ${DEFAULT_LANGUAGE_CODE}. A campaign may map the same (process, callStatus) ` +
  "once per language. " + TEMPLATE_LANGUAGE_RULE

export const BodyParameter = Schema.String.pipe(
  Schema.filter((s) => s.length >= 1 && s.length <= MESSAGING_LIMITS.bodyParameters.length, {
    message: () => `each body parameter must be 1 to ${MESSAGING_LIMITS.bodyParameters.length} characters`
  }),
  Schema.filter(placeholdersKnown("a body parameter"))
)

export const BodyParameters = Schema.Array(BodyParameter).pipe(
  Schema.filter((a) => a.length <= MESSAGING_LIMITS.bodyParameters.max, {
    message: () => `at most ${MESSAGING_LIMITS.bodyParameters.max} body parameters`
  }),
  Schema.annotations({
    description: "Extension: the template's positional body parameters ({{1}}, {{2}}, …), each rendered with the " +
      "placeholders {{name}}, {{email}}, {{phone}} and {{metadata.<key>}}. Default: none."
  })
)

export class ChatAppTemplateMapping extends Schema.Class<ChatAppTemplateMapping>("ChatAppTemplateMapping")({
  id: Schema.String.annotations({ description: "Assigned by the service" }),
  templateName: Schema.String,
  languageCode: Schema.String.annotations({ description: MAPPING_LANGUAGE }),
  process: CallDirection.annotations({ description: "The call's direction" }),
  callStatus: ChatAppCallStatus.annotations({ description: "The call's outcome" }),
  bodyParameters: Schema.Array(Schema.String)
}) {}

export const ChatAppTemplateMappingInput = Schema.Struct({
  templateName: TemplateName,
  process: CallDirection,
  callStatus: ChatAppCallStatus,
  languageCode: Schema.optionalWith(LanguageCode, { default: () => DEFAULT_LANGUAGE_CODE }).annotations({
    description: MAPPING_LANGUAGE
  }),
  bodyParameters: Schema.optionalWith(BodyParameters, { default: () => [] })
}).annotations({ identifier: "ChatAppTemplateMappingInput" })
export type ChatAppTemplateMappingInput = typeof ChatAppTemplateMappingInput.Type

const CHATAPP_TEMPLATES =
  `${MESSAGING_LIMITS.chatAppTemplates.min} to ${MESSAGING_LIMITS.chatAppTemplates.max} mappings, ` +
  `each (process, callStatus, languageCode) at most once (languageCode after its default ${DEFAULT_LANGUAGE_CODE}), ` +
  `so an outcome may have a template per language. ` + TEMPLATE_LANGUAGE_RULE

const distinctBy = <A>(key: (a: A) => string, message: (a: A) => string) => (items: ReadonlyArray<A>) => {
  const seen = new Set<string>()
  for (const [i, item] of items.entries()) {
    const k = key(item)
    if (seen.has(k)) return { path: [i], message: message(item) }
    seen.add(k)
  }
  return true
}

export const ChatAppTemplates = Schema.Array(ChatAppTemplateMappingInput).pipe(
  Schema.filter(
    (a) =>
      (a.length >= MESSAGING_LIMITS.chatAppTemplates.min && a.length <= MESSAGING_LIMITS.chatAppTemplates.max) ||
      `templates must hold ${MESSAGING_LIMITS.chatAppTemplates.min} to ${MESSAGING_LIMITS.chatAppTemplates.max} ` +
        `mappings`
  ),
  Schema.filter(
    distinctBy<ChatAppTemplateMappingInput>(
      chatAppMappingKey,
      (m) =>
        `two mappings for process ${m.process}, callStatus ${m.callStatus} and languageCode ${m.languageCode}; ` +
        "each combination may appear once"
    )
  )
)

const ChatAppName = Schema.Trim.pipe(
  Schema.filter((s) => s.length >= 1 && s.length <= MESSAGING_LIMITS.chatAppName.max, {
    message: () => `name must be 1 to ${MESSAGING_LIMITS.chatAppName.max} characters`
  })
)

export class ChatAppCampaign extends Schema.Class<ChatAppCampaign>("ChatAppCampaign")({
  id: ChatAppCampaignId,
  tenantId: TenantId,
  agentId: AgentId,
  name: Schema.String,
  phoneNumberId: Schema.NullOr(Schema.String).annotations({
    description: "Sender number id at the messaging platform; overrides the agent's settings.phoneNumberId"
  }),
  isActive: Schema.Boolean,
  templates: Schema.Array(ChatAppTemplateMapping),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class CreateChatAppCampaignRequest
  extends Schema.Class<CreateChatAppCampaignRequest>("CreateChatAppCampaignRequest")({
    agentId: AgentId,
    name: Schema.optional(ChatAppName),
    phoneNumberId: Schema.optional(PhoneNumberId),
    isActive: Schema.optional(Schema.Boolean),
    templates: Schema.propertySignature(ChatAppTemplates).annotations({ description: CHATAPP_TEMPLATES })
  })
{}

export class UpdateChatAppCampaignRequest
  extends Schema.Class<UpdateChatAppCampaignRequest>("UpdateChatAppCampaignRequest")({
    name: Schema.optional(ChatAppName),
    phoneNumberId: Schema.optional(Schema.NullOr(PhoneNumberId)).annotations({
      description: "null removes the override"
    }),
    isActive: Schema.optional(Schema.Boolean),
    templates: Schema.optional(ChatAppTemplates).annotations({
      description: `Replaces the whole set. ${CHATAPP_TEMPLATES}`
    })
  })
{}

export class AttachNumberRequest extends Schema.Class<AttachNumberRequest>("AttachNumberRequest")({
  phoneNumberId: PhoneNumberId
}) {}

export class AgentNumberAttachment extends Schema.Class<AgentNumberAttachment>("AgentNumberAttachment")({
  id: Schema.UUID,
  tenantId: TenantId,
  agentId: AgentId,
  phoneNumberId: Schema.String,
  updatedAt: Timestamp
}) {}

export class ChatAppWebhookToken extends Schema.Class<ChatAppWebhookToken>("ChatAppWebhookToken")({
  token: Schema.String
}) {}

export class ChatAppWebhookDetails extends Schema.Class<ChatAppWebhookDetails>("ChatAppWebhookDetails")({
  webhookUrl: Schema.String,
  verifyToken: Schema.String
}) {}

// ---------------------------------------------------------------------------
// SMS campaigns
// ---------------------------------------------------------------------------

export const SmsCampaignName = Schema.String.pipe(
  Schema.filter(isSmsCampaignName, {
    message: () => `name must be 1 to ${MESSAGING_LIMITS.smsName.max} characters of letters, digits and spaces`
  })
)

export const SenderNumber = Schema.String.pipe(
  Schema.filter((s) => isValidE164(s) || isAlphanumericSenderId(s), {
    message: () =>
      "senderNumber must be a phone number in E.164 format or an alphanumeric sender id (3 to 11 letters, digits or " +
      "spaces)"
  }),
  Schema.annotations({ examples: ["+14155552671", "ACME"] })
)

export const MessageBody = Schema.String.pipe(
  Schema.filter((s) => bodyLength(s) >= 1 && bodyLength(s) <= MESSAGING_LIMITS.smsBody.max, {
    message: () => `messageBody must be 1 to ${MESSAGING_LIMITS.smsBody.max} characters`
  }),
  Schema.filter(placeholdersKnown("messageBody"))
)

export const DltId = (label: string) =>
  Schema.String.pipe(
    Schema.filter((s) => /^[A-Za-z0-9_-]{1,64}$/.test(s), {
      message: () => `${label} must be 1 to 64 letters, digits, '_' or '-'`
    })
  )

export class SmsTemplate extends Schema.Class<SmsTemplate>("SmsTemplate")({
  id: Schema.String.annotations({ description: "Assigned by the service" }),
  callStatus: SmsCallStatus,
  messageBody: Schema.String,
  dltSenderId: Schema.NullOr(Schema.String),
  dltTemplateId: Schema.NullOr(Schema.String)
}) {}

export const SmsTemplateInput = Schema.Struct({
  callStatus: SmsCallStatus,
  messageBody: MessageBody,
  dltSenderId: Schema.optional(DltId("dltSenderId")),
  dltTemplateId: Schema.optional(DltId("dltTemplateId"))
}).annotations({ identifier: "SmsTemplateInput" })
export type SmsTemplateInput = typeof SmsTemplateInput.Type

export const SmsTemplates = Schema.Array(SmsTemplateInput).pipe(
  Schema.filter((a) => a.length >= 1 || "templates needs at least one template"),
  Schema.filter(
    distinctBy<SmsTemplateInput>(
      (t) => t.callStatus,
      (t) => `two templates for callStatus ${t.callStatus}; each status may appear once`
    )
  )
)

export class SmsCampaign extends Schema.Class<SmsCampaign>("SmsCampaign")({
  id: SmsCampaignId,
  tenantId: TenantId,
  agentId: AgentId,
  name: Schema.String,
  senderNumber: Schema.NullOr(Schema.String).annotations({
    description: "E.164 number or alphanumeric sender id; null: the agent's voice number"
  }),
  senderProvider: Schema.NullOr(PhoneProvider).annotations({
    description: "null: the platform's default SMS provider"
  }),
  isActive: Schema.Boolean,
  templates: Schema.Array(SmsTemplate),
  createdAt: Timestamp,
  updatedAt: Timestamp
}) {}

export class CreateSmsCampaignRequest extends Schema.Class<CreateSmsCampaignRequest>("CreateSmsCampaignRequest")({
  agentId: AgentId,
  name: Schema.optional(SmsCampaignName),
  senderNumber: Schema.optional(SenderNumber),
  senderProvider: Schema.optional(PhoneProvider),
  isActive: Schema.optional(Schema.Boolean),
  templates: SmsTemplates
}) {}

export class UpdateSmsCampaignRequest extends Schema.Class<UpdateSmsCampaignRequest>("UpdateSmsCampaignRequest")({
  name: Schema.optional(SmsCampaignName),
  senderNumber: Schema.optional(Schema.NullOr(SenderNumber)),
  senderProvider: Schema.optional(Schema.NullOr(PhoneProvider)),
  isActive: Schema.optional(Schema.Boolean),
  templates: Schema.optional(SmsTemplates).annotations({ description: "Replaces the existing templates" })
}) {}

// ---------------------------------------------------------------------------
// Messages (the outbox, as a log)
// ---------------------------------------------------------------------------

export const MessageChannel = Schema.Literal("CHATAPP", "SMS")
export type MessageChannel = typeof MessageChannel.Type

export const MessageStatuses = ["QUEUED", "SENDING", "SENT", "DELIVERED", "READ", "FAILED"] as const
export const MessageStatus = Schema.Literal(...MessageStatuses)
export type MessageStatus = typeof MessageStatus.Type

export class MessageLog extends Schema.Class<MessageLog>("MessageLog")({
  id: MessageId,
  channel: MessageChannel,
  sessionId: Schema.UUID.annotations({ description: "The call this message follows" }),
  campaignId: Schema.UUID.annotations({ description: "The chat-app or SMS campaign" }),
  agentId: AgentId,
  contactId: Schema.NullOr(ContactId),
  callDirection: CallDirection,
  callOutcome: CallOutcome,
  to: E164,
  sender: Schema.NullOr(Schema.String).annotations({
    description:
      "Phone number id (chat-app), number or sender id (SMS); null when none could be found (the message fails with " +
      "NO_SENDER)"
  }),
  provider: Schema.String.annotations({
    description: "CHATAPP, or the SMS provider (PROVIDER_A, PROVIDER_B, PROVIDER_C)"
  }),
  adapter: Schema.NullOr(Schema.String).annotations({
    description: "The adapter that sent it: simulated, whatsapp-cloud, twilio, …"
  }),
  templateName: Schema.NullOr(Schema.String),
  languageCode: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String).annotations({ description: "SMS: the rendered text" }),
  bodyParameters: Schema.Array(Schema.String).annotations({
    description: "Chat-app: the rendered template parameters"
  }),
  encoding: Schema.NullOr(Schema.Literal("GSM7", "UCS2")),
  segments: Schema.NullOr(Schema.Int),
  cost: Schema.Int.annotations({ description: "Minor units charged to the wallet (0 until sent)" }),
  currency: Schema.String,
  status: MessageStatus,
  providerMessageId: Schema.NullOr(Schema.String),
  attempts: Schema.Int,
  lastHttpStatus: Schema.NullOr(Schema.Int),
  errorCode: Schema.NullOr(Schema.String),
  errorMessage: Schema.NullOr(Schema.String),
  nextAttemptAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  sentAt: Schema.NullOr(Timestamp),
  deliveredAt: Schema.NullOr(Timestamp),
  readAt: Schema.NullOr(Timestamp),
  failedAt: Schema.NullOr(Timestamp)
}) {}

export const MessageLogQuery = Schema.Struct({
  status: Schema.optional(MessageStatus),
  sessionId: Schema.optional(Schema.UUID)
})

export class ChatAppReply extends Schema.Class<ChatAppReply>("ChatAppReply")({
  id: Schema.UUID,
  providerMessageId: Schema.String,
  from: Schema.String,
  phoneNumberId: Schema.String,
  type: Schema.String,
  text: Schema.NullOr(Schema.String),
  contactName: Schema.NullOr(Schema.String),
  receivedAt: Timestamp
}) {}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export class ChatAppCampaignNotFound extends Schema.TaggedError<ChatAppCampaignNotFound>()(
  "ChatAppCampaignNotFound",
  errorFields("Chat-app campaign not found")
) {
  static readonly http: HttpError<ChatAppCampaignNotFound> = httpError(this, {
    status: 404,
    code: "CHATAPP_CAMPAIGN_NOT_FOUND"
  })
}

export class ChatAppCampaignExists extends Schema.TaggedError<ChatAppCampaignExists>()(
  "ChatAppCampaignExists",
  errorFields("This agent already has a chat-app campaign (one per agent); change it with PUT /chatapp/campaigns/{id}")
) {
  static readonly http: HttpError<ChatAppCampaignExists> = httpError(this, {
    status: 409,
    code: "CHATAPP_CAMPAIGN_EXISTS"
  })
}

export class SmsCampaignNotFound extends Schema.TaggedError<SmsCampaignNotFound>()(
  "SmsCampaignNotFound",
  errorFields("SMS campaign not found")
) {
  static readonly http: HttpError<SmsCampaignNotFound> = httpError(this, {
    status: 404,
    code: "SMS_CAMPAIGN_NOT_FOUND"
  })
}

export class SmsCampaignExists extends Schema.TaggedError<SmsCampaignExists>()(
  "SmsCampaignExists",
  errorFields("This agent already has an SMS campaign (one per agent); change it with PUT /sms-agent/campaigns/{id}")
) {
  static readonly http: HttpError<SmsCampaignExists> = httpError(this, { status: 409, code: "SMS_CAMPAIGN_EXISTS" })
}

export class WebhookTokenNotIssued extends Schema.TaggedError<WebhookTokenNotIssued>()(
  "WebhookTokenNotIssued",
  errorFields("No chat-app webhook token yet: call POST /chatapp/webhook-token first")
) {
  static readonly http: HttpError<WebhookTokenNotIssued> = httpError(this, {
    status: 404,
    code: "WEBHOOK_TOKEN_NOT_ISSUED"
  })
}

export class InvalidWebhookSignature extends Schema.TaggedError<InvalidWebhookSignature>()(
  "InvalidWebhookSignature",
  errorFields("X-Hub-Signature-256 is missing or does not match the body")
) {
  static readonly http: HttpError<InvalidWebhookSignature> = httpError(this, {
    status: 401,
    code: "WEBHOOK_SIGNATURE_INVALID"
  })
}

export class InvalidWebhookPayload extends Schema.TaggedError<InvalidWebhookPayload>()(
  "InvalidWebhookPayload",
  errorFields("The webhook body is not a chat-app notification")
) {
  static readonly http: HttpError<InvalidWebhookPayload> = httpError(this, {
    status: 400,
    code: "WEBHOOK_PAYLOAD_INVALID"
  })
}

import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AgentInactive, AgentNotFound } from "./Agents.js"
import { reportAllIssues, ValidationFailed } from "./ApiError.js"
import { TenantAuthentication } from "./Auth.js"
import {
  AddDncRequest,
  Campaign,
  CAMPAIGN_LIMITS,
  CampaignActive,
  CampaignAttempt,
  CampaignId,
  CampaignListQuery,
  CampaignNotFound,
  CampaignProgress,
  CampaignStateConflict,
  CreateCampaignRequest,
  DncEntry,
  DncNotFound,
  ScheduleCampaignRequest,
  ScheduledCampaign,
  UpdateCampaignRequest
} from "./Campaigns.js"
import { WebhookVerification, WebhookVerificationFailed } from "./CommsApi.js"
import {
  BulkContactsRequest,
  Contact,
  ContactExists,
  ContactInput,
  ContactList,
  ContactListInUse,
  ContactListNameTaken,
  ContactListNotFound,
  ContactNotFound,
  ContactsPage,
  ContactsQuery,
  CreateContactListRequest,
  ImportResult,
  InvalidContact,
  InvalidCsv,
  MAX_CONTACTS_PER_IMPORT,
  MissingPhoneColumn,
  NAME_HEADERS,
  PHONE_HEADERS,
  TooManyRows,
  UnsupportedFileType,
  UpdateContactListRequest,
  UpdateContactRequest
} from "./Contacts.js"
import { HealthGroup } from "./Health.js"
import { API_PREFIX, makeApi, SignedBody } from "./HttpApis.js"
import { ContactId, ContactListId } from "./Ids.js"
import { AgentId, TenantId } from "./Ids.js"
import {
  AgentNumberAttachment,
  AttachNumberRequest,
  ChatAppCampaign,
  ChatAppCampaignExists,
  ChatAppCampaignId,
  ChatAppCampaignNotFound,
  ChatAppReply,
  ChatAppWebhookDetails,
  ChatAppWebhookToken,
  CreateChatAppCampaignRequest,
  CreateSmsCampaignRequest,
  InvalidWebhookPayload,
  InvalidWebhookSignature,
  MessageLog,
  MessageLogQuery,
  MESSAGING_LIMITS,
  SmsCampaign,
  SmsCampaignExists,
  SmsCampaignId,
  SmsCampaignNotFound,
  TEMPLATE_LANGUAGE_RULE,
  UpdateChatAppCampaignRequest,
  UpdateSmsCampaignRequest,
  WebhookTokenNotIssued
} from "./Messaging.js"
import { CAMPAIGN_PAGE_SIZE, Page, PageQuery } from "./Pagination.js"
import { E164 } from "./Phone.js"
import { VoiceNumberNotFound } from "./VoiceNumbers.js"

/** The largest CSV file accepted by the upload (500 rows of generous width). */
export const MAX_CSV_BYTES = 2 * 1024 * 1024

const listIdParam = HttpApiSchema.param("id", ContactListId)
const listIdParamForContacts = HttpApiSchema.param("listId", ContactListId)
const contactIdParam = HttpApiSchema.param("contactId", ContactId)

export const CsvUpload = HttpApiSchema.Multipart(
  Schema.Struct({ file: Multipart.SingleFileSchema }),
  { maxFileSize: Option.some(MAX_CSV_BYTES), maxParts: Option.some(5) }
)

export class ContactListsGroup extends HttpApiGroup.make("contactLists")
  .add(
    HttpApiEndpoint.post("createContactList", "/contact-lists")
      .annotate(OpenApi.Summary, "Create a contact list")
      .setPayload(reportAllIssues(CreateContactListRequest))
      .addSuccess(ContactList, { status: 201 })
      .addError(ContactListNameTaken.http)
      .annotate(
        OpenApi.Description,
        "Creates an empty list. metadata.defaultCountry (ISO 3166-1 alpha-2) lets contacts be given without a " +
          "country code."
      )
  )
  .add(
    HttpApiEndpoint.get("listContactLists", "/contact-lists")
      .annotate(OpenApi.Summary, "List contact lists")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(ContactList).annotations({ identifier: "ContactListPage" }))
  )
  .add(
    HttpApiEndpoint.get("getContactList")`/contact-lists/${listIdParam}`
      .annotate(OpenApi.Summary, "Get a contact list")
      .addSuccess(ContactList)
      .addError(ContactListNotFound.http)
  )
  .add(
    HttpApiEndpoint.patch("updateContactList")`/contact-lists/${listIdParam}`
      .annotate(OpenApi.Summary, "Update a contact list")
      .setPayload(reportAllIssues(UpdateContactListRequest))
      .addSuccess(ContactList)
      .addError(ContactListNotFound.http)
      .addError(ContactListNameTaken.http)
  )
  .add(
    HttpApiEndpoint.del("deleteContactList")`/contact-lists/${listIdParam}`
      .annotate(OpenApi.Summary, "Delete a contact list")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ContactListNotFound.http)
      .addError(ContactListInUse.http)
      .annotate(
        OpenApi.Description,
        "Deletes the list and its contacts; refused while a scheduled, running or paused campaign uses it"
      )
  )
  .add(
    HttpApiEndpoint.post("uploadContacts")`/contact-lists/${listIdParam}/upload`
      .annotate(OpenApi.Summary, "Import contacts from a CSV file")
      .setPayload(CsvUpload)
      .addSuccess(ImportResult)
      .addError(ContactListNotFound.http)
      .addError(UnsupportedFileType.http)
      .addError(TooManyRows.http)
      .addError(MissingPhoneColumn.http)
      .addError(InvalidCsv.http)
      .annotate(
        OpenApi.Description,
        `Imports contacts from one multipart part named \`file\` (a .csv of at most ${MAX_CONTACTS_PER_IMPORT} rows ` +
          `and ${MAX_CSV_BYTES / 1024 / 1024} MiB) in one transaction. Headers match case-insensitively, spaces and ` +
          `underscores alike: phone (${PHONE_HEADERS.join(", ")}; required), name (${NAME_HEADERS.join(", ")}), ` +
          `email, metadata (a JSON object). Other columns are kept in the contact's metadata. Bad rows are skipped ` +
          `and reported in invalidRows by spreadsheet row number (header = row 1); phones already in the list or ` +
          "repeated in the file are skipped as duplicate."
      )
  )
  .add(
    HttpApiEndpoint.get("listContacts")`/contact-lists/${listIdParamForContacts}/contacts`
      .annotate(OpenApi.Summary, "List a list's contacts")
      .setUrlParams(reportAllIssues(ContactsQuery))
      .addSuccess(ContactsPage)
      .addError(ContactListNotFound.http)
      .annotate(
        OpenApi.Description,
        "page (default 1) and limit (default 25, at most 200); without either, the whole list. Oldest first."
      )
  )
  .add(
    HttpApiEndpoint.post("createContact")`/contact-lists/${listIdParamForContacts}/contacts`
      .annotate(OpenApi.Summary, "Add a contact")
      .setPayload(reportAllIssues(ContactInput))
      .addSuccess(Contact, { status: 201 })
      .addError(ContactListNotFound.http)
      .addError(ContactExists.http)
      .addError(InvalidContact.http)
  )
  .add(
    HttpApiEndpoint.post("createContactsBulk")`/contact-lists/${listIdParamForContacts}/contacts/bulk`
      .annotate(OpenApi.Summary, "Add contacts in bulk")
      .setPayload(reportAllIssues(BulkContactsRequest))
      .addSuccess(ImportResult)
      .addError(ContactListNotFound.http)
      .annotate(
        OpenApi.Description,
        `Adds up to ${MAX_CONTACTS_PER_IMPORT} contacts in one transaction with the upload's rules; invalidRows.row ` +
          `is the position in contacts, from 1.`
      )
  )
  .add(
    HttpApiEndpoint.get("getContact")`/contact-lists/${listIdParamForContacts}/contacts/${contactIdParam}`
      .annotate(OpenApi.Summary, "Get a contact")
      .addSuccess(Contact)
      .addError(ContactListNotFound.http)
      .addError(ContactNotFound.http)
  )
  .add(
    HttpApiEndpoint.patch("updateContact")`/contact-lists/${listIdParamForContacts}/contacts/${contactIdParam}`
      .annotate(OpenApi.Summary, "Update a contact")
      .setPayload(reportAllIssues(UpdateContactRequest))
      .addSuccess(Contact)
      .addError(ContactListNotFound.http)
      .addError(ContactNotFound.http)
      .addError(ContactExists.http)
      .addError(InvalidContact.http)
  )
  .add(
    HttpApiEndpoint.del("deleteContact")`/contact-lists/${listIdParamForContacts}/contacts/${contactIdParam}`
      .annotate(OpenApi.Summary, "Delete a contact")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ContactListNotFound.http)
      .addError(ContactNotFound.http)
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Contact lists and their contacts")
{}

const campaignIdParam = HttpApiSchema.param("id", CampaignId)

const CampaignReferenceErrors = [
  AgentNotFound.http,
  AgentInactive.http,
  VoiceNumberNotFound.http,
  ContactListNotFound.http
] as const

const bounds = `Bounds: name 1-${CAMPAIGN_LIMITS.name.max} characters; dialTimeout ` +
  `${CAMPAIGN_LIMITS.dialTimeout.min}-${CAMPAIGN_LIMITS.dialTimeout.max} s (default ` +
  `${CAMPAIGN_LIMITS.dialTimeout.default}); maxAttempts ` +
  `${CAMPAIGN_LIMITS.maxAttempts.min}-${CAMPAIGN_LIMITS.maxAttempts.max} (default ` +
  `${CAMPAIGN_LIMITS.maxAttempts.default}); redialDelayMin ` +
  `${CAMPAIGN_LIMITS.redialDelayMin.min}-${CAMPAIGN_LIMITS.redialDelayMin.max} (default ` +
  `${CAMPAIGN_LIMITS.redialDelayMin.default}); maxConcurrentCalls ` +
  `${CAMPAIGN_LIMITS.maxConcurrentCalls.min}-${CAMPAIGN_LIMITS.maxConcurrentCalls.max} (default ` +
  `${CAMPAIGN_LIMITS.maxConcurrentCalls.default}); timezone IANA (default ${CAMPAIGN_LIMITS.timezone.default}); call ` +
  `window HH:MM-HH:MM within one day (default ` +
  `${CAMPAIGN_LIMITS.callWindow.defaultStart}-${CAMPAIGN_LIMITS.callWindow.defaultEnd}); callDays ISO weekdays 1-7 ` +
  `(default 1-5); recipientCallingHours {enabled, start?, end?}, off by default, HH:MM-HH:MM within one day in the ` +
  `contact's own time zone (default ` +
  `${CAMPAIGN_LIMITS.recipientCallingHours.defaultStart}-${CAMPAIGN_LIMITS.recipientCallingHours.defaultEnd}).`

/**
 * The schedule body is optional, so the handler reads it itself (an endpoint payload is always
 * required); the document still shows it, as an optional `ScheduleCampaignRequest`. The schema is
 * one of `CampaignDocumentSchemas`, which each API serving this group adds to its components.
 */
const documentScheduleBody = <Operation extends { readonly [key: string]: unknown }>(operation: Operation) => ({
  ...operation,
  requestBody: {
    required: false,
    content: { "application/json": { schema: { $ref: "#/components/schemas/ScheduleCampaignRequest" } } }
  }
})

/** Schemas the campaign groups' document refers to without an endpoint declaring them. */
export const CampaignDocumentSchemas = [ScheduleCampaignRequest] as const

export class CampaignsGroup extends HttpApiGroup.make("campaigns")
  .add(
    HttpApiEndpoint.post("createCampaign", "/campaigns")
      .annotate(OpenApi.Summary, "Create a voice campaign")
      .setPayload(reportAllIssues(CreateCampaignRequest))
      .addSuccess(Campaign, { status: 201 })
      .addError(CampaignReferenceErrors[0])
      .addError(CampaignReferenceErrors[1])
      .addError(CampaignReferenceErrors[2])
      .addError(CampaignReferenceErrors[3])
      .annotate(OpenApi.Description, `Creates a DRAFT voice campaign. ${bounds}`)
  )
  .add(
    HttpApiEndpoint.get("listCampaigns", "/campaigns")
      .annotate(OpenApi.Summary, "List voice campaigns")
      .setUrlParams(reportAllIssues(Schema.extend(PageQuery(CAMPAIGN_PAGE_SIZE), CampaignListQuery)))
      .addSuccess(Page(Campaign).annotations({ identifier: "CampaignPage" }))
      .annotate(OpenApi.Description, "The tenant's voice campaigns, newest first; filter by status")
  )
  .add(
    HttpApiEndpoint.get("getCampaign")`/campaigns/${campaignIdParam}`
      .annotate(OpenApi.Summary, "Get a voice campaign")
      .addSuccess(Campaign)
      .addError(CampaignNotFound.http)
  )
  .add(
    HttpApiEndpoint.patch("updateCampaign")`/campaigns/${campaignIdParam}`
      .annotate(OpenApi.Summary, "Update a voice campaign")
      .setPayload(reportAllIssues(UpdateCampaignRequest))
      .addSuccess(Campaign)
      .addError(ValidationFailed.http)
      .addError(CampaignNotFound.http)
      .addError(CampaignStateConflict.http)
      .addError(CampaignReferenceErrors[0])
      .addError(CampaignReferenceErrors[1])
      .addError(CampaignReferenceErrors[2])
      .addError(CampaignReferenceErrors[3])
      .annotate(
        OpenApi.Description,
        "Changes the fields supplied; only in DRAFT (409 CAMPAIGN_STATE_CONFLICT otherwise). A window left unordered " +
          "once merged with the stored one (callWindowEnd, recipientCallingHours.end not after its start) is 400 " +
          "VALIDATION_FAILED."
      )
  )
  .add(
    HttpApiEndpoint.post("scheduleCampaign")`/campaigns/${campaignIdParam}/schedule`
      .annotate(OpenApi.Summary, "Schedule a voice campaign")
      .annotate(OpenApi.Transform, documentScheduleBody)
      .addSuccess(ScheduledCampaign)
      .addError(ValidationFailed.http)
      .addError(CampaignNotFound.http)
      .addError(CampaignStateConflict.http)
      .addError(CampaignReferenceErrors[0])
      .addError(CampaignReferenceErrors[1])
      .addError(CampaignReferenceErrors[2])
      .addError(CampaignReferenceErrors[3])
      .annotate(
        OpenApi.Description,
        "Body optional: {scheduledAt?: ISO 8601 | null}. Dialing starts at scheduledAt, or at once when it is null, " +
          "omitted or past. Allowed from DRAFT, and from SCHEDULED to move the time. The contact list is snapshotted " +
          "when dialing starts."
      )
  )
  .add(
    HttpApiEndpoint.post("pauseCampaign")`/campaigns/${campaignIdParam}/pause`
      .annotate(OpenApi.Summary, "Pause a voice campaign")
      .addSuccess(Campaign)
      .addError(CampaignNotFound.http)
      .addError(CampaignStateConflict.http)
      .annotate(OpenApi.Description, "RUNNING → PAUSED; calls in progress finish")
  )
  .add(
    HttpApiEndpoint.post("resumeCampaign")`/campaigns/${campaignIdParam}/resume`
      .annotate(OpenApi.Summary, "Resume a voice campaign")
      .addSuccess(Campaign)
      .addError(CampaignNotFound.http)
      .addError(CampaignStateConflict.http)
      .annotate(OpenApi.Description, "PAUSED → RUNNING (also after an automatic pause for insufficient funds)")
  )
  .add(
    HttpApiEndpoint.post("abortCampaign")`/campaigns/${campaignIdParam}/abort`
      .annotate(OpenApi.Summary, "Abort a voice campaign")
      .addSuccess(Campaign)
      .addError(CampaignNotFound.http)
      .addError(CampaignStateConflict.http)
      .annotate(
        OpenApi.Description,
        "SCHEDULED | RUNNING | PAUSED → FAILED with statusReason ABORTED. Contacts not yet dialed are cancelled; " +
          "calls in progress finish. The campaign can then be deleted."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteCampaign")`/campaigns/${campaignIdParam}`
      .annotate(OpenApi.Summary, "Delete a voice campaign")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(CampaignNotFound.http)
      .addError(CampaignActive.http)
      .annotate(
        OpenApi.Description,
        "Deletes the campaign and its attempts; refused (409 CAMPAIGN_ACTIVE) while SCHEDULED, RUNNING or PAUSED"
      )
  )
  .add(
    HttpApiEndpoint.get("listCampaignAttempts")`/campaigns/${campaignIdParam}/attempts`
      .annotate(OpenApi.Summary, "List a campaign's call attempts")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(CampaignAttempt).annotations({ identifier: "CampaignAttemptPage" }))
      .addError(CampaignNotFound.http)
      .annotate(
        OpenApi.Description,
        "Every attempt in claim order: contact, attempt number, status, outcome, session and times"
      )
  )
  .add(
    HttpApiEndpoint.get("getCampaignProgress")`/campaigns/${campaignIdParam}/progress`
      .annotate(OpenApi.Summary, "Get a campaign's progress")
      .addSuccess(CampaignProgress)
      .addError(CampaignNotFound.http)
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Voice campaigns: a contact list dialed by an agent within call windows, with retries")
{}

export class DncGroup extends HttpApiGroup.make("dnc")
  .add(
    HttpApiEndpoint.post("addDnc", "/dnc")
      .annotate(OpenApi.Summary, "Add a number to the do-not-call list")
      .setPayload(reportAllIssues(AddDncRequest))
      .addSuccess(DncEntry, { status: 201 })
      .annotate(
        OpenApi.Description,
        "Adds an E.164 number to the tenant's do-not-call list (again: no change). Campaigns skip it."
      )
  )
  .add(
    HttpApiEndpoint.get("listDnc", "/dnc")
      .annotate(OpenApi.Summary, "List the do-not-call list")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(DncEntry).annotations({ identifier: "DncPage" }))
  )
  .add(
    HttpApiEndpoint.del("removeDnc")`/dnc/${HttpApiSchema.param("phoneNumber", E164)}`
      .annotate(OpenApi.Summary, "Remove a number from the do-not-call list")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(DncNotFound.http)
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "The tenant's do-not-call list")
{}

const chatAppIdParam = HttpApiSchema.param("id", ChatAppCampaignId)
const smsIdParam = HttpApiSchema.param("id", SmsCampaignId)

const placeholders =
  "Placeholders: {{name}} (the contact's name, else \"Customer\"), {{email}} and {{phone}} (the number messaged), " +
  "{{metadata.<key>}} (the contact's metadata; empty when absent). Unknown placeholders are refused."

export class ChatAppGroup extends HttpApiGroup.make("chatApp")
  .add(
    HttpApiEndpoint.post("createChatAppCampaign", "/chatapp/campaigns")
      .annotate(OpenApi.Summary, "Create a chat-app campaign")
      .setPayload(reportAllIssues(CreateChatAppCampaignRequest))
      .addSuccess(ChatAppCampaign, { status: 201 })
      .addError(AgentNotFound.http)
      .addError(ChatAppCampaignExists.http)
      .annotate(
        OpenApi.Description,
        `One per agent (409 CHATAPP_CAMPAIGN_EXISTS). templates: ` +
          `${MESSAGING_LIMITS.chatAppTemplates.min}-${MESSAGING_LIMITS.chatAppTemplates.max} mappings, each ` +
          `(process, callStatus, languageCode) at most once (languageCode defaults to en_US), so an outcome may have ` +
          `a template per language. After each call of the agent, a mapping whose process is the call's direction ` +
          `and callStatus its outcome is sent as a template message. ${TEMPLATE_LANGUAGE_RULE} Sender: the number ` +
          `attached to the agent, else phoneNumberId, else the agent's settings.phoneNumberId. ${placeholders}`
      )
  )
  .add(
    HttpApiEndpoint.get("listChatAppCampaigns", "/chatapp/campaigns")
      .annotate(OpenApi.Summary, "List chat-app campaigns")
      .setUrlParams(reportAllIssues(PageQuery(CAMPAIGN_PAGE_SIZE)))
      .addSuccess(Page(ChatAppCampaign).annotations({ identifier: "ChatAppCampaignPage" }))
  )
  .add(
    HttpApiEndpoint.get("getChatAppCampaign")`/chatapp/campaigns/${chatAppIdParam}`
      .annotate(OpenApi.Summary, "Get a chat-app campaign")
      .addSuccess(ChatAppCampaign)
      .addError(ChatAppCampaignNotFound.http)
  )
  .add(
    HttpApiEndpoint.put("updateChatAppCampaign")`/chatapp/campaigns/${chatAppIdParam}`
      .annotate(OpenApi.Summary, "Update a chat-app campaign")
      .setPayload(reportAllIssues(UpdateChatAppCampaignRequest))
      .addSuccess(ChatAppCampaign)
      .addError(ChatAppCampaignNotFound.http)
      .annotate(
        OpenApi.Description,
        "Changes the fields supplied; templates, when given, replace the whole set (new ids), under the same rules " +
          "as on creation: each (process, callStatus, languageCode) at most once"
      )
  )
  .add(
    HttpApiEndpoint.del("deleteChatAppCampaign")`/chatapp/campaigns/${chatAppIdParam}`
      .annotate(OpenApi.Summary, "Delete a chat-app campaign")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ChatAppCampaignNotFound.http)
      .annotate(
        OpenApi.Description,
        "Deletes the campaign; messages already queued are still sent, and the log keeps them"
      )
  )
  .add(
    HttpApiEndpoint.post("attachChatAppNumber")`/chatapp/agents/${
      HttpApiSchema.param("agentId", AgentId)
    }/attach-number`
      .annotate(OpenApi.Summary, "Attach a chat-app sender number to an agent")
      .setPayload(reportAllIssues(AttachNumberRequest))
      .addSuccess(AgentNumberAttachment)
      .addError(AgentNotFound.http)
      .annotate(
        OpenApi.Description,
        "Sets the agent's dedicated chat-app sender, which overrides its campaign's phoneNumberId"
      )
  )
  .add(
    HttpApiEndpoint.post("createChatAppWebhookToken", "/chatapp/webhook-token")
      .annotate(OpenApi.Summary, "Issue the chat-app webhook verify token")
      .addSuccess(ChatAppWebhookToken)
      .annotate(
        OpenApi.Description,
        "The tenant's verify token for the webhook subscription; the same token on every call"
      )
  )
  .add(
    HttpApiEndpoint.get("getChatAppWebhookDetails", "/chatapp/webhook-details")
      .annotate(OpenApi.Summary, "Get the chat-app webhook details")
      .addSuccess(ChatAppWebhookDetails)
      .addError(WebhookTokenNotIssued.http)
      .annotate(
        OpenApi.Description,
        "webhookUrl and verifyToken to configure at the messaging platform (after POST /chatapp/webhook-token)"
      )
  )
  .add(
    HttpApiEndpoint.get("listChatAppMessages", "/chatapp/messages")
      .annotate(OpenApi.Summary, "List chat-app messages sent")
      .setUrlParams(reportAllIssues(Schema.extend(PageQuery(), MessageLogQuery)))
      .addSuccess(Page(MessageLog).annotations({ identifier: "ChatAppMessagePage" }))
      .annotate(
        OpenApi.Description,
        "Chat-app messages sent after calls, newest first: status, provider id, attempts, errors"
      )
  )
  .add(
    HttpApiEndpoint.get("listChatAppReplies", "/chatapp/replies")
      .annotate(OpenApi.Summary, "List chat-app replies received")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(ChatAppReply).annotations({ identifier: "ChatAppReplyPage" }))
      .annotate(OpenApi.Description, "Messages contacts sent back, as received by the webhook, newest first")
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(
    OpenApi.Description,
    "Chat-app campaigns: a templated message after every call, chosen by direction and outcome"
  )
{}

export class WebhookReceipt extends Schema.Class<WebhookReceipt>("WebhookReceipt")({
  statuses: Schema.Int.annotations({
    description: "Status updates recorded (repeats of one already recorded are not counted)"
  }),
  replies: Schema.Int.annotations({ description: "Inbound messages recorded" })
}) {}

const tenantIdParam = HttpApiSchema.param("tenantId", TenantId)

export class ChatAppWebhookGroup extends HttpApiGroup.make("chatAppWebhook")
  .add(
    HttpApiEndpoint.get("verifyChatAppWebhook")`/chatapp/webhook/${tenantIdParam}`
      .annotate(OpenApi.Summary, "Verify the chat-app webhook subscription")
      .setUrlParams(WebhookVerification)
      .addSuccess(HttpApiSchema.Text())
      .addError(WebhookVerificationFailed.http)
      .annotate(
        OpenApi.Description,
        "Subscription verification by the messaging platform (no API key): answers hub.challenge as plain text when " +
          "hub.mode is subscribe and hub.verify_token is the tenant's token; 403 otherwise."
      )
  )
  .add(
    HttpApiEndpoint.post("receiveChatAppWebhook")`/chatapp/webhook/${tenantIdParam}`
      .annotate(OpenApi.Summary, "Receive chat-app webhook notifications")
      .annotate(SignedBody, true)
      .addSuccess(WebhookReceipt)
      .addError(InvalidWebhookSignature.http)
      .addError(InvalidWebhookPayload.http)
      .addError(WebhookVerificationFailed.http)
      .annotate(
        OpenApi.Description,
        "Notifications from the messaging platform (no API key): the body must carry X-Hub-Signature-256 = " +
          "sha256=<hex HMAC-SHA256 of the raw body with the app secret> (401 otherwise, nothing stored). Records " +
          "message statuses (sent, delivered, read, failed) and inbound replies; a repeated notification records " +
          "nothing new."
      )
  )
  .prefix(API_PREFIX)
  .annotate(
    OpenApi.Description,
    "The messaging platform's webhook: subscription check and signed notifications (no API key)"
  )
{}

export class SmsGroup extends HttpApiGroup.make("sms")
  .add(
    HttpApiEndpoint.post("createSmsCampaign", "/sms-agent/campaigns")
      .annotate(OpenApi.Summary, "Create an SMS campaign")
      .setPayload(reportAllIssues(CreateSmsCampaignRequest))
      .addSuccess(SmsCampaign, { status: 201 })
      .addError(AgentNotFound.http)
      .addError(SmsCampaignExists.http)
      .annotate(
        OpenApi.Description,
        `One per agent (409 SMS_CAMPAIGN_EXISTS). templates: callStatus ANSWERED (sent after answered calls) or ` +
          `UNANSWERED (every other outcome), each at most once; messageBody 1-${MESSAGING_LIMITS.smsBody.max} ` +
          `characters. Sender: senderNumber, else the agent's settings.phone_number; provider: senderProvider, else ` +
          `the platform default. Charged per segment (GSM-7: 160, or 153 each when split; UCS-2: 70, or 67). ` +
          `${placeholders}`
      )
  )
  .add(
    HttpApiEndpoint.get("listSmsCampaigns", "/sms-agent/campaigns")
      .annotate(OpenApi.Summary, "List SMS campaigns")
      .setUrlParams(reportAllIssues(PageQuery(CAMPAIGN_PAGE_SIZE)))
      .addSuccess(Page(SmsCampaign).annotations({ identifier: "SmsCampaignPage" }))
  )
  .add(
    HttpApiEndpoint.get("getSmsCampaign")`/sms-agent/campaigns/${smsIdParam}`
      .annotate(OpenApi.Summary, "Get an SMS campaign")
      .addSuccess(SmsCampaign)
      .addError(SmsCampaignNotFound.http)
  )
  .add(
    HttpApiEndpoint.put("updateSmsCampaign")`/sms-agent/campaigns/${smsIdParam}`
      .annotate(OpenApi.Summary, "Update an SMS campaign")
      .setPayload(reportAllIssues(UpdateSmsCampaignRequest))
      .addSuccess(SmsCampaign)
      .addError(SmsCampaignNotFound.http)
      .annotate(
        OpenApi.Description,
        "Changes the fields supplied; templates, when given, replace the existing ones (new ids)"
      )
  )
  .add(
    HttpApiEndpoint.del("deleteSmsCampaign")`/sms-agent/campaigns/${smsIdParam}`
      .annotate(OpenApi.Summary, "Delete an SMS campaign")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(SmsCampaignNotFound.http)
  )
  .add(
    HttpApiEndpoint.get("listSmsMessages", "/sms-agent/messages")
      .annotate(OpenApi.Summary, "List SMS messages sent")
      .setUrlParams(reportAllIssues(Schema.extend(PageQuery(), MessageLogQuery)))
      .addSuccess(Page(MessageLog).annotations({ identifier: "SmsMessagePage" }))
      .annotate(
        OpenApi.Description,
        "SMS sent after calls, newest first: status, provider id, segments, cost, attempts, errors"
      )
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "SMS campaigns: a templated SMS after every call, chosen by outcome")
{}

export class CampaignApi extends makeApi("campaign")
  .add(HealthGroup)
  .add(ContactListsGroup)
  .add(CampaignsGroup)
  .add(DncGroup)
  .add(ChatAppGroup)
  .add(ChatAppWebhookGroup)
  .add(SmsGroup)
  .annotate(HttpApi.AdditionalSchemas, CampaignDocumentSchemas)
  .annotate(OpenApi.Title, "Voice Agent Platform — campaign engine")
  .annotate(OpenApi.Version, "1.0.0")
{}

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Multipart from "@effect/platform/Multipart"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  Agent,
  AgentNotFound,
  AgentWebhookToken,
  CreateAgentRequest,
  InvalidAgentSettings,
  Persona,
  PersonaNotFound,
  UpdateAgentRequest,
  WebhookTokenRequired
} from "./Agents.js"
import { errorFields, type HttpError, httpError, reportAllIssues } from "./ApiError.js"
import { Authentication, TenantAuthentication } from "./Auth.js"
import { IdempotencyKey, IdempotencyKeyReused } from "./Billing.js"
import {
  CallLog,
  CallLogQuery,
  CallNotFound,
  CallSession,
  HangupResult,
  PlaceCallErrors,
  PlaceCallRequest,
  PlaceCallResponse,
  SessionId
} from "./Calls.js"
import { CallNotLive, TransferCallRequest, TransferCallResult, TransferFailed } from "./CallTransfer.js"
import { HealthGroup } from "./Health.js"
import { API_PREFIX, makeApi, SignedBody } from "./HttpApis.js"
import { AgentId, IngestionJobId, KbDocumentId, KnowledgeBaseId, VoiceNumberId } from "./Ids.js"
import {
  AddSourceRequest,
  CreateKnowledgeBaseRequest,
  DocumentTooLong,
  DocumentUnreadable,
  EmbedderUnavailable,
  IngestionJob,
  IngestionJobAccepted,
  IngestionJobNotFound,
  IngestionJobQuery,
  KbDocument,
  KbDocumentNotFound,
  KbKeyTaken,
  KnowledgeBase,
  KnowledgeBaseNotFound,
  KnowledgeStoreUnavailable,
  MAX_DOCUMENT_CHARS,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FILES,
  NoFilesUploaded,
  QueryRequest,
  QueryResult,
  UnknownEmbedder,
  UnknownKnowledgeBase,
  UnsupportedDocumentType,
  UpdateKnowledgeBaseRequest,
  UPLOAD_EXTENSIONS,
  UploadResult,
  UrlNotAllowed
} from "./KnowledgeBases.js"
import { Page, PageQuery } from "./Pagination.js"
import { RecordingNotFound } from "./Recordings.js"
import { CreateVoiceNumberRequest, VoiceNumber, VoiceNumberExists, VoiceNumberNotFound } from "./VoiceNumbers.js"
import { WebCallsGroup } from "./WebCalls.js"
import { WebhookDelivery } from "./WebhookDeliveries.js"

const agentIdParam = HttpApiSchema.param("id", AgentId)
const voiceNumberIdParam = HttpApiSchema.param("id", VoiceNumberId)

export class PersonasGroup extends HttpApiGroup.make("personas")
  .add(
    HttpApiEndpoint.get("listPersonas", "/prompts/personas")
      .annotate(OpenApi.Summary, "List personas")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(Persona).annotations({ identifier: "PersonaPage" }))
  )
  .middleware(Authentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "The catalogue of personas agents are created from")
{}

/** `POST /agents`, shared by comms and platform core. */
export const createAgentEndpoint = HttpApiEndpoint.post("createAgent", "/agents")
  .annotate(OpenApi.Summary, "Create an agent")
  .setPayload(reportAllIssues(CreateAgentRequest))
  .addSuccess(Agent, { status: 201 })
  .addError(PersonaNotFound.http)
  .annotate(
    OpenApi.Description,
    "Creates a minimal agent from a persona (prompt and greeting copied from it). The answer is the full agent: " +
      "`id` is the channel id used for calls and campaigns, `agent_id` (also `brain.id`) the underlying brain id."
  )

export class AgentsGroup extends HttpApiGroup.make("agents")
  .add(createAgentEndpoint)
  .add(
    HttpApiEndpoint.get("listAgents", "/agents")
      .annotate(OpenApi.Summary, "List agents")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(Agent).annotations({ identifier: "AgentPage" }))
  )
  .add(
    HttpApiEndpoint.get("getAgent")`/agents/${agentIdParam}`
      .annotate(OpenApi.Summary, "Get an agent")
      .addSuccess(Agent)
      .addError(AgentNotFound.http)
  )
  .add(
    HttpApiEndpoint.patch("updateAgent")`/agents/${agentIdParam}`
      .annotate(OpenApi.Summary, "Update an agent")
      .setPayload(reportAllIssues(UpdateAgentRequest))
      .addSuccess(Agent)
      .addError(AgentNotFound.http)
      .addError(InvalidAgentSettings.http)
      .addError(WebhookTokenRequired.http)
      .addError(UnknownKnowledgeBase.http)
      .annotate(
        OpenApi.Description,
        "Changes only the fields supplied. `metadata` and `settings` are merged (RFC 7396: null removes a key). " +
          "Voice settings need `channel: VOICE`. Enabling the chat-app channel (connectionId and " +
          "settings.phoneNumberId) needs POST /agents/{id}/webhook-token first. `settings.languageCode` (a tag such " +
          "as hi_IN) is the agent's language: after a call, its chat-app campaign sends the template in it unless " +
          "one in the contact's language is mapped. `is_active: false` deactivates the agent. `knowledgeBaseIds` " +
          "replaces the knowledge bases the agent answers from (at most 10, the tenant's own)."
      )
  )
  .add(
    HttpApiEndpoint.post("createAgentWebhookToken")`/agents/${agentIdParam}/webhook-token`
      .annotate(OpenApi.Summary, "Generate an agent's webhook token")
      .addSuccess(AgentWebhookToken)
      .addError(AgentNotFound.http)
      .annotate(
        OpenApi.Description,
        "Generates the agent's webhook verify token; calling it again returns the same token"
      )
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Voice agents: created from a persona, then configured per channel")
{}

export class VoiceNumbersGroup extends HttpApiGroup.make("voiceNumbers")
  .add(
    HttpApiEndpoint.post("createVoiceNumber", "/voice-numbers")
      .annotate(OpenApi.Summary, "Register a voice number")
      .setPayload(reportAllIssues(CreateVoiceNumberRequest))
      .addSuccess(VoiceNumber, { status: 201 })
      .addError(VoiceNumberExists.http)
  )
  .add(
    HttpApiEndpoint.get("listVoiceNumbers", "/voice-numbers")
      .annotate(OpenApi.Summary, "List voice numbers")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(VoiceNumber).annotations({ identifier: "VoiceNumberPage" }))
  )
  .add(
    HttpApiEndpoint.get("getVoiceNumber")`/voice-numbers/${voiceNumberIdParam}`
      .annotate(OpenApi.Summary, "Get a voice number")
      .addSuccess(VoiceNumber)
      .addError(VoiceNumberNotFound.http)
  )
  .add(
    HttpApiEndpoint.del("deleteVoiceNumber")`/voice-numbers/${voiceNumberIdParam}`
      .annotate(OpenApi.Summary, "Delete a voice number")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(VoiceNumberNotFound.http)
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Phone numbers registered to the tenant; calls and campaigns refer to them by id")
{}

export class WebhookVerificationFailed extends Schema.TaggedError<WebhookVerificationFailed>()(
  "WebhookVerificationFailed",
  errorFields("Webhook verification failed")
) {
  static readonly http: HttpError<WebhookVerificationFailed> = httpError(this, {
    status: 403,
    code: "WEBHOOK_VERIFICATION_FAILED"
  })
}

export const WebhookVerification = Schema.Struct({
  "hub.mode": Schema.optional(Schema.String),
  "hub.verify_token": Schema.optional(Schema.String),
  "hub.challenge": Schema.optional(Schema.String)
})

export class AgentWebhookGroup extends HttpApiGroup.make("agentWebhook")
  .add(
    HttpApiEndpoint.get("verifyAgentWebhook")`/channels/chatapp/agents/${
      HttpApiSchema.param("agentId", AgentId)
    }/webhook`
      .annotate(OpenApi.Summary, "Verify an agent's chat-app webhook subscription")
      .setUrlParams(WebhookVerification)
      .addSuccess(HttpApiSchema.Text())
      .addError(WebhookVerificationFailed.http)
      .annotate(
        OpenApi.Description,
        "Subscription verification by the messaging platform (no API key): answers hub.challenge as plain text " +
          "when hub.mode is subscribe and hub.verify_token is the agent's webhook token; 403 otherwise."
      )
  )
  .prefix(API_PREFIX)
  .annotate(
    OpenApi.Description,
    "The messaging platform's subscription check of an agent's chat-app webhook (no API key)"
  )
{}

const sessionIdParam = HttpApiSchema.param("sessionId", SessionId)

export class RequestInProgress extends Schema.TaggedError<RequestInProgress>()(
  "RequestInProgress",
  errorFields("A request with this Idempotency-Key is still being processed; retry shortly")
) {
  static readonly http: HttpError<RequestInProgress> = httpError(this, { status: 409, code: "REQUEST_IN_PROGRESS" })
}

export class CallsGroup extends HttpApiGroup.make("calls")
  .add(
    HttpApiEndpoint.post("placeCall", "/channels/voice/call")
      .annotate(OpenApi.Summary, "Place an outbound call")
      .setPayload(reportAllIssues(PlaceCallRequest))
      .setHeaders(Schema.Struct({
        "idempotency-key": Schema.optional(IdempotencyKey).annotations({
          description: "Retries with the same key get the first answer; the same key with another body is refused"
        })
      }))
      .addSuccess(PlaceCallResponse, { status: 202 })
      .addError(IdempotencyKeyReused.http)
      .addError(RequestInProgress.http)
      .addError(PlaceCallErrors[0])
      .addError(PlaceCallErrors[1])
      .addError(PlaceCallErrors[2])
      .addError(PlaceCallErrors[3])
      .addError(PlaceCallErrors[4])
      .addError(PlaceCallErrors[5])
      .annotate(
        OpenApi.Description,
        "Places an outbound call with an active agent, from one of the tenant's voice numbers. Funds for the first " +
          "reservation chunk are held at once (402 when the available balance is short; 429 above the " +
          "concurrent-call limit); the call is billed by the second, rounded up to the billing increment, when it ends."
      )
  )
  .add(
    HttpApiEndpoint.get("listCallLogs", "/call-logs")
      .annotate(OpenApi.Summary, "List call logs")
      .setUrlParams(reportAllIssues(Schema.Struct({ ...PageQuery().fields, ...CallLogQuery.fields })))
      .addSuccess(Page(CallLog).annotations({ identifier: "CallLogPage" }))
      .annotate(
        OpenApi.Description,
        "Newest first. Filters: agentId, campaignId, status (a status or an outcome), from, to"
      )
  )
  .add(
    HttpApiEndpoint.get("getCall")`/calls/${sessionIdParam}`
      .annotate(OpenApi.Summary, "Get a call session")
      .addSuccess(CallSession)
      .addError(CallNotFound.http)
      .annotate(OpenApi.Description, "The whole session: times, figures, event timeline and transcript")
  )
  .add(
    HttpApiEndpoint.post("hangupCall")`/calls/${sessionIdParam}/hangup`
      .annotate(OpenApi.Summary, "Hang up a call")
      .addSuccess(HangupResult)
      .addError(CallNotFound.http)
      .annotate(
        OpenApi.Description,
        "Ends a live call (before the answer: CANCELED); on an ended call, answers its state"
      )
  )
  .add(
    HttpApiEndpoint.post("transferCall")`/calls/${sessionIdParam}/transfer`
      .annotate(OpenApi.Summary, "Transfer a live call")
      .setPayload(TransferCallRequest)
      .addSuccess(TransferCallResult)
      .addError(CallNotFound.http)
      .addError(CallNotLive.http)
      .addError(TransferFailed.http)
      .annotate(
        OpenApi.Description,
        "Extension: the carrier takes the call in progress to toNumber (a cold transfer: at once); the agent's part, " +
          "and the session's billing, end there (endReason transferred). 409 CALL_NOT_LIVE unless the call is in " +
          "progress (answers the transfer made, when the call was transferred to the same number before); 409 " +
          "TRANSFER_FAILED when the carrier refuses or cannot transfer (a web call)."
      )
  )
  .add(
    HttpApiEndpoint.get("getCallRecording")`/calls/${sessionIdParam}/recording`
      .annotate(OpenApi.Summary, "Download a call's recording")
      .addSuccess(HttpApiSchema.Uint8Array({ contentType: "audio/wav" }))
      .addError(RecordingNotFound.http)
      .annotate(
        OpenApi.Description,
        "Extension: the call's recording, a stereo 16-bit PCM WAV file (left: the caller; right: the agent as the " +
          "caller heard it; 8 kHz for phone calls, 16 kHz for web calls). 404 when the call is not the tenant's, was " +
          "not recorded, is still going on, or its recording was deleted"
      )
  )
  .add(
    HttpApiEndpoint.del("deleteCallRecording")`/calls/${sessionIdParam}/recording`
      .annotate(OpenApi.Summary, "Delete a call's recording")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(RecordingNotFound.http)
      .annotate(
        OpenApi.Description,
        "Extension: deletes the recording's file and its record; 404 when there is none for the tenant"
      )
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", "/webhook-deliveries")
      .annotate(OpenApi.Summary, "List webhook deliveries")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(WebhookDelivery).annotations({ identifier: "WebhookDeliveryPage" }))
      .annotate(OpenApi.Description, "Call-result webhook deliveries, newest first")
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(
    OpenApi.Description,
    "Outbound calls billed to the tenant wallet, their logs and the call-result webhook deliveries"
  )
{}

export class InvalidCarrierSignature extends Schema.TaggedError<InvalidCarrierSignature>()(
  "InvalidCarrierSignature",
  errorFields("The request signature is invalid")
) {
  static readonly http: HttpError<InvalidCarrierSignature> = httpError(this, { status: 403, code: "INVALID_SIGNATURE" })
}

export class InvalidCarrierPayload extends Schema.TaggedError<InvalidCarrierPayload>()(
  "InvalidCarrierPayload",
  errorFields("The carrier's request is not one it sends")
) {
  static readonly http: HttpError<InvalidCarrierPayload> = httpError(this, {
    status: 400,
    code: "INVALID_CARRIER_PAYLOAD"
  })
}

export class TelnyxWebhookReceipt extends Schema.Class<TelnyxWebhookReceipt>("TelnyxWebhookReceipt")({
  eventType: Schema.String,
  applied: Schema.Boolean.annotations({
    description:
      "Whether the event moved the call (answered, hung up); every other event is acknowledged and changes nothing"
  })
}) {}

export class TelephonyCallbacksGroup extends HttpApiGroup.make("telephonyCallbacks")
  .add(
    HttpApiEndpoint.post("twilioStatus")`/telephony/twilio/status/${sessionIdParam}`
      .annotate(OpenApi.Summary, "Receive a Twilio call status callback")
      .setPayload(
        HttpApiSchema.withEncoding(Schema.Record({ key: Schema.String, value: Schema.String }), { kind: "UrlParams" })
      )
      .setHeaders(Schema.Struct({ "x-twilio-signature": Schema.optional(Schema.String) }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(InvalidCarrierSignature.http)
      .annotate(
        OpenApi.Description,
        "Twilio's call status callbacks (no API key): verified with X-Twilio-Signature against PUBLIC_URL, then " +
          "delivered to the call"
      )
  )
  .add(
    HttpApiEndpoint.post("twilioAmd")`/telephony/twilio/amd/${sessionIdParam}`
      .annotate(OpenApi.Summary, "Receive a Twilio asynchronous answering-machine detection result")
      .setPayload(
        HttpApiSchema.withEncoding(Schema.Record({ key: Schema.String, value: Schema.String }), { kind: "UrlParams" })
      )
      .setHeaders(Schema.Struct({ "x-twilio-signature": Schema.optional(Schema.String) }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(InvalidCarrierSignature.http)
      .addError(InvalidCarrierPayload.http)
      .annotate(
        OpenApi.Description,
        "Twilio's AsyncAmdStatusCallback (no API key): verified with X-Twilio-Signature against PUBLIC_URL (403 " +
          "INVALID_SIGNATURE otherwise, nothing done); AnsweredBy (human, machine_start, machine_end_beep, " +
          "machine_end_silence, machine_end_other, fax, unknown) is delivered to the call once; a signed request " +
          "without a CallSid or with another AnsweredBy is 400 INVALID_CARRIER_PAYLOAD. See docs/voicemail.md"
      )
  )
  .add(
    HttpApiEndpoint.post("twilioStreamEnded")`/telephony/twilio/stream-ended/${sessionIdParam}`
      .annotate(OpenApi.Summary, "Tell Twilio how a call goes on when its media stream ended")
      .setPayload(
        HttpApiSchema.withEncoding(Schema.Record({ key: Schema.String, value: Schema.String }), { kind: "UrlParams" })
      )
      .setHeaders(Schema.Struct({ "x-twilio-signature": Schema.optional(Schema.String) }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/xml" }).annotations({ description: "TwiML" }))
      .addError(InvalidCarrierSignature.http)
      .annotate(
        OpenApi.Description,
        "The <Redirect> after a call's <Connect><Stream> (no API key; X-Twilio-Signature): Twilio asks it when the " +
          "call's media stream ended while the call goes on (the runner that held it went away, or refused it). " +
          "Answers TwiML that streams the call to the runner that owns it now, with a fresh token, or <Hangup/> when " +
          "the call is over or its stream ended too often"
      )
  )
  .add(
    HttpApiEndpoint.post("telnyxWebhook")`/telephony/telnyx/webhook/${sessionIdParam}`
      .annotate(OpenApi.Summary, "Receive a Telnyx Call Control webhook")
      .annotate(SignedBody, true)
      .setHeaders(Schema.Struct({
        "telnyx-signature-ed25519": Schema.optional(Schema.String),
        "telnyx-timestamp": Schema.optional(Schema.String)
      }))
      .addSuccess(TelnyxWebhookReceipt)
      .addError(InvalidCarrierSignature.http)
      .addError(InvalidCarrierPayload.http)
      .annotate(
        OpenApi.Description,
        "The webhooks of a call placed on Telnyx (no API key): telnyx-signature-ed25519 must be Telnyx's Ed25519 " +
          "signature of `{telnyx-timestamp}|{raw body}` under TELNYX_PUBLIC_KEY, the timestamp within five minutes " +
          "(403 INVALID_SIGNATURE otherwise, nothing done). call.answered and call.hangup (by its hangup_cause, at " +
          "Telnyx's times) are delivered to the call, once per event id; every other event is acknowledged and " +
          "ignored. A signed body that is not a Call Control webhook is 400 INVALID_CARRIER_PAYLOAD."
      )
  )
  .add(
    HttpApiEndpoint.post("twilioIncomingCall")`/telephony/twilio/voice`
      .annotate(OpenApi.Summary, "Answer an incoming Twilio call")
      .setPayload(
        HttpApiSchema.withEncoding(Schema.Record({ key: Schema.String, value: Schema.String }), { kind: "UrlParams" })
      )
      .setHeaders(Schema.Struct({ "x-twilio-signature": Schema.optional(Schema.String) }))
      .addSuccess(HttpApiSchema.Text({ contentType: "text/xml" }).annotations({ description: "TwiML" }))
      .addError(InvalidCarrierSignature.http)
      .addError(InvalidCarrierPayload.http)
      .annotate(
        OpenApi.Description,
        "A Twilio number's voice webhook (no API key; X-Twilio-Signature against PUBLIC_URL): the number called (To) " +
          "is looked up among the voice numbers assigned to an active agent. Answers TwiML: <Connect><Stream> to the " +
          "agent; <Say> a short message and <Hangup/> when the tenant's wallet is empty or its calls are at their " +
          "limit (an ended FAILED call is recorded); <Reject/> for a number no agent answers (nothing written). The " +
          "same CallSid again reaches the same call. A request without CallSid, From or To is 400 " +
          "INVALID_CARRIER_PAYLOAD"
      )
  )
  .add(
    HttpApiEndpoint.post("twilioIncomingCallStatus")`/telephony/twilio/voice/status`
      .annotate(OpenApi.Summary, "Receive a Twilio status callback of an incoming call")
      .setPayload(
        HttpApiSchema.withEncoding(Schema.Record({ key: Schema.String, value: Schema.String }), { kind: "UrlParams" })
      )
      .setHeaders(Schema.Struct({ "x-twilio-signature": Schema.optional(Schema.String) }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(InvalidCarrierSignature.http)
      .annotate(
        OpenApi.Description,
        "A Twilio number's call status callback (no API key; X-Twilio-Signature): delivered to the incoming call its " +
          "CallSid names; a CallSid the platform did not take is acknowledged and ignored"
      )
  )
  .add(
    HttpApiEndpoint.post("telnyxIncomingCall")`/telephony/telnyx/webhook`
      .annotate(OpenApi.Summary, "Receive a Telnyx Call Control application's webhook (incoming calls)")
      .annotate(SignedBody, true)
      .setHeaders(Schema.Struct({
        "telnyx-signature-ed25519": Schema.optional(Schema.String),
        "telnyx-timestamp": Schema.optional(Schema.String)
      }))
      .addSuccess(TelnyxWebhookReceipt)
      .addError(InvalidCarrierSignature.http)
      .addError(InvalidCarrierPayload.http)
      .annotate(
        OpenApi.Description,
        "The Call Control application's webhook URL (no API key; signed as the per-call webhooks are). A " +
          "call.initiated with direction incoming to a voice number assigned to an active agent is answered (the " +
          "answer command streams it to the agent and sends its further webhooks to the call's own URL) or, with an " +
          "empty wallet or the tenant's calls at their limit, rejected and recorded as an ended FAILED call; the " +
          "same call_control_id again reaches the same call. Events of a call taken here go to it; everything else " +
          "is acknowledged and ignored"
      )
  )
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Carrier callbacks, verified by the carrier's signature (no API key)")
{}

const kbIdParam = HttpApiSchema.param("kbId", KnowledgeBaseId)
const documentIdParam = HttpApiSchema.param("documentId", KbDocumentId)
const jobIdParam = HttpApiSchema.param("jobId", IngestionJobId)

export const DocumentUpload = HttpApiSchema.Multipart(
  Schema.Struct({ file: Multipart.FilesSchema }),
  { maxFileSize: Option.some(MAX_UPLOAD_BYTES), maxParts: Option.some(MAX_UPLOAD_FILES + 5) }
)

export class KnowledgeBasesGroup extends HttpApiGroup.make("knowledgeBases")
  .add(
    HttpApiEndpoint.post("createKnowledgeBase", "/knowledge-bases")
      .annotate(OpenApi.Summary, "Create a knowledge base")
      .setPayload(reportAllIssues(CreateKnowledgeBaseRequest))
      .addSuccess(KnowledgeBase, { status: 201 })
      .addError(KbKeyTaken.http)
      .addError(UnknownEmbedder.http)
      .addError(KnowledgeStoreUnavailable.http)
      .annotate(
        OpenApi.Description,
        "Creates the knowledge base and its vector collection (cosine space). retrievalScoreThreshold defaults to " +
          "KB_SCORE_THRESHOLD; embedder to the platform's (EMBEDDER). When the vector store refuses, nothing is stored."
      )
  )
  .add(
    HttpApiEndpoint.get("listKnowledgeBases", "/knowledge-bases")
      .annotate(OpenApi.Summary, "List knowledge bases")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(KnowledgeBase).annotations({ identifier: "KnowledgeBasePage" }))
  )
  .add(
    HttpApiEndpoint.get("getKnowledgeBase")`/knowledge-bases/${kbIdParam}`
      .annotate(OpenApi.Summary, "Get a knowledge base")
      .addSuccess(KnowledgeBase)
      .addError(KnowledgeBaseNotFound.http)
  )
  .add(
    HttpApiEndpoint.patch("updateKnowledgeBase")`/knowledge-bases/${kbIdParam}`
      .annotate(OpenApi.Summary, "Update a knowledge base")
      .setPayload(reportAllIssues(UpdateKnowledgeBaseRequest))
      .addSuccess(KnowledgeBase)
      .addError(KnowledgeBaseNotFound.http)
      .addError(KbKeyTaken.http)
      .addError(UnknownEmbedder.http)
      .annotate(
        OpenApi.Description,
        "Changes the fields supplied. A new embedder is recorded as pendingEmbedder: the next ingestion job embeds " +
          "every document with it into a new collection and switches over when done; queries keep using the old " +
          "vectors until then, so vectors of two embedders are never mixed."
      )
  )
  .add(
    HttpApiEndpoint.del("deleteKnowledgeBase")`/knowledge-bases/${kbIdParam}`
      .annotate(OpenApi.Summary, "Delete a knowledge base")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(KnowledgeBaseNotFound.http)
      .addError(KnowledgeStoreUnavailable.http)
      .annotate(
        OpenApi.Description,
        "Drops the collection, then the record, its documents and jobs; agents stop answering from it"
      )
  )
  .add(
    HttpApiEndpoint.post("addSource")`/knowledge-bases/${kbIdParam}/sources`
      .annotate(OpenApi.Summary, "Add a text or URL source")
      .setPayload(reportAllIssues(AddSourceRequest))
      .addSuccess(KbDocument, { status: 201 })
      .addError(KnowledgeBaseNotFound.http)
      .addError(UrlNotAllowed.http)
      .annotate(
        OpenApi.Description,
        "Adds a document from text (title + text), a URL (http/https, fetched by each ingestion job; private and " +
          "loopback addresses refused unless KB_URL_ALLOWLIST permits them) or FAQ pairs (one chunk per pair). " +
          "Discriminated by `type`: TEXT, URL or FAQ. Queue an ingestion job to make it retrievable."
      )
  )
  .add(
    HttpApiEndpoint.post("uploadDocuments")`/knowledge-bases/${kbIdParam}/documents/upload`
      .annotate(OpenApi.Summary, "Upload documents")
      .setPayload(DocumentUpload)
      .addSuccess(UploadResult, { status: 201 })
      .addError(KnowledgeBaseNotFound.http)
      .addError(NoFilesUploaded.http)
      .addError(UnsupportedDocumentType.http)
      .addError(DocumentUnreadable.http)
      .addError(DocumentTooLong.http)
      .annotate(
        OpenApi.Description,
        `Adds one document per multipart part named \`file\` (1 to ${MAX_UPLOAD_FILES} files, ` +
          `${MAX_UPLOAD_BYTES / 1024 / 1024} MiB each, 413 above): ${UPLOAD_EXTENSIONS.join(", ")}, text in UTF-8; ` +
          `PDF text is extracted (no OCR). At most ${MAX_DOCUMENT_CHARS} characters of text per file. All files or ` +
          `none are stored.`
      )
  )
  .add(
    HttpApiEndpoint.get("listDocuments")`/knowledge-bases/${kbIdParam}/documents`
      .annotate(OpenApi.Summary, "List documents")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(KbDocument).annotations({ identifier: "KbDocumentPage" }))
      .addError(KnowledgeBaseNotFound.http)
      .annotate(
        OpenApi.Description,
        "The knowledge base's documents, newest first (removed ones until an ingestion job purges them)"
      )
  )
  .add(
    HttpApiEndpoint.get("getDocument")`/knowledge-bases/${kbIdParam}/documents/${documentIdParam}`
      .annotate(OpenApi.Summary, "Get a document")
      .addSuccess(KbDocument)
      .addError(KnowledgeBaseNotFound.http)
      .addError(KbDocumentNotFound.http)
  )
  .add(
    HttpApiEndpoint.del("deleteDocument")`/knowledge-bases/${kbIdParam}/documents/${documentIdParam}`
      .annotate(OpenApi.Summary, "Remove a document")
      .addSuccess(HttpApiSchema.NoContent)
      .addError(KnowledgeBaseNotFound.http)
      .addError(KbDocumentNotFound.http)
      .annotate(
        OpenApi.Description,
        "Marks the document REMOVED: queries leave its chunks out at once, the next ingestion job deletes them from " +
          "the collection"
      )
  )
  .add(
    HttpApiEndpoint.post("createIngestionJob")`/knowledge-bases/${kbIdParam}/ingestion-jobs`
      .annotate(OpenApi.Summary, "Start an ingestion job")
      .setUrlParams(reportAllIssues(IngestionJobQuery))
      .addSuccess(IngestionJobAccepted, { status: 202 })
      .addError(KnowledgeBaseNotFound.http)
      .annotate(
        OpenApi.Description,
        "Queues ingestion of everything added, changed or removed since the last job (full=true: every document). " +
          "While a job is queued and not yet started, asking again answers that job."
      )
  )
  .add(
    HttpApiEndpoint.get("listIngestionJobs")`/knowledge-bases/${kbIdParam}/ingestion-jobs`
      .annotate(OpenApi.Summary, "List ingestion jobs")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(IngestionJob).annotations({ identifier: "IngestionJobPage" }))
      .addError(KnowledgeBaseNotFound.http)
  )
  .add(
    HttpApiEndpoint.get("getIngestionJob")`/knowledge-bases/${kbIdParam}/ingestion-jobs/${jobIdParam}`
      .annotate(OpenApi.Summary, "Get an ingestion job")
      .addSuccess(IngestionJob)
      .addError(KnowledgeBaseNotFound.http)
      .addError(IngestionJobNotFound.http)
      .annotate(OpenApi.Description, "Status, progress (chunks done of total) and per-document errors")
  )
  .add(
    HttpApiEndpoint.post("queryKnowledgeBase")`/knowledge-bases/${kbIdParam}/query`
      .annotate(OpenApi.Summary, "Query a knowledge base")
      .setPayload(reportAllIssues(QueryRequest))
      .addSuccess(QueryResult)
      .addError(KnowledgeBaseNotFound.http)
      .addError(KnowledgeStoreUnavailable.http)
      .addError(EmbedderUnavailable.http)
      .annotate(
        OpenApi.Description,
        "The topK (default 5, at most 50) chunks nearest the query whose cosine similarity (1 − distance) is at " +
          "least the knowledge base's retrievalScoreThreshold, best first"
      )
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "Knowledge bases agents answer from: documents, ingestion into Chroma, retrieval")
{}

export class CommsApi extends makeApi("comms")
  .add(HealthGroup)
  .add(PersonasGroup)
  .add(AgentsGroup)
  .add(VoiceNumbersGroup)
  .add(AgentWebhookGroup)
  .add(CallsGroup)
  .add(WebCallsGroup)
  .add(KnowledgeBasesGroup)
  .add(TelephonyCallbacksGroup)
  .annotate(OpenApi.Title, "Voice Agent Platform — comms engine")
  .annotate(OpenApi.Version, "1.0.0")
{}

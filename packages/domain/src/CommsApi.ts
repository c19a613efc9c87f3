import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
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
import { errorFields, httpError, type HttpError, reportAllIssues } from "./ApiError.js"
import { Authentication, TenantAuthentication } from "./Auth.js"
import { HealthGroup } from "./Health.js"
import { API_PREFIX, makeApi } from "./HttpApis.js"
import { AgentId, VoiceNumberId } from "./Ids.js"
import { Page, PageQuery } from "./Pagination.js"
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
import { CreateVoiceNumberRequest, VoiceNumber, VoiceNumberExists, VoiceNumberNotFound } from "./VoiceNumbers.js"
import { WebhookDelivery } from "./WebhookDeliveries.js"

const agentIdParam = HttpApiSchema.param("id", AgentId)
const voiceNumberIdParam = HttpApiSchema.param("id", VoiceNumberId)

export class PersonasGroup extends HttpApiGroup.make("personas")
  .add(
    HttpApiEndpoint.get("listPersonas", "/prompts/personas")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(Persona).annotations({ identifier: "PersonaPage" }))
  )
  .middleware(Authentication)
  .prefix(API_PREFIX)
  .annotate(OpenApi.Description, "The catalogue of personas agents are created from")
{}

/** `POST /agents`, shared by comms and platform core. */
export const createAgentEndpoint = HttpApiEndpoint.post("createAgent", "/agents")
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
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(Agent).annotations({ identifier: "AgentPage" }))
  )
  .add(HttpApiEndpoint.get("getAgent")`/agents/${agentIdParam}`.addSuccess(Agent).addError(AgentNotFound.http))
  .add(
    HttpApiEndpoint.patch("updateAgent")`/agents/${agentIdParam}`
      .setPayload(reportAllIssues(UpdateAgentRequest))
      .addSuccess(Agent)
      .addError(AgentNotFound.http)
      .addError(InvalidAgentSettings.http)
      .addError(WebhookTokenRequired.http)
      .annotate(
        OpenApi.Description,
        "Changes only the fields supplied. `metadata` and `settings` are merged (RFC 7396: null removes a key). " +
          "Voice settings need `channel: VOICE`. Enabling the chat-app channel (connectionId and settings.phoneNumberId) " +
          "needs POST /agents/{id}/webhook-token first. `is_active: false` deactivates the agent."
      )
  )
  .add(
    HttpApiEndpoint.post("createAgentWebhookToken")`/agents/${agentIdParam}/webhook-token`
      .addSuccess(AgentWebhookToken)
      .addError(AgentNotFound.http)
      .annotate(OpenApi.Description, "Generates the agent's webhook verify token; calling it again returns the same token")
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
{}

export class VoiceNumbersGroup extends HttpApiGroup.make("voiceNumbers")
  .add(
    HttpApiEndpoint.post("createVoiceNumber", "/voice-numbers")
      .setPayload(reportAllIssues(CreateVoiceNumberRequest))
      .addSuccess(VoiceNumber, { status: 201 })
      .addError(VoiceNumberExists.http)
  )
  .add(
    HttpApiEndpoint.get("listVoiceNumbers", "/voice-numbers")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(VoiceNumber).annotations({ identifier: "VoiceNumberPage" }))
  )
  .add(
    HttpApiEndpoint.get("getVoiceNumber")`/voice-numbers/${voiceNumberIdParam}`
      .addSuccess(VoiceNumber)
      .addError(VoiceNumberNotFound.http)
  )
  .add(
    HttpApiEndpoint.del("deleteVoiceNumber")`/voice-numbers/${voiceNumberIdParam}`
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
    HttpApiEndpoint.get("verifyAgentWebhook")`/channels/chatapp/agents/${HttpApiSchema.param("agentId", AgentId)}/webhook`
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
          "reservation chunk are held at once (402 when the available balance is short; 429 above the concurrent-call " +
          "limit); the call is billed by the second, rounded up to the billing increment, when it ends."
      )
  )
  .add(
    HttpApiEndpoint.get("listCallLogs", "/call-logs")
      .setUrlParams(reportAllIssues(Schema.Struct({ ...PageQuery().fields, ...CallLogQuery.fields })))
      .addSuccess(Page(CallLog).annotations({ identifier: "CallLogPage" }))
      .annotate(OpenApi.Description, "Newest first. Filters: agentId, campaignId, status (a status or an outcome), from, to")
  )
  .add(
    HttpApiEndpoint.get("getCall")`/calls/${sessionIdParam}`
      .addSuccess(CallSession)
      .addError(CallNotFound.http)
      .annotate(OpenApi.Description, "The whole session: times, figures, event timeline and transcript")
  )
  .add(
    HttpApiEndpoint.post("hangupCall")`/calls/${sessionIdParam}/hangup`
      .addSuccess(HangupResult)
      .addError(CallNotFound.http)
      .annotate(OpenApi.Description, "Ends a live call (before the answer: CANCELED); on an ended call, answers its state")
  )
  .add(
    HttpApiEndpoint.get("listWebhookDeliveries", "/webhook-deliveries")
      .setUrlParams(reportAllIssues(PageQuery()))
      .addSuccess(Page(WebhookDelivery).annotations({ identifier: "WebhookDeliveryPage" }))
      .annotate(OpenApi.Description, "Call-result webhook deliveries, newest first")
  )
  .middleware(TenantAuthentication)
  .prefix(API_PREFIX)
{}

export class InvalidCarrierSignature extends Schema.TaggedError<InvalidCarrierSignature>()(
  "InvalidCarrierSignature",
  errorFields("The request signature is invalid")
) {
  static readonly http: HttpError<InvalidCarrierSignature> = httpError(this, { status: 403, code: "INVALID_SIGNATURE" })
}

export class TelephonyCallbacksGroup extends HttpApiGroup.make("telephonyCallbacks")
  .add(
    HttpApiEndpoint.post("twilioStatus")`/telephony/twilio/status/${sessionIdParam}`
      .setPayload(HttpApiSchema.withEncoding(Schema.Record({ key: Schema.String, value: Schema.String }), { kind: "UrlParams" }))
      .setHeaders(Schema.Struct({ "x-twilio-signature": Schema.optional(Schema.String) }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(InvalidCarrierSignature.http)
      .annotate(
        OpenApi.Description,
        "Twilio's call status callbacks (no API key): verified with X-Twilio-Signature against PUBLIC_URL, then " +
          "delivered to the call"
      )
  )
  .prefix(API_PREFIX)
{}

export class CommsApi extends makeApi("comms")
  .add(HealthGroup)
  .add(PersonasGroup)
  .add(AgentsGroup)
  .add(VoiceNumbersGroup)
  .add(AgentWebhookGroup)
  .add(CallsGroup)
  .add(TelephonyCallbacksGroup)
  .annotate(OpenApi.Title, "Voice Agent Platform — comms engine")
  .annotate(OpenApi.Version, "1.0.0")
{}

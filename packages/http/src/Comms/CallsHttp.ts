import * as NodeStream from "@effect/platform-node/NodeStream"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { AgentInactive, AgentNotFound } from "@voiceagent/domain/Agents"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { IdempotencyKeyReused } from "@voiceagent/domain/Billing"
import {
  CallNotFound,
  CallSession,
  HangupResult,
  LiveCallEntity,
  type PlaceCallRequest,
  PlaceCallResponse,
  type SessionId
} from "@voiceagent/domain/Calls"
import { CallTransferRecord, TransferCallResult } from "@voiceagent/domain/CallTransfer"
import { CommsApi, InvalidCarrierPayload, RequestInProgress } from "@voiceagent/domain/CommsApi"
import { ContactNotFound } from "@voiceagent/domain/Contacts"
import type { TenantId } from "@voiceagent/domain/Ids"
import { makePage } from "@voiceagent/domain/Pagination"
import { RecordingNotFound } from "@voiceagent/domain/Recordings"
import { VoiceNumberNotFound } from "@voiceagent/domain/VoiceNumbers"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { CallSessionsRepo } from "@voiceagent/runner/Calls/CallSessionsRepo"
import { CallSpecs } from "@voiceagent/runner/Calls/CallSpecs"
import { deliver } from "@voiceagent/runner/Cluster/Deliver"
import { ContactsRepo } from "@voiceagent/runner/Contacts/ContactsRepo"
import { Recordings } from "@voiceagent/runner/Recordings/Recordings"
import { IdempotentRequests } from "@voiceagent/runner/Sql/IdempotentRequests"
import * as Rows from "@voiceagent/runner/Sql/Rows"
import {
  amdCallbackPath,
  mapAnsweredBy,
  statusCallbackPath,
  streamEndedPath,
  streamEndedTwiml
} from "@voiceagent/runner/Telephony/TwilioCarrier"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import { Webhooks } from "@voiceagent/runner/Webhooks/Webhooks"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import { v7 as uuidv7 } from "uuid"
import { PublicUrl } from "../PublicUrl.js"
import { makeInboundCallHandlers, makeTwilioStatusDelivery, makeTwilioVerifier } from "./InboundCallsHttp.js"
import { makeTelnyxWebhookHandler } from "./TelnyxWebhookHttp.js"

/** Twilio's auth token, when a voice number's provider is served by Twilio: it verifies status callbacks. */
export class TwilioWebhookSecret
  extends Context.Tag("Http/TwilioWebhookSecret")<TwilioWebhookSecret, Option.Option<Redacted.Redacted>>()
{
  static readonly layer = (token: Option.Option<Redacted.Redacted>) => Layer.succeed(TwilioWebhookSecret, token)
}

const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
    ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(Reflect.get(value, k))}`).join(",")}}`
    : JSON.stringify(value)

const requestHash = (payload: PlaceCallRequest) => crypto.createHash("sha256").update(canonical(payload)).digest("hex")

export const CallsHttpLive = HttpApiBuilder.group(CommsApi, "calls", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const numbers = yield* VoiceNumbersRepo
    const contacts = yield* ContactsRepo
    const specs = yield* CallSpecs
    const sessions = yield* CallSessionsRepo
    const idempotency = yield* IdempotentRequests
    const webhooks = yield* Webhooks
    const calls = yield* LiveCallEntity.client
    const recordings = yield* Recordings

    /** Checks every reference against the tenant, then starts the call's entity (which holds the funds). */
    const place = (tenantId: TenantId, payload: PlaceCallRequest) =>
      Effect.gen(function*() {
        // kept per process a few seconds (`ListenerCache`), as the call's entity reads its agent too
        const agent = yield* agents.findCached(tenantId, payload.agentId)
        if (Option.isNone(agent)) return yield* new AgentNotFound()
        if (!agent.value.agent.is_active) return yield* new AgentInactive()
        const number = yield* numbers.findCached(tenantId, payload.voiceNumberId)
        if (Option.isNone(number)) return yield* new VoiceNumberNotFound()
        if (
          payload.customerId !== undefined && Option.isNone(yield* contacts.findForTenant(tenantId, payload.customerId))
        ) {
          return yield* new ContactNotFound()
        }
        const sessionId = uuidv7() as SessionId
        const spec = yield* specs.make({
          tenantId,
          agentId: payload.agentId,
          voiceNumber: number.value,
          toNumber: payload.toNumber,
          customerId: payload.customerId ?? null,
          campaignId: payload.campaignId ?? null,
          campaignAttemptId: payload.campaignAttemptId ?? null,
          metadata: payload.metadata ?? {},
          record: payload.record
        })
        yield* deliver(calls(sessionId).Start({ spec }))
        return new PlaceCallResponse({ sessionId, jobId: spec.jobId, status: "QUEUED" })
      })

    return handlers
      .handle("placeCall", ({ headers, payload }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const key = headers["idempotency-key"]
          if (key === undefined) return yield* place(tenantId, payload)
          const claim = yield* idempotency.claim(PlaceCallResponse, tenantId, "voice-call", key, requestHash(payload))
          switch (claim._tag) {
            case "Replay":
              return claim.response
            case "Conflict":
              return yield* new IdempotencyKeyReused()
            case "InProgress":
              return yield* new RequestInProgress()
            case "New":
              return yield* place(tenantId, payload).pipe(
                Effect.tap((response) =>
                  idempotency.complete(PlaceCallResponse, tenantId, "voice-call", key, response)
                ),
                Effect.onError(() => idempotency.release(tenantId, "voice-call", key))
              )
          }
        }))
      .handle("listCallLogs", ({ urlParams }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const { items, total } = yield* sessions.list(
            tenantId,
            { ...urlParams, includeTranscript: urlParams.include === "transcript" },
            urlParams
          )
          return makePage(items, total, urlParams)
        }))
      .handle("getCall", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const session = yield* sessions.findLog(tenantId, path.sessionId)
          if (Option.isNone(session)) return yield* new CallNotFound()
          const recording = yield* recordings.summary(tenantId, path.sessionId)
          // not a row: the decoded session and its decoded recording summary, put together
          return new CallSession({ ...session.value, recording: Option.getOrNull(recording) }, Rows.validated)
        }))
      .handle("getCallRecording", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const file = yield* recordings.file(tenantId, path.sessionId)
          if (Option.isNone(file)) return yield* new RecordingNotFound()
          return HttpServerResponse.stream(
            NodeStream.fromReadable(() => fs.createReadStream(file.value.path), (error) => error),
            { contentType: "audio/wav", contentLength: file.value.bytes }
          )
        }))
      .handle("deleteCallRecording", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          if (!(yield* recordings.remove(tenantId, path.sessionId))) return yield* new RecordingNotFound()
        }))
      .handle("hangupCall", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          if (Option.isNone(yield* sessions.findLog(tenantId, path.sessionId))) return yield* new CallNotFound()
          const reply = yield* calls(path.sessionId).Hangup({ requestId: uuidv7() }).pipe(Effect.orDie)
          return new HangupResult({ sessionId: path.sessionId, ...reply })
        }))
      .handle("transferCall", ({ path, payload }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          if (Option.isNone(yield* sessions.findLog(tenantId, path.sessionId))) return yield* new CallNotFound()
          const reply = yield* calls(path.sessionId).Transfer({
            requestId: uuidv7(),
            toNumber: payload.toNumber,
            mode: "cold",
            source: "api"
          }).pipe(
            Effect.catchTags({
              AlreadyProcessingMessage: Effect.die,
              MailboxFull: Effect.die,
              PersistenceError: Effect.die
            })
          )
          return new TransferCallResult({
            sessionId: path.sessionId,
            status: reply.status,
            outcome: reply.outcome,
            transfer: new CallTransferRecord({
              toNumber: reply.toNumber,
              mode: reply.mode,
              source: reply.source,
              at: new Date(reply.at)
            })
          })
        }))
      .handle("listWebhookDeliveries", ({ urlParams }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const { items, total } = yield* webhooks.list(tenantId, urlParams)
          return makePage(items, total, urlParams)
        }))
  }))

export const TelephonyCallbacksHttpLive = HttpApiBuilder.group(
  CommsApi,
  "telephonyCallbacks",
  (handlers) =>
    Effect.gen(function*() {
      const publicUrl = yield* PublicUrl
      const calls = yield* LiveCallEntity.client
      const telnyx = yield* makeTelnyxWebhookHandler
      const verified = yield* makeTwilioVerifier
      const deliverStatus = yield* makeTwilioStatusDelivery
      const inbound = yield* makeInboundCallHandlers
      return handlers
        .handle("twilioStreamEnded", ({ headers, path, payload }) =>
          Effect.gen(function*() {
            yield* verified(streamEndedPath(path.sessionId), headers["x-twilio-signature"], payload)
            const route = yield* calls(path.sessionId).StreamEnded().pipe(
              Effect.catchAllCause((cause) =>
                Effect.as(Effect.logWarning("a call's stream could not be routed", cause), null)
              )
            )
            return streamEndedTwiml(route, `${yield* publicUrl.get}${streamEndedPath(path.sessionId)}`)
          }))
        .handle("twilioStatus", ({ headers, path, payload }) =>
          Effect.zipRight(
            verified(statusCallbackPath(path.sessionId), headers["x-twilio-signature"], payload),
            deliverStatus(path.sessionId, payload)
          ))
        .handle("twilioAmd", ({ headers, path, payload }) =>
          Effect.gen(function*() {
            yield* verified(amdCallbackPath(path.sessionId), headers["x-twilio-signature"], payload)
            const callSid = payload["CallSid"] ?? ""
            const raw = payload["AnsweredBy"] ?? ""
            const verdict = mapAnsweredBy(raw)
            if (callSid === "" || verdict === undefined) return yield* new InvalidCarrierPayload()
            yield* calls(path.sessionId).MachineDetected({
              verdict: {
                verdictId: `twilio:${callSid}:amd`,
                ...verdict,
                source: "twilio",
                raw,
                at: yield* Clock.currentTimeMillis
              }
            }).pipe(Effect.orDie)
          }))
        .handle("telnyxWebhook", ({ headers, path }) => telnyx(path.sessionId, headers))
        .handle(
          "twilioIncomingCall",
          ({ headers, payload }) => inbound.twilioIncomingCall(headers["x-twilio-signature"], payload)
        )
        .handle(
          "twilioIncomingCallStatus",
          ({ headers, payload }) => inbound.twilioIncomingCallStatus(headers["x-twilio-signature"], payload)
        )
        .handle("telnyxIncomingCall", ({ headers }) => inbound.telnyxIncomingCall(headers))
    })
)

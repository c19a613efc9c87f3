import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AgentInactive, AgentNotFound } from "@voiceagent/domain/Agents"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { IdempotencyKeyReused } from "@voiceagent/domain/Billing"
import {
  CallNotFound,
  HangupResult,
  LiveCallEntity,
  PlaceCallResponse,
  type PlaceCallRequest,
  type SessionId
} from "@voiceagent/domain/Calls"
import { CommsApi, InvalidCarrierSignature, RequestInProgress } from "@voiceagent/domain/CommsApi"
import { ContactNotFound } from "@voiceagent/domain/Contacts"
import type { TenantId } from "@voiceagent/domain/Ids"
import { makePage } from "@voiceagent/domain/Pagination"
import { VoiceNumberNotFound } from "@voiceagent/domain/VoiceNumbers"
import { WebhookDelivery } from "@voiceagent/domain/WebhookDeliveries"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { CallSessionsRepo } from "@voiceagent/runner/Calls/CallSessionsRepo"
import { CallSpecs } from "@voiceagent/runner/Calls/CallSpecs"
import { ContactsRepo } from "@voiceagent/runner/Contacts/ContactsRepo"
import { IdempotentRequests } from "@voiceagent/runner/Sql/IdempotentRequests"
import {
  mapCallStatus,
  statusCallbackPath,
  streamEndedPath,
  streamEndedTwiml,
  verifySignature
} from "@voiceagent/runner/Telephony/TwilioCarrier"
import { VoiceNumbersRepo } from "@voiceagent/runner/VoiceNumbers/VoiceNumbersRepo"
import { Webhooks } from "@voiceagent/runner/Webhooks/Webhooks"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import { v7 as uuidv7 } from "uuid"
import { PublicUrl } from "../PublicUrl.js"

/** Twilio's auth token, when a voice number's provider is served by Twilio: it verifies status callbacks. */
export class TwilioWebhookSecret extends Context.Tag("Http/TwilioWebhookSecret")<TwilioWebhookSecret, Option.Option<Redacted.Redacted>>() {
  static readonly layer = (token: Option.Option<Redacted.Redacted>) => Layer.succeed(TwilioWebhookSecret, token)
}

const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
    ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as any)[k])}`).join(",")}}`
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

    /** Checks every reference against the tenant, then starts the call's entity (which holds the funds). */
    const place = (tenantId: TenantId, payload: PlaceCallRequest) =>
      Effect.gen(function*() {
        const agent = yield* agents.find(tenantId, payload.agentId)
        if (Option.isNone(agent)) return yield* new AgentNotFound()
        if (!agent.value.agent.is_active) return yield* new AgentInactive()
        const number = yield* numbers.find(tenantId, payload.voiceNumberId)
        if (Option.isNone(number)) return yield* new VoiceNumberNotFound()
        if (payload.customerId !== undefined && Option.isNone(yield* contacts.findForTenant(tenantId, payload.customerId))) {
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
          metadata: payload.metadata ?? {}
        })
        yield* calls(sessionId).Start({ spec }).pipe(
          Effect.catchTags({ AlreadyProcessingMessage: Effect.die, MailboxFull: Effect.die, PersistenceError: Effect.die })
        )
        return new PlaceCallResponse({ sessionId, jobId: spec.jobId, status: "QUEUED" })
      })

    return handlers
      .handle("placeCall", ({ headers, payload }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const key = headers["idempotency-key"]
          if (key === undefined) return yield* place(tenantId, payload)
          const claim = yield* idempotency.claim(tenantId, "voice-call", key, requestHash(payload))
          switch (claim._tag) {
            case "Replay":
              return new PlaceCallResponse(claim.response as any)
            case "Conflict":
              return yield* new IdempotencyKeyReused()
            case "InProgress":
              return yield* new RequestInProgress()
            case "New":
              return yield* place(tenantId, payload).pipe(
                Effect.tap((response) => idempotency.complete(tenantId, "voice-call", key, response)),
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
        Effect.flatMap(CurrentTenant, ({ tenantId }) =>
          Effect.flatMap(sessions.findLog(tenantId, path.sessionId), Option.match({
            onNone: () => Effect.fail(new CallNotFound()),
            onSome: Effect.succeed
          }))))
      .handle("hangupCall", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          if (Option.isNone(yield* sessions.findLog(tenantId, path.sessionId))) return yield* new CallNotFound()
          const reply = yield* calls(path.sessionId).Hangup({ requestId: uuidv7() }).pipe(Effect.orDie)
          return new HangupResult({ sessionId: path.sessionId, ...reply })
        }))
      .handle("listWebhookDeliveries", ({ urlParams }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const { items, total } = yield* webhooks.list(tenantId, urlParams)
          return makePage(items.map((d) => new WebhookDelivery(d, { disableValidation: true })), total, urlParams)
        }))
  }))

export const TelephonyCallbacksHttpLive = HttpApiBuilder.group(CommsApi, "telephonyCallbacks", (handlers) =>
  Effect.gen(function*() {
    const secret = yield* TwilioWebhookSecret
    const publicUrl = yield* PublicUrl
    const calls = yield* LiveCallEntity.client
    const verified = (path: string, signature: string | undefined, payload: Readonly<Record<string, string>>) =>
      Effect.gen(function*() {
        const url = `${yield* publicUrl.get}${path}`
        if (Option.isNone(secret) || signature === undefined || !verifySignature(Redacted.value(secret.value), url, payload, signature)) {
          return yield* new InvalidCarrierSignature()
        }
      })
    return handlers
      .handle("twilioStreamEnded", ({ headers, path, payload }) =>
        Effect.gen(function*() {
          yield* verified(streamEndedPath(path.sessionId), headers["x-twilio-signature"], payload)
          const route = yield* calls(path.sessionId).StreamEnded().pipe(
            Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("a call's stream could not be routed", cause), null))
          )
          return streamEndedTwiml(route, `${yield* publicUrl.get}${streamEndedPath(path.sessionId)}`)
        }))
      .handle("twilioStatus", ({ headers, path, payload }) =>
      Effect.gen(function*() {
        yield* verified(statusCallbackPath(path.sessionId), headers["x-twilio-signature"], payload)
        const kind = mapCallStatus(payload["CallStatus"] ?? "")
        if (kind === null) return
        const callSid = payload["CallSid"] ?? ""
        // Twilio's own time of the event (RFC 2822, to the second): a callback that arrives late, or
        // is redelivered after an outage, still bills the call by when things happened
        const stamped = Date.parse(payload["Timestamp"] ?? "")
        yield* calls(path.sessionId).ProviderEvent({
          event: {
            eventId: `twilio:${callSid}:${payload["CallStatus"]}`,
            kind,
            at: Number.isNaN(stamped) ? yield* Clock.currentTimeMillis : stamped,
            providerCallId: callSid === "" ? null : callSid
          }
        }).pipe(Effect.orDie)
      }))
  }))

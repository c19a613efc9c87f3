/**
 * Builds the `CallSpec` a `LiveCall` starts with: the references already checked by the caller, the
 * tenant's prices and concurrent-call limit, the platform's timeouts. Used by the calls API and by
 * the campaign dialer, so a campaign call is billed and limited exactly like an API call; web calls
 * too (`makeWeb`), at the rate card's web price.
 */
import type { CallSpec } from "@voiceagent/domain/Calls"
import type { AgentId, ContactId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import type { JsonObject } from "@voiceagent/domain/Json"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import { WEB_CALL_JOIN_GRACE_SECONDS, WEB_CALL_TOKEN_SECONDS } from "@voiceagent/domain/WebCalls"
import * as Effect from "effect/Effect"
import { v7 as uuidv7 } from "uuid"
import { RateCards } from "../Billing/RateCards.js"
import { PlatformSettings } from "../Settings.js"

export interface CallRequest {
  readonly tenantId: TenantId
  readonly agentId: AgentId
  readonly voiceNumber: { readonly id: VoiceNumberId; readonly provider: PhoneProvider; readonly phoneNumber: string }
  readonly toNumber: string
  readonly customerId: ContactId | null
  readonly campaignId: string | null
  readonly campaignAttemptId: string | null
  readonly metadata: JsonObject
  /** Seconds; the platform's default when absent. */
  readonly dialTimeoutSeconds?: number | undefined
  /** The call's own recording request; absent: the agent's setting. */
  readonly record?: boolean | undefined
}

export interface WebCallRequest {
  readonly tenantId: TenantId
  readonly agentId: AgentId
  readonly metadata: JsonObject
  /** The call's own recording request; absent: the agent's setting. */
  readonly record?: boolean | undefined
}

export class CallSpecs extends Effect.Service<CallSpecs>()("Calls/CallSpecs", {
  effect: Effect.gen(function*() {
    const rates = yield* RateCards
    const settings = yield* PlatformSettings

    type Card = Effect.Effect.Success<ReturnType<typeof rates.forTenant>>

    const outgoing = ({ concurrencyLimit, rates: card }: Card, request: CallRequest): CallSpec => ({
      tenantId: request.tenantId,
      jobId: `job_${uuidv7()}`,
      agentId: request.agentId,
      direction: "OUTGOING",
      voiceNumberId: request.voiceNumber.id,
      provider: request.voiceNumber.provider,
      fromNumber: request.voiceNumber.phoneNumber,
      toNumber: request.toNumber,
      customerId: request.customerId,
      campaignId: request.campaignId,
      campaignAttemptId: request.campaignAttemptId,
      metadata: request.metadata,
      ...(request.record === undefined ? {} : { record: request.record }),
      dialTimeoutSeconds: request.dialTimeoutSeconds ?? settings.calls.defaultDialTimeoutSeconds,
      maxDurationSeconds: settings.calls.maxCallDurationSeconds,
      concurrencyLimit,
      currency: card.currency,
      voicePerMinute: card.voicePerMinute,
      billingIncrementSeconds: card.billingIncrementSeconds,
      reservationChunkSeconds: card.reservationChunkSeconds
    })

    const make = (request: CallRequest): Effect.Effect<CallSpec> =>
      Effect.map(rates.forTenant(request.tenantId), (card) => outgoing(card, request))

    /**
     * The tenant's prices read once, for a batch of calls placed at one time (a campaign's pass): the
     * specs it makes are what `make` would make then, without a read of the rate card each.
     */
    const forTenant = (tenantId: TenantId): Effect.Effect<(request: Omit<CallRequest, "tenantId">) => CallSpec> =>
      Effect.map(rates.forTenant(tenantId), (card) => (request) => outgoing(card, { ...request, tenantId }))

    /**
     * A web call: it "rings" until its client opens the stream, for as long as the stream's token is
     * good and a few seconds more (so a late client hears that its token expired).
     */
    const makeWeb = (request: WebCallRequest): Effect.Effect<CallSpec> =>
      Effect.map(rates.forTenant(request.tenantId), ({ concurrencyLimit, rates: card }) => ({
        tenantId: request.tenantId,
        jobId: `job_${uuidv7()}`,
        agentId: request.agentId,
        direction: "WEB",
        voiceNumberId: null,
        provider: "WEB",
        fromNumber: null,
        toNumber: null,
        customerId: null,
        campaignId: null,
        campaignAttemptId: null,
        metadata: request.metadata,
        ...(request.record === undefined ? {} : { record: request.record }),
        dialTimeoutSeconds: (settings.calls.webCallTokenSeconds ?? WEB_CALL_TOKEN_SECONDS) +
          WEB_CALL_JOIN_GRACE_SECONDS,
        maxDurationSeconds: settings.calls.maxCallDurationSeconds,
        concurrencyLimit,
        currency: card.currency,
        voicePerMinute: card.webPerMinute,
        billingIncrementSeconds: card.billingIncrementSeconds,
        reservationChunkSeconds: card.reservationChunkSeconds
      }))

    /** An incoming call to the tenant's number from `fromNumber`, billed and limited as an outgoing call. */
    const makeInbound = (
      request: Omit<CallRequest, "toNumber" | "campaignId" | "campaignAttemptId"> & {
        readonly fromNumber: string
      }
    ): Effect.Effect<CallSpec> =>
      Effect.map(
        make({ ...request, toNumber: request.voiceNumber.phoneNumber, campaignId: null, campaignAttemptId: null }),
        (spec) => ({ ...spec, direction: "INCOMING" as const, fromNumber: request.fromNumber })
      )

    return { make, forTenant, makeWeb, makeInbound } as const
  }),
  dependencies: [RateCards.Default]
}) {}

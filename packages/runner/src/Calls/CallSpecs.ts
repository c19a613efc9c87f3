/**
 * Builds the `CallSpec` a `LiveCall` starts with: the references already checked by the caller, the
 * tenant's prices and concurrent-call limit, the platform's timeouts. Used by the calls API and by
 * the campaign dialer, so a campaign call is billed and limited exactly like an API call.
 */
import type { CallSpec } from "@voiceagent/domain/Calls"
import type { AgentId, ContactId, TenantId, VoiceNumberId } from "@voiceagent/domain/Ids"
import type { JsonObject } from "@voiceagent/domain/Json"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
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
}

export class CallSpecs extends Effect.Service<CallSpecs>()("Calls/CallSpecs", {
  effect: Effect.gen(function*() {
    const rates = yield* RateCards
    const settings = yield* PlatformSettings

    const make = (request: CallRequest): Effect.Effect<CallSpec> =>
      Effect.map(rates.forTenant(request.tenantId), ({ concurrencyLimit, rates: card }) => ({
        tenantId: request.tenantId,
        jobId: `job_${uuidv7()}`,
        agentId: request.agentId,
        voiceNumberId: request.voiceNumber.id,
        provider: request.voiceNumber.provider,
        fromNumber: request.voiceNumber.phoneNumber,
        toNumber: request.toNumber,
        customerId: request.customerId,
        campaignId: request.campaignId,
        campaignAttemptId: request.campaignAttemptId,
        metadata: request.metadata,
        dialTimeoutSeconds: request.dialTimeoutSeconds ?? settings.calls.defaultDialTimeoutSeconds,
        maxDurationSeconds: settings.calls.maxCallDurationSeconds,
        concurrencyLimit,
        currency: card.currency,
        voicePerMinute: card.voicePerMinute,
        billingIncrementSeconds: card.billingIncrementSeconds,
        reservationChunkSeconds: card.reservationChunkSeconds
      }))

    return { make } as const
  }),
  dependencies: [RateCards.Default]
}) {}

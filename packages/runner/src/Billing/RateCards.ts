import * as SqlClient from "@effect/sql/SqlClient"
import { RateCard } from "@voiceagent/domain/Billing"
import { costOf } from "@voiceagent/domain/CallMachine"
import type { TenantId } from "@voiceagent/domain/Ids"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { PlatformSettings } from "../Settings.js"
import * as ListenerCache from "../Shared/ListenerCache.js"
import * as Rows from "../Sql/Rows.js"

const Price = Schema.NullOr(Schema.NonNegativeInt)

/** The tenant's currency (a `char(3)`) and limit, and its own rate card's columns (all null without one). */
const RateRow = Schema.Struct({
  currency: Schema.Trim,
  voicePerMinute: Price,
  webPerMinute: Price,
  billingIncrementSeconds: Schema.NullOr(Schema.Int),
  smsPerSegment: Price,
  chatappPerMessage: Price,
  reservationChunkSeconds: Schema.NullOr(Schema.Int),
  maxConcurrentCalls: Schema.NullOr(Schema.Int)
})
type RateRow = typeof RateRow.Type

export class RateCards extends Effect.Service<RateCards>()("Billing/RateCards", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const settings = yield* PlatformSettings

    /**
     * The tenant's prices (its own rate card, else the platform's) and its concurrent-call limit, kept
     * per process (`ListenerCache`: a place or a dial reads them without a statement; rate cards and
     * limits are set by operators, seen within the cache's time to live).
     */
    const forTenant = (tenantId: TenantId) =>
      // the row is kept, not the prices: the platform's defaults are this process's settings
      ListenerCache.cached(tenantId, "rate-card", read(tenantId)).pipe(
        Effect.map((row) => {
          const defaults = settings.rates
          const own = row !== undefined && row.voicePerMinute !== null
          const voicePerMinute = own ? row.voicePerMinute! : defaults.voicePerMinute
          // a web minute costs what a phone minute costs unless its own price is set
          const webPerMinute = own ? row.webPerMinute ?? voicePerMinute : defaults.webPerMinute ?? voicePerMinute
          const reservationChunkSeconds = own ? row.reservationChunkSeconds! : defaults.reservationChunkSeconds
          return {
            rates: new RateCard({
              currency: row?.currency ?? "USD",
              voicePerMinute,
              webPerMinute,
              billingIncrementSeconds: own ? row.billingIncrementSeconds! : defaults.billingIncrementSeconds,
              smsPerSegment: own ? row.smsPerSegment! : defaults.smsPerSegment,
              chatAppPerMessage: own ? row.chatappPerMessage! : defaults.chatAppPerMessage,
              reservationChunkSeconds,
              minimumReservation: costOf(reservationChunkSeconds, voicePerMinute),
              source: own ? "tenant" : "platform"
            }, Rows.validated),
            concurrencyLimit: row?.maxConcurrentCalls ?? settings.calls.defaultConcurrentCalls
          }
        })
      )

    const read = (tenantId: TenantId) =>
      Rows.findOne(
        RateRow,
        sql`
        SELECT t.currency, t.max_concurrent_calls, r.voice_per_minute, r.web_per_minute, r.billing_increment_seconds,
               r.sms_per_segment, r.chatapp_per_message, r.reservation_chunk_seconds
        FROM tenants t LEFT JOIN rate_cards r ON r.tenant_id = t.id
        WHERE t.id = ${tenantId}
      `
      ).pipe(Effect.map(Option.getOrUndefined<RateRow>), Effect.orDie)

    return { forTenant } as const
  })
}) {}

import type { TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Entity from "@effect/cluster/Entity"
import * as Effect from "effect/Effect"
import { Ledger } from "../Billing/Ledger.js"
import { countWalletOperation } from "../Observability/PlatformMetrics.js"
import { withEntityHandlers } from "../Cluster/EntityHandlers.js"

/** Wallet commands of one tenant in flight at once (below the database pool's size). */
export const TENANT_CONCURRENCY = 8

/**
 * The Tenant entity: each wallet command becomes one idempotent ledger transaction.
 *
 * The entity keeps no state in memory, and every command's transaction locks the wallet row, so
 * commands may run concurrently: PostgreSQL serialises what touches the balance, while the
 * messages' bookkeeping (storing each request and its reply) overlaps. With one at a time, a busy
 * tenant's reservations queued behind its settlements and placing a call waited for both.
 */
export const TenantEntityLive = TenantEntity.toLayer(Effect.gen(function*() {
  const address = yield* Entity.CurrentAddress
  const tenantId = address.entityId as string as TenantId
  const ledger = yield* Ledger
  const logged = yield* withEntityHandlers
  const counted = countWalletOperation
  return logged({
    TopUp: ({ payload }) => counted("top_up")(ledger.topUp(tenantId, payload.idempotencyKey, payload.amount)),
    Reserve: ({ payload }) =>
      counted("reserve")(ledger.reserve(tenantId, payload.reservationId, payload.amount, payload.concurrencyLimit)),
    Extend: ({ payload }) => counted("extend")(ledger.extend(tenantId, payload.reservationId, payload.step, payload.amount)),
    Settle: ({ payload }) =>
      counted("settle")(ledger.settle(tenantId, payload.reservationId, payload.amount, payload.kind, payload.reference)),
    Release: ({ payload }) => counted("release")(ledger.release(tenantId, payload.reservationId)),
    Charge: ({ payload }) =>
      counted("charge")(ledger.charge(tenantId, payload.key, payload.amount, payload.kind, payload.reference)),
    GetBalance: () => ledger.balance(tenantId),
    HoldForMessage: ({ payload }) =>
      counted("hold_for_message")(ledger.reserve(tenantId, payload.reservationId, payload.amount, null, "message")).pipe(
        // the call limit is not asked for, so it cannot refuse
        Effect.catchTag("ConcurrentCallLimit", Effect.die)
      ),
    SettleMessage: ({ payload }) =>
      counted("settle_message")(ledger.settle(tenantId, payload.reservationId, payload.amount, payload.kind, payload.reference)),
    ReleaseMessage: ({ payload }) => counted("release_message")(ledger.release(tenantId, payload.reservationId))
  })
}), { concurrency: TENANT_CONCURRENCY, disableFatalDefects: true })

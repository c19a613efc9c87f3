import * as Entity from "@effect/cluster/Entity"
import type { TenantId } from "@voiceagent/domain/Ids"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import { Ledger, SETTLE_BATCH } from "../Billing/Ledger.js"
import { withEntityHandlers } from "../Cluster/EntityHandlers.js"
import { failpoint } from "../Failpoints.js"
import { countWalletOperation } from "../Observability/PlatformMetrics.js"

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
export const TenantEntityLive = TenantEntity.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const tenantId = address.entityId as string as TenantId
    const ledger = yield* Ledger
    const logged = yield* withEntityHandlers
    const counted = countWalletOperation

    // The settlement flush, group-committed: requests that arrive while a flush runs wait for the next
    // one, which settles every call ENDED before it started (theirs among them), in one statement per
    // SETTLE_BATCH calls.
    const flush: Effect.Effect<number> = failpoint<never>("tenant.before-settle-flush").pipe(
      Effect.zipRight(ledger.settleEnded(tenantId)),
      Effect.flatMap((r) => r.seen < SETTLE_BATCH ? Effect.succeed(r.settled) : Effect.map(flush, (n) => n + r.settled))
    )
    const requests = yield* Queue.unbounded<Deferred.Deferred<number>>()
    yield* Effect.gen(function*() {
      const first = yield* Queue.take(requests)
      const rest = yield* Queue.takeAll(requests)
      const waiting = [first, ...rest]
      const settled = yield* Effect.exit(counted("settle")(flush))
      yield* Effect.forEach(waiting, (d) => Deferred.done(d, settled), { discard: true })
    }).pipe(Effect.forever, Effect.forkScoped)
    // calls a lost flush left ENDED and unsettled are settled as the entity starts
    yield* Effect.forkScoped(
      flush.pipe(Effect.catchAllCause((cause) => Effect.logWarning("settling ended calls failed", cause)))
    )

    return logged({
      TopUp: ({ payload }) => counted("top_up")(ledger.topUp(tenantId, payload.idempotencyKey, payload.amount)),
      Reserve: ({ payload }) =>
        counted("reserve")(ledger.reserve(tenantId, payload.reservationId, payload.amount, payload.concurrencyLimit)),
      Extend: ({ payload }) =>
        counted("extend")(ledger.extend(tenantId, payload.reservationId, payload.step, payload.amount)),
      Settle: ({ payload }) =>
        counted("settle")(
          ledger.settle(tenantId, payload.reservationId, payload.amount, payload.kind, payload.reference)
        ),
      SettleEnded: () =>
        Effect.flatMap(Deferred.make<number>(), (done) =>
          Queue.offer(requests, done).pipe(
            Effect.zipRight(Deferred.await(done)),
            Effect.map((settled) => ({ settled }))
          )),
      Release: ({ payload }) => counted("release")(ledger.release(tenantId, payload.reservationId)),
      Charge: ({ payload }) =>
        counted("charge")(ledger.charge(tenantId, payload.key, payload.amount, payload.kind, payload.reference)),
      GetBalance: () => ledger.balance(tenantId),
      HoldForMessage: ({ payload }) =>
        counted("hold_for_message")(ledger.reserve(tenantId, payload.reservationId, payload.amount, null, "message"))
          .pipe(
            // the call limit is not asked for, so it cannot refuse
            Effect.catchTag("ConcurrentCallLimit", Effect.die)
          ),
      SettleMessage: ({ payload }) =>
        counted("settle_message")(
          ledger.settle(tenantId, payload.reservationId, payload.amount, payload.kind, payload.reference)
        ),
      ReleaseMessage: ({ payload }) => counted("release_message")(ledger.release(tenantId, payload.reservationId))
    })
  }),
  { concurrency: TENANT_CONCURRENCY, disableFatalDefects: true }
)

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { IdempotencyKeyReused, TopUpResult } from "@voiceagent/domain/Billing"
import { makePage } from "@voiceagent/domain/Pagination"
import { PlatformCoreApi } from "@voiceagent/domain/PlatformCoreApi"
import { TenantEntity } from "@voiceagent/domain/TenantEntity"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { RateCards } from "@voiceagent/runner/Billing/RateCards"
import { Reports } from "@voiceagent/runner/Billing/Reports"
import * as Effect from "effect/Effect"

export const WalletHttpLive = HttpApiBuilder.group(PlatformCoreApi, "wallet", (handlers) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const rates = yield* RateCards
    const reports = yield* Reports
    return handlers
      .handle("getWallet", () => Effect.flatMap(CurrentTenant, ({ tenantId }) => ledger.balance(tenantId)))
      .handle("listTransactions", ({ urlParams }) =>
        Effect.flatMap(CurrentTenant, ({ tenantId }) =>
          Effect.map(ledger.transactions(tenantId, urlParams), ({ items, total }) =>
            makePage(items, total, urlParams))))
      .handle("getUsage", ({ urlParams }) =>
        Effect.flatMap(CurrentTenant, ({ tenantId }) =>
          reports.usage(tenantId, urlParams)))
      .handle("getCallAnalytics", ({ urlParams }) =>
        Effect.flatMap(CurrentTenant, ({ tenantId }) =>
          reports.callAnalytics(tenantId, urlParams)))
      .handle("getRates", () =>
        Effect.flatMap(CurrentTenant, ({ tenantId }) =>
          Effect.map(rates.forTenant(tenantId), (r) =>
            r.rates)))
  }))

export const TopUpsHttpLive = HttpApiBuilder.group(PlatformCoreApi, "topUps", (handlers) =>
  Effect.gen(function*() {
    const tenants = yield* TenantEntity.client
    const ledger = yield* Ledger
    return handlers.handle("topUp", ({ payload }) =>
      Effect.gen(function*() {
        const { tenantId } = yield* CurrentTenant
        const transaction = yield* tenants(tenantId).TopUp({
          idempotencyKey: payload.idempotencyKey,
          amount: payload.amount
        }).pipe(
          Effect.catchTags({
            AlreadyProcessingMessage: Effect.die,
            MailboxFull: Effect.die,
            PersistenceError: Effect.die
          })
        )
        // the cluster answers a repeated key with the first reply, whatever the new amount
        if (transaction.amount !== payload.amount) return yield* new IdempotencyKeyReused()
        return new TopUpResult({ transaction, wallet: yield* ledger.balance(tenantId) })
      }))
  }))

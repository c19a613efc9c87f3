/**
 * Money, in integer minor units of the tenant's currency (cents for USD), never floating point.
 */
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { Timestamp } from "./Timestamp.js"

export const MinorUnits = Schema.Int.annotations({ description: "Integer minor units of the currency (e.g. cents)" })

export class Wallet extends Schema.Class<Wallet>("Wallet")({
  currency: Schema.String,
  balance: MinorUnits.annotations({ description: "Sum of the wallet's ledger entries" }),
  reserved: MinorUnits.annotations({ description: "Held for calls in progress" }),
  available: MinorUnits.annotations({ description: "balance − reserved; never negative" })
}) {}

export const TopUpAmount = Schema.Int.pipe(
  Schema.filter((n) => n >= 1 && n <= 100_000_000, {
    message: () => "amount must be an integer from 1 to 100000000 (minor units)"
  })
)

export const IdempotencyKey = Schema.String.pipe(
  Schema.filter((s) => /^[A-Za-z0-9._:-]{1,128}$/.test(s), {
    message: () => "must be 1 to 128 characters: letters, digits, '.', '_', ':' or '-'"
  })
)

export class TopUpRequest extends Schema.Class<TopUpRequest>("TopUpRequest")({
  amount: TopUpAmount,
  idempotencyKey: IdempotencyKey
}) {}

export const LedgerKinds = ["top_up", "call_charge", "sms_charge", "chatapp_charge"] as const
export const LedgerKind = Schema.Literal(...LedgerKinds)
export type LedgerKind = typeof LedgerKind.Type

export class Transaction extends Schema.Class<Transaction>("Transaction")({
  id: Schema.UUID,
  kind: LedgerKind,
  amount: MinorUnits.annotations({
    description: "Effect on the wallet balance: positive for top-ups, negative for charges"
  }),
  balanceAfter: MinorUnits,
  idempotencyKey: Schema.String,
  reference: Schema.NullOr(Schema.String).annotations({
    description: "What the money was for, e.g. a call session id"
  }),
  createdAt: Timestamp
}) {}

export class TopUpResult extends Schema.Class<TopUpResult>("TopUpResult")({
  transaction: Transaction,
  wallet: Wallet
}) {}

export class RateCard extends Schema.Class<RateCard>("RateCard")({
  currency: Schema.String,
  voicePerMinute: MinorUnits,
  webPerMinute: MinorUnits.annotations({
    description: "A minute of a web call (a browser or an SDK on a WebSocket); unless set, the voice price"
  }),
  billingIncrementSeconds: Schema.Int,
  smsPerSegment: MinorUnits,
  chatAppPerMessage: MinorUnits,
  minimumReservation: MinorUnits.annotations({
    description: "Available balance a call needs before it is placed: one reservation chunk"
  }),
  reservationChunkSeconds: Schema.Int.annotations({
    description: "Talk time each reservation covers; extended as the call lasts"
  }),
  source: Schema.Literal("platform", "tenant").annotations({
    description: "Platform defaults, or a rate card set for this tenant"
  })
}) {}

export const DateRange = Schema.Struct({
  from: Schema.optional(Timestamp).annotations({ description: "ISO 8601 instant, inclusive" }),
  to: Schema.optional(Timestamp).annotations({ description: "ISO 8601 instant, exclusive" })
})

export class Usage extends Schema.Class<Usage>("Usage")({
  from: Schema.NullOr(Timestamp),
  to: Schema.NullOr(Timestamp),
  currency: Schema.String,
  calls: Schema.Int,
  minutes: Schema.Number.annotations({ description: "Billed voice minutes" }),
  billedSeconds: Schema.Int,
  messages: Schema.Struct({ sms: Schema.Int, chatApp: Schema.Int }),
  spend: Schema.Struct({
    voice: MinorUnits,
    sms: MinorUnits,
    chatApp: MinorUnits,
    total: MinorUnits
  })
}) {}

export class CallAnalytics extends Schema.Class<CallAnalytics>("CallAnalytics")({
  from: Schema.NullOr(Timestamp),
  to: Schema.NullOr(Timestamp),
  total: Schema.Int.annotations({ description: "Ended calls in the range" }),
  byOutcome: Schema.Struct({
    ANSWERED: Schema.Int,
    UNANSWERED: Schema.Int,
    BUSY: Schema.Int,
    FAILED: Schema.Int,
    CANCELED: Schema.Int
  }),
  answerRate: Schema.Number.annotations({ description: "ANSWERED / total, 0 when there are no calls" }),
  averageDurationSeconds: Schema.Number.annotations({ description: "Mean talk time of answered calls" })
}) {}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

export class InsufficientFunds extends Schema.TaggedError<InsufficientFunds>()(
  "InsufficientFunds",
  errorFields("The wallet's available balance does not cover the minimum reservation for a call")
) {
  static readonly http: HttpError<InsufficientFunds> = httpError(this, { status: 402, code: "INSUFFICIENT_FUNDS" })
}

export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  errorFields("This idempotency key was already used with a different request")
) {
  static readonly http: HttpError<IdempotencyKeyReused> = httpError(this, {
    status: 422,
    code: "IDEMPOTENCY_KEY_REUSED"
  })
}

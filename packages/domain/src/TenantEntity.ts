/**
 * The `Tenant` entity: one per tenant, owner of its wallet. Money that arrives or leaves without a
 * call (`TopUp`, `Charge`) is persisted with a primary key, so a retried message is applied once; the
 * ledger's unique keys make the same promise a second time, in PostgreSQL.
 *
 * A call's reservation is taken in the statement that inserts its session (a campaign's claim, a
 * call's start), checked in SQL against the locked wallet row, so it needs no command here. The
 * single-call commands (`Reserve`, `Extend`, `Settle`, `Release`) and a message's hold are volatile:
 * each is one idempotent ledger transaction keyed by the reservation's id (and step), and the rows
 * drive a lost one again (a call's Start is sent again, a session not ENDED is resumed and settles,
 * an open reservation without a session is released by the supervisor). Persisting them cost five
 * statements and ~1 ms of CPU each, three times per dial. Their callers send them through
 * `Deliver.deliver` (one policy for the cluster's transport errors).
 *
 * A call's settlement is batched: its end writes the session ENDED with its cost, and `SettleEnded`
 * settles every such call of the tenant in one statement (concurrent requests share it).
 *
 * Every command is also uninterruptible (`ClusterSchema.Uninterruptible`): once sent, it runs to its
 * end whoever stops waiting for it. A persisted command's reply is kept under its primary key and
 * answers every later send of that key; an interruption answered as a reply (a caller that went
 * away, a runner stopping) would answer every retry of that idempotency key with the interruption,
 * and the top-up or charge would never be applied. Uninterruptible, a caller's interruption is not
 * passed on, and a runner that stops leaves the command to the next owner instead of answering it.
 */
import * as ClusterSchema from "@effect/cluster/ClusterSchema"
import * as Entity from "@effect/cluster/Entity"
import * as Rpc from "@effect/rpc/Rpc"
import * as Schema from "effect/Schema"
import { errorFields, type HttpError, httpError } from "./ApiError.js"
import { IdempotencyKeyReused, InsufficientFunds, LedgerKind, Transaction, Wallet } from "./Billing.js"
import { StorableString } from "./Json.js"

export class ConcurrentCallLimit extends Schema.TaggedError<ConcurrentCallLimit>()(
  "ConcurrentCallLimit",
  errorFields("The tenant's concurrent-call limit is reached; try again when a call ends")
) {
  static readonly http: HttpError<ConcurrentCallLimit> = httpError(this, { status: 429, code: "CONCURRENT_CALL_LIMIT" })
}

export class ReservationNotOpen extends Schema.TaggedError<ReservationNotOpen>()(
  "ReservationNotOpen",
  errorFields("The reservation is not open")
) {}

export const ReservationId = StorableString.annotations({ description: "Usually the call session id" })

export const TenantEntity = Entity.make("Tenant", [
  Rpc.make("TopUp", {
    payload: { idempotencyKey: StorableString, amount: Schema.Int },
    success: Transaction,
    error: IdempotencyKeyReused,
    primaryKey: ({ idempotencyKey }) => `topup:${idempotencyKey}`
  }),
  Rpc.make("Reserve", {
    payload: {
      reservationId: ReservationId,
      amount: Schema.Int,
      /** When set, refuse once this many call reservations are open (the concurrent-call limit). */
      concurrencyLimit: Schema.NullOr(Schema.Int)
    },
    success: Schema.Void,
    error: Schema.Union(InsufficientFunds, ConcurrentCallLimit)
  }).annotate(ClusterSchema.Persisted, false),
  Rpc.make("Extend", {
    payload: { reservationId: ReservationId, step: Schema.Int, amount: Schema.Int },
    success: Schema.Void,
    error: Schema.Union(InsufficientFunds, ReservationNotOpen)
  }).annotate(ClusterSchema.Persisted, false),
  Rpc.make("Settle", {
    payload: {
      reservationId: ReservationId,
      amount: Schema.Int,
      kind: LedgerKind,
      reference: Schema.NullOr(StorableString)
    },
    success: Schema.Struct({ charged: Schema.Int, released: Schema.Int }),
    error: ReservationNotOpen
  }).annotate(ClusterSchema.Persisted, false),
  // The settlement flush: every call of the tenant ENDED and not settled (its reservation still open)
  // is settled in one statement (`Ledger.settleEnded`); concurrent requests share a flush. The ENDED
  // session rows are the durable intent: a lost request is made again by the next call's end, the
  // Tenant entity's start, or the supervisor.
  Rpc.make("SettleEnded", {
    success: Schema.Struct({ settled: Schema.Int })
  }).annotate(ClusterSchema.Persisted, false),
  Rpc.make("Release", {
    payload: { reservationId: ReservationId },
    success: Schema.Void
  }).annotate(ClusterSchema.Persisted, false),
  Rpc.make("Charge", {
    payload: { key: StorableString, amount: Schema.Int, kind: LedgerKind, reference: Schema.NullOr(StorableString) },
    success: Transaction,
    error: InsufficientFunds,
    primaryKey: ({ key }) => `charge:${key}`
  }),
  Rpc.make("GetBalance", { success: Wallet }).annotate(ClusterSchema.Persisted, false),
  // Post-call messages: their outbox row is the durable record and the message dispatcher repeats a
  // lost command, so these are volatile (no message storage per command); the ledger's keys keep
  // each of them applied once.
  Rpc.make("HoldForMessage", {
    payload: { reservationId: ReservationId, amount: Schema.Int },
    success: Schema.Void,
    error: InsufficientFunds
  }).annotate(ClusterSchema.Persisted, false),
  Rpc.make("SettleMessage", {
    payload: {
      reservationId: ReservationId,
      amount: Schema.Int,
      kind: LedgerKind,
      reference: Schema.NullOr(StorableString)
    },
    success: Schema.Struct({ charged: Schema.Int, released: Schema.Int }),
    error: ReservationNotOpen
  }).annotate(ClusterSchema.Persisted, false),
  Rpc.make("ReleaseMessage", {
    payload: { reservationId: ReservationId },
    success: Schema.Void
  }).annotate(ClusterSchema.Persisted, false)
]).annotateRpcs(ClusterSchema.Persisted, true).annotateRpcs(ClusterSchema.Uninterruptible, true)

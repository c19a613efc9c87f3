/**
 * The wallet and its double-entry ledger. Every operation is one transaction holding the wallet row,
 * and is idempotent: a top-up or charge by its key, a reservation, extension or settlement by its id.
 * The wallet row is a projection kept in the same transactions (balance = sum of the wallet
 * account's entries; reserved = sum of open reservations); a CHECK keeps available from going negative.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import {
  IdempotencyKeyReused,
  InsufficientFunds,
  type LedgerKind,
  Transaction,
  Wallet
} from "@voiceagent/domain/Billing"
import { TenantId } from "@voiceagent/domain/Ids"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import { ConcurrentCallLimit, ReservationNotOpen } from "@voiceagent/domain/TenantEntity"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"

const COUNTER_ACCOUNT: Record<LedgerKind, string> = {
  top_up: "funding",
  call_charge: "revenue:voice",
  sms_charge: "revenue:sms",
  chatapp_charge: "revenue:chatapp"
}

/** A wallet row; `currency` is a `char(3)`. */
const WalletRow = Schema.Struct({ currency: Schema.Trim, balance: Schema.Int, reserved: Schema.Int })
type WalletRow = typeof WalletRow.Type

const walletOf = (row: WalletRow) => new Wallet({ ...row, available: row.balance - row.reserved }, Rows.validated)

const TransactionRow = Rows.of(Transaction)
const StatusRow = Schema.Struct({ status: Schema.String })
const ReservationRow = Schema.Struct({ status: Schema.String, amount: Schema.Int, charged: Schema.Int })
const TakeRow = Schema.Struct({
  inserted: Schema.Int,
  available: Schema.NullOr(Schema.Int),
  openCalls: Schema.NullOr(Schema.Int)
})

/** Calls settled per flush statement at most (a flush that fills it runs again). */
export const SETTLE_BATCH = 500

/*
 * WALLET_FROM_LOCK. A statement that locks the wallet row in a CTE (`SELECT … FOR UPDATE`, which waits
 * for a concurrent writer and returns the row's latest version) and then adds to its reserved funds must
 * compute the new row from that locked version (`SET balance = w.balance, reserved = w.reserved + …
 * FROM w`), not from the column itself. The UPDATE finds the row through the statement's snapshot,
 * taken before the lock was granted; PostgreSQL checks `CHECK (balance - reserved >= 0)` on the row
 * computed from that older version before it follows the update chain to the latest one, so a
 * settlement committed meanwhile (funds released, or a top-up) made a reservation the latest row could
 * afford fail with 23514 (seen: `BatchedWallet.test` on PostgreSQL, one run in three). Decreases of
 * reserved funds cannot trip the check that way and keep the column form.
 */

const UUID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

const TRANSACTION_COLUMNS = "id, kind, amount, balance_after, idempotency_key, reference, created_at"

export class Ledger extends Effect.Service<Ledger>()("Billing/Ledger", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const transactionColumns = sql.literal(TRANSACTION_COLUMNS)

    /**
     * The `i`-th id of a batch, in SQL: a UUIDv7 made for the statement with its last 32 bits replaced
     * by `i`, so a batch's ids are unique, and ordered as the batch is and in time as every other id.
     * The base is a parameter, not part of the text: the statement's text stays the same from one
     * flush to the next (PGlite's client prepares a text once; a text per flush was parsed anew).
     */
    const idAt = (base: string, i: string) =>
      sql`overlay(${base}::text placing lpad(to_hex(${sql.literal(i)}), 8, '0') from 29 for 8)::uuid`

    /** The tenant's wallet row, locked for this transaction; created on first use (one statement once it exists). */
    const lockWallet = (tenantId: TenantId) =>
      Effect.gen(function*() {
        const select = Rows.findOne(
          WalletRow,
          sql`SELECT currency, balance, reserved FROM wallets WHERE tenant_id = ${tenantId} FOR UPDATE`
        )
        const existing = yield* select
        if (Option.isSome(existing)) return existing.value
        yield* sql`
          INSERT INTO wallets (tenant_id, currency)
          SELECT id, currency FROM tenants WHERE id = ${tenantId}
          ON CONFLICT (tenant_id) DO NOTHING
        `
        const row = yield* select
        if (Option.isNone(row)) return yield* Effect.dieMessage(`no tenant ${tenantId}`)
        return row.value
      })

    const findTransaction = (tenantId: TenantId, key: string) =>
      Rows.findOne(
        TransactionRow,
        sql`
        SELECT ${transactionColumns} FROM ledger_transactions
        WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}
      `
      ).pipe(Effect.map(Option.getOrUndefined))

    /** Posts a movement of `amount` on the wallet (signed) against the kind's counter account. */
    const post = (
      tenantId: TenantId,
      wallet: WalletRow,
      entry: { kind: LedgerKind; key: string; amount: number; reference: string | null }
    ) =>
      Effect.gen(function*() {
        const id = uuidv7()
        const balanceAfter = wallet.balance + entry.amount
        // the transaction, its two balancing entries and the wallet's new balance: one statement
        return yield* Rows.single(
          TransactionRow,
          sql`
          WITH txn AS (
            INSERT INTO ledger_transactions (id, tenant_id, kind, idempotency_key, amount, balance_after, reference)
            VALUES (${id}, ${tenantId}, ${entry.kind}, ${entry.key}, ${entry.amount}, ${balanceAfter},
              ${entry.reference})
            RETURNING ${transactionColumns}
          ), entries AS (
            INSERT INTO ledger_entries (id, transaction_id, tenant_id, account, amount) VALUES
              (${uuidv7()}, ${id}, ${tenantId}, 'wallet', ${entry.amount}),
              (${uuidv7()}, ${id}, ${tenantId}, ${COUNTER_ACCOUNT[entry.kind]}, ${-entry.amount})
          ), wallet AS (
            UPDATE wallets SET balance = ${balanceAfter}, updated_at = now() WHERE tenant_id = ${tenantId}
          )
          SELECT * FROM txn
        `
        )
      })

    const topUp = Effect.fn("Ledger.topUp")(
      function*(tenantId: TenantId, key: string, amount: number) {
        const wallet = yield* lockWallet(tenantId)
        const existing = yield* findTransaction(tenantId, key)
        if (existing !== undefined) {
          return existing.kind === "top_up" && existing.amount === amount
            ? existing
            : yield* new IdempotencyKeyReused()
        }
        return yield* post(tenantId, wallet, { kind: "top_up", key, amount, reference: null })
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    /**
     * Holds `amount` for a reservation; refused when the available balance or the concurrency limit
     * forbids it. One statement: the wallet row is locked (`FOR UPDATE` reads its latest version, after
     * any transaction holding it has committed), and the balance and the count of open calls
     * (`open_calls`, kept on the row) are checked against that version. A reservation that exists
     * already (a repeat) is not taken again; the statement cannot tell it from a refusal, so a second
     * read, outside the lock, tells them apart.
     */
    const reserve = Effect.fn("Ledger.reserve")(
      function*(
        tenantId: TenantId,
        id: string,
        amount: number,
        concurrencyLimit: number | null,
        purpose: "call" | "message" = "call"
      ) {
        const limit = purpose === "call" ? concurrencyLimit : null
        const take = Rows.single(
          TakeRow,
          sql`
          WITH w AS (
            SELECT balance, reserved, balance - reserved AS available, open_calls FROM wallets
              WHERE tenant_id = ${tenantId} FOR UPDATE
          ), ins AS (
            INSERT INTO reservations (id, tenant_id, amount, status, purpose)
            SELECT ${id}::text, ${tenantId}::uuid, ${amount}::bigint, 'open', ${purpose}::text FROM w
            WHERE w.available >= ${amount} AND (${limit}::int IS NULL OR w.open_calls < ${limit}::int)
            ON CONFLICT (tenant_id, id) DO NOTHING
            RETURNING amount
          ), upd AS (
            UPDATE wallets SET balance = w.balance, reserved = w.reserved + ${amount},
              open_calls = w.open_calls + ${purpose === "call" ? 1 : 0}, updated_at = now()
            FROM w WHERE wallets.tenant_id = ${tenantId} AND EXISTS (SELECT 1 FROM ins)
          )
          SELECT (SELECT count(*) FROM ins)::int AS inserted, (SELECT available FROM w) AS available,
                 (SELECT open_calls FROM w) AS open_calls
        `
        )
        const decide = (row: { inserted: number; openCalls: number | null }) =>
          Effect.gen(function*() {
            if (row.inserted === 1) return
            const existing = yield* Rows.findOne(
              StatusRow,
              sql`SELECT status FROM reservations WHERE tenant_id = ${tenantId} AND id = ${id}`
            )
            if (Option.isSome(existing)) return
            if (limit !== null && (row.openCalls ?? 0) >= limit) return yield* new ConcurrentCallLimit()
            return yield* new InsufficientFunds()
          })
        const row = yield* take
        if (row.available !== null) return yield* decide(row)
        // the wallet's first use: created and the reservation taken in one transaction, so a refusal
        // leaves no wallet behind (nothing written)
        return yield* Effect.gen(function*() {
          yield* lockWallet(tenantId)
          return yield* decide(yield* take)
        }).pipe(sql.withTransaction)
      },
      Effect.catchTag("SqlError", Effect.die)
    )

    const extend = Effect.fn("Ledger.extend")(
      function*(tenantId: TenantId, id: string, step: number, amount: number) {
        const wallet = yield* lockWallet(tenantId)
        const reservation = yield* Rows.findOne(
          StatusRow,
          sql`
          SELECT status FROM reservations WHERE tenant_id = ${tenantId} AND id = ${id}
        `
        )
        if (Option.isNone(reservation) || reservation.value.status !== "open") return yield* new ReservationNotOpen()
        const done = yield* Rows.findOne(
          Schema.Struct({ step: Schema.Int }),
          sql`
          SELECT step FROM reservation_steps WHERE tenant_id = ${tenantId} AND reservation_id = ${id} AND step = ${step}
        `
        )
        if (Option.isSome(done)) return
        if (wallet.balance - wallet.reserved < amount) return yield* new InsufficientFunds()
        yield* sql`INSERT INTO reservation_steps (tenant_id, reservation_id, step, amount)
          VALUES (${tenantId}, ${id}, ${step}, ${amount})`
        yield* sql`UPDATE reservations SET amount = amount + ${amount} WHERE tenant_id = ${tenantId} AND id = ${id}`
        yield* sql`UPDATE wallets SET reserved = reserved + ${amount}, updated_at = now() WHERE tenant_id = ${tenantId}`
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    /**
     * Charges `amount` (at most what is held) and releases the rest, once. Settling again answers
     * what the first settlement did. One statement: the wallet row locked first (as every writer
     * does), the reservation closed only while it is open (a concurrent settlement that committed
     * first is seen: the update re-checks the row it waited for), the ledger transaction with its two
     * balancing entries, and the wallet's balance, reserved funds and open calls.
     */
    const settle = Effect.fn("Ledger.settle")(
      function*(tenantId: TenantId, id: string, amount: number, kind: LedgerKind, reference: string | null) {
        const txn = uuidv7()
        const closed = yield* Rows.findOne(
          Schema.Struct({ amount: Schema.Int, charged: Schema.Int }),
          sql`
          WITH w AS (
            SELECT balance FROM wallets WHERE tenant_id = ${tenantId} FOR UPDATE
          ), r AS (
            UPDATE reservations v SET status = 'settled', charged = LEAST(GREATEST(${amount}::bigint, 0), v.amount),
              closed_at = now()
            WHERE v.tenant_id = ${tenantId} AND v.id = ${id} AND v.status = 'open' AND EXISTS (SELECT 1 FROM w)
            RETURNING v.amount, v.charged, v.purpose
          ), txn AS (
            INSERT INTO ledger_transactions (id, tenant_id, kind, idempotency_key, amount, balance_after, reference)
            SELECT ${txn}::uuid, ${tenantId}::uuid, ${kind}::text, ${`settle:${id}`}::text, -r.charged,
              w.balance - r.charged, ${reference}::text
            FROM r, w WHERE r.charged > 0
            RETURNING amount
          ), entries AS (
            INSERT INTO ledger_entries (id, transaction_id, tenant_id, account, amount)
            SELECT ${uuidv7()}::uuid, ${txn}::uuid, ${tenantId}::uuid, 'wallet', t.amount FROM txn t
            UNION ALL
            SELECT ${uuidv7()}::uuid, ${txn}::uuid, ${tenantId}::uuid, ${
            COUNTER_ACCOUNT[kind]
          }::text, -t.amount FROM txn t
          ), wallet AS (
            UPDATE wallets SET reserved = wallets.reserved - r.amount,
              open_calls = wallets.open_calls - CASE WHEN r.purpose = 'call' THEN 1 ELSE 0 END,
              balance = wallets.balance + COALESCE((SELECT amount FROM txn), 0), updated_at = now()
            FROM r WHERE wallets.tenant_id = ${tenantId}
          )
          SELECT amount, charged FROM r
        `
        )
        if (Option.isSome(closed)) {
          return { charged: closed.value.charged, released: closed.value.amount - closed.value.charged }
        }
        const reservation = Option.getOrUndefined(
          yield* Rows.findOne(
            ReservationRow,
            sql`
            SELECT status, amount, charged FROM reservations WHERE tenant_id = ${tenantId} AND id = ${id}
          `
          )
        )
        if (reservation?.status === "settled") {
          return { charged: reservation.charged, released: reservation.amount - reservation.charged }
        }
        return yield* new ReservationNotOpen()
      },
      Effect.catchTag("SqlError", Effect.die)
    )

    const release = Effect.fn("Ledger.release")(
      function*(tenantId: TenantId, id: string) {
        yield* lockWallet(tenantId)
        const reservation = Option.getOrUndefined(
          yield* Rows.findOne(
            Schema.Struct({ status: Schema.String, amount: Schema.Int, purpose: Schema.String }),
            sql`
            SELECT status, amount, purpose FROM reservations WHERE tenant_id = ${tenantId} AND id = ${id}
          `
          )
        )
        if (reservation?.status !== "open") return
        yield* sql`
          WITH reservation AS (
            UPDATE reservations SET status = 'released', closed_at = now() WHERE tenant_id = ${tenantId} AND id = ${id}
          )
          UPDATE wallets SET reserved = reserved - ${reservation.amount},
            open_calls = open_calls - ${reservation.purpose === "call" ? 1 : 0}, updated_at = now()
          WHERE tenant_id = ${tenantId}
        `
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    /**
     * Open call reservations older than `olderThanSeconds` whose call session was never written:
     * a `Start` cut off by a crash after its reservation and before its session, and never sent
     * again. Each is deleted (it never backed a call; a `Start` that does come later reserves afresh,
     * its funds checked again) and its funds given back, in a transaction of its own that locks the
     * wallet first, as every other one does. Answers how many were dropped.
     */
    const dropAbandoned = Effect.fn("Ledger.dropAbandoned")(
      function*(olderThanSeconds: number) {
        const candidates = yield* Rows.findAll(
          Schema.Struct({ tenantId: TenantId, id: Schema.String }),
          sql`
          SELECT r.tenant_id, r.id FROM reservations r
          WHERE r.status = 'open' AND r.purpose = 'call'
            AND r.created_at < now() - ${olderThanSeconds} * interval '1 second'
            AND NOT EXISTS (SELECT 1 FROM call_sessions s WHERE s.id::text = r.id)
          LIMIT 500
        `
        )
        let dropped = 0
        for (const { id, tenantId } of candidates) {
          const gone = yield* Effect.gen(function*() {
            yield* lockWallet(tenantId)
            const rows = yield* Rows.findAll(
              Schema.Struct({ amount: Schema.Int }),
              sql`
              DELETE FROM reservations r
              WHERE r.tenant_id = ${tenantId} AND r.id = ${id} AND r.status = 'open'
                AND NOT EXISTS (SELECT 1 FROM call_sessions s WHERE s.id::text = r.id)
              RETURNING r.amount
            `
            )
            if (rows.length === 0) return 0
            yield* sql`
              UPDATE wallets SET reserved = reserved - ${
              rows[0]!.amount
            }, open_calls = open_calls - 1, updated_at = now()
              WHERE tenant_id = ${tenantId}
            `
            return 1
          }).pipe(sql.withTransaction)
          dropped += gone
        }
        return dropped
      },
      Effect.catchTag("SqlError", Effect.die)
    )

    /**
     * The settlement flush: every call of the tenant whose session is ENDED and whose reservation is
     * still open (the durable settle intent) is charged and released, up to `limit` calls, in one
     * statement. The wallet row is locked first (its latest version, as every writer does); each
     * reservation is closed only while open (a concurrent flush that committed first is seen: the
     * update re-checks the row it waited for), so a call is settled once; its ledger transaction
     * carries the same unique key a single settlement would (`settle:<session>`, `ON CONFLICT DO
     * NOTHING`), with its two balancing entries; and the wallet's balance, reserved funds and open
     * calls move once for the batch. A call is charged what its session says it cost, never more than
     * was held for it. Answers how many calls were settled and how many were seen.
     */
    const settleEnded = Effect.fn("Ledger.settleEnded")(
      function*(tenantId: TenantId, limit = SETTLE_BATCH) {
        const txnBase = uuidv7()
        const entryBase = uuidv7()
        return yield* Rows.single(
          Schema.Struct({ settled: Schema.Int, seen: Schema.Int }),
          sql`
          WITH w AS (
            SELECT balance FROM wallets WHERE tenant_id = ${tenantId} FOR UPDATE
          ), due AS (
            SELECT r.id, LEAST(GREATEST(s.cost, 0), r.amount) AS charged
            FROM reservations r
            JOIN call_sessions s ON s.id = (CASE WHEN r.id ~ ${UUID_PATTERN} THEN r.id::uuid END)
            WHERE r.tenant_id = ${tenantId} AND r.status = 'open' AND r.purpose = 'call'
              AND s.tenant_id = ${tenantId} AND s.status = 'ENDED' AND EXISTS (SELECT 1 FROM w)
            ORDER BY r.id
            LIMIT ${limit}
          ), r AS (
            UPDATE reservations v SET status = 'settled', charged = due.charged, closed_at = now()
            FROM due WHERE v.tenant_id = ${tenantId} AND v.id = due.id AND v.status = 'open'
            RETURNING v.id, v.amount, v.charged
          ), n AS (
            SELECT r.id, r.charged, row_number() OVER (ORDER BY r.id) AS i,
              (SELECT balance FROM w) - sum(r.charged) OVER (ORDER BY r.id) AS balance_after
            FROM r WHERE r.charged > 0
          ), ids AS (
            SELECT n.*, ${idAt(txnBase, "n.i")} AS txn_id, ${idAt(entryBase, "2 * n.i")} AS wallet_entry,
              ${idAt(entryBase, "2 * n.i + 1")} AS counter_entry
            FROM n
          ), txn AS (
            INSERT INTO ledger_transactions (id, tenant_id, kind, idempotency_key, amount, balance_after, reference)
            SELECT ids.txn_id, ${tenantId}::uuid, 'call_charge', 'settle:' || ids.id, -ids.charged, ids.balance_after,
              ids.id
            FROM ids
            ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
            RETURNING id, amount
          ), entries AS (
            INSERT INTO ledger_entries (id, transaction_id, tenant_id, account, amount)
            SELECT ids.wallet_entry, t.id, ${tenantId}::uuid, 'wallet', t.amount FROM txn t JOIN ids
              ON ids.txn_id = t.id
            UNION ALL
            SELECT ids.counter_entry, t.id, ${tenantId}::uuid, ${COUNTER_ACCOUNT.call_charge}::text, -t.amount
            FROM txn t JOIN ids ON ids.txn_id = t.id
          ), wallet AS (
            UPDATE wallets SET reserved = wallets.reserved - (SELECT COALESCE(sum(amount), 0) FROM r),
              open_calls = wallets.open_calls - (SELECT count(*) FROM r),
              balance = wallets.balance + (SELECT COALESCE(sum(amount), 0) FROM txn), updated_at = now()
            WHERE wallets.tenant_id = ${tenantId} AND EXISTS (SELECT 1 FROM r)
          )
          SELECT (SELECT count(*) FROM r)::int AS settled, (SELECT count(*) FROM due)::int AS seen
        `
        )
      },
      Effect.catchTag("SqlError", Effect.die)
    )

    /**
     * Tenants with calls ENDED over `olderThanSeconds` ago whose
     * settlement has not been flushed (a flush lost with its runner).
     */
    const unsettledTenants = (olderThanSeconds: number) =>
      Rows.findAll(
        Schema.Struct({ tenantId: TenantId }),
        sql`
        SELECT DISTINCT r.tenant_id FROM reservations r
        JOIN call_sessions s ON s.id = (CASE WHEN r.id ~ ${UUID_PATTERN} THEN r.id::uuid END)
        WHERE r.status = 'open' AND r.purpose = 'call' AND s.status = 'ENDED'
          AND s.ended_at < now() - ${olderThanSeconds} * interval '1 second'
        LIMIT 1000
      `
      ).pipe(Effect.map((rows) => rows.map((r) => r.tenantId)), Effect.orDie)

    /** The tenant's wallet, created when it has none (a claim's statement needs the row to lock). */
    const ensureWallet = (tenantId: TenantId) =>
      sql`
        INSERT INTO wallets (tenant_id, currency)
        SELECT id, currency FROM tenants WHERE id = ${tenantId}
        ON CONFLICT (tenant_id) DO NOTHING
      `.pipe(Effect.asVoid, Effect.orDie)

    /** A charge without a reservation (messages): refused when the available balance does not cover it. */
    const charge = Effect.fn("Ledger.charge")(
      function*(tenantId: TenantId, key: string, amount: number, kind: LedgerKind, reference: string | null) {
        const wallet = yield* lockWallet(tenantId)
        const existing = yield* findTransaction(tenantId, `charge:${key}`)
        if (existing !== undefined) return existing
        if (wallet.balance - wallet.reserved < amount) return yield* new InsufficientFunds()
        return yield* post(tenantId, wallet, { kind, key: `charge:${key}`, amount: -amount, reference })
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const balance = (tenantId: TenantId) =>
      Rows.findOne(
        WalletRow,
        sql`
        SELECT w.currency, w.balance, w.reserved FROM wallets w WHERE w.tenant_id = ${tenantId}
        UNION ALL
        SELECT t.currency, 0, 0 FROM tenants t
        WHERE t.id = ${tenantId} AND NOT EXISTS (SELECT 1 FROM wallets WHERE tenant_id = ${tenantId})
      `
      ).pipe(
        Effect.map((row) => walletOf(Option.getOrElse(row, () => ({ currency: "USD", balance: 0, reserved: 0 })))),
        Effect.orDie
      )

    const transactions = (tenantId: TenantId, page: PageRequest) =>
      Rows.page(
        TransactionRow,
        sql`
          SELECT ${transactionColumns} FROM ledger_transactions WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM ledger_transactions WHERE tenant_id = ${tenantId}`
      )

    return {
      topUp,
      reserve,
      extend,
      settle,
      settleEnded,
      unsettledTenants,
      ensureWallet,
      release,
      dropAbandoned,
      charge,
      balance,
      transactions
    } as const
  })
}) {}

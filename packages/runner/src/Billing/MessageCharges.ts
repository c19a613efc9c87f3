/**
 * Wallet holds and charges for post-call messages, a dispatcher pass's batch at a time: one
 * transaction holds the funds of every claimed message (all tenants of the batch), one records the
 * sends and settles them; each is one statement after locking the batch's wallet rows.
 *
 * Each statement also moves the messages' rows, so a hold and the row's SENDING, or a charge and the
 * row's SENT, commit together or not at all. The keys are the ledger's own: a message's hold is the
 * reservation `message:<id>` (purpose `message`, not counted against the call limit), its charge the
 * ledger transaction `settle:message:<id>`, as `Ledger.reserve`/`settle` name them. So a statement
 * repeated after a crash, or run twice by two dispatchers, holds and charges each message once:
 *
 * - a hold that exists is not taken again (its message is sent under it);
 * - only an open reservation is settled or released, and the wallet moves by exactly the
 *   reservations closed and the ledger rows inserted (`ON CONFLICT DO NOTHING`) by this statement;
 * - funds are checked against the wallet row locked in the statement (wallets locked in tenant
 *   order), and `wallets_available_not_negative` is the last word.
 *
 * The wallet is written here without the `Tenant` entity: a batch spans tenants, and the call path's
 * guarantee never rested on the entity being single-threaded, but on each write being one
 * transaction on the locked wallet row, which these statements are.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { TenantId } from "@voiceagent/domain/Ids"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import * as Rows from "../Sql/Rows.js"

/** A claimed message to hold funds for, in the order the tenant's funds go to them. */
export interface HoldRequest {
  readonly id: string
  readonly tenantId: TenantId
  readonly amount: number
  /** The adapter that will send it (recorded on the row). */
  readonly adapter: string
}

/** A message the hold statement moved to SENDING (funds held, now or by an earlier pass). */
const Holding = Schema.Struct({ id: Schema.String, attempts: Schema.Int, firstAttemptAt: Schema.DateFromSelf })
export type Holding = typeof Holding.Type

interface Sent {
  readonly _tag: "Sent"
  readonly providerMessageId: string
}

interface Retry {
  readonly _tag: "Retry"
  readonly next: Date
  readonly status: number | null
  readonly code: string
  readonly message: string
}

interface Failed {
  readonly _tag: "Failed"
  readonly status: number | null
  readonly code: string
  readonly message: string
}

/** What became of one message's send, and when. */
export type SendOutcome = (Sent | Retry | Failed) & {
  readonly id: string
  readonly tenantId: TenantId
  readonly at: Date
}

export class MessageCharges extends Effect.Service<MessageCharges>()("Billing/MessageCharges", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * The batch's wallets, locked in tenant order before the statement that reads them: its snapshot
     * then sees every hold and settlement committed before, even another dispatcher's on the same rows
     * (a single statement's snapshot would be taken before it waited for their locks).
     */
    const lockWallets = (tenantIds: ReadonlyArray<TenantId>) =>
      sql`SELECT 1 FROM wallets WHERE tenant_id IN ${
        sql.in([...new Set(tenantIds)].sort())
      } ORDER BY tenant_id FOR UPDATE`

    /**
     * Holds each message's price, marks the held ones SENDING (attempt counted) and fails the rest with
     * INSUFFICIENT_FUNDS: one statement. A tenant's messages take its available balance in the order
     * given; from the first one it cannot cover, that one and the later ones in the batch fail. A message
     * already held (a pass that died after this statement) is sent under its hold.
     */
    const hold = (requests: ReadonlyArray<HoldRequest>, at: Date) =>
      requests.length === 0 ? Effect.succeed<ReadonlyArray<Holding>>([]) : Effect.zipRight(
        lockWallets(requests.map((q) => q.tenantId)),
        Rows.findAll(
          Holding,
          sql`
        WITH r AS (
          SELECT r.* FROM jsonb_to_recordset(${JSON.stringify(requests.map((q, ord) => ({ ...q, ord })))}::jsonb)
            AS r(id uuid, "tenantId" uuid, amount bigint, adapter text, ord int)
          JOIN messages m ON m.id = r.id AND m.tenant_id = r."tenantId" AND m.status IN ('QUEUED', 'SENDING')
        ), existing AS (
          SELECT r.id FROM r JOIN reservations v ON v.tenant_id = r."tenantId" AND v.id = 'message:' || r.id
        ), w AS (
          SELECT tenant_id, balance, reserved, balance - reserved AS available FROM wallets
          WHERE tenant_id IN (SELECT "tenantId" FROM r)
          ORDER BY tenant_id FOR UPDATE
        ), fits AS (
          SELECT n.id, n."tenantId", n.amount FROM (
            SELECT r.*, sum(r.amount) OVER (PARTITION BY r."tenantId" ORDER BY r.ord) AS running
            FROM r WHERE r.id NOT IN (SELECT id FROM existing)
          ) n LEFT JOIN w ON w.tenant_id = n."tenantId"
          WHERE n.running <= COALESCE(w.available, 0)
        ), held AS (
          INSERT INTO reservations (id, tenant_id, amount, status, purpose)
          SELECT 'message:' || id, "tenantId", amount, 'open', 'message' FROM fits
          ON CONFLICT (tenant_id, id) DO NOTHING
          RETURNING tenant_id, amount
        ), wallet AS (
          -- from the locked rows' values (w), not the statement's snapshot: see Ledger's WALLET_FROM_LOCK
          UPDATE wallets SET balance = w.balance, reserved = w.reserved + h.total, updated_at = now()
          FROM (SELECT tenant_id, sum(amount) AS total FROM held GROUP BY tenant_id) h JOIN w
            ON w.tenant_id = h.tenant_id
          WHERE wallets.tenant_id = h.tenant_id
        ), refused AS (
          UPDATE messages m SET status = 'FAILED', failed_at = ${at}, next_attempt_at = NULL, claimed_until = NULL,
            last_http_status = NULL, error_code = 'INSUFFICIENT_FUNDS',
            error_message = 'The wallet''s available balance does not cover the message (' || r.amount ||
              ' minor units)'
          FROM r
          WHERE m.id = r.id AND m.status IN ('QUEUED', 'SENDING')
            AND r.id NOT IN (SELECT id FROM fits) AND r.id NOT IN (SELECT id FROM existing)
        ), sending AS (
          UPDATE messages m SET status = 'SENDING', attempts = m.attempts + 1, adapter = r.adapter, reserved = true,
            first_attempt_at = COALESCE(m.first_attempt_at, ${at})
          FROM r
          WHERE m.id = r.id AND m.status IN ('QUEUED', 'SENDING')
            AND (r.id IN (SELECT id FROM fits) OR r.id IN (SELECT id FROM existing))
          RETURNING m.id, m.attempts, m.first_attempt_at
        )
        SELECT id, attempts, first_attempt_at FROM sending
      `
        )
      ).pipe(sql.withTransaction, Effect.orDie)

    /**
     * Records every outcome and settles the batch: one statement. Sent: SENT, the hold charged
     * (`sms_charge`/`chatapp_charge`, two balancing entries). Retry: QUEUED again at `next`, the hold
     * kept. Failed: FAILED, the hold released. A row no longer QUEUED or SENDING (recorded already) is
     * left as it is, and so are its hold and charge.
     */
    const record = (outcomes: ReadonlyArray<SendOutcome>) =>
      outcomes.length === 0 ? Effect.void : Effect.zipRight(
        lockWallets(outcomes.map((o) => o.tenantId)),
        sql`
        WITH r AS (
          SELECT * FROM jsonb_to_recordset(${
          JSON.stringify(outcomes.map((o) => ({
            id: o.id,
            outcome: o._tag,
            at: o.at.toISOString(),
            pmid: o._tag === "Sent" ? o.providerMessageId : null,
            next: o._tag === "Retry" ? o.next.toISOString() : null,
            status: o._tag === "Sent" ? null : o.status,
            code: o._tag === "Sent" ? null : o.code,
            message: o._tag === "Sent" ? null : o.message.slice(0, 500),
            txn: uuidv7(),
            walletEntry: uuidv7(),
            revenueEntry: uuidv7()
          })))
        }::jsonb) AS r(id uuid, outcome text, at timestamptz, pmid text, next timestamptz, status int, code text,
          message text,
                     txn uuid, "walletEntry" uuid, "revenueEntry" uuid)
        ), m AS (
          UPDATE messages m SET
            status = CASE r.outcome WHEN 'Sent' THEN 'SENT' WHEN 'Retry' THEN 'QUEUED' ELSE 'FAILED' END,
            provider_message_id = CASE WHEN r.outcome = 'Sent' THEN r.pmid ELSE m.provider_message_id END,
            cost = CASE WHEN r.outcome = 'Sent' THEN m.price ELSE m.cost END,
            sent_at = CASE WHEN r.outcome = 'Sent' THEN r.at ELSE m.sent_at END,
            failed_at = CASE WHEN r.outcome = 'Failed' THEN r.at ELSE m.failed_at END,
            next_attempt_at = CASE WHEN r.outcome = 'Retry' THEN r.next END,
            claimed_until = NULL,
            last_http_status = CASE WHEN r.outcome = 'Sent' THEN m.last_http_status ELSE r.status END,
            error_code = r.code,
            error_message = r.message
          FROM r
          WHERE m.id = r.id AND m.status IN ('QUEUED', 'SENDING')
          RETURNING m.id, m.tenant_id, m.channel, m.price, r.outcome, r.txn, r."walletEntry", r."revenueEntry"
        ), closed AS (
          UPDATE reservations v SET
            status = CASE WHEN m.outcome = 'Sent' THEN 'settled' ELSE 'released' END,
            charged = CASE WHEN m.outcome = 'Sent' THEN LEAST(m.price, v.amount) ELSE 0 END,
            closed_at = now()
          FROM m
          WHERE m.outcome IN ('Sent', 'Failed') AND v.tenant_id = m.tenant_id AND v.id = 'message:' || m.id
            AND v.status = 'open'
          RETURNING v.tenant_id, v.amount, v.charged, m.id
            AS message_id, m.channel, m.txn, m."walletEntry", m."revenueEntry"
        ), w AS (
          SELECT tenant_id, balance FROM wallets
          WHERE tenant_id IN (SELECT tenant_id FROM closed)
          ORDER BY tenant_id FOR UPDATE
        ), charges AS (
          SELECT c.*, w.balance - sum(c.charged) OVER (PARTITION BY c.tenant_id ORDER BY c.message_id) AS balance_after
          FROM closed c JOIN w ON w.tenant_id = c.tenant_id
          WHERE c.charged > 0
        ), txn AS (
          INSERT INTO ledger_transactions (id, tenant_id, kind, idempotency_key, amount, balance_after, reference)
          SELECT txn, tenant_id, CASE channel WHEN 'SMS' THEN 'sms_charge' ELSE 'chatapp_charge' END,
                 'settle:message:' || message_id, -charged, balance_after, message_id::text
          FROM charges
          ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
          RETURNING id, tenant_id, amount
        ), entries AS (
          INSERT INTO ledger_entries (id, transaction_id, tenant_id, account, amount)
          SELECT c."walletEntry", t.id, t.tenant_id, 'wallet', t.amount FROM txn t JOIN charges c ON c.txn = t.id
          UNION ALL
          SELECT c."revenueEntry", t.id, t.tenant_id, CASE c.channel WHEN 'SMS' THEN 'revenue:sms'
            ELSE 'revenue:chatapp' END, -t.amount
          FROM txn t JOIN charges c ON c.txn = t.id
        )
        UPDATE wallets SET reserved = wallets.reserved - d.released, balance = wallets.balance + COALESCE(d.moved, 0),
          updated_at = now()
        FROM (
          SELECT c.tenant_id, sum(c.amount) AS released, (SELECT sum(t.amount) FROM txn t
            WHERE t.tenant_id = c.tenant_id) AS moved
          FROM closed c GROUP BY c.tenant_id
        ) d
        WHERE wallets.tenant_id = d.tenant_id
      `
      ).pipe(sql.withTransaction, Effect.asVoid, Effect.orDie)

    return { hold, record } as const
  })
}) {}

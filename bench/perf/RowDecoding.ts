/**
 * What decoding rows costs a repository read, in one process: each read through its repository (rows
 * decoded by their row schemas, `Sql/Rows.ts`) against the same statement with its rows left as the
 * driver gives them (the cast the repositories made before), alternating, in the same run. Reads: the
 * auth read's credential (one joined row, `ApiKeysRepo.findCredential`), a 25-contact page
 * (`ContactsRepo.page`), a 25-transaction ledger page with its count (`Ledger.transactions`). Prints µs
 * per read for both and their ratio, ROUNDS rounds of ITERATIONS reads after a warm-up; then the decoding
 * alone (no statement): the 25 contact rows and the 25 transaction rows fetched once, decoded by the row
 * schema against built as before (`new Contact(row, { disableValidation: true })`); with
 * DATABASE_URL on a scratch PostgreSQL database, else PGlite in memory. Run:
 *   npx tsx bench/perf/RowDecoding.ts
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Transaction } from "@voiceagent/domain/Billing"
import { Contact } from "@voiceagent/domain/Contacts"
import type { ContactListId, UserId } from "@voiceagent/domain/Ids"
import { ApiKeysRepo } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"
import { Ledger } from "@voiceagent/runner/Billing/Ledger"
import { ContactsRepo } from "@voiceagent/runner/Contacts/ContactsRepo"
import * as Rows from "@voiceagent/runner/Sql/Rows"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"

const iterations = Number(process.env["ITERATIONS"] ?? 2000)
const rounds = Number(process.env["ROUNDS"] ?? 3)

const timed = <A, E, R>(read: Effect.Effect<A, E, R>, n: number) =>
  Effect.gen(function*() {
    const started = performance.now()
    for (let i = 0; i < n; i++) yield* read
    return ((performance.now() - started) * 1000) / n
  })

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const keys = yield* ApiKeysRepo
  const contacts = yield* ContactsRepo
  const ledger = yield* Ledger
  const t = yield* TestKit.tenant({ balance: 1_000_000 })
  for (let i = 0; i < 30; i++) yield* TestKit.topUp(t.tenantId, 1)
  const [user] = yield* sql<{ id: UserId }>`SELECT id FROM users WHERE tenant_id = ${t.tenantId}`
  const keyHash = crypto.randomBytes(32)
  yield* keys.insert({
    id: crypto.randomUUID() as never,
    userId: user!.id,
    name: "bench",
    prefix: "aok_bench",
    keyHash,
    signingSecret: "s",
    webhookUrl: null,
    agentId: null,
    expiresAt: null
  })
  const listId: ContactListId = yield* TestKit.contactList(
    t.tenantId,
    Array.from({ length: 25 }, (_, i) => `+1415555${String(1000 + i)}`)
  )
  const scope = { tenantId: t.tenantId, listId }

  const rawContacts = sql`
    SELECT c.id, c.tenant_id, c.contact_list_id, c.phone_number, c.name, c.email, c.metadata, c.created_at, c.updated_at
    FROM contacts c
    JOIN (SELECT id FROM contacts WHERE contact_list_id = ${listId} ORDER BY id LIMIT 25 OFFSET 0) AS page
      ON page.id = c.id
    WHERE c.tenant_id = ${t.tenantId}
    ORDER BY c.id
  `
  const rawTransactions = sql`
    SELECT id, kind, amount, balance_after, idempotency_key, reference, created_at FROM ledger_transactions
    WHERE tenant_id = ${t.tenantId} ORDER BY id DESC LIMIT 25 OFFSET 0
  `
  const cases: ReadonlyArray<{
    readonly name: string
    readonly decoded: Effect.Effect<unknown, unknown>
    readonly raw: Effect.Effect<unknown, unknown>
  }> = [
    {
      name: "auth: credential (1 joined row)",
      decoded: keys.findCredential(keyHash),
      raw: sql`
        SELECT k.id, k.key_hash, k.expires_at, k.last_used_at,
               u.id AS user_id, u.email, u.tenant_id, u.created_at AS user_created_at,
               t.name AS tenant_name, t.currency AS tenant_currency, t.created_at AS tenant_created_at
        FROM api_keys k JOIN users u ON u.id = k.user_id LEFT JOIN tenants t ON t.id = u.tenant_id
        WHERE k.key_hash = ${keyHash} AND k.revoked_at IS NULL
      `
    },
    {
      name: "contacts page (25 rows)",
      decoded: contacts.page(scope, 0, 25),
      raw: rawContacts
    },
    {
      name: "ledger page (25 rows + count)",
      decoded: ledger.transactions(t.tenantId, { page: 1, pageSize: 25 }),
      raw: Effect.all([
        rawTransactions,
        sql`SELECT count(*) AS total FROM ledger_transactions WHERE tenant_id = ${t.tenantId}`
      ])
    }
  ]

  for (const c of cases) {
    yield* timed(c.decoded, 200)
    yield* timed(c.raw, 200)
  }
  for (let round = 1; round <= rounds; round++) {
    for (const c of cases) {
      // alternating which goes first, so neither always runs on a warmer process
      const first = round % 2 === 1 ? "decoded" : "raw"
      const a = yield* timed(first === "decoded" ? c.decoded : c.raw, iterations)
      const b = yield* timed(first === "decoded" ? c.raw : c.decoded, iterations)
      const [decoded, raw] = first === "decoded" ? [a, b] : [b, a]
      console.log(
        `round ${round} ${c.name}: decoded ${decoded.toFixed(1)} µs, undecoded ${raw.toFixed(1)} µs, ratio ${
          (decoded / raw).toFixed(3)
        }`
      )
    }
  }

  const contactRows = yield* rawContacts
  const transactionRows = yield* rawTransactions
  const decodeOnly = [
    {
      name: "decode only: 25 contact rows",
      decoded: () => decodeContacts(contactRows),
      cast: () => contactRows.map((r) => new Contact(r as Contact, { disableValidation: true }))
    },
    {
      name: "decode only: 25 transaction rows",
      decoded: () => decodeTransactions(transactionRows),
      cast: () => transactionRows.map((r) => new Transaction(r as Transaction, { disableValidation: true }))
    }
  ]
  const loop = (f: () => unknown, n: number) => {
    const started = performance.now()
    for (let i = 0; i < n; i++) f()
    return ((performance.now() - started) * 1000) / n
  }
  for (let round = 1; round <= rounds; round++) {
    for (const c of decodeOnly) {
      loop(c.decoded, 1000)
      loop(c.cast, 1000)
      const decoded = loop(c.decoded, iterations * 5)
      const cast = loop(c.cast, iterations * 5)
      console.log(`round ${round} ${c.name}: decoded ${decoded.toFixed(1)} µs, built unvalidated ${cast.toFixed(1)} µs`)
    }
  }
}).pipe(Effect.orDie)

const decodeContacts = Schema.decodeUnknownSync(Schema.Array(Rows.of(Contact, { metadata: Rows.JsonObjectColumn })))
const decodeTransactions = Schema.decodeUnknownSync(Schema.Array(Rows.of(Transaction)))

await Effect.runPromise(
  program.pipe(
    Effect.provide(ApiKeysRepo.Default),
    Effect.provide(TestKit.layer({ ringMillis: 0 })),
    Logger.withMinimumLogLevel(LogLevel.Error)
  )
)
process.exit(0)

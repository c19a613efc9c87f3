/**
 * The batched wallet of post-call messages (`Billing/MessageCharges`): a dispatcher that dies between
 * its sends and the statement that records them, and randomised holds and records delivered twice,
 * concurrently and out of order. Whatever happens, no message is charged twice or loses its charge,
 * no wallet goes negative, each wallet equals its ledger and holds exactly its open reservations.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { AgentId, TenantId } from "@voiceagent/domain/Ids"
import { MessageCharges, type SendOutcome } from "@voiceagent/runner/Billing/MessageCharges"
import { makeAzureSmsSender } from "@voiceagent/runner/Messaging/AzureSms"
import { dispatchDueMessages } from "@voiceagent/runner/Messaging/MessageOutbox"
import { simulatedChatAppSender } from "@voiceagent/runner/Messaging/SimulatedSenders"
import { MessageSenders } from "@voiceagent/runner/Ports/MessageSenders"
import { FakeMessaging } from "@voiceagent/runner/Testing/FakeMessaging"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import { Effect, Layer, Redacted } from "effect"
import * as crypto from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"

const START = "2026-11-23T15:00:00Z"

/**
 * Azure Communication Services: it de-duplicates by our message id, so a message sent again reaches the customer once.
 */
const acs = Effect.flatMap(
  FakeMessaging,
  (fake) => makeAzureSmsSender({ endpoint: fake.url, accessKey: Redacted.make(fake.credentials.acs.accessKey) })
)

/** Each tenant's wallet against its ledger and its reservations, and each message's charges. */
const books = (tenantIds: ReadonlyArray<TenantId>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const wallets = yield* sql<{ tenantId: string; balance: number; reserved: number; entries: number; open: number }>`
      SELECT w.tenant_id, w.balance, w.reserved,
             (SELECT COALESCE(sum(e.amount), 0) FROM ledger_entries e WHERE e.tenant_id = w.tenant_id
               AND e.account = 'wallet') AS entries,
             (SELECT COALESCE(sum(v.amount), 0) FROM reservations v WHERE v.tenant_id = w.tenant_id
               AND v.status = 'open') AS open
      FROM wallets w WHERE w.tenant_id IN ${sql.in(tenantIds)}
    `.pipe(Effect.orDie)
    for (const w of wallets) {
      assert.strictEqual(Number(w.balance), Number(w.entries), `tenant ${w.tenantId}: the wallet equals its ledger`)
      assert.strictEqual(Number(w.reserved), Number(w.open), `tenant ${w.tenantId}: reserved is its open reservations`)
      assert.isAtLeast(Number(w.balance) - Number(w.reserved), 0, `tenant ${w.tenantId}: never negative`)
    }
    const messages = yield* sql<
      { id: string; status: string; price: number; cost: number; charges: number; charged: number }
    >`
      SELECT m.id, m.status, m.price, m.cost,
             (SELECT count(*) FROM ledger_transactions t WHERE t.tenant_id = m.tenant_id AND t.reference = m.id::text)
               AS charges,
             (SELECT COALESCE(-sum(t.amount), 0) FROM ledger_transactions t WHERE t.tenant_id = m.tenant_id
               AND t.reference = m.id::text) AS charged
      FROM messages m WHERE m.tenant_id IN ${sql.in(tenantIds)}
    `.pipe(Effect.orDie)
    for (const m of messages) {
      const sent = m.status === "SENT" && Number(m.price) > 0
      assert.strictEqual(Number(m.charges), sent ? 1 : 0, `message ${m.id} (${m.status}): charged ${m.charges} times`)
      assert.strictEqual(Number(m.charged), sent ? Number(m.price) : 0, `message ${m.id}: charged its price`)
    }
    return { wallets, messages }
  })

/** A QUEUED message the dispatcher will not pick (due in 2100): only the test moves it. */
const queued = (t: { readonly tenantId: TenantId; readonly agentId: AgentId }, price: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const id: string = crypto.randomUUID()
    yield* sql`
      INSERT INTO messages (id, tenant_id, channel, session_id, campaign_id, agent_id, call_direction, call_outcome,
                            to_number, sender, provider, body, price, currency, status, next_attempt_at, created_at)
      VALUES (${id}, ${t.tenantId}, 'SMS', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${t.agentId}, 'OUTGOING',
        'ANSWERED',
              '+14155550199', '+14155550100', 'PROVIDER_A', 'hi', ${price}, 'USD', 'QUEUED', '2100-01-01T00:00:00Z',
                now())
    `.pipe(Effect.orDie)
    return { id, tenantId: t.tenantId, price }
  })

/** mulberry32: a seeded generator, so a failing run can be repeated. */
const random = (seed: number) => () => {
  seed = (seed + 0x6D2B79F5) | 0
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}

const TOKEN = path.join(os.tmpdir(), `message-record-failpoint-${process.pid}-${crypto.randomUUID()}`)

const CrashKit = TestKit.layer({
  runtime: {
    senders: { sms: { PROVIDER_C: acs } },
    // the runtime's dispatcher stops for good between its sends and their record: it died there
    failpoints: [{ name: "message-dispatcher.record", at: 1, token: TOKEN }]
  }
}).pipe(Layer.provideMerge(FakeMessaging.layer()), Layer.provideMerge(NodeHttpClient.layerUndici))

describe("message charges", () => {
  it.layer(TestKit.layer(), { timeout: 180_000 })("randomised", (it) => {
    it.effect(
      "holds and records repeated, concurrent and reordered never charge twice, lose a charge or go negative",
      () =>
        Effect.gen(function*() {
          const seed = Number(process.env["MESSAGE_CHARGES_SEED"] ?? Date.now() % 1_000_000)
          const rand = random(seed)
          const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
          const shuffle = <A>(xs: ReadonlyArray<A>) =>
            [...xs].map((x) => [rand(), x] as const).sort((a, b) => a[0] - b[0]).map(([, x]) => x)
          const charges = yield* MessageCharges
          const tenants = yield* Effect.forEach([0, 1, 2], (i) => TestKit.tenant({ balance: [40, 120, 1][i]! }))
          const messages = yield* Effect.forEach(Array.from({ length: 120 }), () => {
            const t = pick(tenants)
            return queued(t, pick([0, 1, 1, 2, 3, 5]))
          })
          let open = messages
          const at = new Date("2026-01-01T00:00:00Z")
          for (let round = 0; round < 8 && open.length > 0; round++) {
            const batch = shuffle(open).slice(0, 50)
            const requests = batch.map((m) => ({ id: m.id, tenantId: m.tenantId, amount: m.price, adapter: "test" }))
            // two dispatchers hold the same batch at once (a split brain), the second in another order
            const [a, b] = yield* Effect.all([charges.hold(requests, at), charges.hold(shuffle(requests), at)], {
              concurrency: 2
            })
            const holding = [...new Map([...a, ...b].map((h) => [h.id, h])).values()]
            const tenantOf = new Map(batch.map((m) => [m.id, m.tenantId]))
            const outcomes = holding.map((h): SendOutcome => {
              const r = rand()
              const tenantId = tenantOf.get(h.id)!
              return r < 0.6
                ? { _tag: "Sent", id: h.id, tenantId, providerMessageId: `pm-${h.id}`, at }
                : r < 0.85
                ? { _tag: "Retry", id: h.id, tenantId, next: at, status: 503, code: "HTTP_503", message: "busy", at }
                : { _tag: "Failed", id: h.id, tenantId, status: 400, code: "HTTP_400", message: "bad", at }
            })
            // the record delivered twice at once, the copies in different orders, some of it a third time
            yield* Effect.all([
              charges.record(outcomes),
              charges.record(shuffle(outcomes)),
              charges.record(outcomes.filter(() => rand() < 0.3))
            ], { concurrency: 3 })
            yield* books(tenants.map((t) => t.tenantId))
            const sql = yield* SqlClient.SqlClient
            const still = yield* sql<{ id: string }>`
              SELECT id FROM messages WHERE status IN ('QUEUED', 'SENDING') AND id IN ${sql.in(open.map((m) => m.id))}
            `.pipe(Effect.orDie)
            const left = new Set(still.map((r) => r.id))
            open = open.filter((m) => left.has(m.id))
          }
          const { messages: final } = yield* books(tenants.map((t) => t.tenantId))
          // the poorest tenant (balance 1) cannot have paid for more than 1
          assert.isAbove(final.filter((m) => m.status === "SENT").length, 0, `seed ${seed}`)
          assert.isAbove(final.filter((m) => m.status === "FAILED").length, 0, `seed ${seed}`)
        })
    )
  })

  // last: its runtime's dispatcher stays stopped until the file's end
  it.layer(CrashKit, { timeout: 120_000 })("a dispatcher dies between its sends and their record", (it) => {
    it.effect("the next dispatcher sends the batch again with the same keys; each message is charged once", () =>
      Effect.gen(function*() {
        yield* TestKit.startAt(START)
        const fake = yield* FakeMessaging
        const before = fake.requests("acs").length
        const delivered = fake.deliveryCount("acs")
        const t = yield* TestKit.tenant({ balance: 1000 })
        yield* TestKit.smsCampaign(t.tenantId, {
          agentId: t.agentId,
          senderNumber: "+14155550100",
          senderProvider: "PROVIDER_C",
          templates: [{ callStatus: "ANSWERED", messageBody: "Thanks, {{name}}" }]
        })
        const events = Array.from({ length: 5 }, () => TestKit.callEndedEvent(t, { toNumber: "+14155550142" }))
        yield* TestKit.publishCallEnded(...events)
        yield* TestKit.advance("1 second")
        yield* fake.awaitRequests(before + 5, "acs")
        // sent and held, nothing recorded nor charged
        yield* TestKit.eventually(Effect.gen(function*() {
          const { messages, wallets } = yield* books([t.tenantId])
          assert.deepStrictEqual(messages.map((m) => m.status), Array(5).fill("SENDING"))
          assert.deepStrictEqual(wallets.map((w) => [Number(w.balance), Number(w.reserved)]), [[1000, 5]])
        }))
        const ids = (yield* books([t.tenantId])).messages.map((m) => m.id).sort()
        const keys = () =>
          fake.requests("acs").slice(before).map((r) =>
            (r.body as any).smsRecipients[0].repeatabilityRequestId as string
          ).sort()
        assert.deepStrictEqual(keys(), ids)

        // the claims run out; another runner's dispatcher (its own adapter) takes the batch up
        yield* TestKit.advance("61 seconds")
        const sender = yield* acs
        const claimed = yield* dispatchDueMessages.pipe(
          Effect.provideService(MessageSenders, { chatApp: simulatedChatAppSender, sms: () => sender })
        )
        assert.strictEqual(claimed, 5)
        // every message asked for twice with its own key, delivered once
        assert.deepStrictEqual(keys(), [...ids, ...ids].sort())
        assert.strictEqual(fake.deliveryCount("acs") - delivered, 5)
        const { messages, wallets } = yield* books([t.tenantId])
        assert.deepStrictEqual(messages.map((m) => [m.status, Number(m.cost)]), Array(5).fill(["SENT", 1]))
        assert.deepStrictEqual(wallets.map((w) => [Number(w.balance), Number(w.reserved)]), [[995, 0]])
        const attempts = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{ attempts: number }>`SELECT attempts FROM messages WHERE tenant_id = ${t.tenantId}`.pipe(Effect.orDie)
        )
        assert.deepStrictEqual(attempts.map((a) => a.attempts), [2, 2, 2, 2, 2])

        // the same record delivered again (a retried statement) changes nothing
        const charges = yield* MessageCharges
        const at = new Date()
        const tenantId = t.tenantId
        yield* charges.record(
          ids.map((id): SendOutcome => ({ _tag: "Sent", id, tenantId, providerMessageId: `again-${id}`, at }))
        )
        yield* charges.record(
          ids.map((id): SendOutcome => ({ _tag: "Failed", id, tenantId, status: 400, code: "X", message: "late", at }))
        )
        const again = yield* books([t.tenantId])
        assert.deepStrictEqual(again.wallets.map((w) => [Number(w.balance), Number(w.reserved)]), [[995, 0]])
        assert.deepStrictEqual(again.messages.map((m) => m.status), Array(5).fill("SENT"))
      }))
  })
})

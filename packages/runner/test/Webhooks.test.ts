import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, it } from "@effect/vitest"
import type { SessionId } from "@voiceagent/domain/Calls"
import type { AgentId, ApiKeyId, TenantId } from "@voiceagent/domain/Ids"
import { ApiKeysRepo } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"
import type { CallEndedEvent } from "@voiceagent/runner/CallRecords/CallEnded"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { dispatcher, RETRY_SCHEDULE, sign, SIGNATURE_HEADER, Webhooks } from "@voiceagent/runner/Webhooks/Webhooks"
import { Clock, Deferred, Duration, Effect, Exit, Fiber, FiberId, Layer, TestClock } from "effect"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

// The outbox and its dispatcher alone, on the TestClock: no cluster, so time can move in hours.

const Outbox = Layer.mergeAll(Webhooks.Default, UsersRepo.Default, ApiKeysRepo.Default).pipe(
  Layer.provideMerge(NodeHttpClient.layerUndici),
  Layer.provideMerge(TestDatabase.layer)
)

type Reply = "ok" | "fail" | "hang"

interface Receiver {
  readonly server: http.Server
  readonly url: string
  readonly received: Array<{ headers: http.IncomingHttpHeaders; body: string }>
  /** Resolves once `count` requests have arrived. */
  readonly arrived: (count: number) => Effect.Effect<void>
}

const receiver = (script: Array<Reply>) =>
  Effect.acquireRelease(
    Effect.async<Receiver>(
      (resume) => {
        const received: Receiver["received"] = []
        const waiting: Array<{ readonly count: number; readonly arrived: Deferred.Deferred<void> }> = []
        const server = http.createServer((req, res) => {
          let body = ""
          req.on("data", (c) => (body += c)).on("end", () => {
            received.push({ headers: req.headers, body })
            for (const waiter of waiting) {
              if (received.length >= waiter.count) Deferred.unsafeDone(waiter.arrived, Exit.void)
            }
            const reply = script.shift() ?? "ok"
            if (reply === "hang") return
            res.writeHead(reply === "ok" ? 200 : 500).end()
          })
        })
        const arrived = (count: number) =>
          Effect.suspend(() => {
            if (received.length >= count) return Effect.void
            const waiter = { count, arrived: Deferred.unsafeMake<void>(FiberId.none) }
            waiting.push(waiter)
            return Deferred.await(waiter.arrived)
          })
        server.listen(0, "127.0.0.1", () =>
          resume(
            Effect.succeed({
              server,
              url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
              received,
              arrived
            })
          ))
      }
    ),
    ({ server }) =>
      Effect.sync(() => server.closeAllConnections()).pipe(
        Effect.zipRight(Effect.async<void>((resume) => void server.close(() => resume(Effect.void))))
      )
  )

const subscriber = (url: string) =>
  Effect.gen(function*() {
    const users = yield* UsersRepo
    const keys = yield* ApiKeysRepo
    const { tenant, user } = yield* users.create({
      email: `w-${crypto.randomUUID()}@example.com`,
      passwordHash: "x",
      companyName: "Co"
    })
    const secret = `whsec_${crypto.randomBytes(8).toString("hex")}`
    yield* keys.insert({
      id: crypto.randomUUID() as ApiKeyId,
      userId: user.id,
      name: "hooks",
      prefix: "aok_x",
      keyHash: crypto.randomBytes(32),
      signingSecret: secret,
      webhookUrl: url,
      agentId: null,
      expiresAt: null
    })
    return { tenantId: tenant!.id as TenantId, secret }
  })

const ended = (tenantId: TenantId): CallEndedEvent => ({
  sessionId: crypto.randomUUID() as SessionId,
  tenantId,
  agentId: crypto.randomUUID() as AgentId,
  campaignId: null,
  campaignAttemptId: null,
  customerId: null,
  direction: "OUTGOING",
  fromNumber: "+14155550100",
  toNumber: "+14155550101",
  outcome: "ANSWERED",
  endReason: "completed",
  startedAt: new Date(0),
  answeredAt: new Date(1000),
  endedAt: new Date(11_000),
  durationSeconds: 10,
  billedSeconds: 12,
  cost: 1,
  currency: "USD",
  transcript: [],
  metadata: { crm: "42" }
})

const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))

const rowOf = (tenantId: TenantId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<any>`SELECT * FROM webhook_deliveries WHERE tenant_id = ${tenantId}`.pipe(
        Effect.map(([r]) => r),
        Effect.orDie
      )
  )

/** How long (real time) the tests wait for what real I/O finishes; generous, every wait ends on its event. */
const REAL_TIME_LIMIT_MS = 30_000

/** Waits for `event` in real time; dies naming it after `millis` (the TestClock would never time it out). */
const awaitReal = <A>(event: Effect.Effect<A>, millis: number, what: string) =>
  Effect.raceFirst(
    event,
    Effect.async<never>((resume) => {
      const timer = setTimeout(() => resume(Effect.dieMessage(`waited ${millis} ms of real time for ${what}`)), millis)
      return Effect.sync(() => clearTimeout(timer))
    })
  )

/**
 * The row once the dispatcher has recorded `attempts` attempts. The receiver sees a request before the
 * dispatcher has read the answer and written it down, so a check right after the request arrives races the
 * dispatcher's UPDATE (a slow database loses that race). This polls in real time, never on the TestClock:
 * only I/O is pending, no timer.
 */
const rowAfter = (tenantId: TenantId, attempts: number) =>
  Effect.gen(function*() {
    // elapsed real time, not a date: performance.now() is monotonic
    const deadline = performance.now() + REAL_TIME_LIMIT_MS
    for (;;) {
      const row = yield* rowOf(tenantId)
      if (row.attempts >= attempts) return row
      if (performance.now() >= deadline) {
        return yield* Effect.dieMessage(
          `attempt ${attempts} was not recorded within ${
            REAL_TIME_LIMIT_MS / 1000
          } s of real time; the row has ${row.attempts}`
        )
      }
      yield* settle
    }
  })

/**
 * Moves time forward a second at a time, for at most `maxSeconds`, until the receiver has had `count`
 * requests; answers how many seconds that took. Each move is followed by a short real-time pause for
 * the dispatcher's work; the delivery itself is real HTTP the clock does not see, so once the clock
 * has gone as far as it may, this waits for the request to arrive (in real time, generously).
 */
const until = (hook: Receiver, count: number, maxSeconds: number) =>
  Effect.gen(function*() {
    let seconds = 0
    for (; seconds < maxSeconds; seconds++) {
      yield* settle
      if (hook.received.length >= count) break
      yield* TestClock.adjust("1 second")
    }
    yield* awaitReal(
      hook.arrived(count),
      REAL_TIME_LIMIT_MS,
      `request ${count} at the receiver, ${maxSeconds} s into the TestClock`
    )
    assert.strictEqual(hook.received.length, count, `exactly ${count} request(s) at the receiver`)
    return seconds
  })

describe("webhook dispatcher, driven by TestClock", () => {
  it.layer(Outbox, { timeout: 120_000 })((it) => {
    it.scoped("retries 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h apart, then gives up", () =>
      Effect.gen(function*() {
        const hook = yield* receiver(Array(20).fill("fail"))
        const { tenantId } = yield* subscriber(hook.url)
        const webhooks = yield* Webhooks
        yield* webhooks.onCallEnded(ended(tenantId))
        // a long idle pause keeps the number of polls over these 27 hours small
        const loop = yield* Effect.fork(
          dispatcher({ pollInterval: "1 second", maxIdleInterval: "1 minute", batchSize: 10 })
        )

        yield* until(hook, 1, 5)
        for (let attempt = 1; attempt < RETRY_SCHEDULE.length; attempt++) {
          const row = yield* rowAfter(tenantId, attempt)
          const delay = Duration.toMillis(Duration.decode(RETRY_SCHEDULE[attempt]!))
          assert.strictEqual(row.attempts, attempt)
          assert.strictEqual(row.lastStatus, 500)
          assert.strictEqual(
            row.nextAttemptAt.getTime() - row.lastAttemptAt.getTime(),
            delay,
            `delay before attempt ${attempt + 1}`
          )
          // nothing early (3 s before it is due, however far the clock went while the attempt was on its way)...
          yield* TestClock.adjust(
            Duration.millis(Math.max(0, row.nextAttemptAt.getTime() - 3_000 - (yield* Clock.currentTimeMillis)))
          )
          yield* settle
          assert.strictEqual(hook.received.length, attempt, `attempt ${attempt + 1} not before its time`)
          // ...and it comes within the dispatcher's idle poll
          yield* until(hook, attempt + 1, 75)
        }
        const last = yield* rowAfter(tenantId, 8)
        assert.strictEqual(last.attempts, 8)
        assert.isNotNull(last.failedAt)
        assert.isNull(last.nextAttemptAt)
        yield* TestClock.adjust("1 day")
        yield* settle
        assert.strictEqual(hook.received.length, 8, "given up after eight attempts")
        assert.isTrue(hook.received.every((r) => r.body === hook.received[0]!.body), "the same event every time")
        yield* Fiber.interrupt(loop)
      }))

    it.scoped("a receiver that does not answer within 10 s is a failed attempt", () =>
      Effect.gen(function*() {
        const hook = yield* receiver(["hang", "ok"])
        const { secret, tenantId } = yield* subscriber(hook.url)
        yield* (yield* Webhooks).onCallEnded(ended(tenantId))
        const loop = yield* Effect.fork(
          dispatcher({ pollInterval: "1 second", maxIdleInterval: "10 seconds", batchSize: 10 })
        )
        yield* until(hook, 1, 5)
        // the request left at the second its signature names (the clock may have moved on since, on a
        // slow machine, before the request reached the receiver): its 10 s run from there
        const [, sentSecond] = /^t=(\d+),/.exec(String(hook.received[0]!.headers[SIGNATURE_HEADER]))!
        const sentAt = Number(sentSecond) * 1000
        yield* TestClock.adjust(Duration.millis(Math.max(0, sentAt + 9_000 - (yield* Clock.currentTimeMillis))))
        yield* settle
        assert.strictEqual((yield* rowOf(tenantId)).attempts, 0, "still waiting for the answer")
        yield* TestClock.adjust(Duration.millis(sentAt + 11_000 - (yield* Clock.currentTimeMillis)))
        yield* until(hook, 2, 30)
        const row = yield* rowAfter(tenantId, 2)
        assert.deepStrictEqual([row.attempts, row.lastStatus, row.lastError], [2, 200, null])
        const second = hook.received[1]!
        const [, t] = /^t=(\d+),/.exec(String(second.headers[SIGNATURE_HEADER]))!
        assert.strictEqual(second.headers[SIGNATURE_HEADER], sign(secret, Number(t), second.body))
        const payload = JSON.parse(second.body)
        assert.deepInclude(payload, { type: "call.ended" })
        assert.deepStrictEqual(payload.data.metadata, { crm: "42" })
        yield* Fiber.interrupt(loop)
      }))

    it.effect("only keys with a webhook URL, and pinned keys only for their agent, get the event", () =>
      Effect.gen(function*() {
        const users = yield* UsersRepo
        const keys = yield* ApiKeysRepo
        const { tenant, user } = yield* users.create({
          email: `p-${crypto.randomUUID()}@example.com`,
          passwordHash: "x",
          companyName: "Co"
        })
        const event = ended(tenant!.id as TenantId)
        const key = (webhookUrl: string | null, agentId: string | null, revoked = false) =>
          Effect.gen(function*() {
            const id = crypto.randomUUID() as ApiKeyId
            yield* keys.insert({
              id,
              userId: user.id,
              name: "k",
              prefix: "aok_x",
              keyHash: crypto.randomBytes(32),
              signingSecret: "s",
              webhookUrl,
              agentId: agentId as AgentId | null,
              expiresAt: null
            })
            if (revoked) yield* keys.revoke({ userId: user.id, tenantId: tenant!.id }, id)
            return id
          })
        const everyAgent = yield* key("https://example.com/all", null)
        const pinnedHere = yield* key("https://example.com/this", event.agentId)
        yield* key("https://example.com/other", crypto.randomUUID())
        yield* key(null, null)
        yield* key("https://example.com/revoked", null, true)
        yield* (yield* Webhooks).onCallEnded(event)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ apiKeyId: string }>`SELECT api_key_id FROM webhook_deliveries WHERE tenant_id = ${
          tenant!.id
        }`
        assert.sameMembers(rows.map((r) => r.apiKeyId), [everyAgent, pinnedHere])
      }))
  })
})

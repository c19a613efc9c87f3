/**
 * Post-call messages: how many the outbox dispatches per second to a provider on loopback.
 *
 * In this process, the testing kit's runtime (the whole runtime with its embedded cluster, on a fresh
 * in-memory PGlite, or a fresh database on the PostgreSQL server) on the real clock, with PROVIDER_A's
 * SMS sender the real Twilio adapter pointed at `FakeMessaging` on 127.0.0.1, and the production
 * messaging options (batches of 50, 16 sends at once, 1 s poll interval). One tenant with a big
 * wallet, one agent, one SMS campaign answering ANSWERED calls.
 *
 * - Platform: `messages` call-ended events (distinct sessions, ANSWERED) published to the outbox as
 *   calls ending do it, 100 per transaction, each transaction followed by the dispatcher's wake-up,
 *   as fast as the database takes them; timed from the first publish until every row is SENT
 *   (polled every 100 ms; the end is the last row's `sent_at`). The dispatcher claims a batch, holds
 *   its funds and marks it SENDING in one transaction, sends it, then records it SENT and settles it
 *   in one transaction (`Billing/MessageCharges`). Measured
 *   twice: kept awake (a wake-up every 10 ms, as calls that keep ending give the dispatcher), then
 *   as a burst (only the publishing wakes it; the dispatcher runs its passes back to back while
 *   they find work, so the two should agree).
 * - Baseline, same database and the same adapter instance (same HTTP pool): the same rows arriving
 *   the same way (100 INSERTs per transaction, as fast as possible) into a copy of the `messages`
 *   table (its columns, checks and indexes), handed over in memory to 16 workers that send each one
 *   and UPDATE it to SENT: the least durable bookkeeping an outbox must do; no cluster, no wallet.
 * - Adapter ceiling: the same number of sends through the adapter, 16 at once, no SQL.
 *
 * The fake must have accepted exactly `messages` sends on every path. SQL/message is the statements
 * this process started during the interval (`SqlActivity.started()`) minus the bench's own polls.
 * Latency is `sent_at − created_at` of the rows (queueing included); for the adapter, one send.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { AgentId, TenantId } from "@voiceagent/domain/Ids"
import type { CallEndedEvent } from "@voiceagent/runner/CallRecords/CallEnded"
import { defaultMessagingOptions, MessageOutbox } from "@voiceagent/runner/Messaging/MessageOutbox"
import { makeTwilioSmsSender } from "@voiceagent/runner/Messaging/TwilioSms"
import type { OutboundSms, SmsSender } from "@voiceagent/runner/Ports/MessageSenders"
import * as SqlActivity from "@voiceagent/runner/Sql/SqlActivity"
import { FakeMessaging, type FakeMessagingServer } from "@voiceagent/runner/Testing/FakeMessaging"
import * as TestKit from "@voiceagent/runner/Testing/TestKit"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as crypto from "node:crypto"
import type { Row } from "../lib/Report.js"

export interface Settings {
  /** Messages per measurement (BENCH_MESSAGES). */
  readonly messages: number
}

type Backend = { readonly name: "pglite" } | { readonly name: "postgres"; readonly url: string }

const WARMUP_MESSAGES = 200
/** Call-ended events per transaction, and baseline rows per transaction. */
const PUBLISH_BATCH = 100
const CONCURRENCY = defaultMessagingOptions.concurrency
const POLL_MS = 100
const SENDER_NUMBER = "+14155550100"
const BODY = "Thanks for your call today. Reply STOP to opt out."

const sleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

const quantile = (sorted: ReadonlyArray<number>, q: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!

const millis = (value: unknown) => value instanceof Date ? value.getTime() : new Date(value as string).getTime()

/** `n` distinct valid E.164 numbers: +1 646 555 xxxx, then +1 212 …. */
const recipients = (from: number, n: number) =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k
    return `+1${["646", "212", "917", "718", "347", "929", "332", "415"][Math.floor(i / 10_000) % 8]}555${
      String(i % 10_000).padStart(4, "0")
    }`
  })

/** A call-ended event as the LiveCall entity publishes it: an outgoing call, answered. */
const ended = (t: { readonly tenantId: TenantId; readonly agentId: AgentId }, to: string): CallEndedEvent =>
  TestKit.callEndedEvent(t, { fromNumber: SENDER_NUMBER, toNumber: to, answeredAt: new Date(), endReason: "bench" })

interface Measured {
  readonly seconds: number
  readonly latencies: ReadonlyArray<number>
  readonly statements: number
}

const program = (settings: Settings, adapter: () => SmsSender) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* MessageOutbox
    const fake = yield* FakeMessaging
    const sender = adapter()
    let nextRecipient = 0

    const t = yield* TestKit.tenant({ balance: 1_000_000_000 })
    yield* TestKit.smsCampaign(t.tenantId, {
      agentId: t.agentId,
      senderNumber: SENDER_NUMBER,
      senderProvider: "PROVIDER_A",
      templates: [{ callStatus: "ANSWERED", messageBody: BODY }]
    })
    yield* sql.unsafe(
      `CREATE TABLE bench_messages (LIKE messages INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES)`
    )

    /** Runs `f`, checks the fake accepted exactly `n` Twilio sends meanwhile. */
    const accepted = <A, E, R>(n: number, what: string, f: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const before = fake.sent("twilio").length
        const result = yield* f
        const sends = fake.sent("twilio").length - before
        if (sends !== n) return yield* Effect.dieMessage(`${what}: the fake accepted ${sends} sends, expected ${n}`)
        return result
      })

    /**
     * Polls `SELECT count(*) … status = 'SENT'` on `table` every 100 ms until it reaches `target`; answers the polls.
     */
    const waitForSent = (table: "messages" | "bench_messages", target: number, started: number) =>
      Effect.gen(function*() {
        let polls = 0
        let lastPrint = performance.now()
        for (;;) {
          polls++
          const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)} WHERE status = 'SENT'`
          if (row!.n >= target) return polls
          if (performance.now() - lastPrint > 10_000) {
            lastPrint = performance.now()
            console.log(`  ${table}: ${row!.n}/${target} SENT, ${((performance.now() - started) / 1000).toFixed(0)} s`)
          }
          if (performance.now() - started > 600_000) {
            return yield* Effect.dieMessage(`${table}: not all SENT after 10 minutes`)
          }
          yield* sleep(POLL_MS)
        }
      })

    /** The rows written since `since`: their latency, and the last `sent_at`. */
    const rowsSince = (table: "messages" | "bench_messages", since: Date, n: number) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ createdAt: unknown; sentAt: unknown; status: string }>`
          SELECT created_at, sent_at, status FROM ${sql(table)} WHERE created_at >= ${since}
        `
        const sent = rows.filter((r) => r.status === "SENT" && r.sentAt !== null)
        if (rows.length !== n || sent.length !== n) {
          return yield* Effect.dieMessage(
            `${table}: ${rows.length} rows and ${sent.length} SENT since the start, expected ${n}`
          )
        }
        const latencies = sent.map((r) => millis(r.sentAt) - millis(r.createdAt)).sort((a, b) => a - b)
        return { latencies, lastSentAt: Math.max(...sent.map((r) => millis(r.sentAt))) }
      })

    // --- the platform: call-ended events through the outbox and its dispatcher
    /**
     * `awake`: a wake-up every 10 ms for the whole run, as calls that keep ending give the dispatcher
     * (each call's end wakes it); without, only the publishing transactions wake it (passes then run
     * back to back while they find work).
     */
    const platform = (n: number, awake: boolean) =>
      accepted(
        n,
        "platform",
        Effect.gen(function*() {
          const to = recipients(nextRecipient, n)
          nextRecipient += n
          const [before] = yield* sql<
            { sent: number }
          >`SELECT count(*)::int AS sent FROM messages WHERE status = 'SENT'`
          const statementsBefore = SqlActivity.started()
          const since = new Date()
          const started = performance.now()
          const waker = awake
            ? yield* Effect.fork(Effect.forever(Effect.zipRight(outbox.nudge, Effect.sleep("10 millis"))))
            : undefined
          for (let i = 0; i < n; i += PUBLISH_BATCH) {
            const batch = to.slice(i, i + PUBLISH_BATCH).map((number) => ended(t, number))
            yield* Effect.forEach(batch, outbox.onCallEnded, { discard: true }).pipe(sql.withTransaction)
            yield* outbox.nudge
          }
          const publishSeconds = (performance.now() - started) / 1000
          const polls = yield* waitForSent("messages", before!.sent + n, started)
          if (waker !== undefined) yield* Fiber.interrupt(waker)
          const statements = SqlActivity.started() - statementsBefore - polls
          const { lastSentAt, latencies } = yield* rowsSince("messages", since, n)
          return { seconds: (lastSentAt - since.getTime()) / 1000, latencies, statements, publishSeconds }
        })
      )

    // --- the baseline: the same rows, inserted the same way, sent by 16 workers, updated to SENT
    const insertRow = (id: string, to: string, at: Date) =>
      sql`
        INSERT INTO bench_messages (
          id, tenant_id, channel, session_id, campaign_id, agent_id, contact_id, call_direction, call_outcome,
          to_number, sender, provider, template_name, language_code, body, body_parameters, dlt_sender_id,
            dlt_template_id,
          encoding, segments, price, currency, status, error_code, error_message, next_attempt_at, created_at, failed_at
        ) VALUES (
          ${id}, ${t.tenantId}, 'SMS', ${crypto.randomUUID()}, ${crypto.randomUUID()}, ${t.agentId}, ${null},
            'OUTGOING',
          'ANSWERED', ${to}, ${SENDER_NUMBER}, 'PROVIDER_A', ${null}, ${null}, ${BODY}, '[]'::jsonb, ${null}, ${null},
          'GSM7', 1, 1, 'USD', 'QUEUED', ${null}, ${null}, ${at}, ${at}, ${null}
        )
        ON CONFLICT (session_id, channel) DO NOTHING
      `
    const outboundOf = (id: string, to: string, at: Date): OutboundSms => ({
      messageId: id,
      to,
      from: SENDER_NUMBER,
      body: BODY,
      encoding: "GSM7",
      dltSenderId: null,
      dltTemplateId: null,
      firstAttemptAt: at
    })
    const baseline = (n: number) =>
      accepted(
        n,
        "baseline",
        Effect.gen(function*() {
          const to = recipients(nextRecipient, n)
          nextRecipient += n
          const handOver = yield* Queue.unbounded<{ readonly id: string; readonly to: string; readonly at: Date }>()
          const statementsBefore = SqlActivity.started()
          const since = new Date()
          const producer = Effect.gen(function*() {
            for (let i = 0; i < n; i += PUBLISH_BATCH) {
              const at = new Date()
              const batch = to.slice(i, i + PUBLISH_BATCH).map((number) => ({
                id: crypto.randomUUID(),
                to: number,
                at
              }))
              yield* Effect.forEach(batch, (m) => insertRow(m.id, m.to, m.at), { discard: true }).pipe(
                sql.withTransaction
              )
              yield* Queue.offerAll(handOver, batch)
            }
          })
          const worker = (m: { readonly id: string; readonly to: string; readonly at: Date }) =>
            Effect.gen(function*() {
              const { providerMessageId } = yield* sender.send(outboundOf(m.id, m.to, m.at))
              yield* sql`
              UPDATE bench_messages SET status = 'SENT', provider_message_id = ${providerMessageId}, cost = 1,
                sent_at = ${new Date()},
                next_attempt_at = NULL
              WHERE id = ${m.id}
            `
            })
          yield* Effect.all([
            producer,
            Effect.forEach(to, () => Effect.flatMap(Queue.take(handOver), worker), {
              concurrency: CONCURRENCY,
              discard: true
            })
          ], { concurrency: 2, discard: true })
          const statements = SqlActivity.started() - statementsBefore
          const { lastSentAt, latencies } = yield* rowsSince("bench_messages", since, n)
          return { seconds: (lastSentAt - since.getTime()) / 1000, latencies, statements }
        })
      )

    // --- the adapter alone
    const raw = (n: number) =>
      accepted(
        n,
        "adapter",
        Effect.gen(function*() {
          const to = recipients(nextRecipient, n)
          nextRecipient += n
          const latencies: Array<number> = []
          const started = performance.now()
          yield* Effect.forEach(to, (number) => {
            const at = performance.now()
            return sender.send(outboundOf(crypto.randomUUID(), number, new Date())).pipe(
              Effect.tap(() => Effect.sync(() => latencies.push(performance.now() - at)))
            )
          }, { concurrency: CONCURRENCY, discard: true })
          return {
            seconds: (performance.now() - started) / 1000,
            latencies: latencies.sort((a, b) => a - b),
            statements: 0
          }
        })
      )

    console.log(`  warm-up: ${WARMUP_MESSAGES} messages on each path`)
    yield* raw(WARMUP_MESSAGES)
    yield* baseline(WARMUP_MESSAGES)
    yield* platform(WARMUP_MESSAGES, true)

    const n = settings.messages
    console.log(`  adapter alone: ${n} sends`)
    const adapterRun: Measured = yield* raw(n)
    console.log(`  baseline: ${n} messages`)
    const baselineRun: Measured = yield* baseline(n)
    console.log(`  platform, dispatcher kept awake: ${n} messages`)
    const awakeRun = yield* platform(n, true)
    console.log(`  platform, a burst: ${n} messages`)
    const burstRun = yield* platform(n, false)
    return { adapterRun, baselineRun, awakeRun, burstRun }
  }).pipe(Effect.orDie)

export const run = async (backend: Backend, settings: Settings): Promise<Array<Row>> => {
  // The kit's database: a fresh in-memory PGlite, or (DATABASE_URL set) a database of its own on that server.
  const databaseUrl = process.env["DATABASE_URL"]
  if (backend.name === "postgres") process.env["DATABASE_URL"] = backend.url
  else delete process.env["DATABASE_URL"]
  try {
    // the adapter the runtime builds, kept for the baseline and the ceiling: same instance, same HTTP pool
    let adapter: SmsSender | undefined
    const twilio = Effect.flatMap(FakeMessaging, (fake: FakeMessagingServer) =>
      makeTwilioSmsSender({
        baseUrl: fake.url,
        accountSid: fake.credentials.twilio.accountSid,
        authToken: Redacted.make(fake.credentials.twilio.authToken)
      })).pipe(Effect.tap((sender) => Effect.sync(() => void (adapter = sender))))
    const layer = TestKit.layer({
      runtime: { messaging: defaultMessagingOptions, senders: { sms: { PROVIDER_A: twilio } } }
    }).pipe(Layer.provideMerge(FakeMessaging.layer()))
    const result = await Effect.runPromise(
      program(settings, () => {
        if (adapter === undefined) throw new Error("the runtime did not build the Twilio adapter")
        return adapter
      }).pipe(Effect.provide(layer), Logger.withMinimumLogLevel(LogLevel.Warning))
    )
    const { adapterRun, awakeRun, baselineRun, burstRun } = result
    const n = settings.messages
    const perSecond = (m: Measured) => n / m.seconds
    const suite = "post-call messages (Twilio adapter → loopback fake, 16 sends at once)"
    const row = (name: string, m: Measured, extra: Record<string, number | string> = {}): Row => ({
      suite,
      case: name,
      backend: backend.name,
      metrics: {
        messages: n,
        "msgs/s": Math.round(perSecond(m)),
        seconds: m.seconds,
        "p50 ms": Math.round(quantile(m.latencies, 0.5)),
        "p99 ms": Math.round(quantile(m.latencies, 0.99)),
        "SQL/msg": m.statements === 0 ? "0" : (m.statements / n).toFixed(1),
        "vs baseline": (perSecond(m) / perSecond(baselineRun)).toFixed(2),
        ...extra
      }
    })
    return [
      row("adapter alone, no SQL (ceiling)", adapterRun),
      row("baseline: INSERT, send, UPDATE (plain SQL)", baselineRun),
      row("platform, a burst (only the publishing wakes it)", burstRun, { "publish s": burstRun.publishSeconds }),
      row("platform, dispatcher kept awake (calls keep ending)", awakeRun, { "publish s": awakeRun.publishSeconds })
    ]
  } finally {
    if (databaseUrl === undefined) delete process.env["DATABASE_URL"]
    else process.env["DATABASE_URL"] = databaseUrl
  }
}

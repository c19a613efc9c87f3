/**
 * Call-result webhooks, from a durable outbox.
 *
 * When a call ends, one delivery row per API key of the tenant with a `webhookUrl` (pinned keys
 * only for their agent) is written in the call's end transaction. The dispatcher (a cluster
 * singleton: one runner sends at a time) claims due rows, POSTs them with a 10-second timeout and
 * signs each body: `Voiceagent-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" with the
 * key's signing secret>`, plus `Voiceagent-Event-Id` for de-duplication. A timeout, a connection
 * error or a non-2xx answer is retried on a growing schedule; delivery is at least once.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import { AgentId, ApiKeyId, type TenantId } from "@voiceagent/domain/Ids"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import { WebhookDelivery } from "@voiceagent/domain/WebhookDeliveries"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { v7 as uuidv7 } from "uuid"
import type { CallEndedEvent } from "../CallRecords/CallEnded.js"
import * as ListenerCache from "../Shared/ListenerCache.js"
import * as Rows from "../Sql/Rows.js"

/** Delays before each attempt: the first at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE: ReadonlyArray<Duration.DurationInput> = [
  "0 seconds",
  "5 seconds",
  "5 minutes",
  "30 minutes",
  "2 hours",
  "5 hours",
  "10 hours",
  "10 hours"
]

export const SIGNATURE_HEADER = "voiceagent-signature"
export const EVENT_ID_HEADER = "voiceagent-event-id"
export const DELIVERY_TIMEOUT: Duration.DurationInput = "10 seconds"

export const sign = (secret: string, timestampSeconds: number, body: string): string =>
  `t=${timestampSeconds},v1=${crypto.createHmac("sha256", secret).update(`${timestampSeconds}.${body}`).digest("hex")}`

export const callEndedPayload = (eventId: string, createdAt: Date, event: CallEndedEvent) => ({
  id: eventId,
  type: "call.ended",
  createdAt: createdAt.toISOString(),
  data: {
    sessionId: event.sessionId,
    agentId: event.agentId,
    campaignId: event.campaignId,
    campaignAttemptId: event.campaignAttemptId,
    customerId: event.customerId,
    toNumber: event.toNumber,
    fromNumber: event.fromNumber,
    direction: event.direction,
    outcome: event.outcome,
    endReason: event.endReason,
    answeredBy: event.answeredBy ?? null,
    voicemail: event.voicemail ?? null,
    startedAt: event.startedAt.toISOString(),
    answeredAt: event.answeredAt?.toISOString() ?? null,
    endedAt: event.endedAt.toISOString(),
    durationSeconds: event.durationSeconds,
    billedSeconds: event.billedSeconds,
    cost: event.cost,
    currency: event.currency,
    transcript: event.transcript.map((t) => ({
      speaker: t.speaker,
      text: t.text,
      at: t.at.toISOString(),
      interrupted: t.interrupted,
      latency: t.latency
    })),
    metadata: event.metadata
  }
})

const DueDelivery = Schema.Struct({
  id: Schema.String,
  eventId: Schema.String,
  url: Schema.String,
  body: Schema.String,
  attempts: Schema.Int,
  signingSecret: Schema.String
})
type DueDelivery = typeof DueDelivery.Type

const WebhookKeyRow = Schema.Struct({
  id: ApiKeyId,
  webhookUrl: Schema.String,
  agentId: Schema.NullOr(AgentId),
  expiresAt: Schema.NullOr(Schema.DateFromSelf)
})

const WebhookDeliveryRow = Rows.of(WebhookDelivery)

export interface DispatcherOptions {
  /** The pause after a pass that found work; idle passes double it up to `maxIdleInterval`. */
  readonly pollInterval: Duration.DurationInput
  readonly maxIdleInterval: Duration.DurationInput
  readonly batchSize: number
}

export class Webhooks extends Effect.Service<Webhooks>()("Webhooks/Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // Deliveries written in this process wake the dispatcher at once (when it runs here);
    // elsewhere it finds them at its next poll.
    const wakeUps = yield* Queue.sliding<void>(1)
    const nudge = Queue.offer(wakeUps, undefined).pipe(Effect.asVoid)

    /** The tenant's keys with a webhook URL, cached (`ListenerCache`): most call ends find none. */
    const webhookKeys = (tenantId: TenantId) =>
      ListenerCache.cached(
        tenantId,
        "webhook-keys",
        Rows.findAll(
          WebhookKeyRow,
          sql`
          SELECT k.id, k.webhook_url, k.agent_id, k.expires_at FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE u.tenant_id = ${tenantId} AND k.webhook_url IS NOT NULL AND k.revoked_at IS NULL
        `
        )
      )

    /** The keys a call's end is delivered to: the tenant's, for every agent or the call's, not expired at the end. */
    const subscribed = (event: CallEndedEvent) =>
      Effect.map(
        webhookKeys(event.tenantId),
        (keys) =>
          keys.filter((k) =>
            (k.agentId === null || k.agentId === event.agentId) &&
            (k.expiresAt === null || k.expiresAt.getTime() > event.endedAt.getTime())
          )
      )

    /** Whether a call's end has a subscriber (the cached lookup `onCallEnded` makes). */
    const wants = (event: CallEndedEvent) => Effect.map(subscribed(event), (keys) => keys.length > 0).pipe(Effect.orDie)

    /**
     * The outbox listener: one delivery per subscribed key, in the
     * call's end transaction. Answers whether any was written.
     */
    const onCallEnded = Effect.fn("Webhooks.onCallEnded")(
      function*(event: CallEndedEvent) {
        const keys = yield* subscribed(event)
        if (keys.length === 0) return false
        const eventId = uuidv7()
        const createdAt = new Date(yield* Clock.currentTimeMillis)
        const body = JSON.stringify(callEndedPayload(eventId, createdAt, event))
        for (const key of keys) {
          yield* sql`
            INSERT INTO webhook_deliveries (id, tenant_id, api_key_id, event_id, event_type, url, body, next_attempt_at)
            VALUES (${uuidv7()}, ${event.tenantId}, ${key.id}, ${eventId}, 'call.ended', ${key.webhookUrl}, ${body},
              ${createdAt})
          `
        }
        return true
      },
      Effect.orDie
    )

    /** Claims due deliveries for a while, so a second dispatcher (or a restart) does not send them twice at once. */
    const claimDue = (now: Date, limit: number) =>
      Rows.findAll(
        DueDelivery,
        sql`
        UPDATE webhook_deliveries d SET claimed_until = ${new Date(now.getTime() + 60_000)}
        FROM api_keys k
        WHERE d.api_key_id = k.id AND d.id IN (
          SELECT id FROM webhook_deliveries
          WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ${now}
            AND (claimed_until IS NULL OR claimed_until < ${now})
          ORDER BY next_attempt_at LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING d.id, d.event_id, d.url, d.body, d.attempts, k.signing_secret
      `
      ).pipe(Effect.orDie)

    const recordSuccess = (id: string, status: number, at: Date) =>
      sql`
        UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ${status}, last_error = NULL,
          last_attempt_at = ${at}, delivered_at = ${at}, next_attempt_at = NULL, claimed_until = NULL
        WHERE id = ${id}
      `.pipe(Effect.asVoid, Effect.orDie)

    const recordFailure = (delivery: DueDelivery, status: number | null, error: string, at: Date) => {
      const attempts = delivery.attempts + 1
      const next = RETRY_SCHEDULE[attempts]
      return sql`
        UPDATE webhook_deliveries SET attempts = ${attempts}, last_status = ${status}, last_error = ${
        error.slice(0, 500)
      },
          last_attempt_at = ${at}, next_attempt_at = ${
        next === undefined ? null : new Date(at.getTime() + Duration.toMillis(next))
      },
          failed_at = ${next === undefined ? at : null},
          claimed_until = NULL
        WHERE id = ${delivery.id}
      `.pipe(Effect.asVoid, Effect.orDie)
    }

    const list = (tenantId: TenantId, page: PageRequest) =>
      Rows.page(
        WebhookDeliveryRow,
        sql`
          SELECT id, event_id, event_type, url, attempts, last_status, last_error, last_attempt_at, next_attempt_at,
                 delivered_at, failed_at, created_at
          FROM webhook_deliveries WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${page.pageSize} OFFSET ${offsetOf(page)}
        `,
        sql`SELECT count(*) AS total FROM webhook_deliveries WHERE tenant_id = ${tenantId}`
      )

    return { wants, onCallEnded, claimDue, recordSuccess, recordFailure, list, nudge, wakeUps } as const
  })
}) {}

/** One pass: send every due delivery once. Answers how many were attempted. */
export const dispatchDue = (options: { readonly batchSize: number }) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    const client = yield* HttpClient.HttpClient
    const now = new Date(yield* Clock.currentTimeMillis)
    const due = yield* webhooks.claimDue(now, options.batchSize)
    yield* Effect.forEach(due, (delivery) =>
      Effect.gen(function*() {
        const timestamp = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const request = HttpClientRequest.post(delivery.url).pipe(
          HttpClientRequest.setHeaders({
            [SIGNATURE_HEADER]: sign(delivery.signingSecret, timestamp, delivery.body),
            [EVENT_ID_HEADER]: delivery.eventId,
            "user-agent": "voice-agent-platform-webhooks/1"
          }),
          HttpClientRequest.bodyText(delivery.body, "application/json")
        )
        const outcome = yield* client.execute(request).pipe(
          Effect.flatMap((response) => Effect.as(response.text.pipe(Effect.ignore), response.status)),
          Effect.timeout(DELIVERY_TIMEOUT),
          Effect.either
        )
        const at = new Date(yield* Clock.currentTimeMillis)
        if (outcome._tag === "Right" && outcome.right >= 200 && outcome.right < 300) {
          return yield* webhooks.recordSuccess(delivery.id, outcome.right, at)
        }
        return yield* outcome._tag === "Right"
          ? webhooks.recordFailure(delivery, outcome.right, `HTTP ${outcome.right}`, at)
          : webhooks.recordFailure(
            delivery,
            null,
            outcome.left._tag === "TimeoutException"
              ? "timed out after 10 s"
              : String(outcome.left.message ?? outcome.left),
            at
          )
      }), { concurrency: 8, discard: true })
    return due.length
  })

/**
 * The dispatcher loop: a pass, then a pause that doubles while there is nothing to send (up to
 * `maxIdleInterval`) and ends early when a delivery is written in this process.
 */
export const dispatcher = (options: DispatcherOptions) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    const min = Duration.toMillis(Duration.decode(options.pollInterval))
    const max = Math.max(min, Duration.toMillis(Duration.decode(options.maxIdleInterval)))
    let pause = min
    while (true) {
      const sent = yield* dispatchDue(options).pipe(
        Effect.catchAllCause((cause) => Effect.as(Effect.logError("webhook dispatch failed", cause), 0))
      )
      pause = sent > 0 ? min : Math.min(max, pause * 2)
      yield* Effect.raceFirst(Effect.sleep(pause), Queue.take(webhooks.wakeUps))
    }
  })

/**
 * Post-call messages, from a durable outbox.
 *
 * Writing: when a call ends, the agent's active chat-app and SMS campaigns pick a template by the
 * call's direction and outcome (a chat-app campaign's language variant by the contact's
 * `metadata.languageCode`, then the agent's `settings.languageCode`: `chatAppTemplateFor`), and one
 * `messages` row per channel is written in the transaction that ends the call; `(session_id, channel)`
 * is unique, so a call gets at most one message per channel however often its end is retried.
 *
 * Sending (a cluster singleton, so one runner sends at a time), a batch per pass: one statement
 * claims the due rows; one transaction holds the funds of the whole batch (`Billing/MessageCharges`:
 * reservations `message:<id>`, not counted against the call limit, checked against the locked wallet
 * rows) and marks the held rows SENDING with their attempt counted, failing those the wallet cannot
 * cover with INSUFFICIENT_FUNDS; the held ones are sent, `concurrency` at once, with our message id
 * as the idempotency key; then one transaction records every outcome and settles the batch. Accepted:
 * SENT, the hold charged (`sms_charge` or `chatapp_charge`, key `settle:message:<id>`). A timeout, a
 * connection error, 429 or 5xx: QUEUED again on `retrySchedule`, the hold kept. Any other 4xx, or
 * retries exhausted: FAILED, the hold released.
 *
 * A crash after the provider accepted and before SENT was written leaves the row SENDING; when its
 * claim expires it is sent again with the same key. A provider that de-duplicates by key (`idempotent`)
 * answers with the first message; one that does not may deliver it twice (docs/messaging.md, "Exactly once").
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { AgentSettings } from "@voiceagent/domain/Agents"
import { TenantId } from "@voiceagent/domain/Ids"
import { chatAppTemplateFor, renderTemplate, smsSegments, smsTemplateFor } from "@voiceagent/domain/MessageRules"
import { ChatAppTemplateMapping, MessageChannel, SmsTemplate } from "@voiceagent/domain/Messaging"
import { PhoneProvider } from "@voiceagent/domain/Phone"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import { v7 as uuidv7 } from "uuid"
import { type Holding, MessageCharges, type SendOutcome } from "../Billing/MessageCharges.js"
import type { CallEndedEvent } from "../CallRecords/CallEnded.js"
import { failpoint } from "../Failpoints.js"
import { type InboundReply, type InboundStatus, MessageSenders, SendFailure } from "../Ports/MessageSenders.js"
import { PlatformSettings } from "../Settings.js"
import * as ListenerCache from "../Shared/ListenerCache.js"
import * as Rows from "../Sql/Rows.js"

export interface MessagingOptions {
  /** The provider of SMS campaigns that name none. */
  readonly defaultSmsProvider: PhoneProvider
  /** Delays before each attempt: the first at once; a message fails after the last. */
  readonly retrySchedule: ReadonlyArray<Duration.DurationInput>
  /** How long a provider may take to answer. */
  readonly sendTimeout: Duration.DurationInput
  /** How long a claimed row is left alone (a crashed sender's rows are taken up again after it). */
  readonly claimFor: Duration.DurationInput
  readonly pollInterval: Duration.DurationInput
  readonly maxIdleInterval: Duration.DurationInput
  readonly batchSize: number
  /** Messages sent at once. */
  readonly concurrency: number
}

export const defaultMessagingOptions: MessagingOptions = {
  defaultSmsProvider: "PROVIDER_A",
  retrySchedule: ["0 seconds", "10 seconds", "1 minute", "5 minutes", "30 minutes", "2 hours"],
  sendTimeout: "10 seconds",
  claimFor: "1 minute",
  pollInterval: "1 second",
  maxIdleInterval: "10 seconds",
  batchSize: 50,
  concurrency: 16
}

export class MessagingSettings extends Context.Tag("Messaging/Settings")<MessagingSettings, MessagingOptions>() {
  static readonly layer = (options: MessagingOptions = defaultMessagingOptions) =>
    Layer.succeed(MessagingSettings, options)
}

/**
 * An active campaign of the agent, with its sender candidates:
 * jsonb `templates` and `agentSettings` in their JSON form.
 */
const CampaignRow = Schema.Union(
  Schema.Struct({
    channel: Schema.Literal("CHATAPP"),
    id: Schema.String,
    templates: Schema.Array(ChatAppTemplateMapping),
    campaignSender: Schema.NullOr(Schema.String),
    provider: Schema.Null,
    attached: Schema.NullOr(Schema.String),
    agentSettings: Schema.NullOr(AgentSettings)
  }),
  Schema.Struct({
    channel: Schema.Literal("SMS"),
    id: Schema.String,
    templates: Schema.Array(SmsTemplate),
    campaignSender: Schema.NullOr(Schema.String),
    provider: Schema.NullOr(PhoneProvider),
    attached: Schema.Null,
    agentSettings: Schema.NullOr(AgentSettings)
  })
)
type CampaignRow = typeof CampaignRow.Type

const ContactRow = Schema.Struct({
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  metadata: Rows.JsonObjectColumn
})

interface Chosen {
  readonly campaign: CampaignRow
  readonly chatApp: ChatAppTemplateMapping | undefined
  readonly sms: SmsTemplate | undefined
}

/** What is sent: fixed when the row is written. */
interface MessageContent {
  readonly channel: MessageChannel
  readonly provider: string
  readonly templateName: string | null
  readonly languageCode: string | null
  readonly body: string | null
  readonly bodyParameters: ReadonlyArray<string>
  readonly dltSenderId: string | null
  readonly dltTemplateId: string | null
  readonly encoding: "GSM7" | "UCS2" | null
  readonly price: number
}

const DueMessage = Schema.Struct({
  id: Schema.String,
  tenantId: TenantId,
  channel: MessageChannel,
  toNumber: Schema.String,
  sender: Schema.String,
  provider: Schema.String,
  templateName: Schema.NullOr(Schema.String),
  languageCode: Schema.NullOr(Schema.String),
  body: Schema.NullOr(Schema.String),
  bodyParameters: Schema.Array(Schema.String),
  dltSenderId: Schema.NullOr(Schema.String),
  dltTemplateId: Schema.NullOr(Schema.String),
  encoding: Schema.NullOr(Schema.Literal("GSM7", "UCS2")),
  price: Schema.NonNegativeInt
})
type DueMessage = typeof DueMessage.Type

const EarlyStatusRow = Schema.Struct({
  tenantId: TenantId,
  providerMessageId: Schema.String,
  status: Schema.Literal("sent", "delivered", "read", "failed"),
  at: Schema.DateFromSelf,
  errorCode: Schema.NullOr(Schema.String),
  errorTitle: Schema.NullOr(Schema.String)
})

export class MessageOutbox extends Effect.Service<MessageOutbox>()("Messaging/Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const platformRates = (yield* PlatformSettings).rates
    const settings = yield* MessagingSettings
    const wakeUps = yield* Queue.sliding<void>(1)
    const nudge = Queue.offer(wakeUps, undefined).pipe(Effect.asVoid)
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** The agent's active campaigns with their sender candidates, cached (`ListenerCache`): most agents have none. */
    const campaignsOf = (tenantId: TenantId, agentId: string) =>
      ListenerCache.cached(
        tenantId,
        `messaging-campaigns:${agentId}`,
        Rows.findAll(
          CampaignRow,
          sql`
          SELECT 'CHATAPP' AS channel, c.id, c.templates, c.phone_number_id AS campaign_sender, NULL AS provider,
                 (SELECT n.phone_number_id FROM chatapp_agent_numbers n WHERE n.tenant_id = c.tenant_id
                   AND n.agent_id = c.agent_id) AS attached,
                 (SELECT a.settings FROM agents a WHERE a.id = c.agent_id) AS agent_settings
          FROM chatapp_campaigns c WHERE c.tenant_id = ${tenantId} AND c.agent_id = ${agentId} AND c.is_active
          UNION ALL
          SELECT 'SMS', s.id, s.templates, s.sender_number, s.sender_provider, NULL,
                 (SELECT a.settings FROM agents a WHERE a.id = s.agent_id)
          FROM sms_campaigns s WHERE s.tenant_id = ${tenantId} AND s.agent_id = ${agentId} AND s.is_active
        `
        )
      )

    /** The agent's campaigns that send a message for this call (none for a web call: it has no number to message). */
    const sendingFor = (event: CallEndedEvent) =>
      Effect.suspend(() => {
        const direction = event.direction
        if (direction === "WEB") return Effect.succeed<ReadonlyArray<CampaignRow>>([])
        return Effect.map(campaignsOf(event.tenantId, event.agentId), (campaigns) =>
          // which campaigns send at all is known from the call alone; the chat-app language variant needs the contact
          campaigns.filter((c) =>
            c.channel === "CHATAPP"
              ? chatAppTemplateFor(c.templates, direction, event.outcome) !== undefined
              : smsTemplateFor(c.templates, event.outcome) !== undefined
          ))
      })

    /** Whether a call's end queues a message (the cached lookup `onCallEnded` makes). */
    const wants = (event: CallEndedEvent) =>
      Effect.map(sendingFor(event), (sending) => sending.length > 0).pipe(Effect.orDie)

    /** The outbox listener: runs in the transaction that ends the call. Answers whether a message was queued. */
    const onCallEnded = Effect.fn("MessageOutbox.onCallEnded")(
      function*(event: CallEndedEvent) {
        const direction = event.direction
        if (direction === "WEB") return false
        const sending = yield* sendingFor(event)
        if (sending.length === 0) return false
        const to = (direction === "OUTGOING" ? event.toNumber : event.fromNumber) ?? ""
        const [contact] = event.customerId === null ? [] : yield* Rows.findAll(
          ContactRow,
          sql`SELECT name, email, metadata FROM contacts WHERE id = ${event.customerId}
            AND tenant_id = ${event.tenantId}`
        )
        const context = {
          name: contact?.name ?? null,
          email: contact?.email ?? null,
          phone: to,
          metadata: contact?.metadata ?? {}
        }
        const at = yield* now
        const chosen = sending.map((campaign): Chosen => {
          if (campaign.channel === "SMS") {
            return { campaign, chatApp: undefined, sms: smsTemplateFor(campaign.templates, event.outcome) }
          }
          const languages = { contact: context.metadata["languageCode"], agent: campaign.agentSettings?.languageCode }
          const chatApp = chatAppTemplateFor(
            campaign.templates,
            direction,
            event.outcome,
            languages
          )
          return { campaign, chatApp, sms: undefined }
        })
        let queued = false
        for (const { campaign, chatApp, sms } of chosen) {
          const settingsOf = campaign.agentSettings ?? {}
          if (chatApp !== undefined) {
            const sender = campaign.attached ?? campaign.campaignSender ?? settingsOf.phoneNumberId ?? null
            queued = (yield* insert({
              event,
              campaignId: campaign.id,
              channel: "CHATAPP",
              to,
              sender,
              provider: "CHATAPP",
              templateName: chatApp.templateName,
              languageCode: chatApp.languageCode,
              body: null,
              bodyParameters: (chatApp.bodyParameters ?? []).map((p) => renderTemplate(p, context)),
              dltSenderId: null,
              dltTemplateId: null,
              encoding: null,
              segments: null,
              units: 1,
              at
            })) || queued
          } else if (sms !== undefined) {
            const body = renderTemplate(sms.messageBody, context)
            const counted = smsSegments(body)
            queued = (yield* insert({
              event,
              campaignId: campaign.id,
              channel: "SMS",
              to,
              sender: campaign.campaignSender ?? settingsOf.phone_number ?? null,
              provider: campaign.provider ?? settings.defaultSmsProvider,
              templateName: null,
              languageCode: null,
              body,
              bodyParameters: [],
              dltSenderId: sms.dltSenderId,
              dltTemplateId: sms.dltTemplateId,
              encoding: counted.encoding,
              segments: counted.segments,
              units: counted.segments,
              at
            })) || queued
          }
        }
        return queued
      },
      Effect.orDie
    )

    /**
     * Writes one message. Its price is fixed here, in the same statement, from the tenant's rate card
     * as `RateCards.forTenant` reads it (its own card when it has one, else the platform's prices):
     * `units` segments, or one chat-app message.
     */
    const insert = (
      m: Omit<MessageContent, "price"> & {
        readonly event: CallEndedEvent
        readonly campaignId: string
        readonly to: string
        readonly sender: string | null
        readonly segments: number | null
        readonly units: number
        readonly at: Date
      }
    ) => {
      // without a sender there is nothing to send from: recorded as failed, so the log says why
      const failed = m.sender === null
      const rate = m.channel === "SMS"
        ? sql`CASE WHEN r.voice_per_minute IS NOT NULL THEN r.sms_per_segment ELSE ${platformRates.smsPerSegment} END`
        : sql`CASE WHEN r.voice_per_minute IS NOT NULL THEN r.chatapp_per_message
          ELSE ${platformRates.chatAppPerMessage} END`
      return sql`
        INSERT INTO messages (
          id, tenant_id, channel, session_id, campaign_id, agent_id, contact_id, call_direction, call_outcome,
          to_number, sender, provider, template_name, language_code, body, body_parameters, dlt_sender_id,
            dlt_template_id,
          encoding, segments, price, currency, status, error_code, error_message, next_attempt_at, created_at, failed_at
        ) SELECT
          ${uuidv7()}, ${m.event.tenantId}, ${m.channel}, ${m.event.sessionId}, ${m.campaignId}, ${m.event.agentId},
          ${m.event.customerId}, ${m.event.direction}, ${m.event.outcome}, ${m.to}, ${m.sender}, ${m.provider},
          ${m.templateName}, ${m.languageCode}, ${m.body}, ${JSON.stringify(m.bodyParameters)}::jsonb, ${m.dltSenderId},
          ${m.dltTemplateId}, ${m.encoding}, ${m.segments}, ${m.units} * ${rate}, t.currency,
          ${failed ? "FAILED" : "QUEUED"}, ${failed ? "NO_SENDER" : null},
          ${
        failed
          ? (m.channel === "CHATAPP"
            ? "No sender: attach a number to the agent, set the campaign's phoneNumberId or the agent's " +
              "settings.phoneNumberId"
            : "No sender: set the campaign's senderNumber or the agent's settings.phone_number")
          : null
      },
          ${failed ? null : m.at}, ${m.at}, ${failed ? m.at : null}
        FROM tenants t LEFT JOIN rate_cards r ON r.tenant_id = t.id
        WHERE t.id = ${m.event.tenantId}
        ON CONFLICT (session_id, channel) DO NOTHING
        RETURNING status
      `.pipe(Effect.map((rows) => rows.some((r) => r.status === "QUEUED")))
    }

    /** Claims due messages so that no other dispatcher sends them meanwhile. */
    const claimDue = (at: Date, limit: number) =>
      Rows.findAll(
        DueMessage,
        sql`
        UPDATE messages SET claimed_until = ${new Date(at.getTime() + Duration.toMillis(settings.claimFor))}
        WHERE id IN (
          SELECT id FROM messages
          WHERE status IN ('QUEUED', 'SENDING') AND next_attempt_at <= ${at}
            AND (claimed_until IS NULL OR claimed_until < ${at})
          ORDER BY next_attempt_at LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        RETURNING id, tenant_id, channel, to_number, sender, provider, template_name, language_code, body,
          body_parameters,
                  dlt_sender_id, dlt_template_id, encoding, price
      `
      ).pipe(Effect.orDie)

    /**
     * Applies a status the messaging platform reported. Statuses only move forward (SENT → DELIVERED →
     * READ); `failed` counts only before delivery. Each (message, status) is recorded once, so a
     * replayed notification changes nothing.
     */
    const applyStatus = (tenantId: TenantId, s: InboundStatus) =>
      sql`
        UPDATE messages SET
          status = CASE
            WHEN ${s.status} = 'read' AND status IN ('SENT', 'DELIVERED') THEN 'READ'
            WHEN ${s.status} = 'delivered' AND status = 'SENT' THEN 'DELIVERED'
            WHEN ${s.status} = 'failed' AND status = 'SENT' THEN 'FAILED'
            ELSE status END,
          delivered_at = CASE WHEN ${s.status} IN ('delivered', 'read') AND status IN ('SENT', 'DELIVERED', 'READ')
            THEN COALESCE(delivered_at, ${s.at}) ELSE delivered_at END,
          read_at = CASE WHEN ${s.status} = 'read' AND status IN ('SENT', 'DELIVERED', 'READ')
            THEN COALESCE(read_at, ${s.at}) ELSE read_at END,
          failed_at = CASE WHEN ${s.status} = 'failed' AND status = 'SENT' THEN ${s.at} ELSE failed_at END,
          error_code = CASE WHEN ${s.status} = 'failed' AND status = 'SENT' THEN ${
        s.error?.code ?? "FAILED"
      } ELSE error_code END,
          error_message = CASE WHEN ${s.status} = 'failed' AND status = 'SENT' THEN ${
        s.error?.title ?? "reported failed"
      } ELSE error_message END
        WHERE tenant_id = ${tenantId} AND channel = 'CHATAPP' AND provider_message_id = ${s.providerMessageId}
      `

    /** Records a webhook's statuses and replies; answers how many of each were new. */
    const recordInbound = Effect.fn("MessageOutbox.recordInbound")(
      function*(tenantId: TenantId, statuses: ReadonlyArray<InboundStatus>, replies: ReadonlyArray<InboundReply>) {
        let newStatuses = 0
        let newReplies = 0
        for (const s of statuses) {
          const inserted = yield* sql`
            INSERT INTO message_status_events (tenant_id, provider_message_id, status, at, error_code, error_title)
            VALUES (${tenantId}, ${s.providerMessageId}, ${s.status}, ${s.at}, ${s.error?.code ?? null}, ${
            s.error?.title ?? null
          })
            ON CONFLICT DO NOTHING
            RETURNING status
          `
          if (inserted.length === 0) continue
          newStatuses++
          yield* applyStatus(tenantId, s)
        }
        for (const r of replies) {
          const inserted = yield* sql`
            INSERT INTO chatapp_replies (id, tenant_id, provider_message_id, from_number, phone_number_id, type, text,
              contact_name, payload, received_at)
            VALUES (${uuidv7()}, ${tenantId}, ${r.providerMessageId}, ${r.from}, ${r.phoneNumberId}, ${r.type},
              ${r.text},
                    ${r.contactName}, ${JSON.stringify(r.raw ?? null)}::jsonb, ${r.at})
            ON CONFLICT (tenant_id, provider_message_id) DO NOTHING
            RETURNING id
          `
          newReplies += inserted.length
        }
        return { statuses: newStatuses, replies: newReplies }
      },
      sql.withTransaction,
      Effect.orDie
    )

    /**
     * Statuses that arrived before the sends were recorded (the platform can be that quick): one read for the batch.
     */
    const applyEarlyStatuses = Effect.fn("MessageOutbox.applyEarlyStatuses")(
      function*(sent: ReadonlyArray<{ readonly tenantId: TenantId; readonly providerMessageId: string }>) {
        if (sent.length === 0) return
        const early = yield* Rows.findAll(
          EarlyStatusRow,
          sql`
          SELECT e.tenant_id, e.provider_message_id, e.status, e.at, e.error_code, e.error_title
          FROM message_status_events e
          JOIN jsonb_to_recordset(${JSON.stringify(sent)}::jsonb) AS s("tenantId" uuid, "providerMessageId" text)
            ON e.tenant_id = s."tenantId" AND e.provider_message_id = s."providerMessageId"
          ORDER BY e.at
        `
        )
        for (const e of early) {
          yield* applyStatus(e.tenantId, {
            providerMessageId: e.providerMessageId,
            status: e.status,
            at: e.at,
            error: e.errorCode === null ? null : { code: e.errorCode, title: e.errorTitle ?? "" }
          })
        }
      },
      Effect.orDie
    )

    /** When the next message falls due (a retry, or a claim running out); `undefined` when none waits. */
    const nextDueAt = Rows.single(
      Schema.Struct({ at: Schema.NullOr(Schema.DateFromSelf) }),
      sql`
      SELECT min(GREATEST(next_attempt_at, COALESCE(claimed_until, next_attempt_at))) AS at
      FROM messages WHERE status IN ('QUEUED', 'SENDING')
    `
    ).pipe(Effect.map((row) => row.at ?? undefined), Effect.orDie)

    return {
      wants,
      onCallEnded,
      claimDue,
      recordInbound,
      applyEarlyStatuses,
      nextDueAt,
      nudge,
      wakeUps,
      settings
    } as const
  })
}) {}

/** Sends one message under its hold; answers what became of it (a defect: the pass died with it unknown). */
const sendOne = (message: DueMessage, holding: Holding) =>
  Effect.gen(function*() {
    const senders = yield* MessageSenders
    const { settings } = yield* MessageOutbox
    const send = message.channel === "CHATAPP"
      ? senders.chatApp.send({
        messageId: message.id,
        to: message.toNumber,
        phoneNumberId: message.sender,
        templateName: message.templateName ?? "",
        languageCode: message.languageCode ?? "en_US",
        bodyParameters: message.bodyParameters,
        firstAttemptAt: holding.firstAttemptAt
      })
      : senders.sms(message.provider as PhoneProvider).send({
        messageId: message.id,
        to: message.toNumber,
        from: message.sender,
        body: message.body ?? "",
        encoding: message.encoding ?? "GSM7",
        dltSenderId: message.dltSenderId,
        dltTemplateId: message.dltTemplateId,
        firstAttemptAt: holding.firstAttemptAt
      })
    const outcome = yield* send.pipe(
      Effect.timeoutFail({
        duration: settings.sendTimeout,
        onTimeout: () =>
          new SendFailure({
            retryable: true,
            status: null,
            code: "TIMEOUT",
            message: `no answer within ${Duration.format(Duration.decode(settings.sendTimeout))}`
          })
      }),
      Effect.either
    )
    const at = new Date(yield* Clock.currentTimeMillis)
    if (outcome._tag === "Right") {
      return {
        _tag: "Sent",
        id: message.id,
        tenantId: message.tenantId,
        providerMessageId: outcome.right.providerMessageId,
        at
      } satisfies SendOutcome
    }
    const failure = outcome.left
    const code = failure.code ?? (failure.status === null ? "UNREACHABLE" : `HTTP_${failure.status}`)
    const next = settings.retrySchedule[holding.attempts]
    if (failure.retryable && next !== undefined) {
      const nextAt = new Date(at.getTime() + Duration.toMillis(Duration.decode(next)))
      return {
        _tag: "Retry",
        id: message.id,
        tenantId: message.tenantId,
        next: nextAt,
        status: failure.status,
        code,
        message: failure.message,
        at
      } satisfies SendOutcome
    }
    const text = failure.retryable ? `${failure.message} (gave up after ${holding.attempts} attempts)` : failure.message
    return {
      _tag: "Failed",
      id: message.id,
      tenantId: message.tenantId,
      status: failure.status,
      code,
      message: text,
      at
    } satisfies SendOutcome
  })

/**
 * One pass (see the module comment): claim a batch, hold its funds, send it, record and settle it.
 * Answers how many were claimed.
 */
export const dispatchDueMessages = Effect.gen(function*() {
  const outbox = yield* MessageOutbox
  const charges = yield* MessageCharges
  const senders = yield* MessageSenders
  const at = new Date(yield* Clock.currentTimeMillis)
  const due = yield* outbox.claimDue(at, outbox.settings.batchSize)
  if (due.length === 0) return 0
  const adapterOf = (m: DueMessage) =>
    m.channel === "CHATAPP" ? senders.chatApp.name : senders.sms(m.provider as PhoneProvider).name
  const holding = yield* charges.hold(
    due.map((m) => ({ id: m.id, tenantId: m.tenantId, amount: m.price, adapter: adapterOf(m) })),
    at
  )
  const byId = new Map(due.map((m) => [m.id, m]))
  const outcomes = yield* Effect.forEach(
    holding,
    (h) =>
      sendOne(byId.get(h.id)!, h).pipe(
        Effect.map((o): SendOutcome | undefined => o),
        // unknown whether the provider took it: left SENDING, its claim runs out and it is sent again with the same key
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning(`message ${h.id}: not sent this pass`, cause), undefined)
        )
      ),
    { concurrency: outbox.settings.concurrency }
  )
  const known = outcomes.filter((o): o is SendOutcome => o !== undefined)
  yield* failpoint<never>("message-dispatcher.record")
  yield* charges.record(known)
  yield* outbox.applyEarlyStatuses(
    known.flatMap((o) => {
      const m = byId.get(o.id)!
      return o._tag === "Sent" && m.channel === "CHATAPP"
        ? [{ tenantId: m.tenantId, providerMessageId: o.providerMessageId }]
        : []
    })
  )
  return due.length
})

/**
 * The dispatcher loop: passes back to back while they find work, then a pause until the next message falls due (a
 * retry's time, or an expired claim), at least `pollInterval` and at most `maxIdleInterval`, which ends early when a
 * message is written in this process. Messages written by other processes are found within `maxIdleInterval`; retries
 * go out on time.
 *
 * When the last look for the next due message found none and nothing happened since (no pass
 * claimed a message, no message was written in this process), an empty pass is not followed by
 * another look: nothing can have fallen due here, and what another process writes the next pass
 * finds. An idle platform runs one statement here every `maxIdleInterval`, not two.
 */
export const messageDispatcher = Effect.gen(function*() {
  const outbox = yield* MessageOutbox
  const min = Duration.toMillis(Duration.decode(outbox.settings.pollInterval))
  const max = Math.max(min, Duration.toMillis(Duration.decode(outbox.settings.maxIdleInterval)))
  // the last look found no message waiting, and nothing has been claimed or written here since
  let noneWaiting = false
  while (true) {
    const claimed = yield* dispatchDueMessages.pipe(
      Effect.catchAllCause((cause) => Effect.as(Effect.logError("message dispatch failed", cause), 0))
    )
    if (claimed > 0) noneWaiting = false
    // a pass that found work is followed at once by the next: a backlog drains as fast as it sends
    const pause = claimed > 0 ? 0 : noneWaiting ? max : yield* outbox.nextDueAt.pipe(
      Effect.flatMap((at) =>
        Effect.map(Clock.currentTimeMillis, (now) => {
          noneWaiting = at === undefined
          return at === undefined ? max : Math.min(max, Math.max(min, at.getTime() - now))
        })
      ),
      Effect.catchAllCause(() => Effect.succeed(min))
    )
    const woken = yield* Effect.raceFirst(
      Effect.as(Effect.sleep(pause), false),
      Effect.as(Queue.take(outbox.wakeUps), true)
    )
    if (woken) noneWaiting = false
  }
})

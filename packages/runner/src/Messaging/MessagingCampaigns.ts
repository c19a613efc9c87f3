/**
 * Chat-app and SMS campaigns as a service: what the HTTP handlers (and users' tests) call. One
 * campaign of each channel per agent, enforced by a unique constraint; templates are stored as a
 * JSON array with ids the service assigns, and replaced whole on update.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { AgentNotFound } from "@voiceagent/domain/Agents"
import type { AgentId, TenantId } from "@voiceagent/domain/Ids"
import {
  AgentNumberAttachment,
  ChatAppCampaign,
  ChatAppCampaignExists,
  type ChatAppCampaignId,
  ChatAppCampaignNotFound,
  ChatAppReply,
  ChatAppTemplateMapping,
  type ChatAppTemplateMappingInput,
  type CreateChatAppCampaignRequest,
  type CreateSmsCampaignRequest,
  type MessageChannel,
  MessageLog,
  type MessageStatus,
  SmsCampaign,
  SmsCampaignExists,
  type SmsCampaignId,
  SmsCampaignNotFound,
  SmsTemplate,
  type SmsTemplateInput,
  type UpdateChatAppCampaignRequest,
  type UpdateSmsCampaignRequest,
  WebhookTokenNotIssued
} from "@voiceagent/domain/Messaging"
import { offsetOf, type PageRequest } from "@voiceagent/domain/Pagination"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as crypto from "node:crypto"
import { v7 as uuidv7 } from "uuid"
import { AgentsRepo } from "../Agents/AgentsRepo.js"
import * as ListenerCache from "../Shared/ListenerCache.js"
import * as Rows from "../Sql/Rows.js"
import { isUniqueViolation } from "../Sql/SqlErrors.js"

const CHATAPP_COLUMNS = "id, tenant_id, agent_id, name, phone_number_id, is_active, templates, created_at, updated_at"
const SMS_COLUMNS =
  "id, tenant_id, agent_id, name, sender_number, sender_provider, is_active, templates, created_at, updated_at"
export const MESSAGE_COLUMNS =
  "id, channel, session_id, campaign_id, agent_id, contact_id, call_direction, call_outcome, " +
  "to_number AS \"to\", sender, provider, adapter, template_name, language_code, body, body_parameters, encoding, " +
  "segments, cost, currency, status, provider_message_id, attempts, last_http_status, error_code, error_message, " +
  "next_attempt_at, created_at, sent_at, delivered_at, read_at, failed_at"

const chatAppTemplates = (templates: ReadonlyArray<ChatAppTemplateMappingInput>) =>
  templates.map((t) => ({
    id: uuidv7(),
    templateName: t.templateName,
    languageCode: t.languageCode,
    process: t.process,
    callStatus: t.callStatus,
    bodyParameters: t.bodyParameters
  }))

const smsTemplates = (templates: ReadonlyArray<SmsTemplateInput>) =>
  templates.map((t) => ({
    id: uuidv7(),
    callStatus: t.callStatus,
    messageBody: t.messageBody,
    dltSenderId: t.dltSenderId ?? null,
    dltTemplateId: t.dltTemplateId ?? null
  }))

// jsonb `templates` in their encoded (JSON) form; `currency` is a `char(3)`
const ChatAppCampaignRow = Rows.of(ChatAppCampaign, { templates: Schema.Array(ChatAppTemplateMapping) })
const SmsCampaignRow = Rows.of(SmsCampaign, { templates: Schema.Array(SmsTemplate) })
const AgentNumberAttachmentRow = Rows.of(AgentNumberAttachment)
const MessageLogRow = Rows.of(MessageLog, { currency: Schema.Trim })
const ChatAppReplyRow = Rows.of(ChatAppReply)
const TokenRow = Schema.Struct({ token: Schema.String })

export class MessagingCampaigns extends Effect.Service<MessagingCampaigns>()("Messaging/Campaigns", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const agents = yield* AgentsRepo
    const chatAppColumns = sql.literal(CHATAPP_COLUMNS)
    const smsColumns = sql.literal(SMS_COLUMNS)
    const messageColumns = sql.literal(MESSAGE_COLUMNS)
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const requireAgent = (tenantId: TenantId, agentId: AgentId) =>
      Effect.flatMap(
        agents.find(tenantId, agentId),
        Option.match({
          onNone: () => Effect.fail(new AgentNotFound()),
          onSome: (found) => Effect.succeed(found.agent)
        })
      )

    // -------------------------------------------------------------------------
    // Chat-app campaigns
    // -------------------------------------------------------------------------

    const createChatApp = Effect.fn("MessagingCampaigns.createChatApp")(
      function*(tenantId: TenantId, input: CreateChatAppCampaignRequest) {
        const agent = yield* requireAgent(tenantId, input.agentId)
        const at = yield* now
        return yield* Rows.single(
          ChatAppCampaignRow,
          sql`
          INSERT INTO chatapp_campaigns (id, tenant_id, agent_id, name, phone_number_id, is_active, templates,
            created_at, updated_at)
          VALUES (${uuidv7()}, ${tenantId}, ${input.agentId}, ${input.name ?? `${agent.name} chat-app`}, ${
            input.phoneNumberId ?? null
          },
                  ${input.isActive ?? true}, ${JSON.stringify(chatAppTemplates(input.templates))}::jsonb, ${at}, ${at})
          RETURNING ${chatAppColumns}
        `
        ).pipe(
          Effect.catchTag("SqlError", (e) =>
            isUniqueViolation(e, "chatapp_campaigns_agent_key")
              ? Effect.fail(new ChatAppCampaignExists())
              : Effect.die(e))
        )
      }
    )

    const listChatApp = (tenantId: TenantId, request: PageRequest) =>
      Rows.page(
        ChatAppCampaignRow,
        sql`
          SELECT ${chatAppColumns} FROM chatapp_campaigns WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${request.pageSize} OFFSET ${offsetOf(request)}
        `,
        sql`SELECT count(*) AS total FROM chatapp_campaigns WHERE tenant_id = ${tenantId}`
      )

    const findChatApp = (tenantId: TenantId, id: ChatAppCampaignId, lock = false) =>
      Rows.findOne(
        ChatAppCampaignRow,
        sql`
        SELECT ${chatAppColumns} FROM chatapp_campaigns WHERE id = ${id} AND tenant_id = ${tenantId}
        ${lock ? sql.literal("FOR UPDATE") : sql.literal("")}
      `
      ).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({ onNone: () => Effect.fail(new ChatAppCampaignNotFound()), onSome: Effect.succeed })
        )
      )

    const updateChatApp = Effect.fn("MessagingCampaigns.updateChatApp")(
      function*(tenantId: TenantId, id: ChatAppCampaignId, patch: UpdateChatAppCampaignRequest) {
        const current = yield* findChatApp(tenantId, id, true)
        const templates = patch.templates === undefined ? current.templates : chatAppTemplates(patch.templates)
        return yield* Rows.single(
          ChatAppCampaignRow,
          sql`
          UPDATE chatapp_campaigns SET
            name = ${patch.name ?? current.name},
            phone_number_id = ${patch.phoneNumberId === undefined ? current.phoneNumberId : patch.phoneNumberId},
            is_active = ${patch.isActive ?? current.isActive},
            templates = ${JSON.stringify(templates)}::jsonb,
            updated_at = ${yield* now}
          WHERE id = ${id}
          RETURNING ${chatAppColumns}
        `
        )
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const removeChatApp = (tenantId: TenantId, id: ChatAppCampaignId) =>
      sql`DELETE FROM chatapp_campaigns WHERE id = ${id} AND tenant_id = ${tenantId} RETURNING id`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(new ChatAppCampaignNotFound()) : Effect.void)
      )

    const attachNumber = Effect.fn("MessagingCampaigns.attachNumber")(
      function*(tenantId: TenantId, agentId: AgentId, phoneNumberId: string) {
        yield* requireAgent(tenantId, agentId)
        return yield* Rows.single(
          AgentNumberAttachmentRow,
          sql`
          INSERT INTO chatapp_agent_numbers (id, tenant_id, agent_id, phone_number_id, updated_at)
          VALUES (${uuidv7()}, ${tenantId}, ${agentId}, ${phoneNumberId}, ${yield* now})
          ON CONFLICT (tenant_id, agent_id) DO UPDATE SET phone_number_id = EXCLUDED.phone_number_id,
            updated_at = EXCLUDED.updated_at
          RETURNING id, tenant_id, agent_id, phone_number_id, updated_at
        `
        ).pipe(Effect.orDie)
      }
    )

    /**
     * The tenant's verify token: made on the first call, the same one after. Two statements: a
     * request that loses the race to insert sees the winner's row only in a later statement's snapshot.
     */
    const ensureWebhookToken = Effect.fn("MessagingCampaigns.ensureWebhookToken")(
      function*(tenantId: TenantId) {
        yield* sql`
          INSERT INTO chatapp_webhook_tokens (tenant_id, token) VALUES (${tenantId}, ${
          crypto.randomBytes(24).toString("base64url")
        })
          ON CONFLICT (tenant_id) DO NOTHING
        `
        const row = yield* Rows.single(
          TokenRow,
          sql`SELECT token FROM chatapp_webhook_tokens WHERE tenant_id = ${tenantId}`
        )
        return row.token
      },
      Effect.orDie
    )

    const webhookToken = (tenantId: TenantId) =>
      Rows.findOne(TokenRow, sql`SELECT token FROM chatapp_webhook_tokens WHERE tenant_id = ${tenantId}`).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new WebhookTokenNotIssued()),
            onSome: (row) => Effect.succeed(row.token)
          })
        )
      )

    // -------------------------------------------------------------------------
    // SMS campaigns
    // -------------------------------------------------------------------------

    const createSms = Effect.fn("MessagingCampaigns.createSms")(
      function*(tenantId: TenantId, input: CreateSmsCampaignRequest) {
        const agent = yield* requireAgent(tenantId, input.agentId)
        const at = yield* now
        const defaultName = `${agent.name} SMS`.replace(/[^\p{L}\p{N} ]/gu, " ").replace(/\s+/g, " ").trim().slice(
          0,
          120
        )
        return yield* Rows.single(
          SmsCampaignRow,
          sql`
          INSERT INTO sms_campaigns (id, tenant_id, agent_id, name, sender_number, sender_provider, is_active,
            templates, created_at, updated_at)
          VALUES (${uuidv7()}, ${tenantId}, ${input.agentId}, ${
            input.name ?? (defaultName === "" ? "SMS" : defaultName)
          },
                  ${input.senderNumber ?? null}, ${input.senderProvider ?? null}, ${input.isActive ?? true},
                  ${JSON.stringify(smsTemplates(input.templates))}::jsonb, ${at}, ${at})
          RETURNING ${smsColumns}
        `
        ).pipe(
          Effect.catchTag(
            "SqlError",
            (e) =>
              isUniqueViolation(e, "sms_campaigns_agent_key") ? Effect.fail(new SmsCampaignExists()) : Effect.die(e)
          )
        )
      }
    )

    const listSms = (tenantId: TenantId, request: PageRequest) =>
      Rows.page(
        SmsCampaignRow,
        sql`
          SELECT ${smsColumns} FROM sms_campaigns WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${request.pageSize} OFFSET ${offsetOf(request)}
        `,
        sql`SELECT count(*) AS total FROM sms_campaigns WHERE tenant_id = ${tenantId}`
      )

    const findSms = (tenantId: TenantId, id: SmsCampaignId, lock = false) =>
      Rows.findOne(
        SmsCampaignRow,
        sql`
        SELECT ${smsColumns} FROM sms_campaigns WHERE id = ${id} AND tenant_id = ${tenantId}
        ${lock ? sql.literal("FOR UPDATE") : sql.literal("")}
      `
      ).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(new SmsCampaignNotFound()), onSome: Effect.succeed }))
      )

    const updateSms = Effect.fn("MessagingCampaigns.updateSms")(
      function*(tenantId: TenantId, id: SmsCampaignId, patch: UpdateSmsCampaignRequest) {
        const current = yield* findSms(tenantId, id, true)
        const templates = patch.templates === undefined ? current.templates : smsTemplates(patch.templates)
        return yield* Rows.single(
          SmsCampaignRow,
          sql`
          UPDATE sms_campaigns SET
            name = ${patch.name ?? current.name},
            sender_number = ${patch.senderNumber === undefined ? current.senderNumber : patch.senderNumber},
            sender_provider = ${patch.senderProvider === undefined ? current.senderProvider : patch.senderProvider},
            is_active = ${patch.isActive ?? current.isActive},
            templates = ${JSON.stringify(templates)}::jsonb,
            updated_at = ${yield* now}
          WHERE id = ${id}
          RETURNING ${smsColumns}
        `
        )
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    const removeSms = (tenantId: TenantId, id: SmsCampaignId) =>
      sql`DELETE FROM sms_campaigns WHERE id = ${id} AND tenant_id = ${tenantId} RETURNING id`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) => rows.length === 0 ? Effect.fail(new SmsCampaignNotFound()) : Effect.void)
      )

    // -------------------------------------------------------------------------
    // Logs
    // -------------------------------------------------------------------------

    const messages = (
      tenantId: TenantId,
      channel: MessageChannel,
      filter: { readonly status?: MessageStatus | undefined; readonly sessionId?: string | undefined },
      request: PageRequest
    ) => {
      const where = sql.and([
        sql`tenant_id = ${tenantId}`,
        sql`channel = ${channel}`,
        ...(filter.status === undefined ? [] : [sql`status = ${filter.status}`]),
        ...(filter.sessionId === undefined ? [] : [sql`session_id = ${filter.sessionId}`])
      ])
      return Rows.page(
        MessageLogRow,
        sql`
          SELECT ${messageColumns} FROM messages WHERE ${where}
          ORDER BY id DESC LIMIT ${request.pageSize} OFFSET ${offsetOf(request)}
        `,
        sql`SELECT count(*) AS total FROM messages WHERE ${where}`
      )
    }

    const replies = (tenantId: TenantId, request: PageRequest) =>
      Rows.page(
        ChatAppReplyRow,
        sql`
          SELECT id, provider_message_id, from_number AS "from", phone_number_id, type, text, contact_name, received_at
          FROM chatapp_replies WHERE tenant_id = ${tenantId}
          ORDER BY id DESC LIMIT ${request.pageSize} OFFSET ${offsetOf(request)}
        `,
        sql`SELECT count(*) AS total FROM chatapp_replies WHERE tenant_id = ${tenantId}`
      )

    /** A write that changes what the call-ended listener reads: the tenant's cached lookups go once it is done. */
    const invalidating =
      <Args extends [TenantId, ...Array<unknown>], A, E>(f: (...args: Args) => Effect.Effect<A, E>) =>
      (...args: Args): Effect.Effect<A, E> => Effect.ensuring(f(...args), ListenerCache.invalidate(args[0]))

    return {
      createChatApp: invalidating(createChatApp),
      listChatApp,
      findChatApp: (tenantId: TenantId, id: ChatAppCampaignId) => findChatApp(tenantId, id),
      updateChatApp: invalidating(updateChatApp),
      removeChatApp: invalidating(removeChatApp),
      attachNumber: invalidating(attachNumber),
      ensureWebhookToken,
      webhookToken,
      createSms: invalidating(createSms),
      listSms,
      findSms: (tenantId: TenantId, id: SmsCampaignId) => findSms(tenantId, id),
      updateSms: invalidating(updateSms),
      removeSms: invalidating(removeSms),
      messages,
      replies
    } as const
  }),
  dependencies: [AgentsRepo.Default]
}) {}

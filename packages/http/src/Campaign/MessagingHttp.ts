import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CampaignApi, WebhookReceipt } from "@voiceagent/domain/CampaignApi"
import { WebhookVerificationFailed } from "@voiceagent/domain/CommsApi"
import type { TenantId } from "@voiceagent/domain/Ids"
import { JSON_BODY_MAX_DEPTH, readJsonText } from "@voiceagent/domain/Json"
import {
  ChatAppWebhookDetails,
  ChatAppWebhookToken,
  InvalidWebhookPayload,
  InvalidWebhookSignature
} from "@voiceagent/domain/Messaging"
import { makePage } from "@voiceagent/domain/Pagination"
import { MessageOutbox } from "@voiceagent/runner/Messaging/MessageOutbox"
import { MessagingCampaigns } from "@voiceagent/runner/Messaging/MessagingCampaigns"
import { parseWebhook, verifyWebhookSignature } from "@voiceagent/runner/Messaging/WhatsAppCloud"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { PublicUrl } from "../PublicUrl.js"
import { subscriptionChallenge } from "../WebhookSubscription.js"

/** The messaging platform's app secret (`CHATAPP_APP_SECRET`): signs every notification it posts. */
export class ChatAppAppSecret
  extends Context.Tag("Http/ChatAppAppSecret")<ChatAppAppSecret, Option.Option<Redacted.Redacted>>()
{
  static readonly layer = (secret: Option.Option<Redacted.Redacted>) => Layer.succeed(ChatAppAppSecret, secret)
}

export const chatAppWebhookUrl = (base: string, tenantId: TenantId) => `${base}/api/v1/chatapp/webhook/${tenantId}`

const tenant = Effect.map(CurrentTenant, (t) => t.tenantId)

export const ChatAppHttpLive = HttpApiBuilder.group(CampaignApi, "chatApp", (handlers) =>
  Effect.gen(function*() {
    const campaigns = yield* MessagingCampaigns
    const publicUrl = yield* PublicUrl
    return handlers
      .handle("createChatAppCampaign", ({ payload }) =>
        Effect.flatMap(tenant, (tenantId) => campaigns.createChatApp(tenantId, payload)))
      .handle("listChatAppCampaigns", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.listChatApp(yield* tenant, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("getChatAppCampaign", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.findChatApp(tenantId, path.id)))
      .handle("updateChatAppCampaign", ({ path, payload }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.updateChatApp(tenantId, path.id, payload)))
      .handle("deleteChatAppCampaign", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.removeChatApp(tenantId, path.id)))
      .handle("attachChatAppNumber", ({ path, payload }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.attachNumber(tenantId, path.agentId, payload.phoneNumberId)))
      .handle("createChatAppWebhookToken", () =>
        Effect.flatMap(tenant, (tenantId) =>
          Effect.map(campaigns.ensureWebhookToken(tenantId), (token) =>
            new ChatAppWebhookToken({ token }))))
      .handle("getChatAppWebhookDetails", () =>
        Effect.gen(function*() {
          const tenantId = yield* tenant
          const verifyToken = yield* campaigns.webhookToken(tenantId)
          return new ChatAppWebhookDetails({
            webhookUrl: chatAppWebhookUrl(yield* publicUrl.get, tenantId),
            verifyToken
          })
        }))
      .handle("listChatAppMessages", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.messages(yield* tenant, "CHATAPP", urlParams, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("listChatAppReplies", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.replies(yield* tenant, urlParams)
          return makePage(items, total, urlParams)
        }))
  }))

/**
 * The inbound webhook: no API key. The subscription check compares the tenant's verify token; every
 * notification must be signed with the app secret over its raw bytes, checked before anything is read.
 */
export const ChatAppWebhookHttpLive = HttpApiBuilder.group(
  CampaignApi,
  "chatAppWebhook",
  (handlers) =>
    Effect.gen(function*() {
      const outbox = yield* MessageOutbox
      const campaigns = yield* MessagingCampaigns
      const secret = yield* ChatAppAppSecret
      return handlers
        .handle("verifyChatAppWebhook", ({ path, urlParams }) =>
          Effect.gen(function*() {
            const token = yield* campaigns.webhookToken(path.tenantId).pipe(Effect.option)
            const challenge = subscriptionChallenge(urlParams, Option.getOrUndefined(token))
            if (challenge === undefined) {
              return yield* new WebhookVerificationFailed({
                message:
                  "Webhook verification failed: hub.mode must be subscribe and hub.verify_token the tenant's token"
              })
            }
            return challenge
          }))
        .handle("receiveChatAppWebhook", ({ path }) =>
          Effect.gen(function*() {
            const request = yield* HttpServerRequest.HttpServerRequest
            const raw = yield* request.text.pipe(Effect.orElseSucceed(() => ""))
            if (Option.isNone(secret)) {
              return yield* new InvalidWebhookSignature({
                message: "CHATAPP_APP_SECRET is not configured, so no notification can be verified"
              })
            }
            if (!verifyWebhookSignature(Redacted.value(secret.value), raw, request.headers["x-hub-signature-256"])) {
              return yield* new InvalidWebhookSignature()
            }
            if (Option.isNone(yield* campaigns.webhookToken(path.tenantId).pipe(Effect.option))) {
              return yield* new WebhookVerificationFailed({ message: "This tenant has no chat-app webhook token" })
            }
            // signed, so now read with the rules every JSON body meets
            const read = readJsonText(raw)
            switch (read._tag) {
              case "NotJson":
                return yield* new InvalidWebhookPayload({ message: "The webhook body is not JSON" })
              case "TooDeep":
                return yield* new InvalidWebhookPayload({
                  message: `The webhook body nests deeper than ${JSON_BODY_MAX_DEPTH} levels`
                })
              case "Unstorable":
                return yield* new InvalidWebhookPayload({
                  message: `The webhook body holds what cannot be stored: ${read.problems[0]!.message}`
                })
            }
            const parsed = parseWebhook(read.value)
            if (Either.isLeft(parsed)) return yield* new InvalidWebhookPayload({ message: parsed.left })
            const recorded = yield* outbox.recordInbound(path.tenantId, parsed.right.statuses, parsed.right.messages)
            return new WebhookReceipt(recorded)
          }))
    })
)

export const SmsHttpLive = HttpApiBuilder.group(CampaignApi, "sms", (handlers) =>
  Effect.gen(function*() {
    const campaigns = yield* MessagingCampaigns
    return handlers
      .handle("createSmsCampaign", ({ payload }) =>
        Effect.flatMap(tenant, (tenantId) => campaigns.createSms(tenantId, payload)))
      .handle("listSmsCampaigns", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.listSms(yield* tenant, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("getSmsCampaign", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) => campaigns.findSms(tenantId, path.id)))
      .handle("updateSmsCampaign", ({ path, payload }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.updateSms(tenantId, path.id, payload)))
      .handle("deleteSmsCampaign", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) =>
          campaigns.removeSms(tenantId, path.id)))
      .handle("listSmsMessages", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* campaigns.messages(yield* tenant, "SMS", urlParams, urlParams)
          return makePage(items, total, urlParams)
        }))
  }))

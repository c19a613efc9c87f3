import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AgentWebhookToken, type CreateAgentRequest } from "@voiceagent/domain/Agents"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CommsApi, WebhookVerificationFailed } from "@voiceagent/domain/CommsApi"
import type { AgentId } from "@voiceagent/domain/Ids"
import { PlatformCoreApi } from "@voiceagent/domain/PlatformCoreApi"
import { Agents } from "@voiceagent/runner/Agents/Agents"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { PublicUrl } from "../PublicUrl.js"
import { subscriptionChallenge } from "../WebhookSubscription.js"

export const webhookUrlFor = (base: string, agentId: AgentId) =>
  `${base}/api/v1/channels/chatapp/agents/${agentId}/webhook`

/** `POST /agents`: the same on comms and on platform core. */
const createAgent = (payload: CreateAgentRequest) =>
  Effect.flatMap(Effect.all([Agents, CurrentTenant]), ([agents, { tenantId }]) => agents.create(tenantId, payload))

export const AgentsHttpLive = HttpApiBuilder.group(CommsApi, "agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* Agents
    const publicUrl = yield* PublicUrl
    const context = yield* Effect.context<Agents>()

    return handlers
      .handle("createAgent", ({ payload }) => createAgent(payload).pipe(Effect.provide(context)))
      .handle("listAgents", ({ urlParams }) =>
        Effect.flatMap(CurrentTenant, ({ tenantId }) => agents.list(tenantId, urlParams)))
      .handle("getAgent", ({ path }) =>
        Effect.flatMap(CurrentTenant, ({ tenantId }) => agents.get(tenantId, path.id)))
      .handle("updateAgent", ({ path, payload }) =>
        Effect.flatMap(CurrentTenant, ({ tenantId }) =>
          agents.update(tenantId, path.id, payload)))
      .handle("createAgentWebhookToken", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const issued = yield* agents.webhookToken(tenantId, path.id)
          return new AgentWebhookToken({
            agentId: path.id,
            token: issued.webhookToken,
            webhookUrl: webhookUrlFor(yield* publicUrl.get, path.id),
            createdAt: issued.webhookTokenAt
          })
        }))
  }))

export const AgentWebhookHttpLive = HttpApiBuilder.group(
  CommsApi,
  "agentWebhook",
  (handlers) =>
    Effect.gen(function*() {
      const agents = yield* AgentsRepo
      return handlers.handle("verifyAgentWebhook", ({ path, urlParams }) =>
        Effect.gen(function*() {
          const token = yield* agents.webhookTokenOf(path.agentId)
          const challenge = subscriptionChallenge(urlParams, Option.getOrUndefined(token))
          if (challenge === undefined) return yield* new WebhookVerificationFailed()
          return challenge
        }))
    })
)

export const CoreAgentsHttpLive = HttpApiBuilder.group(
  PlatformCoreApi,
  "coreAgents",
  (handlers) =>
    Effect.map(
      Effect.context<Agents>(),
      (context) => handlers.handle("createAgent", ({ payload }) => createAgent(payload).pipe(Effect.provide(context)))
    )
)

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import {
  AgentNotFound,
  AgentWebhookToken,
  applyAgentPatch,
  type CreateAgentRequest,
  PersonaNotFound
} from "@voiceagent/domain/Agents"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { CommsApi, WebhookVerificationFailed } from "@voiceagent/domain/CommsApi"
import type { AgentId } from "@voiceagent/domain/Ids"
import { UnknownKnowledgeBase } from "@voiceagent/domain/KnowledgeBases"
import { makePage } from "@voiceagent/domain/Pagination"
import { PlatformCoreApi } from "@voiceagent/domain/PlatformCoreApi"
import { AgentsRepo, stateOf } from "@voiceagent/runner/Agents/AgentsRepo"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import { PublicUrl } from "../PublicUrl.js"
import { subscriptionChallenge } from "../WebhookSubscription.js"

/** `POST /agents`: the same on comms and on platform core. */
export const createAgent = (payload: CreateAgentRequest) =>
  Effect.gen(function*() {
    const { tenantId } = yield* CurrentTenant
    const agents = yield* AgentsRepo
    const persona = yield* agents.findPersona(payload.agent_persona_id)
    if (Option.isNone(persona)) return yield* new PersonaNotFound()
    return yield* agents.create(tenantId, persona.value, payload.name)
  })

export const webhookUrlFor = (base: string, agentId: AgentId) =>
  `${base}/api/v1/channels/chatapp/agents/${agentId}/webhook`

export const AgentsHttpLive = HttpApiBuilder.group(CommsApi, "agents", (handlers) =>
  Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const sql = yield* SqlClient.SqlClient
    const publicUrl = yield* PublicUrl
    const context = yield* Effect.context<AgentsRepo>()

    return handlers
      .handle("createAgent", ({ payload }) => createAgent(payload).pipe(Effect.provide(context)))
      .handle("listAgents", ({ urlParams }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const { items, total } = yield* agents.list(tenantId, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("getAgent", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const found = yield* agents.find(tenantId, path.id)
          return yield* Option.match(found, {
            onNone: () => Effect.fail(new AgentNotFound()),
            onSome: (r) => Effect.succeed(r.agent)
          })
        }))
      .handle("updateAgent", ({ path, payload }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const found = yield* agents.find(tenantId, path.id, { forUpdate: true })
          if (Option.isNone(found)) return yield* new AgentNotFound()
          const next = applyAgentPatch(stateOf(found.value.agent), payload)
          if (Either.isLeft(next)) return yield* next.left
          if (payload.knowledgeBaseIds !== undefined) {
            const unknown = yield* agents.setKnowledgeBases(tenantId, path.id, payload.knowledgeBaseIds)
            if (unknown.length > 0) return yield* new UnknownKnowledgeBase({ details: { knowledgeBaseIds: unknown } })
          }
          return yield* agents.save(tenantId, path.id, next.right)
        }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die)))
      .handle("createAgentWebhookToken", ({ path }) =>
        Effect.gen(function*() {
          const { tenantId } = yield* CurrentTenant
          const issued = yield* agents.ensureWebhookToken(
            tenantId,
            path.id,
            crypto.randomBytes(24).toString("base64url")
          )
          if (Option.isNone(issued)) return yield* new AgentNotFound()
          const base = yield* publicUrl.get
          return new AgentWebhookToken({
            agentId: path.id,
            token: issued.value.webhookToken,
            webhookUrl: webhookUrlFor(base, path.id),
            createdAt: issued.value.webhookTokenAt
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
      Effect.context<AgentsRepo>(),
      (context) => handlers.handle("createAgent", ({ payload }) => createAgent(payload).pipe(Effect.provide(context)))
    )
)

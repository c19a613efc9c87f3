/**
 * What the agents API does, as a service: the HTTP handlers of comms and platform core call it, and so can
 * users' tests through the testing kit. A change is the stored agent with the patch applied by the domain's
 * rules (`applyAgentPatch`), written with its knowledge bases in one transaction on the locked row.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import {
  AgentNotFound,
  applyAgentPatch,
  type CreateAgentRequest,
  PersonaNotFound,
  type UpdateAgentRequest
} from "@voiceagent/domain/Agents"
import type { AgentId, TenantId } from "@voiceagent/domain/Ids"
import { UnknownKnowledgeBase } from "@voiceagent/domain/KnowledgeBases"
import { makePage, type PageRequest } from "@voiceagent/domain/Pagination"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import { AgentsRepo, stateOf } from "./AgentsRepo.js"

export class Agents extends Effect.Service<Agents>()("Agents/Agents", {
  effect: Effect.gen(function*() {
    const agents = yield* AgentsRepo
    const sql = yield* SqlClient.SqlClient

    const orNotFound = <A>(found: Option.Option<A>) =>
      Option.match(found, { onNone: () => Effect.fail(new AgentNotFound()), onSome: Effect.succeed })

    /** A new agent of the tenant, from a persona's prompt and greeting. */
    const create = Effect.fn("Agents.create")(function*(tenantId: TenantId, request: CreateAgentRequest) {
      const persona = yield* agents.findPersona(request.agent_persona_id)
      if (Option.isNone(persona)) return yield* new PersonaNotFound()
      return yield* agents.create(tenantId, persona.value, request.name)
    })

    const list = Effect.fn("Agents.list")(function*(tenantId: TenantId, page: PageRequest) {
      const { items, total } = yield* agents.list(tenantId, page)
      return makePage(items, total, page)
    })

    const get = Effect.fn("Agents.get")(function*(tenantId: TenantId, id: AgentId) {
      const found = yield* agents.find(tenantId, id)
      return (yield* orNotFound(found)).agent
    })

    /** The patch applied to the stored agent and saved, its knowledge bases replaced when it names them. */
    const update = Effect.fn("Agents.update")(
      function*(tenantId: TenantId, id: AgentId, patch: UpdateAgentRequest) {
        const found = yield* agents.find(tenantId, id, { forUpdate: true })
        if (Option.isNone(found)) return yield* new AgentNotFound()
        const next = applyAgentPatch(stateOf(found.value.agent), patch)
        if (Either.isLeft(next)) return yield* next.left
        if (patch.knowledgeBaseIds !== undefined) {
          const unknown = yield* agents.setKnowledgeBases(tenantId, id, patch.knowledgeBaseIds)
          if (unknown.length > 0) return yield* new UnknownKnowledgeBase({ details: { knowledgeBaseIds: unknown } })
        }
        return yield* agents.save(tenantId, id, next.right)
      },
      sql.withTransaction,
      Effect.catchTag("SqlError", Effect.die)
    )

    /** The agent's chat-app webhook token: made on the first request, the same one after. */
    const webhookToken = Effect.fn("Agents.webhookToken")(function*(tenantId: TenantId, id: AgentId) {
      const issued = yield* agents.ensureWebhookToken(tenantId, id, crypto.randomBytes(24).toString("base64url"))
      return yield* orNotFound(issued)
    })

    return { create, list, get, update, webhookToken } as const
  }),
  dependencies: [AgentsRepo.Default]
}) {}

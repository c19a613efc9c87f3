import { assert, describe, it } from "@effect/vitest"
import type { KnowledgeBaseId, PersonaId, TenantId } from "@voiceagent/domain/Ids"
import { Agents } from "@voiceagent/runner/Agents/Agents"
import * as TestDatabase from "@voiceagent/runner/Testing/TestDatabase"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import { Effect, Layer } from "effect"
import * as crypto from "node:crypto"

const Services = Layer.mergeAll(Agents.Default, UsersRepo.Default).pipe(Layer.provideMerge(TestDatabase.layer))

const RECEPTIONIST = "4a1f0c56-2c1e-4d1a-9a53-0d6b3f6e0001" as PersonaId

const newTenant = Effect.gen(function*() {
  const { tenant } = yield* (yield* UsersRepo).create({
    email: `agents-${crypto.randomUUID()}@example.com`,
    passwordHash: "x",
    companyName: "Co"
  })
  return tenant!.id as TenantId
})

describe(`Agents service (${TestDatabase.backend()})`, () => {
  it.layer(Services, { timeout: 120_000 })((it) => {
    it.effect("creates from a persona; an unknown persona is refused and nothing is written", () =>
      Effect.gen(function*() {
        const agents = yield* Agents
        const tenantId = yield* newTenant
        const refused = yield* Effect.flip(
          agents.create(tenantId, { agent_persona_id: crypto.randomUUID() as PersonaId, name: "Nobody" })
        )
        assert.strictEqual(refused._tag, "PersonaNotFound")
        assert.strictEqual((yield* agents.list(tenantId, { page: 1, pageSize: 10 })).total, 0)
        const agent = yield* agents.create(tenantId, { agent_persona_id: RECEPTIONIST, name: "Front desk" })
        assert.strictEqual((yield* agents.get(tenantId, agent.id)).name, "Front desk")
        assert.strictEqual((yield* Effect.flip(agents.get(yield* newTenant, agent.id)))._tag, "AgentNotFound")
      }))

    it.effect("an update naming a knowledge base the tenant lacks changes nothing, not even its other fields", () =>
      Effect.gen(function*() {
        const agents = yield* Agents
        const tenantId = yield* newTenant
        const agent = yield* agents.create(tenantId, { agent_persona_id: RECEPTIONIST, name: "Before" })
        const refused = yield* Effect.flip(
          agents.update(tenantId, agent.id, {
            name: "After",
            knowledgeBaseIds: [crypto.randomUUID() as KnowledgeBaseId]
          })
        )
        assert.strictEqual(refused._tag, "UnknownKnowledgeBase")
        assert.strictEqual((yield* agents.get(tenantId, agent.id)).name, "Before")
        const updated = yield* agents.update(tenantId, agent.id, { name: "After" })
        assert.strictEqual(updated.name, "After")
        const other = yield* Effect.flip(agents.update(yield* newTenant, agent.id, { name: "Theirs" }))
        assert.strictEqual(other._tag, "AgentNotFound")
      }))

    it.effect("the webhook token is made once: a second request gets the same token", () =>
      Effect.gen(function*() {
        const agents = yield* Agents
        const tenantId = yield* newTenant
        const agent = yield* agents.create(tenantId, { agent_persona_id: RECEPTIONIST, name: "Chat" })
        const first = yield* agents.webhookToken(tenantId, agent.id)
        const second = yield* agents.webhookToken(tenantId, agent.id)
        assert.strictEqual(second.webhookToken, first.webhookToken)
        assert.isAtLeast(first.webhookToken.length, 32)
        assert.strictEqual((yield* Effect.flip(agents.webhookToken(yield* newTenant, agent.id)))._tag, "AgentNotFound")
      }))
  })
})

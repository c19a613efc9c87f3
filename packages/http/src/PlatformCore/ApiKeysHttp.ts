import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AgentNotFound } from "@voiceagent/domain/Agents"
import { ApiKeyNotFound, CreatedApiKey, ExpiryInPast } from "@voiceagent/domain/ApiKeys"
import { CurrentUser, type Principal } from "@voiceagent/domain/Auth"
import type { ApiKeyId } from "@voiceagent/domain/Ids"
import { makePage } from "@voiceagent/domain/Pagination"
import { PlatformCoreApi } from "@voiceagent/domain/PlatformCoreApi"
import { AgentsRepo } from "@voiceagent/runner/Agents/AgentsRepo"
import { ApiKeysRepo, type KeyScope } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { v7 as uuidv7 } from "uuid"
import { displayPrefix, generateApiKey, generateSigningSecret, hashApiKey } from "../Auth/ApiKeyFormat.js"
import { Authenticator } from "../Auth/Authenticator.js"

const scopeOf = (principal: Principal): KeyScope => ({ userId: principal.userId, tenantId: principal.tenantId })

export const ApiKeysHttpLive = HttpApiBuilder.group(PlatformCoreApi, "apiKeys", (handlers) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeysRepo
    const agents = yield* AgentsRepo
    const authenticator = yield* Authenticator

    return handlers
      .handle("createApiKey", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentUser
          const now = yield* Clock.currentTimeMillis
          const expiresAt = payload.expiresAt ?? null
          if (expiresAt !== null && expiresAt.getTime() <= now) return yield* new ExpiryInPast()
          const agentId = payload.agentId ?? null
          if (agentId !== null) {
            const agent = principal.tenantId === null ? Option.none() : yield* agents.find(principal.tenantId, agentId)
            if (Option.isNone(agent)) {
              return yield* new AgentNotFound({ message: "agentId does not name one of your agents" })
            }
          }
          const key = generateApiKey()
          const signingSecret = generateSigningSecret()
          const id = uuidv7() as ApiKeyId
          const created = {
            id,
            userId: principal.userId,
            name: payload.name,
            prefix: displayPrefix(key),
            keyHash: hashApiKey(key),
            signingSecret,
            webhookUrl: payload.webhookUrl ?? null,
            agentId,
            expiresAt
          }
          const createdAt = yield* keys.insert(created)
          return new CreatedApiKey({
            id,
            name: created.name,
            prefix: created.prefix,
            expiresAt,
            webhookUrl: created.webhookUrl,
            agentId: created.agentId,
            createdAt,
            key,
            signingSecret
          })
        }))
      .handle("listApiKeys", ({ urlParams }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentUser
          const { items, total } = yield* keys.list(scopeOf(principal), urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("revokeApiKey", ({ path }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentUser
          const revoked = yield* keys.revoke(scopeOf(principal), path.id)
          if (!revoked) return yield* new ApiKeyNotFound()
          yield* authenticator.forgetKey(path.id)
        }))
  }))

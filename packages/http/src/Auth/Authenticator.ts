import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { TenantMismatch } from "@voiceagent/domain/ApiError"
import {
  ApiKeyExpired,
  ApiKeyNotAllowed,
  type AuthenticationFailure,
  InvalidApiKey,
  InvalidSession,
  MalformedAuthorization,
  MissingCredentials,
  type Principal,
  SessionExpired,
  TenantContextRequired,
  type TenantPrincipal
} from "@voiceagent/domain/Auth"
import type { ApiKeyId, TenantId, UserId } from "@voiceagent/domain/Ids"
import { ApiKeysRepo } from "@voiceagent/runner/ApiKeys/ApiKeysRepo"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as crypto from "node:crypto"
import { hasBody } from "../RequestContext.js"
import { apiKeyDigest, isWellFormedApiKey } from "./ApiKeyFormat.js"
import { CredentialCache } from "./CredentialCache.js"
import { parseAuthorization } from "./Credentials.js"
import { SessionTokens } from "./SessionTokens.js"

/** `lastUsedAt` is written at most this often per key, so the hot path is one read. */
const LAST_USED_RESOLUTION_MS = 60_000

export interface AuthenticationRules {
  /** Refuse API keys (dashboard sessions only). */
  readonly sessionOnly: boolean
}

export class Authenticator extends Effect.Service<Authenticator>()("Auth/Authenticator", {
  effect: Effect.gen(function*() {
    const keys = yield* ApiKeysRepo
    const users = yield* UsersRepo
    const tokens = yield* SessionTokens

    const cache = new CredentialCache()

    /** The key's row, from the cache or the database (then kept, unless a change raced the read). */
    const credentialOf = (cacheKey: string, now: number) => {
      const cached = cache.find(cacheKey, now)
      if (cached !== undefined) return Effect.succeed(Option.some(cached))
      const generation = cache.generation
      const hash = Buffer.from(cacheKey, "base64")
      return keys.findCredential(hash).pipe(
        Effect.map((found) => {
          if (Option.isNone(found) || !crypto.timingSafeEqual(Buffer.from(found.value.keyHash), hash)) {
            return Option.none()
          }
          cache.keep(cacheKey, found.value, now, generation)
          return found
        })
      )
    }

    const withApiKey = (key: string) =>
      Effect.gen(function*() {
        if (!isWellFormedApiKey(key)) return yield* new InvalidApiKey()
        const cacheKey = apiKeyDigest(key)
        const now = yield* Clock.currentTimeMillis
        const found = yield* credentialOf(cacheKey, now)
        if (Option.isNone(found)) return yield* new InvalidApiKey()
        const credential = found.value
        if (credential.expiresAt !== null && credential.expiresAt.getTime() <= now) {
          return yield* new ApiKeyExpired()
        }
        if (credential.lastUsedAt === null || now - credential.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
          yield* keys.touchLastUsed(credential.id, new Date(now))
          cache.touched(cacheKey, { ...credential, lastUsedAt: new Date(now) })
        }
        return {
          userId: credential.user.id,
          tenantId: credential.user.tenantId,
          via: "api_key",
          apiKeyId: credential.id,
          user: credential.user,
          tenant: credential.tenant
        } satisfies Principal
      })

    const withSession = (token: string) =>
      Effect.gen(function*() {
        const verified = yield* tokens.verify(token)
        if (Either.isLeft(verified)) {
          return yield* verified.left === "expired" ? new SessionExpired() : new InvalidSession()
        }
        const found = yield* users.findById(verified.right)
        if (Option.isNone(found)) return yield* new InvalidSession()
        return {
          userId: found.value.user.id,
          tenantId: found.value.user.tenantId,
          via: "session",
          apiKeyId: null,
          user: found.value.user,
          tenant: found.value.tenant
        } satisfies Principal
      })

    /** Who is calling, from the raw `Authorization` header. */
    const authenticate = (
      header: string | undefined,
      rules: AuthenticationRules
    ): Effect.Effect<Principal, AuthenticationFailure> => {
      const presented = parseAuthorization(header)
      switch (presented._tag) {
        case "Missing":
          return Effect.fail(new MissingCredentials())
        case "Malformed":
          return Effect.fail(new MalformedAuthorization())
        case "Session":
          return withSession(presented.token)
        case "ApiKey":
          return withApiKey(presented.key).pipe(
            Effect.filterOrFail(() => !rules.sessionOnly, () => new ApiKeyNotAllowed())
          )
      }
    }

    return {
      authenticate,
      /** After a key is revoked: refused at once by this process (see `CredentialCache`). */
      forgetKey: (id: ApiKeyId) => Effect.sync(() => cache.forgetKey(id)),
      /** After a user is given a tenant. */
      forgetUser: (id: UserId) => Effect.sync(() => cache.forgetUser(id)),
      /** After a tenant is renamed. */
      forgetTenant: (id: TenantId) => Effect.sync(() => cache.forgetTenant(id))
    } as const
  }),
  dependencies: [ApiKeysRepo.Default, UsersRepo.Default]
}) {}

export const requireTenant = (principal: Principal): Effect.Effect<TenantPrincipal, TenantContextRequired> =>
  principal.tenantId === null
    ? Effect.fail(new TenantContextRequired())
    : Effect.succeed(principal as TenantPrincipal)

const tenantIdIn = (value: unknown): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)["tenantId"]
    : undefined

/**
 * The tenant always comes from the credential. A `tenantId` the caller sends anyway (JSON body or
 * query string) must name the same tenant, or the request is refused before any handler runs.
 */
export const refuseForeignTenantId = (principal: TenantPrincipal) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    // most requests have neither a query string nor a body: nothing to parse
    const query = request.url.includes("?")
      ? new URL(request.url, "http://local").searchParams.getAll("tenantId")
      : []
    const contentType = request.headers["content-type"] ?? ""
    if (!hasBody(request.headers) || !contentType.includes("application/json")) return refuseClaims(principal, query)
    return Effect.flatMap(
      request.json.pipe(Effect.orElseSucceed(() => undefined)),
      (body) => refuseClaims(principal, [...query, tenantIdIn(body)])
    )
  })

const refuseClaims = (principal: TenantPrincipal, claimed: ReadonlyArray<unknown>) =>
  claimed.some((v) => v !== undefined && v !== null && v !== principal.tenantId)
    ? Effect.fail(new TenantMismatch())
    : Effect.void

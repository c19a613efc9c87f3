import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { CurrentTenant, CurrentUser } from "@voiceagent/domain/Auth"
import { PlatformCoreApi } from "@voiceagent/domain/PlatformCoreApi"
import { Profile, TenantAlreadyExists } from "@voiceagent/domain/Users"
import { fromDatabase } from "@voiceagent/runner/Sql/Rows"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Authenticator } from "../Auth/Authenticator.js"
import { jsonAnswer } from "../Responses.js"

const profileAnswer = jsonAnswer(Profile)

export const ProfileHttpLive = HttpApiBuilder.group(PlatformCoreApi, "profile", (handlers) =>
  Effect.gen(function*() {
    const users = yield* UsersRepo
    const authenticator = yield* Authenticator

    return handlers
      .handle("getProfile", () =>
        Effect.gen(function*() {
          const principal = yield* CurrentUser
          // read with the credential, from our own tables: no second statement, no re-validation
          return profileAnswer(
            new Profile({
              user: principal.user,
              tenant: principal.tenant,
              credential: { type: principal.via, apiKeyId: principal.apiKeyId }
            }, fromDatabase)
          )
        }))
      .handle("createTenant", ({ payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentUser
          const created = yield* users.createTenantFor(principal.userId, payload.companyName)
          if (Option.isSome(created)) yield* authenticator.forgetUser(principal.userId)
          return yield* Option.match(created, {
            onNone: () => Effect.fail(new TenantAlreadyExists()),
            onSome: Effect.succeed
          })
        }))
      .handle("getTenant", () =>
        Effect.flatMap(CurrentTenant, (principal) =>
          principal.tenant !== null
            ? Effect.succeed(principal.tenant)
            : users.findTenant(principal.tenantId).pipe(Effect.flatten, Effect.orDie)))
      .handle("updateTenant", ({ payload }) =>
        Effect.flatMap(CurrentTenant, (principal) =>
          users.renameTenant(principal.tenantId, payload.name).pipe(
            Effect.flatten,
            Effect.orDie,
            Effect.tap(() =>
              authenticator.forgetTenant(principal.tenantId)
            )
          )))
  }))

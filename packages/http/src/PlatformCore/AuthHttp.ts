import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { PlatformCoreApi } from "@voiceagent/domain/PlatformCoreApi"
import { EmailTaken, InvalidCredentials, LoginResponse, SignupResponse } from "@voiceagent/domain/Users"
import { UsersRepo } from "@voiceagent/runner/Users/UsersRepo"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { DUMMY_HASH, hashPassword, verifyPassword } from "../Auth/Passwords.js"
import { SessionTokens } from "../Auth/SessionTokens.js"

export const AuthHttpLive = HttpApiBuilder.group(PlatformCoreApi, "auth", (handlers) =>
  Effect.gen(function*() {
    const users = yield* UsersRepo
    const tokens = yield* SessionTokens

    return handlers
      .handle("signup", ({ payload }) =>
        Effect.gen(function*() {
          const passwordHash = yield* hashPassword(payload.password)
          const { tenant, user } = yield* users.create({
            email: payload.email,
            passwordHash,
            companyName: payload.companyName
          }).pipe(Effect.catchTag("EmailAlreadyUsed", () => new EmailTaken()))
          const session = yield* tokens.issue(user.id)
          return new SignupResponse({ token: session.token, expiresAt: session.expiresAt, user, tenant })
        }))
      .handle("login", ({ payload }) =>
        Effect.gen(function*() {
          const found = yield* users.findByEmail(payload.email)
          // Unknown e-mail or wrong password take the same time and give the same answer.
          const stored = Option.match(found, { onNone: () => DUMMY_HASH, onSome: (r) => r.passwordHash })
          const matches = yield* verifyPassword(payload.password, stored)
          if (Option.isNone(found) || !matches) return yield* new InvalidCredentials()
          const session = yield* tokens.issue(found.value.user.id)
          return new LoginResponse({ token: session.token, expiresAt: session.expiresAt, user: found.value.user })
        }))
  }))

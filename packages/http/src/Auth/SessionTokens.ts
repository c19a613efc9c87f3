/**
 * Dashboard session tokens: JWT, HS256, with expiry. Time comes from Effect's `Clock`, so expiry
 * is testable with `TestClock`.
 */
import type { UserId } from "@voiceagent/domain/Ids"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"

const ISSUER = "voice-agent-platform"
const AUDIENCE = "dashboard"

export interface SessionTokensConfig {
  readonly secret: Redacted.Redacted
  readonly ttl: Duration.DurationInput
}

export type SessionTokenProblem = "expired" | "invalid"

export class SessionTokens extends Context.Tag("Auth/SessionTokens")<SessionTokens, {
  readonly issue: (userId: UserId) => Effect.Effect<{ readonly token: string; readonly expiresAt: Date }>
  readonly verify: (token: string) => Effect.Effect<Either.Either<UserId, SessionTokenProblem>>
}>() {
  static readonly layer = (config: SessionTokensConfig) =>
    Layer.sync(SessionTokens, () => {
      const key = new TextEncoder().encode(Redacted.value(config.secret))
      const ttlSeconds = Math.max(1, Math.floor(Duration.toSeconds(Duration.decode(config.ttl))))

      const issue = (userId: UserId) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const issuedAt = Math.floor(now / 1000)
          const expiresAt = issuedAt + ttlSeconds
          return Effect.map(
            Effect.promise(() =>
              new jose.SignJWT({})
                .setProtectedHeader({ alg: "HS256", typ: "JWT" })
                .setSubject(userId)
                .setIssuer(ISSUER)
                .setAudience(AUDIENCE)
                .setIssuedAt(issuedAt)
                .setExpirationTime(expiresAt)
                .sign(key)
            ),
            (token) => ({ token, expiresAt: new Date(expiresAt * 1000) })
          )
        })

      const verify = (token: string) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Effect.promise(() =>
            jose.jwtVerify(token, key, {
              algorithms: ["HS256"],
              issuer: ISSUER,
              audience: AUDIENCE,
              currentDate: new Date(now),
              requiredClaims: ["sub", "exp"]
            }).then(
              ({ payload }) => Either.right(payload.sub as UserId),
              (error: unknown) =>
                Either.left<SessionTokenProblem>(error instanceof jose.errors.JWTExpired ? "expired" : "invalid")
            )
          ))

      return { issue, verify }
    })
}

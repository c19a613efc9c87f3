import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import {
  Authentication,
  type Principal,
  SessionAuthentication,
  SessionTenantAuthentication,
  TenantAuthentication
} from "@voiceagent/domain/Auth"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import { type AuthenticationRules, Authenticator, refuseForeignTenantId, requireTenant } from "./Authenticator.js"

/**
 * From here to the end of the request, log lines (the access line included) name the caller's
 * tenant and user. Set on the fiber rather than scoped: the handler runs after the middleware in the
 * same fiber, and the request context's own annotation scope ends the request's.
 */
const annotateCaller = (principal: Principal) =>
  FiberRef.update(FiberRef.currentLogAnnotations, (annotations) =>
    HashMap.set(
      HashMap.set(annotations, "userId", principal.userId as unknown),
      "tenantId",
      (principal.tenantId ?? null) as unknown
    ))

// The platform's bearer decoding drops the scheme check, so each middleware reads the raw header.
const principal = (authenticator: Authenticator, rules: AuthenticationRules) =>
  Effect.flatMap(
    HttpServerRequest.HttpServerRequest,
    (request) => authenticator.authenticate(request.headers["authorization"], rules)
  ).pipe(Effect.tap(annotateCaller))

const tenantPrincipal = (authenticator: Authenticator, rules: AuthenticationRules) =>
  principal(authenticator, rules).pipe(
    Effect.flatMap(requireTenant),
    Effect.tap(refuseForeignTenantId)
  )

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Authenticator, (auth) => Authentication.of({ bearer: () => principal(auth, { sessionOnly: false }) }))
)

export const SessionAuthenticationLive = Layer.effect(
  SessionAuthentication,
  Effect.map(
    Authenticator,
    (auth) => SessionAuthentication.of({ bearer: () => principal(auth, { sessionOnly: true }) })
  )
)

export const TenantAuthenticationLive = Layer.effect(
  TenantAuthentication,
  Effect.map(
    Authenticator,
    (auth) => TenantAuthentication.of({ bearer: () => tenantPrincipal(auth, { sessionOnly: false }) })
  )
)

export const SessionTenantAuthenticationLive = Layer.effect(
  SessionTenantAuthentication,
  Effect.map(
    Authenticator,
    (auth) => SessionTenantAuthentication.of({ bearer: () => tenantPrincipal(auth, { sessionOnly: true }) })
  )
)

/** All four authentication middlewares; each service's API uses the ones its routes declare. */
export const AuthMiddlewareLive = Layer.mergeAll(
  AuthenticationLive,
  SessionAuthenticationLive,
  TenantAuthenticationLive,
  SessionTenantAuthenticationLive
)
